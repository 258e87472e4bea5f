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

def CrestFuseAttentionPass : Pass<"crest-fuse-attention", "::mlir::ModuleOp"> {
  let summary = "Fuse Q K^T, scale, softmax and P V into crest.attention";
  let description = [{
    Rewrites scaled dot-product attention written as separate ops into one
    `crest.attention` (whose kernel keeps the scores in registers):

    ```
    %s = crest.batch_matmul %q, %k transpose_rhs   (or %kt, K^T as a tensor)
    [%s = crest.div %s, c  |  crest.mul %s, c]      (c a splat constant)
    [%s = crest.add %s, %m]                         (before or after the
                                                     scale; %m a 0 / -inf
                                                     mask)
    %p = crest.softmax %s                           (last axis, f32)
    [%p = crest.cast %p : ... to f16/bf16/fp8]      (P's precision)
    %o = crest.batch_matmul %p, %v
    ```

    The mask is a constant of 0 and -inf (a causal mask baked in by an
    exporter) or a `crest.select` of 0 and -inf by a bool tensor (ONNX's
    `Where(mask, 0, -inf)`); it becomes the op's bool `mask`, true where
    the additive mask is 0. Any other additive bias (-10000, a learned
    bias) changes the probabilities and is not fused.

    Reshapes that only add or drop leading unit dimensions may sit between
    any of them (as the ONNX importer leaves them); every intermediate
    value must have one use. The batch of the products becomes the heads
    of `[1, heads, L, D]` views of Q, K and V; the scale is `c` (`1 / c`
    for a division, 1 without either); `qk` is the first product's
    precision and `pv` the second's. When K^T is a `crest.transpose` (ONNX
    exports `Transpose(perm = [0, 2, 3, 1])`), that transpose is rewritten
    to produce K (its permutation's last two entries swapped) instead of a
    second transpose being added.

    The fused kernel rounds the unnormalised probabilities to P's type and
    divides by the row sum at the end; the unfused graph rounds the
    normalised ones: the results agree to the rounding of P.
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark at each attention fused">,
  ];
}

def CrestFuseEpiloguesPass : Pass<"crest-fuse-epilogues", "::mlir::ModuleOp"> {
  let summary = "Group contractions with their epilogue graphs into crest.kernel";
  let description = [{
    Wraps each `crest.matmul` / `crest.batch_matmul` / `crest.conv2d`
    outside a `crest.kernel` together with the graph of elementwise
    operations computed from its result (bias and residual adds, scaling,
    activations written as one op or in primitives: SiLU `x * sigmoid(x)`,
    GELU, hardswish, clip, casts) into one `crest.kernel`, the form
    `crest-lower-to-gpu` turns into a single MFMA kernel with a fused
    epilogue. Then wraps every chain of two or more remaining elementwise
    operations into an elementwise-only `crest.kernel`.

    First, a `crest.reshape` that only prepends unit dimensions (the
    `128x768 -> 1x128x768` an ONNX MatMul leaves between the contraction
    and its bias add) is moved below the elementwise operations that
    consume it, so that they see the contraction's own shape; and a
    `crest.gather` of constant, evenly spaced ascending indices becomes a
    `crest.slice` (its canonicalization), which needs no kernel when it is a
    contiguous window of its input (docs/Package.md, window aliases).

    An elementwise op joins a contraction's group (in program order) when

    - one of its operands is a value of the group and every other operand
      is a splat constant (cloned into the body) or a tensor that does not
      depend on the group (a kernel input: bias-, channel- or row-shaped
      operands are broadcast, others are read once per output element);
    - its result has the contraction's output shape (a broadcast that
      grows the tensor would compute the epilogue more than once per
      output element);
    - the epilogue's values live at once per output element stay within
      the register budget (`register-budget`, by default an eighth of the
      chip's architected VGPRs).

    A value of the group that is also used outside it (or returned)
    becomes an extra result of the kernel, so it is stored once instead of
    being recomputed; when that would need more than `max-results`
    results, the group's last ops are given up until it fits. With
    `remarks` each refusal is a remark on the op saying why.

    The kernel replaces the group at the position of its last op (the
    block is re-sorted when an outside use of an extra result comes
    earlier). Existing `crest.kernel`s and non-elementwise consumers
    (softmax, layer_norm, pooling, reductions) are left alone here.

    With `prologues` (the default), the ops computing a contraction's lhs
    or rhs from a tensor of its shape join the kernel before the
    contraction (its operand prologue, applied as the operand is loaded):
    a chain of at most four casts, adds, subs, muls, negations, abs, relu,
    clip, max or min whose other operands are splat constants or broadcast
    tensors (a per-channel scale, the squeeze-excite multiply), each used
    once (the first may also feed other contractions' operands: each gets a
    copy). An op that reads another tensor of the operand's size is
    refused, as are transcendentals and grouped convolutions'
    operands (their direct kernel has no prologue); a chain cut below an
    elementwise op stays with that op's kernel. Before grouping, a cast of
    a reshape, transpose or slice of a contraction's or elementwise op's
    value moves above the data movement (it joins that kernel, and the
    casts of several slices become one), and a reshape between a cast (or a
    scalar multiply) of anything else and a contraction moves above them.
    With `prologues`, too, the single-use reshapes, slices and transposes
    that compute a `crest.attention`'s Q, K and V (the slices of a fused
    QKV projection, the split into heads) join a crest.kernel with the
    attention, which reads its inputs through them, as far up as every row
    of the operand stays a contiguous run of an input row, and so do the
    single-use reshapes and transposes of its result, which it stores
    through (docs/Attention.md).

    Then, with `rows` (the default) and `prologues`, each
    `crest.layer_norm`, `crest.softmax`,
    `crest.reduce_*` and `crest.global_avg_pool2d` outside a kernel reads
    its rows through the ops that compute its input: the elementwise ops
    and `crest.gather`s (an embedding lookup) outside kernels whose results
    have the input's shape, found upwards from the input through operands
    of that shape (at most eight; their other operands are splat
    constants, broadcast tensors or tensors read once per element). They
    join one `crest.kernel` with the row op, which returns their values
    used elsewhere too (the pre-norm sum a residual reads; at most
    `max-results` results in all). The kernel computes them once per
    element as it reads its rows, only rows it holds in registers (at most
    16 elements per lane): longer rows take no prologue (a layer norm or
    softmax reads them three times, a reduction lane-strided, slower
    fused). Nor does a row op whose prologue reads a value computed from
    the prologue outside it. With `rows`, with or without `prologues`, the
    elementwise ops after a row op that read its result or each other,
    with results of its
    result's shape and no operand that is a prologue value or depends on
    the kernel through an op outside it, join the kernel as its epilogue
    (at most eight; applied as each result element is stored: a cast
    after a layer norm, the `+ eps` and `sqrt` after a mean of squares).
    With `remarks` a refusal says why.

    ```sh
    crest-opt model.mlir --crest-fuse-epilogues=remarks
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for every elementwise op refused by a group, "
           "saying why">,
    Option<"prologues", "prologues", "bool", /*default=*/"true",
           "Fuse the casts and scalar arithmetic computing a contraction's "
           "operands into its operand loads, moving casts and reshapes "
           "across data movement towards the kernel they join, the views "
           "around an attention into its kernel, and the elementwise ops "
           "and gathers computing a layer norm's, softmax's or "
           "reduction's input into its row loads">,
    Option<"rows", "rows", "bool", /*default=*/"true",
           "Fuse the elementwise ops and gathers around a layer norm, "
           "softmax or reduction into its kernel (its row prologue and "
           "epilogue)">,
    Option<"maxResults", "max-results", "unsigned", /*default=*/"4",
           "Most results a contraction kernel may have (its epilogue's "
           "values used outside it)">,
    Option<"registerBudget", "register-budget", "unsigned", /*default=*/"0",
           "Most 32-bit values an epilogue may keep live per output "
           "element; 0 derives it from the chip (an eighth of its "
           "architected VGPRs, 32 without a #crest.target)">,
  ];
  let statistics = [
    Statistic<"numContractionKernels", "contraction-kernels",
              "crest.kernels built around a contraction">,
    Statistic<"numPrologueOps", "prologue-ops",
              "Elementwise ops fused into a contraction's operand loads">,
    Statistic<"numFusedOps", "fused-ops",
              "elementwise ops fused into contraction kernels">,
    Statistic<"numExtraResults", "extra-results",
              "extra results of contraction kernels">,
    Statistic<"numRefused", "refused",
              "elementwise ops refused by a contraction's group">,
    Statistic<"numElementwiseKernels", "elementwise-kernels",
              "elementwise-only crest.kernels built">,
    Statistic<"numRowKernels", "row-kernels",
              "layer norms, softmaxes and reductions given a prologue or "
              "an epilogue">,
    Statistic<"numRowPrologueOps", "row-prologue-ops",
              "elementwise ops and gathers fused into a row op's loads "
              "and stores">,
  ];
}

#endif // CREST_DIALECT_CREST_TRANSFORMS_PASSES_TD
