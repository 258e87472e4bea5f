// A bare 64x96x128 f16 matmul (no epilogue), for codegen-pipeline.test.
func.func @matmul(%a: tensor<64x128xf16>, %b: tensor<128x96xf16>) -> tensor<64x96xf32> {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x128xf16>, tensor<128x96xf16> -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}
