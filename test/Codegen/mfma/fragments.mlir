// RUN: crest-opt %s --split-input-file --crest-lower-to-gpu | FileCheck %s
//
// The MFMA family's generated IR, one instruction form per case, on one
// wave (wave tile = workgroup tile, wavefront scope, fragments read from
// global memory): each lane's A and B fragments are the instruction's
// operand types (E = M * K / 64 consecutive K elements of one row or
// column, a scalar when E = 1), its accumulator holds M * N / 64 elements,
// one K step of the tile takes tile K / instruction K instructions, and
// the epilogue stores each accumulator element once. The element counts follow
// from the instruction shapes alone (crest/Target/MmaLayout.h); the lane
// arithmetic itself is checked element by element in
// unittests/Codegen/MmaEmitterTest.cpp.

// gfx908 v_mfma_f32_32x32x8f16: A vector<4xf16>, B vector<4xf16>, D vector<16xf32>.
// CHECK-LABEL: gpu.func @form0_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<61x59xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 32x32x8 {{.*}} : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @form0(%a: tensor<61x35xf16>, %b: tensor<35x59xf16>) -> tensor<61x59xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8f16", workgroup_tile = [32, 32, 16], wave_tile = [32, 32], scope = wavefront>
           : tensor<61x35xf16>, tensor<35x59xf16> -> tensor<61x59xf32>
    return %0 : tensor<61x59xf32>
  }
}

// -----

// gfx908 v_mfma_f32_32x32x2f32: A f32, B f32, D vector<16xf32>.
// CHECK-LABEL: gpu.func @form1_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<61x59xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-8: amdgpu.mfma 32x32x2 {{.*}} : f32, f32, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx908">} {
  func.func @form1(%a: tensor<61x35xf32>, %b: tensor<35x59xf32>) -> tensor<61x59xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x2f32", workgroup_tile = [32, 32, 16], wave_tile = [32, 32], scope = wavefront>
           : tensor<61x35xf32>, tensor<35x59xf32> -> tensor<61x59xf32>
    return %0 : tensor<61x59xf32>
  }
}

// -----

// gfx90a v_mfma_f32_32x32x8bf16_1k: A vector<4xbf16>, B vector<4xbf16>, D vector<16xf32>.
// CHECK-LABEL: gpu.func @form2_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<61x59xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @form2(%a: tensor<61x35xbf16>, %b: tensor<35x59xbf16>) -> tensor<61x59xf32> {
    %0 = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8bf16_1k", workgroup_tile = [32, 32, 16], wave_tile = [32, 32], scope = wavefront>
           : tensor<61x35xbf16>, tensor<35x59xbf16> -> tensor<61x59xf32>
    return %0 : tensor<61x59xf32>
  }
}

// -----

// gfx90a v_mfma_i32_16x16x16i8: A vector<4xi8>, B vector<4xi8>, D vector<4xi32>.
// CHECK-LABEL: gpu.func @form3_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<29x27xi32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 16x16x16 {{.*}} : vector<4xi8>, vector<4xi8>, vector<4xi32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @form3(%a: tensor<29x67xi8>, %b: tensor<67x27xi8>) -> tensor<29x27xi32> {
    %0 = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
           config <mma = "v_mfma_i32_16x16x16i8", workgroup_tile = [16, 16, 32], wave_tile = [16, 16], scope = wavefront>
           : tensor<29x67xi8>, tensor<67x27xi8> -> tensor<29x27xi32>
    return %0 : tensor<29x27xi32>
  }
}

// -----

// gfx942 v_mfma_f32_16x16x16_f16: A vector<4xf16>, B vector<4xf16>, D vector<4xf32>.
// CHECK-LABEL: gpu.func @form4_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<29x27xf16, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 16x16x16 {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @form4(%a: tensor<29x67xf16>, %b: tensor<67x27xf16>) -> tensor<29x27xf16> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
           config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 16, 32], wave_tile = [16, 16], scope = wavefront>
           : tensor<29x67xf16>, tensor<67x27xf16> -> tensor<29x27xf16>
    return %0 : tensor<29x27xf16>
  }
}

// -----

// gfx942 v_mfma_i32_32x32x16_i8: A vector<8xi8>, B vector<8xi8>, D vector<16xi32>.
// CHECK-LABEL: gpu.func @form5_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<61x59xi32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 32x32x16 {{.*}} : vector<8xi8>, vector<8xi8>, vector<16xi32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @form5(%a: tensor<61x67xi8>, %b: tensor<67x59xi8>) -> tensor<61x59xi32> {
    %0 = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
           config <mma = "v_mfma_i32_32x32x16_i8", workgroup_tile = [32, 32, 32], wave_tile = [32, 32], scope = wavefront>
           : tensor<61x67xi8>, tensor<67x59xi8> -> tensor<61x59xi32>
    return %0 : tensor<61x59xi32>
  }
}

// -----

// gfx942 v_mfma_f32_16x16x32_fp8_bf8: A vector<8xf8E4M3FNUZ>, B vector<8xf8E5M2FNUZ>, D vector<4xf32>.
// CHECK-LABEL: gpu.func @form6_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<29x27xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @form6(%a: tensor<29x131xf8E4M3FNUZ>, %b: tensor<131x27xf8E5M2FNUZ>) -> tensor<29x27xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x32_fp8_bf8", workgroup_tile = [16, 16, 64], wave_tile = [16, 16], scope = wavefront>
           : tensor<29x131xf8E4M3FNUZ>, tensor<131x27xf8E5M2FNUZ> -> tensor<29x27xf32>
    return %0 : tensor<29x27xf32>
  }
}

// -----

// gfx950 v_mfma_f32_32x32x16_f16: A vector<8xf16>, B vector<8xf16>, D vector<16xf32>.
// CHECK-LABEL: gpu.func @form7_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<61x59xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-2: amdgpu.mfma 32x32x16 {{.*}} : vector<8xf16>, vector<8xf16>, vector<16xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @form7(%a: tensor<61x67xf16>, %b: tensor<67x59xf16>) -> tensor<61x59xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x16_f16", workgroup_tile = [32, 32, 32], wave_tile = [32, 32], scope = wavefront>
           : tensor<61x67xf16>, tensor<67x59xf16> -> tensor<61x59xf32>
    return %0 : tensor<61x59xf32>
  }
}

// -----

// gfx950 v_mfma_f32_16x16x32_bf16: A vector<8xbf16>, B vector<8xbf16>, D vector<4xf32>.
// CHECK-LABEL: gpu.func @form8_0(
// CHECK-SAME: %[[C:[^:]*]]: memref<29x27xf32, #gpu.address_space<global>>)
// CHECK: scf.for
// CHECK-COUNT-1: amdgpu.mfma 16x16x32 {{.*}} : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store {{.*}}, %[[C]]
// CHECK-NOT: memref.store {{.*}}, %[[C]]
// CHECK: gpu.return
module attributes {crest.target = #crest.target<chip = "gfx950">} {
  func.func @form8(%a: tensor<29x67xbf16>, %b: tensor<67x27xbf16>) -> tensor<29x27xf32> {
    %0 = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_16x16x32_bf16", workgroup_tile = [16, 16, 32], wave_tile = [16, 16], scope = wavefront>
           : tensor<29x67xbf16>, tensor<67x27xbf16> -> tensor<29x27xf32>
    return %0 : tensor<29x27xf32>
  }
}
