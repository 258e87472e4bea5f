// A small TOSA graph in NHWC, as TOSA front ends (TensorFlow Lite,
// torch-mlir, onnx-mlir) write it: a 3x3 convolution with its bias, ReLU6,
// a global average pool, a fully connected layer as tosa.matmul, and a
// softmax written out. crest-compile converts it to crest ops
// (crest-convert-tosa, docs/FrontEnds.md) and compiles it:
//   crest-compile examples/tosa-block.mlir --target=gfx942 -o block.crest
func.func @block(%x: tensor<1x4x4x2xf32>) -> tensor<1x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // OHWI: 2 output channels, 3x3, 2 input channels.
  %w = "tosa.const"() <{values = dense<[
      [[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], [[0.7, -0.8], [0.9, 0.1], [-0.2, 0.3]], [[0.4, 0.5], [-0.6, 0.7], [0.8, -0.9]]],
      [[[-0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, -0.1], [0.2, 0.3]], [[-0.4, 0.5], [0.6, 0.7], [-0.8, 0.9]]]]>
      : tensor<2x3x3x2xf32>}> : () -> tensor<2x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<[0.25, -0.125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
      : (tensor<1x4x4x2xf32>, tensor<2x3x3x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %r = tosa.clamp %c {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %p = tosa.avg_pool2d %r, %zp, %zp {acc_type = f32, kernel = array<i64: 4, 4>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  %s3 = tosa.const_shape {values = dense<[1, 1, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f = tosa.reshape %p, %s3 : (tensor<1x1x1x2xf32>, !tosa.shape<3>) -> tensor<1x1x2xf32>
  %fc = "tosa.const"() <{values = dense<[[[1.0, -1.0, 0.5], [0.25, 2.0, -0.75]]]> : tensor<1x2x3xf32>}> : () -> tensor<1x2x3xf32>
  %l = tosa.matmul %f, %fc, %zp, %zp : (tensor<1x1x2xf32>, tensor<1x2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3xf32>
  %s2 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %l2 = tosa.reshape %l, %s2 : (tensor<1x1x3xf32>, !tosa.shape<2>) -> tensor<1x3xf32>
  %m = tosa.reduce_max %l2 {axis = 1 : i32} : (tensor<1x3xf32>) -> tensor<1x1xf32>
  %d = tosa.sub %l2, %m : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
  %e = tosa.exp %d : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %sum = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x3xf32>) -> tensor<1x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %y = tosa.mul %e, %inv, %shift : (tensor<1x3xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}
