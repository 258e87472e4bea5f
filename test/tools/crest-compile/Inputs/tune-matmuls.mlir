// Two f16 matmuls for the --tune tests: a square 256x256x256 one (workgroup
// scope) and a skinny 16x1024x1024 one (wavefront scope, split-K).
func.func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>,
              %x: tensor<16x1024xf16>, %w: tensor<1024x1024xf16>)
    -> (tensor<256x256xf16>, tensor<16x1024xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
         : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf16>
  %1 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<16x1024xf16>, tensor<1024x1024xf16> -> tensor<16x1024xf32>
  return %0, %1 : tensor<256x256xf16>, tensor<16x1024xf32>
}
