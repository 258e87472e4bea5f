// RUN: crest-opt %s -split-input-file -verify-diagnostics

// Shape and type verifiers of the crest operations (CrestOps.cpp), without a
// target, plus a few ODS-generated constraint errors.

//===----------------------------------------------------------------------===//
// crest.matmul
//===----------------------------------------------------------------------===//

func.func @matmul_rank3_lhs(%a: tensor<4x64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op operands and result must be rank 2, got 4x64x32, 32x64 -> 4x64x64}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x64x32xf16>, tensor<32x64xf16> -> tensor<4x64x64xf32>
  return
}

// -----

func.func @matmul_rank1_result(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op operands and result must be rank 2, got 64x32, 32x64 -> 4096}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<4096xf32>
  return
}

// -----

func.func @matmul_k_mismatch(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op lhs 64x32 has K = 32 but rhs 16x64 has K = 16}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  return
}

// -----

// With transpose_rhs the rhs is N x K: K of a 32x64 rhs is 64.
func.func @matmul_k_mismatch_transpose_rhs(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op lhs 64x32 has K = 32 but rhs 32x64 has K = 64}}
  %c = crest.matmul %a, %b transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
  return
}

// -----

// With transpose_lhs the lhs is K x M: a 32x64 lhs has M = 64, K = 32.
func.func @matmul_result_transpose_lhs(%a: tensor<32x64xf16>, %b: tensor<32x128xf16>) {
  // expected-error @+1 {{'crest.matmul' op result shape 32x128 does not match the expected 64x128}}
  %c = crest.matmul %a, %b transpose_lhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<32x64xf16>, tensor<32x128xf16> -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<64x576xf16>, %b: tensor<1000x576xf16>) {
  // expected-error @+1 {{'crest.matmul' op result shape 1000x64 does not match the expected 64x1000}}
  %c = crest.matmul %a, %b transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x576xf16>, tensor<1000x576xf16> -> tensor<1000x64xf32>
  return
}

// -----

func.func @matmul_lhs_type(%a: tensor<64x32xf32>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op lhs element type 'f32' does not match precision lhs = 'f16'}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf32>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_rhs_type(%a: tensor<64x32xbf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op rhs element type 'f16' does not match precision rhs = 'bf16'}}
  %c = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         : tensor<64x32xbf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_result_type(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op result element type 'f16' does not match precision out = 'f32'}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
  return
}

// -----

// An i32 accumulator may be written as i8 ...
func.func @matmul_i8_out(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i8>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi8>
  // ... but the result must then be i8.
  // expected-error @+1 {{'crest.matmul' op result element type 'i32' does not match precision out = 'i8'}}
  %d = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i8>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
  return
}

// -----

// precision lhs = tf32 reads f32 operands: f32 tensors verify ...
func.func @matmul_tf32_reads_f32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
  %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
         : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return
}

// -----

// ... and tf32 tensors do not. NOTE: the message does not say that f32 was
// expected.
func.func @matmul_tf32_tensor(%a: tensor<64x32xtf32>, %b: tensor<32x64xtf32>) {
  // expected-error @+1 {{'crest.matmul' op lhs element type 'tf32' does not match precision lhs = 'tf32', which reads 'f32' tensors}}
  %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
         : tensor<64x32xtf32>, tensor<32x64xtf32> -> tensor<64x64xf32>
  return
}

// -----

// The ODS constraint rejects dynamic shapes before the verifier runs.
func.func @matmul_dynamic(%a: tensor<?x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op operand #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<?x32xf16>'}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<?x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @matmul_no_precision(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op requires attribute 'precision'}}
  %c = "crest.matmul"(%a, %b) : (tensor<64x32xf16>, tensor<32x64xf16>) -> tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// crest.batch_matmul
//===----------------------------------------------------------------------===//

// -----

func.func @batch_matmul_rank2(%a: tensor<64x32xf16>, %b: tensor<4x32x64xf16>) {
  // expected-error @+1 {{'crest.batch_matmul' op operands and result must be rank 3, got 64x32, 4x32x64 -> 4x64x64}}
  %c = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<4x32x64xf16> -> tensor<4x64x64xf32>
  return
}

// -----

func.func @batch_matmul_batch_mismatch(%a: tensor<2x64x32xf16>, %b: tensor<3x32x64xf16>) {
  // expected-error @+1 {{'crest.batch_matmul' op batch sizes 2 and 3 differ and neither is 1}}
  %c = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x64x32xf16>, tensor<3x32x64xf16> -> tensor<3x64x64xf32>
  return
}

// -----

// A batch of 1 broadcasts: the result batch is 4, not 1.
func.func @batch_matmul_broadcast_result(%a: tensor<1x64x32xf16>, %b: tensor<4x32x64xf16>) {
  %c = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x32xf16>, tensor<4x32x64xf16> -> tensor<4x64x64xf32>
  // expected-error @+1 {{'crest.batch_matmul' op result shape 1x64x64 does not match the expected 4x64x64}}
  %d = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x64x32xf16>, tensor<4x32x64xf16> -> tensor<1x64x64xf32>
  return
}

// -----

// transpose_rhs: q x k^T with k = 4x128x64 has K = 64; this k is 4x64x128.
func.func @batch_matmul_k_mismatch(%q: tensor<4x128x64xbf16>, %k: tensor<4x64x128xbf16>) {
  // expected-error @+1 {{'crest.batch_matmul' op lhs 4x128x64 has K = 64 but rhs 4x64x128 has K = 128}}
  %s = crest.batch_matmul %q, %k transpose_rhs
         precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         : tensor<4x128x64xbf16>, tensor<4x64x128xbf16> -> tensor<4x128x64xf32>
  return
}

// -----

func.func @batch_matmul_rhs_type(%q: tensor<4x128x64xbf16>, %k: tensor<4x128x64xf16>) {
  // expected-error @+1 {{'crest.batch_matmul' op rhs element type 'f16' does not match precision rhs = 'bf16'}}
  %s = crest.batch_matmul %q, %k transpose_rhs
         precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         : tensor<4x128x64xbf16>, tensor<4x128x64xf16> -> tensor<4x128x128xf32>
  return
}

//===----------------------------------------------------------------------===//
// crest.conv2d
//===----------------------------------------------------------------------===//

// -----

func.func @conv2d_rank3_input(%x: tensor<3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op input, filter and result must be rank 4 (NCHW, FCHW, NFHW), got 3x224x224, 16x3x3x3 -> 1x16x222x222}}
  %y = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x222x222xf32>
  return
}

// -----

func.func @conv2d_strides_count(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op strides [2] must be two positive values [h, w]}}
  %y = crest.conv2d %x, %w strides [2] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x111x111xf32>
  return
}

// -----

func.func @conv2d_strides_zero(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op strides [1, 0] must be two positive values [h, w]}}
  %y = crest.conv2d %x, %w strides [1, 0] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x222x222xf32>
  return
}

// -----

func.func @conv2d_dilations(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op dilations [0, 1] must be two positive values [h, w]}}
  %y = crest.conv2d %x, %w dilations [0, 1] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x222x222xf32>
  return
}

// -----

func.func @conv2d_pads_count(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op pads [1, 1] must be four non-negative values [top, left, bottom, right]}}
  %y = crest.conv2d %x, %w pads [1, 1] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x224x224xf32>
  return
}

// -----

func.func @conv2d_pads_negative(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op pads [0, 0, -1, 0] must be four non-negative values [top, left, bottom, right]}}
  %y = crest.conv2d %x, %w pads [0, 0, -1, 0] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x221x222xf32>
  return
}

// -----

func.func @conv2d_groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op groups = 0 must be at least 1}}
  %y = crest.conv2d %x, %w groups 0 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x4x8x8xf32>, tensor<16x4x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv2d_groups_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<16x1x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op groups = 2 must divide the input channels (3) and the filters (16)}}
  %y = crest.conv2d %x, %w groups 2 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x8x8xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv2d_groups_filters(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op groups = 4 must divide the input channels (4) and the filters (6)}}
  %y = crest.conv2d %x, %w groups 4 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv2d_filter_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op filter 16x4x3x3 reads 4 channels per group, but the input has 8 channels in 1 group(s), i.e. 8}}
  %y = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x8x8x8xf32>, tensor<16x4x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv2d_filter_channels_grouped(%x: tensor<1x8x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op filter 16x4x3x3 reads 4 channels per group, but the input has 8 channels in 4 group(s), i.e. 2}}
  %y = crest.conv2d %x, %w groups 4 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x8x8x8xf32>, tensor<16x4x3x3xf32> -> tensor<1x16x6x6xf32>
  return
}

// -----

// Depthwise (groups = C = F) and a filter that only fits with padding verify.
func.func @conv2d_valid(%x: tensor<1x32x4x4xf32>, %dw: tensor<32x1x3x3xf32>, %w: tensor<8x32x5x5xf32>) {
  %a = crest.conv2d %x, %dw pads [1, 1, 1, 1] groups 32 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x32x4x4xf32>, tensor<32x1x3x3xf32> -> tensor<1x32x4x4xf32>
  %b = crest.conv2d %x, %w pads [1, 1, 1, 1] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x32x4x4xf32>, tensor<8x32x5x5xf32> -> tensor<1x8x2x2xf32>
  return
}

// -----

func.func @conv2d_filter_too_large(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x5x5xf32>) {
  // Unpadded, a 5x5 window cannot fit a 4x4 input.
  // expected-error @+1 {{'crest.conv2d' op the 5x5 filter spans 5x5 with dilations [1, 1] and does not fit the padded 4x4 input}}
  %y = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x4x4xf32>, tensor<16x3x5x5xf32> -> tensor<1x16x1x1xf32>
  return
}

// -----

// A 3x3 filter with dilation 2 spans 2*(3-1)+1 = 5 pixels each way.
func.func @conv2d_dilated_filter_too_large(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op the 3x3 filter spans 5x5 with dilations [2, 2] and does not fit the padded 4x4 input}}
  %y = crest.conv2d %x, %w dilations [2, 2] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x4x4xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x1x1xf32>
  return
}

// -----

// OH = (224 + 1 + 1 - 1 * (3 - 1) - 1) / 2 + 1 = 112.
func.func @conv2d_result_shape(%x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op result shape 1x16x111x111 does not match the expected 1x16x112x112}}
  %y = crest.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1]
         precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x111x111xf32>
  return
}

// -----

// With dilation 2: OH = (16 - 2 * (3 - 1) - 1) / 1 + 1 = 12.
func.func @conv2d_result_shape_dilated(%x: tensor<1x3x16x16xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+1 {{'crest.conv2d' op result shape 1x16x14x14 does not match the expected 1x16x12x12}}
  %y = crest.conv2d %x, %w dilations [2, 2] precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x16x16xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x14x14xf32>
  return
}

// -----

func.func @conv2d_input_type(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf16>) {
  // expected-error @+1 {{'crest.conv2d' op lhs element type 'f32' does not match precision lhs = 'f16'}}
  %y = crest.conv2d %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf16> -> tensor<1x16x6x6xf32>
  return
}

//===----------------------------------------------------------------------===//
// crest.max_pool2d, crest.avg_pool2d
//===----------------------------------------------------------------------===//

// -----

func.func @max_pool_rank(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op input must be rank 4 (NCHW), got 8x8}}
  %y = crest.max_pool2d %x kernel [2, 2] : tensor<8x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @max_pool_kernel_count(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op kernel [3] must be two positive values [h, w]}}
  %y = crest.max_pool2d %x kernel [3] : tensor<1x8x8x8xf32> -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @avg_pool_kernel_zero(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op kernel [3, 0] must be two positive values [h, w]}}
  %y = crest.avg_pool2d %x kernel [3, 0] : tensor<1x8x8x8xf32> -> tensor<1x8x6x8xf32>
  return
}

// -----

func.func @max_pool_strides(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op strides [0, 2] must be two positive values [h, w]}}
  %y = crest.max_pool2d %x kernel [2, 2] strides [0, 2] : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @avg_pool_pads_count(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op pads [1, 1, 1] must be four non-negative values [top, left, bottom, right]}}
  %y = crest.avg_pool2d %x kernel [3, 3] pads [1, 1, 1] : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @max_pool_pad_not_smaller_than_kernel(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op pads [0, 0, 3, 0] must be smaller than the kernel [3, 3]}}
  %y = crest.max_pool2d %x kernel [3, 3] pads [0, 0, 3, 0] : tensor<1x8x8x8xf32> -> tensor<1x8x9x6xf32>
  return
}

// -----

// The left/right pads are compared with the kernel width.
func.func @avg_pool_pad_not_smaller_than_kernel_w(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op pads [0, 2, 0, 0] must be smaller than the kernel [3, 2]}}
  %y = crest.avg_pool2d %x kernel [3, 2] pads [0, 2, 0, 0] : tensor<1x8x8x8xf32> -> tensor<1x8x6x9xf32>
  return
}

// -----

func.func @max_pool_result_type(%x: tensor<1x8x8x8xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op result element type 'f16' does not match the input element type 'f32'}}
  %y = crest.max_pool2d %x kernel [2, 2] strides [2, 2] : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf16>
  return
}

// -----

func.func @avg_pool_kernel_too_large(%x: tensor<1x8x3x3xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op the 5x5 kernel does not fit the padded 3x3 input}}
  %y = crest.avg_pool2d %x kernel [5, 5] : tensor<1x8x3x3xf32> -> tensor<1x8x1x1xf32>
  return
}

// -----

// OH = floor((112 + 1 + 1 - 3) / 2) + 1 = 56.
func.func @max_pool_result_shape(%x: tensor<1x16x112x112xf32>) {
  // expected-error @+1 {{'crest.max_pool2d' op result shape 1x16x57x57 does not match the expected 1x16x56x56}}
  %y = crest.max_pool2d %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1]
         : tensor<1x16x112x112xf32> -> tensor<1x16x57x57xf32>
  return
}

// -----

// 7x7, kernel 2, stride 2: floor(5 / 2) + 1 = 3 ...
func.func @avg_pool_floor(%x: tensor<1x16x7x7xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op result shape 1x16x4x4 does not match the expected 1x16x3x3}}
  %y = crest.avg_pool2d %x kernel [2, 2] strides [2, 2] : tensor<1x16x7x7xf32> -> tensor<1x16x4x4xf32>
  return
}

// -----

// ... and ceil(5 / 2) + 1 = 4 with ceil_mode.
func.func @avg_pool_ceil(%x: tensor<1x16x7x7xf32>) {
  // expected-error @+1 {{'crest.avg_pool2d' op result shape 1x16x3x3 does not match the expected 1x16x4x4}}
  %y = crest.avg_pool2d %x kernel [2, 2] strides [2, 2] ceil_mode count_include_pad
         : tensor<1x16x7x7xf32> -> tensor<1x16x3x3xf32>
  return
}

// -----

func.func @max_pool_integer(%x: tensor<1x8x8x8xi8>) {
  // expected-error @+1 {{'crest.max_pool2d' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<1x8x8x8xi8>'}}
  %y = crest.max_pool2d %x kernel [2, 2] : tensor<1x8x8x8xi8> -> tensor<1x8x7x7xi8>
  return
}

//===----------------------------------------------------------------------===//
// crest.global_avg_pool2d
//===----------------------------------------------------------------------===//

// -----

func.func @global_avg_pool_rank(%x: tensor<1x576x49xf32>) {
  // expected-error @+1 {{'crest.global_avg_pool2d' op input must be rank 4 (NCHW), got 1x576x49}}
  %p = crest.global_avg_pool2d %x : tensor<1x576x49xf32> -> tensor<1x576x1xf32>
  return
}

// -----

func.func @global_avg_pool_type(%x: tensor<1x576x7x7xf32>) {
  // expected-error @+1 {{'crest.global_avg_pool2d' op result element type 'bf16' does not match the input element type 'f32'}}
  %p = crest.global_avg_pool2d %x : tensor<1x576x7x7xf32> -> tensor<1x576x1x1xbf16>
  return
}

// -----

func.func @global_avg_pool_shape(%x: tensor<1x576x7x7xf32>) {
  // expected-error @+1 {{'crest.global_avg_pool2d' op result shape 1x576 does not match the expected 1x576x1x1}}
  %p = crest.global_avg_pool2d %x : tensor<1x576x7x7xf32> -> tensor<1x576xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise binary operations (NumPy broadcasting)
//===----------------------------------------------------------------------===//

// -----

func.func @add_element_types(%x: tensor<4x8xf32>, %y: tensor<4x8xf16>) {
  // expected-error @+1 {{'crest.add' op operand element types 'f32' and 'f16' differ}}
  %0 = crest.add %x, %y : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x8xf32>
  return
}

// -----

func.func @sub_result_type(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-error @+1 {{'crest.sub' op result element type 'f16' does not match the input element type 'f32'}}
  %0 = crest.sub %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf16>
  return
}

// -----

// Shapes align at the trailing dimension: 4x3 against (1x)4.
func.func @mul_not_broadcastable(%x: tensor<4x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'crest.mul' op operand shapes 4x3 and 4 are not broadcast-compatible (dimension 1 of the broadcast: 3 vs 4)}}
  %0 = crest.mul %x, %y : tensor<4x3xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return
}

// -----

// 2x3x8 against (1x)4x8: dimension 1 of the rank-3 broadcast.
func.func @max_not_broadcastable_rank(%x: tensor<2x3x8xi32>, %y: tensor<4x8xi32>) {
  // expected-error @+1 {{'crest.max' op operand shapes 2x3x8 and 4x8 are not broadcast-compatible (dimension 1 of the broadcast: 3 vs 4)}}
  %0 = crest.max %x, %y : tensor<2x3x8xi32>, tensor<4x8xi32> -> tensor<2x4x8xi32>
  return
}

// -----

// 2x1x8 with 3x8 broadcasts to 2x3x8.
func.func @min_result_shape(%x: tensor<2x1x8xf32>, %y: tensor<3x8xf32>) {
  %0 = crest.min %x, %y : tensor<2x1x8xf32>, tensor<3x8xf32> -> tensor<2x3x8xf32>
  // expected-error @+1 {{'crest.min' op result shape 2x1x8 does not match the broadcast shape 2x3x8}}
  %1 = crest.min %x, %y : tensor<2x1x8xf32>, tensor<3x8xf32> -> tensor<2x1x8xf32>
  return
}

// -----

// Two rank-0 operands broadcast to a rank-0 result.
func.func @div_scalar(%x: tensor<f32>, %y: tensor<f32>) {
  // expected-error @+1 {{'crest.div' op result shape 4 does not match the broadcast shape scalar}}
  %0 = crest.div %x, %y : tensor<f32>, tensor<f32> -> tensor<4xf32>
  return
}

// -----

func.func @pow_not_broadcastable(%x: tensor<8x2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'crest.pow' op operand shapes 8x2 and 3 are not broadcast-compatible (dimension 1 of the broadcast: 2 vs 3)}}
  %0 = crest.pow %x, %y : tensor<8x2xf32>, tensor<3xf32> -> tensor<8x3xf32>
  return
}

// -----

// div and pow are float-only (ODS).
func.func @div_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'crest.div' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = crest.div %x, %x : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return
}

//===----------------------------------------------------------------------===//
// crest.cast and unary elementwise operations
//===----------------------------------------------------------------------===//

// -----

func.func @cast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'crest.cast' op input shape 4x8 does not match result shape 8x4}}
  %0 = crest.cast %x : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

// -----

func.func @cast_index(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'crest.cast' op result #0 must be statically shaped tensor of floating-point or signless integer or unsigned integer values, but got 'tensor<4x8xindex>'}}
  %0 = crest.cast %x : tensor<4x8xf32> to tensor<4x8xindex>
  return
}

// -----

func.func @relu_dynamic(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'crest.relu' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<?x16xf32>'}}
  %0 = crest.relu %x : tensor<?x16xf32>
  return
}

// -----

func.func @sigmoid_integer(%x: tensor<4x16xi32>) {
  // expected-error @+1 {{'crest.sigmoid' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4x16xi32>'}}
  %0 = crest.sigmoid %x : tensor<4x16xi32>
  return
}

// -----

func.func @tanh_type_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.tanh' op requires the same type for all operands and results}}
  %0 = "crest.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @hardsigmoid_alpha_zero(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.hardsigmoid' op alpha = 0.000000e+00 must be finite and non-zero}}
  %0 = crest.hardsigmoid %x {alpha = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @hardsigmoid_alpha_inf(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.hardsigmoid' op alpha = -INF must be finite and non-zero}}
  %0 = crest.hardsigmoid %x {alpha = 0xFF800000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @hardsigmoid_alpha_nan(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.hardsigmoid' op alpha = nan must be finite and non-zero}}
  %0 = crest.hardsigmoid %x {alpha = 0x7FC00000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @hardsigmoid_beta_inf(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.hardsigmoid' op beta = INF must be finite}}
  %0 = crest.hardsigmoid %x {alpha = 0.166666672 : f32, beta = 0x7F800000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clip_no_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.clip' op needs at least one of 'min' and 'max'}}
  %0 = crest.clip %x : tensor<4xf32>
  return
}

// -----

func.func @clip_nan_min(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.clip' op bounds must not be NaN}}
  %0 = crest.clip %x min 0x7FC00000 : tensor<4xf32>
  return
}

// -----

func.func @clip_nan_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.clip' op bounds must not be NaN}}
  %0 = crest.clip %x min 0.0 max 0x7FC00000 : tensor<4xf32>
  return
}

// -----

func.func @clip_min_greater_than_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.clip' op min = 6.000000e+00 is greater than max = 0.000000e+00}}
  %0 = crest.clip %x min 6.0 max 0.0 : tensor<4xf32>
  return
}

// -----

// One bound suffices, and min = max is allowed.
func.func @clip_valid(%x: tensor<4xf32>) {
  %0 = crest.clip %x max 6.0 : tensor<4xf32>
  %1 = crest.clip %x min 1.0 max 1.0 : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// crest.softmax
//===----------------------------------------------------------------------===//

// -----

func.func @softmax_axis(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{'crest.softmax' op axis 2 is out of range for a rank-2 tensor; must be in [-2, 2)}}
  %0 = crest.softmax %x {axis = 2 : i64} : tensor<4x128xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<4x128x128xf32>) {
  // expected-error @+1 {{'crest.softmax' op axis -4 is out of range for a rank-3 tensor; must be in [-3, 3)}}
  %0 = crest.softmax %x {axis = -4 : i64} : tensor<4x128x128xf32>
  return
}

// -----

func.func @softmax_integer(%x: tensor<4x128xi32>) {
  // expected-error @+1 {{'crest.softmax' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4x128xi32>'}}
  %0 = crest.softmax %x : tensor<4x128xi32>
  return
}

//===----------------------------------------------------------------------===//
// crest.layer_norm
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_axis(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op axis -3 is out of range for a rank-2 tensor; must be in [-2, 2)}}
  %0 = crest.layer_norm %x, %g {axis = -3 : i64} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<128x256xf32>, %g: tensor<128xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op scale shape 128 does not match the normalized dimensions 256}}
  %0 = crest.layer_norm %x, %g : tensor<128x256xf32>, tensor<128xf32> -> tensor<128x256xf32>
  return
}

// -----

// axis = 0 normalizes over all of 128x256.
func.func @layer_norm_scale_shape_axis0(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op scale shape 256 does not match the normalized dimensions 128x256}}
  %0 = crest.layer_norm %x, %g {axis = 0 : i64} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_scale_type(%x: tensor<128x256xf32>, %g: tensor<256xf16>) {
  // expected-error @+1 {{'crest.layer_norm' op scale element type 'f16' does not match the input element type 'f32'}}
  %0 = crest.layer_norm %x, %g : tensor<128x256xf32>, tensor<256xf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<128x256xf32>, %g: tensor<256xf32>, %b: tensor<1x256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op bias shape 1x256 does not match the normalized dimensions 256}}
  %0 = crest.layer_norm %x, %g, %b : tensor<128x256xf32>, tensor<256xf32>, tensor<1x256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%x: tensor<128x256xf32>, %g: tensor<256xf32>, %b: tensor<256xbf16>) {
  // expected-error @+1 {{'crest.layer_norm' op bias element type 'bf16' does not match the input element type 'f32'}}
  %0 = crest.layer_norm %x, %g, %b : tensor<128x256xf32>, tensor<256xf32>, tensor<256xbf16> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op result type 'tensor<128x256xf16>' does not match the input type 'tensor<128x256xf32>'}}
  %0 = crest.layer_norm %x, %g : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf16>
  return
}

// -----

func.func @layer_norm_epsilon_zero(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op epsilon = 0.000000e+00 must be positive and finite}}
  %0 = crest.layer_norm %x, %g {epsilon = 0.0 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_epsilon_negative(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op epsilon = -1.000000e-05 must be positive and finite}}
  %0 = crest.layer_norm %x, %g {epsilon = -1.0e-5 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_epsilon_inf(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op epsilon = INF must be positive and finite}}
  %0 = crest.layer_norm %x, %g {epsilon = 0x7F800000 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @layer_norm_epsilon_nan(%x: tensor<128x256xf32>, %g: tensor<256xf32>) {
  // expected-error @+1 {{'crest.layer_norm' op epsilon = nan must be positive and finite}}
  %0 = crest.layer_norm %x, %g {epsilon = 0x7FC00000 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  return
}

//===----------------------------------------------------------------------===//
// crest.reduce_mean
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_mean_no_dims(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op dims must name at least one dimension}}
  %0 = crest.reduce_mean %x dims [] : tensor<128x256xf32> -> tensor<128x256xf32>
  return
}

// -----

func.func @reduce_mean_dim_range(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op dimension 2 is out of range for a rank-2 tensor; must be in [-2, 2)}}
  %0 = crest.reduce_mean %x dims [2] : tensor<128x256xf32> -> tensor<128x256xf32>
  return
}

// -----

// -1 is dimension 1 of a rank-2 tensor; the message names the normalized one.
func.func @reduce_mean_dim_twice(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op dimension 1 is reduced twice}}
  %0 = crest.reduce_mean %x dims [1, -1] : tensor<128x256xf32> -> tensor<128xf32>
  return
}

// -----

func.func @reduce_mean_type(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op result element type 'f16' does not match the input element type 'f32'}}
  %0 = crest.reduce_mean %x dims [1] keep_dims : tensor<128x256xf32> -> tensor<128x1xf16>
  return
}

// -----

func.func @reduce_mean_keep_dims(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op result shape 128 does not match the expected 128x1}}
  %0 = crest.reduce_mean %x dims [1] keep_dims : tensor<128x256xf32> -> tensor<128xf32>
  return
}

// -----

func.func @reduce_mean_drop_dims(%x: tensor<4x128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_mean' op result shape 4x1x1 does not match the expected 4}}
  %0 = crest.reduce_mean %x dims [-1, 1] : tensor<4x128x256xf32> -> tensor<4x1x1xf32>
  return
}

// -----

// The other reductions share reduce_mean's verifier.
func.func @reduce_max_dim_twice(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_max' op dimension 0 is reduced twice}}
  %0 = crest.reduce_max %x dims [0, -2] : tensor<128x256xf32> -> tensor<256xf32>
  return
}

// -----

func.func @reduce_sum_keep_dims(%x: tensor<128x256xf32>) {
  // expected-error @+1 {{'crest.reduce_sum' op result shape 256 does not match the expected 1x256}}
  %0 = crest.reduce_sum %x dims [0] keep_dims : tensor<128x256xf32> -> tensor<256xf32>
  return
}

// -----

func.func @reduce_prod_integer(%x: tensor<128x256xi32>) {
  // expected-error @+1 {{'crest.reduce_prod' op operand #0 must be}}
  %0 = crest.reduce_prod %x dims [0] : tensor<128x256xi32> -> tensor<256xi32>
  return
}

// -----

// Reducing every dimension without keep_dims gives a rank-0 tensor.
func.func @reduce_mean_all(%x: tensor<4x4xf32>) {
  %0 = crest.reduce_mean %x dims [0, 1] : tensor<4x4xf32> -> tensor<f32>
  // expected-error @+1 {{'crest.reduce_mean' op result shape 1 does not match the expected scalar}}
  %1 = crest.reduce_mean %x dims [0, 1] : tensor<4x4xf32> -> tensor<1xf32>
  return
}

// -----

// ceil_mode drops a last window that would start in the trailing padding
// (ONNX, PyTorch): 5x5 input, kernel 3, stride 3, pads 1: the span is
// 5 + 2 - 3 = 4, ceil(4 / 3) + 1 = 3 windows, but the third would start at
// 6 >= 5 + 1, so 2 remain.
func.func @pool_ceil_mode_drops_padding_window(%x: tensor<1x2x5x5xf32>) {
  %ok = crest.max_pool2d %x kernel [3, 3] strides [3, 3] pads [1, 1, 1, 1] ceil_mode
          : tensor<1x2x5x5xf32> -> tensor<1x2x2x2xf32>
  // expected-error @+1 {{'crest.avg_pool2d' op result shape 1x2x3x3 does not match the expected 1x2x2x2}}
  %bad = crest.avg_pool2d %x kernel [3, 3] strides [3, 3] pads [1, 1, 1, 1] ceil_mode
          : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return
}

// -----

func.func @leaky_relu_alpha_inf(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.leaky_relu' op alpha = INF must be finite}}
  %0 = crest.leaky_relu %x {alpha = 0x7F800000 : f32} : tensor<4xf32>
  return
}

// -----

func.func @leaky_relu_alpha_nan(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.leaky_relu' op alpha = nan must be finite}}
  %0 = crest.leaky_relu %x {alpha = 0x7FC00000 : f32} : tensor<4xf32>
  return
}

// -----

// Unsigned tensors are elementwise and data-movement operands, not float
// math operands, and do not mix with signless ones.
func.func @exp_unsigned(%x: tensor<4xui8>) {
  // expected-error @+1 {{'crest.exp' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xui8>'}}
  %y = crest.exp %x : tensor<4xui8>
  return
}

// -----

func.func @max_mixed_sign(%x: tensor<4xui8>, %y: tensor<4xi8>) {
  // expected-error @+1 {{'crest.max' op operand element types 'ui8' and 'i8' differ}}
  %z = crest.max %x, %y : tensor<4xui8>, tensor<4xi8> -> tensor<4xui8>
  return
}

// -----

func.func @less_not_bool(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.less' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = crest.less %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @equal_types(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'crest.equal' op operand element types 'f32' and 'f16' differ}}
  %0 = crest.equal %x, %y : tensor<4xf32>, tensor<4xf16> -> tensor<4xi1>
  return
}

// -----

func.func @and_numbers(%x: tensor<4xi8>) {
  // expected-error @+1 {{'crest.and' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = crest.and %x, %x : tensor<4xi8>, tensor<4xi8> -> tensor<4xi1>
  return
}

// -----

func.func @select_values(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'crest.select' op operand element types 'f32' and 'f16' differ}}
  %0 = crest.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @select_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.select' op operand shapes 3 and 4 are not broadcast-compatible (dimension 0 of the broadcast: 3 vs 4)}}
  %0 = crest.select %c, %x, %x : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}
