// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues --crest-select-config --crest-lower-to-gpu | FileCheck %s
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-fuse-epilogues | FileCheck %s --check-prefix=FUSE

// A 3x3 stride-2 convolution with bias, hardswish and a residual add: one
// crest.kernel, lowered to an implicit GEMM whose lhs is gathered from the
// NCHW input (one guarded load per tap, zero outside) and whose rhs is the
// filter viewed as F x (C*KH*KW).
// FUSE-LABEL: func.func @stem
// FUSE: crest.kernel ins(%arg0, %arg1, %arg2, %arg3 :
// FUSE-NEXT: ^bb0
// FUSE-NEXT: crest.conv2d
// FUSE-NEXT: crest.add
// FUSE-NEXT: crest.hardswish
// FUSE-NEXT: crest.add
// FUSE-NEXT: crest.yield
// CHECK-LABEL: func.func @stem
// 16 x 64 outputs make 4 workgroups of one 16x16 wave, so K (3 * 3 * 3 =
// 27: two 16-deep steps) is split 2 ways: 128 work-items.
// CHECK: crest.launch = #crest.launch<kernel = @crest_kernels::@stem_0, grid = [1, 4, 1], block = [128, 1, 1]>
// CHECK: crest.conv2d {{.*}} config <mma = "v_mfma_f32_16x16x16_f16"
func.func @stem(%x: tensor<1x3x16x16xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16x1x1xf32>, %r: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %0 = crest.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1] precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x3x16x16xf16>, tensor<16x3x3x3xf16> -> tensor<1x16x8x8xf32>
  %1 = crest.add %0, %b : tensor<1x16x8x8xf32>, tensor<16x1x1xf32> -> tensor<1x16x8x8xf32>
  %2 = crest.hardswish %1 : tensor<1x16x8x8xf32>
  %3 = crest.add %2, %r : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %3 : tensor<1x16x8x8xf32>
}

// A depthwise convolution gets no config and the direct kernel: 256
// work-items per workgroup, one per output element (16 * 5 * 5 = 400).
// FUSE-LABEL: func.func @depthwise
// FUSE: crest.kernel
// FUSE-NEXT: ^bb0
// FUSE-NEXT: crest.conv2d {{.*}} groups 16
// FUSE-NEXT: crest.add
// FUSE-NEXT: crest.relu
// FUSE-NEXT: crest.yield
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: config <
// CHECK: crest.launch = #crest.launch<kernel = @crest_kernels::@depthwise_1, grid = [2, 1, 1], block = [256, 1, 1]>
func.func @depthwise(%x: tensor<1x16x9x9xf32>, %w: tensor<16x1x3x3xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x5x5xf32> {
  %0 = crest.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1] groups 16 precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x16x9x9xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x5x5xf32>
  %1 = crest.add %0, %b : tensor<1x16x5x5xf32>, tensor<16x1x1xf32> -> tensor<1x16x5x5xf32>
  %2 = crest.relu %1 : tensor<1x16x5x5xf32>
  return %2 : tensor<1x16x5x5xf32>
}

// A pointwise convolution (batch 2) is a GEMM per image: the input viewed
// as C x H*W (a transposed lhs), the images on the grid's Z dimension.
// CHECK-LABEL: func.func @pointwise
// CHECK: crest.launch = #crest.launch<kernel = @crest_kernels::@pointwise_2, grid = [2, 25, 2], block = [256, 1, 1]>
func.func @pointwise(%x: tensor<2x16x28x28xf16>, %w: tensor<72x16x1x1xf16>) -> tensor<2x72x28x28xf32> {
  %0 = crest.conv2d %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<2x16x28x28xf16>, tensor<72x16x1x1xf16> -> tensor<2x72x28x28xf32>
  return %0 : tensor<2x72x28x28xf32>
}

// CHECK-LABEL: gpu.func @stem_0(
// CHECK-SAME: %[[X:[^:]*]]: memref<1x3x16x16xf16, #gpu.address_space<global>>, %[[W:[^:]*]]: memref<16x3x3x3xf16
// CHECK: memref.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] {{.*}} into memref<16x27xf16
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x3x16x16xf16
// CHECK-NEXT: arith.select %{{.*}}, %[[V]], %{{.*}} : f16
// CHECK: amdgpu.mfma 16x16x16
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x16x8x8xf32

// CHECK-LABEL: gpu.func @depthwise_1(
// CHECK-NOT: amdgpu.mfma
// CHECK-COUNT-9: memref.load %arg1
// CHECK: arith.maximumf
// CHECK: memref.store

// CHECK-LABEL: gpu.func @pointwise_2(
// CHECK: memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] {{.*}} into memref<2x16x784xf16
// CHECK: amdgpu.mfma
