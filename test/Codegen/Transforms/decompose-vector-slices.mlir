// RUN: crest-opt %s --crest-decompose-vector-slices | FileCheck %s

// What convert-arith-to-amdgpu leaves for a vector<4xf8> -> vector<4xf32>
// extension: two packed conversions stitched together with strided
// slices. 1-D slices become shuffles: %lo widened, blended into lanes 0-1
// of %acc; %hi widened, blended into lanes 2-3 of that.
// CHECK-LABEL: func.func @stitch
// CHECK-SAME: (%[[LO:.*]]: vector<2xf32>, %[[HI:.*]]: vector<2xf32>, %[[ACC:.*]]: vector<4xf32>)
// CHECK-NOT: strided_slice
// CHECK: %[[W0:.*]] = vector.shuffle %[[LO]], %[[LO]] [0, 1, 0, 0]
// CHECK: %[[B0:.*]] = vector.shuffle %[[W0]], %[[ACC]] [0, 1, 6, 7]
// CHECK: %[[W1:.*]] = vector.shuffle %[[HI]], %[[HI]] [0, 1, 0, 0]
// CHECK: %[[B1:.*]] = vector.shuffle %[[W1]], %[[B0]] [4, 5, 0, 1]
// CHECK-NOT: strided_slice
// CHECK: return %[[B1]]
func.func @stitch(%lo: vector<2xf32>, %hi: vector<2xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %0 = vector.insert_strided_slice %lo, %acc {offsets = [0], strides = [1]} : vector<2xf32> into vector<4xf32>
  %1 = vector.insert_strided_slice %hi, %0 {offsets = [2], strides = [1]} : vector<2xf32> into vector<4xf32>
  return %1 : vector<4xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-NOT: strided_slice
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [4, 5] : vector<8xi8>, vector<8xi8>
func.func @slice(%v: vector<8xi8>) -> vector<2xi8> {
  %0 = vector.extract_strided_slice %v {offsets = [4], sizes = [2], strides = [1]} : vector<8xi8> to vector<2xi8>
  return %0 : vector<2xi8>
}
