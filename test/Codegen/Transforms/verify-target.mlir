// crest-verify-target turns what would abort LLVM's AMDGPU backend into
// diagnostics: matrix ops the chip table does not list for the chip (each
// case below aborted llc with "Cannot select" when compiled unchecked; see
// test/Serialize/abort-cases.mlir), unknown chips, calls out of the module
// and kernel arguments that cannot be bare pointers.

// RUN: split-file %s %t
// RUN: crest-opt %t/gfx942.mlir --crest-verify-target=chip=gfx942 --verify-diagnostics --split-input-file
// RUN: crest-opt %t/gfx950.mlir --crest-verify-target=chip=gfx950 --verify-diagnostics --split-input-file
// RUN: crest-opt %t/gfx90a.mlir --crest-verify-target=chip=gfx90a --verify-diagnostics --split-input-file
// RUN: crest-opt %t/gfx1100.mlir --crest-verify-target=chip=gfx1100 --verify-diagnostics --split-input-file
// RUN: crest-opt %t/gfx1201.mlir --crest-verify-target=chip=gfx1201 --verify-diagnostics --split-input-file
// RUN: crest-opt %t/gfx1100-wave64.mlir --crest-verify-target="chip=gfx1100 wave-size=64" --verify-diagnostics
// RUN: crest-opt %t/calls.mlir --crest-verify-target=chip=gfx942 --verify-diagnostics --split-input-file
// RUN: not crest-opt %t/ok.mlir --crest-verify-target=chip=gfx9999 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not crest-opt %t/ok.mlir --crest-verify-target="chip=gfx942 wave-size=32" 2>&1 | FileCheck %s --check-prefix=WAVE
// RUN: crest-opt %t/ok.mlir --crest-verify-target=chip=gfx942 | FileCheck %s --check-prefix=OK

// UNKNOWN: error: unknown chip 'gfx9999'; known chips: gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201
// WAVE: error: gfx942 does not support wave32
// OK: amdgpu.mfma 32x32x8

//--- ok.mlir
func.func @ok(%a: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %d = amdgpu.mfma 32x32x8 %a * %a + %c blgp = none
      : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return %d : vector<16xf32>
}

//--- gfx942.mlir
// The old 2 x bf16 MFMA (CDNA1's v_mfma_f32_32x32x4bf16): gfx942 only has
// the 4 x bf16 forms.
func.func @bf16_old(%a: vector<2xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (32x32x4, bf16 -> f32, 2 A and 16 C elements per lane) is not a matrix instruction of gfx942 (CDNA3) in Crest's chip table}}
  // expected-note @+1 {{gfx942's bf16 x bf16 -> f32 MFMA instructions: v_mfma_f32_32x32x8_bf16 (32x32x8, 4 A and 16 C per lane), v_mfma_f32_16x16x16_bf16 (16x16x16, 4 A and 4 C per lane), v_mfma_f32_32x32x4_2b_bf16 (32x32x4, 2 blocks, 4 A and 32 C per lane)}}
  %d = amdgpu.mfma 32x32x4 %a * %a + %c blgp = none
      : vector<2xbf16>, vector<2xbf16>, vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// The same instruction as the ROCDL intrinsic (bf16 travels as i16).
func.func @bf16_old_rocdl(%a: vector<2xi16>, %c: vector<16xf32>, %z: i32) -> vector<16xf32> {
  // expected-error @+2 {{'rocdl.mfma.f32.32x32x4bf16' (32x32x4, bf16 -> f32, 2 A and 16 C elements per lane) is not a matrix instruction of gfx942}}
  // expected-note @+1 {{v_mfma_f32_32x32x8_bf16 (32x32x8, 4 A and 16 C per lane)}}
  %d = rocdl.mfma.f32.32x32x4bf16 %a, %a, %c, %z, %z, %z
      : (vector<2xi16>, vector<2xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// fp8 in the OCP encoding: gfx942 reads FNUZ.
func.func @fp8_ocp(%a: vector<8xf8E4M3FN>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (16x16x32, f8E4M3FN -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx942}}
  // expected-note @+1 {{gfx942 has no f8E4M3FN x f8E4M3FN -> f32 MFMA instruction; its MFMA instructions take f32 x f32 -> f32, xf32 x xf32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64, f8E4M3FNUZ x f8E4M3FNUZ -> f32}}
  %d = amdgpu.mfma 16x16x32 %a * %a + %c blgp = none
      : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// A shape that exists only on gfx950.
func.func @f16_double_rate(%a: vector<8xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (16x16x32, f16 -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx942}}
  // expected-note @+1 {{gfx942's f16 x f16 -> f32 MFMA instructions}}
  %d = amdgpu.mfma 16x16x32 %a * %a + %c blgp = none
      : vector<8xf16>, vector<8xf16>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// WMMA on a CDNA chip.
func.func @wmma(%a: vector<16xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  // expected-error @+2 {{'amdgpu.wmma' (16x16x16, f16 -> f32, 16 A and 8 C elements per lane in wave64) is not a matrix instruction of gfx942}}
  // expected-note @+1 {{gfx942 has no WMMA instructions (its matrix instructions are MFMAs)}}
  %d = amdgpu.wmma 16x16x16 %a * %a + %c
      : vector<16xf16>, vector<16xf16>, vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// Sparse and block-scaled forms are not in the chip table.
func.func @sparse(%a: vector<4xf16>, %b: vector<8xf16>, %c: vector<4xf32>, %i: vector<4xi8>) -> vector<4xf32> {
  // expected-error @+1 {{the chip table lists dense instructions only, not sparse (smfmac) forms}}
  %d = amdgpu.sparse_mfma 16x16x32 %a * %b + %c sparse(%i : vector<4xi8>)
      : vector<4xf16>, vector<8xf16>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// Supported instructions pass, in both dialects.
func.func @supported(%a: vector<4xf16>, %c: vector<16xf32>, %f8: i64,
                     %c4: vector<4xf32>, %x: vector<2xf32>, %z: i32) {
  %0 = amdgpu.mfma 32x32x8 %a * %a + %c blgp = none
      : vector<4xf16>, vector<4xf16>, vector<16xf32>
  %1 = rocdl.mfma.f32.32x32x8f16 %a, %a, %c, %z, %z, %z
      : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
  %2 = rocdl.mfma.f32.16x16x32.fp8.bf8 %f8, %f8, %c4, %z, %z, %z
      : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
  %3 = amdgpu.mfma 16x16x8 %x * %x + %c4 {reducePrecision} blgp = none
      : vector<2xf32>, vector<2xf32>, vector<4xf32>
  return
}

//--- gfx950.mlir
// xf32 was dropped in CDNA4.
func.func @xf32(%a: vector<2xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (16x16x8, xf32 -> f32, 2 A and 4 C elements per lane) is not a matrix instruction of gfx950 (CDNA4)}}
  // expected-note @+1 {{gfx950 has no xf32 x xf32 -> f32 MFMA instruction}}
  %d = amdgpu.mfma 16x16x8 %a * %a + %c {reducePrecision} blgp = none
      : vector<2xf32>, vector<2xf32>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @xf32_rocdl(%a: vector<2xf32>, %c: vector<4xf32>, %z: i32) -> vector<4xf32> {
  // expected-error @+2 {{'rocdl.mfma.f32.16x16x8.xf32' (16x16x8, xf32 -> f32, 2 A and 4 C elements per lane) is not a matrix instruction of gfx950}}
  // expected-note @+1 {{gfx950 has no xf32 x xf32 -> f32 MFMA instruction}}
  %d = rocdl.mfma.f32.16x16x8.xf32 %a, %a, %c, %z, %z, %z
      : (vector<2xf32>, vector<2xf32>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// gfx950 reads OCP fp8: FNUZ is an error, OCP and the "fp8" intrinsics pass.
func.func @fp8_fnuz(%a: vector<8xf8E4M3FNUZ>, %c: vector<4xf32>) -> vector<4xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (16x16x32, f8E4M3FNUZ -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx950}}
  // expected-note @+1 {{gfx950 has no f8E4M3FNUZ x f8E4M3FNUZ -> f32 MFMA instruction}}
  %d = amdgpu.mfma 16x16x32 %a * %a + %c blgp = none
      : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
  return %d : vector<4xf32>
}

// -----

func.func @supported(%o: vector<8xf8E4M3FN>, %c: vector<4xf32>, %f8: i64,
                     %h: vector<8xf16>, %z: i32) {
  %0 = amdgpu.mfma 16x16x32 %o * %o + %c blgp = none
      : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
  %1 = rocdl.mfma.f32.16x16x32.fp8.fp8 %f8, %f8, %c, %z, %z, %z
      : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
  %2 = amdgpu.mfma 16x16x32 %h * %h + %c blgp = none
      : vector<8xf16>, vector<8xf16>, vector<4xf32>
  return
}

//--- gfx90a.mlir
// gfx90a has no fp8 at all; its "fp8" intrinsics name nothing.
func.func @fp8(%f8: i64, %c: vector<4xf32>, %z: i32) -> vector<4xf32> {
  // expected-error @+2 {{'rocdl.mfma.f32.16x16x32.fp8.fp8' (16x16x32, fp8 -> f32, 8 A and 4 C elements per lane) is not a matrix instruction of gfx90a (CDNA2)}}
  // expected-note @+1 {{gfx90a has no fp8 x fp8 -> f32 MFMA instruction; its MFMA instructions take f32 x f32 -> f32, f16 x f16 -> f32, bf16 x bf16 -> f32, i8 x i8 -> i32, f64 x f64 -> f64}}
  %d = rocdl.mfma.f32.16x16x32.fp8.fp8 %f8, %f8, %c, %z, %z, %z
      : (i64, i64, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// Both bf16 generations exist on gfx90a.
func.func @bf16(%old: vector<2xi16>, %new: vector<4xi16>, %c: vector<16xf32>, %z: i32) {
  %0 = rocdl.mfma.f32.32x32x4bf16 %old, %old, %c, %z, %z, %z
      : (vector<2xi16>, vector<2xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
  %1 = rocdl.mfma.f32.32x32x8bf16.1k %new, %new, %c, %z, %z, %z
      : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
  return
}

//--- gfx1100.mlir
// The RDNA4 WMMA layout (8 halves per lane) on RDNA3.
func.func @wmma_gfx12_layout(%a: vector<8xf16>, %c: vector<8xf32>) -> vector<8xf32> {
  // expected-error @+2 {{'amdgpu.wmma' (16x16x16, f16 -> f32, 8 A and 8 C elements per lane in wave32) is not a matrix instruction of gfx1100 (RDNA3)}}
  // expected-note @+1 {{gfx1100's f16 x f16 -> f32 WMMA instructions: v_wmma_f32_16x16x16_f16 (16x16x16, 16 A and 8 C per lane)}}
  %d = amdgpu.wmma 16x16x16 %a * %a + %c
      : vector<8xf16>, vector<8xf16>, vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// MFMA on RDNA.
func.func @mfma(%a: vector<4xf16>, %c: vector<16xf32>) -> vector<16xf32> {
  // expected-error @+2 {{'amdgpu.mfma' (32x32x8, f16 -> f32, 4 A and 16 C elements per lane) is not a matrix instruction of gfx1100}}
  // expected-note @+1 {{gfx1100 has no MFMA instructions (its matrix instructions are WMMAs)}}
  %d = amdgpu.mfma 32x32x8 %a * %a + %c blgp = none
      : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return %d : vector<16xf32>
}

// -----

func.func @supported(%a: vector<16xf16>, %c: vector<8xf32>, %h: vector<16xf16>,
                     %i8: vector<4xi32>, %ci: vector<8xi32>) {
  %0 = amdgpu.wmma 16x16x16 %a * %a + %c
      : vector<16xf16>, vector<16xf16>, vector<8xf32>
  %1 = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c
      : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  // The f16 accumulator of RDNA3 uses half of each register: 16 elements.
  %2 = rocdl.wmma.f16.16x16x16.f16 %a, %a, %h {opsel = false}
      : (vector<16xf16>, vector<16xf16>, vector<16xf16>) -> vector<16xf16>
  %3 = rocdl.wmma.i32.16x16x16.iu8 %i8, %i8, %ci {signA = true, signB = true}
      : (vector<4xi32>, vector<4xi32>, vector<8xi32>) -> vector<8xi32>
  return
}

//--- gfx1201.mlir
// The RDNA3 WMMA layout (16 halves per lane) on RDNA4.
func.func @wmma_gfx11_layout(%a: vector<16xf16>, %c: vector<8xf32>, %z: i32) -> vector<8xf32> {
  // expected-error @+2 {{'rocdl.wmma.f32.16x16x16.f16' (16x16x16, f16 -> f32, 16 A and 8 C elements per lane in wave32) is not a matrix instruction of gfx1201 (RDNA4)}}
  // expected-note @+1 {{gfx1201's f16 x f16 -> f32 WMMA instructions: v_wmma_f32_16x16x16_f16 (16x16x16, 8 A and 8 C per lane)}}
  %d = rocdl.wmma.f32.16x16x16.f16 %a, %a, %c
      : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

func.func @supported(%a: vector<8xf16>, %c: vector<8xf32>, %f8: vector<2xi32>) {
  %0 = amdgpu.wmma 16x16x16 %a * %a + %c
      : vector<8xf16>, vector<8xf16>, vector<8xf32>
  %1 = rocdl.wmma.f32.16x16x16.fp8_bf8 %f8, %f8, %c
      : (vector<2xi32>, vector<2xi32>, vector<8xf32>) -> vector<8xf32>
  return
}

//--- gfx1100-wave64.mlir
// In wave64 the RDNA3 accumulator is half as long per lane.
func.func @wave64(%a: vector<16xf16>, %c4: vector<4xf32>, %c8: vector<8xf32>) {
  %0 = amdgpu.wmma 16x16x16 %a * %a + %c4
      : vector<16xf16>, vector<16xf16>, vector<4xf32>
  // expected-error @+2 {{'amdgpu.wmma' (16x16x16, f16 -> f32, 16 A and 8 C elements per lane in wave64) is not a matrix instruction of gfx1100}}
  // expected-note @+1 {{gfx1100's f16 x f16 -> f32 WMMA instructions: v_wmma_f32_16x16x16_f16 (16x16x16, 16 A and 4 C per lane)}}
  %1 = amdgpu.wmma 16x16x16 %a * %a + %c8
      : vector<16xf16>, vector<16xf16>, vector<8xf32>
  return
}

//--- calls.mlir
// Calls to functions the module only declares.
gpu.module @m {
  llvm.func @__ocml_tanh_f64(f64) -> f64
  llvm.func @helper(f32) -> f32
  llvm.func @defined(%x: f32) -> f32 {
    llvm.return %x : f32
  }
  llvm.func @k(%x: f64, %y: f32) attributes {rocdl.kernel} {
    // expected-error @+1 {{call to '__ocml_tanh_f64', a ROCm device-library function: Crest links no device library into its code objects}}
    %0 = llvm.call @__ocml_tanh_f64(%x) : (f64) -> f64
    // expected-error @+1 {{call to 'helper', which the module declares but does not define}}
    %1 = llvm.call @helper(%y) : (f32) -> f32
    %2 = llvm.call @defined(%y) : (f32) -> f32
    llvm.return
  }
}

// -----

// gpu.block_dim without a known block size becomes a device-library query.
gpu.module @m {
  llvm.func @k() attributes {rocdl.kernel} {
    // expected-error @+1 {{the workgroup size is not known at compile time, and reading it needs the ROCm device library (__ockl_get_local_size), which Crest does not link; give the kernel a `known_block_size`}}
    %0 = rocdl.workgroup.dim.x : i32
    // expected-error @+1 {{the grid size is not known at compile time}}
    %1 = rocdl.grid.dim.y : i32
    llvm.return
  }
}

// -----

// Kernel memrefs must lower to one bare pointer each.
gpu.module @m {
  // expected-error @+1 {{kernel argument #1 of type 'memref<?xf32, strided<[?]>>' cannot be passed as a bare pointer: Crest's kernels take one pointer per memref, so its strides and offset must be static}}
  gpu.func @k(%a: memref<16xf32>, %b: memref<?xf32, strided<[?]>>) kernel {
    gpu.return
  }
}

// -----

// Host code may call out of the module; only device code is checked.
func.func private @host_runtime(i32)
func.func @host(%x: i32) {
  call @host_runtime(%x) : (i32) -> ()
  return
}
