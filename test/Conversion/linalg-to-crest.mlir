// RUN: crest-opt %s --split-input-file --crest-convert-linalg | FileCheck %s
// RUN: crest-opt %s --split-input-file --crest-convert-linalg=precision=bf16 | FileCheck %s --check-prefix=BF16

// A matmul into a zero fill is the product alone.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[C:.*]] = crest.matmul %arg0, %arg1 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return %[[C]]
// BF16-LABEL: func.func @matmul
// BF16: %[[A:.*]] = crest.cast %arg0 : tensor<4x8xf32> to tensor<4x8xbf16>
// BF16: %[[B:.*]] = crest.cast %arg1 : tensor<8x16xf32> to tensor<8x16xbf16>
// BF16: crest.matmul %[[A]], %[[B]] precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// f16 operands into an f32 accumulator that is an input: C = init + A B.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[P:.*]] = crest.matmul %arg0, %arg1 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
// CHECK: crest.add %[[P]], %arg2 : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
func.func @accumulate(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x16xf16>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Transposed operands through indexing maps, and a batch.
// CHECK-LABEL: func.func @transposed
// CHECK: crest.matmul %arg0, %arg1 transpose_lhs transpose_rhs precision
// CHECK-SAME: : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
// CHECK: crest.batch_matmul %arg2, %arg3 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
func.func @transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %x: tensor<2x4x8xf32>, %y: tensor<2x8x16xf32>) -> (tensor<4x16xf32>, tensor<2x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x4xf32>, tensor<16x8xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %eb = tensor.empty() : tensor<2x4x16xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %d = linalg.batch_matmul ins(%x, %y : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%fb : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %c, %d : tensor<4x16xf32>, tensor<2x4x16xf32>
}

// -----

// NCHW convolution: the zero tensor.pad becomes its pads; strides and
// dilations carry over.
// CHECK-LABEL: func.func @conv_nchw
// CHECK-NOT: crest.concat
// CHECK: crest.conv2d %arg0, %arg1 strides [2, 2] pads [1, 2, 1, 2] precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x4x5xf32>
func.func @conv_nchw(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x12xf32>
  %e = tensor.empty() : tensor<1x4x4x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x3x10x12xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %y : tensor<1x4x4x5xf32>
}

// -----

// NHWC with an HWCF filter (permuted to FCHW), then a depthwise NHWC
// convolution with an HWC filter (groups = C); the transposes between them
// cancel.
// CHECK-LABEL: func.func @conv_nhwc
// CHECK: %[[W:.*]] = crest.transpose %arg1 permutation [3, 2, 0, 1] : tensor<3x3x2x4xf32> -> tensor<4x2x3x3xf32>
// CHECK: %[[X:.*]] = crest.transpose %arg0 permutation [0, 3, 1, 2] : tensor<1x6x6x2xf32> -> tensor<1x2x6x6xf32>
// CHECK: %[[Y:.*]] = crest.conv2d %[[X]], %[[W]] precision {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: %[[D:.*]] = crest.conv2d %[[Y]], %{{.*}} groups 4 precision {{.*}} : tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x2x2xf32>
// CHECK: crest.transpose %[[D]] permutation [0, 2, 3, 1]
// CHECK-NOT: crest.transpose
func.func @conv_nhwc(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>, %dw: tensor<3x3x4xf32>) -> tensor<1x2x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e2 = tensor.empty() : tensor<1x2x2x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %dw : tensor<1x4x4x4xf32>, tensor<3x3x4xf32>) outs(%f2 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %d : tensor<1x2x2x4xf32>
}

// -----

// Max pooling from a -inf fill over a -inf pad; a sum pool is the average
// over the padded window times its size.
// CHECK-LABEL: func.func @pool
// CHECK: %[[M:.*]] = crest.max_pool2d %arg0 kernel [2, 2] strides [2, 2] pads [0, 0, 1, 1] : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>
// CHECK: %[[A:.*]] = crest.avg_pool2d %[[M]] kernel [3, 3] count_include_pad : tensor<1x3x3x3xf32> -> tensor<1x3x1x1xf32>
// CHECK: crest.mul %[[A]], %{{.*}} : tensor<1x3x1x1xf32>, tensor<f32> -> tensor<1x3x1x1xf32>
func.func @pool(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x3x5x5xf32> to tensor<1x3x6x6xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x3x6x6xf32>, tensor<2x2xf32>) outs(%f : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %win3 = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<1x3x1x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%m, %win3 : tensor<1x3x3x3xf32>, tensor<3x3xf32>) outs(%f1 : tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  return %s : tensor<1x3x1x1xf32>
}

// -----

// An elementwise generic: b is read transposed, the bias broadcast along
// rows; the body's ops become crest ops in the iteration space.
// CHECK-LABEL: func.func @generic
// CHECK-DAG: %[[T:.*]] = crest.transpose %arg1 permutation [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-DAG: %[[R:.*]] = crest.reshape %arg2 : tensor<4xf32> to tensor<4x1xf32>
// CHECK: %[[M:.*]] = crest.mul %arg0, %[[T]] : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK: %[[A:.*]] = crest.add %[[M]], %[[R]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: %[[G:.*]] = crest.greater %[[A]], %{{.*}} : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
// CHECK: %[[S:.*]] = crest.select %[[G]], %[[A]], %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
// CHECK: crest.cast %[[S]] : tensor<4x8xf32> to tensor<4x8xf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @generic(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4xf32>) -> tensor<4x8xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [#id, #tr, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c : tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f16):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %z : f32
    %g = arith.cmpf ogt, %s, %zero : f32
    %l = arith.select %g, %s, %zero : f32
    %h = arith.truncf %l : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// A softmax written out as generics (torch-mlir's decomposition): a max
// reduction from a -inf fill, exp(x - max), a sum from a zero fill, a
// division. It becomes one crest.softmax.
// CHECK-LABEL: func.func @softmax_generics
// CHECK: %[[S:.*]] = crest.softmax %arg0 {axis = 1 : i64} : tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_generics(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fm : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x8xf32>) outs(%fs : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A reduction over the first loop into a non-identity init: reduce, then
// combine with the init.
// CHECK-LABEL: func.func @reduce_init
// CHECK: %[[R:.*]] = crest.reduce_min %arg0 dims [0] keep_dims : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK: %[[M:.*]] = crest.min %[[R]], %{{.*}} : tensor<1x8xf32>, tensor<f32> -> tensor<1x8xf32>
// CHECK: crest.reshape %[[M]] : tensor<1x8xf32> to tensor<8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @reduce_init(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.minimumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Named elementwise ops go through their generic form.
// CHECK-LABEL: func.func @named
// CHECK: %[[E:.*]] = crest.exp %arg0 : tensor<4x8xf32>
// CHECK: %[[T:.*]] = crest.transpose %[[E]] permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: %[[A:.*]] = crest.add %[[T]], %{{.*}} : tensor<8x4xf32>, tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK: crest.softmax %[[A]] {axis = 0 : i64} : tensor<8x4xf32>
func.func @named(%x: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %et = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%ex : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %bb = linalg.broadcast ins(%b : tensor<4xf32>) outs(%et : tensor<8x4xf32>) dimensions = [0]
  %a = linalg.add ins(%t, %bb : tensor<8x4xf32>, tensor<8x4xf32>) outs(%et : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = linalg.softmax dimension(0) ins(%a : tensor<8x4xf32>) outs(%et : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// tensor ops: expand/collapse shapes, a rank-reducing slice, concat, pad.
// CHECK-LABEL: func.func @tensors
// CHECK: %[[E:.*]] = crest.reshape %arg0 : tensor<4x6xf32> to tensor<4x2x3xf32>
// CHECK: %[[S:.*]] = crest.slice %[[E]] offsets [1, 0, 0] strides [2, 1, 1] : tensor<4x2x3xf32> -> tensor<2x1x3xf32>
// CHECK: %[[R:.*]] = crest.reshape %[[S]] : tensor<2x1x3xf32> to tensor<2x3xf32>
// CHECK: %[[C:.*]] = crest.concat %[[R]], %[[R]] axis = 1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
// CHECK: crest.concat %[[C]], %{{.*}} axis = 0 : tensor<2x6xf32>, tensor<1x6xf32> -> tensor<3x6xf32>
func.func @tensors(%x: tensor<4x6xf32>) -> tensor<3x6xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [4, 2, 3] : tensor<4x6xf32> into tensor<4x2x3xf32>
  %s = tensor.extract_slice %e[1, 0, 0] [2, 1, 3] [2, 1, 1] : tensor<4x2x3xf32> to tensor<2x3xf32>
  %c = tensor.concat dim(1) %s, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %c low[0, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %one : f32
  } : tensor<2x6xf32> to tensor<3x6xf32>
  return %p : tensor<3x6xf32>
}

// -----

// A contraction with two batch loops has no crest.batch_matmul form: it is
// still converted, as the generic it is (a broadcast product reduced over
// K), without matrix instructions.
// CHECK-LABEL: func.func @two_batches
// CHECK: %[[M:.*]] = crest.mul %{{.*}}, %{{.*}} : tensor<2x3x4x1x8xf32>, tensor<2x3x1x5x8xf32> -> tensor<2x3x4x5x8xf32>
// CHECK: %[[S:.*]] = crest.reduce_sum %[[M]] dims [4] keep_dims : tensor<2x3x4x5x8xf32> -> tensor<2x3x4x5x1xf32>
// CHECK: crest.add %[[S]], %{{.*}} : tensor<2x3x4x5x1xf32>, tensor<2x3x4x5x1xf32>
// CHECK-NOT: crest.matmul
func.func @two_batches(%a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x5xf32>, %c: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>, affine_map<(b0, b1, m, n, k) -> (b0, b1, k, n)>, affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) outs(%c : tensor<2x3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x5xf32>
  return %r : tensor<2x3x4x5xf32>
}

// -----

// linalg.reduce, map, elementwise and copy through their generic forms;
// integer elementwise and signed comparisons.
// CHECK-LABEL: func.func @more_named
// CHECK: %[[R:.*]] = crest.reduce_max %arg0 dims [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: %[[R2:.*]] = crest.reshape %[[R]] : tensor<4x1xf32> to tensor<4xf32>
// CHECK: %[[M:.*]] = crest.mul %[[R2]], %[[R2]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[E:.*]] = crest.exp %[[M]] : tensor<4xf32>
// CHECK: %[[A:.*]] = crest.add %arg1, %arg1 : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
// CHECK: %[[G:.*]] = crest.less %[[A]], %arg1 : tensor<4xi32>, tensor<4xi32> -> tensor<4xi1>
// CHECK: return %[[E]], %[[G]]
func.func @more_named(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  %sq = linalg.map ins(%r, %r : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>)
    (%a: f32, %b: f32, %o: f32) {
      %p = arith.mulf %a, %b : f32
      linalg.yield %p : f32
    }
  %ex = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%sq : tensor<4xf32>) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.copy ins(%ex : tensor<4xf32>) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %s = linalg.add ins(%i, %i : tensor<4xi32>, tensor<4xi32>) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %eb = tensor.empty() : tensor<4xi1>
  %lt = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s, %i : tensor<4xi32>, tensor<4xi32>) outs(%eb : tensor<4xi1>) {
  ^bb0(%a: i32, %b: i32, %o: i1):
    %l = arith.cmpi slt, %a, %b : i32
    linalg.yield %l : i1
  } -> tensor<4xi1>
  return %c, %lt : tensor<4xf32>, tensor<4xi1>
}

// -----

// The other convolution layouts: NHWC with an FHWC filter, a depthwise HWCM
// filter (output channel c * M + m), and NHWC sum pooling.
// CHECK-LABEL: func.func @layouts
// (A 1x1 filter: FHWC to FCHW moves unit dimensions only, a reshape.)
// CHECK: %[[F:.*]] = crest.reshape %arg1 : tensor<4x1x1x2xf32> to tensor<4x2x1x1xf32>
// CHECK: %[[C:.*]] = crest.conv2d %{{.*}}, %[[F]] precision {{.*}} -> tensor<1x4x3x3xf32>
// CHECK: %[[W:.*]] = crest.reshape %{{.*}} : tensor<8x3x3xf32> to tensor<8x1x3x3xf32>
// CHECK: %[[D:.*]] = crest.conv2d %[[C]], %[[W]] groups 4 precision {{.*}} : tensor<1x4x3x3xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x1x1xf32>
// CHECK: crest.reshape %[[D]] : tensor<1x8x1x1xf32> to tensor<1x1x1x4x2xf32>
// CHECK: %[[P:.*]] = crest.avg_pool2d %{{.*}} kernel [3, 3] count_include_pad : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf32>
// CHECK: crest.mul %[[P]], %{{.*}} : tensor<1x4x1x1xf32>, tensor<f32> -> tensor<1x4x1x1xf32>
func.func @layouts(%x: tensor<1x3x3x2xf32>, %w: tensor<4x1x1x2xf32>, %dw: tensor<3x3x4x2xf32>) -> (tensor<1x1x1x4x2xf32>, tensor<1x1x1x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x3x2xf32>, tensor<4x1x1x2xf32>) outs(%f : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %e2 = tensor.empty() : tensor<1x1x1x4x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x1x4x2xf32>) -> tensor<1x1x1x4x2xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %dw : tensor<1x3x3x4xf32>, tensor<3x3x4x2xf32>) outs(%f2 : tensor<1x1x1x4x2xf32>) -> tensor<1x1x1x4x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e3 = tensor.empty() : tensor<1x1x1x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %win : tensor<1x3x3x4xf32>, tensor<3x3xf32>) outs(%f3 : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  return %d, %p : tensor<1x1x1x4x2xf32>, tensor<1x1x1x4xf32>
}

// -----

// Weights in dense_resource blobs (torch-mlir's form) become dense elements:
// [1.0, 2.0] and [3.0, 4.0] as little-endian f32 after the blob's alignment.
// CHECK-LABEL: func.func @resource
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: crest.matmul %arg0, %[[W]]
func.func @resource(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<weights> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
