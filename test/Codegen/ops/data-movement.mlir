// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu | FileCheck %s
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu=tiled-transpose=false | FileCheck %s --check-prefix=UNTILED
// RUN: crest-opt %s --crest-attach-target=chip=gfx942 --crest-lower-ops-to-gpu | crest-opt --pass-pipeline='builtin.module(gpu.module(crest-insert-barriers))' | FileCheck %s --check-prefix=BARRIER

// tiny_encoder's head split keeps rows of 64 contiguous: 1x128x4x64 ->
// (128, 4, 64) with input strides (256, 64, 1) after merging; 4-element
// vector loads and stores, 8192 work-items.
// CHECK-LABEL: func.func @heads
// CHECK: crest.transpose {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@heads_transpose_0, grid = [32, 1, 1], block = [256, 1, 1]>
func.func @heads(%x: tensor<1x128x4x64xf32>) -> tensor<1x4x128x64xf32> {
  %t = crest.transpose %x permutation [0, 2, 1, 3] : tensor<1x128x4x64xf32> -> tensor<1x4x128x64xf32>
  return %t : tensor<1x4x128x64xf32>
}

// Moving the innermost dimension: [0, 2, 3, 1] is a 256x128 <- 128x256
// transpose through one 32x33 LDS tile per workgroup (8x4 tiles), and
// crest-insert-barriers places one barrier between its writes and reads.
// CHECK-LABEL: func.func @keys
// CHECK: crest.transpose {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@keys_transpose_1, grid = [32, 1, 1], block = [256, 1, 1]>
func.func @keys(%x: tensor<1x128x4x64xf32>) -> tensor<1x4x64x128xf32> {
  %t = crest.transpose %x permutation [0, 2, 3, 1] : tensor<1x128x4x64xf32> -> tensor<1x4x64x128xf32>
  return %t : tensor<1x4x64x128xf32>
}

// An odd-sized rank-3 transpose: 2 x 7 x 1 tiles of 32x32 for 3 batches.
// CHECK-LABEL: func.func @odd
// CHECK: crest.transpose {{.*}}grid = [42, 1, 1]
func.func @odd(%x: tensor<3x197x33xf16>) -> tensor<3x33x197xf16> {
  %t = crest.transpose %x permutation [0, 2, 1] : tensor<3x197x33xf16> -> tensor<3x33x197xf16>
  return %t : tensor<3x33x197xf16>
}

// Three inputs along the middle axis, one of them empty (never read: it is
// passed as memref<0xf32>): rows of 9 = 3 + 0 + 6 columns, picked by
// nested scf.if on the column.
// CHECK-LABEL: func.func @concat
// CHECK: crest.concat {{.*}}crest.launch = #crest.launch<kernel = @crest_kernels::@concat_concat_3, grid = [1, 1, 1], block = [64, 1, 1]>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x6xf32>) -> tensor<2x9xf32> {
  %r = crest.concat %a, %b, %c axis = -1 : tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x6xf32> -> tensor<2x9xf32>
  return %r : tensor<2x9xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: crest.slice {{.*}}@slice_slice_4, grid = [1, 1, 1]
func.func @slice(%x: tensor<9x11xf32>) -> tensor<4x3xf32> {
  %r = crest.slice %x offsets [1, 2] strides [2, 3] : tensor<9x11xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// tiny_encoder's embedding: rows of 256 halves, 4 per work-item.
// CHECK-LABEL: func.func @embed
// CHECK: crest.gather {{.*}}@embed_gather_5, grid = [32, 1, 1]
func.func @embed(%table: tensor<1000x256xf16>, %ids: tensor<1x128xi32>) -> tensor<1x128x256xf16> {
  %e = crest.gather %table, %ids : tensor<1000x256xf16>, tensor<1x128xi32> -> tensor<1x128x256xf16>
  return %e : tensor<1x128x256xf16>
}

// Reshapes: of an intermediate and not returned -> no kernel (the planner
// aliases it); returned, of an intermediate -> no kernel (the result's
// buffer holds the bytes); returned, of an input or of another returned
// value's bytes -> a copy kernel.
// CHECK-LABEL: func.func @reshapes
// CHECK: %[[R:.*]] = crest.relu %arg0 {crest.launch
// CHECK-NEXT: %[[A:.*]] = crest.reshape %[[R]] : tensor<4x6xf32> to tensor<24xf32>
// CHECK-NEXT: %[[B:.*]] = crest.reshape %[[A]] : tensor<24xf32> to tensor<2x12xf32>
// CHECK-NEXT: %[[C:.*]] = crest.reshape %[[A]] {crest.launch = #crest.launch<kernel = @crest_kernels::@reshapes_reshape_7, {{.*}}>} : tensor<24xf32> to tensor<6x4xf32>
// CHECK-NEXT: %[[D:.*]] = crest.reshape %arg0 {crest.launch = #crest.launch<kernel = @crest_kernels::@reshapes_reshape_8, {{.*}}>} : tensor<4x6xf32> to tensor<24xf32>
// CHECK-NEXT: %[[E:.*]] = crest.relu %[[A]] {crest.launch
// CHECK-NEXT: return %[[B]], %[[C]], %[[D]], %[[E]]
func.func @reshapes(%x: tensor<4x6xf32>) -> (tensor<2x12xf32>, tensor<6x4xf32>, tensor<24xf32>, tensor<24xf32>) {
  %r = crest.relu %x : tensor<4x6xf32>
  %a = crest.reshape %r : tensor<4x6xf32> to tensor<24xf32>
  %b = crest.reshape %a : tensor<24xf32> to tensor<2x12xf32>
  %c = crest.reshape %a : tensor<24xf32> to tensor<6x4xf32>
  %d = crest.reshape %x : tensor<4x6xf32> to tensor<24xf32>
  %e = crest.relu %a : tensor<24xf32>
  return %b, %c, %d, %e : tensor<2x12xf32>, tensor<6x4xf32>, tensor<24xf32>, tensor<24xf32>
}

// Slices that are one contiguous run of their input's elements, starting
// 16-byte aligned (crest/Semantics/View.h), get no kernel: the planner
// aliases a window of the input's bytes. Rows 2-4 of a 6x8 f32 start at
// byte 64, row 1 at byte 32, row 3 of the input at byte 96. Kernels: a run
// at byte 4, columns 2-5 of every row (not one run), every other row, a
// constant's rows, a returned window, and a returned reshape of a window.
// A window of a reshape of a kernel's result needs none either.
// CHECK-LABEL: func.func @windows
// CHECK: %[[R:.*]] = crest.relu %arg0 {crest.launch
// CHECK-NEXT: %[[A:.*]] = crest.slice %[[R]] offsets [2, 0] : tensor<6x8xf32> -> tensor<3x8xf32>
// CHECK-NEXT: %[[B:.*]] = crest.slice %[[R]] offsets [1, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[I:.*]] = crest.slice %arg0 offsets [3, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: crest.slice %[[R]] offsets [0, 1] {crest.launch
// CHECK-NEXT: crest.slice %[[R]] offsets [0, 2] {crest.launch
// CHECK-NEXT: crest.slice %[[R]] offsets [1, 0] strides [2, 1] {crest.launch
// CHECK-NEXT: crest.slice %cst offsets [2, 0] {crest.launch
// CHECK-NEXT: crest.slice %[[R]] offsets [4, 0] {crest.launch
// CHECK-NEXT: crest.slice %[[R]] offsets [5, 0] :
// CHECK-NEXT: crest.reshape {{.*}} {crest.launch
// CHECK-NEXT: crest.add %[[A]], %[[A]] {crest.launch
// CHECK-NEXT: crest.add %[[B]], %[[I]] {crest.launch
// CHECK-NEXT: %[[FR:.*]] = crest.reshape %{{.*}} : tensor<2x8xf32> to tensor<16xf32>
// CHECK-NEXT: crest.slice %[[FR]] offsets [0] : tensor<16xf32> -> tensor<8xf32>
func.func @windows(%x: tensor<6x8xf32>)
    -> (tensor<1x4xf32>, tensor<6x4xf32>, tensor<3x8xf32>, tensor<3x8xf32>,
        tensor<1x8xf32>, tensor<8xf32>, tensor<1x8xf32>) {
  %cst = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                               [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
                               [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.0],
                               [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.0, 2.0]]> : tensor<4x8xf32>
  %r = crest.relu %x : tensor<6x8xf32>
  %a = crest.slice %r offsets [2, 0] : tensor<6x8xf32> -> tensor<3x8xf32>
  %b = crest.slice %r offsets [1, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
  %i = crest.slice %x offsets [3, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
  %c = crest.slice %r offsets [0, 1] : tensor<6x8xf32> -> tensor<1x4xf32>
  %d = crest.slice %r offsets [0, 2] : tensor<6x8xf32> -> tensor<6x4xf32>
  %e = crest.slice %r offsets [1, 0] strides [2, 1] : tensor<6x8xf32> -> tensor<3x8xf32>
  %f = crest.slice %cst offsets [2, 0] : tensor<4x8xf32> -> tensor<2x8xf32>
  %g = crest.slice %r offsets [4, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
  %h = crest.slice %r offsets [5, 0] : tensor<6x8xf32> -> tensor<1x8xf32>
  %hr = crest.reshape %h : tensor<1x8xf32> to tensor<8xf32>
  %s = crest.add %a, %a : tensor<3x8xf32>, tensor<3x8xf32> -> tensor<3x8xf32>
  %t = crest.add %b, %i : tensor<1x8xf32>, tensor<1x8xf32> -> tensor<1x8xf32>
  %fr = crest.reshape %f : tensor<2x8xf32> to tensor<16xf32>
  %fs = crest.slice %fr offsets [0] : tensor<16xf32> -> tensor<8xf32>
  return %c, %d, %e, %s, %g, %hr, %t : tensor<1x4xf32>, tensor<6x4xf32>, tensor<3x8xf32>, tensor<3x8xf32>, tensor<1x8xf32>, tensor<8xf32>, tensor<1x8xf32>
}

// CHECK-LABEL: gpu.module @crest_kernels

// CHECK-LABEL: gpu.func @heads_transpose_0(
// CHECK-SAME: %[[IN:.*]]: memref<1x128x4x64xf32, #gpu.address_space<global>>, %[[OUT:.*]]: memref<1x4x128x64xf32, #gpu.address_space<global>>)
// CHECK-NOT: workgroup(
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<32768xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<32768xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @keys_transpose_1(
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<1x32x33xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: memref.store {{.*}}, %[[LDS]][
// CHECK-COUNT-4: memref.load %[[LDS]][
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @odd_transpose_2(
// CHECK-SAME: workgroup({{.*}} : memref<1x32x33xf16, #gpu.address_space<workgroup>>)

// CHECK-LABEL: gpu.func @concat_concat_3(
// CHECK-SAME: memref<2x3xf32, #gpu.address_space<global>>, %{{.*}}: memref<0xf32, #gpu.address_space<global>>, %{{.*}}: memref<2x6xf32, #gpu.address_space<global>>, %{{.*}}: memref<2x9xf32, #gpu.address_space<global>>)
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c9
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[COL]], %c3
// CHECK: scf.if %[[FIRST]] -> (f32)
// CHECK: else
// CHECK-NOT: scf.if
// CHECK: arith.subi %[[COL]], %c3

// CHECK-LABEL: gpu.func @slice_slice_4(
// The window starts at 1 * 11 + 2 = 13; steps of 2 rows (22) and 3.
// CHECK: %[[C13:.*]] = arith.constant 13 : index
// CHECK: arith.muli %{{.*}}, %c22
// CHECK: arith.muli %{{.*}}, %c3

// CHECK-LABEL: gpu.func @embed_gather_5(
// CHECK: %[[ID:.*]] = memref.load {{.*}} : memref<128xi32, #gpu.address_space<global>>
// CHECK: %[[ID64:.*]] = arith.extsi %[[ID]] : i32 to i64
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[ID64]], %c0_i64
// CHECK: %[[WRAP:.*]] = arith.addi %[[ID64]], %c1000_i64
// CHECK: %[[IDX:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[ID64]]
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[IDX]], %c1000_i64
// CHECK: scf.if %[[OK]] -> (vector<4xf16>)
// CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<256000xf16, #gpu.address_space<global>>, vector<4xf16>
// CHECK: else
// CHECK: arith.constant dense<0.000000e+00> : vector<4xf16>

// CHECK-LABEL: gpu.func @reshapes_reshape_7(
// CHECK-LABEL: gpu.func @reshapes_reshape_8(

// Without tiling, the key transpose reads with stride 256, four scalar
// loads per 4-element vector store.
// UNTILED-LABEL: gpu.func @keys_transpose_1(
// UNTILED-NOT: workgroup(
// UNTILED: arith.constant 256 : index
// UNTILED-COUNT-4: memref.load
// UNTILED: vector.from_elements
// UNTILED: vector.store

// BARRIER-LABEL: gpu.func @heads_transpose_0(
// BARRIER-NOT: amdgpu.lds_barrier
// BARRIER-LABEL: gpu.func @keys_transpose_1(
// BARRIER-COUNT-4: memref.store
// BARRIER-NOT: memref.load %{{.*}} : memref<1x32x33xf32
// BARRIER: amdgpu.lds_barrier
// BARRIER-NOT: amdgpu.lds_barrier
// BARRIER: gpu.return
