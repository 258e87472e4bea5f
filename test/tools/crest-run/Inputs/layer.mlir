// Layer 1 of examples/mlp.mlir as one fused kernel: relu(x * w + b), with
// x 8x256 f16, w 256x128 f16, b 128 f32 -> 8x128 f32 (crest-run tests).
module {
  func.func @layer(%a: tensor<8x256xf16>, %b: tensor<256x128xf16>, %bias: tensor<128xf32>) -> tensor<8x128xf32> {
    %r = crest.kernel ins(%a, %b, %bias : tensor<8x256xf16>, tensor<256x128xf16>, tensor<128xf32>) -> tensor<8x128xf32> {
    ^bb0(%x: tensor<8x256xf16>, %y: tensor<256x128xf16>, %z: tensor<128xf32>):
      %0 = crest.matmul %x, %y precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             sync <scope = workgroup, stages = 2>
             : tensor<8x256xf16>, tensor<256x128xf16> -> tensor<8x128xf32>
      %1 = crest.add %0, %z : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
      %2 = crest.relu %1 : tensor<8x128xf32>
      crest.yield %2 : tensor<8x128xf32>
    }
    return %r : tensor<8x128xf32>
  }
}
