// Two gpu.modules, one kernel each, plus a host function that stays.
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @fill(%p: memref<64xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %p[%tid] : memref<64xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @scale(%p: memref<64xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %p[%tid] : memref<64xf32, #gpu.address_space<global>>
      %e = math.exp %v : f32
      memref.store %e, %p[%tid] : memref<64xf32, #gpu.address_space<global>>
      gpu.return
    }
    gpu.func @twice(%p: memref<64xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %p[%tid] : memref<64xf32, #gpu.address_space<global>>
      %d = arith.addf %v, %v : f32
      memref.store %d, %p[%tid] : memref<64xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
  func.func @host() {
    return
  }
}
