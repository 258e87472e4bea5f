// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu | FileCheck %s

// Host ops keep their place, annotated with their launch.
// CHECK-LABEL: func.func @graph
// CHECK: crest.kernel {{.*}}attributes {crest.launch = #crest.launch<kernel = @crest_kernels::@graph_elementwise_0, grid = [2, 1, 1], block = [256, 1, 1]>}
// CHECK: crest.relu %{{.*}} {crest.launch = #crest.launch<kernel = @crest_kernels::@graph_elementwise_1, grid = [6, 1, 1], block = [256, 1, 1]>}
// CHECK: crest.softmax %{{.*}} {crest.launch = #crest.launch<kernel = @crest_kernels::@graph_softmax_2, grid = [2, 1, 1], block = [256, 1, 1]>}
// CHECK: crest.layer_norm {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@graph_layer_norm_3, grid = [1, 1, 1], block = [192, 1, 1]>
// CHECK: crest.reduce_mean {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@graph_reduce_mean_4, grid = [2, 1, 1], block = [256, 1, 1]>
// CHECK: crest.max_pool2d {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@graph_max_pool2d_5, grid = [1, 1, 1], block = [64, 1, 1]>
// CHECK: crest.global_avg_pool2d {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@graph_global_avg_pool2d_6, grid = [1, 1, 1], block = [128, 1, 1]>

// An elementwise kernel over 7x196 (196 = 49 * 4): 4 elements per
// work-item, 16-byte vector accesses, a broadcast row operand read as a
// vector and the splat constant as a vector constant.
// CHECK: gpu.module @crest_kernels
// CHECK: gpu.func @graph_elementwise_0(%[[X:.*]]: memref<7x196xf32, #gpu.address_space<global>>, %[[B:.*]]: memref<196xf32, #gpu.address_space<global>>, %[[O:.*]]: memref<7x196xf32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]]
// CHECK: %[[OF:.*]] = memref.collapse_shape %[[O]]
// CHECK: scf.if
// CHECK: vector.load %[[XF]][%{{.*}}] {alignment = 16 : i64} : memref<1372xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK: vector.load %[[B]]
// CHECK: arith.addf {{.*}} : vector<4xf32>
// CHECK: arith.constant dense<2.000000e+00> : vector<4xf32>
// CHECK: arith.mulf {{.*}} : vector<4xf32>
// CHECK: vector.store {{.*}}, %[[OF]][%{{.*}}] {alignment = 16 : i64}

// A width that is not a multiple of 4: one element per work-item, computed
// in f32 and rounded once for f16.
// CHECK: gpu.func @graph_elementwise_1(%{{.*}}: memref<7x197xf16, #gpu.address_space<global>>, %{{.*}}: memref<7x197xf16, #gpu.address_space<global>>)
// CHECK: memref.load {{.*}} : memref<1379xf16
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.maximumf
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store

// Softmax of 197-element rows: one wave per row (4 per workgroup), the row
// read once into registers -- 4 loads per lane (197 = 3 x 64 + 5; only the
// last is past the row for some lanes, so only it is clamped, and only its
// store guarded) -- one exp per element, two butterfly reductions of 6
// shuffles each (64 lanes); no loop, no LDS, no barrier.
// CHECK: gpu.func @graph_softmax_2(
// CHECK-NOT: workgroup
// CHECK-NOT: scf.for
// CHECK-COUNT-4: memref.load
// CHECK-NOT: memref.load
// CHECK: arith.maximumf
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK-COUNT-4: math.exp
// CHECK-NOT: math.exp
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK-COUNT-3: memref.store
// CHECK: scf.if
// CHECK: memref.store
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// Layer norm of 1000-element rows (16 per lane, the last partial): read
// once; mean, then the variance from the mean, then the output (with the
// scale read per element).
// CHECK: gpu.func @graph_layer_norm_3(
// CHECK-NOT: scf.for
// CHECK-COUNT-16: memref.load
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: arith.subf
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: math.sqrt
// CHECK-NOT: scf.for
// CHECK: gpu.return

// reduce_mean over a middle dimension: rows are (outer, inner) pairs.
// CHECK: gpu.func @graph_reduce_mean_4(
// CHECK: arith.remui
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.store

// Max pooling: one work-item per output element, guarded window loads.
// CHECK: gpu.func @graph_max_pool2d_5(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpi sge
// CHECK: scf.if {{.*}} -> (f32)
// CHECK: arith.maximumf

// CHECK: gpu.func @graph_global_avg_pool2d_6(
// CHECK-COUNT-6: gpu.shuffle  xor

// Softmax of rows longer than 16 per lane (2000): three lane-strided
// passes, the exp computed in the second and third.
// CHECK: gpu.func @graph_softmax_7(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// CHECK: arith.maximumf
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: scf.for
// CHECK: math.exp
// CHECK-COUNT-6: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK: scf.for
// CHECK: math.exp
// CHECK: memref.store
// CHECK: gpu.return

module {
  func.func @graph(%x: tensor<7x196xf32>, %b: tensor<196xf32>, %h: tensor<7x197xf16>,
                   %s: tensor<7x197xf32>, %n: tensor<3x1000xf32>, %g: tensor<1000xf32>,
                   %m: tensor<2x197x3xf32>, %p: tensor<1x2x7x7xf32>, %l: tensor<3x2000xf32>)
      -> (tensor<7x196xf32>, tensor<7x197xf16>, tensor<7x197xf32>, tensor<3x1000xf32>,
          tensor<2x3xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<3x2000xf32>) {
    %0 = crest.kernel ins(%x, %b : tensor<7x196xf32>, tensor<196xf32>) -> tensor<7x196xf32> {
    ^bb0(%a0: tensor<7x196xf32>, %a1: tensor<196xf32>):
      %c = arith.constant dense<2.0> : tensor<7x196xf32>
      %1 = crest.add %a0, %a1 : tensor<7x196xf32>, tensor<196xf32> -> tensor<7x196xf32>
      %2 = crest.mul %1, %c : tensor<7x196xf32>, tensor<7x196xf32> -> tensor<7x196xf32>
      crest.yield %2 : tensor<7x196xf32>
    }
    %1 = crest.relu %h : tensor<7x197xf16>
    %2 = crest.softmax %s : tensor<7x197xf32>
    %3 = crest.layer_norm %n, %g : tensor<3x1000xf32>, tensor<1000xf32> -> tensor<3x1000xf32>
    %4 = crest.reduce_mean %m dims [1] : tensor<2x197x3xf32> -> tensor<2x3xf32>
    %5 = crest.max_pool2d %p kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
    %6 = crest.global_avg_pool2d %p : tensor<1x2x7x7xf32> -> tensor<1x2x1x1xf32>
    %7 = crest.softmax %l : tensor<3x2000xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<7x196xf32>, tensor<7x197xf16>, tensor<7x197xf32>, tensor<3x1000xf32>, tensor<2x3xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>, tensor<3x2000xf32>
  }
}
