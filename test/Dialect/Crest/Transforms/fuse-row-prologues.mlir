// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=remarks --split-input-file --verify-diagnostics | FileCheck %s
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=max-results=1 --split-input-file | FileCheck %s --check-prefix=ONE
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=prologues=false --split-input-file | FileCheck %s --check-prefix=ONE
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=rows=false --split-input-file | FileCheck %s --check-prefix=NOROWS

// An embedding (gather + position add) joins the layer norm that reads it;
// the sum, which the residual add also reads, is a second result. The
// residual add reads the sum, a prologue value: not the epilogue.
// CHECK-LABEL: func.func @embedding
// CHECK: %[[K:.*]]:2 = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1000x64xf32>, tensor<1x16xi64>, tensor<1x16x64xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[G:.*]] = crest.gather
// CHECK-NEXT: %[[S:.*]] = crest.add %[[G]]
// CHECK: %[[Y:.*]] = crest.layer_norm %[[S]]
// CHECK-NEXT: crest.yield %[[S]], %[[Y]]
// CHECK: crest.add %[[K]]#0, %[[K]]#1
// With one result at most (or without prologues) the prologue is refused;
// the residual add, which
// then reads the sum as a kernel input, is the norm's epilogue instead.
// ONE-LABEL: func.func @embedding
// ONE: crest.gather
// ONE-NEXT: crest.add
// ONE-NEXT: crest.kernel
// ONE: crest.layer_norm
// ONE-NEXT: crest.add
// ONE-NEXT: crest.yield
// Without `rows` nothing joins the layer norm, and the softmax's scale and
// mask are an elementwise kernel of their own.
// NOROWS-LABEL: func.func @embedding
// NOROWS-NOT: crest.kernel
// NOROWS-LABEL: func.func @softmax
// NOROWS: crest.yield
// NOROWS-NEXT: }
// NOROWS-NEXT: crest.softmax
func.func @embedding(%ids: tensor<1x16xi64>, %table: tensor<1000x64xf32>, %pos: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %e = crest.gather %table, %ids : tensor<1000x64xf32>, tensor<1x16xi64> -> tensor<1x16x64xf32>
  %s = crest.add %e, %pos : tensor<1x16x64xf32>, tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  // expected-remark @below {{reads its input through 2 op(s) and stores its result through 0 op(s), which join its kernel}}
  %y = crest.layer_norm %s, %one {axis = 2 : i64} : tensor<1x16x64xf32>, tensor<64xf32> -> tensor<1x16x64xf32>
  // expected-remark @below {{not fused into the kernel of 'crest.layer_norm': an operand is a value of its prologue or depends on the kernel's own values through an op outside it}}
  %r = crest.add %s, %y : tensor<1x16x64xf32>, tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  return %r : tensor<1x16x64xf32>
}

// -----

// A scaled, masked softmax: the mask broadcasts over the rows.
// CHECK-LABEL: func.func @softmax
// CHECK: crest.kernel ins(%{{.*}}, %{{.*}} : tensor<4x32x32xf32>, tensor<32xf32>) -> tensor<4x32x32xf32>
// CHECK: crest.mul
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.softmax
func.func @softmax(%x: tensor<4x32x32xf32>, %mask: tensor<32xf32>) -> tensor<4x32x32xf32> {
  %c = arith.constant dense<0.125> : tensor<4x32x32xf32>
  %t = crest.mul %x, %c : tensor<4x32x32xf32>, tensor<4x32x32xf32> -> tensor<4x32x32xf32>
  %u = crest.add %t, %mask : tensor<4x32x32xf32>, tensor<32xf32> -> tensor<4x32x32xf32>
  // expected-remark @below {{reads its input through 2 op(s) and stores its result through 0 op(s), which join its kernel}}
  %y = crest.softmax %u : tensor<4x32x32xf32>
  return %y : tensor<4x32x32xf32>
}

// -----

// Rows of 2048 elements are read three times at wave64: the prologue
// would be computed three times per element.
// CHECK-LABEL: func.func @long_rows
// CHECK-NOT: crest.kernel
func.func @long_rows(%x: tensor<2x2048xf32>, %b: tensor<2048xf32>) -> tensor<2x2048xf32> {
  %s = crest.add %x, %b : tensor<2x2048xf32>, tensor<2048xf32> -> tensor<2x2048xf32>
  // expected-remark @below {{computes its input in its own kernel: its rows of 2048 elements are read three times, which would compute the 1 op(s) before it three times}}
  %y = crest.layer_norm %s, %b : tensor<2x2048xf32>, tensor<2048xf32> -> tensor<2x2048xf32>
  return %y : tensor<2x2048xf32>
}

// -----

// The transpose of the sum is read by the prologue but computed from it
// outside: fusing the adds would make the kernel depend on itself.
// CHECK-LABEL: func.func @cycle
// CHECK-NOT: crest.kernel
func.func @cycle(%x: tensor<64x64xf32>, %z: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = crest.add %x, %z : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %t = crest.transpose %s permutation [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %u = crest.add %s, %t : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  // expected-remark @below {{computes its input in its own kernel: an operand of the ops before it depends on their own values through an op outside them}}
  %y = crest.softmax %u : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// A reduction of rows it holds in registers (1024 elements: 16 per lane)
// reads them through the squares, whose other use makes them a second
// result.
// CHECK-LABEL: func.func @mean_of_squares
// CHECK: %[[K:.*]]:2 = crest.kernel ins(%{{.*}} : tensor<4x1024xf32>) -> tensor<4x1024xf32>, tensor<4x1xf32>
// CHECK: %[[Q:.*]] = crest.mul
// CHECK-NEXT: %[[M:.*]] = crest.reduce_mean %[[Q]]
// CHECK-NEXT: crest.yield %[[Q]], %[[M]]
func.func @mean_of_squares(%x: tensor<4x1024xf32>) -> (tensor<4x1xf32>, tensor<4x1024xf32>) {
  %q = crest.mul %x, %x : tensor<4x1024xf32>, tensor<4x1024xf32> -> tensor<4x1024xf32>
  // expected-remark @below {{reads its input through 1 op(s) and stores its result through 0 op(s), which join its kernel}}
  %m = crest.reduce_mean %q dims [1] keep_dims : tensor<4x1024xf32> -> tensor<4x1xf32>
  return %m, %q : tensor<4x1xf32>, tensor<4x1024xf32>
}

// -----

// Longer rows are read lane-strided, one load in flight per lane: the
// squares stay a kernel of their own (slower fused: bench-fusion.py).
// CHECK-LABEL: func.func @long_mean_of_squares
// CHECK-NOT: crest.kernel
func.func @long_mean_of_squares(%x: tensor<4x4096xf32>) -> tensor<4x1xf32> {
  %q = crest.mul %x, %x : tensor<4x4096xf32>, tensor<4x4096xf32> -> tensor<4x4096xf32>
  // expected-remark @below {{computes its input in its own kernel: its rows of 4096 elements are read one element per lane at a time, which would wait on each load of the 1 op(s) before it}}
  %m = crest.reduce_mean %q dims [1] keep_dims : tensor<4x4096xf32> -> tensor<4x1xf32>
  return %m : tensor<4x1xf32>
}

// -----

// A pool whose input is a contraction's epilogue has no prologue: the
// SiLU stays in the convolution's kernel.
// CHECK-LABEL: func.func @pool_after_conv
// CHECK: crest.kernel
// CHECK: crest.conv2d
// CHECK: crest.yield
// CHECK: crest.global_avg_pool2d %{{.*}} :
func.func @pool_after_conv(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x1x1xf32> {
  %0 = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32> -> tensor<1x16x4x4xf32>
  %s = crest.sigmoid %0 : tensor<1x16x4x4xf32>
  %1 = crest.mul %0, %s : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32> -> tensor<1x16x4x4xf32>
  %p = crest.global_avg_pool2d %1 : tensor<1x16x4x4xf32> -> tensor<1x16x1x1xf32>
  return %p : tensor<1x16x1x1xf32>
}

// -----

// An RMS norm written out: the squares, their mean, + eps, sqrt and the
// reciprocal are one kernel; the final multiply has the input's shape
// (larger than the mean's) and reads the reciprocal as a kernel result.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[K:.*]] = crest.kernel ins(%{{.*}} : tensor<8x256xf32>) -> tensor<8x1xf32>
// CHECK: crest.mul
// CHECK-NEXT: crest.reduce_mean
// CHECK: crest.add
// CHECK-NEXT: crest.sqrt
// CHECK: crest.div
// CHECK-NEXT: crest.yield
// CHECK: crest.mul %{{.*}}, %[[K]]
func.func @rms_norm(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %eps = arith.constant dense<1.0e-6> : tensor<8x1xf32>
  %one = arith.constant dense<1.0> : tensor<8x1xf32>
  %q = crest.mul %x, %x : tensor<8x256xf32>, tensor<8x256xf32> -> tensor<8x256xf32>
  // expected-remark @below {{reads its input through 1 op(s) and stores its result through 3 op(s), which join its kernel}}
  %m = crest.reduce_mean %q dims [1] keep_dims : tensor<8x256xf32> -> tensor<8x1xf32>
  %v = crest.add %m, %eps : tensor<8x1xf32>, tensor<8x1xf32> -> tensor<8x1xf32>
  %r = crest.sqrt %v : tensor<8x1xf32>
  %i = crest.div %one, %r : tensor<8x1xf32>, tensor<8x1xf32> -> tensor<8x1xf32>
  // expected-remark @below {{not fused into the kernel of 'crest.reduce_mean': its result is larger than the row op's: each of its result elements would be computed more than once}}
  %y = crest.mul %x, %i : tensor<8x256xf32>, tensor<8x1xf32> -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// -----

// After a layer norm: a scale and a ReLU per element, with the norm's own
// value also returned.
// CHECK-LABEL: func.func @norm_relu
// CHECK: %[[K:.*]]:2 = crest.kernel
// CHECK: %[[N:.*]] = crest.layer_norm
// CHECK: %[[S:.*]] = crest.mul %[[N]]
// CHECK-NEXT: %[[R:.*]] = crest.relu %[[S]]
// CHECK-NEXT: crest.yield %[[N]], %[[R]]
func.func @norm_relu(%x: tensor<8x96xf32>, %g: tensor<96xf32>) -> (tensor<8x96xf32>, tensor<8x96xf32>) {
  %h = arith.constant dense<0.5> : tensor<8x96xf32>
  // expected-remark @below {{reads its input through 0 op(s) and stores its result through 2 op(s), which join its kernel}}
  %n = crest.layer_norm %x, %g : tensor<8x96xf32>, tensor<96xf32> -> tensor<8x96xf32>
  %s = crest.mul %n, %h : tensor<8x96xf32>, tensor<8x96xf32> -> tensor<8x96xf32>
  %r = crest.relu %s : tensor<8x96xf32>
  return %n, %r : tensor<8x96xf32>, tensor<8x96xf32>
}
