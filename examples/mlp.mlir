// A two-layer perceptron with a softmax head, as a crest graph:
//   y = softmax(relu(x * W1 + b1) * W2 + b2)
// fp16 matrix inputs accumulate in fp32 on the matrix cores. Compile it for a
// chip by attaching a target (see docs/GettingStarted.md):
//   crest-opt examples/mlp.mlir --crest-attach-target=chip=gfx942
func.func @mlp(%x: tensor<8x256xf16>, %w1: tensor<256x128xf16>, %b1: tensor<128xf32>,
               %w2: tensor<128x10xf16>, %b2: tensor<10xf32>) -> tensor<8x10xf32> {
  %h = crest.matmul %x, %w1 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = workgroup, stages = 2>
         : tensor<8x256xf16>, tensor<256x128xf16> -> tensor<8x128xf32>
  %hb = crest.add %h, %b1 : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
  %a = crest.relu %hb : tensor<8x128xf32>
  %a16 = crest.cast %a : tensor<8x128xf32> to tensor<8x128xf16>
  %l = crest.matmul %a16, %w2 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = wavefront>
         : tensor<8x128xf16>, tensor<128x10xf16> -> tensor<8x10xf32>
  %lb = crest.add %l, %b2 : tensor<8x10xf32>, tensor<10xf32> -> tensor<8x10xf32>
  %y = crest.softmax %lb : tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
