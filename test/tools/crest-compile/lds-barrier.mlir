// amdgpu.lds_barrier lowers to inline assembly on gfx908, which LLVM must
// parse (with the AMDGPU assembly parser) to write the object file.

// RUN: crest-compile %s --target=gfx908 --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: crest-compile %s --target=gfx908 -o %t.gfx908.hsaco
// RUN: crest-emu %t.gfx908.hsaco --list-kernels | FileCheck %s --check-prefix=LIST
// RUN: crest-compile %s --target=gfx908 --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: crest-compile %s --target=gfx942 --emit=asm | FileCheck %s --check-prefix=ASM

// MLIR: llvm.inline_asm has_side_effects {{.*}}s_barrier
// LIST: reverse
// ASM: ds_write_b32
// ASM: s_waitcnt lgkmcnt(0)
// ASM: s_barrier
// ASM: ds_read_b32

gpu.module @m {
  gpu.func @reverse(%p: memref<128xf32, #gpu.address_space<global>>)
      workgroup(%l: memref<128xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %v = memref.load %p[%tid] : memref<128xf32, #gpu.address_space<global>>
    memref.store %v, %l[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    amdgpu.lds_barrier
    %c127 = arith.constant 127 : index
    %j = arith.subi %c127, %tid : index
    %w = memref.load %l[%j] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %w, %p[%tid] : memref<128xf32, #gpu.address_space<global>>
    gpu.return
  }
}
