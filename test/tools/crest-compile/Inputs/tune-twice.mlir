// Two identical 256x256x256 matmuls: --tune measures the second from what
// it measured for the first, even without a cache file.
func.func @twice(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>)
    -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
  %1 = crest.matmul %b, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
  return %0, %1 : tensor<256x256xf32>, tensor<256x256xf32>
}
