// RUN: crest-opt %s --split-input-file --crest-convert-linalg --verify-diagnostics

func.func @conv3d(%x: tensor<1x1x4x4x4xf32>, %w: tensor<1x1x2x2x2xf32>, %o: tensor<1x1x3x3x3xf32>) -> tensor<1x1x3x3x3xf32> {
  // expected-error @+1 {{'linalg.conv_3d_ncdhw_fcdhw' is not supported by Crest's linalg conversion}}
  %y = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%x, %w : tensor<1x1x4x4x4xf32>, tensor<1x1x2x2x2xf32>) outs(%o : tensor<1x1x3x3x3xf32>) -> tensor<1x1x3x3x3xf32>
  return %y : tensor<1x1x3x3x3xf32>
}

// -----

// A 1-D convolution written as a generic (a sliding window).
#window = affine_map<(d0, d1) -> (d0 + d1)>
#filter = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @window(%x: tensor<6xf32>, %w: tensor<3xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' cannot be converted to crest: its operands must be read through projected permutations (no sliding windows or constant indices)}}
  %y = linalg.generic {indexing_maps = [#window, #filter, #out], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<6xf32>, tensor<3xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' cannot be converted to crest: 'math.sin' in its body is not supported}}
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @unordered(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4xi1>
  // expected-error @+1 {{'linalg.generic' cannot be converted to crest: arith.cmpf one is not supported}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %c = arith.cmpf one, %a, %b : f32
    linalg.yield %c : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}

// -----

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @subtract_reduce(%x: tensor<4xf32>, %o: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'linalg.generic' cannot be converted to crest: a reduction's body must end in arith.addf, mulf, maximumf, maxnumf, minimumf or minnumf with its accumulator}}
  %r = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]} ins(%x : tensor<4xf32>) outs(%o : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'linalg.matmul' cannot be converted to crest: Crest needs statically shaped tensors, got tensor<?x8xf32>}}
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x4xf32>) outs(%c : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

func.func @dilated_pool(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  // expected-error @+1 {{'linalg.pooling_nchw_max' cannot be converted to crest: pooling with dilations is not supported}}
  %m = linalg.pooling_nchw_max {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x1x6x6xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %m : tensor<1x1x4x4xf32>
}
