//===- Passes.td - Crest graph-level passes ----------------*- tablegen -*-===//

#ifndef CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
#define CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CrestAttachTargetPass : Pass<"crest-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach a #crest.target to the module";
  let description = [{
    Sets the module's `crest.target` attribute to the chip named by `chip`
    (and `wave-size`, 0 for the chip's default), replacing any target it had.
    The module is then verified against that chip: every contraction's
    precision must have a matrix instruction on it. An unknown chip fails the
    pass with a diagnostic that lists the known chips.

    ```sh
    crest-opt model.mlir --crest-attach-target=chip=gfx942
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201)">,
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"0",
           "Wave size (32 or 64; 0 = the chip's default)">,
  ];
}

def CrestFuseEpiloguesPass : Pass<"crest-fuse-epilogues", "::mlir::ModuleOp"> {
  let summary = "Group contractions and elementwise chains into crest.kernel";
  let description = [{
    Wraps each `crest.matmul` / `crest.batch_matmul` / `crest.conv2d`
    outside a `crest.kernel`
    together with the chain of elementwise operations that consume its
    result (bias and residual adds, sub, mul, div, max, min, pow, relu,
    clip, gelu, sigmoid, hardswish, hardsigmoid, tanh, erf, exp, sqrt, neg,
    abs, scaling by constants, casts) into one `crest.kernel`, the form
    `crest-lower-to-gpu` turns into a single MFMA kernel with a fused
    epilogue. Then wraps every chain of two or more remaining elementwise
    operations into an elementwise-only `crest.kernel`.

    A consumer joins the chain only when

    - the chain's current value has no use other than this consumer (it
      may use it more than once), so no intermediate escapes the kernel;
    - it is an elementwise op whose other operands are defined outside the
      chain (they become kernel inputs; splat `arith.constant`s are cloned
      into the body instead);
    - after a contraction: its result has the contraction's output shape
      (an epilogue works on the output tile; a broadcast that grows the
      tensor stops the chain).

    The kernel replaces the chain at the position of its last op and yields
    the last op's result. Existing `crest.kernel`s and non-elementwise
    consumers (softmax, layer_norm, pooling, reductions) are left alone.

    ```sh
    crest-opt model.mlir --crest-fuse-epilogues
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let statistics = [
    Statistic<"numContractionKernels", "contraction-kernels",
              "crest.kernels built around a contraction">,
    Statistic<"numElementwiseKernels", "elementwise-kernels",
              "elementwise-only crest.kernels built">,
  ];
}

#endif // CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
