// RUN: crest-opt %s --split-input-file --crest-lower-attention | FileCheck %s

// Prefill, 2 heads of 64 queries (two row blocks of 32 per head: 32x32x8
// f16 MFMAs), head dim 64: one kernel of one wave per workgroup (V goes
// through a wave-private [dv][key] LDS buffer of 64 x (64 + 4) halves, the
// 64 keys of a block padded by one fragment), grid [row blocks, heads,
// batch]; the scores' products, the maximum and sum across the lanes of a
// row (gpu.shuffle xor 32: a 32x32 accumulator's column lives in lanes j
// and j + 32), exp2, and the P V products; no barrier (a single wave).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  // CHECK-LABEL: func.func @prefill
  // CHECK: crest.attention
  // CHECK-SAME: crest.launch = #crest.launch<kernel = @crest_kernels::@prefill_attention_0, grid = [2, 2, 1], block = [64, 1, 1]>
  func.func @prefill(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x64x64xf16>,
                     %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
    %o = crest.attention %q, %k, %v causal = top_left
           qk <lhs = f16, rhs = f16, acc = f32, out = f32>
           pv <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
    return %o : tensor<1x2x64x64xf16>
  }
}
// CHECK: gpu.module @crest_kernels
// CHECK: gpu.func @prefill_attention_0(
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<64x68xf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: scf.for
// The block's V rows into LDS, 4 keys of one dv per store.
// CHECK: vector.load %arg2{{.*}} vector<8xf16>
// The scores: 2 key tiles x 8 K steps of 32x32x8.
// CHECK-COUNT-16: amdgpu.mfma 32x32x8
// CHECK: vector.store %{{.*}}, %[[LDS]]{{.*}} vector<4xf16>
// The V^T fragments, read back from LDS (the same wave: in order, no wait).
// CHECK: vector.load %[[LDS]]{{.*}} vector<4xf16>
// CHECK: gpu.shuffle xor
// CHECK: rocdl.exp2
// The P V products: 2 key tiles x 4 steps x 2 value tiles.
// CHECK-COUNT-16: amdgpu.mfma 32x32x8
// CHECK: scf.yield
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// Decode with grouped-query heads (8 query heads on 2 key/value heads: 4
// rows per key/value head, 16x16x16 MFMAs) over 4096 keys: the key sequence
// is split across workgroups (64 key blocks, at most 304 CUs / 2 waves
// splits of at least 4 blocks: 16 splits), with a lane-private workspace
// (per split, row block and lane: 8 value tiles x 4 accumulators; the
// maximum and the sum), one semaphore per row block, and an atomic
// arrival.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  // CHECK-LABEL: func.func @decode
  // CHECK: crest.launch = #crest.launch<kernel = @crest_kernels::@decode_attention_0, grid = [16, 2, 1], block = [64, 1, 1], workspace = [tensor<16x2x64x32xf32>, tensor<16x2x64x2xf32>], semaphores = [tensor<2xi32>]>
  func.func @decode(%q: tensor<1x8x1x128xf16>, %k: tensor<1x2x4096x128xf16>,
                    %v: tensor<1x2x4096x128xf16>, %len: tensor<1xi32>)
      -> (tensor<1x8x1x128xf16>, tensor<1x8x1xf32>) {
    %o, %lse = crest.attention %q, %k, %v kv_length %len : tensor<1xi32>
           causal = bottom_right
           qk <lhs = f16, rhs = f16, acc = f32, out = f32>
           pv <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<1x8x1x128xf16>, tensor<1x2x4096x128xf16>, tensor<1x2x4096x128xf16> -> tensor<1x8x1x128xf16>, tensor<1x8x1xf32>
    return %o, %lse : tensor<1x8x1x128xf16>, tensor<1x8x1xf32>
  }
}
// CHECK: gpu.func @decode_attention_0(
// CHECK-SAME: memref<16x2x64x32xf32, #gpu.address_space<global>>, %{{.*}}: memref<16x2x64x2xf32, #gpu.address_space<global>>, %{{.*}}: memref<2xi32, #gpu.address_space<global>>)
// CHECK: amdgpu.mfma 16x16x16
// CHECK: gpu.shuffle xor
// CHECK: llvm.fence syncscope("agent") release
// CHECK: memref.atomic_rmw addi
// CHECK: gpu.shuffle idx
// CHECK: llvm.fence syncscope("agent") acquire
// CHECK: rocdl.log
