// RUN: crest-opt %s --crest-fuse-epilogues="remarks register-budget=3" --split-input-file --verify-diagnostics
// RUN: sed -e "s/expected-remark.*//" %s | crest-opt --crest-fuse-epilogues=register-budget=3 --split-input-file 2>&1 | FileCheck %s --check-prefix=QUIET

// Each reason crest-fuse-epilogues refuses an elementwise op is a remark
// with `remarks` (crest-compile --crest-fusion-remarks); without it the
// pass is silent. fuse-epilogues-results.mlir has the fourth reason.
// QUIET-NOT: remark
// QUIET: func.func @cycle
// QUIET-NOT: remark

// A dependence through an op outside the group (squeeze-and-excitation):
// fusing the multiply would make the kernel depend on its own result.
func.func @cycle(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %0 = crest.conv2d %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32> -> tensor<1x16x4x4xf32>
  // The pool's own epilogue takes the sigmoid, not the multiply (larger).
  // expected-remark @below {{reads its input through 0 op(s) and stores its result through 1 op(s), which join its kernel}}
  %p = crest.global_avg_pool2d %0 : tensor<1x16x4x4xf32> -> tensor<1x16x1x1xf32>
  %s = crest.sigmoid %p : tensor<1x16x1x1xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.conv2d': an operand depends on the kernel's own values through an op outside it}}
  // expected-remark @below {{not fused into the kernel of 'crest.global_avg_pool2d': its result is larger than the row op's: each of its result elements would be computed more than once}}
  %1 = crest.mul %0, %s : tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32> -> tensor<1x16x4x4xf32>
  return %1 : tensor<1x16x4x4xf32>
}

// -----

// A broadcast that grows the tensor: the epilogue would run 4 times per
// output element of the contraction.
func.func @grows(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.matmul': its result (4x8x16) is larger than the output tile (8x16): each output element would be computed more than once}}
  %1 = crest.add %0, %c : tensor<8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  return %1 : tensor<4x8x16xf32>
}

// -----

// The register budget (3 here): x, sigmoid(x) and tanh(x) are live when
// exp(x) would be computed; then x stays live to be stored for exp (a
// second result), so the add would need 4 too. The last add, computed
// from refused values only, is no candidate.
func.func @registers(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %x = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %s = crest.sigmoid %x : tensor<8x16xf32>
  %t = crest.tanh %x : tensor<8x16xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.matmul': the epilogue would keep 4 values live per output element, above the register budget of 3}}
  %e = crest.exp %x : tensor<8x16xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.matmul': the epilogue would keep 4 values live per output element, above the register budget of 3}}
  %0 = crest.add %s, %t : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = crest.add %0, %e : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
