// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=remarks --split-input-file --verify-diagnostics | FileCheck %s
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues=max-results=1 --split-input-file | FileCheck %s --check-prefix=ONE

// An embedding (gather + position add) joins the layer norm that reads it;
// the sum, which the residual add also reads, is a second result.
// CHECK-LABEL: func.func @embedding
// CHECK: %[[K:.*]]:2 = crest.kernel ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1000x64xf32>, tensor<1x16xi64>, tensor<1x16x64xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[G:.*]] = crest.gather
// CHECK-NEXT: %[[S:.*]] = crest.add %[[G]]
// CHECK: %[[Y:.*]] = crest.layer_norm %[[S]]
// CHECK-NEXT: crest.yield %[[Y]], %[[S]]
// CHECK: crest.add %[[K]]#1, %[[K]]#0
// With one result at most, the sum stays a kernel of its own.
// ONE-LABEL: func.func @embedding
// ONE: crest.gather
// ONE-NEXT: crest.add
// ONE-NEXT: crest.layer_norm
func.func @embedding(%ids: tensor<1x16xi64>, %table: tensor<1000x64xf32>, %pos: tensor<1x16x64xf32>) -> tensor<1x16x64xf32> {
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %e = crest.gather %table, %ids : tensor<1000x64xf32>, tensor<1x16xi64> -> tensor<1x16x64xf32>
  %s = crest.add %e, %pos : tensor<1x16x64xf32>, tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  // expected-remark @below {{reads its input through 2 op(s), which join its kernel}}
  %y = crest.layer_norm %s, %one {axis = 2 : i64} : tensor<1x16x64xf32>, tensor<64xf32> -> tensor<1x16x64xf32>
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
  // expected-remark @below {{reads its input through 2 op(s), which join its kernel}}
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

// The scale reads the sum's row mean through a reduction outside the
// prologue: fusing the add would make the kernel depend on itself.
// CHECK-LABEL: func.func @cycle
// CHECK-NOT: crest.kernel
func.func @cycle(%x: tensor<8x64xf32>, %z: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %s = crest.add %x, %z : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  %m = crest.reduce_mean %s dims [1] keep_dims : tensor<8x64xf32> -> tensor<8x1xf32>
  %t = crest.sub %s, %m : tensor<8x64xf32>, tensor<8x1xf32> -> tensor<8x64xf32>
  // expected-remark @below {{computes its input in its own kernel: an operand of the ops before it depends on their own values through an op outside them}}
  %y = crest.softmax %t : tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
