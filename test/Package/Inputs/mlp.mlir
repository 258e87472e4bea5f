// A four-launch graph for the package tests (test/Package/*.test):
//   t0 = relu(x @ w1 + b1)   (one crest.kernel: matmul + add + relu)
//   t1 = t0 @ w2
//   t2 = t1 @ w3
//   y  = t2 @ w4
// Weights: w1 = splat 0.5 (16x16), b1[k] = k - 4, w2[i][j] = (4 i + j - 20) / 8
// (16x4), w3 = splat 0.25 (4x32), w4 = splat -1.0 (32x16).
// Live ranges in launch order: t0 [0, 1], t1 [1, 2], t2 [2, 3]: t0 and t2
// can share a buffer (of t2's 1024 bytes), t1 (alive at 1 and 2) cannot.
func.func @mlp(%x: tensor<8x16xf32> {crest.name = "x"}) -> (tensor<8x16xf32> {crest.name = "y"}) {
  %w1 = arith.constant dense<0.5> : tensor<16x16xf32>
  %b1 = arith.constant dense<[-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]> : tensor<16xf32>
  %w2 = arith.constant dense<[[-2.5000, -2.3750, -2.2500, -2.1250],
        [-2.0000, -1.8750, -1.7500, -1.6250],
        [-1.5000, -1.3750, -1.2500, -1.1250],
        [-1.0000, -0.8750, -0.7500, -0.6250],
        [-0.5000, -0.3750, -0.2500, -0.1250],
        [0.0000, 0.1250, 0.2500, 0.3750],
        [0.5000, 0.6250, 0.7500, 0.8750],
        [1.0000, 1.1250, 1.2500, 1.3750],
        [1.5000, 1.6250, 1.7500, 1.8750],
        [2.0000, 2.1250, 2.2500, 2.3750],
        [2.5000, 2.6250, 2.7500, 2.8750],
        [3.0000, 3.1250, 3.2500, 3.3750],
        [3.5000, 3.6250, 3.7500, 3.8750],
        [4.0000, 4.1250, 4.2500, 4.3750],
        [4.5000, 4.6250, 4.7500, 4.8750],
        [5.0000, 5.1250, 5.2500, 5.3750]]> : tensor<16x4xf32>
  %w3 = arith.constant dense<0.25> : tensor<4x32xf32>
  %w4 = arith.constant dense<-1.0> : tensor<32x16xf32>
  %t0 = crest.kernel ins(%x, %w1, %b1 : tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>):
    %0 = crest.matmul %a, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %1 = crest.add %0, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
    %2 = crest.relu %1 : tensor<8x16xf32>
    crest.yield %2 : tensor<8x16xf32>
  }
  %t1 = crest.matmul %t0, %w2 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
          config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
          : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %t2 = crest.matmul %t1, %w3 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
          config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
          : tensor<8x4xf32>, tensor<4x32xf32> -> tensor<8x32xf32>
  %y = crest.matmul %t2, %w4 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
         : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
