// A crest.gather of constant, evenly spaced, ascending indices is a
// crest.slice (and a reshape to the gather's shape when the indices are not
// 1-D). Expected slices follow from the gather's definition: result
// [..., k, ...] = data[..., idx[k], ...] with idx[k] = idx[0] + k * step.
// RUN: crest-opt %s --canonicalize --split-input-file | FileCheck %s

// One scalar index along axis 1 (a classifier's first token): the slice
// keeps the axis with extent 1; the reshape drops it.
// CHECK-LABEL: func.func @first_token
// CHECK-NEXT: %[[S:.*]] = crest.slice %arg0 offsets [0, 0, 0] : tensor<1x128x256xf32> -> tensor<1x1x256xf32>
// CHECK-NEXT: %[[R:.*]] = crest.reshape %[[S]] : tensor<1x1x256xf32> to tensor<1x256xf32>
// CHECK-NEXT: return %[[R]]
func.func @first_token(%x: tensor<1x128x256xf32>) -> tensor<1x256xf32> {
  %i = arith.constant dense<0> : tensor<i64>
  %g = crest.gather %x, %i axis = 1 : tensor<1x128x256xf32>, tensor<i64> -> tensor<1x256xf32>
  return %g : tensor<1x256xf32>
}

// -----

// Negative indices count from the end: -1 of 7 is 6.
// CHECK-LABEL: func.func @last_row
// CHECK-NEXT: crest.slice %arg0 offsets [6, 0] : tensor<7x5xf16> -> tensor<1x5xf16>
// CHECK-NEXT: crest.reshape
func.func @last_row(%x: tensor<7x5xf16>) -> tensor<5xf16> {
  %i = arith.constant dense<-1> : tensor<i32>
  %g = crest.gather %x, %i : tensor<7x5xf16>, tensor<i32> -> tensor<5xf16>
  return %g : tensor<5xf16>
}

// -----

// Consecutive indices along the last axis: a slice of the same shape as
// the gather (no reshape).
// CHECK-LABEL: func.func @range
// CHECK-NEXT: %[[S:.*]] = crest.slice %arg0 offsets [0, 2] : tensor<4x10xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @range(%x: tensor<4x10xf32>) -> tensor<4x3xf32> {
  %i = arith.constant dense<[2, 3, 4]> : tensor<3xi64>
  %g = crest.gather %x, %i axis = -1 : tensor<4x10xf32>, tensor<3xi64> -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

// Every third row, with 2-D indices (negative ones among them): a strided
// slice and a reshape to [2, 2, 3].
// CHECK-LABEL: func.func @strided
// CHECK-NEXT: %[[S:.*]] = crest.slice %arg0 offsets [1, 0] strides [3, 1] : tensor<12x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: crest.reshape %[[S]] : tensor<4x3xf32> to tensor<2x2x3xf32>
func.func @strided(%x: tensor<12x3xf32>) -> tensor<2x2x3xf32> {
  %i = arith.constant dense<[[1, 4], [-5, 10]]> : tensor<2x2xi64>
  %g = crest.gather %x, %i : tensor<12x3xf32>, tensor<2x2xi64> -> tensor<2x2x3xf32>
  return %g : tensor<2x2x3xf32>
}

// -----

// Left as gathers: descending, repeated and unevenly spaced indices, an
// index outside the axis (which reads zeros) and indices that are not
// constant.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: crest.gather
// CHECK-NOT: crest.slice
func.func @kept(%x: tensor<6x2xf32>, %j: tensor<2xi64>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2xf32>,
        tensor<2x2xf32>) {
  %down = arith.constant dense<[3, 2]> : tensor<2xi64>
  %same = arith.constant dense<[1, 1]> : tensor<2xi64>
  %uneven = arith.constant dense<[0, 1, 3]> : tensor<3xi64>
  %out = arith.constant dense<6> : tensor<i64>
  %a = crest.gather %x, %down : tensor<6x2xf32>, tensor<2xi64> -> tensor<2x2xf32>
  %b = crest.gather %x, %same : tensor<6x2xf32>, tensor<2xi64> -> tensor<2x2xf32>
  %c = crest.gather %x, %uneven : tensor<6x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  %d = crest.gather %x, %out : tensor<6x2xf32>, tensor<i64> -> tensor<2xf32>
  %e = crest.gather %x, %j : tensor<6x2xf32>, tensor<2xi64> -> tensor<2x2xf32>
  return %a, %b, %c, %d, %e : tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>
}
