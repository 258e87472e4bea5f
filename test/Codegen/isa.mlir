// ISA of generated kernels (crest-select-config + crest-lower-to-gpu +
// crest-insert-barriers + the LLVM backend through crest-compile): the
// matrix instruction per chip and precision, the barriers per K step for
// each LDS depth, and the code-object version in the ELF header.
//
// RUN: split-file %s %t
//
// Instruction per chip and precision, as each chip spells it.
// RUN: crest-compile %t/f16.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=F16-942
// RUN: crest-compile %t/f16.mlir --target=gfx90a --emit=asm | FileCheck %s --check-prefix=F16-90A
// RUN: crest-compile %t/bf16.mlir --target=gfx90a --emit=asm | FileCheck %s --check-prefix=BF16-90A
// RUN: crest-compile %t/bf16.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=BF16-942
// RUN: crest-compile %t/i8.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=I8-942
// RUN: crest-compile %t/fp8-fnuz.mlir --target=gfx942 --emit=asm | FileCheck %s --check-prefix=FNUZ-942
// RUN: crest-compile %t/fp8-ocp.mlir --target=gfx950 --emit=asm | FileCheck %s --check-prefix=OCP-950
// F16-942: v_mfma_f32_{{32x32x8|16x16x16}}_f16
// F16-90A: v_mfma_f32_{{32x32x8|16x16x16}}f16
// BF16-90A: v_mfma_f32_{{32x32x8|16x16x16}}bf16_1k
// BF16-942: v_mfma_f32_{{32x32x8|16x16x16}}_bf16
// I8-942: v_mfma_i32_{{32x32x16|16x16x32}}_i8
// FNUZ-942: v_mfma_f32_{{32x32x16|16x16x32}}_fp8_fp8
// OCP-950: v_mfma_f32_{{32x32x16|16x16x32}}_fp8_fp8
//
// Barriers: K = 256 is 8 steps of 32. One LDS buffer needs two barriers per
// step (WAR before the copy, RAW after it): 16, and the backend keeps the
// loop (unrolled twice: 4 barriers and 8 MFMAs per iteration); two and
// three buffers need one per step: 8 (the backend unrolls these loops
// fully; 4 MFMAs per step, 32 in all).
// RUN: crest-compile %t/s1.mlir --target=gfx942 --emit=asm -o %t/s1.s
// RUN: grep -c s_barrier %t/s1.s | FileCheck %s --check-prefix=S1-BARRIERS
// RUN: grep -c v_mfma %t/s1.s | FileCheck %s --check-prefix=S1-MFMA
// RUN: crest-compile %t/s2.mlir --target=gfx942 --emit=asm -o %t/s2.s
// RUN: grep -c s_barrier %t/s2.s | FileCheck %s --check-prefix=S23-BARRIERS
// RUN: crest-compile %t/s3.mlir --target=gfx942 --emit=asm -o %t/s3.s
// RUN: grep -c s_barrier %t/s3.s | FileCheck %s --check-prefix=S23-BARRIERS
// RUN: grep -c v_mfma %t/s3.s | FileCheck %s --check-prefix=S23-MFMA
// S1-BARRIERS: {{^}}4{{$}}
// S1-MFMA: {{^}}8{{$}}
// S23-BARRIERS: {{^}}8{{$}}
// S23-MFMA: {{^}}32{{$}}
//
// Code-object version (v5 by default; ELF ABI version 3).
// RUN: crest-compile %t/s2.mlir --target=gfx942 --emit=hsaco -o %t/s2.co
// RUN: llvm-readelf -h %t/s2.co | FileCheck %s --check-prefix=ELF5
// RUN: crest-compile %t/s2.mlir --target=gfx942 --emit=hsaco --code-object-version=4 -o %t/s2.v4.co
// RUN: llvm-readelf -h %t/s2.v4.co | FileCheck %s --check-prefix=ELF4
// ELF5: ABI Version: 3
// ELF5: Flags: {{.*}}gfx942
// ELF4: ABI Version: 2
// ELF4: Flags: {{.*}}gfx942

//--- f16.mlir
module {
  func.func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- bf16.mlir
module {
  func.func @mm(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
           : tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- i8.mlir
module {
  func.func @mm(%a: tensor<256x256xi8>, %b: tensor<256x256xi8>) -> tensor<256x256xi32> {
    %0 = crest.matmul %a, %b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
           : tensor<256x256xi8>, tensor<256x256xi8> -> tensor<256x256xi32>
    return %0 : tensor<256x256xi32>
  }
}
//--- fp8-fnuz.mlir
module {
  func.func @mm(%a: tensor<256x256xf8E4M3FNUZ>, %b: tensor<256x256xf8E4M3FNUZ>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
           : tensor<256x256xf8E4M3FNUZ>, tensor<256x256xf8E4M3FNUZ> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- fp8-ocp.mlir
module {
  func.func @mm(%a: tensor<256x256xf8E4M3FN>, %b: tensor<256x256xf8E4M3FN>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f8E4M3FN, rhs = f8E4M3FN, acc = f32, out = f32>
           : tensor<256x256xf8E4M3FN>, tensor<256x256xf8E4M3FN> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- s1.mlir
module {
  func.func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 1>
           : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- s2.mlir
module {
  func.func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
//--- s3.mlir
module {
  func.func @mm(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 3>
           : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
