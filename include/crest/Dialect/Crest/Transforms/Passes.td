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

def CrestSelectConfigPass : Pass<"crest-select-config", "::mlir::ModuleOp"> {
  let summary = "Choose the kernel configuration of every contraction";
  let description = [{
    For each `crest.matmul`, `crest.batch_matmul` and `crest.conv2d` under
    the module's `#crest.target` that has no `#crest.config` yet, picks the
    matrix instruction, the workgroup and wave tiles, the sync scope, the
    LDS stages and the split-K factor from the chip table, and attaches them
    as `config`. An explicit `config` (on the op or its `crest.kernel`) is
    kept as written; a `sync` attribute fixes the scope and the stages.

    Candidates are single-block instructions of the op's precision, tried
    with decreasing tiles. Small, latency-bound problems (M or N at most 16)
    get wavefront scope and tiles of one instruction per wave. A candidate
    is rejected when its LDS exceeds the chip's, its accumulators exceed the
    register file, or its estimated occupancy is below `min-waves-per-simd`.
    When nothing fits, the error lists every candidate and why it was
    rejected. With `explain`, a remark gives the choice and its cost.

    ```sh
    crest-opt model.mlir --crest-attach-target=chip=gfx942 --crest-select-config
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"minWavesPerSimd", "min-waves-per-simd", "unsigned",
           /*default=*/"1",
           "Reject configurations with a lower estimated occupancy">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark describing each choice">,
  ];
}

#endif // CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
