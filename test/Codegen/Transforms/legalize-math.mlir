// crest-legalize-math rewrites every math op that convert-gpu-to-rocdl
// would turn into an __ocml_* call (Crest links no ROCm device library) and
// leaves the ones the AMDGPU backend implements with instructions.

// RUN: split-file %s %t
// RUN: crest-opt %t/ops.mlir --crest-legalize-math | FileCheck %s --check-prefix=OPS
// RUN: crest-opt %t/kernel.mlir \
// RUN:   --pass-pipeline='builtin.module(crest-gpu-to-rocdl{chip=gfx942})' \
// RUN:   | FileCheck %s --check-prefix=KERNEL
// RUN: crest-opt %t/round.mlir --crest-legalize-math | FileCheck %s --check-prefix=ROUND
// RUN: crest-opt %t/f64exp.mlir --crest-legalize-math | FileCheck %s --check-prefix=F64
// RUN: crest-opt %t/f64.mlir --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(crest-gpu-to-rocdl{chip=gfx942})'

//--- round.mlir
// ceil and floor select between trunc(x) and trunc(x) +- 1, so that trunc's
// signed zero survives (ceil(-0.5) = -0, floor(0.5) = +0); an added select
// of 0 or 1 would make -0 + 0 = +0.
// ROUND-LABEL: func.func @round
// ROUND: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// ROUND: %[[T:.*]] = math.trunc %arg0 : f32
// ROUND: %[[GT:.*]] = arith.cmpf ogt, %arg0, %[[T]] : f32
// ROUND: %[[UP:.*]] = arith.addf %[[T]], %[[ONE]] : f32
// ROUND: %[[C:.*]] = arith.select %[[GT]], %[[UP]], %[[T]] : f32
// ROUND: %[[T2:.*]] = math.trunc %arg0 : f32
// ROUND: %[[LT:.*]] = arith.cmpf olt, %arg0, %[[T2]] : f32
// ROUND: %[[DOWN:.*]] = arith.subf %[[T2]], %[[ONE]] : f32
// ROUND: %[[F:.*]] = arith.select %[[LT]], %[[DOWN]], %[[T2]] : f32
// ROUND: return %[[C]], %[[F]]
func.func @round(%x: f32) -> (f32, f32) {
  %c = math.ceil %x : f32
  %f = math.floor %x : f32
  return %c, %f : f32, f32
}

//--- ops.mlir
// OPS-LABEL: func.func @replaced
// OPS-NOT: math.tanh
// OPS-NOT: math.erf
// OPS-NOT: math.sin
// OPS-NOT: math.cos
// OPS-NOT: math.atan
// OPS-NOT: math.log2
// OPS-NOT: math.log10
// OPS-NOT: math.exp2
// OPS-NOT: math.floor
// OPS-NOT: math.ceil
// OPS-NOT: math.powf
// OPS-NOT: math.rsqrt
// OPS-NOT: math.sinh
// OPS-NOT: arith.ceildivsi
// OPS: return
func.func @replaced(%x: f32, %h: f16, %i: i32)
    -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f16,
        f16, i32) {
  %0 = math.tanh %x : f32
  %1 = math.erf %x : f32
  %2 = math.sin %x : f32
  %3 = math.cos %x : f32
  %4 = math.atan %x : f32
  %5 = math.log2 %x : f32
  %6 = math.log10 %x : f32
  %7 = math.exp2 %x : f32
  %8 = math.floor %x : f32
  %9 = math.ceil %x : f32
  %10 = math.powf %x, %x : f32
  %11 = math.rsqrt %x : f32
  %12 = math.sinh %x : f32
  %13 = math.tanh %h : f16
  %14 = math.floor %h : f16
  %15 = arith.ceildivsi %i, %i : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15
      : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f16,
        f16, i32
}

// exp and log compute in f32 (the f16 forms are __ocml_exp_f16 and
// __ocml_log_f16); the backend's own f32 ops stay; f64 tanh stays as it is.
// OPS-LABEL: func.func @kept
// OPS: %[[EXT:.*]] = arith.extf %{{.*}} : f16 to f32
// OPS: %[[EXP:.*]] = math.exp %[[EXT]] : f32
// OPS: arith.truncf %[[EXP]] : f32 to f16
// OPS: math.exp %{{.*}} : f32
// OPS: math.log %{{.*}} : f32
// OPS: math.sqrt %{{.*}} : f32
// OPS: math.fma %{{.*}} : f32
// OPS: math.tanh %{{.*}} : f64
func.func @kept(%x: f32, %h: f16, %d: f64) -> (f16, f32, f32, f32, f32, f64) {
  %0 = math.exp %h : f16
  %1 = math.exp %x : f32
  %2 = math.log %x : f32
  %3 = math.sqrt %x : f32
  %4 = math.fma %x, %x, %x : f32
  %5 = math.tanh %d : f64
  return %0, %1, %2, %3, %4, %5 : f16, f32, f32, f32, f32, f64
}

//--- kernel.mlir
// In a kernel nothing calls out of the module after lowering.
// KERNEL: llvm.func @activations
// KERNEL-NOT: llvm.call
// KERNEL-NOT: __ocml
// KERNEL: llvm.return
gpu.module @m {
  gpu.func @activations(%p: memref<256xf32, #gpu.address_space<global>>,
                        %q: memref<256xf16, #gpu.address_space<global>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %x = memref.load %p[%tid] : memref<256xf32, #gpu.address_space<global>>
    %h = memref.load %q[%tid] : memref<256xf16, #gpu.address_space<global>>
    // GELU (tanh form) in f32, then erf, sigmoid-like and floor in f16.
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x3 = arith.mulf %x, %x : f32
    %x3b = arith.mulf %x3, %x : f32
    %t0 = arith.mulf %k, %x3b : f32
    %t1 = arith.addf %x, %t0 : f32
    %t2 = arith.mulf %c, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %one, %t3 : f32
    %t5 = arith.mulf %half, %x : f32
    %gelu = arith.mulf %t5, %t4 : f32
    %e = math.erf %h : f16
    %f = math.floor %e : f16
    %g = math.exp %f : f16
    %s = math.powf %gelu, %x : f32
    memref.store %s, %p[%tid] : memref<256xf32, #gpu.address_space<global>>
    memref.store %g, %q[%tid] : memref<256xf16, #gpu.address_space<global>>
    gpu.return
  }
}

//--- f64exp.mlir
// exp, log and log10 on f64 (scalars and vectors) are expanded in f64
// arithmetic. exp: k = round(x log2 e) with the 1.5 * 2^52 shifter, r = x -
// k ln 2 in two fma steps with Cody and Waite's split of ln 2, a Taylor
// polynomial in r (1/13! last), 2^k from biased exponent bits in two
// halves, and the overflow and underflow thresholds. log: subnormals scaled
// by 2^54, the exponent and mantissa from the bits, the mantissa folded
// below sqrt(2), and -inf at zero. The tests of the values are in
// test/Codegen/e2e/ops-elementwise.test.
// F64-LABEL: func.func @f64
// F64-NOT: math.exp
// F64-NOT: math.log
// F64-DAG: arith.constant 0x4338000000000000 : f64
// F64-DAG: arith.constant 1.4426950408889634 : f64
// F64-DAG: arith.constant -0.69314718036912382 : f64
// F64-DAG: arith.constant -1.9082149292705877E-10 : f64
// F64-DAG: arith.constant 1.6059043836821616E-10 : f64
// F64-DAG: arith.constant 709.78271289338397 : f64
// F64-DAG: arith.constant -745.13321910194111 : f64
// F64-DAG: arith.fptosi %{{.*}} : f64 to i32
// F64-DAG: arith.shli %{{.*}} : i64
// F64-DAG: arith.constant dense<0x4350000000000000> : vector<4xf64>
// F64-DAG: arith.constant dense<1.4142135623730951> : vector<4xf64>
// F64-DAG: arith.constant dense<0.043478260869565216> : vector<4xf64>
// F64-DAG: arith.divf %{{.*}} : vector<4xf64>
// F64-DAG: arith.constant dense<0xFFF0000000000000> : vector<4xf64>
// F64-DAG: arith.constant 0.43429448190325176 : f64
// F64: return
func.func @f64(%x: f64, %v: vector<4xf64>) -> (f64, vector<4xf64>, f64) {
  %0 = math.exp %x : f64
  %1 = math.log %v : vector<4xf64>
  %2 = math.log10 %x : f64
  return %0, %1, %2 : f64, vector<4xf64>, f64
}

//--- f64.mlir
// Other f64 math has no expansion: the device-library call it lowers to is an
// error at the op.
gpu.module @m {
  gpu.func @k(%p: memref<4xf64, #gpu.address_space<global>>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %x = memref.load %p[%c0] : memref<4xf64, #gpu.address_space<global>>
    // expected-error @+1 {{call to '__ocml_tanh_f64', a ROCm device-library function: Crest links no device library}}
    %y = math.tanh %x : f64
    memref.store %y, %p[%c0] : memref<4xf64, #gpu.address_space<global>>
    gpu.return
  }
}
