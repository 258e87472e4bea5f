// The serializer's code objects: the ELF ABI version follows
// --code-object-version (v4: 2, v5: 3, v6: 4; v5 by default), e_flags name
// the chip, the metadata note carries the matching amdhsa.version, and the
// assembly states the version.

// RUN: crest-compile %s --skip-lowering --target=gfx942 -o %t.v5.hsaco
// RUN: llvm-readelf -h %t.v5.hsaco | FileCheck %s --check-prefixes=ELF,V5
// RUN: crest-compile %s --skip-lowering --target=gfx942 --code-object-version=4 -o %t.v4.hsaco
// RUN: llvm-readelf -h %t.v4.hsaco | FileCheck %s --check-prefixes=ELF,V4
// RUN: crest-compile %s --skip-lowering --target=gfx942 --code-object-version=6 -o %t.v6.hsaco
// RUN: llvm-readelf -h %t.v6.hsaco | FileCheck %s --check-prefixes=ELF,V6
// ELF: Class: ELF64
// ELF: OS/ABI: AMDGPU - HSA
// V4: ABI Version: 2
// V5: ABI Version: 3
// V6: ABI Version: 4
// ELF: Type: DYN (Shared object file)
// ELF: Machine: EM_AMDGPU
// ELF: Flags: {{.*}}gfx942

// RUN: llvm-readelf --notes %t.v4.hsaco | FileCheck %s --check-prefix=NOTE4
// RUN: llvm-readelf --notes %t.v5.hsaco | FileCheck %s --check-prefix=NOTE5
// NOTE4: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// NOTE4: amdhsa.version:
// NOTE4-NEXT: - 1
// NOTE4-NEXT: - 1
// NOTE5: .name: store_ids
// NOTE5: .reqd_workgroup_size:
// NOTE5: amdhsa.version:
// NOTE5-NEXT: - 1
// NOTE5-NEXT: - 2

// RUN: crest-compile %s --skip-lowering --target=gfx942 --code-object-version=4 --emit=asm | FileCheck %s --check-prefix=ASM4
// RUN: crest-compile %s --skip-lowering --target=gfx942 --emit=asm | FileCheck %s --check-prefix=ASM5
// ASM4: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ASM4: .amdhsa_code_object_version 4
// ASM5: .amdhsa_code_object_version 5

// e_flags name every chip of the chip table.
// RUN: crest-compile %s --skip-lowering --target=gfx908 -o %t.gfx908.hsaco
// RUN: llvm-readelf -h %t.gfx908.hsaco | FileCheck %s --check-prefix=GFX908
// RUN: crest-compile %s --skip-lowering --target=gfx90a -o %t.gfx90a.hsaco
// RUN: llvm-readelf -h %t.gfx90a.hsaco | FileCheck %s --check-prefix=GFX90A
// RUN: crest-compile %s --skip-lowering --target=gfx950 -o %t.gfx950.hsaco
// RUN: llvm-readelf -h %t.gfx950.hsaco | FileCheck %s --check-prefix=GFX950
// RUN: crest-compile %s --skip-lowering --target=gfx1100 -o %t.gfx1100.hsaco
// RUN: llvm-readelf -h %t.gfx1100.hsaco | FileCheck %s --check-prefix=GFX1100
// RUN: crest-compile %s --skip-lowering --target=gfx1201 -o %t.gfx1201.hsaco
// RUN: llvm-readelf -h %t.gfx1201.hsaco | FileCheck %s --check-prefix=GFX1201
// GFX908: Flags: {{.*}}gfx908
// GFX90A: Flags: {{.*}}gfx90a
// GFX950: Flags: {{.*}}gfx950
// GFX1100: Flags: {{.*}}gfx1100
// GFX1201: Flags: {{.*}}gfx1201

// The optimized LLVM IR has the triple, the version flag and the kernel
// calling convention.
// RUN: crest-compile %s --skip-lowering --target=gfx942 --emit=llvm | FileCheck %s --check-prefix=IR
// IR: ; gpu.module @ids
// IR: target triple = "amdgcn-amd-amdhsa"
// IR: define amdgpu_kernel void @store_ids(ptr addrspace(1) {{.*}}%0)
// IR: !{i32 1, !"amdhsa_code_object_version", i32 500}

gpu.module @ids {
  llvm.func @store_ids(%out: !llvm.ptr<1>) attributes {
      rocdl.kernel, rocdl.flat_work_group_size = "64,64",
      rocdl.reqd_work_group_size = array<i32: 64, 1, 1>} {
    %id = rocdl.workitem.id.x : i32
    %p = llvm.getelementptr %out[%id] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %id, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
