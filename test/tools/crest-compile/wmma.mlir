// WMMA on RDNA: each chip's operand layout compiles (wave32 by default,
// wave64 with --wave-size=64 on gfx1100), the other one is rejected.

// RUN: split-file %s %t
// RUN: crest-compile %t/rdna3.mlir --target=gfx1100 --emit=asm | FileCheck %s --check-prefix=RDNA3
// RUN: crest-compile %t/rdna3-wave64.mlir --target=gfx1100 --wave-size=64 --emit=asm --report | FileCheck %s --check-prefix=WAVE64
// RUN: crest-compile %t/rdna4.mlir --target=gfx1201 --emit=asm | FileCheck %s --check-prefix=RDNA4
// RUN: not crest-compile %t/rdna3.mlir --target=gfx1201 --emit=asm 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not crest-compile %t/rdna3-wave64.mlir --target=gfx1100 --emit=asm 2>&1 | FileCheck %s --check-prefix=WRONG-WAVE

// RDNA3: .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// RDNA3: v_wmma_f32_16x16x16_f16 v[{{[0-9]+}}:{{[0-9]+}}], v[{{[0-9]+}}:{{[0-9]+}}], v[{{[0-9]+}}:{{[0-9]+}}]
// RDNA3: .wavefront_size: 32

// WAVE64: .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// WAVE64: v_wmma_f32_16x16x16_f16
// WAVE64: .wavefront_size: 64
// WAVE64: crest-compile report: gfx1100 (RDNA3), wave64, code object v5
// WAVE64: k m {{.*}} 1 0{{$}}

// RDNA4: .amdgcn_target "amdgcn-amd-amdhsa--gfx1201"
// RDNA4: v_wmma_f32_16x16x16_f16
// RDNA4: v_wmma_f32_16x16x16_fp8_fp8

// WRONG: rdna3.mlir:7:10: error: 'amdgpu.wmma' (16x16x16, f16 -> f32, 16 A and 8 C elements per lane in wave32) is not a matrix instruction of gfx1201 (RDNA4)
// WRONG-WAVE: error: 'amdgpu.wmma' (16x16x16, f16 -> f32, 16 A and 4 C elements per lane in wave32) is not a matrix instruction of gfx1100

//--- rdna3.mlir
gpu.module @m {
  gpu.func @k(%a: memref<16xf16, #gpu.address_space<global>>, %c: memref<8xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<16xf16, #gpu.address_space<global>>, vector<16xf16>
    %z = arith.constant dense<0.0> : vector<8xf32>
    %d = amdgpu.wmma 16x16x16 %va * %va + %z : vector<16xf16>, vector<16xf16>, vector<8xf32>
    vector.store %d, %c[%c0] : memref<8xf32, #gpu.address_space<global>>, vector<8xf32>
    gpu.return
  }
}

//--- rdna3-wave64.mlir
gpu.module @m {
  gpu.func @k(%a: memref<16xf16, #gpu.address_space<global>>, %c: memref<4xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %va = vector.load %a[%c0] : memref<16xf16, #gpu.address_space<global>>, vector<16xf16>
    %z = arith.constant dense<0.0> : vector<4xf32>
    %d = amdgpu.wmma 16x16x16 %va * %va + %z : vector<16xf16>, vector<16xf16>, vector<4xf32>
    vector.store %d, %c[%c0] : memref<4xf32, #gpu.address_space<global>>, vector<4xf32>
    gpu.return
  }
}

//--- rdna4.mlir
gpu.module @m {
  gpu.func @k(%a: memref<8xf16, #gpu.address_space<global>>, %f: memref<8xf8E4M3FN, #gpu.address_space<global>>,
              %c: memref<16xf32, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %va = vector.load %a[%c0] : memref<8xf16, #gpu.address_space<global>>, vector<8xf16>
    %vf = vector.load %f[%c0] : memref<8xf8E4M3FN, #gpu.address_space<global>>, vector<8xf8E4M3FN>
    %z = arith.constant dense<0.0> : vector<8xf32>
    %d = amdgpu.wmma 16x16x16 %va * %va + %z : vector<8xf16>, vector<8xf16>, vector<8xf32>
    %e = amdgpu.wmma 16x16x16 %vf * %vf + %z : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<8xf32>
    vector.store %d, %c[%c0] : memref<16xf32, #gpu.address_space<global>>, vector<8xf32>
    vector.store %e, %c[%c8] : memref<16xf32, #gpu.address_space<global>>, vector<8xf32>
    gpu.return
  }
}
