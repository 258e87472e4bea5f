// RUN: crest-opt %s --split-input-file --crest-convert-tosa | FileCheck %s
// RUN: crest-opt %s --split-input-file --crest-convert-tosa=precision=f16 | FileCheck %s --check-prefix=F16

// A convolution reads NHWC data and an OHWI weight: crest's NCHW conv2d
// between two transposes, the weight permuted to OIHW at compile time, TOSA's
// pad [top, bottom, left, right] as crest's [top, left, bottom, right], the
// bias added as [1, F, 1, 1].
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<5.000000e-01> : tensor<1x1x1x1xf32>
// CHECK: %[[X:.*]] = crest.transpose %arg0 permutation [0, 3, 1, 2] : tensor<1x4x4x2xf32> -> tensor<1x2x4x4xf32>
// CHECK: %[[Y:.*]] = crest.conv2d %[[X]], %[[W]] strides [1, 2] pads [0, 1, 0, 1] precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x2x4x4xf32>, tensor<1x2x1x2xf32> -> tensor<1x1x4x3xf32>
// CHECK: %[[Z:.*]] = crest.add %[[Y]], %[[B]]
// One output channel: NCHW -> NHWC moves a unit dimension only, a reshape.
// CHECK: crest.reshape %[[Z]] : tensor<1x1x4x3xf32> to tensor<1x4x3x1xf32>
// With precision=f16 the weight is rounded at compile time, the data cast,
// and the f32 result cast back to the op's f32 (here the identity).
// F16-LABEL: func.func @conv
// (The cast moves above the input transpose, which then moves f16.)
// F16: crest.cast %arg0 : tensor<1x4x4x2xf32> to tensor<1x4x4x2xf16>
// F16: crest.conv2d {{.*}} precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x4x4xf16>, tensor<1x2x1x2xf16> -> tensor<1x1x4x3xf32>
func.func @conv(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x3x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>}> : () -> tensor<1x1x2x2xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 2>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3x1xf32>
  return %y : tensor<1x4x3x1xf32>
}

// -----

// Depthwise, HWCM with M = 2: output channel c * 2 + m reads input channel c
// with W[kh, kw, c, m]; crest's filter [C * M, 1, KH, KW], groups C. The
// f16 convolution accumulates in f32 and rounds once at the end; a zero bias
// adds nothing.
// CHECK-LABEL: func.func @depthwise
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<4x1x1x1xf16>
// CHECK: %[[Y:.*]] = crest.conv2d %{{.*}}, %[[W]] {{.*}}groups 2 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x3x3xf16>, tensor<4x1x1x1xf16> -> tensor<1x4x3x3xf32>
// CHECK-NOT: crest.add
// CHECK: %[[C:.*]] = crest.cast %[[Y]] : tensor<1x4x3x3xf32> to tensor<1x4x3x3xf16>
// CHECK: crest.transpose %[[C]] permutation [0, 2, 3, 1]
func.func @depthwise(%x: tensor<1x3x3x2xf16>) -> tensor<1x3x3x4xf16> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf16>}> : () -> tensor<1x1x2x2xf16>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf16>}> : () -> tensor<4xf16>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf16>, tensor<1x1x2x2xf16>, tensor<4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x3x3x4xf16>
  return %y : tensor<1x3x3x4xf16>
}

// -----

// Two convolutions with a ReLU6 between them: the transposes between them
// cancel, so only the graph's input and output are transposed.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: crest.transpose
// CHECK-NOT: crest.transpose
// CHECK: return
func.func @chain(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %r = tosa.clamp %y {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %z = tosa.conv2d %r, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %z : tensor<1x4x4x2xf32>
}

// -----

// tosa.matmul is a batched product; f16 operands accumulate in f32 and the
// f16 result is a cast. With precision=f16, f32 operands are cast and the
// result is cast back to f32.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[P:.*]] = crest.batch_matmul %arg0, %arg1 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<2x3x4xf16>, tensor<2x4x5xf16> -> tensor<2x3x5xf32>
// CHECK: crest.cast %[[P]] : tensor<2x3x5xf32> to tensor<2x3x5xf16>
// CHECK-LABEL: func.func @matmul_f32
// CHECK: crest.batch_matmul %arg0, %arg1 precision <lhs = f32, rhs = f32, acc = f32, out = f32>
// CHECK-NOT: crest.cast
// F16-LABEL: func.func @matmul_f32
// F16: %[[A:.*]] = crest.cast %arg0 : tensor<1x3x4xf32> to tensor<1x3x4xf16>
// F16: %[[B:.*]] = crest.cast %arg1 : tensor<1x4x5xf32> to tensor<1x4x5xf16>
// F16: crest.batch_matmul %[[A]], %[[B]] precision <lhs = f16, rhs = f16, acc = f32, out = f32>
func.func @matmul(%a: tensor<2x3x4xf16>, %b: tensor<2x4x5xf16>) -> tensor<2x3x5xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<2x3x4xf16>, tensor<2x4x5xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x3x5xf16>
  return %c : tensor<2x3x5xf16>
}
func.func @matmul_f32(%a: tensor<1x3x4xf32>, %b: tensor<1x4x5xf32>) -> tensor<1x3x5xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.matmul %a, %b, %zp, %zp : (tensor<1x3x4xf32>, tensor<1x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x5xf32>
  return %c : tensor<1x3x5xf32>
}

// -----

// Pooling: NCHW between transposes; the average excludes the padding (no
// count_include_pad).
// CHECK-LABEL: func.func @pool
// CHECK: crest.max_pool2d %{{.*}} kernel [2, 2] strides [2, 2] pads [0, 0, 1, 1] : tensor<1x3x3x3xf32> -> tensor<1x3x2x2xf32>
// CHECK: crest.avg_pool2d %{{.*}} kernel [2, 2] pads [1, 0, 0, 1] : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32>
// CHECK-NOT: count_include_pad
func.func @pool(%x: tensor<1x3x3x3xf32>) -> tensor<1x2x2x3xf32> {
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x3x3xf32>) -> tensor<1x2x2x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %m, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x3xf32>
  return %a : tensor<1x2x2x3xf32>
}

// -----

// Elementwise ops, and a softmax written out as TOSA front ends decompose it
// (reduce_max, sub, exp, reduce_sum, reciprocal, mul), which becomes one
// crest.softmax.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[A:.*]] = crest.add %arg0, %arg1 : tensor<2x8xf32>, tensor<1x8xf32> -> tensor<2x8xf32>
// CHECK: %[[S:.*]] = crest.sigmoid %[[A]]
// CHECK: %[[M:.*]] = crest.mul %[[A]], %[[S]]
// CHECK: %[[C:.*]] = crest.clip %[[M]] min -1.000000e+00 : tensor<2x8xf32>
// CHECK: %[[Q:.*]] = crest.sqrt %[[C]]
// CHECK: %[[R:.*]] = crest.div %{{.*}}, %[[Q]] : tensor<f32>, tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK: %[[N:.*]] = crest.neg %[[R]]
// CHECK: crest.softmax %[[N]] {axis = 1 : i64} : tensor<2x8xf32>
// CHECK-NOT: crest.reduce
func.func @elementwise(%x: tensor<2x8xf32>, %y: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.add %x, %y : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %s = tosa.sigmoid %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = tosa.mul %a, %s, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  %c = tosa.clamp %m {max_val = 3.40282347E+38 : f32, min_val = -1.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = tosa.rsqrt %c : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %n = tosa.negate %r, %zp, %zp : (tensor<2x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %max = tosa.reduce_max %n {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = tosa.sub %n, %max : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %e = tosa.exp %d : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x8xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
  return %p : tensor<2x8xf32>
}

// -----

// A reduction that is not part of a softmax stays a reduction, with its
// dimension kept as TOSA does.
// CHECK-LABEL: func.func @reduce
// CHECK: crest.reduce_sum %arg0 dims [0] keep_dims : tensor<3x4xf32> -> tensor<1x4xf32>
// CHECK: crest.reduce_prod %{{.*}} dims [1] keep_dims : tensor<1x4xf32> -> tensor<1x1xf32>
func.func @reduce(%x: tensor<3x4xf32>) -> tensor<1x1xf32> {
  %s = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %p = tosa.reduce_product %s {axis = 1 : i32} : (tensor<1x4xf32>) -> tensor<1x1xf32>
  return %p : tensor<1x1xf32>
}

// -----

// Data movement: reshape, transpose, slice, concat, pad and tile.
// CHECK-LABEL: func.func @data
// CHECK: %[[R:.*]] = crest.reshape %arg0 : tensor<2x6xf32> to tensor<3x4xf32>
// CHECK: %[[T:.*]] = crest.transpose %[[R]] permutation [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK: %[[S:.*]] = crest.slice %[[T]] offsets [1, 0] : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK: %[[C:.*]] = crest.concat %[[S]], %[[S]] axis = 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK: %[[P:.*]] = crest.concat %{{.*}}, %[[C]], %{{.*}} axis = 1 : tensor<4x1xf32>, tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x6xf32>
// CHECK: crest.concat %[[P]], %[[P]], %[[P]] axis = 1 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x18xf32>
func.func @data(%x: tensor<2x6xf32>) -> tensor<4x18xf32> {
  %s34 = tosa.const_shape {values = dense<[3, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %x, %s34 : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %t = tosa.transpose %r {perms = array<i32: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %start = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sl = tosa.slice %t, %start, %size : (tensor<4x3xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>
  %c = tosa.concat %sl, %sl {axis = 0 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %pads = tosa.const_shape {values = dense<[0, 0, 1, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %pv = "tosa.const"() <{values = dense<-1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %c, %pads, %pv : (tensor<4x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x6xf32>
  %m = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tl = tosa.tile %p, %m : (tensor<4x6xf32>, !tosa.shape<2>) -> tensor<4x18xf32>
  return %tl : tensor<4x18xf32>
}

// -----

// TOSA's float-to-integer cast rounds to nearest even before it saturates;
// crest.cast truncates, so a crest.round comes first.
// CHECK-LABEL: func.func @cast
// CHECK: %[[R:.*]] = crest.round %arg0 : tensor<4xf32>
// CHECK: %[[I:.*]] = crest.cast %[[R]] : tensor<4xf32> to tensor<4xi32>
// CHECK: crest.cast %[[I]] : tensor<4xi32> to tensor<4xf16>
func.func @cast(%x: tensor<4xf32>) -> tensor<4xf16> {
  %i = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  %h = tosa.cast %i : (tensor<4xi32>) -> tensor<4xf16>
  return %h : tensor<4xf16>
}

// -----

// Comparisons, logic and select.
// CHECK-LABEL: func.func @logic
// CHECK: %[[G:.*]] = crest.greater %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
// CHECK: %[[E:.*]] = crest.equal %arg0, %arg1
// CHECK: %[[N:.*]] = crest.not %[[E]]
// CHECK: %[[A:.*]] = crest.and %[[G]], %[[N]]
// CHECK: crest.select %[[A]], %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
func.func @logic(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %g = tosa.greater %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %e = tosa.equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %n = tosa.logical_not %e : (tensor<4xi1>) -> tensor<4xi1>
  %a = tosa.logical_and %g, %n : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %s = tosa.select %a, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
