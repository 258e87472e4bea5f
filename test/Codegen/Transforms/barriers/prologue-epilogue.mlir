// RUN: crest-opt %s -split-input-file --crest-insert-barriers | FileCheck %s
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-verify-barriers -o /dev/null

// Barriers outside the K loop: a prologue that reads what it filled, an
// operand that stays in LDS for the whole loop, and an epilogue that
// reuses the LDS of the A tiles to stage the output tile.

#wg = #gpu.address_space<workgroup>

// Register prefetch: the prologue fills slot 0 with step 0 and reads the
// fragments of step 0 into registers; step t prefetches step t+1 into slot
// (t+1) mod 2, computes from the registers and reads the fragments of step
// t+1 from slot (t+1) mod 2.
//   prologue: [store A slot 0] p1 [load A slot 0] p2 (= before the loop)
//   body:     g0 [scf.if: store A slot (t+1) mod 2] g1 [load A slot
//             (t+1) mod 2] g2
// - RAW in the prologue: store -> load of slot 0: {p1}. The prologue fill
//   needs its own barrier, before the loop.
// - RAW, same iteration: the prefetch store -> the fragment load of the
//   same slot: {g1}.
// - WAR: the fragment load of step t (slot (t+1) mod 2) and the prefetch of
//   step t+2 into slot (t+3) mod 2 are two iterations apart (g1 orders
//   them); the prologue's load of slot 0 -> the prefetch of step 1 into
//   slot 0 spans iteration 0 (g1 again).
// One barrier in the prologue, one per K step between the prefetch store and
// the fragment load.
gpu.module @prefetch {
  // CHECK-LABEL: gpu.module @prefetch
  // CHECK:       vector.store {{.*}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  vector.load {{.*}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
  // CHECK-NEXT:  scf.for
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.if
  // CHECK:         }
  // CHECK-NEXT:    amdgpu.mfma
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.remui
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.load {{.*}} : memref<2x32x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
  // CHECK-NEXT:    scf.yield
  // CHECK-NEXT:  }
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %bfrag: vector<4xf16>,
                 %out: memref<?x4xf32>, %n: index)
      workgroup(%la: memref<2x32x32xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %r = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %col = arith.muli %q, %c8 : index
    %lane = arith.remui %tid, %c16 : index
    %g0 = vector.load %a[%r, %col] : memref<?x32xf16>, vector<8xf16>
    vector.store %g0, %la[%c0, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
    %f0 = vector.load %la[%c0, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
    %acc:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero, %f = %f0)
        -> (vector<4xf32>, vector<4xf16>) {
      %t1 = arith.addi %t, %c1 : index
      %more = arith.cmpi ult, %t1, %n : index
      scf.if %more {
        %next = arith.remui %t1, %c2 : index
        %k = arith.muli %t1, %c32 : index
        %grow = arith.addi %k, %r : index
        %g = vector.load %a[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %g, %la[%next, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
      }
      %y = amdgpu.mfma 16x16x16 %f * %bfrag + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      %u1 = arith.addi %t, %c1 : index
      %s1 = arith.remui %u1, %c2 : index
      %nf = vector.load %la[%s1, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      scf.yield %y, %nf : vector<4xf32>, vector<4xf16>
    }
    vector.store %acc#0, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// A stationary operand: the prologue copies the whole B panel into LDS once,
// every K step reads it, nothing in the loop writes LDS. The only hazards are
// the prologue store -> the loads of every iteration, and (when the loop runs
// no iteration) nothing after it reads LDS. A barrier inside the loop would
// run every step; the barrier right before the loop orders all of them once.
gpu.module @stationary {
  // CHECK-LABEL: gpu.module @stationary
  // CHECK:       vector.store {{.*}} : memref<4x16x16xf16, #gpu.address_space<workgroup>>, vector<4xf16>
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  scf.for
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemv(%a: memref<?x16xf16>, %b: memref<64x16xf16>,
                 %out: memref<?x4xf32>, %n: index)
      workgroup(%lb: memref<4x16x16xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %tile = arith.divui %tid, %c16 : index
    %row = arith.remui %tid, %c16 : index
    %q = arith.remui %tid, %c4 : index
    %col = arith.muli %q, %c4 : index
    %gb = vector.load %b[%tid, %col] : memref<64x16xf16>, vector<4xf16>
    vector.store %gb, %lb[%tile, %row, %col] : memref<4x16x16xf16, #wg>, vector<4xf16>
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %fa = vector.load %a[%t, %col] : memref<?x16xf16>, vector<4xf16>
      %j = arith.remui %t, %c4 : index
      %fb = vector.load %lb[%j, %row, %col] : memref<4x16x16xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %fa * %fb + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// The epilogue stages the 16x64 f32 output tile through the same 4 KiB of
// LDS that held the double-buffered A tiles (two memref.view of one i8
// buffer), to turn column-strided results into row stores. The trip count
// is unknown, so the loop may run no iteration.
//   prologue: [store A slot 0] p1 (= before the loop)
//   body:     g0 [scf.if: store A slot (t+1) mod 2] g1 [load A slot t mod 2] g2
//   epilogue: e0 (= after the loop) [store C] e1 [load C] e2
// - In the loop, as for any double buffer: one barrier at g0, which also
//   orders the prologue fill before the first reads.
// - C overlaps both slots. WAR, last iteration -> after the loop: the load
//   of slot (T-1) mod 2 -> store C in {g2, e0}; WAW: the last prefetch
//   (the analysis does not know the last scf.if writes nothing) -> store C
//   in {g1, g2, e0}; and when the loop runs no iteration, WAW: the
//   prologue's store -> store C in {p1, e0}. One barrier at e0 orders all
//   three (g2 would do for the first two, but then p1 or e0 is still needed).
// - RAW: store C -> load C: {e1}.
gpu.module @staging {
  // CHECK-LABEL: gpu.module @staging
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    scf.if
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.yield
  // CHECK-NEXT:  }
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  vector.store {{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  vector.load {{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  // CHECK-NEXT:  vector.store {{.*}} : memref<?x64xf32>, vector<4xf32>
  // CHECK-NEXT:  gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %bfrag: vector<4xf16>,
                 %out: memref<?x64xf32>, %n: index)
      workgroup(%smem: memref<4096xi8, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %la = memref.view %smem[%c0][] : memref<4096xi8, #wg> to memref<2x32x32xf16, #wg>
    %lc = memref.view %smem[%c0][] : memref<4096xi8, #wg> to memref<16x64xf32, #wg>
    %tid = gpu.thread_id x
    %r = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %col = arith.muli %q, %c8 : index
    %lane = arith.remui %tid, %c16 : index
    %quad = arith.divui %tid, %c16 : index
    %ccol = arith.muli %quad, %c4 : index
    %g0 = vector.load %a[%r, %col] : memref<?x32xf16>, vector<8xf16>
    vector.store %g0, %la[%c0, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %t1 = arith.addi %t, %c1 : index
      %more = arith.cmpi ult, %t1, %n : index
      scf.if %more {
        %next = arith.remui %t1, %c2 : index
        %k = arith.muli %t1, %c32 : index
        %grow = arith.addi %k, %r : index
        %g = vector.load %a[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %g, %la[%next, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
      }
      %cur = arith.remui %t, %c2 : index
      %f = vector.load %la[%cur, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %f * %bfrag + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %lc[%lane, %ccol] : memref<16x64xf32, #wg>, vector<4xf32>
    %o = vector.load %lc[%quad, %ccol] : memref<16x64xf32, #wg>, vector<4xf32>
    vector.store %o, %out[%quad, %ccol] : memref<?x64xf32>, vector<4xf32>
    gpu.return
  }
}
