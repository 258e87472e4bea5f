// RUN: crest-opt %s -split-input-file -verify-diagnostics

// Region errors of crest.kernel (KernelOp::verifyRegions) and the
// structural constraints ODS adds to crest.kernel and crest.yield.

// The kernel of the op description verifies: a matmul with a fused bias add
// and relu, and a constant inside the kernel.
func.func @valid(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>, %b: tensor<128xf32>) -> tensor<8x128xf32> {
  %y = crest.kernel ins(%x, %w, %b : tensor<8x256xf32>, tensor<256x128xf32>, tensor<128xf32>)
         -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %bw: tensor<256x128xf32>, %bias: tensor<128xf32>):
    %six = arith.constant dense<6.0> : tensor<8x128xf32>
    %0 = crest.matmul %a, %bw precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    %1 = crest.add %0, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
    %2 = crest.relu %1 : tensor<8x128xf32>
    %3 = crest.min %2, %six : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
    crest.yield %3 : tensor<8x128xf32>
  }
  return %y : tensor<8x128xf32>
}

// -----

// Without a contraction, normalizations and reductions may be grouped.
func.func @valid_no_contraction(%x: tensor<4x128xf32>) -> tensor<4x1xf32> {
  %y = crest.kernel ins(%x : tensor<4x128xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x128xf32>):
    %0 = crest.softmax %a : tensor<4x128xf32>
    %1 = crest.reduce_mean %0 dims [1] keep_dims : tensor<4x128xf32> -> tensor<4x1xf32>
    crest.yield %1 : tensor<4x1xf32>
  }
  return %y : tensor<4x1xf32>
}

// -----

// A contraction may read a constant.
func.func @valid_constant_operand(%x: tensor<8x16xf16>) -> tensor<8x16xf32> {
  %y = crest.kernel ins(%x : tensor<8x16xf16>) -> tensor<8x16xf32> {
  ^bb0(%a: tensor<8x16xf16>):
    %w = arith.constant dense<1.0> : tensor<16x16xf16>
    %0 = crest.matmul %a, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf32>
    crest.yield %0 : tensor<8x16xf32>
  }
  return %y : tensor<8x16xf32>
}

//===----------------------------------------------------------------------===//
// Block arguments and yield
//===----------------------------------------------------------------------===//

// -----

func.func @body_arg_count(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  // expected-error @+1 {{'crest.kernel' op body has 1 arguments but the kernel has 2 inputs}}
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x256xf32> {
  ^bb0(%a: tensor<8x256xf32>):
    crest.yield %a : tensor<8x256xf32>
  }
  return
}

// -----

func.func @body_arg_count_no_inputs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op body has 1 arguments but the kernel has 0 inputs}}
  %y = crest.kernel -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    crest.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @body_arg_type(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  // expected-error @+1 {{'crest.kernel' op body argument #1 has type 'tensor<256x128xf16>' but input #1 has type 'tensor<256x128xf32>'}}
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x256xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf16>):
    crest.yield %a : tensor<8x256xf32>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op body yields 0 values but the kernel has 1 results}}
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    crest.yield
  }
  return
}

// -----

func.func @yield_count_too_many(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op body yields 2 values but the kernel has 1 results}}
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = crest.exp %a : tensor<4xf32>
    crest.yield %a, %0 : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @yield_type(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  // expected-error @+1 {{'crest.kernel' op yielded value #0 has type 'tensor<8x128xf32>' but result #0 has type 'tensor<8x128xf16>'}}
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x128xf16> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    crest.yield %0 : tensor<8x128xf32>
  }
  return
}

// -----

// llvm.unreachable is a terminator that accepts any parent.
func.func @not_yield_terminated(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op body must end with crest.yield}}
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = crest.relu %a : tensor<4xf32>
    llvm.unreachable
  }
  return
}

// -----

// Without any terminator the generic block verifier reports first.
func.func @no_terminator(%x: tensor<4xf32>) {
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator}}
    %0 = crest.relu %a : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_kernel(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.yield' op expects parent op 'crest.kernel'}}
  crest.yield %x : tensor<4xf32>
}

// -----

func.func @two_blocks(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op expects region #0 to have 0 or 1 blocks}}
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    crest.yield %a : tensor<4xf32>
  ^bb1:
    crest.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @empty_body(%x: tensor<4xf32>) {
  // expected-error @+1 {{'crest.kernel' op expects a non-empty block}}
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  }
  return
}

//===----------------------------------------------------------------------===//
// What a kernel may hold
//===----------------------------------------------------------------------===//

// -----

func.func @non_crest_op(%x: tensor<4xf32>) {
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'arith.addf' op cannot be part of a crest.kernel; a kernel holds crest operations and constants}}
    %0 = arith.addf %a, %a : tensor<4xf32>
    crest.yield %0 : tensor<4xf32>
  }
  return
}

// -----

// tensor.empty is not a constant.
func.func @non_constant_op(%x: tensor<4xf32>) {
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'tensor.empty' op cannot be part of a crest.kernel; a kernel holds crest operations and constants}}
    %0 = tensor.empty() : tensor<4xf32>
    crest.yield %0 : tensor<4xf32>
  }
  return
}

// -----

func.func @nested_kernel(%x: tensor<4xf32>) {
  %y = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'crest.kernel' op cannot be part of a crest.kernel; a kernel holds crest operations and constants}}
    %0 = crest.kernel ins(%a : tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%b: tensor<4xf32>):
      %1 = crest.relu %b : tensor<4xf32>
      crest.yield %1 : tensor<4xf32>
    }
    crest.yield %0 : tensor<4xf32>
  }
  return
}

// -----

func.func @second_contraction(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>, %v: tensor<256x128xf32>) {
  %y = crest.kernel ins(%x, %w, %v : tensor<8x256xf32>, tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>, %c: tensor<256x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    // expected-error @+1 {{'crest.matmul' op is a second contraction in one crest.kernel; a kernel holds at most one}}
    %1 = crest.matmul %a, %c precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    %2 = crest.add %0, %1 : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
    crest.yield %2 : tensor<8x128xf32>
  }
  return
}

// -----

// Any two contractions, e.g. a conv2d after a batch_matmul.
func.func @second_contraction_conv(%q: tensor<1x4x64xf16>, %k: tensor<1x64x4xf16>, %x: tensor<1x4x4x4xf16>, %w: tensor<4x4x1x1xf16>) {
  %y = crest.kernel ins(%q, %k, %x, %w : tensor<1x4x64xf16>, tensor<1x64x4xf16>, tensor<1x4x4x4xf16>, tensor<4x4x1x1xf16>) -> tensor<1x4x4xf32> {
  ^bb0(%a: tensor<1x4x64xf16>, %b: tensor<1x64x4xf16>, %c: tensor<1x4x4x4xf16>, %d: tensor<4x4x1x1xf16>):
    %0 = crest.batch_matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<1x4x64xf16>, tensor<1x64x4xf16> -> tensor<1x4x4xf32>
    // expected-error @+1 {{'crest.conv2d' op is a second contraction in one crest.kernel; a kernel holds at most one}}
    %1 = crest.conv2d %c, %d precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<1x4x4x4xf16>, tensor<4x4x1x1xf16> -> tensor<1x4x4x4xf32>
    crest.yield %0 : tensor<1x4x4xf32>
  }
  return
}

// -----

func.func @config_without_contraction(%x: tensor<4x128xf32>) {
  // expected-error @+1 {{'crest.kernel' op has a 'config' but no contraction; a config selects the matrix instructions of a contraction}}
  %y = crest.kernel ins(%x : tensor<4x128xf32>)
         config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup>
         -> tensor<4x128xf32> {
  ^bb0(%a: tensor<4x128xf32>):
    %0 = crest.softmax %a : tensor<4x128xf32>
    crest.yield %0 : tensor<4x128xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Contraction and epilogue
//===----------------------------------------------------------------------===//

// -----

// A prologue op that is not elementwise.
func.func @prologue_not_elementwise(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    // expected-error @+1 {{'crest.softmax' op cannot be part of the contraction's lhs prologue; only elementwise operations are applied as the operand is loaded}}
    %0 = crest.softmax %a : tensor<8x256xf32>
    %1 = crest.matmul %0, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    crest.yield %1 : tensor<8x128xf32>
  }
  return
}

// -----

// A prologue value also used by the epilogue.
func.func @prologue_used_after(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  %y:2 = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x128xf32>, tensor<256x128xf16> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    %0 = crest.cast %a : tensor<8x256xf32> to tensor<8x256xf16>
    // expected-error @+1 {{'crest.cast' op is in the contraction's rhs prologue but its result is also used after the contraction; a prologue value is only loaded into the operand}}
    %1 = crest.cast %b : tensor<256x128xf32> to tensor<256x128xf16>
    %2 = crest.matmul %0, %1 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<8x256xf16>, tensor<256x128xf16> -> tensor<8x128xf32>
    crest.yield %2, %1 : tensor<8x128xf32>, tensor<256x128xf16>
  }
  return
}

// -----

// An op before the contraction that computes neither operand.
func.func @op_before_contraction(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>, %r: tensor<8x128xf32>) {
  %y = crest.kernel ins(%x, %w, %r : tensor<8x256xf32>, tensor<256x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>, %c: tensor<8x128xf32>):
    // expected-error @+1 {{'crest.relu' op comes before the contraction but does not compute its lhs or rhs; a crest.kernel's other ops follow it}}
    %0 = crest.relu %c : tensor<8x128xf32>
    %1 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    %2 = crest.add %1, %0 : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
    crest.yield %2 : tensor<8x128xf32>
  }
  return
}

// -----

// One prologue op feeding both operands.
func.func @prologue_both_operands(%x: tensor<64x64xf32>) {
  %y = crest.kernel ins(%x : tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%a: tensor<64x64xf32>):
    // expected-error @+1 {{'crest.cast' op computes both operands of the contraction; a prologue op belongs to one operand}}
    %0 = crest.cast %a : tensor<64x64xf32> to tensor<64x64xf16>
    %1 = crest.matmul %0, %0 precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    crest.yield %1 : tensor<64x64xf32>
  }
  return
}

// -----

// A prologue whose inputs are all smaller than the operand: nothing to
// read the operand's elements from.
func.func @prologue_without_source(%s: tensor<8x1xf32>, %t: tensor<1x256xf32>, %w: tensor<256x128xf32>) {
  %y = crest.kernel ins(%s, %t, %w : tensor<8x1xf32>, tensor<1x256xf32>, tensor<256x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x1xf32>, %c: tensor<1x256xf32>, %b: tensor<256x128xf32>):
    // expected-error @+1 {{'crest.mul' op starts the contraction's lhs prologue, which reads no kernel input of the operand's shape 8x256; the prologue is applied to that input's elements}}
    %0 = crest.mul %a, %c : tensor<8x1xf32>, tensor<1x256xf32> -> tensor<8x256xf32>
    %1 = crest.matmul %0, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    crest.yield %1 : tensor<8x128xf32>
  }
  return
}

// -----

// A prologue op on a smaller shape than the operand.
func.func @prologue_shape(%x: tensor<8x256xf32>, %s: tensor<8x1xf32>, %w: tensor<256x128xf32>) {
  %y = crest.kernel ins(%x, %s, %w : tensor<8x256xf32>, tensor<8x1xf32>, tensor<256x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %c: tensor<8x1xf32>, %b: tensor<256x128xf32>):
    // expected-error @+1 {{'crest.relu' op result shape 8x1 differs from the contraction's lhs 8x256; a prologue works on the operand's elements}}
    %0 = crest.relu %c : tensor<8x1xf32>
    %1 = crest.mul %a, %0 : tensor<8x256xf32>, tensor<8x1xf32> -> tensor<8x256xf32>
    %2 = crest.matmul %1, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    crest.yield %2 : tensor<8x128xf32>
  }
  return
}

// -----

func.func @non_elementwise_epilogue(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    // expected-error @+1 {{'crest.softmax' op cannot be fused with a contraction; only elementwise operations form a contraction's epilogue}}
    %1 = crest.softmax %0 : tensor<8x128xf32>
    crest.yield %1 : tensor<8x128xf32>
  }
  return
}

// -----

func.func @reduction_epilogue(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    // expected-error @+1 {{'crest.reduce_mean' op cannot be fused with a contraction; only elementwise operations form a contraction's epilogue}}
    %1 = crest.reduce_mean %0 dims [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
    crest.yield %1 : tensor<8x1xf32>
  }
  return
}

// -----

func.func @epilogue_shape(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>, %b: tensor<128xf32>) {
  %y = crest.kernel ins(%x, %w, %b : tensor<8x256xf32>, tensor<256x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %bw: tensor<256x128xf32>, %bias: tensor<128xf32>):
    %1 = crest.matmul %a, %bw precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    // expected-error @+1 {{'crest.add' op result shape 128 differs from the contraction's 8x128; an epilogue works on the contraction's output tile}}
    %0 = crest.add %bias, %bias : tensor<128xf32>, tensor<128xf32> -> tensor<128xf32>
    %2 = crest.add %1, %0 : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
    crest.yield %2 : tensor<8x128xf32>
  }
  return
}

// -----

// A broadcast that grows the tile is not an epilogue either.
func.func @epilogue_broadcast_grows(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>, %r: tensor<2x8x128xf32>) {
  %y = crest.kernel ins(%x, %w, %r : tensor<8x256xf32>, tensor<256x128xf32>, tensor<2x8x128xf32>) -> tensor<2x8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>, %res: tensor<2x8x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    // expected-error @+1 {{'crest.add' op result shape 2x8x128 differs from the contraction's 8x128; an epilogue works on the contraction's output tile}}
    %1 = crest.add %0, %res : tensor<8x128xf32>, tensor<2x8x128xf32> -> tensor<2x8x128xf32>
    crest.yield %1 : tensor<2x8x128xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// The kernel's config
//===----------------------------------------------------------------------===//

// -----

// stages = 1 (the default) against the contraction's stages = 2.
func.func @config_differs(%x: tensor<8x256xf32>, %w: tensor<256x128xf32>) {
  // expected-error @+1 {{'crest.kernel' op config #crest.config<mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup> differs from its contraction's config #crest.config<mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>}}
  %y = crest.kernel ins(%x, %w : tensor<8x256xf32>, tensor<256x128xf32>)
         config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                 wave_tile = [32, 32], scope = workgroup>
         -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x256xf32>, %b: tensor<256x128xf32>):
    %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           : tensor<8x256xf32>, tensor<256x128xf32> -> tensor<8x128xf32>
    crest.yield %0 : tensor<8x128xf32>
  }
  return
}

// -----

// Equal configs verify, also under a target.
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @config_equal(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) {
    %y = crest.kernel ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>)
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup, stages = 2>
           -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>):
      %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
             config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                     wave_tile = [32, 32], scope = workgroup, stages = 2>
             : tensor<64x256xf32>, tensor<256x128xf32> -> tensor<64x128xf32>
      crest.yield %0 : tensor<64x128xf32>
    }
    return
  }
}

// -----

// Under a target the kernel's config is checked against the chip with the
// contraction's precision: a gfx90a spelling on gfx942 ...
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @kernel_config_not_on_chip(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) {
    // expected-error @+1 {{'crest.kernel' op config names 'v_mfma_f32_32x32x2f32', which gfx942 does not have; its instructions for f32 x f32 -> f32: v_mfma_f32_32x32x2_f32, v_mfma_f32_16x16x4_f32, v_mfma_f32_32x32x1_2b_f32, v_mfma_f32_16x16x1_4b_f32, v_mfma_f32_4x4x1_16b_f32}}
    %y = crest.kernel ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>)
           config <mma = "v_mfma_f32_32x32x2f32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>):
      %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
             : tensor<64x256xf32>, tensor<256x128xf32> -> tensor<64x128xf32>
      crest.yield %0 : tensor<64x128xf32>
    }
    return
  }
}

// -----

// ... an instruction of another precision ...
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @kernel_config_wrong_precision(%x: tensor<64x256xf16>, %w: tensor<256x128xf16>) {
    // expected-error @+1 {{'crest.kernel' op config instruction v_mfma_f32_32x32x2_f32 computes f32 x f32 -> f32, but the precision is f16 x f16 -> f32}}
    %y = crest.kernel ins(%x, %w : tensor<64x256xf16>, tensor<256x128xf16>)
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x256xf16>, %b: tensor<256x128xf16>):
      %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
             : tensor<64x256xf16>, tensor<256x128xf16> -> tensor<64x128xf32>
      crest.yield %0 : tensor<64x128xf32>
    }
    return
  }
}

// -----

// ... and the LDS budget: 2 * (128*132*4 + 128*132*4) = 270336 bytes (f32
// rows padded by 4 elements).
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @kernel_config_lds(%x: tensor<128x256xf32>, %w: tensor<256x128xf32>, %r: tensor<128x128xf32>) {
    // expected-error @+1 {{'crest.kernel' op config needs 270336 bytes of LDS (2 stages of a 128x128 lhs and a 128x128 rhs tile, K rows padded by 4 elements); gfx942 has 65536 per workgroup}}
    %y = crest.kernel ins(%x, %w, %r : tensor<128x256xf32>, tensor<256x128xf32>, tensor<128x128xf32>)
           config <mma = "v_mfma_f32_32x32x2_f32", workgroup_tile = [128, 128, 128],
                   wave_tile = [64, 64], scope = workgroup, stages = 2>
           -> tensor<128x128xf32> {
    ^bb0(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>, %res: tensor<128x128xf32>):
      %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
             : tensor<128x256xf32>, tensor<256x128xf32> -> tensor<128x128xf32>
      %1 = crest.add %0, %res : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
      crest.yield %1 : tensor<128x128xf32>
    }
    return
  }
}

// -----

// A contraction whose precision the chip lacks is reported by the
// contraction itself; the kernel's config is not checked after that.
module attributes {crest.target = #crest.target<chip = "gfx90a">} {
  func.func @kernel_precision_not_on_chip(%x: tensor<64x64xf8E4M3FNUZ>) {
    %y = crest.kernel ins(%x : tensor<64x64xf8E4M3FNUZ>)
           config <mma = "v_mfma_f32_32x32x16_fp8_fp8", workgroup_tile = [64, 64, 32],
                   wave_tile = [32, 32], scope = workgroup>
           -> tensor<64x64xf32> {
    ^bb0(%a: tensor<64x64xf8E4M3FNUZ>):
      // expected-error @+1 {{'crest.matmul' op gfx90a has no matrix instruction for f8E4M3FNUZ x f8E4M3FNUZ -> f32; gfx90a has no fp8 matrix instructions}}
      %0 = crest.matmul %a, %a precision <lhs = f8E4M3FNUZ, rhs = f8E4M3FNUZ, acc = f32, out = f32>
             : tensor<64x64xf8E4M3FNUZ>, tensor<64x64xf8E4M3FNUZ> -> tensor<64x64xf32>
      crest.yield %0 : tensor<64x64xf32>
    }
    return
  }
}

// -----

// The kernel's config must realize the sync its contraction asked for, as a
// config on the contraction itself must.
func.func @kernel_config_contradicts_contraction_sync(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'crest.kernel' op config (scope = workgroup, stages = 2) contradicts sync (scope = wavefront, stages = 1)}}
  %0 = crest.kernel ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>)
         config <mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [64, 64, 32], wave_tile = [32, 32], scope = workgroup, stages = 2>
         -> tensor<64x64xf32> {
  ^bb0(%x: tensor<64x64xf16>, %y: tensor<64x64xf16>):
    %1 = crest.matmul %x, %y precision <lhs = f16, rhs = f16, acc = f32, out = f32> sync <scope = wavefront>
           : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    crest.yield %1 : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}

// -----

// An attention's kernel holds only the views its operands are read through.
func.func @attention_kernel_other_op(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%q, %k, %v : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  ^bb0(%a: tensor<1x2x8x16xf16>, %b: tensor<1x2x8x16xf16>, %c: tensor<1x2x8x16xf16>):
    // expected-error @below {{cannot be part of an attention's kernel; only reshapes, slices and transposes of its inputs read through}}
    %n = crest.neg %a : tensor<1x2x8x16xf16>
    %o = crest.attention %n, %b, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// A transpose that moves the innermost dimension would make the head
// dimension strided in the input.
func.func @attention_view_moves_rows(%x: tensor<1x2x16x8xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%x, %k, %v : tensor<1x2x16x8xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  ^bb0(%a: tensor<1x2x16x8xf16>, %b: tensor<1x2x8x16xf16>, %c: tensor<1x2x8x16xf16>):
    // expected-error @below {{cannot be read through by the attention: 'crest.transpose' moves the innermost dimension; its rows must stay contiguous in the kernel input}}
    %t = crest.transpose %a permutation [0, 1, 3, 2] : tensor<1x2x16x8xf16> -> tensor<1x2x8x16xf16>
    %o = crest.attention %t, %b, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// A reshape whose rows of 16 straddle the input's rows of 24.
func.func @attention_view_splits_rows(%x: tensor<1x2x16x24xf16>, %k: tensor<1x2x24x16xf16>, %v: tensor<1x2x24x16xf16>) -> tensor<1x2x24x16xf32> {
  %0 = crest.kernel ins(%x, %k, %v : tensor<1x2x16x24xf16>, tensor<1x2x24x16xf16>, tensor<1x2x24x16xf16>) -> tensor<1x2x24x16xf32> {
  ^bb0(%a: tensor<1x2x16x24xf16>, %b: tensor<1x2x24x16xf16>, %c: tensor<1x2x24x16xf16>):
    // expected-error @below {{cannot be read through by the attention: 'crest.reshape' to 1x2x24x16 splits a row of 16 across the input's rows of 24; its rows must stay contiguous in the kernel input}}
    %r = crest.reshape %a : tensor<1x2x16x24xf16> to tensor<1x2x24x16xf16>
    %o = crest.attention %r, %b, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x24x16xf16>, tensor<1x2x24x16xf16>, tensor<1x2x24x16xf16> -> tensor<1x2x24x16xf32>
    crest.yield %o : tensor<1x2x24x16xf32>
  }
  return %0 : tensor<1x2x24x16xf32>
}

// -----

// Each view computes one operand.
func.func @attention_view_shared(%x: tensor<1x8x2x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%x, %v : tensor<1x8x2x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  ^bb0(%a: tensor<1x8x2x16xf16>, %c: tensor<1x2x8x16xf16>):
    // expected-error @below {{has several uses in an attention's kernel; each view computes one operand}}
    %t = crest.transpose %a permutation [0, 2, 1, 3] : tensor<1x8x2x16xf16> -> tensor<1x2x8x16xf16>
    %o = crest.attention %t, %t, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// An attention and a contraction are two kernels.
func.func @attention_with_matmul(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %a: tensor<8x16xf16>, %b: tensor<16x8xf16>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%q, %k, %v, %a, %b : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<8x16xf16>, tensor<16x8xf16>) -> tensor<1x2x8x16xf32> {
  ^bb0(%x: tensor<1x2x8x16xf16>, %y: tensor<1x2x8x16xf16>, %z: tensor<1x2x8x16xf16>, %m: tensor<8x16xf16>, %n: tensor<16x8xf16>):
    // expected-error @below {{cannot share a crest.kernel with a 'crest.attention'}}
    %p = crest.matmul %m, %n precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf32>
    %o = crest.attention %x, %y, %z qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// After the attention only reshapes and transposes of its result (the
// kernel stores through them); a slice would drop elements.
func.func @attention_slice_after(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x8xf32> {
  %0 = crest.kernel ins(%q, %k, %v : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x8xf32> {
  ^bb0(%a: tensor<1x2x8x16xf16>, %b: tensor<1x2x8x16xf16>, %c: tensor<1x2x8x16xf16>):
    %o = crest.attention %a, %b, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    // expected-error @below {{comes after the 'crest.attention' but does not reshape or transpose its result; only those follow it (the kernel stores through them)}}
    %s = crest.slice %o offsets [0, 0, 0, 0] : tensor<1x2x8x16xf32> -> tensor<1x2x8x8xf32>
    crest.yield %s : tensor<1x2x8x8xf32>
  }
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// Every operand comes from a kernel input.
func.func @attention_constant_operand(%k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%k, %v : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf32> {
  ^bb0(%b: tensor<1x2x8x16xf16>, %c: tensor<1x2x8x16xf16>):
    %q = arith.constant dense<1.0> : tensor<1x2x8x16xf16>
    // expected-error @below {{operand does not come from a kernel input through reshapes, slices and transposes}}
    %o = crest.attention %q, %b, %c qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// The KV length and the mask are read as they are.
func.func @attention_mask_view(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %m: tensor<8x8xi1>) -> tensor<1x2x8x16xf32> {
  %0 = crest.kernel ins(%q, %k, %v, %m : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<8x8xi1>) -> tensor<1x2x8x16xf32> {
  ^bb0(%a: tensor<1x2x8x16xf16>, %b: tensor<1x2x8x16xf16>, %c: tensor<1x2x8x16xf16>, %d: tensor<8x8xi1>):
    // expected-error @below {{computes the attention's mask; an attention's kernel reads only Q, K and V through views}}
    %r = crest.reshape %d : tensor<8x8xi1> to tensor<1x1x8x8xi1>
    %o = crest.attention %a, %b, %c mask %r : tensor<1x1x8x8xi1> qk <lhs = f16, rhs = f16, acc = f32, out = f32> pv <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf32>
    crest.yield %o : tensor<1x2x8x16xf32>
  }
  return %0 : tensor<1x2x8x16xf32>
}
