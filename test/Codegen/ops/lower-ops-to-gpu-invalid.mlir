// RUN: crest-opt %s --split-input-file --verify-diagnostics --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu
// RUN: not crest-opt %s --crest-lower-ops-to-gpu 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not crest-opt %s --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu=block-size=100 2>&1 | FileCheck %s --check-prefix=BLOCK

// NOTARGET: needs a #crest.target on the module
// BLOCK: error: block-size 100 must be a positive multiple of the wave size (64) of at most 1024

func.func @conv(%i: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @below {{has no crest.launch; run crest-lower-to-gpu first}}
  %c = crest.conv2d %i, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}

// -----

func.func @matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @below {{has no crest.launch; run crest-lower-to-gpu first}}
  %c = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

func.func @matmul_kernel(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @below {{has a contraction but no crest.launch; run crest-lower-to-gpu first}}
  %0 = crest.kernel ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>):
    %c = crest.matmul %x, %y precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    crest.yield %c : tensor<8x8xf32>
  }
  return %0 : tensor<8x8xf32>
}

// -----

// (A layer norm, softmax or reduction may end one: row-prologue.test.)
func.func @transpose_in_kernel(%a: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = crest.kernel ins(%a : tensor<8x4xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<8x4xf32>):
    // expected-error @below {{is not elementwise; a kernel without a contraction holds elementwise operations, ending in at most one layer norm, softmax or reduction}}
    %t = crest.transpose %x permutation [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
    crest.yield %t : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

func.func @two_shapes(%a: tensor<8x8xf32>, %b: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>) {
  // expected-error @below {{elementwise kernel results must all have one shape}}
  %0:2 = crest.kernel ins(%a, %b : tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>, tensor<8xf32> {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8xf32>):
    %r = crest.relu %x : tensor<8x8xf32>
    %t = crest.tanh %y : tensor<8xf32>
    crest.yield %r, %t : tensor<8x8xf32>, tensor<8xf32>
  }
  return %0#0, %0#1 : tensor<8x8xf32>, tensor<8xf32>
}

// -----

func.func @wider_input(%a: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{elementwise kernel input of type 'tensor<8x8xf32>' does not broadcast to the result shape}}
  %0 = crest.kernel ins(%a, %b : tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8x8xf32>, %y: tensor<8xf32>):
    %t = crest.tanh %y : tensor<8xf32>
    crest.yield %t : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @no_results(%a: tensor<8xf32>) {
  // expected-error @below {{yields nothing}}
  crest.kernel ins(%a : tensor<8xf32>) {
  ^bb0(%x: tensor<8xf32>):
    crest.yield
  }
  return
}

// -----

func.func @dense_constant(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = crest.kernel ins(%a : tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%x: tensor<2xf32>):
    // expected-error @below {{is a non-splat constant inside a kernel; pass it as a kernel input}}
    %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r = crest.add %x, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    crest.yield %r : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @gapped_mean(%a: tensor<4x5x6xf32>) -> tensor<5xf32> {
  // expected-error @below {{reduces non-adjacent dimensions; only a reduction over consecutive dimensions has a kernel yet}}
  %m = crest.reduce_mean %a dims [0, 2] : tensor<4x5x6xf32> -> tensor<5xf32>
  return %m : tensor<5xf32>
}

// -----

// crest.attention's kernel comes from crest-lower-attention.
func.func @attention(%q: tensor<1x4x64x32xf16>, %k: tensor<1x4x64x32xf16>, %v: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  // expected-error @below {{'crest.attention' op has no crest.launch; run crest-lower-attention first}}
  %o = crest.attention %q, %k, %v qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f16> : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16> -> tensor<1x4x64x32xf16>
  return %o : tensor<1x4x64x32xf16>
}

// -----

// Row kernels (a layer norm, softmax or reduction with a prologue and an
// epilogue): what follows the row op has its result's shape.
func.func @row_op_after(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %k = crest.kernel ins(%x : tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    %m = crest.reduce_mean %a dims [1] keep_dims : tensor<8x64xf32> -> tensor<8x1xf32>
    // expected-error @below {{cannot join the kernel of crest.reduce_mean: only elementwise ops and gathers of its input's shape may come before it, and elementwise ops of its result's shape after it}}
    %z = crest.sub %a, %m : tensor<8x64xf32>, tensor<8x1xf32> -> tensor<8x64xf32>
    crest.yield %z : tensor<8x64xf32>
  }
  return %k : tensor<8x64xf32>
}

// -----

// The epilogue reads the prologue's value, which the store does not have.
func.func @row_epilogue_reads_prologue(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %k = crest.kernel ins(%x : tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    %n = crest.neg %a : tensor<8x64xf32>
    %y = crest.softmax %n : tensor<8x64xf32>
    // expected-error @below {{in a row kernel reads operand #1, which is neither a kernel input, a splat constant nor computed before it in its part of the kernel}}
    %z = crest.add %y, %n : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
    crest.yield %z : tensor<8x64xf32>
  }
  return %k : tensor<8x64xf32>
}

// -----

func.func @row_gather_of_computed(%t: tensor<4x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  %k = crest.kernel ins(%t, %i : tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4xi64>):
    %n = crest.neg %a : tensor<4x8xf32>
    // expected-error @below {{in a row kernel reads operand #0, which is neither a kernel input}}
    %g = crest.gather %n, %b : tensor<4x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
    %y = crest.softmax %g : tensor<4x8xf32>
    crest.yield %y : tensor<4x8xf32>
  }
  return %k : tensor<4x8xf32>
}

// -----

func.func @row_computed_scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %k = crest.kernel ins(%x : tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %n = crest.neg %a : tensor<4x8xf32>
    // expected-error @below {{in a row kernel reads its scale and bias from kernel inputs or splat constants only}}
    %y = crest.layer_norm %a, %n {axis = 0 : i64} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    crest.yield %y : tensor<4x8xf32>
  }
  return %k : tensor<4x8xf32>
}

// -----

func.func @row_yields_input(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %k:2 = crest.kernel ins(%x : tensor<8x64xf32>) -> tensor<8x64xf32>, tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    %n = crest.neg %a : tensor<8x64xf32>
    %y = crest.softmax %n : tensor<8x64xf32>
    // expected-error @below {{of a row kernel yields value #1, which is computed by none of its ops}}
    crest.yield %y, %a : tensor<8x64xf32>, tensor<8x64xf32>
  }
  return %k#0, %k#1 : tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

func.func @row_result_not_yielded(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %k = crest.kernel ins(%x : tensor<8x64xf32>) -> tensor<8x64xf32> {
  ^bb0(%a: tensor<8x64xf32>):
    %n = crest.neg %a : tensor<8x64xf32>
    %y = crest.softmax %n : tensor<8x64xf32>
    // expected-error @below {{of a row kernel must yield the result of crest.softmax or of an op after it}}
    crest.yield %n : tensor<8x64xf32>
  }
  return %k : tensor<8x64xf32>
}
