// RUN: crest-opt %s -split-input-file --crest-verify-barriers -verify-diagnostics

// crest-verify-barriers checks kernels that already have barriers: every
// conflicting pair of LDS accesses must have an amdgpu.lds_barrier,
// gpu.barrier or rocdl.s.barrier between them. Each unordered pair is an
// error at its second access with a note at the first.

#wg = #gpu.address_space<workgroup>

// Accepted: a double buffer whose barrier is at the end of the body rather
// than at its top (the end orders the RAW and WAR pairs of neighbouring
// iterations as well), plus gpu.barrier before the loop for the prologue fill
// (the barrier at the end of the body runs after the first iteration's
// reads).
gpu.module @end_of_body {
  gpu.func @k(%a: memref<?x64xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tid = gpu.thread_id x
    %g0 = vector.load %a[%c0, %tid] : memref<?x64xf16>, vector<4xf16>
    vector.store %g0, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    gpu.barrier
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %g0) -> (vector<4xf16>) {
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c2 : index
      %g = vector.load %a[%t1, %tid] : memref<?x64xf16>, vector<4xf16>
      vector.store %g, %l[%next, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %cur = arith.remui %t, %c2 : index
      %f = vector.load %l[%cur, %c0] : memref<2x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %x, %f : vector<4xf16>
      rocdl.s.barrier
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// The same double buffer without barriers: the prologue fill and the
// prefetch of step t are read too early (RAW), and the prefetch of step t+1
// may overwrite the slot step t still reads (WAR).
gpu.module @missing {
  gpu.func @k(%a: memref<?x64xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<2x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tid = gpu.thread_id x
    %g0 = vector.load %a[%c0, %tid] : memref<?x64xf16>, vector<4xf16>
    // expected-note@+1 {{the conflicting access}}
    vector.store %g0, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %g0) -> (vector<4xf16>) {
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c2 : index
      %g = vector.load %a[%t1, %tid] : memref<?x64xf16>, vector<4xf16>
      // expected-error-re@+2 {{WAR hazard: 'vector.store' %arg3[(t + 1) mod 2] may overwrite LDS still read by 'vector.load' %arg3[t mod 2] (verify.mlir:{{[0-9]+}}:12) (iteration t -> t+1) with no barrier in between}}
      // expected-note@+1 {{the conflicting access}}
      vector.store %g, %l[%next, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %cur = arith.remui %t, %c2 : index
      // expected-error-re@+3 {{RAW hazard: 'vector.load' %arg3[t mod 2] may read LDS written by 'vector.store' %arg3[0] (verify.mlir:{{[0-9]+}}:5) (before the loop -> its first iteration) with no barrier in between}}
      // expected-error-re@+2 {{RAW hazard: 'vector.load' %arg3[t mod 2] may read LDS written by 'vector.store' %arg3[(t + 1) mod 2] (verify.mlir:{{[0-9]+}}:7) (iteration t -> t+1) with no barrier in between}}
      // expected-note@+1 {{the conflicting access}}
      %f = vector.load %l[%cur, %c0] : memref<2x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %x, %f : vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Output staging through the LDS of the A tiles with the barrier after the
// loop missing (the ones in the body and between the staging store and load
// are there). The staging store may overwrite data the last iteration still
// reads (WAR), race with the last prefetch (WAW; the analysis does not know
// that the last scf.if writes nothing) and, when the loop runs no
// iteration, with the prologue fill (WAW).
gpu.module @staging {
  gpu.func @k(%a: memref<?x32xf16>, %out: memref<?x64xf32>, %n: index)
      workgroup(%smem: memref<4096xi8, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %la = memref.view %smem[%c0][] : memref<4096xi8, #wg> to memref<2x32x32xf16, #wg>
    %lc = memref.view %smem[%c0][] : memref<4096xi8, #wg> to memref<16x64xf32, #wg>
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c16 : index
    %g0 = vector.load %a[%lane, %c0] : memref<?x32xf16>, vector<4xf16>
    // expected-note@+1 {{the conflicting access}}
    vector.store %g0, %la[%c0, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
    %acc = scf.for %t = %c0 to %n step %c1 iter_args(%x = %zero) -> (vector<4xf32>) {
      %t1 = arith.addi %t, %c1 : index
      %more = arith.cmpi ult, %t1, %n : index
      amdgpu.lds_barrier
      scf.if %more {
        %next = arith.remui %t1, %c2 : index
        %g = vector.load %a[%lane, %t1] : memref<?x32xf16>, vector<4xf16>
        // expected-note@+1 {{the conflicting access}}
        vector.store %g, %la[%next, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      }
      %cur = arith.remui %t, %c2 : index
      // expected-note@+1 {{the conflicting access}}
      %f = vector.load %la[%cur, %lane, %c0] : memref<2x32x32xf16, #wg>, vector<4xf16>
      %y = amdgpu.mfma 16x16x16 %f * %f + %x blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      scf.yield %y : vector<4xf32>
    }
    // expected-error-re@+3 {{WAW hazard: 'vector.store' %view_0[any] (a view of %arg3) may write LDS also written by 'vector.store' %view[0] (a view of %arg3) (verify.mlir:{{[0-9]+}}:5) (across a loop that runs no iteration) with no barrier in between}}
    // expected-error-re@+2 {{WAW hazard: 'vector.store' %view_0[any] (a view of %arg3) may write LDS also written by 'vector.store' %view[(t + 1) mod 2] (a view of %arg3) (verify.mlir:{{[0-9]+}}:9) (last iteration -> after the loop) with no barrier in between}}
    // expected-error-re@+1 {{WAR hazard: 'vector.store' %view_0[any] (a view of %arg3) may overwrite LDS still read by 'vector.load' %view[t mod 2] (a view of %arg3) (verify.mlir:{{[0-9]+}}:12) (last iteration -> after the loop) with no barrier in between}}
    vector.store %acc, %lc[%lane, %c0] : memref<16x64xf32, #wg>, vector<4xf32>
    amdgpu.lds_barrier
    %o = vector.load %lc[%tid, %c0] : memref<16x64xf32, #wg>, vector<4xf32>
    vector.store %o, %out[%tid, %c0] : memref<?x64xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// A barrier inside scf.if may not run: it does not count.
gpu.module @nested_barrier {
  gpu.func @k(%a: memref<?x64xf16>, %out: memref<?xf16>, %n: index, %c: i1)
      workgroup(%l: memref<1x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %z = arith.constant dense<0.0> : vector<4xf16>
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %z) -> (vector<4xf16>) {
      %g = vector.load %a[%t, %tid] : memref<?x64xf16>, vector<4xf16>
      amdgpu.lds_barrier
      // expected-note@+1 {{the conflicting access}}
      vector.store %g, %l[%c0, %tid] : memref<1x64xf16, #wg>, vector<4xf16>
      scf.if %c {
        // expected-note@+1 {{1 barrier(s) inside nested regions are not counted: they may not execute}}
        gpu.barrier
      }
      // expected-error@+1 {{RAW hazard: 'vector.load' %arg4[0] may read LDS written by 'vector.store' %arg4[0]}}
      %f = vector.load %l[%c0, %c0] : memref<1x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %x, %f : vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Two accesses of one nested region conflict: no barrier at the level the
// analysis sees can order them.
gpu.module @inside_region {
  gpu.func @k(%v: vector<4xf16>, %out: memref<?xf16>, %c: i1)
      workgroup(%l: memref<64xf16, #wg>) kernel {
    %tid = gpu.thread_id x
    scf.if %c {
      // expected-note@+1 {{the conflicting access}}
      vector.store %v, %l[%tid] : memref<64xf16, #wg>, vector<4xf16>
      // expected-error-re@+1 {{RAW hazard: 'vector.load' %arg3 may read LDS written by 'vector.store' %arg3 (verify.mlir:{{[0-9]+}}:7) (inside one nested region); only a barrier inside that region could order them, and such barriers are not counted}}
      %x = vector.load %l[%tid] : memref<64xf16, #wg>, vector<4xf16>
      vector.store %x, %out[%tid] : memref<?xf16>, vector<4xf16>
    }
    gpu.return
  }
}

// -----

// Unstructured control flow is outside the model.
gpu.module @cfg {
  // expected-error@+1 {{crest barrier analysis needs structured control flow (one block in the kernel body)}}
  gpu.func @k(%c: i1) kernel {
    cf.cond_br %c, ^a, ^b
  ^a:
    gpu.return
  ^b:
    gpu.return
  }
}

// -----

#wg = #gpu.address_space<workgroup>

// Four loops of unknown trip count that touch LDS: each is simulated for
// 0 to 6 iterations, 7^4 = 2401 combinations, more than the analysis tries.
gpu.module @too_many_loops {
  gpu.func @k(%v: f32, %n: index) workgroup(%l: memref<64xf32, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %l[%tid] : memref<64xf32, #wg>
    }
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %l[%tid] : memref<64xf32, #wg>
    }
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %l[%tid] : memref<64xf32, #wg>
    }
    // expected-error@+1 {{crest barrier analysis: too many combinations of trip counts to simulate (give this loop constant bounds)}}
    scf.for %i = %c0 to %n step %c1 {
      memref.store %v, %l[%tid] : memref<64xf32, #wg>
    }
    gpu.return
  }
}
