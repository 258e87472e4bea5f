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

// The bias add's result has a second use (it is returned): the ReLU still
// joins, and the add's value becomes a second result of the kernel.
// CHECK-LABEL: func.func @multiple_uses
// CHECK: %[[K:.*]]:2 = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32xf16>, tensor<32x16xf16>, tensor<16xf32>) -> tensor<8x16xf32>, tensor<8x16xf32>
// CHECK:   crest.matmul
// CHECK-NEXT: %[[ADD:.*]] = crest.add
// CHECK-NEXT: %[[RELU:.*]] = crest.relu %[[ADD]]
// CHECK-NEXT: crest.yield %[[ADD]], %[[RELU]]
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @multiple_uses(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>, %bias: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<8x16xf32>
  %1 = crest.add %0, %bias : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %2 = crest.relu %1 : tensor<8x16xf32>
  return %2, %1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// SiLU (x * sigmoid(x)): the conv's biased value feeds both the sigmoid
// and the multiply, a DAG inside the group; the residual add joins too.
// CHECK-LABEL: func.func @silu
// CHECK: %[[K:.*]] = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32>, tensor<16x1x1xf32>, tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
// CHECK:      %[[C:.*]] = crest.conv2d
// CHECK-NEXT: %[[B:.*]] = crest.add %[[C]]
// CHECK-NEXT: %[[S:.*]] = crest.sigmoid %[[B]]
// CHECK-NEXT: %[[M:.*]] = crest.mul %[[B]], %[[S]]
// CHECK-NEXT: %[[R:.*]] = crest.add %[[M]]
// CHECK-NEXT: crest.yield %[[R]]
// CHECK: return %[[K]]
func.func @silu(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16x1x1xf32>, %r: tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %0 = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32> -> tensor<1x16x6x6xf32>
  %1 = crest.add %0, %b : tensor<1x16x6x6xf32>, tensor<16x1x1xf32> -> tensor<1x16x6x6xf32>
  %2 = crest.sigmoid %1 : tensor<1x16x6x6xf32>
  %3 = crest.mul %1, %2 : tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32> -> tensor<1x16x6x6xf32>
  %4 = crest.add %3, %r : tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32> -> tensor<1x16x6x6xf32>
  return %4 : tensor<1x16x6x6xf32>
}

// -----

// GELU and hardswish written out in primitives: 0.5 x (1 + erf(x / sqrt 2))
// and y * clip(y + 3, 0, 6) / 6; every splat constant is cloned in.
// CHECK-LABEL: func.func @primitives
// CHECK: %[[K:.*]] = crest.kernel ins(%{{.*}}, %{{.*}} : tensor<7x64xf32>, tensor<64x33xf32>) -> tensor<7x33xf32> {
// CHECK:      %[[X:.*]] = crest.matmul
// CHECK:      crest.div %[[X]]
// CHECK-NEXT: crest.erf
// CHECK:      crest.add
// CHECK-NEXT: crest.mul %[[X]]
// CHECK:      %[[Y:.*]] = crest.mul
// CHECK:      crest.add %[[Y]]
// CHECK-NEXT: %[[C:.*]] = crest.clip
// CHECK-NEXT: crest.mul %[[Y]], %[[C]]
// CHECK:      %[[H:.*]] = crest.div
// CHECK-NEXT: crest.yield %[[H]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @primitives(%a: tensor<7x64xf32>, %b: tensor<64x33xf32>) -> tensor<7x33xf32> {
  %half = arith.constant dense<0.5> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %sqrt2 = arith.constant dense<1.41421354> : tensor<f32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %six = arith.constant dense<6.0> : tensor<f32>
  %x = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<7x64xf32>, tensor<64x33xf32> -> tensor<7x33xf32>
  %0 = crest.div %x, %sqrt2 : tensor<7x33xf32>, tensor<f32> -> tensor<7x33xf32>
  %1 = crest.erf %0 : tensor<7x33xf32>
  %2 = crest.add %1, %one : tensor<7x33xf32>, tensor<f32> -> tensor<7x33xf32>
  %3 = crest.mul %x, %2 : tensor<7x33xf32>, tensor<7x33xf32> -> tensor<7x33xf32>
  %y = crest.mul %3, %half : tensor<7x33xf32>, tensor<f32> -> tensor<7x33xf32>
  %4 = crest.add %y, %three : tensor<7x33xf32>, tensor<f32> -> tensor<7x33xf32>
  %5 = crest.clip %4 min 0.0 max 6.0 : tensor<7x33xf32>
  %6 = crest.mul %y, %5 : tensor<7x33xf32>, tensor<7x33xf32> -> tensor<7x33xf32>
  %7 = crest.div %6, %six : tensor<7x33xf32>, tensor<f32> -> tensor<7x33xf32>
  return %7 : tensor<7x33xf32>
}

// -----

// Squeeze-and-excitation: the features feed the pool and the multiply by
// the excitation, which depends on the pool (outside the group): the
// multiply cannot join the features' epilogue, and the features are the
// kernel's one result. It becomes the next conv's lhs prologue (it reads
// the excitation, broadcast per channel). The f32 value of that conv
// (also returned, as a residual branch would use it) and its f16 cast
// become two results of its kernel, the layout of MobileNetV3 in f16.
// CHECK-LABEL: func.func @squeeze_excite
// CHECK: %[[F:.*]] = crest.kernel
// CHECK:   crest.conv2d
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.hardswish
// CHECK-NEXT: crest.yield
// CHECK: %[[P:.*]] = crest.global_avg_pool2d %[[F]]
// CHECK: %[[E:.*]] = crest.kernel
// CHECK:   crest.matmul
// CHECK-NEXT: crest.sigmoid
// CHECK-NEXT: crest.yield
// CHECK: %[[X:.*]] = crest.reshape %[[E]]
// CHECK: %[[K:.*]]:2 = crest.kernel ins(%[[F]], %[[X]], %{{.*}} : tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>, tensor<1x16x4x4xf16>
// CHECK:   crest.mul
// CHECK-NEXT: %[[V:.*]] = crest.conv2d
// CHECK-NEXT: %[[H:.*]] = crest.cast %[[V]]
// CHECK-NEXT: crest.yield %[[V]], %[[H]]
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @squeeze_excite(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16x1x1xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16x1x1xf32>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf32>) {
  %0 = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32> -> tensor<1x16x4x4xf32>
  %1 = crest.add %0, %b : tensor<1x16x4x4xf32>, tensor<16x1x1xf32> -> tensor<1x16x4x4xf32>
  %f = crest.hardswish %1 : tensor<1x16x4x4xf32>
  %p = crest.global_avg_pool2d %f : tensor<1x16x4x4xf32> -> tensor<1x16x1x1xf32>
  %q = crest.reshape %p : tensor<1x16x1x1xf32> to tensor<1x16xf32>
  %2 = crest.matmul %q, %w1 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x16xf32>, tensor<16x16xf32> -> tensor<1x16xf32>
  %3 = crest.sigmoid %2 : tensor<1x16xf32>
  %e = crest.reshape %3 : tensor<1x16xf32> to tensor<1x16x1x1xf32>
  %s = crest.mul %f, %e : tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32> -> tensor<1x16x4x4xf32>
  %v = crest.conv2d %s, %w2 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32> -> tensor<1x16x4x4xf32>
  %h = crest.cast %v : tensor<1x16x4x4xf32> to tensor<1x16x4x4xf16>
  return %h, %v : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf32>
}

// -----

// An outside use of an extra result that comes before the group's last op:
// the block is re-sorted so that the kernel dominates it.
// CHECK-LABEL: func.func @resorted
// CHECK: %[[K:.*]]:2 = crest.kernel
// CHECK:   crest.matmul
// CHECK-NEXT: crest.sigmoid
// CHECK-NEXT: crest.mul
// CHECK-NEXT: crest.yield
// CHECK: %[[M:.*]] = crest.reduce_mean %[[K]]#0
// CHECK: return %[[K]]#1, %[[M]]
func.func @resorted(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %1 = crest.sigmoid %0 : tensor<8x16xf32>
  %m = crest.reduce_mean %0 dims [1] : tensor<8x16xf32> -> tensor<8xf32>
  %2 = crest.mul %0, %1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %2, %m : tensor<8x16xf32>, tensor<8xf32>
}

// -----

// The unit reshape an ONNX MatMul leaves between the contraction and its
// bias add sinks below the elementwise ops (the residual, of rank 3, is
// reshaped down), which then join the epilogue.
// CHECK-LABEL: func.func @unit_reshape
// CHECK: %[[R:.*]] = crest.reshape %{{.*}} : tensor<1x128x64xf32> to tensor<128x64xf32>
// CHECK: %[[K:.*]] = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[R]] : tensor<128x32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>
// CHECK:   crest.matmul
// CHECK-NEXT: crest.add %{{.*}} : tensor<64xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT: crest.add {{.*}} : tensor<128x64xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
// CHECK-NEXT: crest.yield
// CHECK: %[[O:.*]] = crest.reshape %[[K]] : tensor<128x64xf32> to tensor<1x128x64xf32>
// CHECK: return %[[O]]
func.func @unit_reshape(%a: tensor<128x32xf32>, %b: tensor<32x64xf32>, %bias: tensor<64xf32>, %res: tensor<1x128x64xf32>) -> tensor<1x128x64xf32> {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<128x32xf32>, tensor<32x64xf32> -> tensor<128x64xf32>
  %1 = crest.reshape %0 : tensor<128x64xf32> to tensor<1x128x64xf32>
  %2 = crest.add %bias, %1 : tensor<64xf32>, tensor<1x128x64xf32> -> tensor<1x128x64xf32>
  %3 = crest.add %res, %2 : tensor<1x128x64xf32>, tensor<1x128x64xf32> -> tensor<1x128x64xf32>
  return %3 : tensor<1x128x64xf32>
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
