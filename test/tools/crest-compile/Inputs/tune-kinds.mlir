// Every kind of contraction --tune measures: a batch_matmul, a convolution
// (an implicit GEMM) with a fused bias, and a matmul whose explicit
// configuration it leaves alone.
func.func @kinds(%a: tensor<4x128x64xf16>, %b: tensor<4x64x128xf16>,
                 %x: tensor<1x32x16x16xf16>, %w: tensor<64x32x3x3xf16>,
                 %bias: tensor<1x64x1x1xf32>,
                 %p: tensor<64x64xf16>, %q: tensor<64x64xf16>)
    -> (tensor<4x128x128xf32>, tensor<1x64x16x16xf32>, tensor<64x64xf32>) {
  %0 = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x128x64xf16>, tensor<4x64x128xf16> -> tensor<4x128x128xf32>
  %1 = crest.conv2d %x, %w pads [1, 1, 1, 1]
         precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<1x32x16x16xf16>, tensor<64x32x3x3xf16> -> tensor<1x64x16x16xf32>
  %2 = crest.add %1, %bias : tensor<1x64x16x16xf32>, tensor<1x64x1x1xf32> -> tensor<1x64x16x16xf32>
  %3 = crest.matmul %p, %q precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, stages = 2>
         : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0, %2, %3 : tensor<4x128x128xf32>, tensor<1x64x16x16xf32>, tensor<64x64xf32>
}
