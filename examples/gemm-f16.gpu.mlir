// A hand-written GPU kernel, ready for crest-compile (docs/Compiling.md):
//
//   C[64x64] (f32) = A[64x4096] (f16) * B[4096x64] (f16), row-major.
//
// One workgroup of 256 work-items (4 waves). Each step of the K loop stages
// a 64x32 tile of A and a 32x64 tile of B in LDS, waits at a barrier, and
// every wave accumulates its 32x32 block of C -- block (w / 2, w % 2) for
// wave w -- with four 32x32x8 f16 MFMAs; a second barrier protects the LDS
// tiles before the next step overwrites them.
//
// Fragment layout of the 32x32x8 MFMA (lane l, 0 <= l < 64):
//   A: lane l holds A[l % 32][4 * (l / 32) + e], e = 0..3
//   B: lane l holds B[4 * (l / 32) + e][l % 32], e = 0..3
//   C: register r of lane l holds C[8 * (r / 4) + 4 * (l / 32) + r % 4][l % 32]
module attributes {gpu.container_module} {
  gpu.module @gemm_module {
    gpu.func @gemm_f16(%A: memref<64x4096xf16, #gpu.address_space<global>>,
                       %B: memref<4096x64xf16, #gpu.address_space<global>>,
                       %C: memref<64x64xf32, #gpu.address_space<global>>)
        workgroup(%ldsA: memref<64x32xf16, #gpu.address_space<workgroup>>,
                  %ldsB: memref<32x64xf16, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c4096 = arith.constant 4096 : index
      %tid = gpu.thread_id x

      // Staging: work-item t copies 8 halves (16 bytes) of each tile:
      // A row t / 4, columns 8 * (t % 4); B row t / 8, columns 8 * (t % 8).
      %arow = arith.divui %tid, %c4 : index
      %aq = arith.remui %tid, %c4 : index
      %acol = arith.muli %aq, %c8 : index
      %brow = arith.divui %tid, %c8 : index
      %bq = arith.remui %tid, %c8 : index
      %bcol = arith.muli %bq, %c8 : index

      // This wave's 32x32 block and this lane's place in the fragments.
      %wave = arith.divui %tid, %c64 : index
      %lane = arith.remui %tid, %c64 : index
      %wrow = arith.divui %wave, %c2 : index
      %wm = arith.muli %wrow, %c32 : index
      %wcol = arith.remui %wave, %c2 : index
      %wn = arith.muli %wcol, %c32 : index
      %i = arith.remui %lane, %c32 : index
      %half = arith.divui %lane, %c32 : index
      %kq = arith.muli %half, %c4 : index
      %arowW = arith.addi %wm, %i : index
      %bcolW = arith.addi %wn, %i : index

      %zero = arith.constant dense<0.0> : vector<16xf32>
      %acc = scf.for %k0 = %c0 to %c4096 step %c32
          iter_args(%acc0 = %zero) -> (vector<16xf32>) {
        %ga = arith.addi %k0, %acol : index
        %va = vector.load %A[%arow, %ga]
            : memref<64x4096xf16, #gpu.address_space<global>>, vector<8xf16>
        vector.store %va, %ldsA[%arow, %acol]
            : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        %gb = arith.addi %k0, %brow : index
        %vb = vector.load %B[%gb, %bcol]
            : memref<4096x64xf16, #gpu.address_space<global>>, vector<8xf16>
        vector.store %vb, %ldsB[%brow, %bcol]
            : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        gpu.barrier

        %accK = scf.for %kk = %c0 to %c32 step %c8
            iter_args(%acc1 = %acc0) -> (vector<16xf32>) {
          %ka = arith.addi %kk, %kq : index
          %a = vector.load %ldsA[%arowW, %ka]
              : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
          %ka1 = arith.addi %ka, %c1 : index
          %ka2 = arith.addi %ka, %c2 : index
          %ka3 = arith.addi %ka, %c3 : index
          %b0 = memref.load %ldsB[%ka, %bcolW]
              : memref<32x64xf16, #gpu.address_space<workgroup>>
          %b1 = memref.load %ldsB[%ka1, %bcolW]
              : memref<32x64xf16, #gpu.address_space<workgroup>>
          %b2 = memref.load %ldsB[%ka2, %bcolW]
              : memref<32x64xf16, #gpu.address_space<workgroup>>
          %b3 = memref.load %ldsB[%ka3, %bcolW]
              : memref<32x64xf16, #gpu.address_space<workgroup>>
          %b = vector.from_elements %b0, %b1, %b2, %b3 : vector<4xf16>
          %d = amdgpu.mfma 32x32x8 %a * %b + %acc1 blgp = none
              : vector<4xf16>, vector<4xf16>, vector<16xf32>
          scf.yield %d : vector<16xf32>
        }
        gpu.barrier
        scf.yield %accK : vector<16xf32>
      }

      scf.for %r = %c0 to %c16 step %c1 {
        %v = vector.extract %acc[%r] : f32 from vector<16xf32>
        %rq = arith.divui %r, %c4 : index
        %rr = arith.remui %r, %c4 : index
        %r8 = arith.muli %rq, %c8 : index
        %t0 = arith.addi %wm, %r8 : index
        %t1 = arith.addi %t0, %kq : index
        %row = arith.addi %t1, %rr : index
        memref.store %v, %C[%row, %bcolW]
            : memref<64x64xf32, #gpu.address_space<global>>
      }
      gpu.return
    }
  }
}
