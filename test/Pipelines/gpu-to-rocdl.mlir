// crest-gpu-to-rocdl lowers gpu.module kernels to the LLVM and ROCDL
// dialects: bare-pointer kernel arguments, LDS as addrspace(3) globals, the
// known block size as ROCDL attributes, amdgpu.mfma as the chip's ROCDL
// intrinsic, and nothing left of the gpu, amdgpu, scf, memref or vector
// dialects, and no casts or calls.

// RUN: crest-opt %crest_src_root/examples/gemm-f16.gpu.mlir \
// RUN:   --pass-pipeline='builtin.module(crest-gpu-to-rocdl{chip=gfx942})' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: crest-opt %crest_src_root/examples/gemm-f16.gpu.mlir \
// RUN:   --pass-pipeline='builtin.module(crest-gpu-to-rocdl{chip=gfx90a index-bitwidth=32 code-object-version=4})' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX90A

// GFX942: gpu.module @gemm_module [#rocdl.target<O = 3, chip = "gfx942", abi = "500">]
// GFX90A: gpu.module @gemm_module [#rocdl.target<O = 3, chip = "gfx90a", abi = "400">]
// CHECK-DAG: llvm.mlir.global internal @__wg_gemm_f16_0() {addr_space = 3 : i32} : !llvm.array<2048 x f16>
// CHECK-DAG: llvm.mlir.global internal @__wg_gemm_f16_1() {addr_space = 3 : i32} : !llvm.array<2048 x f16>
// CHECK: llvm.func @gemm_f16(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %arg2: !llvm.ptr<1>)
// CHECK-SAME: rocdl.flat_work_group_size = "256,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
// CHECK: rocdl.workitem.id.x range <i32, 0, 256> : i32
// GFX942: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// GFX90A: llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// CHECK: rocdl.barrier
// CHECK: rocdl.mfma.f32.32x32x8f16 {{.*}} : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: rocdl.barrier
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: llvm.call
// CHECK-NOT: gpu.func
// CHECK-NOT: amdgpu.
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK-NOT: vector.
