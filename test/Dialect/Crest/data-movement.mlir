// RUN: crest-opt %s | crest-opt | FileCheck %s
// RUN: crest-opt %s --mlir-print-op-generic | crest-opt | FileCheck %s

// The data-movement ops round-trip with their attributes.

// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<1x576x1x1xf32>, %h: tensor<1x128x4x64xf16>,
                    %a: tensor<1x16x8x8xf32>, %b: tensor<1x24x8x8xf32>,
                    %qkv: tensor<128x768xf32>, %table: tensor<1000x256xf32>,
                    %tokens: tensor<1x128xi64>) {
  // CHECK: crest.reshape %{{.*}} : tensor<1x576x1x1xf32> to tensor<1x576xf32>
  %0 = crest.reshape %x : tensor<1x576x1x1xf32> to tensor<1x576xf32>
  // CHECK: crest.transpose %{{.*}} permutation [0, 2, 1, 3] : tensor<1x128x4x64xf16> -> tensor<1x4x128x64xf16>
  %1 = crest.transpose %h permutation [0, 2, 1, 3] : tensor<1x128x4x64xf16> -> tensor<1x4x128x64xf16>
  // CHECK: crest.concat %{{.*}}, %{{.*}} axis = -3 : tensor<1x16x8x8xf32>, tensor<1x24x8x8xf32> -> tensor<1x40x8x8xf32>
  %2 = crest.concat %a, %b axis = -3 : tensor<1x16x8x8xf32>, tensor<1x24x8x8xf32> -> tensor<1x40x8x8xf32>
  // CHECK: crest.slice %{{.*}} offsets [0, 256] : tensor<128x768xf32> -> tensor<128x256xf32>
  %3 = crest.slice %qkv offsets [0, 256] : tensor<128x768xf32> -> tensor<128x256xf32>
  // Every third column from 1: 1, 4, ..., 766 (256 of them).
  // CHECK: crest.slice %{{.*}} offsets [0, 1] strides [1, 3] : tensor<128x768xf32> -> tensor<128x256xf32>
  %4 = crest.slice %qkv offsets [0, 1] strides [1, 3] : tensor<128x768xf32> -> tensor<128x256xf32>
  // CHECK: crest.gather %{{.*}}, %{{.*}} : tensor<1000x256xf32>, tensor<1x128xi64> -> tensor<1x128x256xf32>
  %5 = crest.gather %table, %tokens : tensor<1000x256xf32>, tensor<1x128xi64> -> tensor<1x128x256xf32>
  // CHECK: crest.gather %{{.*}}, %{{.*}} axis = 1 : tensor<1000x256xf32>, tensor<1x128xi64> -> tensor<1000x1x128xf32>
  %6 = crest.gather %table, %tokens axis = 1 : tensor<1000x256xf32>, tensor<1x128xi64> -> tensor<1000x1x128xf32>
  return
}
