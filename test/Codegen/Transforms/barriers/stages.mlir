// RUN: crest-opt %s -split-input-file --crest-insert-barriers | FileCheck %s
// The checker accepts what the pass produced.
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-verify-barriers -o /dev/null

// The three multi-buffering depths of a K loop, in the shape crest codegen
// emits: every K step copies a 32x32 f16 tile of A and of B cooperatively
// into LDS (each work-item stores 8 halves) and every wave reads 16x4
// fragments back for the MFMA.
//
// Within the loop body the positions (gaps) are numbered g0 (before the
// first LDS access of the body) to gN (after the last one). A pair whose
// second access is in the next iteration is ordered by a barrier after the
// first access or before the second one (the body is a cycle); a pair two
// iterations apart by any barrier of the body.

#wg = #gpu.address_space<workgroup>

// S = 1: the copy of step t and the reads of step t share the one slot.
//   body: g0 [store A] g1 [store B] g2 [load A] g3 [load B] g4
// - RAW, same iteration: store A -> load A in {g1, g2}, store B -> load B
//   in {g2, g3}: g2 hits both.
// - WAR, t -> t+1: load A -> store A of the next step in {g3, g4, g0},
//   load B -> store B in {g4, g0, g1}: g4 or g0 hits both.
// Two barriers per K step, at g0 (the earliest of the equivalent g0/g4) and
// g2. Nothing outside the loop touches LDS, so no other barrier.
gpu.module @stages1 {
  // CHECK-LABEL: gpu.module @stages1
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK:         vector.load {{.*}} : memref<?x32xf16>, vector<8xf16>
  // CHECK-NEXT:    vector.load {{.*}} : memref<?x32xf16>, vector<8xf16>
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.store {{.*}} : memref<1x32x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
  // CHECK-NEXT:    vector.store {{.*}} : memref<1x32x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.load {{.*}} : memref<1x32x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
  // CHECK-NEXT:    vector.load {{.*}} : memref<1x32x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
  // CHECK-NEXT:    amdgpu.mfma
  // CHECK-NEXT:    scf.yield
  // CHECK-NEXT:  }
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %b: memref<?x32xf16>,
                 %out: memref<?x4xf32>, %n: index)
      workgroup(%la: memref<1x32x32xf16, #wg>, %lb: memref<1x32x32xf16, #wg>)
      kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
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
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %k = arith.muli %t, %c32 : index
      %grow = arith.addi %k, %r : index
      %ga = vector.load %a[%grow, %col] : memref<?x32xf16>, vector<8xf16>
      %gb = vector.load %b[%grow, %col] : memref<?x32xf16>, vector<8xf16>
      vector.store %ga, %la[%c0, %r, %col] : memref<1x32x32xf16, #wg>, vector<8xf16>
      vector.store %gb, %lb[%c0, %r, %col] : memref<1x32x32xf16, #wg>, vector<8xf16>
      %fa = vector.load %la[%c0, %lane, %c0] : memref<1x32x32xf16, #wg>, vector<4xf16>
      %fb = vector.load %lb[%c0, %lane, %c0] : memref<1x32x32xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %fa * %fb + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// S = 2, double buffering: the prologue fills slot 0 with step 0; step t
// prefetches step t+1 into slot (t+1) mod 2 (under scf.if, which counts as
// one point that may or may not write) and reads slot t mod 2.
//   body: g0 [scf.if: store A, B] g1 [load A] g2 [load B] g3
// - RAW, t -> t+1: the prefetch of step t -> its reads in step t+1 (slot
//   (t+1) mod 2 both times): {g1, g2, g3, g0} (A), {g2, g3, g0, g1} (B).
// - WAR, t -> t+1: the reads of slot t mod 2 -> the prefetch of step t+1
//   into slot (t+2) mod 2, the same slot: {g2, g3, g0} (A), {g3, g0} (B).
// - Same iteration: the prefetch writes the other slot; no hazard.
// - RAW, prologue -> first iteration: store A slot 0 -> load A in step 0:
//   {the gaps after the store before the loop, g0, g1}; likewise for B.
// One barrier inside the loop must be g0 or g3; g0 also runs before the
// first iteration's reads, so it orders the prologue fill too: exactly one
// barrier, at the top of the body, and none before the loop.
gpu.module @stages2 {
  // CHECK-LABEL: gpu.module @stages2
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    scf.if
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.yield
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %b: memref<?x32xf16>,
                 %out: memref<?x4xf32>, %n: index)
      workgroup(%la: memref<2x32x32xf16, #wg>, %lb: memref<2x32x32xf16, #wg>)
      kernel {
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
    // Prologue: step 0 into slot 0.
    %ga0 = vector.load %a[%r, %col] : memref<?x32xf16>, vector<8xf16>
    %gb0 = vector.load %b[%r, %col] : memref<?x32xf16>, vector<8xf16>
    vector.store %ga0, %la[%c0, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
    vector.store %gb0, %lb[%c0, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %t1 = arith.addi %t, %c1 : index
      %more = arith.cmpi ult, %t1, %n : index
      scf.if %more {
        %next = arith.remui %t1, %c2 : index
        %k = arith.muli %t1, %c32 : index
        %grow = arith.addi %k, %r : index
        %ga = vector.load %a[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        %gb = vector.load %b[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %ga, %la[%next, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
        vector.store %gb, %lb[%next, %r, %col] : memref<2x32x32xf16, #wg>, vector<8xf16>
      }
      %cur = arith.remui %t, %c2 : index
      %fa = vector.load %la[%cur, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      %fb = vector.load %lb[%cur, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %fa * %fb + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>
#next = affine_map<(d0) -> ((d0 + 2) mod 3)>
#cur = affine_map<(d0) -> (d0 mod 3)>

// S = 3 with a constant trip count (8 K steps, simulated exactly), slots
// from affine.apply. The prologue fills slots 0 and 1 with steps 0 and 1;
// step t prefetches step t+2 into slot (t+2) mod 3 and reads slot t mod 3.
//   body: g0 [scf.if: store A, B] g1 [load A] g2 [load B] g3
// - RAW: the prefetch of step t is read in step t+2, two iterations later:
//   any barrier of the body orders it.
// - WAR, t -> t+1: the reads of slot t mod 3 -> the prefetch of step t+1
//   into slot (t+3) mod 3, the same slot: {g2, g3, g0} (A), {g3, g0} (B).
// - Prologue: slot 0 is read in step 0 ({..., g0, g1}), slot 1 in step 1
//   (any barrier of the body).
// One barrier, at g0, orders everything: three stages also need exactly one
// barrier per K step (the WAR pair is still one iteration apart, as the
// prefetch distance grows with the number of slots).
gpu.module @stages3 {
  // CHECK-LABEL: gpu.module @stages3
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    scf.if
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.yield
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %b: memref<?x32xf16>,
                 %out: memref<?x4xf32>)
      workgroup(%la: memref<3x32x32xf16, #wg>, %lb: memref<3x32x32xf16, #wg>)
      kernel {
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
    // Prologue: steps 0 and 1 into slots 0 and 1.
    %ga0 = vector.load %a[%r, %col] : memref<?x32xf16>, vector<8xf16>
    %gb0 = vector.load %b[%r, %col] : memref<?x32xf16>, vector<8xf16>
    vector.store %ga0, %la[%c0, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
    vector.store %gb0, %lb[%c0, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
    %row1 = arith.addi %r, %c32 : index
    %ga1 = vector.load %a[%row1, %col] : memref<?x32xf16>, vector<8xf16>
    %gb1 = vector.load %b[%row1, %col] : memref<?x32xf16>, vector<8xf16>
    vector.store %ga1, %la[%c1, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
    vector.store %gb1, %lb[%c1, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
    %acc = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %t2 = arith.addi %t, %c2 : index
      %more = arith.cmpi ult, %t2, %c8 : index
      scf.if %more {
        %next = affine.apply #next(%t)
        %k = arith.muli %t2, %c32 : index
        %grow = arith.addi %k, %r : index
        %ga = vector.load %a[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        %gb = vector.load %b[%grow, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %ga, %la[%next, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
        vector.store %gb, %lb[%next, %r, %col] : memref<3x32x32xf16, #wg>, vector<8xf16>
      }
      %cur = affine.apply #cur(%t)
      %fa = vector.load %la[%cur, %lane, %c0] : memref<3x32x32xf16, #wg>, vector<4xf16>
      %fb = vector.load %lb[%cur, %lane, %c0] : memref<3x32x32xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %fa * %fb + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}
