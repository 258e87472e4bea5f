// Twelve live 32x32 MFMA accumulators (192 registers per lane) in a kernel of
// 1024 work-items, which may use at most 128 registers: the accumulators spill.
gpu.module @spill_module {
  gpu.func @spill(%A: memref<4096xf16, #gpu.address_space<global>>, %C: memref<196608xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c4096 = arith.constant 4096 : index
    %tid = gpu.thread_id x
    %zero = arith.constant dense<0.0> : vector<16xf32>
    %r:12 = scf.for %k = %c0 to %c4096 step %c16 iter_args(%a0 = %zero, %a1 = %zero, %a2 = %zero, %a3 = %zero, %a4 = %zero, %a5 = %zero, %a6 = %zero, %a7 = %zero, %a8 = %zero, %a9 = %zero, %a10 = %zero, %a11 = %zero) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
      %x = vector.load %A[%k] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %o0 = arith.constant 0 : index
      %k0 = arith.addi %k, %o0 : index
      %y0 = vector.load %A[%k0] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d0 = amdgpu.mfma 32x32x8 %x * %y0 + %a0 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o1 = arith.constant 4 : index
      %k1 = arith.addi %k, %o1 : index
      %y1 = vector.load %A[%k1] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d1 = amdgpu.mfma 32x32x8 %x * %y1 + %a1 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o2 = arith.constant 8 : index
      %k2 = arith.addi %k, %o2 : index
      %y2 = vector.load %A[%k2] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d2 = amdgpu.mfma 32x32x8 %x * %y2 + %a2 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o3 = arith.constant 12 : index
      %k3 = arith.addi %k, %o3 : index
      %y3 = vector.load %A[%k3] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d3 = amdgpu.mfma 32x32x8 %x * %y3 + %a3 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o4 = arith.constant 16 : index
      %k4 = arith.addi %k, %o4 : index
      %y4 = vector.load %A[%k4] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d4 = amdgpu.mfma 32x32x8 %x * %y4 + %a4 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o5 = arith.constant 20 : index
      %k5 = arith.addi %k, %o5 : index
      %y5 = vector.load %A[%k5] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d5 = amdgpu.mfma 32x32x8 %x * %y5 + %a5 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o6 = arith.constant 24 : index
      %k6 = arith.addi %k, %o6 : index
      %y6 = vector.load %A[%k6] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d6 = amdgpu.mfma 32x32x8 %x * %y6 + %a6 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o7 = arith.constant 28 : index
      %k7 = arith.addi %k, %o7 : index
      %y7 = vector.load %A[%k7] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d7 = amdgpu.mfma 32x32x8 %x * %y7 + %a7 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o8 = arith.constant 32 : index
      %k8 = arith.addi %k, %o8 : index
      %y8 = vector.load %A[%k8] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d8 = amdgpu.mfma 32x32x8 %x * %y8 + %a8 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o9 = arith.constant 36 : index
      %k9 = arith.addi %k, %o9 : index
      %y9 = vector.load %A[%k9] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d9 = amdgpu.mfma 32x32x8 %x * %y9 + %a9 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o10 = arith.constant 40 : index
      %k10 = arith.addi %k, %o10 : index
      %y10 = vector.load %A[%k10] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d10 = amdgpu.mfma 32x32x8 %x * %y10 + %a10 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      %o11 = arith.constant 44 : index
      %k11 = arith.addi %k, %o11 : index
      %y11 = vector.load %A[%k11] : memref<4096xf16, #gpu.address_space<global>>, vector<4xf16>
      %d11 = amdgpu.mfma 32x32x8 %x * %y11 + %a11 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
      scf.yield %d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7, %d8, %d9, %d10, %d11 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
    }
    %b0 = arith.constant 0 : index
    %t0 = arith.muli %tid, %c16 : index
    %s0 = arith.addi %b0, %t0 : index
    vector.store %r#0, %C[%s0] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b1 = arith.constant 16384 : index
    %t1 = arith.muli %tid, %c16 : index
    %s1 = arith.addi %b1, %t1 : index
    vector.store %r#1, %C[%s1] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b2 = arith.constant 32768 : index
    %t2 = arith.muli %tid, %c16 : index
    %s2 = arith.addi %b2, %t2 : index
    vector.store %r#2, %C[%s2] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b3 = arith.constant 49152 : index
    %t3 = arith.muli %tid, %c16 : index
    %s3 = arith.addi %b3, %t3 : index
    vector.store %r#3, %C[%s3] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b4 = arith.constant 65536 : index
    %t4 = arith.muli %tid, %c16 : index
    %s4 = arith.addi %b4, %t4 : index
    vector.store %r#4, %C[%s4] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b5 = arith.constant 81920 : index
    %t5 = arith.muli %tid, %c16 : index
    %s5 = arith.addi %b5, %t5 : index
    vector.store %r#5, %C[%s5] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b6 = arith.constant 98304 : index
    %t6 = arith.muli %tid, %c16 : index
    %s6 = arith.addi %b6, %t6 : index
    vector.store %r#6, %C[%s6] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b7 = arith.constant 114688 : index
    %t7 = arith.muli %tid, %c16 : index
    %s7 = arith.addi %b7, %t7 : index
    vector.store %r#7, %C[%s7] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b8 = arith.constant 131072 : index
    %t8 = arith.muli %tid, %c16 : index
    %s8 = arith.addi %b8, %t8 : index
    vector.store %r#8, %C[%s8] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b9 = arith.constant 147456 : index
    %t9 = arith.muli %tid, %c16 : index
    %s9 = arith.addi %b9, %t9 : index
    vector.store %r#9, %C[%s9] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b10 = arith.constant 163840 : index
    %t10 = arith.muli %tid, %c16 : index
    %s10 = arith.addi %b10, %t10 : index
    vector.store %r#10, %C[%s10] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    %b11 = arith.constant 180224 : index
    %t11 = arith.muli %tid, %c16 : index
    %s11 = arith.addi %b11, %t11 : index
    vector.store %r#11, %C[%s11] : memref<196608xf32, #gpu.address_space<global>>, vector<16xf32>
    gpu.return
  }
}
