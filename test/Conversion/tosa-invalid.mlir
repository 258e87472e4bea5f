// RUN: crest-opt %s --split-input-file --crest-convert-tosa --verify-diagnostics
// RUN: not crest-opt %s --split-input-file --crest-convert-tosa=precision=f8 2>&1 | FileCheck %s --check-prefix=PRECISION
// PRECISION: error: crest-convert-tosa: precision must be f32, f16 or bf16, got 'f8'

func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.sin' is not supported by Crest's TOSA conversion}}
  %y = tosa.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @quantised(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x1xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<1x1x1x2xi8>}> : () -> tensor<1x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %xzp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.conv2d' cannot be converted to crest: its zero points must be constant zeros (quantised TOSA is not supported)}}
  %y = tosa.conv2d %x, %w, %b, %xzp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<1x1x1x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x1xi32>
  return %y : tensor<1x4x4x1xi32>
}

// -----

func.func @rescale(%x: tensor<4xi32>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.rescale' is not supported by Crest's TOSA conversion}}
  %y = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %y : tensor<4xi8>
}

// -----

func.func @shift(%x: tensor<4xi32>) -> tensor<4xi32> {
  %s = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.mul' cannot be converted to crest: its shift must be a constant 0}}
  %y = tosa.mul %x, %x, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

func.func @nan_ignore(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.clamp' cannot be converted to crest: nan_mode = IGNORE is not supported (Crest's min, max and pooling propagate NaN)}}
  %y = tosa.clamp %x {max_val = 6.0 : f32, min_val = 0.0 : f32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tosa.add' cannot be converted to crest: Crest needs statically shaped tensors, got tensor<?x4xf32>}}
  %y = tosa.add %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @to_bool(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'tosa.cast' cannot be converted to crest: casts to bool are not supported}}
  %y = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi1>
  return %y : tensor<4xi1>
}

// -----

func.func @int_exp(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.abs' cannot be converted to crest: Crest supports it on floats only, got i32}}
  %y = tosa.abs %x : (tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}
