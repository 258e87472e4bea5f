// RUN: crest-opt %s -split-input-file --crest-insert-barriers | FileCheck %s
// RUN: crest-opt %s -split-input-file --crest-insert-barriers --crest-verify-barriers -o /dev/null

// Kernels without shared LDS get no barrier; kernels without a K loop are
// only a prologue.

#wg = #gpu.address_space<workgroup>
#priv = #gpu.address_space<private>

// Wavefront scope: each wave reads its fragments from global memory, stages
// its accumulators in private memory; nothing is in LDS.
gpu.module @no_lds {
  // CHECK-LABEL: gpu.module @no_lds
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @gemm(%a: memref<?x16xf16>, %b: memref<?x16xf16>,
                 %out: memref<?x4xf32>, %n: index)
      private(%p: memref<4xf32, #priv>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c16 : index
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %fa = vector.load %a[%t, %lane] : memref<?x16xf16>, vector<4xf16>
      %fb = vector.load %b[%t, %lane] : memref<?x16xf16>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %fa * %fb + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    vector.store %acc, %p[%c0] : memref<4xf32, #priv>, vector<4xf32>
    %r = vector.load %p[%c0] : memref<4xf32, #priv>, vector<4xf32>
    vector.store %r, %out[%tid, %c0] : memref<?x4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// No K loop: a transpose through LDS. The store -> load RAW needs one
// barrier; the memref.alloc in workgroup memory is an LDS buffer like a
// workgroup attribution.
gpu.module @no_loop {
  // CHECK-LABEL: gpu.module @no_loop
  // CHECK:       memref.store
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  memref.load
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @transpose(%in: memref<64x64xf32>, %out: memref<64x64xf32>) kernel {
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %tile = memref.alloc() : memref<64x65xf32, #wg>
    %x = memref.load %in[%ty, %tx] : memref<64x64xf32>
    memref.store %x, %tile[%ty, %tx] : memref<64x65xf32, #wg>
    %y = memref.load %tile[%tx, %ty] : memref<64x65xf32, #wg>
    memref.store %y, %out[%ty, %tx] : memref<64x64xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// LDS that is only read (a table another kernel of the workgroup never
// writes here) has no hazard.
gpu.module @read_only {
  // CHECK-LABEL: gpu.module @read_only
  // CHECK-NOT:   amdgpu.lds_barrier
  // CHECK:       gpu.return
  gpu.func @k(%out: memref<?xf32>, %n: index)
      workgroup(%table: memref<256xf32, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %z = arith.constant 0.0 : f32
    %s = scf.for %t = %c0 to %n step %c1 iter_args(%x = %z) -> (f32) {
      %v = memref.load %table[%tid] : memref<256xf32, #wg>
      %y = arith.addf %x, %v : f32
      scf.yield %y : f32
    }
    memref.store %s, %out[%tid] : memref<?xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// LDS memrefs of unknown allocation (here function arguments) may alias
// each other and every LDS buffer: the store to one and the load of the
// other need a barrier, whatever their indices.
gpu.module @unknown_alloc {
  // CHECK-LABEL: gpu.module @unknown_alloc
  // CHECK:       memref.store
  // CHECK-NEXT:  amdgpu.lds_barrier
  // CHECK-NEXT:  memref.load
  gpu.func @helper(%l: memref<64xf32, #wg>, %m: memref<64xf32, #wg>,
                   %out: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    memref.store %z, %l[%c0] : memref<64xf32, #wg>
    %v = memref.load %m[%c1] : memref<64xf32, #wg>
    memref.store %v, %out[%c0] : memref<?xf32>
    gpu.return
  }
}
