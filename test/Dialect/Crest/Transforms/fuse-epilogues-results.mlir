// RUN: crest-opt %s --crest-fuse-epilogues="remarks max-results=1" --split-input-file --verify-diagnostics | FileCheck %s

// With max-results = 1 a group whose values are used outside is given up
// from its last op until it has one result: storing the returned matmul
// value and the ReLU would need two, and the alternative, recomputing the
// matmul for its outside use, is what fusion must not do.
// CHECK-LABEL: func.func @too_many_results
// CHECK-NOT: crest.kernel
func.func @too_many_results(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.matmul': the kernel would need 2 results (max-results = 1); its values used outside it would have to be recomputed there}}
  %1 = crest.relu %0 : tensor<8x16xf32>
  return %1, %0 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Giving up the tanh is enough: the add's value then has no outside use.
// CHECK-LABEL: func.func @shrinks
// CHECK: %[[K:.*]] = crest.kernel
// CHECK:   crest.matmul
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.relu
// CHECK-NEXT: crest.yield
// CHECK: crest.tanh %[[K]]
func.func @shrinks(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %1 = crest.add %0, %c : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %2 = crest.relu %1 : tensor<8x16xf32>
  // expected-remark @below {{not fused into the epilogue of 'crest.matmul': the kernel would need 2 results (max-results = 1); its values used outside it would have to be recomputed there}}
  %3 = crest.tanh %2 : tensor<8x16xf32>
  return %2, %3 : tensor<8x16xf32>, tensor<8x16xf32>
}
