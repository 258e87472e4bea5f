// RUN: crest-opt %s -split-input-file --crest-insert-barriers -verify-diagnostics | FileCheck %s

// Accesses nested in scf.if and in inner loops happen at the position of
// the outermost region op in the kernel body or the K loop body, possibly
// several times; barriers go only between such positions.

#wg = #gpu.address_space<workgroup>

// The fragments of one K step are read by an inner loop over the K
// sub-steps, and the prefetch is split in two guarded copies (as codegen
// does for a tile that is not a multiple of the workgroup size).
//   body: g0 [scf.if: store A (t+1) mod 2] g1 [scf.if: store A (t+1) mod 2]
//         g2 [scf.for: load A t mod 2, 4 times] g3
// - The two guarded stores are one cooperative copy (same slot, no read in
//   between): they need no barrier between them.
// - RAW t -> t+1: {g1, g2, g3, g0} and {g2, g3, g0}; WAR t -> t+1 from the
//   inner loop's loads to the stores: {g3, g0} and {g3, g0, g1}.
// One barrier at g0.
gpu.module @inner_loop {
  // CHECK-LABEL: gpu.module @inner_loop
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    arith.remui
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    scf.if
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.if
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:         scf.for
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x32xf16>, %bfrag: vector<4xf16>,
                 %out: memref<?x4xf32>, %n: index)
      workgroup(%la: memref<2x64x32xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c384 = arith.constant 384 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %q = arith.remui %tid, %c4 : index
    %col = arith.muli %q, %c8 : index
    %lane = arith.remui %tid, %c16 : index
    %chunk1 = arith.addi %tid, %c256 : index
    %r0 = arith.divui %tid, %c4 : index
    %r1 = arith.divui %chunk1, %c4 : index
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %t1 = arith.addi %t, %c1 : index
      %more = arith.cmpi ult, %t1, %n : index
      %next = arith.remui %t1, %c2 : index
      scf.if %more {
        %g = vector.load %a[%r0, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %g, %la[%next, %r0, %col] : memref<2x64x32xf16, #wg>, vector<8xf16>
      }
      %tail = arith.cmpi ult, %chunk1, %c384 : index
      %both = arith.andi %more, %tail : i1
      scf.if %both {
        %g = vector.load %a[%r1, %col] : memref<?x32xf16>, vector<8xf16>
        vector.store %g, %la[%next, %r1, %col] : memref<2x64x32xf16, #wg>, vector<8xf16>
      }
      %cur = arith.remui %t, %c2 : index
      %y = scf.for %kk = %c0 to %c32 step %c8 iter_args(%z = %x) -> (vector<4xf32>) {
        %f = vector.load %la[%cur, %lane, %kk] : memref<2x64x32xf16, #wg>, vector<4xf16>
        %w = amdgpu.mfma 16x16x16 %f * %bfrag + %z blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
        scf.yield %w : vector<4xf32>
      }
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// The two branches of one scf.if never both run: the store in one and the
// load in the other are no hazard, and there is nothing to order.
gpu.module @branches {
  // CHECK-LABEL: gpu.module @branches
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %c: i1)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    scf.if %c {
      vector.store %v, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    } else {
      %x = vector.load %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      vector.store %x, %out[%tid] : memref<?xf16>, vector<4xf16>
    }
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// The branch condition is not analysed: a ping-pong written with scf.if
// (even steps write slot 1 and read slot 0, odd steps the other way round)
// looks like "may write slot 0 or 1, reads slot t mod 2". The write may then
// hit the slot read in the same step, so the pass needs a second barrier
// between them. Sound, but one barrier more than the (t+1) mod 2 form.
gpu.module @pingpong {
  // CHECK-LABEL: gpu.module @pingpong
  // CHECK:       scf.for
  // CHECK:         amdgpu.lds_barrier
  // CHECK-NEXT:    scf.if
  // CHECK:         amdgpu.lds_barrier
  // CHECK-NEXT:    vector.load
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tid = gpu.thread_id x
    %s = scf.for %t = %c0 to %n step %c1 iter_args(%x = %v) -> (vector<4xf16>) {
      %p = arith.remui %t, %c2 : index
      %even = arith.cmpi eq, %p, %c0 : index
      scf.if %even {
        vector.store %x, %l[%c1, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      } else {
        vector.store %x, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      }
      %y = vector.load %l[%p, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// A store and a load of the same slot inside one inner loop of the K loop:
// only a barrier inside that inner loop could order them, and the pass
// places barriers only between the points of the kernel and K loop bodies.
gpu.module @unorderable {
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        // expected-note@+1 {{the conflicting access}}
        vector.store %v, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
        // expected-error-re@+1 {{RAW hazard inside one nested region: 'vector.store' %arg3[0] (control-flow.mlir:{{[0-9]+}}:9) -> 'vector.load' %arg3[0]; crest-insert-barriers places barriers only between the points of the kernel body and its K loops}}
        %x = vector.load %l[%c0, %j] : memref<2x64xf16, #wg>, vector<4xf16>
        vector.store %x, %out[%j] : memref<?xf16>, vector<4xf16>
      }
    }
    gpu.return
  }
}
