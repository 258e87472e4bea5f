// One 256x256x256 f16 matmul with a bias + relu epilogue, for the --tune
// tests of the cache and the untimed chip.
func.func @square(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>,
                  %bias: tensor<256xf32>) -> tensor<256x256xf32> {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
  %1 = crest.add %0, %bias : tensor<256x256xf32>, tensor<256xf32> -> tensor<256x256xf32>
  %2 = crest.relu %1 : tensor<256x256xf32>
  return %2 : tensor<256x256xf32>
}
