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
