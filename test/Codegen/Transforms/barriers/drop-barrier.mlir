// drop-barrier=N leaves out the N-th barrier the pass would insert (program
// order), so that a test (here the checker, later the emulator) can show the
// barrier is needed. Each dropped barrier leaves the pairs only it ordered
// unordered, and the checker names exactly those.
//
// RUN: crest-opt %s --crest-insert-barriers | FileCheck %s --check-prefix=ALL
// RUN: crest-opt %s --crest-insert-barriers=drop-barrier=1 2>/dev/null | FileCheck %s --check-prefix=IR1
// RUN: crest-opt %s --crest-insert-barriers=drop-barrier=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN1
// RUN: not crest-opt %s --crest-insert-barriers=drop-barrier=1 --crest-verify-barriers -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY1
// RUN: crest-opt %s --crest-insert-barriers=drop-barrier=2 2>/dev/null | FileCheck %s --check-prefix=IR2
// RUN: not crest-opt %s --crest-insert-barriers=drop-barrier=2 --crest-verify-barriers -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY2
// RUN: crest-opt %s --crest-insert-barriers=drop-barrier=3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN3

// A single-buffered K loop (S = 1):
//   body: g0 [store slot 0] g1 [load slot 0] g2
// Barrier 1 at g0 orders the WAR of step t's load and step t+1's store;
// barrier 2 at g1 the RAW of each step's store and load.

// ALL:         scf.for
// ALL-NEXT:      vector.load {{.*}} : memref<?x64xf16>
// ALL-NEXT:      amdgpu.lds_barrier
// ALL-NEXT:      vector.store
// ALL-NEXT:      amdgpu.lds_barrier
// ALL-NEXT:      vector.load
// ALL-NEXT:      arith.addf

// IR1:         scf.for
// IR1-NEXT:      vector.load {{.*}} : memref<?x64xf16>
// IR1-NEXT:      vector.store
// IR1-NEXT:      amdgpu.lds_barrier
// IR1-NEXT:      vector.load

// WARN1:       drop-barrier.mlir:[[@LINE+28]]:7: warning: drop-barrier: barrier 1 (in the loop body) not inserted; 1 access pair(s) only it orders are left unordered:
// WARN1-NEXT:    WAR: 'vector.load' %arg2[0] (drop-barrier.mlir:[[@LINE+28]]:12) -> 'vector.store' %arg2[0] (drop-barrier.mlir:[[@LINE+27]]:7), iteration t -> t+1

// VERIFY1:     drop-barrier.mlir:[[@LINE+25]]:7: error: WAR hazard: 'vector.store' %arg2[0] may overwrite LDS still read by 'vector.load' %arg2[0] (drop-barrier.mlir:[[@LINE+26]]:12) (iteration t -> t+1) with no barrier in between
// VERIFY1-NOT: error:

// IR2:         scf.for
// IR2-NEXT:      vector.load {{.*}} : memref<?x64xf16>
// IR2-NEXT:      amdgpu.lds_barrier
// IR2-NEXT:      vector.store
// IR2-NEXT:      vector.load

// VERIFY2:     drop-barrier.mlir:[[@LINE+17]]:12: error: RAW hazard: 'vector.load' %arg2[0] may read LDS written by 'vector.store' %arg2[0] (drop-barrier.mlir:[[@LINE+16]]:7) (same iteration) with no barrier in between
// VERIFY2-NOT: error:

// WARN3:       warning: drop-barrier=3 but only 2 barrier(s) were placed

#wg = #gpu.address_space<workgroup>
gpu.module @drop {
  gpu.func @k(%a: memref<?x64xf16>, %out: memref<?xf16>)
              workgroup(%l: memref<1x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %z = arith.constant dense<0.0> : vector<4xf16>
    %n = memref.dim %a, %c0 : memref<?x64xf16>
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %z) -> (vector<4xf16>) {
      %g = vector.load %a[%t, %tid] : memref<?x64xf16>, vector<4xf16>
      vector.store %g, %l[%c0, %tid] : memref<1x64xf16, #wg>, vector<4xf16>
      %f = vector.load %l[%c0, %c0] : memref<1x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %x, %f : vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}
