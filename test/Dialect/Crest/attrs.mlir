// Every crest attribute round-trips, with defaults elided.
// RUN: crest-opt %s | crest-opt | FileCheck %s
// RUN: crest-opt %s --mlir-print-op-generic | crest-opt | FileCheck %s

// Attribute dictionaries print sorted by name.
// CHECK-LABEL: func.func @precision
// CHECK-SAME: bf16 = #crest.precision<lhs = bf16, rhs = bf16, acc = f32, out = bf16>
// CHECK-SAME: bf16_rdna = #crest.precision<lhs = bf16, rhs = bf16, acc = bf16, out = bf16>
// CHECK-SAME: f16_f32 = #crest.precision<lhs = f16, rhs = f16, acc = f32, out = f32>
// CHECK-SAME: f16_rdna = #crest.precision<lhs = f16, rhs = f16, acc = f16, out = f16>
// CHECK-SAME: f32 = #crest.precision<lhs = f32, rhs = f32, acc = f32, out = f32>
// CHECK-SAME: f64 = #crest.precision<lhs = f64, rhs = f64, acc = f64, out = f64>
// CHECK-SAME: fnuz = #crest.precision<lhs = f8E5M2FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f16>
// CHECK-SAME: i8 = #crest.precision<lhs = i8, rhs = i8, acc = i32, out = i8>
// CHECK-SAME: ocp = #crest.precision<lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f8E5M2>
// CHECK-SAME: xf32 = #crest.precision<lhs = tf32, rhs = tf32, acc = f32, out = f32>
func.func @precision() attributes {
  f16_f32 = #crest.precision<lhs = f16, rhs = f16, acc = f32, out = f32>,
  f16_rdna = #crest.precision<lhs = f16, rhs = f16, acc = f16, out = f16>,
  bf16 = #crest.precision<lhs = bf16, rhs = bf16, acc = f32, out = bf16>,
  bf16_rdna = #crest.precision<lhs = bf16, rhs = bf16, acc = bf16, out = bf16>,
  f32 = #crest.precision<lhs = f32, rhs = f32, acc = f32, out = f32>,
  f64 = #crest.precision<lhs = f64, rhs = f64, acc = f64, out = f64>,
  fnuz = #crest.precision<lhs = f8E5M2FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f16>,
  i8 = #crest.precision<lhs = i8, rhs = i8, acc = i32, out = i8>,
  ocp = #crest.precision<lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f8E5M2>,
  xf32 = #crest.precision<lhs = tf32, rhs = tf32, acc = f32, out = f32>
} {
  return
}

// The default stages = 1 is elided.
// CHECK-LABEL: func.func @sync
// CHECK-SAME: s1 = #crest.sync<scope = wavefront>
// CHECK-SAME: s2 = #crest.sync<scope = workgroup, stages = 2>
// CHECK-SAME: s3 = #crest.sync<scope = workgroup, stages = 3>
// CHECK-SAME: s4 = #crest.sync<scope = workgroup>
func.func @sync() attributes {
  s1 = #crest.sync<scope = wavefront>,
  s2 = #crest.sync<scope = workgroup, stages = 2>,
  s3 = #crest.sync<scope = workgroup, stages = 3>,
  s4 = #crest.sync<scope = workgroup, stages = 1>
} {
  return
}

// CHECK-LABEL: func.func @targets
// CHECK-SAME: t0 = #crest.target<chip = "gfx908">
// CHECK-SAME: t1 = #crest.target<chip = "gfx90a">
// CHECK-SAME: t2 = #crest.target<chip = "gfx942">
// CHECK-SAME: t3 = #crest.target<chip = "gfx950">
// CHECK-SAME: t4 = #crest.target<chip = "gfx1100">
// CHECK-SAME: t5 = #crest.target<chip = "gfx1100", wave_size = 64>
// CHECK-SAME: t6 = #crest.target<chip = "gfx1201", wave_size = 32>
// CHECK-SAME: t7 = #crest.target<chip = "gfx942", wave_size = 64>
func.func @targets() attributes {
  t0 = #crest.target<chip = "gfx908">,
  t1 = #crest.target<chip = "gfx90a">,
  t2 = #crest.target<chip = "gfx942">,
  t3 = #crest.target<chip = "gfx950">,
  t4 = #crest.target<chip = "gfx1100">,
  t5 = #crest.target<chip = "gfx1100", wave_size = 64>,
  t6 = #crest.target<chip = "gfx1201", wave_size = 32>,
  t7 = #crest.target<chip = "gfx942", wave_size = 64>
} {
  return
}

// split_k and stages default to 1.
// CHECK-LABEL: func.func @config
// CHECK-SAME: c0 = #crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 32], wave_tile = [64, 64], scope = workgroup, stages = 2>
// CHECK-SAME: c1 = #crest.config<mma = "v_mfma_f32_16x16x16bf16_1k", workgroup_tile = [16, 16, 256], wave_tile = [16, 16], scope = wavefront, split_k = 4>
// CHECK-SAME: c2 = #crest.config<mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [64, 64, 16], wave_tile = [32, 32], scope = workgroup, stages = 3>
func.func @config() attributes {
  c0 = #crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 32],
                     wave_tile = [64, 64], scope = workgroup, stages = 2>,
  c1 = #crest.config<mma = "v_mfma_f32_16x16x16bf16_1k", workgroup_tile = [16, 16, 256],
                     wave_tile = [16, 16], scope = wavefront, stages = 1, split_k = 4>,
  c2 = #crest.config<mma = "v_wmma_f32_16x16x16_f16", workgroup_tile = [64, 64, 16],
                     wave_tile = [32, 32], scope = workgroup, stages = 3, split_k = 1>
} {
  return
}

// The record crest-select-config{tune} leaves on a contraction.
// CHECK-LABEL: func.func @tuning
// CHECK: crest.matmul
// CHECK-SAME: crest.tuning = {cached = array<i1: false, true>, candidates = [#crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>, #crest.config<mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>], chosen = 1 : i64, microseconds = array<f64: 2.500000e+00, 2.250000e+00>}
func.func @tuning(%a: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %0 = crest.matmul %a, %a precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         {crest.tuning = {candidates = [#crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>, #crest.config<mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>], microseconds = array<f64: 2.5, 2.25>, cached = array<i1: false, true>, chosen = 1 : i64}}
         : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
