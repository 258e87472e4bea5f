// RUN: crest-opt %s -split-input-file --crest-insert-barriers | FileCheck %s
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-verify-barriers -o /dev/null

// Which slot an access touches: the recognised index forms, the fallback
// for anything else ("may be any slot"), and the footprints of views.

#wg = #gpu.address_space<workgroup>
#next = affine_map<(d0) -> ((d0 + 1) mod 2)>
#cur = affine_map<(d0) -> (d0 mod 2)>

// Three double buffers whose slots are written as remsi, andi with the
// power-of-two mask, and affine.apply of (d0 + c) mod 2 and of d0 mod 2
// (c = 0). All three are recognised, so the kernel is the plain double
// buffer of stages.mlir: one barrier, at the top of the body (it orders the
// WAR pairs t -> t+1 and the RAW pairs t -> t+1 of all three buffers).
gpu.module @forms {
  // CHECK-LABEL: gpu.module @forms
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.remsi
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.store
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l0: memref<2x64xf16, #wg>, %l1: memref<2x64xf16, #wg>,
                %l2: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tid = gpu.thread_id x
    %s = scf.for %t = %c0 to %n step %c1 iter_args(%x = %v) -> (vector<4xf16>) {
      %t1 = arith.addi %t, %c1 : index
      %n0 = arith.remsi %t1, %c2 : index
      vector.store %x, %l0[%n0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %n1 = arith.andi %t1, %c1 : index
      vector.store %x, %l1[%n1, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %n2 = affine.apply #next(%t)
      vector.store %x, %l2[%n2, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %c0s = arith.remsi %t, %c2 : index
      %y0 = vector.load %l0[%c0s, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %c1s = arith.andi %t, %c1 : index
      %y1 = vector.load %l1[%c1s, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %c2s = affine.apply #cur(%t)
      %y2 = vector.load %l2[%c2s, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %s01 = arith.addf %y0, %y1 : vector<4xf16>
      %s012 = arith.addf %s01, %y2 : vector<4xf16>
      scf.yield %s012 : vector<4xf16>
    }
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// A loop over K offsets (step 32) whose slot is (k / 32 + 1) mod 2: forms
// are taken in terms of the iteration number t (k = 32 t), so k / 32 is t
// exactly and this is the plain double buffer: one barrier.
gpu.module @k_offsets {
  // CHECK-LABEL: gpu.module @k_offsets
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.divui
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.remui
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.store
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %kdim: index)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %s = scf.for %k = %c0 to %kdim step %c32 iter_args(%x = %v) -> (vector<4xf16>) {
      %step = arith.divui %k, %c32 : index
      %s1 = arith.addi %step, %c1 : index
      %next = arith.remui %s1, %c2 : index
      vector.store %x, %l[%next, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %cur = arith.remui %step, %c2 : index
      %y = vector.load %l[%cur, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// An index form the analysis does not know (here the read slot goes through
// an arith.select) may be any slot. The read may then hit the slot the same
// step just wrote, so besides the barrier at the top of the body (WAR,
// t -> t+1) a second one goes between the store and the load (RAW, same
// iteration). Sound, at the price of a barrier.
gpu.module @unknown {
  // CHECK-LABEL: gpu.module @unknown
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    arith.addi
  // CHECK-NEXT:    arith.remui
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.store
  // CHECK-NEXT:    arith.cmpi
  // CHECK-NEXT:    arith.select
  // CHECK-NEXT:    amdgpu.lds_barrier
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
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c2 : index
      vector.store %x, %l[%next, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %odd = arith.cmpi eq, %next, %c0 : index
      %cur = arith.select %odd, %c1, %c0 : index
      %y = vector.load %l[%cur, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Slot t itself (no mod): with a constant trip count the loop is unrolled
// exactly, every step has its own slot and slots are never reused, so the
// only hazard is the RAW of each step (store -> load of slot t): one
// barrier between them, none at the top of the body.
gpu.module @all_resident {
  // CHECK-LABEL: gpu.module @all_resident
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       scf.for
  // CHECK-NEXT:    vector.store
  // CHECK-NEXT:    amdgpu.lds_barrier
  // CHECK-NEXT:    vector.load
  // CHECK-NOT:     amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>)
      workgroup(%l: memref<4x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %s = scf.for %t = %c0 to %c4 step %c1 iter_args(%x = %v) -> (vector<4xf16>) {
      vector.store %x, %l[%t, %tid] : memref<4x64xf16, #wg>, vector<4xf16>
      %y = vector.load %l[%t, %c0] : memref<4x64xf16, #wg>, vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %s, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Footprints that provably do not overlap need no barrier: two constant
// slots of one buffer, two allocations, two memref.view of one i8 buffer at
// disjoint byte ranges ([0, 256) and [256, 512)), a subview of slot 1
// (offset 64 elements) against slot 0, and per-wave slots
// (gpu.subgroup_id: a wave's own LDS accesses execute in order). The last
// load, a view overlapping the first one at bytes [128, 256), is a RAW on
// the store through that first view: one barrier, placed as late as
// possible, right before the load.
gpu.module @disjoint {
  // CHECK-LABEL: gpu.module @disjoint
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       %[[V:.*]] = memref.view %{{.*}}[%c128][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<64xf16, #gpu.address_space<workgroup>>
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  vector.load %[[V]]
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>)
      workgroup(%l: memref<2x64xf16, #wg>, %m: memref<2x64xf16, #wg>,
                %raw: memref<512xi8, #wg>, %n: memref<2x64xf16, #wg>,
                %scratch: memref<4x64xf16, #wg>)
      kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %wave = gpu.subgroup_id : index
    // Constant slots.
    vector.store %v, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    %a = vector.load %l[%c1, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    // Another allocation.
    %a2 = vector.load %m[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    // Views at byte 0 and 256.
    %v0 = memref.view %raw[%c0][] : memref<512xi8, #wg> to memref<128xf16, #wg>
    %v1 = memref.view %raw[%c256][] : memref<512xi8, #wg> to memref<128xf16, #wg>
    vector.store %a, %v0[%tid] : memref<128xf16, #wg>, vector<4xf16>
    %b = vector.load %v1[%tid] : memref<128xf16, #wg>, vector<4xf16>
    // Slot 0 written, a subview of slot 1 read.
    vector.store %b, %n[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    %sub = memref.subview %n[1, 0] [1, 64] [1, 1]
        : memref<2x64xf16, #wg> to memref<64xf16, strided<[1], offset: 64>, #wg>
    %c = vector.load %sub[%tid] : memref<64xf16, strided<[1], offset: 64>, #wg>, vector<4xf16>
    // Per-wave scratch.
    vector.store %c, %scratch[%wave, %tid] : memref<4x64xf16, #wg>, vector<4xf16>
    %d = vector.load %scratch[%wave, %c0] : memref<4x64xf16, #wg>, vector<4xf16>
    // Overlapping views: [0, 256) written above, [128, 256) read here.
    %v2 = memref.view %raw[%c128][] : memref<512xi8, #wg> to memref<64xf16, #wg>
    %e = vector.load %v2[%tid] : memref<64xf16, #wg>, vector<4xf16>
    %f = arith.addf %d, %e : vector<4xf16>
    %g = arith.addf %f, %a2 : vector<4xf16>
    vector.store %g, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}
