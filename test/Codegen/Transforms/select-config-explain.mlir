// RUN: crest-opt %s --split-input-file --crest-select-config=explain -verify-diagnostics -o /dev/null
// RUN: not crest-opt %s --split-input-file --crest-select-config="min-waves-per-simd=9" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OCC

// With `explain`, a remark states the choice and its cost: 2 stages of a
// 128x32 and a 32x128 f16 tile, K rows padded by 8 elements to 40, = 2 *
// (128*40 + 128*40) * 2 bytes = 40960 bytes of LDS (what the kernel
// allocates); 64 KiB of LDS holds one such workgroup per CU, 4 waves over 4
// SIMDs = 1 wave per SIMD.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @large(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
    // expected-remark @+1 {{selected v_mfma_f32_32x32x8_f16, tiles 128x128x32, 4 waves of 64x64, workgroup scope, 2 stage(s): 40960 bytes of LDS, about 96 VGPRs, 1 waves per SIMD}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<4096x4096xf16>, tensor<4096x4096xf16> -> tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }
}

// -----

// A latency-bound 8x128x4096 with a transposed rhs (not the skinny path):
// one 16x16 wave per workgroup makes 8 workgroups for 4096 / 32 = 128 K
// steps, so K is split 16 ways (the most a workgroup holds; 8 x 16 = 128
// waves, under one per SIMD): the partial sums of 15 slices are 15 * 16 *
// 16 * 4 = 15360 bytes of LDS; 4 (acc) + 2 + 2 (fragments) + 24 VGPRs; 8
// waves per SIMD (the chip's maximum).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gemv_split(%a: tensor<8x4096xf16>, %b: tensor<128x4096xf16>) -> tensor<8x128xf32> {
    // expected-remark @+2 {{selected v_mfma_f32_16x16x16_f16, tiles 16x16x32, 16 waves of 16x16, wavefront scope, 1 stage(s): 15360 bytes of LDS, about 32 VGPRs, 8 waves per SIMD}}
    // expected-remark @+1 {{split_k = 16: 8 workgroup(s) x 16 K slices of 1 wave(s) = 128 waves (at most one per SIMD: 1216) for 128 K steps; each slice accumulates every 16th step (8 steps instead of 128) and the partial sums are added through 15360 bytes of LDS}}
    %0 = crest.matmul %a, %b transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x4096xf16>, tensor<128x4096xf16> -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// The same with a row-major 4096 x 128 rhs (1 MiB) takes the skinny path:
// one workgroup of 8 waves (a 16 x 128 tile each, every 8th of the 128 K
// steps), 16-byte B loads; the partial sums of the 8 rows inside M are
// 8 * 8 * 128 * 4 = 32768 bytes; 32 (acc) + 2 stages x 2 instruction K x
// (16 rhs + 2 lhs registers) + 24 = 128 VGPRs, 4 waves per SIMD. One tile
// on 304 CUs: K is split across 128 / 8 = 16 workgroups (a step per wave).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gemv_skinny(%a: tensor<8x4096xf16>, %b: tensor<4096x128xf16>) -> tensor<8x128xf32> {
    // expected-remark @+3 {{global_split_k = 16: 16 workgroups per output tile each add up 1/16 of the K steps (limits: 8 waves per compute unit, a K step per wave, partial sums at most 1/8 of B's bytes); the last to arrive adds the partials in group order}}
    // expected-remark @+2 {{selected v_mfma_f32_16x16x16_f16, tiles 16x128x32, 8 waves of 16x128, wavefront scope, 2 stage(s): 32768 bytes of LDS, about 128 VGPRs, 4 waves per SIMD}}
    // expected-remark @+1 {{skinny path: rhs_vector = 8 (16-byte B loads along N, transposed in registers), 8 wave(s) each accumulating every 8th K step, partial sums added through 32768 bytes of LDS}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x4096xf16>, tensor<4096x128xf16> -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// No target: the pass says what to run first.
// expected-error @+1 {{crest-select-config needs a #crest.target on the module (run crest-attach-target first)}}
module {
  func.func @no_target(%a: tensor<16x16xf16>) -> tensor<16x16xf32> {
    %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
}

// OCC: error: 'crest.matmul' op no kernel configuration fits gfx942 (scope = workgroup, stages = 2)
// gfx942 allows at most 8 waves per SIMD, so 9 rejects every candidate,
// and each is listed with its reason.
// OCC-COUNT-14: note: v_mfma_f32_{{32x32x8|16x16x16}}_f16 with tiles {{[0-9]+}}x{{[0-9]+}}x32 (waves {{[0-9]+}}x{{[0-9]+}}): allows {{[0-9]}} waves per SIMD; at least 9 requested
