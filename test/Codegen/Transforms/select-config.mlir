// RUN: crest-opt %s --split-input-file --crest-select-config | FileCheck %s

// A large f16 GEMM on gfx942: the 32x32x8 and 16x16x16 f16 MFMAs have the
// same rate (2*32*32*8/32 = 2*16*16*16/16 = 512 flops per cycle per SIMD)
// and no padding at 4096, and 4096/128 squared = 1024 workgroups is plenty,
// so the largest tile wins; 4 waves of 64x64, 2 LDS stages, K = 32 (64
// bytes of f16).
// CHECK-LABEL: func.func @large
// CHECK: config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 32], wave_tile = [64, 64], scope = workgroup, stages = 2>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<4096x4096xf16>, tensor<4096x4096xf16> -> tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }
}

// -----

// Batch 1 (M = 1) with row-major f16 weights of 576 x 1000 (1.1 MB): the
// skinny path, 16x16 instructions, a wave of 16 x 8 = 128 columns with
// 16-byte loads (1000 is a multiple of 8), ceil(576/32) = 18 K steps: the
// largest power of two up to 8 leaving 2 steps per slice is 8 (one row of
// partial sums, 8 x 128 floats of LDS). ceil(1000 / 128) = 8 tiles of 8
// waves would take 304 * 8 / 64 = 38 workgroups per tile along K to fill
// gfx942's 304 CUs with 8 waves each, but 18 steps give 8 waves a step
// each only twice: global_split_k = 2.
// CHECK-LABEL: func.func @gemv
// CHECK: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, stages = 2, split_k = 8, rhs_vector = 8, global_split_k = 2>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gemv(%x: tensor<1x576xf16>, %w: tensor<576x1000xf16>) -> tensor<1x1000xf32> {
    %0 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<1x576xf16>, tensor<576x1000xf16> -> tensor<1x1000xf32>
    return %0 : tensor<1x1000xf32>
  }
}

// -----

// The same with transposed (N x K) weights is not the skinny path, but
// latency-bound: wavefront scope, 16x16 instructions (32x32 would be 31/32
// padding), one per wave. The candidates put 4, 2 or 1 waves side by side
// along N and split K until the grid has one wave per SIMD (304 CUs x 4 =
// 1216), every slice a K step and every workgroup at most 16 waves; the
// most waves wins. One wave per 16x16 tile gives ceil(1000/16) = 63
// workgroups; with 32-deep K steps (18 of them) split 16 gives 63 x 16 =
// 1008 waves (split 32 would exceed 16 waves and 1216); four waves side by
// side would give 16 x 16 = 256.
// CHECK-LABEL: func.func @gemv_transposed
// CHECK: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 32], wave_tile = [16, 16], scope = wavefront, split_k = 16>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gemv_transposed(%x: tensor<1x576xf16>, %w: tensor<1000x576xf16>) -> tensor<1x1000xf32> {
    %0 = crest.matmul %x, %w transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<1x576xf16>, tensor<1000x576xf16> -> tensor<1x1000xf32>
    return %0 : tensor<1x1000xf32>
  }
}

// -----

// gfx90a spells the instructions differently and has the bf16 "_1k" forms.
// 197 pads to 224 with 32x32 tiles (77% useful) but to 208 with 16x16
// (90%), and the two have the same rate on gfx90a (2*32*32*8/64 =
// 2*16*16*16/32 = 256); 197/32 rounded up, squared, is 49 < 64 workgroups,
// so the smallest tile (32x32, four 16x16 waves) is kept. The requested
// sync is honoured.
// CHECK-LABEL: func.func @attention_scores
// CHECK: config <mma = "v_mfma_f32_16x16x16bf16_1k", workgroup_tile = [32, 32, 32], wave_tile = [16, 16], scope = workgroup, stages = 3>
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @attention_scores(%q: tensor<197x64xbf16>, %k: tensor<64x197xbf16>) -> tensor<197x197xf32> {
    %0 = crest.matmul %q, %k precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           sync <scope = workgroup, stages = 3>
           : tensor<197x64xbf16>, tensor<64x197xbf16> -> tensor<197x197xf32>
    return %0 : tensor<197x197xf32>
  }
}

// -----

// An explicit config is kept; so is a kernel's.
// CHECK-LABEL: func.func @pinned
// CHECK: config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 16], wave_tile = [32, 32], scope = workgroup>
// CHECK: crest.kernel {{.*}}config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
// CHECK-NOT: config
// CHECK: return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @pinned(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 16], wave_tile = [32, 32], scope = workgroup>
           : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %1 = crest.kernel ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>)
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           -> tensor<64x64xf32> {
    ^bb0(%x: tensor<64x64xf16>, %y: tensor<64x64xf16>):
      %2 = crest.matmul %x, %y precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      crest.yield %2 : tensor<64x64xf32>
    }
    return %1 : tensor<64x64xf32>
  }
}

// -----

// i8 on gfx942 (i32 accumulation): the K step is 64 (64 bytes of i8). Both
// i8 forms do the same work per cycle (2*32*32*16/32 = 2*16*16*32/16 =
// 1024), so the tile decides: 256/64 squared = 16 workgroups is fewer than
// 64 and 256/32 squared = 64 is enough, so 32x32.
// CHECK-LABEL: func.func @int8
// CHECK: config <mma = "v_mfma_i32_{{32x32x16|16x16x32}}_i8", workgroup_tile = [32, 32, 64]
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @int8(%a: tensor<256x256xi8>, %b: tensor<256x256xi8>) -> tensor<256x256xi32> {
    %0 = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
           : tensor<256x256xi8>, tensor<256x256xi8> -> tensor<256x256xi32>
    return %0 : tensor<256x256xi32>
  }
}

// -----

// Split-K limits: 8x128x4096 (a 1 MiB B: the skinny path, one workgroup
// of 128 columns, 128 K steps) uses the skinny path's most, 8 slices (8
// rows x 128 x 8 floats = 32 KiB of partial sums). 8x32x4096 (not the
// skinny path) takes one wave per 16x16 tile, 2 workgroups, and the
// workgroup's most slices, 16. K = 96 has 3 steps of 32 but 6 of the
// instruction's 16: 8 one-wave workgroups split 4 ways (32 waves) beat 2
// four-wave ones split 2 ways (16). 4096x64 (M and N > 16, 128 x 2
// workgroups of 32x32) is not latency-bound and keeps workgroup scope,
// unsplit.
// The skinny one is a single tile: 128 steps / 8 waves = 16 workgroups along
// K (the partial sums, 16 x 8 x 128 floats written and read, stay within
// 1/8 of B's 1 MiB).
// CHECK-LABEL: func.func @split_limits
// CHECK: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, stages = 2, split_k = 8, rhs_vector = 8, global_split_k = 16>
// CHECK: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 32], wave_tile = [16, 16], scope = wavefront, split_k = 16>
// CHECK: config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront, split_k = 4>
// CHECK: scope = workgroup, stages = 2>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @split_limits(%a: tensor<8x4096xf16>, %b: tensor<4096x128xf16>,
                          %c: tensor<8x4096xf16>, %d: tensor<4096x32xf16>,
                          %e: tensor<8x96xf16>, %f: tensor<96x128xf16>,
                          %g: tensor<4096x4096xf16>, %h: tensor<4096x64xf16>) {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x4096xf16>, tensor<4096x128xf16> -> tensor<8x128xf32>
    %1 = crest.matmul %c, %d precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x4096xf16>, tensor<4096x32xf16> -> tensor<8x32xf32>
    %2 = crest.matmul %e, %f precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x96xf16>, tensor<96x128xf16> -> tensor<8x128xf32>
    %3 = crest.matmul %g, %h precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<4096x4096xf16>, tensor<4096x64xf16> -> tensor<4096x64xf32>
    return
  }
}
