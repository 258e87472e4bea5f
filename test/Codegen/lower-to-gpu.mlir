// RUN: crest-opt %s --split-input-file --crest-lower-to-gpu | FileCheck %s

// A 100x72x40 f16 GEMM with a fused bias + ReLU, workgroup scope, 2 stages:
// 64x64 tiles of four 32x32 waves, K steps of 16.
//  - grid: ceil(72/64) x ceil(100/64) x 1 = 2 x 2 x 1; 4 waves = 256 items;
//  - LDS: 2 stages of a 64 x (16 + 8) f16 tile for A and for B (B kept
//    K-contiguous, i.e. transposed), rows padded by 16 bytes;
//  - ceil(40/16) = 3 K steps; each runs 16/8 = 2 MFMAs (one 32x32 tile per
//    wave), reading 4 halves per lane per operand.
// CHECK-LABEL: func.func @gemm_bias_relu
// CHECK: crest.kernel {{.*}}attributes {crest.launch = #crest.launch<kernel = @crest_kernels::@gemm_bias_relu_0, grid = [2, 2, 1], block = [256, 1, 1]>}
// CHECK: gpu.module @crest_kernels
// CHECK: gpu.func @gemm_bias_relu_0(%[[A:.*]]: memref<100x40xf16, #gpu.address_space<global>>, %[[B:.*]]: memref<40x72xf16, #gpu.address_space<global>>, %[[BIAS:.*]]: memref<72xf32, #gpu.address_space<global>>, %[[C:.*]]: memref<100x72xf32, #gpu.address_space<global>>)
// CHECK-SAME: workgroup(%[[LA:.*]] : memref<2x64x24xf16, #gpu.address_space<workgroup>>, %[[LB:.*]] : memref<2x64x24xf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// The prologue fills slot 0 of A with 16-byte loads along K.
// CHECK: vector.load %[[A]]{{.*}} {alignment = 16 : i64} : memref<100x40xf16, #gpu.address_space<global>>, vector<8xf16>
// CHECK: vector.store {{.*}}, %[[LA]][%c0
// CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c3{{.*}} step %c1{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// Software pipelining: every fragment of step t from slot t mod 2, one LDS
// wait, the first MFMA, the global loads of step t + 1 (clamped to the
// last step) into registers, the other MFMA, then (if t + 1 < 3) the
// stores into slot (t + 1) mod 2. The rhs tile (K-major in global memory)
// is stored K-contiguous 4 halves (8 bytes) at a time.
// CHECK: %[[AHEAD:.*]] = arith.addi %[[T]], %c1
// CHECK: %[[SLOT:.*]] = arith.remui %[[T]], %c2
// CHECK-COUNT-2: vector.load %[[LA]][%[[SLOT]], {{.*}}] : memref<2x64x24xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-NOT: vector.load %[[LA]]
// CHECK: amdgpu.memory_counter_wait ds(0)
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: arith.minui %[[AHEAD]], %c2
// CHECK: vector.load %[[A]]{{.*}} : memref<100x40xf16, #gpu.address_space<global>>, vector<8xf16>
// CHECK: vector.load %[[B]]{{.*}} : memref<40x72xf16, #gpu.address_space<global>>, vector<2xf16>
// CHECK: amdgpu.sched_barrier
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: %[[FITS:.*]] = arith.cmpi ult, %[[AHEAD]], %c3
// CHECK: scf.if %[[FITS]]
// CHECK: %[[NEXT:.*]] = arith.remui %[[AHEAD]], %c2
// CHECK: vector.store {{.*}}, %[[LA]][%[[NEXT]], {{.*}}] : memref<2x64x24xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store {{.*}}, %[[LB]][%[[NEXT]], {{.*}}] {alignment = 8 : i64} : memref<2x64x24xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: scf.yield
// Epilogue: 16 accumulator registers, each: bias, ReLU, guarded store.
// CHECK-COUNT-16: memref.load %[[BIAS]]
// CHECK-NOT: memref.load %[[BIAS]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @gemm_bias_relu(%a: tensor<100x40xf16>, %b: tensor<40x72xf16>, %bias: tensor<72xf32>) -> tensor<100x72xf32> {
    %0 = crest.kernel ins(%a, %b, %bias : tensor<100x40xf16>, tensor<40x72xf16>, tensor<72xf32>) -> tensor<100x72xf32> {
    ^bb0(%x: tensor<100x40xf16>, %y: tensor<40x72xf16>, %z: tensor<72xf32>):
      %1 = crest.matmul %x, %y precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 16], wave_tile = [32, 32], scope = workgroup, stages = 2>
             : tensor<100x40xf16>, tensor<40x72xf16> -> tensor<100x72xf32>
      %2 = crest.add %1, %z : tensor<100x72xf32>, tensor<72xf32> -> tensor<100x72xf32>
      %3 = crest.relu %2 : tensor<100x72xf32>
      crest.yield %3 : tensor<100x72xf32>
    }
    return %0 : tensor<100x72xf32>
  }
}

// -----

// Wavefront scope: no LDS, fragments straight from global memory. A batch
// matmul with a transposed rhs (B is [batch, N, K], so B fragments are
// contiguous along K too), bf16 on gfx90a (the "_1k" 16x16x16 form: 4
// elements per lane), 197x197 outputs in 16x64 tiles: grid 4 x 13 x 4.
// CHECK-LABEL: func.func @scores
// CHECK: crest.launch = #crest.launch<kernel = @crest_kernels::@scores_0, grid = [4, 13, 4], block = [256, 1, 1]>
// CHECK: gpu.func @scores_0({{.*}}memref<4x197x64xbf16, #gpu.address_space<global>>, {{.*}}memref<4x197x64xbf16, #gpu.address_space<global>>, {{.*}}memref<4x197x197xf32, #gpu.address_space<global>>) kernel
// CHECK-NOT: workgroup(
// CHECK: scf.for
// CHECK: vector.load {{.*}} : memref<4x197x64xbf16, #gpu.address_space<global>>, vector<4xbf16>
// CHECK: vector.maskedload
// CHECK: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @scores(%q: tensor<4x197x64xbf16>, %k: tensor<4x197x64xbf16>) -> tensor<4x197x197xf32> {
    %0 = crest.batch_matmul %q, %k transpose_rhs precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x16bf16_1k", workgroup_tile = [16, 64, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<4x197x64xbf16>, tensor<4x197x64xbf16> -> tensor<4x197x197xf32>
    return %0 : tensor<4x197x197xf32>
  }
}

// -----

// f32 on the 16x16x4 instruction: one element per lane per operand, so the
// fragments are scalars.
// CHECK-LABEL: func.func @f32
// CHECK: amdgpu.mfma 16x16x4 {{.*}} : f32, f32, vector<4xf32>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @f32(%a: tensor<7x9xf32>, %b: tensor<9x5xf32>) -> tensor<7x5xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x4_f32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<7x9xf32>, tensor<9x5xf32> -> tensor<7x5xf32>
    return %0 : tensor<7x5xf32>
  }
}

// -----

// xf32 (lhs = tf32) reads f32 tensors and sets reducePrecision; fp8 FNUZ
// reads 8 elements per lane.
// CHECK-LABEL: func.func @reduced
// CHECK: amdgpu.mfma 16x16x8 {{.*}} {reducePrecision} {{.*}}: vector<2xf32>, vector<2xf32>, vector<4xf32>
// CHECK: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @reduced(%a: tensor<32x64xf32>, %b: tensor<64x32xf32>, %c: tensor<32x64xf8E4M3FNUZ>, %d: tensor<64x32xf8E4M3FNUZ>) {
    %0 = crest.matmul %a, %b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x8_xf32", workgroup_tile = [16, 16, 16], wave_tile = [16, 16], scope = wavefront>
           : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
    %1 = crest.matmul %c, %d precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f16>
           config <mma = "v_mfma_f32_16x16x32_fp8_fp8", workgroup_tile = [32, 32, 64], wave_tile = [16, 16], scope = workgroup, stages = 3>
           : tensor<32x64xf8E4M3FNUZ>, tensor<64x32xf8E4M3FNUZ> -> tensor<32x32xf16>
    return
  }
}

// -----

// When the tiles divide M, N and K, no access is guarded: the copies are
// plain aligned vector loads and the stores unconditional. The one scf.if
// left is the prefetch of the next K step (t + 1 < 2).
// CHECK-LABEL: func.func @divisible
// CHECK: gpu.func @divisible_0
// CHECK-NOT: vector.maskedload
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK-NOT: vector.maskedload
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @divisible(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
    %0 = crest.matmul %a, %b transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    return %0 : tensor<64x64xf32>
  }
}
