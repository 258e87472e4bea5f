// Every crest operation parses, verifies and prints back in its custom form,
// and survives the generic form.
// RUN: crest-opt %s | crest-opt | FileCheck %s
// RUN: crest-opt %s --mlir-print-op-generic | crest-opt | FileCheck %s

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<64x576xf16>, %b: tensor<576x1000xf16>,
                        %bt: tensor<1000x576xf16>, %at: tensor<576x64xf16>,
                        %q: tensor<4x128x64xbf16>, %k: tensor<4x128x64xbf16>,
                        %k1: tensor<1x64x128xbf16>,
                        %x: tensor<1x3x224x224xf32>, %w: tensor<16x3x3x3xf32>,
                        %dx: tensor<1x16x56x56xf32>, %dw: tensor<16x1x3x3xf32>,
                        %i8a: tensor<7x64xi8>, %i8b: tensor<64x9xi8>,
                        %f32a: tensor<8x32xf32>, %f32b: tensor<32x16xf32>) {
  // CHECK: crest.matmul %{{.*}}, %{{.*}} precision <lhs = f16, rhs = f16, acc = f32, out = f32> : tensor<64x576xf16>, tensor<576x1000xf16> -> tensor<64x1000xf32>
  %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<64x576xf16>, tensor<576x1000xf16> -> tensor<64x1000xf32>
  // CHECK: crest.matmul %{{.*}}, %{{.*}} transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f16> sync <scope = workgroup, stages = 2> : tensor<64x576xf16>, tensor<1000x576xf16> -> tensor<64x1000xf16>
  %1 = crest.matmul %a, %bt transpose_rhs
         precision <lhs = f16, rhs = f16, acc = f32, out = f16>
         sync <scope = workgroup, stages = 2>
         : tensor<64x576xf16>, tensor<1000x576xf16> -> tensor<64x1000xf16>
  // CHECK: crest.matmul %{{.*}}, %{{.*}} transpose_lhs precision {{.*}} sync <scope = wavefront> : tensor<576x64xf16>, tensor<576x1000xf16> -> tensor<64x1000xf32>
  %2 = crest.matmul %at, %b transpose_lhs
         precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = wavefront, stages = 1>
         : tensor<576x64xf16>, tensor<576x1000xf16> -> tensor<64x1000xf32>
  // CHECK: crest.matmul {{.*}} precision <lhs = i8, rhs = i8, acc = i32, out = i32> : tensor<7x64xi8>, tensor<64x9xi8> -> tensor<7x9xi32>
  %3 = crest.matmul %i8a, %i8b precision <lhs = i8, rhs = i8, acc = i32, out = i32>
         : tensor<7x64xi8>, tensor<64x9xi8> -> tensor<7x9xi32>
  // tf32 reads f32 tensors (the xf32 instructions).
  // CHECK: crest.matmul {{.*}} precision <lhs = tf32, rhs = tf32, acc = f32, out = f32> : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %4 = crest.matmul %f32a, %f32b precision <lhs = tf32, rhs = tf32, acc = f32, out = f32>
         : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  // CHECK: crest.batch_matmul %{{.*}}, %{{.*}} transpose_rhs precision <lhs = bf16, rhs = bf16, acc = f32, out = f32> : tensor<4x128x64xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x128xf32>
  %5 = crest.batch_matmul %q, %k transpose_rhs
         precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         : tensor<4x128x64xbf16>, tensor<4x128x64xbf16> -> tensor<4x128x128xf32>
  // A batch of one broadcasts.
  // CHECK: crest.batch_matmul {{.*}} : tensor<4x128x64xbf16>, tensor<1x64x128xbf16> -> tensor<4x128x128xbf16>
  %6 = crest.batch_matmul %q, %k1
         precision <lhs = bf16, rhs = bf16, acc = f32, out = bf16>
         : tensor<4x128x64xbf16>, tensor<1x64x128xbf16> -> tensor<4x128x128xbf16>
  // (224 + 1 + 1 - 3) / 2 + 1 = 112
  // CHECK: crest.conv2d %{{.*}}, %{{.*}} strides [2, 2] pads [1, 1, 1, 1] precision <lhs = f32, rhs = f32, acc = f32, out = f32> : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x112x112xf32>
  %7 = crest.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1]
         precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x3x224x224xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x112x112xf32>
  // Depthwise, dilated: (56 + 2 + 2 - 2*2 - 1) / 1 + 1 = 56. Defaults are elided.
  // CHECK: crest.conv2d %{{.*}}, %{{.*}} pads [2, 2, 2, 2] dilations [2, 2] groups 16 precision {{.*}} : tensor<1x16x56x56xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x56x56xf32>
  %8 = crest.conv2d %dx, %dw strides [1, 1] pads [2, 2, 2, 2] dilations [2, 2] groups 16
         precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<1x16x56x56xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x56x56xf32>
  return
}

// CHECK-LABEL: func.func @fp8_flavours
func.func @fp8_flavours(%a: tensor<16x32xf8E4M3FNUZ>, %b: tensor<32x16xf8E5M2FNUZ>,
                        %c: tensor<16x32xf8E4M3FN>, %d: tensor<32x16xf8E5M2>) {
  // CHECK: precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = bf16>
  %0 = crest.matmul %a, %b precision <lhs = f8E4M3FNUZ, rhs = f8E5M2FNUZ, acc = f32, out = bf16>
         : tensor<16x32xf8E4M3FNUZ>, tensor<32x16xf8E5M2FNUZ> -> tensor<16x16xbf16>
  // CHECK: precision <lhs = f8E4M3FN, rhs = f8E5M2, acc = f32, out = f8E4M3FN>
  %1 = crest.matmul %c, %d precision <lhs = f8E4M3FN, rhs = f8E5M2, acc = f32, out = f8E4M3FN>
         : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2> -> tensor<16x16xf8E4M3FN>
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<8x128xf32>, %bias: tensor<128xf32>,
                       %col: tensor<8x1xf32>, %i: tensor<8x128xi32>) {
  // CHECK: crest.relu %{{.*}} : tensor<8x128xf32>
  %0 = crest.relu %x : tensor<8x128xf32>
  // CHECK: crest.sigmoid
  %1 = crest.sigmoid %x : tensor<8x128xf32>
  // CHECK: crest.tanh
  %2 = crest.tanh %x : tensor<8x128xf32>
  // CHECK: crest.erf
  %3 = crest.erf %x : tensor<8x128xf32>
  // CHECK: crest.exp
  %4 = crest.exp %x : tensor<8x128xf32>
  // CHECK: crest.sqrt
  %5 = crest.sqrt %x : tensor<8x128xf32>
  // CHECK: crest.neg
  %6 = crest.neg %x : tensor<8x128xf32>
  // CHECK: crest.abs
  %7 = crest.abs %x : tensor<8x128xf32>
  // CHECK: crest.hardswish
  %8 = crest.hardswish %x : tensor<8x128xf32>
  // CHECK: crest.gelu %{{.*}} : tensor<8x128xf32>
  %9 = crest.gelu %x : tensor<8x128xf32>
  // CHECK: crest.gelu %{{.*}} approximate = tanh : tensor<8x128xf32>
  %10 = crest.gelu %x approximate = tanh : tensor<8x128xf32>
  // Default alpha/beta are elided; MobileNetV3's 1/6 is kept.
  // CHECK: crest.hardsigmoid %{{.*}} : tensor<8x128xf32>
  %11 = crest.hardsigmoid %x : tensor<8x128xf32>
  // CHECK: crest.hardsigmoid %{{.*}} {alpha = 0.166666672 : f32} : tensor<8x128xf32>
  %12 = crest.hardsigmoid %x {alpha = 0.166666672 : f32, beta = 0.5 : f32} : tensor<8x128xf32>
  // CHECK: crest.clip %{{.*}} min 0.000000e+00 max 6.000000e+00 : tensor<8x128xf32>
  %13 = crest.clip %x min 0.0 max 6.0 : tensor<8x128xf32>
  // CHECK: crest.clip %{{.*}} max 1.000000e+00 : tensor<8x128xf32>
  %14 = crest.clip %x max 1.0 : tensor<8x128xf32>
  // CHECK: crest.add %{{.*}}, %{{.*}} : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
  %15 = crest.add %x, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
  // CHECK: crest.sub %{{.*}}, %{{.*}} : tensor<8x1xf32>, tensor<128xf32> -> tensor<8x128xf32>
  %16 = crest.sub %col, %bias : tensor<8x1xf32>, tensor<128xf32> -> tensor<8x128xf32>
  // CHECK: crest.mul
  %17 = crest.mul %x, %x : tensor<8x128xf32>, tensor<8x128xf32> -> tensor<8x128xf32>
  // CHECK: crest.div
  %18 = crest.div %x, %col : tensor<8x128xf32>, tensor<8x1xf32> -> tensor<8x128xf32>
  // CHECK: crest.max
  %19 = crest.max %x, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
  // CHECK: crest.min
  %20 = crest.min %x, %bias : tensor<8x128xf32>, tensor<128xf32> -> tensor<8x128xf32>
  // CHECK: crest.pow
  %21 = crest.pow %x, %col : tensor<8x128xf32>, tensor<8x1xf32> -> tensor<8x128xf32>
  // Integer tensors for the integer-capable binary ops.
  // CHECK: crest.add %{{.*}}, %{{.*}} : tensor<8x128xi32>, tensor<8x128xi32> -> tensor<8x128xi32>
  %22 = crest.add %i, %i : tensor<8x128xi32>, tensor<8x128xi32> -> tensor<8x128xi32>
  // CHECK: crest.cast %{{.*}} : tensor<8x128xf32> to tensor<8x128xf16>
  %23 = crest.cast %x : tensor<8x128xf32> to tensor<8x128xf16>
  // CHECK: crest.cast %{{.*}} : tensor<8x128xi32> to tensor<8x128xf32>
  %24 = crest.cast %i : tensor<8x128xi32> to tensor<8x128xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x128x128xf32>, %h: tensor<128x256xf32>,
                      %g: tensor<256xf32>, %b: tensor<256xf32>,
                      %img: tensor<1x16x112x112xf32>, %feat: tensor<1x576x7x7xf32>) {
  // CHECK: crest.softmax %{{.*}} : tensor<4x128x128xf32>
  %0 = crest.softmax %x : tensor<4x128x128xf32>
  // CHECK: crest.softmax %{{.*}} {axis = 1 : i64} : tensor<4x128x128xf32>
  %1 = crest.softmax %x {axis = 1 : i64} : tensor<4x128x128xf32>
  // CHECK: crest.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x256xf32>, tensor<256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  %2 = crest.layer_norm %h, %g, %b : tensor<128x256xf32>, tensor<256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  // CHECK: crest.layer_norm %{{.*}}, %{{.*}} {epsilon = 9.99999997E-7 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  %3 = crest.layer_norm %h, %g {epsilon = 1.0e-6 : f32} : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
  // (112 + 1 + 1 - 3) / 2 + 1 = 56
  // CHECK: crest.max_pool2d %{{.*}} kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x16x112x112xf32> -> tensor<1x16x56x56xf32>
  %4 = crest.max_pool2d %img kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1]
         : tensor<1x16x112x112xf32> -> tensor<1x16x56x56xf32>
  // ceil((112 - 3) / 2) + 1 = 56 with ceil_mode, 55 without.
  // CHECK: crest.max_pool2d %{{.*}} kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x16x112x112xf32> -> tensor<1x16x56x56xf32>
  %5 = crest.max_pool2d %img kernel [3, 3] strides [2, 2] ceil_mode
         : tensor<1x16x112x112xf32> -> tensor<1x16x56x56xf32>
  // CHECK: crest.avg_pool2d %{{.*}} kernel [3, 3] strides [2, 2] : tensor<1x16x112x112xf32> -> tensor<1x16x55x55xf32>
  %6 = crest.avg_pool2d %img kernel [3, 3] strides [2, 2]
         : tensor<1x16x112x112xf32> -> tensor<1x16x55x55xf32>
  // CHECK: crest.avg_pool2d %{{.*}} kernel [2, 2] pads [1, 1, 0, 0] count_include_pad : tensor<1x16x112x112xf32> -> tensor<1x16x112x112xf32>
  %7 = crest.avg_pool2d %img kernel [2, 2] pads [1, 1, 0, 0] count_include_pad
         : tensor<1x16x112x112xf32> -> tensor<1x16x112x112xf32>
  // CHECK: crest.global_avg_pool2d %{{.*}} : tensor<1x576x7x7xf32> -> tensor<1x576x1x1xf32>
  %8 = crest.global_avg_pool2d %feat : tensor<1x576x7x7xf32> -> tensor<1x576x1x1xf32>
  // CHECK: crest.reduce_mean %{{.*}} dims [1] keep_dims : tensor<128x256xf32> -> tensor<128x1xf32>
  %9 = crest.reduce_mean %h dims [1] keep_dims : tensor<128x256xf32> -> tensor<128x1xf32>
  // CHECK: crest.reduce_mean %{{.*}} dims [-1, 0] : tensor<4x128x128xf32> -> tensor<128xf32>
  %10 = crest.reduce_mean %x dims [-1, 0] : tensor<4x128x128xf32> -> tensor<128xf32>
  // CHECK: crest.reduce_sum %{{.*}} dims [0, 1] : tensor<4x128x128xf32> -> tensor<128xf32>
  %11 = crest.reduce_sum %x dims [0, 1] : tensor<4x128x128xf32> -> tensor<128xf32>
  // CHECK: crest.reduce_prod %{{.*}} dims [1] : tensor<128x256xf32> -> tensor<128xf32>
  %12 = crest.reduce_prod %h dims [1] : tensor<128x256xf32> -> tensor<128xf32>
  // CHECK: crest.reduce_max %{{.*}} dims [2] keep_dims : tensor<4x128x128xf32> -> tensor<4x128x1xf32>
  %13 = crest.reduce_max %x dims [2] keep_dims : tensor<4x128x128xf32> -> tensor<4x128x1xf32>
  // CHECK: crest.reduce_min %{{.*}} dims [0] : tensor<128x256xf32> -> tensor<256xf32>
  %14 = crest.reduce_min %h dims [0] : tensor<128x256xf32> -> tensor<256xf32>
  return
}

// Unsigned integer tensors (ONNX's UINT8 to UINT64) in elementwise ops,
// casts and data movement.
// CHECK-LABEL: func.func @unsigned
func.func @unsigned(%x: tensor<4x8xui8>, %y: tensor<8xui8>, %w: tensor<4xui64>) {
  // CHECK: crest.max %{{.*}}, %{{.*}} : tensor<4x8xui8>, tensor<8xui8> -> tensor<4x8xui8>
  %0 = crest.max %x, %y : tensor<4x8xui8>, tensor<8xui8> -> tensor<4x8xui8>
  // CHECK: crest.cast %{{.*}} : tensor<4x8xui8> to tensor<4x8xf32>
  %1 = crest.cast %0 : tensor<4x8xui8> to tensor<4x8xf32>
  // CHECK: crest.transpose %{{.*}} permutation [1, 0] : tensor<4x8xui8> -> tensor<8x4xui8>
  %2 = crest.transpose %x permutation [1, 0] : tensor<4x8xui8> -> tensor<8x4xui8>
  // CHECK: crest.add %{{.*}}, %{{.*}} : tensor<4xui64>, tensor<4xui64> -> tensor<4xui64>
  %3 = crest.add %w, %w : tensor<4xui64>, tensor<4xui64> -> tensor<4xui64>
  return
}

// Comparisons give i1 tensors; logic on i1; select picks by a condition.
// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %c: tensor<4x1xi1>) {
  // CHECK: crest.less %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %0 = crest.less %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  // CHECK: crest.greater_equal %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %1 = crest.greater_equal %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  // CHECK: crest.and %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x1xi1> -> tensor<4x8xi1>
  %2 = crest.and %0, %c : tensor<4x8xi1>, tensor<4x1xi1> -> tensor<4x8xi1>
  // CHECK: crest.not %{{.*}} : tensor<4x8xi1>
  %3 = crest.not %2 : tensor<4x8xi1>
  // CHECK: crest.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %4 = crest.select %c, %x, %y : tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return
}
