//===- Passes.td - Front-end dialects to crest graphs ------*- tablegen -*-===//

#ifndef CREST_CONVERSION_PASSES_TD
#define CREST_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def CrestConvertTosaPass : Pass<"crest-convert-tosa", "::mlir::ModuleOp"> {
  let summary = "Convert a TOSA graph into crest ops";
  let description = [{
    Rewrites the TOSA ops of every function into crest ops on the same
    tensors, so that a graph from a TOSA front end (TensorFlow Lite, Torch
    through torch-mlir, ONNX through onnx-mlir) compiles as a crest graph:

    - `tosa.matmul` becomes `crest.batch_matmul`; `tosa.conv2d` and
      `tosa.depthwise_conv2d` (NHWC data, OHWI and HWCM weights) become
      `crest.conv2d` in NCHW between two `crest.transpose`s, the weights
      permuted at compile time and the bias added in f32 before the result
      is rounded, as TOSA's accumulator does; `tosa.avg_pool2d` and
      `tosa.max_pool2d` likewise (the average excludes the padding);
    - the elementwise ops, `tosa.clamp`, `tosa.cast` (float to integer
      rounds to nearest even, as TOSA does, then saturates), comparisons,
      logic and `tosa.select`;
    - `tosa.reduce_{sum,max,min,product}`, `tosa.reshape`,
      `tosa.transpose`, `tosa.slice`, `tosa.concat`, `tosa.pad` (a constant
      pad), `tosa.tile`, and `tosa.const` (also `dense_resource` blobs).

    Contractions take their precision from their element types (f16 inputs
    accumulate in f32); `precision=f16` (or `bf16`, `f32`) converts the
    inputs of every contraction to that type, as `crest-compile
    --precision` does for ONNX: weights at compile time, activations with
    `crest.cast`, the result back to the op's type.

    The transposes that the NHWC-to-NCHW conversion puts around each
    convolution then move through elementwise ops and cancel in pairs, so a
    chain of convolutions transposes only at its ends.

    An op that cannot be converted is an error that names it and says why
    (quantised TOSA with zero points or `tosa.rescale`, an op Crest has no
    equivalent for). Only the module's functions are converted, never a
    `gpu.module`'s kernels.

    ```sh
    crest-opt model.tosa.mlir --crest-convert-tosa=precision=f16
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"\"",
           "Input type of every contraction: f32, f16 or bf16 (empty: the "
           "element types of the graph)">,
  ];
}

def CrestConvertLinalgPass : Pass<"crest-convert-linalg", "::mlir::ModuleOp"> {
  let summary = "Convert linalg on tensors into crest ops";
  let description = [{
    Rewrites linalg ops on tensors (and the tensor ops around them) into
    crest ops, so that a graph from torch-mlir, IREE's input or any
    linalg-on-tensors front end compiles as a crest graph:

    - contractions (`linalg.matmul`, `linalg.batch_matmul`, their
      transposed forms through `indexing_maps`, and any `linalg.generic`
      whose maps and body are a contraction with one M, N and K loop and at
      most one batch loop) become `crest.matmul` or `crest.batch_matmul`;
      an initial value other than a zero fill is added;
    - `linalg.conv_2d_nchw_fchw`, `linalg.conv_2d_nhwc_hwcf`,
      `linalg.conv_2d_nhwc_fhwc` and the depthwise
      `linalg.depthwise_conv_2d_nchw_chw`, `_nhwc_hwc` and `_nhwc_hwcm`
      become `crest.conv2d`, absorbing a zero `tensor.pad` of their input;
      `linalg.pooling_{nchw,nhwc}_max` become `crest.max_pool2d` and
      `linalg.pooling_{nchw,nhwc}_sum` `crest.avg_pool2d` with the padding
      counted, times the window's size;
    - an elementwise `linalg.generic` (all loops parallel, operands read
      through projected permutations, that is, broadcast or transposed)
      becomes its body written as crest ops, and a reduction
      `linalg.generic` whose body ends in `arith.addf`, `arith.mulf`,
      `arith.maximumf`/`maxnumf` or `arith.minimumf`/`minnumf` with its
      accumulator becomes the elementwise part followed by a
      `crest.reduce_*`; the named elementwise ops (`linalg.add`,
      `linalg.exp`, `linalg.elementwise`, `linalg.map`, `linalg.broadcast`,
      `linalg.transpose`, ...) go through their generic form;
    - `linalg.softmax`, `linalg.fill` of a constant, `tensor.expand_shape`,
      `tensor.collapse_shape`, `tensor.extract_slice`, `tensor.concat` and
      `tensor.pad` with a constant; `dense_resource` weights become dense
      elements.

    Only the module's functions are converted, never a `gpu.module`'s
    kernels.

    `precision` works as for `crest-convert-tosa`. An op that cannot be
    converted is an error that names it and says why.

    ```sh
    crest-opt mlp.linalg.mlir --crest-convert-linalg
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"\"",
           "Input type of every contraction: f32, f16 or bf16 (empty: the "
           "element types of the graph)">,
  ];
}

#endif // CREST_CONVERSION_PASSES_TD
