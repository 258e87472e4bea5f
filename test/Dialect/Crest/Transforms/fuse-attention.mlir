// RUN: crest-opt %s --split-input-file --crest-fuse-attention=remarks=true -verify-diagnostics | FileCheck %s

// The crest graph form (examples/transformer-block.mlir): K with
// transpose_rhs, no scale (1), P cast to f16, an f32 result.
// CHECK-LABEL: func.func @graph_form
// CHECK-SAME: (%[[Q:.*]]: tensor<4x64x32xf16>, %[[K:.*]]: tensor<4x64x32xf16>, %[[V:.*]]: tensor<4x64x32xf16>)
// CHECK-DAG: %[[Q4:.*]] = crest.reshape %[[Q]] : tensor<4x64x32xf16> to tensor<1x4x64x32xf16>
// CHECK-DAG: %[[K4:.*]] = crest.reshape %[[K]] : tensor<4x64x32xf16> to tensor<1x4x64x32xf16>
// CHECK-DAG: %[[V4:.*]] = crest.reshape %[[V]] : tensor<4x64x32xf16> to tensor<1x4x64x32xf16>
// CHECK: %[[O:.*]] = crest.attention %[[Q4]], %[[K4]], %[[V4]] scale = 1.000000e+00 qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32>
// CHECK-SAME: -> tensor<1x4x64x32xf32>
// CHECK: %[[R:.*]] = crest.reshape %[[O]] : tensor<1x4x64x32xf32> to tensor<4x64x32xf32>
// CHECK-NOT: crest.softmax
// CHECK-NOT: crest.batch_matmul
// CHECK: return %[[R]]
func.func @graph_form(%q: tensor<4x64x32xf16>, %k: tensor<4x64x32xf16>, %v: tensor<4x64x32xf16>) -> tensor<4x64x32xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x64x32xf16>, tensor<4x64x32xf16> -> tensor<4x64x64xf32>
  %p = crest.softmax %s : tensor<4x64x64xf32>
  %ph = crest.cast %p : tensor<4x64x64xf32> to tensor<4x64x64xf16>
  // expected-remark @below {{attention: Q K^T of 4 heads (64 queries x 64 keys, head dim 32), softmax, the cast of P to f16 and P V fused into one crest.attention (scale 1.000000e+00)}}
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x64x64xf16>, tensor<4x64x32xf16> -> tensor<4x64x32xf32>
  return %o : tensor<4x64x32xf32>
}

// -----

// What the ONNX importer makes of an exported attention: K^T from a
// transpose with permutation [0, 2, 3, 1], unit reshapes between the ops,
// a division by sqrt(64) = 8 (scale 1/8), f32 throughout. The K^T
// transpose becomes a transpose to K ([0, 2, 1, 3]) instead of a second
// transpose being added.
// CHECK-LABEL: func.func @onnx_form
// CHECK-SAME: (%[[QH:.*]]: tensor<1x4x128x64xf32>, %[[KX:.*]]: tensor<1x128x4x64xf32>, %[[VH:.*]]: tensor<1x4x128x64xf32>)
// CHECK: %[[K:.*]] = crest.transpose %[[KX]] permutation [0, 2, 1, 3] : tensor<1x128x4x64xf32> -> tensor<1x4x128x64xf32>
// CHECK: crest.attention %[[QH]], %[[K]], %[[VH]] scale = 1.250000e-01 qk <lhs = f32, rhs = f32, acc = f32, out = f32> pv <lhs = f32, rhs = f32, acc = f32, out = f32>
// CHECK-NOT: crest.softmax
// CHECK-NOT: permutation [0, 2, 3, 1]
func.func @onnx_form(%qh: tensor<1x4x128x64xf32>, %kx: tensor<1x128x4x64xf32>, %vh: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  %kt = crest.transpose %kx permutation [0, 2, 3, 1] : tensor<1x128x4x64xf32> -> tensor<1x4x64x128xf32>
  %q3 = crest.reshape %qh : tensor<1x4x128x64xf32> to tensor<4x128x64xf32>
  %k3 = crest.reshape %kt : tensor<1x4x64x128xf32> to tensor<4x64x128xf32>
  %s = crest.batch_matmul %q3, %k3 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<4x128x64xf32>, tensor<4x64x128xf32> -> tensor<4x128x128xf32>
  %s4 = crest.reshape %s : tensor<4x128x128xf32> to tensor<1x4x128x128xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = crest.div %s4, %c : tensor<1x4x128x128xf32>, tensor<f32> -> tensor<1x4x128x128xf32>
  %p = crest.softmax %d {axis = 3 : i64} : tensor<1x4x128x128xf32>
  %p3 = crest.reshape %p : tensor<1x4x128x128xf32> to tensor<4x128x128xf32>
  %v3 = crest.reshape %vh : tensor<1x4x128x64xf32> to tensor<4x128x64xf32>
  // expected-remark @below {{attention: Q K^T of 4 heads (128 queries x 128 keys, head dim 64), the scale, softmax and P V fused into one crest.attention (scale 1.250000e-01)}}
  %o = crest.batch_matmul %p3, %v3 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<4x128x128xf32>, tensor<4x128x64xf32> -> tensor<4x128x64xf32>
  %o4 = crest.reshape %o : tensor<4x128x64xf32> to tensor<1x4x128x64xf32>
  return %o4 : tensor<1x4x128x64xf32>
}

// -----

// The same in f16 (--precision=f16): K^T is cast after the transpose and
// its unit reshape. K is the transpose to [0, 2, 1, 3], then the cast: no
// second transpose.
// CHECK-LABEL: func.func @onnx_form_cast
// CHECK-SAME: (%[[QH:.*]]: tensor<1x4x128x64xf16>, %[[KX:.*]]: tensor<1x128x4x64xf32>, %[[VH:.*]]: tensor<1x4x128x64xf16>)
// CHECK: %[[K:.*]] = crest.transpose %[[KX]] permutation [0, 2, 1, 3] : tensor<1x128x4x64xf32> -> tensor<1x4x128x64xf32>
// CHECK: %[[KH:.*]] = crest.cast %[[K]] : tensor<1x4x128x64xf32> to tensor<1x4x128x64xf16>
// CHECK: crest.attention %[[QH]], %[[KH]], %[[VH]] scale = 1.250000e-01
// CHECK-NOT: crest.transpose
func.func @onnx_form_cast(%qh: tensor<1x4x128x64xf16>, %kx: tensor<1x128x4x64xf32>, %vh: tensor<1x4x128x64xf16>) -> tensor<1x4x128x64xf32> {
  %kt = crest.transpose %kx permutation [0, 2, 3, 1] : tensor<1x128x4x64xf32> -> tensor<1x4x64x128xf32>
  %kc = crest.cast %kt : tensor<1x4x64x128xf32> to tensor<1x4x64x128xf16>
  %q3 = crest.reshape %qh : tensor<1x4x128x64xf16> to tensor<4x128x64xf16>
  %k3 = crest.reshape %kc : tensor<1x4x64x128xf16> to tensor<4x64x128xf16>
  %s = crest.batch_matmul %q3, %k3 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<4x128x64xf16>, tensor<4x64x128xf16> -> tensor<4x128x128xf32>
  %s4 = crest.reshape %s : tensor<4x128x128xf32> to tensor<1x4x128x128xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = crest.div %s4, %c : tensor<1x4x128x128xf32>, tensor<f32> -> tensor<1x4x128x128xf32>
  %p = crest.softmax %d {axis = 3 : i64} : tensor<1x4x128x128xf32>
  %ph = crest.cast %p : tensor<1x4x128x128xf32> to tensor<1x4x128x128xf16>
  %p3 = crest.reshape %ph : tensor<1x4x128x128xf16> to tensor<4x128x128xf16>
  %v3 = crest.reshape %vh : tensor<1x4x128x64xf16> to tensor<4x128x64xf16>
  // expected-remark @below {{attention: Q K^T of 4 heads (128 queries x 128 keys, head dim 64), the scale, softmax, the cast of P to f16 and P V fused into one crest.attention (scale 1.250000e-01)}}
  %o = crest.batch_matmul %p3, %v3 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<4x128x128xf16>, tensor<4x128x64xf16> -> tensor<4x128x64xf32>
  %o4 = crest.reshape %o : tensor<4x128x64xf32> to tensor<1x4x128x64xf32>
  return %o4 : tensor<1x4x128x64xf32>
}

// -----

// The probabilities are used twice (returned too): nothing is fused.
// CHECK-LABEL: func.func @probabilities_used_twice
// CHECK: crest.softmax
// CHECK-NOT: crest.attention
func.func @probabilities_used_twice(%q: tensor<2x8x16xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x8x16xf16>) -> (tensor<2x8x16xf32>, tensor<2x8x8xf32>) {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x16xf16>, tensor<2x8x16xf16> -> tensor<2x8x8xf32>
  %p = crest.softmax %s : tensor<2x8x8xf32>
  %ph = crest.cast %p : tensor<2x8x8xf32> to tensor<2x8x8xf16>
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x8xf16>, tensor<2x8x16xf16> -> tensor<2x8x16xf32>
  return %o, %p : tensor<2x8x16xf32>, tensor<2x8x8xf32>
}

// -----

// A softmax over the queries (axis 1) is not attention's.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: crest.attention
func.func @softmax_over_queries(%q: tensor<2x8x16xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x8x16xf16>) -> tensor<2x8x16xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x16xf16>, tensor<2x8x16xf16> -> tensor<2x8x8xf32>
  %p = crest.softmax %s {axis = 1 : i64} : tensor<2x8x8xf32>
  %ph = crest.cast %p : tensor<2x8x8xf32> to tensor<2x8x8xf16>
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x8xf16>, tensor<2x8x16xf16> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// A scale that is not a splat constant (a tensor of per-key factors)
// stays: the product feeding the softmax is then not a Q K^T.
// CHECK-LABEL: func.func @non_splat_scale
// CHECK-NOT: crest.attention
func.func @non_splat_scale(%q: tensor<2x8x16xf16>, %k: tensor<2x8x16xf16>, %v: tensor<2x8x16xf16>, %w: tensor<8xf32>) -> tensor<2x8x16xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x16xf16>, tensor<2x8x16xf16> -> tensor<2x8x8xf32>
  %m = crest.mul %s, %w : tensor<2x8x8xf32>, tensor<8xf32> -> tensor<2x8x8xf32>
  %p = crest.softmax %m : tensor<2x8x8xf32>
  %ph = crest.cast %p : tensor<2x8x8xf32> to tensor<2x8x8xf16>
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<2x8x8xf16>, tensor<2x8x16xf16> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// An additive mask of 0 and -inf, as ONNX exports write it (Where(mask, 0,
// -inf) added to the scaled scores): its condition becomes the op's bool
// mask, the pairs it keeps being the pairs the condition holds.
// CHECK-LABEL: func.func @select_mask
// CHECK-SAME: %[[M:[a-z0-9]+]]: tensor<1x64xi1>
// CHECK: crest.attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[M]] : tensor<1x64xi1> scale = 1.250000e-01
// CHECK-NOT: crest.select
// CHECK-NOT: crest.softmax
func.func @select_mask(%q: tensor<4x16x64xf16>, %k: tensor<4x64x64xf16>, %v: tensor<4x64x64xf16>, %m: tensor<1x64xi1>) -> tensor<4x16x64xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x16x64xf16>, tensor<4x64x64xf16> -> tensor<4x16x64xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = crest.div %s, %c : tensor<4x16x64xf32>, tensor<f32> -> tensor<4x16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = crest.select %m, %zero, %ninf : tensor<1x64xi1>, tensor<f32>, tensor<f32> -> tensor<1x64xf32>
  %a = crest.add %d, %bias : tensor<4x16x64xf32>, tensor<1x64xf32> -> tensor<4x16x64xf32>
  %p = crest.softmax %a : tensor<4x16x64xf32>
  %ph = crest.cast %p : tensor<4x16x64xf32> to tensor<4x16x64xf16>
  // expected-remark @below {{attention: Q K^T of 4 heads (16 queries x 64 keys, head dim 64), the scale, the 0 / -inf mask, softmax, the cast of P to f16 and P V fused into one crest.attention (scale 1.250000e-01)}}
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x16x64xf16>, tensor<4x64x64xf16> -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}

// -----

// A constant mask added before the scale (an upper-triangular -inf, the
// causal mask exporters bake in) becomes a constant bool mask: true where
// the constant is 0. A select of -inf and 0 negates its condition.
// CHECK-LABEL: func.func @constant_mask
// CHECK: %[[B:.*]] = arith.constant dense<{{\[\[}}true, false], [true, true]]> : tensor<2x2xi1>
// CHECK: crest.attention {{.*}} mask %[[B]] : tensor<2x2xi1> scale = 5.000000e-01
// CHECK-LABEL: func.func @negated_mask
// CHECK: %[[N:.*]] = crest.not %arg3 : tensor<2x2xi1>
// CHECK: crest.attention {{.*}} mask %[[N]] : tensor<2x2xi1>
func.func @constant_mask(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>) -> tensor<1x2x8xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x8xf32>, tensor<1x2x8xf32> -> tensor<1x2x2xf32>
  %mask = arith.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
  %a = crest.add %mask, %s : tensor<2x2xf32>, tensor<1x2x2xf32> -> tensor<1x2x2xf32>
  %c = arith.constant dense<0.5> : tensor<f32>
  %m = crest.mul %a, %c : tensor<1x2x2xf32>, tensor<f32> -> tensor<1x2x2xf32>
  %p = crest.softmax %m : tensor<1x2x2xf32>
  // expected-remark @below {{the 0 / -inf mask}}
  %o = crest.batch_matmul %p, %v precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x2xf32>, tensor<1x2x8xf32> -> tensor<1x2x8xf32>
  return %o : tensor<1x2x8xf32>
}
func.func @negated_mask(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>, %b: tensor<2x2xi1>) -> tensor<1x2x8xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x8xf32>, tensor<1x2x8xf32> -> tensor<1x2x2xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = crest.select %b, %ninf, %zero : tensor<2x2xi1>, tensor<f32>, tensor<f32> -> tensor<2x2xf32>
  %a = crest.add %s, %bias : tensor<1x2x2xf32>, tensor<2x2xf32> -> tensor<1x2x2xf32>
  %p = crest.softmax %a : tensor<1x2x2xf32>
  // expected-remark @below {{the 0 / -inf mask}}
  %o = crest.batch_matmul %p, %v precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x2xf32>, tensor<1x2x8xf32> -> tensor<1x2x8xf32>
  return %o : tensor<1x2x8xf32>
}

// -----

// An additive bias that is not 0 / -inf (-10000, or any learned bias)
// changes the probabilities, so nothing is fused.
// CHECK-LABEL: func.func @bias_not_mask
// CHECK: crest.softmax
// CHECK-NOT: crest.attention
func.func @bias_not_mask(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>) -> tensor<1x2x8xf32> {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x8xf32>, tensor<1x2x8xf32> -> tensor<1x2x2xf32>
  %bias = arith.constant dense<[[0.0, -10000.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %a = crest.add %s, %bias : tensor<1x2x2xf32>, tensor<2x2xf32> -> tensor<1x2x2xf32>
  %p = crest.softmax %a : tensor<1x2x2xf32>
  %o = crest.batch_matmul %p, %v precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x2x2xf32>, tensor<1x2x8xf32> -> tensor<1x2x8xf32>
  return %o : tensor<1x2x8xf32>
}
