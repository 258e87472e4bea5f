// RUN: crest-opt %s -allow-unregistered-dialect -split-input-file -verify-diagnostics

// An op of an unregistered dialect has no Dialect object; it is rejected
// like any other foreign op, not dereferenced.
func.func @unregistered_op_in_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = crest.kernel ins(%x : tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'foo.bar' op cannot be part of a crest.kernel; a kernel holds crest operations and constants}}
    %1 = "foo.bar"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    crest.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
