// The whole example graph through crest-compile's codegen: fused into two
// matmul kernels (bias + ReLU + cast, bias) and a softmax, each host op
// annotated with a crest.launch naming its kernel, and every kernel lowered.
// RUN: crest-compile %S/../../../examples/mlp.mlir --target=gfx942 --emit=mlir | FileCheck %s

// CHECK: func.func @mlp
// CHECK: %[[H:.*]] = crest.kernel ins(%arg0, %arg1, %arg2 : {{.*}}) -> tensor<8x128xf16> attributes {crest.launch = #crest.launch<kernel = @crest_kernels::@mlp_0, grid = [4, 1, 1], block = [256, 1, 1]>}
// CHECK:   crest.matmul
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.relu
// CHECK-NEXT: crest.cast
// CHECK-NEXT: crest.yield
// CHECK: %[[L:.*]] = crest.kernel ins(%[[H]], %arg3, %arg4 : {{.*}}) -> tensor<8x10xf32> attributes {crest.launch = #crest.launch<kernel = @crest_kernels::@mlp_1, {{.*}}>}
// CHECK:   crest.matmul
// CHECK-NEXT: crest.add
// CHECK-NEXT: crest.yield
// CHECK: %[[Y:.*]] = crest.softmax %[[L]] {crest.launch = #crest.launch<kernel = @crest_kernels::@mlp_softmax_0, grid = [2, 1, 1], block = [256, 1, 1]>}
// CHECK-NEXT: return %[[Y]]
// CHECK: gpu.module @crest_kernels
// CHECK-DAG: llvm.func @mlp_0(
// CHECK-DAG: llvm.func @mlp_1(
// CHECK-DAG: llvm.func @mlp_softmax_0(
