// Matrix intrinsics the chip lacks make LLVM's AMDGPU backend abort the
// process ("LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn...."). The
// serializer's chip-table check rejects each of them first, with the op's
// location; the same intrinsic compiles on a chip that has it. With the
// check disabled (--no-target-checks, for testing only) the backend still
// aborts, and the serializer's crash recovery turns that into an error
// exit instead of a SIGABRT (`not` fails on a crash).

// RUN: split-file %s %t

// The old 2 x bf16 MFMA: gfx90a has it, gfx942 and gfx950 do not.
// RUN: crest-compile %t/bf16.mlir --skip-lowering --target=gfx90a --emit=asm | FileCheck %s --check-prefix=BF16-OK
// RUN: not crest-compile %t/bf16.mlir --skip-lowering --target=gfx942 --emit=asm 2>&1 | FileCheck %s --check-prefix=BF16-942
// RUN: not crest-compile %t/bf16.mlir --skip-lowering --target=gfx950 --emit=asm 2>&1 | FileCheck %s --check-prefix=BF16-950
// RUN: not crest-compile %t/bf16.mlir --skip-lowering --target=gfx942 --emit=asm --no-target-checks 2>&1 | FileCheck %s --check-prefix=BF16-ABORT
// BF16-OK: v_mfma_f32_32x32x4bf16 v[{{[0-9]+}}:{{[0-9]+}}], v{{[0-9]+}}, v{{[0-9]+}}, 0
// BF16-942: error: 'rocdl.mfma.f32.32x32x4bf16' (32x32x4, bf16 -> f32, 2 A and 16 C elements per lane) is not a matrix instruction of gfx942 (CDNA3) in Crest's chip table
// BF16-942: note: gfx942's bf16 x bf16 -> f32 MFMA instructions: v_mfma_f32_32x32x8_bf16
// BF16-950: error: 'rocdl.mfma.f32.32x32x4bf16' {{.*}} is not a matrix instruction of gfx950 (CDNA4)
// BF16-ABORT: error: the LLVM AMDGPU backend failed on gpu.module @bf16 for gfx942 (LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.mfma.f32.32x32x4bf16); Crest's chip-table checks should have rejected this input: please report it

// xf32: gfx942 has it, gfx950 does not.
// RUN: crest-compile %t/xf32.mlir --skip-lowering --target=gfx942 --emit=asm | FileCheck %s --check-prefix=XF32-OK
// RUN: not crest-compile %t/xf32.mlir --skip-lowering --target=gfx950 --emit=asm 2>&1 | FileCheck %s --check-prefix=XF32-950
// RUN: not crest-compile %t/xf32.mlir --skip-lowering --target=gfx950 --emit=asm --no-target-checks 2>&1 | FileCheck %s --check-prefix=XF32-ABORT
// XF32-OK: v_mfma_f32_16x16x8_xf32
// XF32-950: error: 'rocdl.mfma.f32.16x16x8.xf32' (16x16x8, xf32 -> f32, 2 A and 4 C elements per lane) is not a matrix instruction of gfx950 (CDNA4)
// XF32-950: note: gfx950 has no xf32 x xf32 -> f32 MFMA instruction
// XF32-ABORT: (LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.mfma.f32.16x16x8.xf32)

// WMMA with RDNA3's operand layout (16 halves per lane) on RDNA4, and the
// RDNA4 layout (8 halves) on RDNA3.
// RUN: crest-compile %t/wmma-gfx11.mlir --skip-lowering --target=gfx1100 --emit=asm | FileCheck %s --check-prefix=WMMA11-OK
// RUN: not crest-compile %t/wmma-gfx11.mlir --skip-lowering --target=gfx1201 --emit=asm 2>&1 | FileCheck %s --check-prefix=WMMA11-1201
// RUN: not crest-compile %t/wmma-gfx11.mlir --skip-lowering --target=gfx1201 --emit=asm --no-target-checks 2>&1 | FileCheck %s --check-prefix=WMMA-ABORT
// RUN: crest-compile %t/wmma-gfx12.mlir --skip-lowering --target=gfx1201 --emit=asm | FileCheck %s --check-prefix=WMMA12-OK
// RUN: not crest-compile %t/wmma-gfx12.mlir --skip-lowering --target=gfx1100 --emit=asm 2>&1 | FileCheck %s --check-prefix=WMMA12-1100
// RUN: not crest-compile %t/wmma-gfx12.mlir --skip-lowering --target=gfx1100 --emit=asm --no-target-checks 2>&1 | FileCheck %s --check-prefix=WMMA-ABORT
// WMMA11-OK: v_wmma_f32_16x16x16_f16 v[{{[0-9]+}}:{{[0-9]+}}], v[{{[0-9]+}}:{{[0-9]+}}]
// WMMA11-1201: error: 'rocdl.wmma.f32.16x16x16.f16' (16x16x16, f16 -> f32, 16 A and 8 C elements per lane in wave32) is not a matrix instruction of gfx1201 (RDNA4)
// WMMA11-1201: note: gfx1201's f16 x f16 -> f32 WMMA instructions: v_wmma_f32_16x16x16_f16 (16x16x16, 8 A and 8 C per lane)
// WMMA12-OK: v_wmma_f32_16x16x16_f16
// WMMA12-1100: error: 'rocdl.wmma.f32.16x16x16.f16' (16x16x16, f16 -> f32, 8 A and 8 C elements per lane in wave32) is not a matrix instruction of gfx1100 (RDNA3)
// WMMA12-1100: note: gfx1100's f16 x f16 -> f32 WMMA instructions: v_wmma_f32_16x16x16_f16 (16x16x16, 16 A and 8 C per lane)
// WMMA-ABORT: (LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.wmma.f32.16x16x16.f16)

// An unknown chip never reaches LLVM (which would abort on "'gfx9999' is
// not a recognized processor").
// RUN: not crest-compile %t/bf16.mlir --skip-lowering --target=gfx9999 --emit=asm 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: crest-compile: error: unknown chip 'gfx9999'; known chips: gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201

//--- bf16.mlir
gpu.module @bf16 {
  llvm.func @k(%a: vector<2xi16>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    %c = llvm.mlir.constant(dense<0.0> : vector<16xf32>) : vector<16xf32>
    %d = rocdl.mfma.f32.32x32x4bf16 %a, %a, %c, %z, %z, %z
        : (vector<2xi16>, vector<2xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
    llvm.store %d, %out : vector<16xf32>, !llvm.ptr<1>
    llvm.return
  }
}

//--- xf32.mlir
gpu.module @xf32 {
  llvm.func @k(%a: vector<2xf32>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %z = llvm.mlir.constant(0 : i32) : i32
    %c = llvm.mlir.constant(dense<0.0> : vector<4xf32>) : vector<4xf32>
    %d = rocdl.mfma.f32.16x16x8.xf32 %a, %a, %c, %z, %z, %z
        : (vector<2xf32>, vector<2xf32>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
    llvm.store %d, %out : vector<4xf32>, !llvm.ptr<1>
    llvm.return
  }
}

//--- wmma-gfx11.mlir
gpu.module @wmma {
  llvm.func @k(%a: vector<16xf16>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %c = llvm.mlir.constant(dense<0.0> : vector<8xf32>) : vector<8xf32>
    %d = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c
        : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr<1>
    llvm.return
  }
}

//--- wmma-gfx12.mlir
gpu.module @wmma {
  llvm.func @k(%a: vector<8xf16>, %out: !llvm.ptr<1>) attributes {rocdl.kernel} {
    %c = llvm.mlir.constant(dense<0.0> : vector<8xf32>) : vector<8xf32>
    %d = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c
        : (vector<8xf16>, vector<8xf16>, vector<8xf32>) -> vector<8xf32>
    llvm.store %d, %out : vector<8xf32>, !llvm.ptr<1>
    llvm.return
  }
}
