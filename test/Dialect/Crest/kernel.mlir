// crest.kernel round-trips: a contraction with its fused epilogue, and a
// reduction group without a contraction.
// RUN: crest-opt %s | crest-opt | FileCheck %s
// RUN: crest-opt %s --mlir-print-op-generic | crest-opt | FileCheck %s

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  // CHECK-LABEL: func.func @linear_relu
  func.func @linear_relu(%x: tensor<8x256xf16>, %w: tensor<256x128xf16>,
                         %b: tensor<128xf32>, %res: tensor<8x128xf32>) -> tensor<8x128xf32> {
    // CHECK: crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x256xf16>, tensor<256x128xf16>, tensor<128xf32>, tensor<8x128xf32>)
    // CHECK-SAME: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 64, 64], wave_tile = [16, 16], scope = wavefront>
    // CHECK-SAME: -> tensor<8x128xf32> {
    // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8x256xf16>, %[[B:.*]]: tensor<256x128xf16>, %[[BIAS:.*]]: tensor<128xf32>, %[[RES:.*]]: tensor<8x128xf32>):
    // CHECK-NEXT:   %[[MM:.*]] = crest.matmul %[[A]], %[[B]]
    // CHECK-NEXT:   %[[ADD:.*]] = crest.add %[[MM]], %[[BIAS]]
    // CHECK-NEXT:   %[[SCALE:.*]] = arith.constant dense<5.000000e-01> : tensor<8x128xf32>
    // CHECK-NEXT:   %[[MUL:.*]] = crest.mul %[[ADD]], %[[SCALE]]
    // CHECK-NEXT:   %[[RELU:.*]] = crest.relu %[[MUL]]
    // CHECK-NEXT:   %[[SUM:.*]] = crest.add %[[RELU]], %[[RES]]
    // CHECK-NEXT:   %[[OUT:.*]] = crest.cast %[[SUM]] : tensor<8x128xf32> to tensor<8x128xf16>
    // CHECK-NEXT:   %[[BACK:.*]] = crest.cast %[[OUT]] : tensor<8x128xf16> to tensor<8x128xf32>
    // CHECK-NEXT:   crest.yield %[[BACK]] : tensor<8x128xf32>
    %0 = crest.kernel ins(%x, %w, %b, %res : tensor<8x256xf16>, tensor<256x128xf16>, tensor<128xf32>, tensor<8x128xf32>)
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 64, 64], wave_tile = [16, 16], scope = wavefront, stages = 1>
           -> tensor<8x128xf32> {
    ^bb0(%a: tensor<8x256xf16>, %bw: tensor<256x128xf16>, %bias: tensor<128xf32>, %r: tensor<8x128xf32>):
      %1 = crest.matmul %a, %bw precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             sync <scope = wavefront>
             : tensor<8x256xf16>, tensor<256x128xf16> -> tensor<8x128xf32>
      %2 = crest.add %1, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
      %half = arith.constant dense<0.5> : tensor<8x128xf32>
      %3 = crest.mul %2, %half : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
      %4 = crest.relu %3 : tensor<8x128xf32>
      %5 = crest.add %4, %r : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
      %6 = crest.cast %5 : tensor<8x128xf32> to tensor<8x128xf16>
      %7 = crest.cast %6 : tensor<8x128xf16> to tensor<8x128xf32>
      crest.yield %7 : tensor<8x128xf32>
    }
    return %0 : tensor<8x128xf32>
  }

  // CHECK-LABEL: func.func @softmax_group
  func.func @softmax_group(%s: tensor<4x128x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128xf32>) {
    // CHECK: crest.kernel ins(%{{.*}} : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>, tensor<4x128xf32> {
    // CHECK: crest.softmax
    // CHECK: crest.reduce_mean
    // CHECK: crest.yield %{{.*}}, %{{.*}} : tensor<4x128x128xf32>, tensor<4x128xf32>
    %0:2 = crest.kernel ins(%s : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>, tensor<4x128xf32> {
    ^bb0(%in: tensor<4x128x128xf32>):
      %scale = arith.constant dense<0.125> : tensor<4x128x128xf32>
      %1 = crest.mul %in, %scale : tensor<4x128x128xf32>, tensor<4x128x128xf32> -> tensor<4x128x128xf32>
      %2 = crest.softmax %1 : tensor<4x128x128xf32>
      %3 = crest.reduce_mean %2 dims [2] : tensor<4x128x128xf32> -> tensor<4x128xf32>
      crest.yield %2, %3 : tensor<4x128x128xf32>, tensor<4x128xf32>
    }
    return %0#0, %0#1 : tensor<4x128x128xf32>, tensor<4x128xf32>
  }

  // A kernel without inputs or results still parses.
  // CHECK-LABEL: func.func @empty
  // CHECK: crest.kernel {
  // CHECK-NEXT: crest.yield
  func.func @empty() {
    crest.kernel {
      crest.yield
    }
    return
  }
}
