// RUN: crest-opt %s --crest-fuse-epilogues --split-input-file | FileCheck %s
// RUN: crest-opt %s --crest-fuse-epilogues=remarks --split-input-file --verify-diagnostics -o /dev/null

// Operand prologues: the casts and cheap per-channel arithmetic that
// compute a contraction's operand join its crest.kernel before the
// contraction (crest-lower-to-gpu applies them as the operand is loaded);
// each refusal is a remark with `remarks`.

// CHECK-LABEL: func.func @cast_lhs
// CHECK:         %[[K:.*]] = crest.kernel ins(%arg0, %arg1 : tensor<64x128xf32>, tensor<128x32xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<64x128xf32>, %[[W:.*]]: tensor<128x32xf16>):
// CHECK-NEXT:      %[[C:.*]] = crest.cast %[[X]]
// CHECK-NEXT:      %[[M:.*]] = crest.matmul %[[C]], %[[W]]
// CHECK-NEXT:      %[[R:.*]] = crest.relu %[[M]]
// CHECK-NEXT:      crest.yield %[[R]]
// CHECK:         return %[[K]]
func.func @cast_lhs(%x: tensor<64x128xf32>, %w: tensor<128x32xf16>) -> tensor<64x32xf32> {
  %0 = crest.cast %x : tensor<64x128xf32> to tensor<64x128xf16>
  %1 = crest.matmul %0, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<64x128xf16>, tensor<128x32xf16> -> tensor<64x32xf32>
  %2 = crest.relu %1 : tensor<64x32xf32>
  return %2 : tensor<64x32xf32>
}

// -----

// Squeeze-and-excitation: the per-channel multiply reads the excitation
// (1x16x1x1, broadcast) at every load of the projection's operand, and the
// cast after it joins too. The sigmoid of the pooled features is the
// pool's epilogue (in a real network it is the excitation convolution's).
// CHECK-LABEL: func.func @excite
// CHECK:         %[[S:.*]] = crest.kernel ins(%arg0 : tensor<1x16x8x8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[P:.*]] = crest.global_avg_pool2d
// CHECK-NEXT:      crest.sigmoid %[[P]]
// CHECK:         crest.kernel ins(%arg0, %[[S]], %arg1
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.mul
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.conv2d
// CHECK-NEXT:      crest.yield
func.func @excite(%x: tensor<1x16x8x8xf32>, %w: tensor<24x16x1x1xf16>) -> tensor<1x24x8x8xf32> {
  // expected-remark @below {{reads its input through 0 op(s) and stores its result through 1 op(s), which join its kernel}}
  %p = crest.global_avg_pool2d %x : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
  %s = crest.sigmoid %p : tensor<1x16x1x1xf32>
  %m = crest.mul %x, %s : tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32> -> tensor<1x16x8x8xf32>
  %c = crest.cast %m : tensor<1x16x8x8xf32> to tensor<1x16x8x8xf16>
  %y = crest.conv2d %c, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x16x8x8xf16>, tensor<24x16x1x1xf16> -> tensor<1x24x8x8xf32>
  return %y : tensor<1x24x8x8xf32>
}

// -----

// A multiply by a tensor of the operand's own size would double what
// every load of the operand reads: refused, and the cast after it stays
// with it (one elementwise kernel, which then stores f16).
// CHECK-LABEL: func.func @full_size_other
// CHECK:         %[[E:.*]] = crest.kernel ins(%arg0, %arg1
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.mul
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.yield
// CHECK:         crest.matmul %[[E]], %arg2
func.func @full_size_other(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> {
  // expected-remark @below {{not fused into the lhs loads of 'crest.matmul': it reads another tensor of the operand's size, which every load of the operand would load again}}
  %m = crest.mul %x, %y : tensor<16x64xf32>, tensor<16x64xf32> -> tensor<16x64xf32>
  %c = crest.cast %m : tensor<16x64xf32> to tensor<16x64xf16>
  %r = crest.matmul %c, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A multiply by a scalar (an fp8 quantisation scale) and the cast join;
// the reshape between moves above both.
// CHECK-LABEL: func.func @scalar_scale
// CHECK:         %[[R:.*]] = crest.reshape %{{.*}} : tensor<1x16x64xf32> to tensor<16x64xf32>
// CHECK-NEXT:    crest.kernel ins(%[[R]], %arg1
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      crest.mul
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.matmul
func.func @scalar_scale(%x: tensor<1x16x64xf32>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %n = crest.softmax %x : tensor<1x16x64xf32>
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %m = crest.mul %n, %c2 : tensor<1x16x64xf32>, tensor<f32> -> tensor<1x16x64xf32>
  %c = crest.cast %m : tensor<1x16x64xf32> to tensor<1x16x64xf16>
  %r = crest.reshape %c : tensor<1x16x64xf16> to tensor<16x64xf16>
  %y = crest.matmul %r, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A reshape between the cast and the matmul (layer_norm -> cast -> reshape
// in an exported encoder) moves above the cast, which then joins.
// CHECK-LABEL: func.func @reshape_between
// CHECK:         %[[N:.*]] = crest.softmax %arg0
// CHECK-NEXT:    %[[R:.*]] = crest.reshape %[[N]] : tensor<1x16x64xf32> to tensor<16x64xf32>
// CHECK-NEXT:    crest.kernel ins(%[[R]], %arg1 : tensor<16x64xf32>, tensor<64x32xf16>)
// CHECK:           crest.cast
// CHECK-NEXT:      crest.matmul
func.func @reshape_between(%x: tensor<1x16x64xf32>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %n = crest.softmax %x : tensor<1x16x64xf32>
  %c = crest.cast %n : tensor<1x16x64xf32> to tensor<1x16x64xf16>
  %r = crest.reshape %c : tensor<1x16x64xf16> to tensor<16x64xf16>
  %y = crest.matmul %r, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// A cast that ends the previous contraction's epilogue stays there (it is
// computed once per element, not at every load).
// CHECK-LABEL: func.func @epilogue_first
// CHECK:         %[[A:.*]] = crest.kernel
// CHECK:           crest.matmul
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.yield
// CHECK:         crest.matmul %[[A]], %arg2
func.func @epilogue_first(%x: tensor<16x64xf16>, %w: tensor<64x64xf16>, %v: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %0 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf32>
  %1 = crest.cast %0 : tensor<16x64xf32> to tensor<16x64xf16>
  %2 = crest.matmul %1, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

// Refused: a grouped convolution's direct kernel has no operand prologue.
// CHECK-LABEL: func.func @grouped
// CHECK:         crest.cast
// CHECK-NEXT:    crest.conv2d
func.func @grouped(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf16>) -> tensor<1x8x4x4xf32> {
  // expected-remark @below {{not fused into the lhs loads of 'crest.conv2d': a grouped convolution's direct kernel reads its operands without a prologue}}
  %0 = crest.cast %x : tensor<1x8x6x6xf32> to tensor<1x8x6x6xf16>
  %1 = crest.conv2d %0, %w groups 8 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x8x6x6xf16>, tensor<8x1x3x3xf16> -> tensor<1x8x4x4xf32>
  return %1 : tensor<1x8x4x4xf32>
}

// -----

// Refused: a transcendental would be recomputed at every load; the cast
// after it stays with it (tanh and cast are one elementwise kernel).
// CHECK-LABEL: func.func @expensive
// CHECK:         %[[T:.*]] = crest.kernel ins(%arg0
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.tanh
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.yield
// CHECK:         crest.matmul %[[T]], %arg1
func.func @expensive(%x: tensor<16x64xf32>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> {
  // expected-remark @below {{not fused into the lhs loads of 'crest.matmul': only casts and simple arithmetic join an operand's loads, where they are recomputed at every load}}
  %0 = crest.tanh %x : tensor<16x64xf32>
  %1 = crest.cast %0 : tensor<16x64xf32> to tensor<16x64xf16>
  %2 = crest.matmul %1, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

// Refused: the cast's result is also returned, so it is computed anyway.
// CHECK-LABEL: func.func @other_use
// CHECK:         %[[C:.*]] = crest.cast %arg0
// CHECK-NEXT:    crest.matmul %[[C]], %arg1
func.func @other_use(%x: tensor<16x64xf32>, %w: tensor<64x32xf16>) -> (tensor<16x32xf32>, tensor<16x64xf16>) {
  // expected-remark @below {{not fused into the lhs loads of 'crest.matmul': its result has other uses, which would still need it computed on its own}}
  %0 = crest.cast %x : tensor<16x64xf32> to tensor<16x64xf16>
  %1 = crest.matmul %0, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %1, %0 : tensor<16x32xf32>, tensor<16x64xf16>
}

// -----

// Refused: a fifth op (each is recomputed at every load); the chain stays
// with it, one elementwise kernel.
// CHECK-LABEL: func.func @long_chain
// CHECK:         %[[A:.*]] = crest.kernel ins(%arg0
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.abs
// CHECK-NEXT:      crest.neg
// CHECK-NEXT:      crest.relu
// CHECK-NEXT:      crest.neg
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.yield
// CHECK:         crest.matmul %[[A]], %arg1
func.func @long_chain(%x: tensor<16x64xf32>, %w: tensor<64x32xf16>) -> tensor<16x32xf32> {
  // expected-remark @below {{not fused into the lhs loads of 'crest.matmul': the prologue already has 4 ops, the most one operand's loads take}}
  %0 = crest.abs %x : tensor<16x64xf32>
  %1 = crest.neg %0 : tensor<16x64xf32>
  %2 = crest.relu %1 : tensor<16x64xf32>
  %3 = crest.neg %2 : tensor<16x64xf32>
  %4 = crest.cast %3 : tensor<16x64xf32> to tensor<16x64xf16>
  %5 = crest.matmul %4, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}

// -----

// A cast feeding only contraction operands (the input of Q, K and V
// projections) is copied into each one's loads; its own kernel goes.
// CHECK-LABEL: func.func @shared_cast
// CHECK-NOT:     crest.cast
// CHECK:         crest.kernel ins(%arg0, %arg1
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.matmul
// CHECK:         crest.kernel ins(%arg0, %arg2
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.matmul
// CHECK-NOT:     crest.cast
// CHECK:         return
func.func @shared_cast(%x: tensor<16x64xf32>, %wq: tensor<64x32xf16>, %wk: tensor<64x32xf16>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %0 = crest.cast %x : tensor<16x64xf32> to tensor<16x64xf16>
  %1 = crest.matmul %0, %wq precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  %2 = crest.matmul %0, %wk precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %1, %2 : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// One cast read as both operands: no prologue (a prologue op belongs to
// one operand; crest.kernel's verifier refuses one feeding both).
// CHECK-LABEL: func.func @both_operands
// CHECK:         %[[C:.*]] = crest.cast %arg0
// CHECK-NEXT:    crest.matmul %[[C]], %[[C]]
func.func @both_operands(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = crest.cast %x : tensor<64x64xf32> to tensor<64x64xf16>
  %1 = crest.matmul %0, %0 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// Casts of slices and transposes of a contraction's result move above the
// data movement, become one cast, and join that contraction's epilogue:
// the data movement moves f16 and no cast is a kernel (the Q, K and V of
// an exported encoder's fused projection).
// CHECK-LABEL: func.func @cast_above_data_movement
// CHECK:         %[[K:.*]] = crest.kernel ins(%arg0, %arg1 : tensor<16x64xf16>, tensor<64x128xf16>) -> tensor<16x128xf16>
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.matmul
// CHECK-NEXT:      crest.cast
// CHECK-NEXT:      crest.yield
// CHECK-DAG:     %[[A:.*]] = crest.slice %[[K]] offsets [0, 0] : tensor<16x128xf16> -> tensor<16x64xf16>
// CHECK-DAG:     %[[B:.*]] = crest.slice %[[K]] offsets [0, 64] : tensor<16x128xf16> -> tensor<16x64xf16>
// CHECK:         %[[T:.*]] = crest.transpose %[[B]] permutation [1, 0] : tensor<16x64xf16> -> tensor<64x16xf16>
// CHECK-NOT:     crest.cast
// CHECK:         crest.matmul %[[A]], %[[T]]
func.func @cast_above_data_movement(%x: tensor<16x64xf16>, %w: tensor<64x128xf16>) -> tensor<16x16xf32> {
  %0 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x128xf16> -> tensor<16x128xf32>
  %1 = crest.slice %0 offsets [0, 0] : tensor<16x128xf32> -> tensor<16x64xf32>
  %2 = crest.slice %0 offsets [0, 64] : tensor<16x128xf32> -> tensor<16x64xf32>
  %3 = crest.transpose %2 permutation [1, 0] : tensor<16x64xf32> -> tensor<64x16xf32>
  %a = crest.cast %1 : tensor<16x64xf32> to tensor<16x64xf16>
  %b = crest.cast %3 : tensor<64x16xf32> to tensor<64x16xf16>
  %4 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf32>
  return %4 : tensor<16x16xf32>
}

// -----

// Refused: a bool tensor cast to the operand type (the loads read vectors,
// and i1 is not byte-addressed).
// CHECK-LABEL: func.func @bool_source
// CHECK:         %[[C:.*]] = crest.cast %arg1
// CHECK-NEXT:    crest.matmul %arg0, %[[C]]
func.func @bool_source(%x: tensor<16x64xf16>, %m: tensor<64x32xi1>) -> tensor<16x32xf32> {
  // expected-remark @below {{not fused into the rhs loads of 'crest.matmul': the operand's loads cannot read a bool tensor as vectors}}
  %0 = crest.cast %m : tensor<64x32xi1> to tensor<64x32xf16>
  %1 = crest.matmul %x, %0 precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
  return %1 : tensor<16x32xf32>
}
