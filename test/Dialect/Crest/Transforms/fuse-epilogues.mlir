// RUN: crest-opt %s --crest-fuse-epilogues --split-input-file | FileCheck %s

// A matmul with bias, scaling by a constant, ReLU and a cast: one kernel;
// the splat constant is cloned into the body, the rest become inputs.
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: (%[[A:.*]]: tensor<7x64xf32>, %[[B:.*]]: tensor<64x197xf32>, %[[BIAS:.*]]: tensor<197xf32>)
// CHECK-NOT: crest.matmul
// CHECK: %[[K:.*]] = crest.kernel ins(%[[A]], %[[B]], %[[BIAS]] : tensor<7x64xf32>, tensor<64x197xf32>, tensor<197xf32>) -> tensor<7x197xf16> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<7x64xf32>, %[[Y:.*]]: tensor<64x197xf32>, %[[Z:.*]]: tensor<197xf32>):
// CHECK-NEXT:   %[[MM:.*]] = crest.matmul %[[X]], %[[Y]]
// CHECK-NEXT:   %[[ADD:.*]] = crest.add %[[MM]], %[[Z]]
// CHECK-NEXT:   %[[C:.*]] = arith.constant dense<5.000000e-01>
// CHECK-NEXT:   %[[MUL:.*]] = crest.mul %[[ADD]], %[[C]]
// CHECK-NEXT:   %[[R:.*]] = crest.relu %[[MUL]]
// CHECK-NEXT:   %[[H:.*]] = crest.cast %[[R]] : tensor<7x197xf32> to tensor<7x197xf16>
// CHECK-NEXT:   crest.yield %[[H]] : tensor<7x197xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @epilogue(%a: tensor<7x64xf32>, %b: tensor<64x197xf32>, %bias: tensor<197xf32>) -> tensor<7x197xf16> {
  %c = arith.constant dense<0.5> : tensor<7x197xf32>
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<7x64xf32>, tensor<64x197xf32> -> tensor<7x197xf32>
  %1 = crest.add %0, %bias : tensor<7x197xf32>, tensor<197xf32> -> tensor<7x197xf32>
  %2 = crest.mul %1, %c : tensor<7x197xf32>, tensor<7x197xf32> -> tensor<7x197xf32>
  %3 = crest.relu %2 : tensor<7x197xf32>
  %4 = crest.cast %3 : tensor<7x197xf32> to tensor<7x197xf16>
  return %4 : tensor<7x197xf16>
}

// -----

// The bias add's result has a second use (it is returned): the epilogue
// ends with the add, and the ReLU after it is not fused.
// CHECK-LABEL: func.func @multiple_uses
// CHECK: %[[K:.*]] = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32xf16>, tensor<32x16xf16>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK:   crest.matmul
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.yield
// CHECK: %[[R:.*]] = crest.relu %[[K]]
// CHECK-NEXT: return %[[R]], %[[K]]
func.func @multiple_uses(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>, %bias: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<8x16xf32>
  %1 = crest.add %0, %bias : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %2 = crest.relu %1 : tensor<8x16xf32>
  return %2, %1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A non-elementwise consumer (softmax) ends the epilogue; a consumer whose
// result is larger than the output tile (a broadcast) is not fused either.
// CHECK-LABEL: func.func @non_elementwise
// CHECK: %[[K:.*]] = crest.kernel
// CHECK:   crest.batch_matmul
// CHECK-NEXT: crest.gelu
// CHECK-NEXT: crest.yield
// CHECK: crest.softmax %[[K]]
// CHECK-LABEL: func.func @broadcast_grows
// CHECK: %[[MM:.*]] = crest.matmul
// CHECK-NEXT: crest.add %[[MM]]
// CHECK-NOT: crest.kernel
func.func @non_elementwise(%a: tensor<2x8x32xf32>, %b: tensor<2x32x16xf32>) -> tensor<2x8x16xf32> {
  %0 = crest.batch_matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<2x8x32xf32>, tensor<2x32x16xf32> -> tensor<2x8x16xf32>
  %1 = crest.gelu %0 : tensor<2x8x16xf32>
  %2 = crest.softmax %1 : tensor<2x8x16xf32>
  return %2 : tensor<2x8x16xf32>
}
func.func @broadcast_grows(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %1 = crest.add %0, %c : tensor<8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  return %1 : tensor<4x8x16xf32>
}

// -----

// Standalone elementwise chains: tanh(x * sigmoid(x) + y) is one kernel (x
// is used twice, by the chain, and is an input); tanh's result has two
// uses, so the chain ends there; exp stays a lone op; neg -> abs is a
// second kernel.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[K:.*]] = crest.kernel ins(%[[X:.*]], %[[Y:.*]] : tensor<7x197xf32>, tensor<197xf32>) -> tensor<7x197xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<7x197xf32>, %[[B:.*]]: tensor<197xf32>):
// CHECK-NEXT:   %[[S:.*]] = crest.sigmoid %[[A]]
// CHECK-NEXT:   %[[M:.*]] = crest.mul %[[A]], %[[S]]
// CHECK-NEXT:   %[[R:.*]] = crest.add %[[M]], %[[B]]
// CHECK-NEXT:   %[[T:.*]] = crest.tanh %[[R]]
// CHECK-NEXT:   crest.yield %[[T]]
// CHECK: %[[E:.*]] = crest.exp %[[K]]
// CHECK-NEXT: %[[L:.*]] = crest.kernel ins(%[[K]] : tensor<7x197xf32>)
// CHECK: crest.neg
// CHECK-NEXT: crest.abs
// CHECK-NEXT: crest.yield
// CHECK: return %[[E]], %[[L]]
func.func @elementwise(%x: tensor<7x197xf32>, %y: tensor<197xf32>) -> (tensor<7x197xf32>, tensor<7x197xf32>) {
  %s = crest.sigmoid %x : tensor<7x197xf32>
  %m = crest.mul %x, %s : tensor<7x197xf32>, tensor<7x197xf32> -> tensor<7x197xf32>
  %r = crest.add %m, %y : tensor<7x197xf32>, tensor<197xf32> -> tensor<7x197xf32>
  %t = crest.tanh %r : tensor<7x197xf32>
  %e = crest.exp %t : tensor<7x197xf32>
  %n = crest.neg %t : tensor<7x197xf32>
  %a = crest.abs %n : tensor<7x197xf32>
  return %e, %a : tensor<7x197xf32>, tensor<7x197xf32>
}

// -----

// Existing kernels are left alone; a convolution takes its epilogue.
// CHECK-LABEL: func.func @untouched
// CHECK: crest.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: crest.relu
// CHECK-NEXT: crest.yield
// CHECK: crest.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[C:.*]] = crest.conv2d
// CHECK-NEXT: crest.relu %[[C]]
// CHECK-NEXT: crest.yield
func.func @untouched(%x: tensor<4xf32>, %i: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<4xf32>, tensor<1x4x6x6xf32>) {
  %0 = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = crest.relu %a : tensor<4xf32>
    crest.yield %1 : tensor<4xf32>
  }
  %c = crest.conv2d %i, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  %r = crest.relu %c : tensor<1x4x6x6xf32>
  return %0, %r : tensor<4xf32>, tensor<1x4x6x6xf32>
}
