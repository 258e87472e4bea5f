// RUN: crest-opt %s -split-input-file --crest-insert-barriers | FileCheck %s
// Running the pass again adds nothing: its own barriers are counted.
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-insert-barriers | FileCheck %s
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-verify-barriers=report-redundant -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDUNDANT

// Barriers already in the kernel (any of amdgpu.lds_barrier, gpu.barrier,
// rocdl.s.barrier) are kept and counted; the pass adds only what is
// missing. With report-redundant, the checker marks barriers that order no
// access pair another barrier does not (here run after the pass).

#wg = #gpu.address_space<workgroup>

// A single-buffered loop with its WAR barrier already in place (as
// gpu.barrier at the top of the body) and one useless barrier between the
// two loads: the pass adds only the RAW barrier between the store and the
// first load.
gpu.module @partial {
  // CHECK-LABEL: gpu.module @partial
  // CHECK:       scf.for
  // CHECK-NEXT:    gpu.barrier
  // CHECK-NEXT:    vector.store
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.load
  // CHECK-NEXT:    rocdl.s.barrier
  // CHECK-NEXT:    vector.load
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<1x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %tid = gpu.thread_id x
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %v) -> (vector<4xf16>) {
      gpu.barrier
      vector.store %x, %l[%c0, %tid] : memref<1x64xf16, #wg>, vector<4xf16>
      %f = vector.load %l[%c0, %c0] : memref<1x64xf16, #wg>, vector<4xf16>
      // Orders the store before the second load; so does the barrier the
      // pass inserts before the first load, which makes this one redundant.
      // REDUNDANT: existing.mlir:[[@LINE+1]]:7: remark: redundant barrier: every access pair it orders is ordered by another barrier
      rocdl.s.barrier
      %h = vector.load %l[%c0, %c8] : memref<1x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %f, %h : vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Fully synchronised already, with two redundant barriers: one right after
// another, and one between two loads of different buffers.
gpu.module @redundant {
  // CHECK-LABEL: gpu.module @redundant
  // CHECK-COUNT-3: barrier
  // CHECK-NOT:   barrier
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>)
      workgroup(%l: memref<64xf16, #wg>, %m: memref<64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    vector.store %v, %l[%tid] : memref<64xf16, #wg>, vector<4xf16>
    vector.store %v, %m[%tid] : memref<64xf16, #wg>, vector<4xf16>
    amdgpu.lds_barrier
    // REDUNDANT: existing.mlir:[[@LINE+1]]:5: remark: redundant barrier
    gpu.barrier
    %a = vector.load %l[%c0] : memref<64xf16, #wg>, vector<4xf16>
    // REDUNDANT: existing.mlir:[[@LINE+1]]:5: remark: redundant barrier
    amdgpu.lds_barrier
    %b = vector.load %m[%c0] : memref<64xf16, #wg>, vector<4xf16>
    %s = arith.addf %a, %b : vector<4xf16>
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}
// REDUNDANT-NOT: remark
