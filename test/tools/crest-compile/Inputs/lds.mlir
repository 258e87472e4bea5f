// 24000 bytes of LDS per workgroup of 128 work-items: LDS limits occupancy.
gpu.module @lds_module {
  gpu.func @lds(%p: memref<128xf32, #gpu.address_space<global>>)
      workgroup(%l: memref<6000xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %v = memref.load %p[%tid] : memref<128xf32, #gpu.address_space<global>>
    %i = arith.muli %tid, %tid : index
    memref.store %v, %l[%i] : memref<6000xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %l[%tid] : memref<6000xf32, #gpu.address_space<workgroup>>
    memref.store %w, %p[%tid] : memref<128xf32, #gpu.address_space<global>>
    gpu.return
  }
}
