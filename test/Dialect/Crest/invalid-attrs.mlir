// RUN: crest-opt %s -split-input-file -verify-diagnostics

// Verifiers of #crest.precision, #crest.sync, #crest.target and #crest.config
// (CrestAttrs.cpp), and of the dialect's discardable attributes
// (CrestDialect::verifyOperationAttribute). Attribute verifiers run while
// the attribute is parsed, so each case is a parse error in its own chunk.

//===----------------------------------------------------------------------===//
// #crest.precision
//===----------------------------------------------------------------------===//

// i32 is a scalar kind (an accumulator) but no matrix instruction reads it.
func.func @precision_lhs_i32(%a: tensor<64x32xi32>, %b: tensor<32x64xi32>) {
  // expected-error @+1 {{precision lhs = 'i32' is not a type matrix instructions read; legal: f64, f32, tf32, f16, bf16, i8, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2}}
  %c = crest.matmul %a, %b precision <lhs = i32, rhs = i32, acc = i32, out = i32>
         : tensor<64x32xi32>, tensor<32x64xi32> -> tensor<64x64xi32>
  return
}

// -----

// A float type with no scalar kind at all.
func.func @precision_lhs_f80(%a: tensor<64x32xf80>, %b: tensor<32x64xf80>) {
  // expected-error @+1 {{precision lhs = 'f80' is not a type matrix instructions read; legal: f64, f32, tf32}}
  %c = crest.matmul %a, %b precision <lhs = f80, rhs = f80, acc = f32, out = f32>
         : tensor<64x32xf80>, tensor<32x64xf80> -> tensor<64x64xf32>
  return
}

// -----

// Only signless i8 is an integer input.
func.func @precision_rhs_si8(%a: tensor<64x32xi8>, %b: tensor<32x64xsi8>) {
  // expected-error @+1 {{precision rhs = 'si8' is not a type matrix instructions read; legal: f64, f32, tf32, f16, bf16, i8, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, f8E5M2}}
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = si8, acc = i32, out = i32>
         : tensor<64x32xi8>, tensor<32x64xsi8> -> tensor<64x64xi32>
  return
}

// -----

// The lhs is checked before the rhs.
func.func @precision_lhs_before_rhs(%a: tensor<64x32xi16>, %b: tensor<32x64xi16>) {
  // expected-error @+1 {{precision lhs = 'i16' is not a type matrix instructions read}}
  %c = crest.matmul %a, %b precision <lhs = i16, rhs = i16, acc = i32, out = i32>
         : tensor<64x32xi16>, tensor<32x64xi16> -> tensor<64x64xi32>
  return
}

// -----

func.func @precision_fp8_flavours_mixed(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<32x64xf8E5M2>) {
  // expected-error @+1 {{precision lhs = 'f8E4M3FNUZ' and rhs = 'f8E5M2' mix the FNUZ and OCP fp8 flavours; use f8E4M3FNUZ/f8E5M2FNUZ or f8E4M3FN/f8E5M2}}
  %c = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2, acc = f32, out = f32>
         : tensor<64x32xf8E4M3FNUZ>, tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_fp8_flavours_mixed_ocp_lhs(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FNUZ>) {
  // expected-error @+1 {{precision lhs = 'f8E4M3FN' and rhs = 'f8E4M3FNUZ' mix the FNUZ and OCP fp8 flavours}}
  %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FNUZ, acc = f32, out = f32>
         : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FNUZ> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_inputs_differ(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>) {
  // expected-error @+1 {{precision lhs = 'f16' and rhs = 'bf16' differ; only fp8 inputs of one flavour may mix}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = bf16, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  return
}

// -----

// One fp8 input is not enough to mix.
func.func @precision_fp8_with_f16(%a: tensor<64x32xf16>, %b: tensor<32x64xf8E4M3FN>) {
  // expected-error @+1 {{precision lhs = 'f16' and rhs = 'f8E4M3FN' differ; only fp8 inputs of one flavour may mix}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f8E4M3FN, acc = f32, out = f32>
         : tensor<64x32xf16>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  return
}

// -----

// tf32 and f32 are different precisions even though both read f32 tensors.
func.func @precision_tf32_with_f32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
  // expected-error @+1 {{precision lhs = 'tf32' and rhs = 'f32' differ; only fp8 inputs of one flavour may mix}}
  %c = crest.matmul %a, %b precision <lhs = tf32, rhs = f32, acc = f32, out = f32>
         : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_acc_f32_inputs(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
  // expected-error @+1 {{precision acc = 'f16' cannot accumulate lhs = 'f32' inputs; legal: f32}}
  %c = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f16, out = f32>
         : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_acc_f16_inputs(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{precision acc = 'bf16' cannot accumulate lhs = 'f16' inputs; legal: f32, f16}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = bf16, out = f32>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_acc_bf16_inputs(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) {
  // expected-error @+1 {{precision acc = 'f16' cannot accumulate lhs = 'bf16' inputs; legal: f32, bf16}}
  %c = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f16, out = f32>
         : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_acc_f64_inputs(%a: tensor<64x32xf64>, %b: tensor<32x64xf64>) {
  // expected-error @+1 {{precision acc = 'f32' cannot accumulate lhs = 'f64' inputs; legal: f64}}
  %c = crest.matmul %a, %b precision <lhs = f64, rhs = f64, acc = f32, out = f64>
         : tensor<64x32xf64>, tensor<32x64xf64> -> tensor<64x64xf64>
  return
}

// -----

func.func @precision_acc_i8_inputs(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
  // expected-error @+1 {{precision acc = 'f32' cannot accumulate lhs = 'i8' inputs; legal: i32}}
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = f32, out = f32>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_acc_fp8_inputs(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>) {
  // expected-error @+1 {{precision acc = 'f16' cannot accumulate lhs = 'f8E4M3FN' inputs; legal: f32}}
  %c = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f16, out = f16>
         : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf16>
  return
}

// -----

// tf32 inputs (xf32 instructions) accumulate in f32 only.
func.func @precision_acc_tf32_inputs(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
  // expected-error @+1 {{precision acc = 'tf32' cannot accumulate lhs = 'tf32' inputs; legal: f32}}
  %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = tf32, out = f32>
         : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_out_float_with_i32_acc(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
  // expected-error @+1 {{precision out = 'f32' is not legal with acc = 'i32'; legal: i32, i8}}
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = f32>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xf32>
  return
}

// -----

func.func @precision_out_i16_with_i32_acc(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
  // expected-error @+1 {{precision out = 'i16' is not legal with acc = 'i32'; legal: i32, i8}}
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i16>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi16>
  return
}

// -----

func.func @precision_out_int_with_float_acc(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+1 {{precision out = 'i32' is not legal with acc = 'f32'; legal: any float type except tf32}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = i32>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xi32>
  return
}

// -----

func.func @precision_out_tf32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) {
  // expected-error @+1 {{precision out = 'tf32' is not legal with acc = 'f32'; legal: any float type except tf32}}
  %c = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = tf32>
         : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xtf32>
  return
}

//===----------------------------------------------------------------------===//
// #crest.sync
//===----------------------------------------------------------------------===//

// -----

func.func @sync_stages_zero(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{stages = 0 is out of range; must be 1, 2 or 3}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = workgroup, stages = 0>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @sync_stages_four(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{stages = 4 is out of range; must be 1, 2 or 3}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = wavefront, stages = 4>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// #crest.target
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{unknown chip 'gfx1030'; known chips: gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201}}
module attributes {crest.target = #crest.target<chip = "gfx1030">} {}

// -----

// Chip names are exact (LLVM processor names are lower case).
// expected-error @+1 {{unknown chip 'GFX942'; known chips: gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201}}
module attributes {crest.target = #crest.target<chip = "GFX942">} {}

// -----

// CDNA runs wave64 only.
// expected-error @+1 {{gfx942 does not run wave32; supported wave sizes: 64}}
module attributes {crest.target = #crest.target<chip = "gfx942", wave_size = 32>} {}

// -----

// expected-error @+1 {{gfx908 does not run wave32; supported wave sizes: 64}}
module attributes {crest.target = #crest.target<chip = "gfx908", wave_size = 32>} {}

// -----

// RDNA runs both; the list names both.
// expected-error @+1 {{gfx1100 does not run wave16; supported wave sizes: 32 64}}
module attributes {crest.target = #crest.target<chip = "gfx1100", wave_size = 16>} {}

// -----

// expected-error @+1 {{gfx1201 does not run wave128; supported wave sizes: 32 64}}
module attributes {crest.target = #crest.target<chip = "gfx1201", wave_size = 128>} {}

// -----

// Both wave sizes of an RDNA chip, and wave_size = 0 (the default), verify.
module attributes {crest.target = #crest.target<chip = "gfx1100", wave_size = 64>} {}

// -----

module attributes {crest.target = #crest.target<chip = "gfx1201", wave_size = 32>} {}

// -----

module attributes {crest.target = #crest.target<chip = "gfx950", wave_size = 0>} {}

//===----------------------------------------------------------------------===//
// #crest.config
//===----------------------------------------------------------------------===//

// -----

func.func @config_unknown_mma(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{unknown matrix instruction 'v_mfma_f32_64x64x8_f16'; no chip in the chip table has it}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_64x64x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

// The int4 WMMA forms are not in the chip table (no int4 scalar kind).
func.func @config_unknown_mma_iu4(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) {
  // expected-error @+2 {{unknown matrix instruction 'v_wmma_i32_16x16x16_iu4'; no chip in the chip table has it}}
  %c = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
         config <mma = "v_wmma_i32_16x16x16_iu4", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = wavefront>
         : tensor<64x32xi8>, tensor<32x64xi8> -> tensor<64x64xi32>
  return
}

// -----

func.func @config_workgroup_tile_two_values(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{workgroup_tile must be [M, N, K], got 2 values}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64],
                 wave_tile = [32, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_workgroup_tile_empty(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{workgroup_tile must be [M, N, K], got 0 values}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [],
                 wave_tile = [32, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_wave_tile_three_values(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{wave_tile must be [M, N], got 3 values}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32, 8], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_workgroup_tile_zero(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{workgroup_tile [64, 0, 32] must be positive}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 0, 32],
                 wave_tile = [32, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_workgroup_tile_negative_k(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{workgroup_tile [64, 64, -32] must be positive}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, -32],
                 wave_tile = [32, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_wave_tile_negative(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{wave_tile [32, -32] must be positive}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, -32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_wave_tile_does_not_divide(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{wave_tile [48, 32] does not divide workgroup_tile [128, 64, 32]}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 64, 32],
                 wave_tile = [48, 32], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

// The N dimension is checked too.
func.func @config_wave_tile_does_not_divide_n(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{wave_tile [32, 128] does not divide workgroup_tile [64, 64, 32]}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 128], scope = workgroup>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_stages_zero(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{stages = 0 is out of range; must be 1, 2 or 3}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, stages = 0>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_stages_four(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{stages = 4 is out of range; must be 1, 2 or 3}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, stages = 4>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_split_k_zero(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{split_k = 0 is out of range; must be at least 1}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, split_k = 0>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_rhs_vector_range(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{rhs_vector = 3 is out of range; must be 1, 2, 4, 8 or 16}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 48, 32],
                 wave_tile = [16, 48], scope = wavefront, rhs_vector = 3>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @config_rhs_vector_workgroup(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  // expected-error @+2 {{rhs_vector = 8 needs scope = wavefront (the rhs is loaded straight into registers)}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32],
                 wave_tile = [16, 128], scope = workgroup, rhs_vector = 8>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

// -----

// Without a target a config only has to name an instruction some chip has:
// a gfx90a mnemonic and a gfx942 one both verify here.
func.func @config_without_target(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, stages = 3, split_k = 4>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %d = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [64, 64], scope = wavefront>
         : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// Dialect attributes (crest.*)
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'crest.target' must be a #crest.target attribute, got 1 : i32}}
module attributes {crest.target = 1 : i32} {}

// -----

// A crest attribute of the wrong kind.
// expected-error @+1 {{'crest.target' must be a #crest.target attribute, got #crest.sync<scope = workgroup, stages = 2>}}
module attributes {crest.target = #crest.sync<scope = workgroup, stages = 2>} {}

// -----

// A string naming the chip is not a target either.
// expected-error @+1 {{'crest.target' must be a #crest.target attribute, got "gfx942"}}
module attributes {crest.target = "gfx942"} {}

// -----

// expected-error @+1 {{'crest.target' must be attached to a builtin.module, not 'func.func'}}
func.func @target_on_func() attributes {crest.target = #crest.target<chip = "gfx942">} {
  return
}

// -----

func.func @target_on_crest_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.target' must be attached to a builtin.module, not 'crest.relu'}}
  %0 = crest.relu %x {crest.target = #crest.target<chip = "gfx942">} : tensor<4xf32>
  return
}

// -----

// The kind is checked before the operation.
// expected-error @+1 {{'crest.target' must be a #crest.target attribute, got 64 : i64}}
func.func @bad_target_on_func() attributes {crest.target = 64} {
  return
}

// -----

// A nested module may carry a target too.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  module attributes {crest.target = #crest.target<chip = "gfx1100">} {}
}

// -----

// NOTE: the attribute name is streamed as a StringAttr and therefore printed
// with its own double quotes inside the single quotes ('"crest.foo"').
// expected-error @+1 {{unknown crest attribute 'crest.foo'; the dialect defines 'crest.target', 'crest.launch' and 'crest.tuning'}}
module attributes {crest.foo = 1 : i32} {}

// -----

// Inherent attribute names of crest ops are no dialect attributes.
// expected-error @+1 {{unknown crest attribute 'crest.config'; the dialect defines 'crest.target', 'crest.launch' and 'crest.tuning'}}
func.func @unknown_on_func() attributes {crest.config = #crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup>} {
  return
}

// -----

// crest.tuning (crest/Dialect/Crest/IR/Tuning.h) belongs on a contraction.
// expected-error @+1 {{'crest.tuning' must be attached to a contraction, not 'func.func'}}
func.func @tuning_on_func() attributes {crest.tuning = {}} {
  return
}

// -----

func.func @tuning_not_a_dict(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': expected a dictionary}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = 1.5 : f64} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_missing_key(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': expected {candidates = [#crest.config, ...], microseconds = array<f64: ...>, cached = array<i1: ...>, chosen = index : i64}}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [], microseconds = array<f64>, chosen = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_unknown_key(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': unknown key 'best'}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {best = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_empty(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': 'candidates' is empty}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [], microseconds = array<f64>, cached = array<i1>, chosen = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_lengths(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': 1 candidates but 2 times and 1 cached flags}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [#crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>], microseconds = array<f64: 1.0, 2.0>, cached = array<i1: false>, chosen = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_chosen(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': 'chosen' = 1 is not a candidate index (0 to 0)}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [#crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>], microseconds = array<f64: 1.0>, cached = array<i1: false>, chosen = 1 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_time(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': candidate 0: time -1 is not a positive number of microseconds}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [#crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>], microseconds = array<f64: -1.0>, cached = array<i1: false>, chosen = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tuning_not_config(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{malformed 'crest.tuning': candidate 0 is not a #crest.config}}
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = ["fast"], microseconds = array<f64: 1.0>, cached = array<i1: false>, chosen = 0 : i64}} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @config_global_split_k_zero(%a: tensor<1x4096xf16>, %b: tensor<4096x256xf16>) {
  // expected-error @+2 {{global_split_k = 0 is out of range; must be at least 1}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32],
                 wave_tile = [16, 128], scope = wavefront, rhs_vector = 8, global_split_k = 0>
         : tensor<1x4096xf16>, tensor<4096x256xf16> -> tensor<1x256xf32>
  return
}

// -----

func.func @config_global_split_k_not_skinny(%a: tensor<64x4096xf16>, %b: tensor<4096x64xf16>) {
  // expected-error @+2 {{global_split_k = 4 is generated for the skinny path only (it needs rhs_vector > 1)}}
  %c = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup, stages = 2, global_split_k = 4>
         : tensor<64x4096xf16>, tensor<4096x64xf16> -> tensor<64x64xf32>
  return
}
