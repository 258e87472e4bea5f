// The kernels crest-lower-to-gpu generates for the three LDS depths, with
// the barriers this pass places, accepted by the checker; dropping the one
// barrier of the double-buffered kernel makes the checker reject it.
//
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-select-config --crest-lower-to-gpu --crest-insert-barriers --crest-verify-barriers | FileCheck %s
// RUN: not crest-opt %s --crest-attach-target=chip=gfx942 --crest-select-config --crest-lower-to-gpu --crest-insert-barriers=drop-barrier=3 --crest-verify-barriers -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROP

// stages = 1: two barriers per K step (before the copy: WAR on the previous
// step's reads; between the copy and the reads: RAW), none elsewhere.
// CHECK-LABEL: gpu.func @three_0
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       scf.for
// CHECK-COUNT-2: amdgpu.lds_barrier
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       gpu.return

// stages = 2 and 3: one barrier per K step, at the top of the body; it also
// orders the prologue fill before the first step's reads.
// CHECK-LABEL: gpu.func @three_1
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       scf.for
// CHECK-COUNT-1: amdgpu.lds_barrier
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       gpu.return
// CHECK-LABEL: gpu.func @three_2
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       scf.for
// CHECK-COUNT-1: amdgpu.lds_barrier
// CHECK-NOT:   amdgpu.lds_barrier
// CHECK:       gpu.return

// DROP: warning: drop-barrier: barrier 3 (in the loop body) not inserted
// DROP-DAG: error: RAW hazard: {{.*}} (before the loop -> its first iteration) with no barrier in between
// DROP-DAG: error: RAW hazard: {{.*}} (iteration t -> t+1) with no barrier in between
// DROP-DAG: error: WAR hazard: {{.*}} (iteration t -> t+1) with no barrier in between

func.func @three(%x: tensor<64x256xf16>, %w: tensor<256x64xf16>)
    -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %s1 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
          config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                  wave_tile = [32, 32], scope = workgroup, stages = 1>
          : tensor<64x256xf16>, tensor<256x64xf16> -> tensor<64x64xf32>
  %s2 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
          config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                  wave_tile = [32, 32], scope = workgroup, stages = 2>
          : tensor<64x256xf16>, tensor<256x64xf16> -> tensor<64x64xf32>
  %s3 = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
          config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32],
                  wave_tile = [32, 32], scope = workgroup, stages = 3>
          : tensor<64x256xf16>, tensor<256x64xf16> -> tensor<64x64xf32>
  return %s1, %s2, %s3 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
