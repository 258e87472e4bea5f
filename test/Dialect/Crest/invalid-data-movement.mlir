// RUN: crest-opt %s -split-input-file -verify-diagnostics

// Verifiers of crest.reshape, crest.transpose, crest.concat, crest.slice and
// crest.gather.

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.reshape' op cannot reshape 2x3 (6 elements) to 7 (7 elements)}}
  %0 = crest.reshape %x : tensor<2x3xf32> to tensor<7xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.reshape' op result element type 'f16' does not match the input element type 'f32'}}
  %0 = crest.reshape %x : tensor<2x3xf32> to tensor<6xf16>
  return
}

// -----

func.func @transpose_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.transpose' op permutation [0] has 1 entries for a rank-2 input}}
  %0 = crest.transpose %x permutation [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_repeat(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.transpose' op permutation [1, 1] is not a permutation of 0..1}}
  %0 = crest.transpose %x permutation [1, 1] : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.transpose' op result shape 2x3 does not match the expected 3x2}}
  %0 = crest.transpose %x permutation [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.concat' op axis 2 is out of range for a rank-2 tensor; must be in [-2, 2)}}
  %0 = crest.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'crest.concat' op input #1 shape 2x4 differs from the result 4x3 in dimension 1, which is not the concatenation axis 0}}
  %0 = crest.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_sum(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'crest.concat' op the inputs' sizes along axis 0 add up to 4, the result has 5}}
  %0 = crest.concat %a, %a axis = 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{'crest.concat' op input #1 element type 'f16' does not match the input element type 'f32'}}
  %0 = crest.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_rank(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'crest.slice' op result rank 1 differs from the input rank 2}}
  %0 = crest.slice %x offsets [0, 0] : tensor<8x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @slice_entries(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'crest.slice' op offsets [0] and strides [1, 1] need one entry per dimension (2)}}
  %0 = crest.slice %x offsets [0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'crest.slice' op stride 0 in dimension 1 must be positive}}
  %0 = crest.slice %x offsets [0, 0] strides [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

// Offsets 5, 7, 9 along dimension 1: 9 is past the end of 8.
func.func @slice_window(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'crest.slice' op the window of dimension 1 (offset 5, 3 elements, stride 2) does not fit in its 8 elements}}
  %0 = crest.slice %x offsets [0, 5] strides [1, 2] : tensor<8x8xf32> -> tensor<8x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<8x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'crest.gather' op axis -3 is out of range for a rank-2 tensor; must be in [-2, 2)}}
  %0 = crest.gather %x, %i axis = -3 : tensor<8x8xf32>, tensor<3xi32> -> tensor<3x8xf32>
  return
}

// -----

func.func @gather_shape(%x: tensor<8x5xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'crest.gather' op result shape 3x8 does not match the expected 8x3}}
  %0 = crest.gather %x, %i axis = 1 : tensor<8x5xf32>, tensor<3xi32> -> tensor<3x8xf32>
  return
}

// -----

func.func @gather_index_type(%x: tensor<8x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'crest.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = crest.gather %x, %i : tensor<8x5xf32>, tensor<3xf32> -> tensor<3x5xf32>
  return
}
