// RUN: crest-opt %s --crest-fuse-epilogues --split-input-file | FileCheck %s
// RUN: crest-opt %s --crest-fuse-epilogues=remarks --split-input-file --verify-diagnostics -o /dev/null
// RUN: crest-opt %s --crest-fuse-epilogues=prologues=0 --split-input-file | FileCheck %s --check-prefix=OFF

// A fused QKV projection's output cut into Q, K and V by slices, split into
// heads by reshapes and transposed to [B, H, L, D], and the result merged
// back to [B, L, H * D]: the eleven ops join the attention's crest.kernel,
// which reads the one packed input and stores the merged heads through
// them (docs/Attention.md). With prologues=0 they stay kernels of their
// own.
// CHECK-LABEL: func.func @packed_qkv
// CHECK:         %[[K:.*]] = crest.kernel ins(%arg0 : tensor<1x8x96xf16>) -> tensor<1x8x32xf32>
// CHECK-COUNT-3:   crest.slice
// CHECK-COUNT-3:   crest.reshape
// CHECK-COUNT-3:   crest.transpose
// CHECK-NEXT:      %[[O:.*]] = crest.attention
// CHECK-NEXT:      %[[T:.*]] = crest.transpose %[[O]] permutation [0, 2, 1, 3]
// CHECK-NEXT:      %[[M:.*]] = crest.reshape %[[T]]
// CHECK-NEXT:      crest.yield %[[M]]
// CHECK:         return %[[K]]
// OFF-LABEL: func.func @packed_qkv
// OFF-NOT:   crest.kernel
// OFF:       crest.attention
func.func @packed_qkv(%x: tensor<1x8x96xf16>) -> tensor<1x8x32xf32> {
  %qs = crest.slice %x offsets [0, 0, 0] : tensor<1x8x96xf16> -> tensor<1x8x32xf16>
  %ks = crest.slice %x offsets [0, 0, 32] : tensor<1x8x96xf16> -> tensor<1x8x32xf16>
  %vs = crest.slice %x offsets [0, 0, 64] : tensor<1x8x96xf16> -> tensor<1x8x32xf16>
  %qh = crest.reshape %qs : tensor<1x8x32xf16> to tensor<1x8x2x16xf16>
  %kh = crest.reshape %ks : tensor<1x8x32xf16> to tensor<1x8x2x16xf16>
  %vh = crest.reshape %vs : tensor<1x8x32xf16> to tensor<1x8x2x16xf16>
  %q = crest.transpose %qh permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  %k = crest.transpose %kh permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  %v = crest.transpose %vh permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  // expected-remark @below {{reads its operands through 9 reshape(s), slice(s) and transpose(s) and stores its result through 2 reshape(s) and transpose(s), which join its kernel}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
  %t = crest.transpose %o permutation [0, 2, 1, 3] : tensor<1x2x8x16xf32> -> tensor<1x8x2x16xf32>
  %m = crest.reshape %t : tensor<1x8x2x16xf32> to tensor<1x8x32xf32>
  return %m : tensor<1x8x32xf32>
}

// -----

// A transpose that moves the head dimension (K given transposed) would make
// the rows strided in the input: it stays a kernel, and so does everything
// above it; Q's and V's transposes still join.
// CHECK-LABEL: func.func @strided_key
// CHECK:         %[[T:.*]] = crest.transpose %arg1 permutation [0, 1, 3, 2]
// CHECK-NEXT:    crest.kernel ins(%arg0, %arg2, %[[T]] :
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      crest.transpose
// CHECK-NEXT:      crest.transpose
// CHECK-NEXT:      crest.attention
func.func @strided_key(%qh: tensor<1x8x2x16xf16>, %kt: tensor<1x2x16x8xf16>, %vh: tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf32> {
  %q = crest.transpose %qh permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  %k = crest.transpose %kt permutation [0, 1, 3, 2] : tensor<1x2x16x8xf16> -> tensor<1x2x8x16xf16>
  %v = crest.transpose %vh permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  // expected-remark @below {{reads its operands through 2 reshape(s), slice(s) and transpose(s) and stores its result through 0 reshape(s) and transpose(s), which join its kernel}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// A view whose value has another use is still needed on its own: the
// attention reads it as it is.
// CHECK-LABEL: func.func @shared_view
// CHECK:         %[[T:.*]] = crest.transpose %arg0
// CHECK-NOT:     crest.kernel
// CHECK:         crest.attention %[[T]], %[[T]], %arg1
func.func @shared_view(%x: tensor<1x8x2x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  %t = crest.transpose %x permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
  %o = crest.attention %t, %t, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// The log-sum-exp is used before the last op the kernel takes: the block is
// re-sorted so that the kernel comes before that use.
// CHECK-LABEL: func.func @lse_used_early
// CHECK:         %[[K:.*]]:2 = crest.kernel ins(%arg0, %arg1, %arg2
// CHECK:         crest.neg %[[K]]#1
// CHECK:         return %[[K]]#0
func.func @lse_used_early(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> (tensor<1x8x32xf32>, tensor<1x2x8xf32>) {
  // expected-remark @below {{reads its operands through 0 reshape(s), slice(s) and transpose(s) and stores its result through 2 reshape(s) and transpose(s), which join its kernel}}
  %o, %l = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  %t = crest.transpose %o permutation [0, 2, 1, 3] : tensor<1x2x8x16xf32> -> tensor<1x8x2x16xf32>
  %n = crest.neg %l : tensor<1x2x8xf32>
  %m = crest.reshape %t : tensor<1x8x2x16xf32> to tensor<1x8x32xf32>
  return %m, %n : tensor<1x8x32xf32>, tensor<1x2x8xf32>
}
