// An unknown chip or an unsupported wave size fails the pass on the module,
// before anything is verified against a chip (so no crest op diagnostics):
// RUN: not crest-opt %s -split-input-file --crest-attach-target=chip=gfx1030 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not="error: 'crest."
// RUN: not crest-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(crest-attach-target{chip=gfx942 wave-size=32})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WAVE32 --implicit-check-not="error: 'crest."
// RUN: not crest-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(crest-attach-target{chip=gfx1100 wave-size=16})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WAVE16 --implicit-check-not="error: 'crest."
//
// A known chip attaches, and the module is verified against it afterwards:
// RUN: crest-opt %s -split-input-file --crest-attach-target=chip=gfx950 -verify-diagnostics
// The pass verifies the module itself, without the pass manager's check:
// RUN: crest-opt %s -split-input-file --crest-attach-target=chip=gfx950 --verify-each=false -verify-diagnostics

// One error per split chunk (5 chunks).
// WAVE32-COUNT-5: error: gfx942 does not run wave32; supported wave sizes: 64
// WAVE16-COUNT-5: error: gfx1100 does not run wave16; supported wave sizes: 32 64

// No target yet; the FNUZ fp8 contraction verifies until gfx950 (OCP fp8)
// is attached.
// UNKNOWN: attach-target-invalid.mlir:[[@LINE+1]]:1: error: unknown chip 'gfx1030'; known chips: gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201
module {
  func.func @fp8_fnuz(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E4M3FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for f8E4M3FNUZ x f8E4M3FNUZ -> f32; gfx950 reads fp8 as OCP (f8E4M3FN, f8E5M2); it supports f32 x f32 -> f32, f16 x f16 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
           : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E4M3FNUZ> -> tensor<64x64xf32>
    return
  }
}

// -----

// The pass replaces an existing target: legal on gfx942, illegal on gfx950.
// UNKNOWN: attach-target-invalid.mlir:[[@LINE+1]]:1: error: unknown chip 'gfx1030'
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @replaced_target(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E5M2FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for f8E4M3FNUZ x f8E5M2FNUZ -> f32; gfx950 reads fp8 as OCP (f8E4M3FN, f8E5M2)}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = f32>
           : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E5M2FNUZ> -> tensor<64x64xf32>
    return
  }
}

// -----

// xf32 exists on gfx942 only.
// UNKNOWN: attach-target-invalid.mlir:[[@LINE+1]]:1: error: unknown chip 'gfx1030'
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @xf32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for tf32 x tf32 -> f32; it supports f32 x f32 -> f32, f16 x f16 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    return
  }
}

// -----

// Configs are checked too, including a kernel's: this gfx90a spelling is
// legal without a target and unknown to gfx950.
// UNKNOWN: attach-target-invalid.mlir:[[@LINE+1]]:1: error: unknown chip 'gfx1030'
module {
  func.func @kernel_config(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>) {
    // expected-error @+1 {{'crest.kernel' op config names 'v_mfma_f32_32x32x8f16', which gfx950 does not have; its instructions for f16 x f16 -> f32: v_mfma_f32_32x32x16_f16, v_mfma_f32_16x16x32_f16, v_mfma_f32_32x32x8_f16, v_mfma_f32_16x16x16_f16, v_mfma_f32_32x32x4_2b_f16, v_mfma_f32_16x16x4_4b_f16, v_mfma_f32_4x4x4_16b_f16}}
    %y = crest.kernel ins(%x, %w : tensor<64x256xf16>, tensor<256x128xf16>)
           config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<256x128xf16>):
      %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             : tensor<64x256xf16>, tensor<256x128xf16> -> tensor<64x128xf32>
      crest.yield %0 : tensor<64x128xf32>
    }
    return
  }
}

// -----

// Legal on every chip the runs name: only the pass option can fail.
// UNKNOWN: attach-target-invalid.mlir:[[@LINE+1]]:1: error: unknown chip 'gfx1030'
module {
  func.func @legal(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}
