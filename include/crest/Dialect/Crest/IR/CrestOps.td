//===- CrestOps.td - Crest operations ----------------------*- tablegen -*-===//
//
// Tensor operations of the crest dialect. All tensors are statically shaped;
// dynamic dimensions are bound by the importer before a graph reaches Crest.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_DIALECT_CREST_IR_CRESTOPS_TD
#define CREST_DIALECT_CREST_IR_CRESTOPS_TD

include "crest/Dialect/Crest/IR/CrestAttrs.td"
include "crest/Dialect/Crest/IR/CrestBase.td"
include "crest/Dialect/Crest/IR/CrestInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// Elementwise and data-movement operands: any float, signless integer or
/// unsigned integer (ONNX's UINT8 to UINT64; signless integers are signed
/// where it matters: comparison, division, conversion).
def Crest_Tensor
    : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
def Crest_FloatTensor : StaticShapeTensorOf<[AnyFloat]>;
def Crest_BoolTensor : StaticShapeTensorOf<[I1]>;
/// Contraction operands: any float (incl. fp8) or signless integer.
def Crest_MatmulTensor : StaticShapeTensorOf<[AnyFloat, AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

class Crest_ContractionOp<string mnemonic, list<Trait> traits = []>
    : Crest_Op<mnemonic, !listconcat(traits, [Pure,
        DeclareOpInterfaceMethods<Crest_ContractionOpInterface,
                                  ["getGemmShape"]>])> {
  let hasVerifier = 1;
}

def Crest_MatmulOp : Crest_ContractionOp<"matmul"> {
  let summary = "Matrix multiplication C = op(A) * op(B)";
  let description = [{
    `lhs` is `M x K` (`K x M` with `transpose_lhs`), `rhs` is `K x N`
    (`N x K` with `transpose_rhs`), and the result is `M x N`. The element
    types must agree with `precision` (see `#crest.precision`).

    ```mlir
    %c = crest.matmul %a, %b transpose_rhs
           precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           sync <scope = workgroup, stages = 2>
           : tensor<64x576xf16>, tensor<1000x576xf16> -> tensor<64x1000xf32>
    ```
  }];
  let arguments = (ins Crest_MatmulTensor:$lhs, Crest_MatmulTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       Crest_PrecisionAttr:$precision,
                       OptionalAttr<Crest_SyncAttr>:$sync,
                       OptionalAttr<Crest_ConfigAttr>:$config);
  let results = (outs Crest_MatmulTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)? `precision` $precision
    (`sync` $sync^)? (`config` $config^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Crest_BatchMatmulOp : Crest_ContractionOp<"batch_matmul"> {
  let summary = "Batched matrix multiplication";
  let description = [{
    `lhs` is `B x M x K`, `rhs` is `B x K x N` (the last two dimensions
    swapped by `transpose_lhs`/`transpose_rhs`), and the result `B x M x N`.
    A batch of 1 in one operand broadcasts over the other's batch.

    ```mlir
    %s = crest.batch_matmul %q, %k transpose_rhs
           precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           : tensor<4x128x64xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x128xf32>
    ```
  }];
  let arguments = (ins Crest_MatmulTensor:$lhs, Crest_MatmulTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       Crest_PrecisionAttr:$precision,
                       OptionalAttr<Crest_SyncAttr>:$sync,
                       OptionalAttr<Crest_ConfigAttr>:$config);
  let results = (outs Crest_MatmulTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)? `precision` $precision
    (`sync` $sync^)? (`config` $config^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Crest_Conv2DOp : Crest_ContractionOp<"conv2d"> {
  let summary = "2-D convolution in NCHW layout";
  let description = [{
    `input` is `N x C x H x W`, `filter` is `F x C/groups x KH x KW` and the
    result is `N x F x OH x OW` with
    `OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1`
    (likewise `OW`). `pads` is `[top, left, bottom, right]` (ONNX order).
    `groups` divides both `C` and `F`; `groups = C = F` is a depthwise
    convolution. `strides`, `dilations` default to `[1, 1]`, `pads` to zeros,
    `groups` to 1.

    ```mlir
    %y = crest.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1]
           precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x112x112xf32>
    ```
  }];
  let arguments = (ins Crest_MatmulTensor:$input, Crest_MatmulTensor:$filter,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       Crest_PrecisionAttr:$precision,
                       OptionalAttr<Crest_SyncAttr>:$sync,
                       OptionalAttr<Crest_ConfigAttr>:$config);
  let results = (outs Crest_MatmulTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`strides` $strides^)? (`pads` $pads^)?
    (`dilations` $dilations^)? (`groups` $groups^)? `precision` $precision
    (`sync` $sync^)? (`config` $config^)? attr-dict
    `:` type($input) `,` type($filter) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise operations
//===----------------------------------------------------------------------===//

class Crest_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Crest_Op<mnemonic, !listconcat(traits,
        [Pure, Crest_Elementwise, SameOperandsAndResultType])> {
  let arguments = (ins Crest_FloatTensor:$input);
  let results = (outs Crest_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  // Constant operands fold with crest/Semantics (correctly rounded ops only).
  let hasFolder = 1;
}

def Crest_ReluOp : Crest_UnaryOp<"relu"> {
  let summary = "max(x, 0)";
}
def Crest_SigmoidOp : Crest_UnaryOp<"sigmoid"> {
  let summary = "1 / (1 + exp(-x))";
}
def Crest_TanhOp : Crest_UnaryOp<"tanh"> {
  let summary = "Hyperbolic tangent";
}
def Crest_ErfOp : Crest_UnaryOp<"erf"> {
  let summary = "Gauss error function";
}
def Crest_ExpOp : Crest_UnaryOp<"exp"> {
  let summary = "e^x";
}
def Crest_SqrtOp : Crest_UnaryOp<"sqrt"> {
  let summary = "Square root";
}
def Crest_NegOp : Crest_UnaryOp<"neg"> {
  let summary = "-x";
}
def Crest_AbsOp : Crest_UnaryOp<"abs"> {
  let summary = "|x|";
}
def Crest_FloorOp : Crest_UnaryOp<"floor"> {
  let summary = "Largest integer not above x";
  let description = [{
    Exact in every float type; -0, +-inf and NaN are returned as they are
    (`floor(-0.5) = -1`, `floor(-0.0) = -0.0`).
  }];
}
def Crest_CeilOp : Crest_UnaryOp<"ceil"> {
  let summary = "Smallest integer not below x";
  let description = [{
    Exact; a negative x above -1 gives -0 (`ceil(-0.5) = -0.0`); +-inf and
    NaN are returned as they are.
  }];
}
def Crest_RoundOp : Crest_UnaryOp<"round"> {
  let summary = "Nearest integer, halves to even";
  let description = [{
    IEEE 754's roundToIntegralTiesToEven, as ONNX's Round and NumPy's
    `round`: `round(2.5) = 2`, `round(-1.5) = -2`, `round(-0.25) = -0.0`.
  }];
}
def Crest_LogOp : Crest_UnaryOp<"log"> {
  let summary = "Natural logarithm";
  let description = [{
    `log(x)`: -inf at +-0, NaN below zero and for NaN.
  }];
}
def Crest_LeakyReluOp : Crest_UnaryOp<"leaky_relu"> {
  let summary = "x < 0 ? alpha * x : x";
  let description = [{
    `alpha` defaults to 0.01 (the ONNX default) and must be finite. NaN
    propagates (a NaN input is not below zero and is returned as is).

    ```mlir
    %y = crest.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<8xf32>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01f">:$alpha);
  let hasVerifier = 1;
}
def Crest_HardSwishOp : Crest_UnaryOp<"hardswish"> {
  let summary = "x * max(0, min(1, x / 6 + 1/2))";
}

def Crest_GeluOp : Crest_UnaryOp<"gelu"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` with the exact CDF (`approximate = none`, the default) or
    the tanh approximation (`approximate = tanh`).

    ```mlir
    %y = crest.gelu %x approximate = tanh : tensor<128x1024xf16>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input,
      DefaultValuedAttr<Crest_GeluApproximation,
                        "::crest::GeluApproximation::None">:$approximate);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($result)
  }];
}

def Crest_HardSigmoidOp : Crest_UnaryOp<"hardsigmoid"> {
  let summary = "max(0, min(1, alpha * x + beta))";
  let description = [{
    `alpha` defaults to 0.2 and `beta` to 0.5 (the ONNX defaults);
    MobileNetV3 uses `alpha = 1/6`. `alpha` must be finite and non-zero.
  }];
  let arguments = (ins Crest_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5f">:$beta);
  let hasVerifier = 1;
}

def Crest_ClipOp : Crest_UnaryOp<"clip"> {
  let summary = "min(max(x, min), max)";
  let description = [{
    Clamps to `[min, max]`; either bound may be omitted, not both, and
    `min <= max`.

    ```mlir
    %y = crest.clip %x min 0.0 max 6.0 : tensor<1x16x112x112xf32>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input,
                       OptionalAttr<F32Attr>:$min,
                       OptionalAttr<F32Attr>:$max);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

class Crest_BinaryOp<string mnemonic, Type operandType,
                     list<Trait> traits = []>
    : Crest_Op<mnemonic, !listconcat(traits, [Pure, Crest_Elementwise])> {
  let description = [{
    Operands broadcast NumPy-style: shapes align at the trailing dimension,
    and each pair of dimensions must be equal or contain a 1. The result has
    the broadcast shape and the operands' element type.
  }];
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  // Constant operands fold with crest/Semantics (correctly rounded ops only).
  let hasFolder = 1;
}

def Crest_AddOp : Crest_BinaryOp<"add", Crest_Tensor, [Commutative]> {
  let summary = "x + y";
}
def Crest_SubOp : Crest_BinaryOp<"sub", Crest_Tensor> {
  let summary = "x - y";
}
def Crest_MulOp : Crest_BinaryOp<"mul", Crest_Tensor, [Commutative]> {
  let summary = "x * y";
}
def Crest_DivOp : Crest_BinaryOp<"div", Crest_FloatTensor> {
  let summary = "x / y";
}
def Crest_MaxOp : Crest_BinaryOp<"max", Crest_Tensor, [Commutative]> {
  let summary = "max(x, y)";
}
def Crest_MinOp : Crest_BinaryOp<"min", Crest_Tensor, [Commutative]> {
  let summary = "min(x, y)";
}
def Crest_PowOp : Crest_BinaryOp<"pow", Crest_FloatTensor> {
  let summary = "x ^ y";
}

//===----------------------------------------------------------------------===//
// Comparisons, logic and select
//===----------------------------------------------------------------------===//

class Crest_CompareOp<string mnemonic, string relation>
    : Crest_Op<mnemonic, [Pure, Crest_Elementwise]> {
  let summary = "x " # relation # " y, a bool tensor";
  let description = [{
    Compares two tensors of one element type, broadcasting NumPy-style, and
    returns an `i1` tensor of the broadcast shape. Floats compare as IEEE
    ordered relations: any comparison with NaN is false (`equal` included,
    as ONNX's Equal). Signless integers compare as signed, unsigned ones as
    unsigned.
  }];
  let arguments = (ins Crest_Tensor:$lhs, Crest_Tensor:$rhs);
  let results = (outs Crest_BoolTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Crest_EqualOp : Crest_CompareOp<"equal", "=="> {}
def Crest_LessOp : Crest_CompareOp<"less", "<"> {}
def Crest_LessEqualOp : Crest_CompareOp<"less_equal", "<="> {}
def Crest_GreaterOp : Crest_CompareOp<"greater", ">"> {}
def Crest_GreaterEqualOp : Crest_CompareOp<"greater_equal", ">="> {}

class Crest_LogicalOp<string mnemonic, string what>
    : Crest_Op<mnemonic, [Pure, Crest_Elementwise]> {
  let summary = what # " of two bool tensors";
  let description = [{
    Combines two `i1` tensors elementwise with NumPy broadcasting.
  }];
  let arguments = (ins Crest_BoolTensor:$lhs, Crest_BoolTensor:$rhs);
  let results = (outs Crest_BoolTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Crest_AndOp : Crest_LogicalOp<"and", "Conjunction"> {}
def Crest_OrOp : Crest_LogicalOp<"or", "Disjunction"> {}
def Crest_XorOp : Crest_LogicalOp<"xor", "Exclusive or"> {}

def Crest_NotOp : Crest_Op<"not", [Pure, Crest_Elementwise,
                                   SameOperandsAndResultType]> {
  let summary = "Negation of a bool tensor";
  let arguments = (ins Crest_BoolTensor:$input);
  let results = (outs Crest_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Crest_SelectOp : Crest_Op<"select", [Pure, Crest_Elementwise]> {
  let summary = "condition ? x : y (ONNX Where)";
  let description = [{
    Picks, per element of the broadcast shape of all three operands, the
    element of `true_value` where `condition` is true and of `false_value`
    elsewhere. The values share one element type, the result's.

    ```mlir
    %y = crest.select %mask, %scores, %ninf
           : tensor<1x1x8x8xi1>, tensor<1x4x8x8xf32>, tensor<f32>
             -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Crest_BoolTensor:$condition, Crest_Tensor:$true_value,
                       Crest_Tensor:$false_value);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Crest_CastOp : Crest_Op<"cast", [Pure, Crest_Elementwise]> {
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result's element type; the shapes are
    equal. Float to float rounds to nearest even (fp8 saturates to the
    largest finite value, infinities included; NaN stays NaN); float to
    integer truncates toward zero and saturates, and NaN becomes 0; integer
    to float rounds to nearest even; integer narrowing saturates (see
    docs/Semantics.md). Casts of constants fold.

    ```mlir
    %h = crest.cast %x : tensor<8x256xf32> to tensor<8x256xf16>
    ```
  }];
  let arguments = (ins Crest_Tensor:$input);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Normalizations and reductions
//===----------------------------------------------------------------------===//

def Crest_SoftmaxOp : Crest_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "exp(x - max) / sum(exp(x - max)) along one axis";
  let description = [{
    `axis` (default -1, the last) may be negative, counting from the end.

    ```mlir
    %p = crest.softmax %s {axis = 2 : i64} : tensor<4x128x128xf32>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Crest_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Crest_AttentionOp : Crest_Op<"attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "Scaled dot-product attention, softmax(scale * Q K^T + mask) V";
  let description = [{
    Q is `[B, Hq, Lq, D]`, K `[B, Hkv, Lkv, D]` and V `[B, Hkv, Lkv, Dv]`:
    `B` sequences, `Hq` query heads sharing `Hkv` key/value heads
    (grouped-query attention: query head `h` reads key/value head
    `h / (Hq / Hkv)`; `Hq` a multiple of `Hkv`), `Lq` queries against `Lkv`
    keys of head dimension `D`. The result is `[B, Hq, Lq, Dv]`:

      s[q, k]   = scale * sum_d Q[q, d] K[k, d]       (`scale` default
                  1 / sqrt(D))
      s[q, k]   = -inf where the pair is masked
      out[q, :] = sum_k softmax_k(s[q, :]) V[k, :]

    A pair (q, k) is masked when any of these holds:
    - `kv_length` (optional, `[B]` of i32: a KV cache's filled length per
      sequence) is given and k >= kv_length[b];
    - `mask` (optional, i1, broadcast to `[B, Hq, Lq, Lkv]` by NumPy rules)
      is false at the pair;
    - `causal = top_left`: k > q; `causal = bottom_right`: k > q + L - Lq,
      L the keys present (`kv_length[b]`, else `Lkv`) -- the last query
      sees every key, as in decode;
    - `window = W` (a sliding window; needs `causal`): the key is W or more
      positions before the diagonal.

    A row whose pairs are all masked gives `out = 0` (and `lse = -inf`), not
    NaN. The optional second result `lse` (`[B, Hq, Lq]`, f32) is the
    natural log of each row's sum of exp(s), which split-KV decoding
    combines partial results with.

    Precision: `qk` is the precision of the Q K^T product (`lhs`/`rhs` the
    element types of Q and K, `acc = f32`, `out = f32`: the scores);
    `pv` that of the P V product (`lhs` the type the probabilities are
    rounded to, to nearest even: f16, bf16 or an fp8 type; `rhs` the
    element type of V; `acc = f32`; `out` the result's element type). The
    softmax state (row maximum and sum) is always f32.

    ```mlir
    %o = crest.attention %q, %k, %v causal = bottom_right
           qk <lhs = f16, rhs = f16, acc = f32, out = f32>
           pv <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<1x32x1x128xf16>, tensor<1x8x4096x128xf16>,
             tensor<1x8x4096x128xf16> -> tensor<1x32x1x128xf16>
    ```

    `crest-lower-attention` generates one fused kernel for it (the scores
    and probabilities stay in registers); the host reference evaluator
    computes it in double.
  }];
  let arguments = (ins Crest_FloatTensor:$query, Crest_FloatTensor:$key,
                       Crest_FloatTensor:$value,
                       Optional<StaticShapeTensorOf<[I32]>>:$kv_length,
                       Optional<StaticShapeTensorOf<[I1]>>:$mask,
                       OptionalAttr<F32Attr>:$scale,
                       DefaultValuedAttr<Crest_CausalMask,
                                         "::crest::CausalMask::None">:$causal,
                       OptionalAttr<I64Attr>:$window,
                       Crest_PrecisionAttr:$qk, Crest_PrecisionAttr:$pv);
  let results = (outs Crest_FloatTensor:$result,
                      Optional<StaticShapeTensorOf<[F32]>>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`kv_length` $kv_length^ `:` type($kv_length))?
    (`mask` $mask^ `:` type($mask))?
    (`causal` `=` $causal^)? (`window` `=` $window^)?
    (`scale` `=` $scale^)?
    `qk` $qk `pv` $pv
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->`
    type($result) (`,` type($lse)^)?
  }];
  let extraClassDeclaration = [{
    /// The scale the scores are multiplied by: `scale`, else 1 / sqrt(D).
    double getEffectiveScale();
  }];
  let hasVerifier = 1;
}

def Crest_LayerNormOp : Crest_Op<"layer_norm", [Pure]> {
  let summary = "Layer normalization over the trailing dimensions from axis";
  let description = [{
    Normalizes over dimensions `axis ... rank-1` (default `axis = -1`):
    `(x - mean) / sqrt(var + epsilon) * scale + bias`. `scale` and the
    optional `bias` have the shape of those trailing dimensions. `epsilon`
    (default 1e-5) must be positive.

    ```mlir
    %y = crest.layer_norm %x, %gamma, %beta {epsilon = 9.99999974E-6 : f32}
           : tensor<128x256xf32>, tensor<256xf32>, tensor<256xf32> -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input, Crest_FloatTensor:$scale,
                       Optional<Crest_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Crest_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` type($input) `,`
    type($scale) (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

class Crest_Pool2DOp<string mnemonic> : Crest_Op<mnemonic, [Pure]> {
  let description = [{
    Pools `kernel = [KH, KW]` windows of an `N x C x H x W` input with
    `strides` (default `[1, 1]`) and `pads = [top, left, bottom, right]`
    (default zeros). `OH = floor((H + pad_top + pad_bottom - KH) / stride_h)
    + 1` (`ceil` with `ceil_mode`), likewise `OW`. Every pad must be smaller
    than its kernel dimension.
  }];
  let results = (outs Crest_FloatTensor:$result);
  let hasVerifier = 1;
}

def Crest_MaxPool2DOp : Crest_Pool2DOp<"max_pool2d"> {
  let summary = "2-D max pooling in NCHW layout";
  let arguments = (ins Crest_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       UnitAttr:$ceil_mode);
  let assemblyFormat = [{
    $input `kernel` $kernel (`strides` $strides^)? (`pads` $pads^)?
    (`ceil_mode` $ceil_mode^)? attr-dict `:` type($input) `->` type($result)
  }];
}

def Crest_AvgPool2DOp : Crest_Pool2DOp<"avg_pool2d"> {
  let summary = "2-D average pooling in NCHW layout";
  let arguments = (ins Crest_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
  let assemblyFormat = [{
    $input `kernel` $kernel (`strides` $strides^)? (`pads` $pads^)?
    (`ceil_mode` $ceil_mode^)? (`count_include_pad` $count_include_pad^)?
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Crest_GlobalAvgPool2DOp : Crest_Op<"global_avg_pool2d", [Pure]> {
  let summary = "Mean over H and W of an NCHW tensor";
  let description = [{
    `N x C x H x W` to `N x C x 1 x 1`.

    ```mlir
    %p = crest.global_avg_pool2d %x : tensor<1x576x7x7xf32> -> tensor<1x576x1x1xf32>
    ```
  }];
  let arguments = (ins Crest_FloatTensor:$input);
  let results = (outs Crest_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

class Crest_ReduceOp<string mnemonic, string what, string example>
    : Crest_Op<mnemonic, [Pure]> {
  let summary = what # " over a set of dimensions";
  let description = !strconcat([{
    Reduces over `dims` (distinct, each in `[-rank, rank)`). With
    `keep_dims` the reduced dimensions stay as size 1, otherwise they are
    removed. The kernel accumulates in f32 (f64 for f64 data) and rounds
    once to the result's type.
  }], example);
  let arguments = (ins Crest_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keep_dims);
  let results = (outs Crest_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keep_dims` $keep_dims^)? attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Crest_ReduceMeanOp : Crest_ReduceOp<"reduce_mean", "Mean", [{

    ```mlir
    %m = crest.reduce_mean %x dims [1] keep_dims : tensor<128x256xf32> -> tensor<128x1xf32>
    ```
  }]>;

def Crest_ReduceSumOp : Crest_ReduceOp<"reduce_sum", "Sum", [{

    ```mlir
    %s = crest.reduce_sum %x dims [0, 1] : tensor<4x8x16xf32> -> tensor<16xf32>
    ```
  }]>;

def Crest_ReduceProdOp : Crest_ReduceOp<"reduce_prod", "Product", [{

    ```mlir
    %p = crest.reduce_prod %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }]>;

def Crest_ReduceMaxOp : Crest_ReduceOp<"reduce_max", "Maximum", [{

    NaN propagates and -0 orders below +0, as in `crest.max`; the maximum
    of no element is not defined (`dims` never names an empty dimension of
    a static shape with elements).

    ```mlir
    %m = crest.reduce_max %x dims [2] keep_dims : tensor<2x3x7xf16> -> tensor<2x3x1xf16>
    ```
  }]>;

def Crest_ReduceMinOp : Crest_ReduceOp<"reduce_min", "Minimum", [{

    NaN propagates and -0 orders below +0, as in `crest.min`.

    ```mlir
    %m = crest.reduce_min %x dims [0] : tensor<5x3xf32> -> tensor<3xf32>
    ```
  }]>;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Crest_ReshapeOp : Crest_Op<"reshape", [Pure]> {
  let summary = "The same elements, in row-major order, in a new shape";
  let description = [{
    The result has the input's element type and number of elements; the
    row-major order of the elements is unchanged (ONNX Reshape, Flatten,
    Squeeze and Unsqueeze).

    ```mlir
    %f = crest.reshape %x : tensor<1x576x1x1xf32> to tensor<1x576xf32>
    ```
  }];
  let arguments = (ins Crest_Tensor:$input);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

def Crest_TransposeOp : Crest_Op<"transpose", [Pure]> {
  let summary = "Permutes the dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`, a permutation
    of `0 ... rank-1`.

    ```mlir
    %t = crest.transpose %x permutation [0, 2, 1, 3]
           : tensor<1x128x4x64xf32> -> tensor<1x4x128x64xf32>
    ```
  }];
  let arguments = (ins Crest_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = [{
    $input `permutation` $permutation attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Crest_ConcatOp : Crest_Op<"concat", [Pure]> {
  let summary = "Joins tensors along one dimension";
  let description = [{
    All inputs have the result's element type and rank and agree on every
    dimension but `axis` (in `[-rank, rank)`), along which the result's size
    is the sum of theirs.

    ```mlir
    %c = crest.concat %a, %b axis = 1
           : tensor<1x16x8x8xf32>, tensor<1x24x8x8xf32> -> tensor<1x40x8x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Crest_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Crest_SliceOp : Crest_Op<"slice", [Pure]> {
  let summary = "A strided window of a tensor";
  let description = [{
    Result element `[i0, i1, ...]` is input element
    `[offsets[0] + i0 * strides[0], ...]`. `offsets` and `strides` have one
    entry per dimension (`strides` default to 1 and are positive); every
    element the window reads lies inside the input, and the result's shape
    is the window's. (The ONNX importer builds negative steps as a slice and a
    `crest.gather` of reversed indices.)

    ```mlir
    %k = crest.slice %qkv offsets [0, 256] strides [1, 1]
           : tensor<128x768xf32> -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Crest_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets (`strides` $strides^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Crest_GatherOp : Crest_Op<"gather", [Pure]> {
  let summary = "Picks slices along one dimension by index";
  let description = [{
    With `data` of shape `D0 x ... x Dr-1` and integer `indices` of shape
    `I...`, the result has shape `D0 ... D(axis-1) x I... x D(axis+1) ...`
    and takes, for each index `j` in `indices`, the slice `j` of `data`
    along `axis` (ONNX Gather). Negative indices count from the end of the
    axis; an index outside `[-D_axis, D_axis)` yields zeros (it never reads
    outside `data`).

    Canonicalization: constant indices that are one index, or evenly spaced
    and ascending, make the gather a `crest.slice` (with a `crest.reshape`
    to the gather's shape when the indices are not one-dimensional).

    ```mlir
    %e = crest.gather %table, %tokens axis = 0
           : tensor<1000x256xf32>, tensor<1x128xi64> -> tensor<1x128x256xf32>
    ```
  }];
  let arguments = (ins Crest_Tensor:$data,
                       StaticShapeTensorOf<[I32, I64]>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Crest_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices (`axis` `=` $axis^)? attr-dict `:` type($data) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
  // Constant, evenly spaced ascending indices: a crest.slice (a window of
  // the data's bytes when contiguous, which needs no kernel).
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// crest.kernel
//===----------------------------------------------------------------------===//

def Crest_KernelOp : Crest_Op<"kernel", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "The operations that become exactly one GPU kernel";
  let description = [{
    The region takes the kernel's inputs as block arguments (one per
    operand, of the same type) and yields its results with `crest.yield`.
    It holds either

    - one contraction plus elementwise operations on results of the
      contraction's shape (its fused epilogue: bias, activation, residual
      add, scaling, conversion) and, before it, elementwise operations that
      compute its lhs or rhs from a kernel input (its prologue: a cast, a
      per-channel scale), applied as the operand's elements are loaded; or
    - one `crest.attention` and, before it, reshapes, slices and
      transposes that compute its operands from kernel inputs (the slices
      of a fused QKV projection, the split into heads): the kernel reads
      the inputs through them, with the operands' innermost dimension
      contiguous in the input, and after it reshapes and transposes of its
      result, which the kernel stores through; or
    - a group of elementwise, normalization and reduction operations with no
      contraction.

    `config`, when present, is the configuration selected for the
    contraction; it is only allowed with one, and must equal the
    contraction's own `config` if that has one.

    ```mlir
    %y = crest.kernel ins(%x, %w, %b : tensor<8x256xf32>, tensor<256x128xf32>, tensor<128xf32>)
           -> tensor<8x128xf32> {
    ^bb0(%a: tensor<8x256xf32>, %bw: tensor<256x128xf32>, %bias: tensor<128xf32>):
      %0 = crest.matmul %a, %bw precision <lhs = f32, rhs = f32, acc = f32, out = f32>
             : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
      %1 = crest.add %0, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
      %2 = crest.relu %1 : tensor<8x128xf32>
      crest.yield %2 : tensor<8x128xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Crest_Tensor>:$inputs,
                       OptionalAttr<Crest_ConfigAttr>:$config);
  let results = (outs Variadic<Crest_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? (`config` $config^)?
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The contraction the kernel is built around, or null.
    ::crest::ContractionOpInterface getContraction();
    /// The prologue of the contraction's operand #`operand` (0: lhs, 1:
    /// rhs): the ops before the contraction that compute it, in program
    /// order (empty when the operand is a kernel input or a constant).
    ::llvm::SmallVector<::mlir::Operation *> getPrologue(unsigned operand);
    /// The kernel input a prologue reads the operand's elements from: the
    /// first one of the operand's shape its ops use, a bool one only if
    /// there is no other (null without a prologue). The prologue's other
    /// inputs broadcast to that shape.
    ::mlir::BlockArgument getPrologueSource(unsigned operand);
    /// The attention the kernel is built around, or null.
    ::crest::AttentionOp getAttention();
    /// The view an attention kernel reads `operand` (one of its
    /// attention's operands) through: the reshapes, slices and transposes
    /// from a kernel input to it, in program order (empty when the operand
    /// is a kernel input).
    ::llvm::SmallVector<::mlir::Operation *> getView(::mlir::Value operand);
    /// The reshapes and transposes an attention kernel stores its
    /// attention's result through, in program order (the last one's value
    /// is yielded; empty when the result is).
    ::llvm::SmallVector<::mlir::Operation *> getResultView();
  }];
}

def Crest_YieldOp : Crest_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"KernelOp">]> {
  let summary = "Returns the results of a crest.kernel";
  let arguments = (ins Variadic<Crest_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // CREST_DIALECT_CREST_IR_CRESTOPS_TD
