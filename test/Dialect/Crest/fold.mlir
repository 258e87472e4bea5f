// Elementwise ops and casts with constant operands fold with the scalar
// core (crest/Semantics, docs/Semantics.md). Expected values follow IEEE
// round to nearest even and the documented cast rules.
// RUN: crest-opt %s --canonicalize --split-input-file | FileCheck %s

// NaN casts to 0; out-of-range values saturate; truncation toward zero.
// CHECK-LABEL: func.func @cast_to_int
// CHECK-DAG: arith.constant dense<0> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[-3, 3, -128, 127]> : tensor<4xi8>
// CHECK-NOT: crest.cast
func.func @cast_to_int() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) {
  %nan = arith.constant dense<0x7FC00000> : tensor<4xf32>
  %big = arith.constant dense<3.0e+09> : tensor<4xf32>
  %v = arith.constant dense<[-3.9, 3.9, -1000.0, 1000.0]> : tensor<4xf32>
  %a = crest.cast %nan : tensor<4xf32> to tensor<4xi32>
  %b = crest.cast %big : tensor<4xf32> to tensor<4xi32>
  %c = crest.cast %v : tensor<4xf32> to tensor<4xi8>
  return %a, %b, %c : tensor<4xi32>, tensor<4xi32>, tensor<4xi8>
}

// -----

// fp8 saturates (240 is f8E4M3FNUZ's largest), infinities included; f16
// overflows to infinity (65520 is past the rounding boundary).
// CHECK-LABEL: func.func @cast_to_float
// CHECK-DAG: arith.constant dense<2.400000e+02> : tensor<2xf8E4M3FNUZ>
// CHECK-DAG: arith.constant dense<-4.480000e+02> : tensor<2xf8E4M3FN>
// CHECK-DAG: arith.constant dense<0x7C00> : tensor<2xf16>
func.func @cast_to_float() -> (tensor<2xf8E4M3FNUZ>, tensor<2xf8E4M3FN>, tensor<2xf16>) {
  %k = arith.constant dense<1.0e+03> : tensor<2xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2xf32>
  %h = arith.constant dense<6.552000e+04> : tensor<2xf32>
  %a = crest.cast %k : tensor<2xf32> to tensor<2xf8E4M3FNUZ>
  %b = crest.cast %ninf : tensor<2xf32> to tensor<2xf8E4M3FN>
  %c = crest.cast %h : tensor<2xf32> to tensor<2xf16>
  return %a, %b, %c : tensor<2xf8E4M3FNUZ>, tensor<2xf8E4M3FN>, tensor<2xf16>
}

// -----

// f16 computes in f32 and rounds once: 2048 + 1 = 2049 ties to 2048, and
// 2048 + 3 = 2051 to 2052; i8 add wraps (127 + 1 = -128); relu(-0) = +0.
// CHECK-LABEL: func.func @arith
// CHECK-DAG: arith.constant dense<[2.048000e+03, 2.052000e+03]> : tensor<2xf16>
// CHECK-DAG: arith.constant dense<-128> : tensor<3xi8>
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NOT: crest.add
// CHECK-NOT: crest.relu
func.func @arith() -> (tensor<2xf16>, tensor<3xi8>, tensor<2xf32>) {
  %x = arith.constant dense<2048.0> : tensor<2xf16>
  %y = arith.constant dense<[1.0, 3.0]> : tensor<2xf16>
  %s = crest.add %x, %y : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
  %i = arith.constant dense<127> : tensor<3xi8>
  %one = arith.constant dense<1> : tensor<3xi8>
  %w = crest.add %i, %one : tensor<3xi8>, tensor<3xi8> -> tensor<3xi8>
  %nz = arith.constant dense<-0.0> : tensor<2xf32>
  %r = crest.relu %nz : tensor<2xf32>
  return %s, %w, %r : tensor<2xf16>, tensor<3xi8>, tensor<2xf32>
}

// -----

// Ops with transcendental steps do not fold (the device's approximations
// differ from the host's libm by a few ulp); nor do non-constant operands.
// CHECK-LABEL: func.func @no_fold
// CHECK: crest.exp
// CHECK: crest.add
func.func @no_fold(%arg: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<1.0> : tensor<2xf32>
  %e = crest.exp %c : tensor<2xf32>
  %s = crest.add %arg, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %e, %s : tensor<2xf32>, tensor<2xf32>
}

// -----

// leaky_relu: alpha * x below zero (expected values from NumPy:
// np.where(x < 0, np.float32(0.125) * x, x)); NaN passes through.
// CHECK-LABEL: func.func @leaky_relu
// CHECK-DAG: arith.constant dense<[-3.125000e-01, -9.375000e-02, 1.500000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-NOT: crest.leaky_relu
func.func @leaky_relu() -> (tensor<4xf32>, tensor<2xf32>) {
  %v = arith.constant dense<[-2.5, -0.75, 1.5, 3.0]> : tensor<4xf32>
  %nan = arith.constant dense<0x7FC00000> : tensor<2xf32>
  %a = crest.leaky_relu %v {alpha = 0.125 : f32} : tensor<4xf32>
  %b = crest.leaky_relu %nan : tensor<2xf32>
  return %a, %b : tensor<4xf32>, tensor<2xf32>
}

// -----

// The default alpha is ONNX's 0.01: f32(0.01) * -4 = -0.04 in f32.
// CHECK-LABEL: func.func @leaky_relu_default
// CHECK: arith.constant dense<-4.000000e-02> : tensor<2xf32>
func.func @leaky_relu_default() -> tensor<2xf32> {
  %v = arith.constant dense<-4.0> : tensor<2xf32>
  %a = crest.leaky_relu %v : tensor<2xf32>
  return %a : tensor<2xf32>
}

// -----

// log has a transcendental step and does not fold (docs/Semantics.md);
// its values are checked on the emulator (test/Codegen/e2e/ops-activations).
// CHECK-LABEL: func.func @log
// CHECK: crest.log
func.func @log() -> tensor<3xf32> {
  %v = arith.constant dense<[4.0, 0.5, 1.0]> : tensor<3xf32>
  %a = crest.log %v : tensor<3xf32>
  return %a : tensor<3xf32>
}

// -----

// floor, ceil and round are exact and fold. By hand: floor(-2.5) = -3,
// floor(-0.5) = -1, floor(0.75) = 0, floor(7) = 7; ceil(-2.5) = -2,
// ceil(-0.5) = -0 (the sign of x), ceil(0.25) = 1, ceil(7) = 7; round ties
// to even: 2.5 -> 2, -1.5 -> -2, 0.5 -> 0, 3.5 -> 4, -0.25 -> -0,
// 2.75 -> 3. f16 rounds the same way: round(-2.5 : f16) = -2.
// CHECK-LABEL: func.func @round_to_integral
// CHECK-DAG: arith.constant dense<[-3.000000e+00, -1.000000e+00, 0.000000e+00, 7.000000e+00]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<[-2.000000e+00, -0.000000e+00, 1.000000e+00, 7.000000e+00]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<[2.000000e+00, -2.000000e+00, 0.000000e+00, 4.000000e+00, -0.000000e+00, 3.000000e+00]> : tensor<6xf32>
// CHECK-DAG: arith.constant dense<-2.000000e+00> : tensor<2xf16>
// CHECK-NOT: crest.floor
// CHECK-NOT: crest.ceil
// CHECK-NOT: crest.round
func.func @round_to_integral() -> (tensor<4xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2xf16>) {
  %f = arith.constant dense<[-2.5, -0.5, 0.75, 7.0]> : tensor<4xf32>
  %c = arith.constant dense<[-2.5, -0.5, 0.25, 7.0]> : tensor<4xf32>
  %r = arith.constant dense<[2.5, -1.5, 0.5, 3.5, -0.25, 2.75]> : tensor<6xf32>
  %h = arith.constant dense<-2.5> : tensor<2xf16>
  %a = crest.floor %f : tensor<4xf32>
  %b = crest.ceil %c : tensor<4xf32>
  %d = crest.round %r : tensor<6xf32>
  %e = crest.round %h : tensor<2xf16>
  return %a, %b, %d, %e : tensor<4xf32>, tensor<4xf32>, tensor<6xf32>, tensor<2xf16>
}
