// A hand-written elementwise kernel for crest-run tests:
//   out[i] = in[i] * 0.5 - 1 for 1024 f32 elements, 256 work-items per
//   workgroup, 4 workgroups.
module attributes {gpu.container_module} {
  gpu.module @scale_module {
    gpu.func @scale_f32(%in: memref<1024xf32, #gpu.address_space<global>>,
                        %out: memref<1024xf32, #gpu.address_space<global>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c256 = arith.constant 256 : index
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<1024xf32, #gpu.address_space<global>>
      %m = arith.mulf %v, %half : f32
      %r = arith.subf %m, %one : f32
      memref.store %r, %out[%i] : memref<1024xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
