// The consumer's package (consumer/main.cpp runs it): one f32 layer,
// y = relu(x * w + b).
func.func @layer(%x: tensor<16x32xf32> {crest.name = "x"},
                 %w: tensor<32x16xf32> {crest.name = "w"},
                 %b: tensor<16xf32> {crest.name = "b"})
    -> (tensor<16x16xf32> {crest.name = "y"}) {
  %0 = crest.matmul %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %1 = crest.add %0, %b : tensor<16x16xf32>, tensor<16xf32> -> tensor<16x16xf32>
  %2 = crest.relu %1 : tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}
