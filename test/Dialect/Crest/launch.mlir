// RUN: crest-opt %s | FileCheck %s
// RUN: crest-opt %s | crest-opt | FileCheck %s

// #crest.launch prints its parameters in order (kernel, grid, block) however
// they are written, and round-trips.

// CHECK-LABEL: func.func @launched
// CHECK: crest.relu %{{.*}} {crest.launch = #crest.launch<kernel = @crest_kernels::@relu_0, grid = [6, 1, 1], block = [256, 1, 1]>} : tensor<6144xf32>
// CHECK: crest.kernel {{.*}} attributes {crest.launch = #crest.launch<kernel = @other::@fused, grid = [2, 3, 4], block = [64, 2, 1]>}
func.func @launched(%x: tensor<6144xf32>) -> tensor<6144xf32> {
  %0 = crest.relu %x {crest.launch = #crest.launch<block = [256, 1, 1], kernel = @crest_kernels::@relu_0, grid = [6, 1, 1]>} : tensor<6144xf32>
  %1 = crest.kernel ins(%0 : tensor<6144xf32>) -> tensor<6144xf32> attributes {crest.launch = #crest.launch<kernel = @other::@fused, grid = [2, 3, 4], block = [64, 2, 1]>} {
  ^bb0(%a: tensor<6144xf32>):
    %2 = crest.relu %a : tensor<6144xf32>
    crest.yield %2 : tensor<6144xf32>
  }
  return %1 : tensor<6144xf32>
}

// A split-K kernel's workspace and semaphores, after the other parameters.
// CHECK-LABEL: func.func @buffers
// CHECK: #crest.launch<kernel = @crest_kernels::@gemm_0, grid = [288, 1, 1], block = [512, 1, 1], workspace = [tensor<9x1x1x4096xf32>], semaphores = [tensor<32xi32>]>
func.func @buffers(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = crest.relu %x {crest.launch = #crest.launch<semaphores = [tensor<32xi32>], kernel = @crest_kernels::@gemm_0, grid = [288, 1, 1], block = [512, 1, 1], workspace = [tensor<9x1x1x4096xf32>]>} : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
