// A workgroup of one wave cannot race with itself on LDS: the pass places
// no barrier there (and the checker accepts the kernel), while the same
// accesses in a multi-wave workgroup get one. Without a #crest.target the
// wave size is unknown, so only blocks of at most 32 work-items (one wave on
// every chip) count as a single wave.
//
// RUN: crest-opt %s --split-input-file --crest-insert-barriers --crest-verify-barriers | FileCheck %s

// CHECK-LABEL: gpu.func @one_wave
// CHECK-NOT: amdgpu.lds_barrier
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @two_waves
// CHECK: vector.store
// CHECK-NEXT: amdgpu.lds_barrier
// CHECK-NEXT: vector.load
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  gpu.module @k {
    gpu.func @one_wave(%out: memref<64xf32, #gpu.address_space<global>>)
        workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = arith.constant dense<1.0> : vector<4xf32>
      vector.store %v, %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %r = vector.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      vector.store %r, %out[%c0] : memref<64xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
    gpu.func @two_waves(%out: memref<64xf32, #gpu.address_space<global>>)
        workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = arith.constant dense<1.0> : vector<4xf32>
      vector.store %v, %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %r = vector.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      vector.store %r, %out[%c0] : memref<64xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

// No target: 32 work-items are one wave on every chip; 64 may be two
// waves of 32.
// CHECK-LABEL: gpu.func @thirty_two
// CHECK-NOT: amdgpu.lds_barrier
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @sixty_four
// CHECK: vector.store
// CHECK-NEXT: amdgpu.lds_barrier
gpu.module @k {
  gpu.func @thirty_two(%out: memref<64xf32, #gpu.address_space<global>>)
      workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    vector.store %v, %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %r = vector.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %r, %out[%c0] : memref<64xf32, #gpu.address_space<global>>, vector<4xf32>
    gpu.return
  }
  gpu.func @sixty_four(%out: memref<64xf32, #gpu.address_space<global>>)
      workgroup(%lds: memref<64xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = arith.constant dense<1.0> : vector<4xf32>
    vector.store %v, %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %r = vector.load %lds[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %r, %out[%c0] : memref<64xf32, #gpu.address_space<global>>, vector<4xf32>
    gpu.return
  }
}
