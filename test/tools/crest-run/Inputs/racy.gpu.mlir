// A kernel whose only barrier matters, for crest-run's race tests: each of
// 128 work-items (two waves) writes lds[t] and then reads lds[t ^ 64], which
// the other wave writes. The barrier pass puts an s_barrier between them;
// compiled with --testing-drop-barrier=1 the emulator must report the race.
module attributes {gpu.container_module} {
  gpu.module @swap_module {
    gpu.func @swap(%in: memref<128xf32, #gpu.address_space<global>>,
                   %out: memref<128xf32, #gpu.address_space<global>>)
        workgroup(%lds: memref<128xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<128xf32, #gpu.address_space<global>>
      memref.store %v, %lds[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      %j = arith.xori %tid, %c64 : index
      %w = memref.load %lds[%j] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tid] : memref<128xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
