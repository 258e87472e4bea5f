// RUN: crest-opt %s -split-input-file -verify-diagnostics

// Errors that only arise under a `crest.target`: a contraction's precision
// against the chip's matrix instructions, and an explicit #crest.config
// against the chip (instruction, tile shapes, work-items, LDS, accumulator
// registers). The chip facts come from lib/Target/ChipTable.cpp.

//===----------------------------------------------------------------------===//
// Precision against the chip
//===----------------------------------------------------------------------===//

// gfx942 reads fp8 as FNUZ: the OCP types have no instruction there.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @fp8_ocp_on_gfx942(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
    // expected-error @+1 {{'crest.matmul' op gfx942 has no matrix instruction for f8E4M3FN x f8E4M3FN -> f32; gfx942 reads fp8 as FNUZ (f8E4M3FNUZ, f8E5M2FNUZ); it supports f32 x f32 -> f32, tf32 x tf32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64, f8E4M3FNUZ x f8E4M3FNUZ -> f32, f8E4M3FNUZ x f8E5M2FNUZ -> f32, f8E5M2FNUZ x f8E4M3FNUZ -> f32, f8E5M2FNUZ x f8E5M2FNUZ -> f32}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
           : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    return
  }
}

// -----

// The FNUZ types, including mixed fp8/bf8, verify on gfx942.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @fp8_fnuz_on_gfx942(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E5M2FNUZ>) {
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = bf16>
           config <mma = "v_mfma_f32_32x32x16_fp8_bf8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E5M2FNUZ> -> tensor<64x64xbf16>
    return
  }
}

// -----

// gfx950 has the same fp8 mnemonics as gfx942 but reads the OCP encodings.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @fp8_fnuz_on_gfx950(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E4M3FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for f8E4M3FNUZ x f8E4M3FNUZ -> f32; gfx950 reads fp8 as OCP (f8E4M3FN, f8E5M2); it supports f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64, f8E4M3FN x f8E4M3FN -> f32, f8E4M3FN x f8E5M2 -> f32, f8E5M2 x f8E4M3FN -> f32, f8E5M2 x f8E5M2 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E4M3FNUZ> -> tensor<64x64xf32>
    return
  }
}

// -----

// ... and with the OCP types the same instruction verifies there.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @fp8_ocp_on_gfx950(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @fp8_on_gfx90a(%a: tensor<64x32xf8E5M2FNUZ>, %b: tensor<32x64xf8E5M2FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op gfx90a has no matrix instruction for f8E5M2FNUZ x f8E5M2FNUZ -> f32; gfx90a has no fp8 matrix instructions; it supports f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64}}
    %c = crest.matmul %a, %b precision <lhs = f8E5M2FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = f32>
           : tensor<64x32xf8E5M2FNUZ>, tensor<32x64xf8E5M2FNUZ> -> tensor<64x64xf32>
    return
  }
}

// -----

// RDNA3 has no fp8 WMMA; its supported list includes the f16/bf16
// accumulating forms.
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @fp8_on_gfx1100(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>) {
    // expected-error @+1 {{'crest.matmul' op gfx1100 has no matrix instruction for f8E4M3FN x f8E5M2 -> f32; gfx1100 has no fp8 matrix instructions; it supports f16 x f16 -> f32, bf16 x bf16 -> f32, f16 x f16 -> f16, bf16 x bf16 -> bf16, i8 x i8 -> i32}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E5M2, acc = f32, out = f32>
           : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2> -> tensor<64x64xf32>
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx1201">} {
  func.func @fp8_fnuz_on_gfx1201(%x: tensor<1x16x8x8xf8E5M2FNUZ>, %w: tensor<16x16x1x1xf8E5M2FNUZ>) {
    // expected-error @+1 {{'crest.conv2d' op gfx1201 has no matrix instruction for f8E5M2FNUZ x f8E5M2FNUZ -> f32; gfx1201 reads fp8 as OCP (f8E4M3FN, f8E5M2); it supports f16 x f16 -> f32, bf16 x bf16 -> f32, f16 x f16 -> f16, bf16 x bf16 -> bf16, i8 x i8 -> i32, f8E4M3FN x f8E4M3FN -> f32, f8E4M3FN x f8E5M2 -> f32, f8E5M2 x f8E4M3FN -> f32, f8E5M2 x f8E5M2 -> f32}}
    %y = crest.conv2d %x, %w precision <lhs = f8E5M2FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = f32>
           : tensor<1x16x8x8xf8E5M2FNUZ>, tensor<16x16x1x1xf8E5M2FNUZ> -> tensor<1x16x8x8xf32>
    return
  }
}

// -----

// gfx908 has bf16 x bf16 -> f32, but only the old 2 x bf16 forms: the
// precision verifies, the CDNA2 "_1k" instruction does not exist there.
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @bf16_1k_on_gfx908(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) {
    %c = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x4bf16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    // expected-error @+1 {{'crest.matmul' op config names 'v_mfma_f32_32x32x8bf16_1k', which gfx908 does not have; its instructions for bf16 x bf16 -> f32: v_mfma_f32_32x32x4bf16, v_mfma_f32_16x16x8bf16, v_mfma_f32_32x32x2bf16, v_mfma_f32_16x16x2bf16, v_mfma_f32_4x4x2bf16}}
    %d = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8bf16_1k", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// bf16 accumulation is RDNA-only.
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @bf16_acc_on_gfx908(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) {
    // expected-error @+1 {{'crest.matmul' op gfx908 has no matrix instruction for bf16 x bf16 -> bf16; it supports f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32}}
    %c = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = bf16, out = bf16>
           : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xbf16>
    return
  }
}

// -----

// The old 2 x bf16 forms are not listed on gfx942; the candidates are the
// CDNA3 spellings.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @bf16_old_form_on_gfx942(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) {
    // expected-error @+1 {{'crest.matmul' op config names 'v_mfma_f32_32x32x4bf16', which gfx942 does not have; its instructions for bf16 x bf16 -> f32: v_mfma_f32_32x32x8_bf16, v_mfma_f32_16x16x16_bf16, v_mfma_f32_32x32x4_2b_bf16, v_mfma_f32_16x16x4_4b_bf16, v_mfma_f32_4x4x4_16b_bf16}}
    %c = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x4bf16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @f64_on_gfx908(%a: tensor<64x32xf64>, %b: tensor<32x64xf64>) {
    // expected-error @+1 {{'crest.matmul' op gfx908 has no matrix instruction for f64 x f64 -> f64; it supports f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32}}
    %c = crest.matmul %a, %b precision <lhs = f64, rhs = f64, acc = f64, out = f64>
           : tensor<64x32xf64>, tensor<32x64xf64> -> tensor<64x64xf64>
    return
  }
}

// -----

// f16 accumulation: RDNA has it ...
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @f16_acc_on_gfx1100(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f16, out = f16>
           config <mma = "v_wmma_f16_16x16x16_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
    return
  }
}

// -----

// ... CDNA does not.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @f16_acc_on_gfx942(%a: tensor<4x64x32xf16>, %b: tensor<4x32x64xf16>) {
    // expected-error @+1 {{'crest.batch_matmul' op gfx942 has no matrix instruction for f16 x f16 -> f16; it supports f32 x f32 -> f32, tf32 x tf32 -> f32}}
    %c = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f16, out = f16>
           : tensor<4x64x32xf16>, tensor<4x32x64xf16> -> tensor<4x64x64xf16>
    return
  }
}

// -----

// xf32 (precision lhs = tf32 on f32 tensors) is CDNA3-only: it verifies on
// gfx942 ...
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @xf32_on_gfx942(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    %d = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x4_xf32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    return
  }
}

// -----

// ... and is rejected on gfx950, whose list has no xf32.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @xf32_on_gfx950(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for tf32 x tf32 -> f32; it supports f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64, f8E4M3FN x f8E4M3FN -> f32}}
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    return
  }
}

// -----

// The innermost target applies: OCP fp8 verifies in a gfx950 module nested
// in a gfx942 one, and fails in the gfx942 module itself.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  module attributes {crest.target = #crest.target<chip = "gfx950">} {
    func.func @inner(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
      %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
             : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
      return
    }
  }
  module {
    func.func @outer(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
      // expected-error @+1 {{'crest.matmul' op gfx942 has no matrix instruction for f8E4M3FN x f8E4M3FN -> f32; gfx942 reads fp8 as FNUZ}}
      %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
             : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
      return
    }
  }
}

//===----------------------------------------------------------------------===//
// Config against the chip: the instruction
//===----------------------------------------------------------------------===//

// -----

// A gfx90a spelling on gfx942.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gfx90a_mnemonic_on_gfx942(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config names 'v_mfma_f32_32x32x8f16', which gfx942 does not have; its instructions for f16 x f16 -> f32: v_mfma_f32_32x32x8_f16, v_mfma_f32_16x16x16_f16, v_mfma_f32_32x32x4_2b_f16, v_mfma_f32_16x16x4_4b_f16, v_mfma_f32_4x4x4_16b_f16}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// A gfx950-only double-rate form on gfx942.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gfx950_mnemonic_on_gfx942(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
    // expected-error @+1 {{'crest.matmul' op config names 'v_mfma_i32_32x32x32_i8', which gfx942 does not have; its instructions for i8 x i8 -> i32: v_mfma_i32_32x32x16_i8, v_mfma_i32_16x16x32_i8, v_mfma_i32_32x32x4_2b_i8, v_mfma_i32_16x16x4_4b_i8, v_mfma_i32_4x4x4_16b_i8}}
    %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i8>
           config <mma = "v_mfma_i32_32x32x32_i8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi8>
    return
  }
}

// -----

// A WMMA instruction on a CDNA chip.
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @wmma_on_gfx90a(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config names 'v_wmma_f32_16x16x16_f16', which gfx90a does not have; its instructions for f16 x f16 -> f32: v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x16f16, v_mfma_f32_32x32x4f16, v_mfma_f32_16x16x4f16, v_mfma_f32_4x4x4f16}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = wavefront>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// xf32 on gfx950 fails on the precision before the config is looked at.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @xf32_config_on_gfx950(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
    // expected-error @+1 {{'crest.matmul' op gfx950 has no matrix instruction for tf32 x tf32 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x4_xf32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @instruction_type_mismatch(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config instruction v_mfma_f32_32x32x8_bf16 computes bf16 x bf16 -> f32, but the precision is f16 x f16 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_bf16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// The plain f32 instruction does not compute xf32.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @instruction_f32_for_tf32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
    // expected-error @+1 {{'crest.matmul' op config instruction v_mfma_f32_32x32x2_f32 computes f32 x f32 -> f32, but the precision is tf32 x tf32 -> f32}}
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    return
  }
}

// -----

// fp8 x bf8 is not fp8 x fp8.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @instruction_fp8_mismatch(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E5M2FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op config instruction v_mfma_f32_32x32x16_fp8_fp8 computes f8E4M3FNUZ x f8E4M3FNUZ -> f32, but the precision is f8E4M3FNUZ x f8E5M2FNUZ -> f32}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E5M2FNUZ> -> tensor<64x64xf32>
    return
  }
}

// -----

// The accumulator type counts.
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @instruction_acc_mismatch(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config instruction v_wmma_f32_16x16x16_f16 computes f16 x f16 -> f32, but the precision is f16 x f16 -> f16}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f16, out = f16>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf16>
    return
  }
}

//===----------------------------------------------------------------------===//
// Config against the chip: tile shapes
//===----------------------------------------------------------------------===//

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @wave_tile_m_not_multiple(%a: tensor<96x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [48, 32] is not a multiple of v_mfma_f32_32x32x8_f16's 32x32 output}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [96, 64, 32],
                   wave_tile = [48, 32], scope = workgroup>
           : tensor<96x32xf16>, tensor<32x64xf16> -> tensor<96x64xf32>
    return
  }
}

// -----

// 16x16 is a multiple of the 16x16 instruction but not of the 32x32 one.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @wave_tile_n_not_multiple(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 16], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    // expected-error @+1 {{'crest.matmul' op config wave_tile [32, 16] is not a multiple of v_mfma_f32_32x32x8_f16's 32x32 output}}
    %d = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 16], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// RDNA WMMA is 16x16x16.
module attributes {crest.target = #crest.target<chip = "gfx1201">} {
  func.func @wave_tile_wmma(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [8, 32] is not a multiple of v_wmma_i32_16x16x16_iu8's 16x16 output}}
    %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
           config <mma = "v_wmma_i32_16x16x16_iu8", workgroup_tile = [64, 64, 32],
                   wave_tile = [8, 32], scope = wavefront>
           : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
    return
  }
}

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @k_not_multiple(%a: tensor<64x36xf16>, %b: tensor<36x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config workgroup_tile K = 12 is not a multiple of v_mfma_f32_32x32x8_f16's K = 8}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 12],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x36xf16>, tensor<36x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// The fp8 forms have K = 16 (32x32x16).
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @k_not_multiple_fp8(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
    // expected-error @+1 {{'crest.matmul' op config workgroup_tile K = 8 is not a multiple of v_mfma_f32_32x32x16_fp8_fp8's K = 16}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [64, 64, 8],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
    return
  }
}

//===----------------------------------------------------------------------===//
// Config against the chip: work-items per workgroup
//===----------------------------------------------------------------------===//

// -----

// (256 / 32) * (128 / 32) = 32 waves of 64 lanes.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @too_many_work_items(%a: tensor<256x32xf16>, %b: tensor<32x128xf16>) {
    // expected-error @+1 {{'crest.matmul' op config needs 32 waves of 64 lanes = 2048 work-items; a workgroup holds at most 1024}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [256, 128, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<256x32xf16>, tensor<32x128xf16> -> tensor<256x128xf32>
    return
  }
}

// -----

// 16 waves of 64 lanes = 1024 work-items is the limit, not over it.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @work_items_at_limit(%a: tensor<128x32xf16>, %b: tensor<32x128xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<128x32xf16>, tensor<32x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// On RDNA the wave size counts: 32 waves fit in wave32 (1024 work-items) ...
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @work_items_wave32(%a: tensor<256x32xf16>, %b: tensor<32x128xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [256, 128, 32],
                   wave_tile = [32, 32], scope = wavefront>
           : tensor<256x32xf16>, tensor<32x128xf16> -> tensor<256x128xf32>
    return
  }
}

// -----

// ... but not in wave64.
module attributes {crest.target = #crest.target<chip = "gfx1100", wave_size = 64>} {
  func.func @work_items_wave64(%a: tensor<256x32xf16>, %b: tensor<32x128xf16>) {
    // expected-error @+1 {{'crest.matmul' op config needs 32 waves of 64 lanes = 2048 work-items; a workgroup holds at most 1024}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [256, 128, 32],
                   wave_tile = [32, 32], scope = wavefront>
           : tensor<256x32xf16>, tensor<32x128xf16> -> tensor<256x128xf32>
    return
  }
}

// -----

// 64 waves of 32 lanes.
module attributes {crest.target = #crest.target<chip = "gfx1201">} {
  func.func @too_many_work_items_wave32(%a: tensor<256x32xf16>, %b: tensor<32x256xf16>) {
    // expected-error @+1 {{'crest.matmul' op config needs 64 waves of 32 lanes = 2048 work-items; a workgroup holds at most 1024}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [256, 256, 32],
                   wave_tile = [32, 32], scope = wavefront>
           : tensor<256x32xf16>, tensor<32x256xf16> -> tensor<256x256xf32>
    return
  }
}

//===----------------------------------------------------------------------===//
// Config against the chip: LDS
//===----------------------------------------------------------------------===//

// -----

// Each staged K row is padded by 16 bytes (8 f16 elements) so that rows
// start in different banks; the verifier counts the padded layout the
// lowering allocates. f16, 128x56 lhs + 56x128 rhs tiles with rows of
// 56 + 8 = 64 elements = 16384 + 16384 bytes per stage: 2 stages = 65536
// bytes fit gfx942's 64 KiB exactly ...
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @lds_at_limit(%a: tensor<128x56xf16>, %b: tensor<56x128xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 56],
                   wave_tile = [64, 64], scope = workgroup, stages = 2>
           : tensor<128x56xf16>, tensor<56x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// ... while 128x64 tiles fit only without the padding: 2 * (128*64*2 +
// 64*128*2) = 65536 bytes unpadded, 2 * (128*72*2 + 128*72*2) = 73728 as
// allocated, which the verifier rejects (before LLVM fails on it).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @lds_fits_only_unpadded(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) {
    // expected-error @+1 {{'crest.matmul' op config needs 73728 bytes of LDS (2 stages of a 128x64 lhs and a 64x128 rhs tile, K rows padded by 8 elements); gfx942 has 65536 per workgroup}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 64],
                   wave_tile = [64, 64], scope = workgroup, stages = 2>
           : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// The verifier counts the split-K partial sums too (the lowering allocates
// them beside any staged tiles): the partial sums of 3 of 4 K slices of a 64x64 f32 tile need
// 3 * 64 * 64 * 4 = 49152 bytes; gfx90a has 65536 and this fits, but a
// 128x64 tile (98304 bytes) does not.
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @split_k_lds(%a: tensor<128x4096xf16>, %b: tensor<4096x64xf16>) -> tensor<128x64xf32> {
    // expected-error @+1 {{'crest.matmul' op config needs 98304 bytes of LDS (partial sums for split_k = 4); gfx90a has 65536 per workgroup}}
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [128, 64, 32], wave_tile = [64, 64], scope = wavefront, split_k = 4>
           : tensor<128x4096xf16>, tensor<4096x64xf16> -> tensor<128x64xf32>
    return %0 : tensor<128x64xf32>
  }
}

// -----

// 3 stages = 110592 bytes do not either.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @lds_overflow(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) {
    // expected-error @+1 {{'crest.matmul' op config needs 110592 bytes of LDS (3 stages of a 128x64 lhs and a 64x128 rhs tile, K rows padded by 8 elements); gfx942 has 65536 per workgroup}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 64],
                   wave_tile = [64, 64], scope = workgroup, stages = 3>
           : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// gfx950 has 160 KiB (163840 bytes) per workgroup: the 110592 bytes fit.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @lds_fits_gfx950(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 64],
                   wave_tile = [64, 64], scope = workgroup, stages = 3>
           : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// f32, 256x64 + 64x256 tiles with rows padded to 68 = 69632 + 69632 bytes
// per stage, 2 stages = 278528 bytes > 163840.
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @lds_overflow_gfx950(%a: tensor<256x64xf32>, %b: tensor<64x256xf32>) {
    // expected-error @+1 {{'crest.matmul' op config needs 278528 bytes of LDS (2 stages of a 256x64 lhs and a 64x256 rhs tile, K rows padded by 4 elements); gfx950 has 163840 per workgroup}}
    %c = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [256, 256, 64],
                   wave_tile = [64, 64], scope = workgroup, stages = 2>
           : tensor<256x64xf32>, tensor<64x256xf32> -> tensor<256x256xf32>
    return
  }
}

// -----

// xf32 stages f32 data (4 bytes, rows padded to 36): 3 * (128*36*4 +
// 128*36*4) = 110592 bytes.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @lds_overflow_xf32(%a: tensor<128x32xf32>, %b: tensor<32x128xf32>) {
    // expected-error @+1 {{'crest.matmul' op config needs 110592 bytes of LDS (3 stages of a 128x32 lhs and a 32x128 rhs tile, K rows padded by 4 elements); gfx942 has 65536 per workgroup}}
    %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x4_xf32", workgroup_tile = [128, 128, 32],
                   wave_tile = [64, 64], scope = workgroup, stages = 3>
           : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
    return
  }
}

// -----

// fp8 stages 1 byte per element, rows padded to 144: 2 * (256*144 +
// 256*144) = 147456 bytes.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @lds_overflow_fp8(%a: tensor<256x128xf8E4M3FNUZ>, %b: tensor<128x256xf8E4M3FNUZ>) {
    // expected-error @+1 {{'crest.matmul' op config needs 147456 bytes of LDS (2 stages of a 256x128 lhs and a 128x256 rhs tile, K rows padded by 16 elements); gfx942 has 65536 per workgroup}}
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [256, 256, 128],
                   wave_tile = [128, 128], scope = workgroup, stages = 2>
           : tensor<256x128xf8E4M3FNUZ>, tensor<128x256xf8E4M3FNUZ> -> tensor<256x256xf32>
    return
  }
}

// -----

// With wavefront scope nothing is staged in LDS: the same tiles verify.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @no_lds_with_wavefront_scope(%a: tensor<256x128xf8E4M3FNUZ>, %b: tensor<128x256xf8E4M3FNUZ>) {
    %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [256, 256, 128],
                   wave_tile = [128, 128], scope = wavefront, stages = 2>
           : tensor<256x128xf8E4M3FNUZ>, tensor<128x256xf8E4M3FNUZ> -> tensor<256x256xf32>
    return
  }
}

// -----

// RDNA: 64 KiB per workgroup although the WGP has 128 KiB.
// 2 * (128*136*2 + 128*136*2) = 139264 bytes (rows padded to 136).
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @lds_overflow_gfx1100(%x: tensor<1x128x8x8xf16>, %w: tensor<128x128x1x1xf16>) {
    // expected-error @+1 {{'crest.conv2d' op config needs 139264 bytes of LDS (2 stages of a 128x128 lhs and a 128x128 rhs tile, K rows padded by 8 elements); gfx1100 has 65536 per workgroup}}
    %y = crest.conv2d %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [128, 128, 128],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<1x128x8x8xf16>, tensor<128x128x1x1xf16> -> tensor<1x128x8x8xf32>
    return
  }
}

//===----------------------------------------------------------------------===//
// Config against the chip: accumulator registers
//===----------------------------------------------------------------------===//

// -----

// gfx942: a unified 512-register file; 256*256 f32 / 64 lanes = 1024.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @acc_overflow_gfx942(%a: tensor<256x16xf16>, %b: tensor<16x256xf16>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [256, 256] needs 1024 accumulator registers per lane; gfx942 has 512 for accumulators}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [256, 256, 16],
                   wave_tile = [256, 256], scope = wavefront>
           : tensor<256x16xf16>, tensor<16x256xf16> -> tensor<256x256xf32>
    return
  }
}

// -----

// 128*256 / 64 = 512 registers: exactly gfx942's budget.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @acc_at_limit_gfx942(%a: tensor<128x16xf16>, %b: tensor<16x256xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 256, 16],
                   wave_tile = [128, 256], scope = wavefront>
           : tensor<128x16xf16>, tensor<16x256xf16> -> tensor<128x256xf32>
    return
  }
}

// -----

// gfx908 keeps MFMA accumulators in its 256 AGPRs only.
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @acc_overflow_gfx908(%a: tensor<128x16xf16>, %b: tensor<16x256xf16>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [128, 256] needs 512 accumulator registers per lane; gfx908 has 256 for accumulators}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [128, 256, 16],
                   wave_tile = [128, 256], scope = wavefront>
           : tensor<128x16xf16>, tensor<16x256xf16> -> tensor<128x256xf32>
    return
  }
}

// -----

// f64 accumulators take two registers: 128*128 / 64 * 2 = 512 fit gfx90a ...
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @acc_f64_at_limit(%a: tensor<128x16xf64>, %b: tensor<16x128xf64>) {
    %c = crest.matmul %a, %b precision <lhs = f64, rhs = f64, acc = f64, out = f64>
           config <mma = "v_mfma_f64_16x16x4f64", workgroup_tile = [128, 128, 16],
                   wave_tile = [128, 128], scope = wavefront>
           : tensor<128x16xf64>, tensor<16x128xf64> -> tensor<128x128xf64>
    return
  }
}

// -----

// ... 128*256 / 64 * 2 = 1024 do not.
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @acc_overflow_f64(%a: tensor<128x16xf64>, %b: tensor<16x256xf64>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [128, 256] needs 1024 accumulator registers per lane; gfx90a has 512 for accumulators}}
    %c = crest.matmul %a, %b precision <lhs = f64, rhs = f64, acc = f64, out = f64>
           config <mma = "v_mfma_f64_16x16x4f64", workgroup_tile = [128, 256, 16],
                   wave_tile = [128, 256], scope = wavefront>
           : tensor<128x16xf64>, tensor<16x256xf64> -> tensor<128x256xf64>
    return
  }
}

// -----

// RDNA has no AGPRs: 256 VGPRs; 128*128 / 32 lanes = 512 in wave32 ...
module attributes {crest.target = #crest.target<chip = "gfx1100">} {
  func.func @acc_overflow_gfx1100(%a: tensor<128x16xf16>, %b: tensor<16x128xf16>) {
    // expected-error @+1 {{'crest.matmul' op config wave_tile [128, 128] needs 512 accumulator registers per lane; gfx1100 has 256 for accumulators}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [128, 128, 16],
                   wave_tile = [128, 128], scope = wavefront>
           : tensor<128x16xf16>, tensor<16x128xf16> -> tensor<128x128xf32>
    return
  }
}

// -----

// ... and 256 in wave64, which fits.
module attributes {crest.target = #crest.target<chip = "gfx1100", wave_size = 64>} {
  func.func @acc_fits_gfx1100_wave64(%a: tensor<128x16xf16>, %b: tensor<16x128xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [128, 128, 16],
                   wave_tile = [128, 128], scope = wavefront>
           : tensor<128x16xf16>, tensor<16x128xf16> -> tensor<128x128xf32>
    return
  }
}

//===----------------------------------------------------------------------===//
// Config against sync
//===----------------------------------------------------------------------===//

// -----

module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @config_scope_contradicts_sync(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config (scope = workgroup, stages = 2) contradicts sync (scope = wavefront, stages = 2)}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           sync <scope = wavefront, stages = 2>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// Both stages default to 1; sync asks for 2.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @config_stages_contradict_sync(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    // expected-error @+1 {{'crest.matmul' op config (scope = workgroup, stages = 1) contradicts sync (scope = workgroup, stages = 2)}}
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           sync <scope = workgroup, stages = 2>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// The contradiction is an error without a target too, and is reported
// before the config is checked against a chip.
func.func @config_contradicts_sync_no_target(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{'crest.matmul' op config (scope = wavefront, stages = 3) contradicts sync (scope = workgroup, stages = 3)}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = workgroup, stages = 3>
         config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = wavefront, stages = 3>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

// A matching sync and config verify.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @config_matches_sync(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           sync <scope = workgroup, stages = 2>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    return
  }
}

// -----

// global_split_k: K = 100 has 3 full 32-deep steps, so 4 workgroups along K
// would leave one without a step (3 still fit: one step each, the last
// also the partial one).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @global_split_k_steps(%a: tensor<1x100xf16>, %b: tensor<100x256xf16>) -> (tensor<1x256xf32>, tensor<1x256xf32>) {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, rhs_vector = 8, global_split_k = 3>
           : tensor<1x100xf16>, tensor<100x256xf16> -> tensor<1x256xf32>
    // expected-error @+1 {{'crest.matmul' op config global_split_k = 4 leaves a workgroup without a K step: K = 100 has 3 full steps of 32}}
    %1 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, rhs_vector = 8, global_split_k = 4>
           : tensor<1x100xf16>, tensor<100x256xf16> -> tensor<1x256xf32>
    return %0, %1 : tensor<1x256xf32>, tensor<1x256xf32>
  }
}
