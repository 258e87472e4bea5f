// One amdgpu.mfma per element type, compiled for the chips that have it
// (with each chip's spelling) and rejected, with the op's location, on the
// chips that do not: bf16 with 4 elements per lane is CDNA2's "_1k" form
// (gfx908 only has the 2-element form), fp8 exists only on gfx942 (FNUZ)
// and gfx950 (OCP).

// RUN: split-file %s %t

// RUN: crest-compile %t/bf16.mlir --target=gfx90a --emit=asm | FileCheck %s --check-prefix=BF16-90A
// RUN: crest-compile %t/bf16.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=BF16-942
// RUN: not crest-compile %t/bf16.mlir --target=gfx908 --emit=asm 2>&1 | FileCheck %s --check-prefix=BF16-908
// BF16-90A: v_mfma_f32_32x32x8bf16_1k
// BF16-942: v_mfma_f32_32x32x8_bf16
// BF16-908: bf16.mlir:7:10: error: 'amdgpu.mfma' (32x32x8, bf16 -> f32, 4 A and 16 C elements per lane) is not a matrix instruction of gfx908 (CDNA1)
// BF16-908: note: gfx908's bf16 x bf16 -> f32 MFMA instructions: v_mfma_f32_32x32x4bf16 (32x32x4, 2 A and 16 C per lane)

// RUN: crest-compile %t/bf16-old.mlir --target=gfx908 --emit=asm | FileCheck %s --check-prefix=OLD
// RUN: crest-compile %t/bf16-old.mlir --target=gfx90a --emit=asm | FileCheck %s --check-prefix=OLD
// RUN: not crest-compile %t/bf16-old.mlir --target=gfx942 --emit=asm 2>&1 | FileCheck %s --check-prefix=OLD-942
// OLD: v_mfma_f32_32x32x4bf16 {{[av]}}[{{[0-9]+}}:{{[0-9]+}}]
// OLD-942: error: 'amdgpu.mfma' (32x32x4, bf16 -> f32, 2 A and 16 C elements per lane) is not a matrix instruction of gfx942

// RUN: crest-compile %t/fp8-fnuz.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=FNUZ-942
// RUN: not crest-compile %t/fp8-fnuz.mlir --target=gfx950 --emit=asm 2>&1 | FileCheck %s --check-prefix=FNUZ-950
// RUN: not crest-compile %t/fp8-fnuz.mlir --target=gfx90a --emit=asm 2>&1 | FileCheck %s --check-prefix=FNUZ-90A
// FNUZ-942: v_mfma_f32_16x16x32_fp8_fp8
// FNUZ-950: error: 'amdgpu.mfma' (16x16x32, f8E4M3FNUZ -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx950 (CDNA4)
// FNUZ-90A: error: 'amdgpu.mfma' (16x16x32, f8E4M3FNUZ -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx90a (CDNA2)

// RUN: crest-compile %t/fp8-ocp.mlir --target=gfx950 --emit=asm | FileCheck %s --check-prefix=OCP-950
// RUN: not crest-compile %t/fp8-ocp.mlir --target=gfx942 --emit=asm 2>&1 | FileCheck %s --check-prefix=OCP-942
// OCP-950: v_mfma_f32_16x16x32_fp8_fp8
// OCP-942: error: 'amdgpu.mfma' (16x16x32, f8E4M3FN -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx942 (CDNA3)

// RUN: crest-compile %t/i8.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=I8-942
// RUN: crest-compile %t/i8.mlir --target=gfx950 --emit=asm | FileCheck %s --check-prefix=I8-942
// I8-942: v_mfma_i32_16x16x32_i8

//--- bf16.mlir
gpu.module @m {
  gpu.func @k(%a: memref<4xbf16, #gpu.address_space<global>>, %c: memref<16xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<4xbf16, #gpu.address_space<global>>, vector<4xbf16>
    %z = arith.constant dense<0.0> : vector<16xf32>
    %d = amdgpu.mfma 32x32x8 %va * %va + %z blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
    vector.store %d, %c[%c0] : memref<16xf32, #gpu.address_space<global>>, vector<16xf32>
    gpu.return
  }
}

//--- bf16-old.mlir
gpu.module @m {
  gpu.func @k(%a: memref<2xbf16, #gpu.address_space<global>>, %c: memref<16xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<2xbf16, #gpu.address_space<global>>, vector<2xbf16>
    %z = arith.constant dense<0.0> : vector<16xf32>
    %d = amdgpu.mfma 32x32x4 %va * %va + %z blgp = none : vector<2xbf16>, vector<2xbf16>, vector<16xf32>
    vector.store %d, %c[%c0] : memref<16xf32, #gpu.address_space<global>>, vector<16xf32>
    gpu.return
  }
}

//--- fp8-fnuz.mlir
gpu.module @m {
  gpu.func @k(%a: memref<8xf8E4M3FNUZ, #gpu.address_space<global>>, %c: memref<4xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<8xf8E4M3FNUZ, #gpu.address_space<global>>, vector<8xf8E4M3FNUZ>
    %z = arith.constant dense<0.0> : vector<4xf32>
    %d = amdgpu.mfma 16x16x32 %va * %va + %z blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
    vector.store %d, %c[%c0] : memref<4xf32, #gpu.address_space<global>>, vector<4xf32>
    gpu.return
  }
}

//--- fp8-ocp.mlir
gpu.module @m {
  gpu.func @k(%a: memref<8xf8E4M3FN, #gpu.address_space<global>>, %c: memref<4xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<8xf8E4M3FN, #gpu.address_space<global>>, vector<8xf8E4M3FN>
    %z = arith.constant dense<0.0> : vector<4xf32>
    %d = amdgpu.mfma 16x16x32 %va * %va + %z blgp = none : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
    vector.store %d, %c[%c0] : memref<4xf32, #gpu.address_space<global>>, vector<4xf32>
    gpu.return
  }
}

//--- i8.mlir
gpu.module @m {
  gpu.func @k(%a: memref<8xi8, #gpu.address_space<global>>, %c: memref<4xi32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<8xi8, #gpu.address_space<global>>, vector<8xi8>
    %z = arith.constant dense<0> : vector<4xi32>
    %d = amdgpu.mfma 16x16x32 %va * %va + %z blgp = none : vector<8xi8>, vector<8xi8>, vector<4xi32>
    vector.store %d, %c[%c0] : memref<4xi32, #gpu.address_space<global>>, vector<4xi32>
    gpu.return
  }
}
