//===- ChipTable.cpp - Facts about AMD GPUs Crest targets -------*- C++ -*-===//
//
// The chip table as data: one array of matrix instructions per chip and one
// array of chips. Nothing here tests a chip name; adding a chip means adding
// rows.
//
// Where the facts come from (the shared notes are
// shared/notes/amd-matrix-cores.md, "[notes]" below):
//
// - Instruction shapes, operand types and cycles for gfx908, gfx90a, gfx942,
//   gfx1100 and gfx1201: AMD's matrix instruction calculator, as exported to
//   shared/mfma-layouts/{cdna1,cdna2,cdna3,rdna3,rdna4}.json. Every dense
//   instruction is listed except the int4 ("iu4") WMMA forms, which no
//   ScalarKind expresses. ChipTableTest checks the table against those files
//   in both directions.
// - gfx950 (no calculator data): LLVM's `SIDPGFX950FullSpeedModel` in
//   llvm/lib/Target/AMDGPU/SISchedule.td gives the pass counts (cycles =
//   4 * passes), and llvm-mca-22 -mcpu=gfx950 reports the same reciprocal
//   throughputs for every instruction listed. The instruction set is
//   CDNA3's minus xf32 (llvm-mc-22 rejects `v_mfma_f32_16x16x8_xf32` on
//   gfx950 with "instruction not supported on this GPU"), plus the dense
//   non-scaled additions. Its fp8/bf8 MFMAs read the OCP encodings [notes 2].
// - BLGP (MfmaBlgp): the calculator's "blgp" property for gfx908, gfx90a and
//   gfx942 (a lane pattern everywhere except the f64 forms on gfx90a and the
//   single-block double-rate f16/bf16/i8/xf32/fp8 forms on gfx942); CDNA3's
//   f64 forms read it as negate bits (LLVM prints `neg:[a,b,c]`; ISA guide
//   section 7.1.6.4). gfx950 (no calculator data) is assumed to follow
//   CDNA3, its new double-rate forms included. MfmaLayoutTest checks the
//   gfx908/gfx90a/gfx942 rows against the calculator data.
// - Instructions whose upstream lowering aborts LLVM 22 on a chip are not
//   listed for that chip (shared/notes/mlir22-environment.md, "MMA variants
//   vs chip"): the old 2 x bf16 forms are absent on gfx942/gfx950, the xf32
//   forms on gfx950, and each RDNA chip lists only its own WMMA layout.
// - Registers, waves and SGPRs: llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp
//   (`getMaxWavesPerEU`, `getTotalNumVGPRs`, `getVGPRAllocGranule`,
//   `getAddressableNumArchVGPRs`, `getAddressableNumSGPRs`), checked against
//   llc-22's "; Occupancy:" and register-limit diagnostics.
// - Packed work-item IDs: LLVM's FeaturePackedTID (GCNProcessors.td, set
//   for gfx90a, gfx940 and later, gfx11 and gfx12) and AMDGPUUsage's
//   "Initial Kernel Execution State".
// - LDS: [notes 1, 4]; the per-workgroup limits are the ones llc-22 enforces
//   ("local memory (N) exceeds limit (L)"). Allocation granules are
//   llvm/docs/AMDGPUUsage.rst, COMPUTE_PGM_RSRC2.GRANULATED_LDS_SIZE.
//
//===----------------------------------------------------------------------===//

#include "crest/Target/ChipTable.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/ErrorHandling.h"

using namespace crest;
using llvm::ArrayRef;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Scalar kinds and fp8 flavours
//===----------------------------------------------------------------------===//

StringRef crest::getScalarKindName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F64:
    return "f64";
  case ScalarKind::F32:
    return "f32";
  case ScalarKind::XF32:
    return "xf32";
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case ScalarKind::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  case ScalarKind::F8E4M3FN:
    return "f8E4M3FN";
  case ScalarKind::F8E5M2:
    return "f8E5M2";
  }
  llvm_unreachable("unknown ScalarKind");
}

unsigned crest::getScalarKindBits(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F64:
    return 64;
  case ScalarKind::F32:
  case ScalarKind::XF32:
  case ScalarKind::I32:
    return 32;
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 16;
  case ScalarKind::I8:
  case ScalarKind::F8E4M3FNUZ:
  case ScalarKind::F8E5M2FNUZ:
  case ScalarKind::F8E4M3FN:
  case ScalarKind::F8E5M2:
    return 8;
  }
  llvm_unreachable("unknown ScalarKind");
}

bool crest::isFloatKind(ScalarKind kind) {
  return kind != ScalarKind::I32 && kind != ScalarKind::I8;
}

bool crest::isFp8Kind(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F8E4M3FNUZ:
  case ScalarKind::F8E5M2FNUZ:
  case ScalarKind::F8E4M3FN:
  case ScalarKind::F8E5M2:
    return true;
  default:
    return false;
  }
}

StringRef crest::getFp8FlavourName(Fp8Flavour flavour) {
  switch (flavour) {
  case Fp8Flavour::None:
    return "none";
  case Fp8Flavour::FNUZ:
    return "FNUZ";
  case Fp8Flavour::OCP:
    return "OCP";
  }
  llvm_unreachable("unknown Fp8Flavour");
}

//===----------------------------------------------------------------------===//
// MmaInstruction
//===----------------------------------------------------------------------===//

/// RDNA3 WMMA reads A and B from every 16-lane group: lanes l and l+16 (and,
/// in wave64, l+32 and l+48) hold the same values, so each lane holds
/// M*K/16 elements of A whatever the wave size (rdna3.json: A of the f16
/// forms spans 8 VGPRs = 16 halves per lane in both wave32 and wave64).
static constexpr unsigned kRdna3WmmaLanesPerCopy = 16;

unsigned MmaInstruction::getLhsElementsPerLane(unsigned waveSize) const {
  unsigned elements = m * k * blocks;
  switch (layout) {
  case MmaLayoutFamily::CdnaMfma:
  case MmaLayoutFamily::Rdna4Wmma:
    return elements / waveSize;
  case MmaLayoutFamily::Rdna3Wmma:
    return elements / kRdna3WmmaLanesPerCopy;
  }
  llvm_unreachable("unknown MmaLayoutFamily");
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

constexpr ScalarKind F64 = ScalarKind::F64;
constexpr ScalarKind F32 = ScalarKind::F32;
constexpr ScalarKind XF32 = ScalarKind::XF32;
constexpr ScalarKind F16 = ScalarKind::F16;
constexpr ScalarKind BF16 = ScalarKind::BF16;
constexpr ScalarKind I32 = ScalarKind::I32;
constexpr ScalarKind I8 = ScalarKind::I8;
constexpr ScalarKind Fp8Fnuz = ScalarKind::F8E4M3FNUZ;
constexpr ScalarKind Bf8Fnuz = ScalarKind::F8E5M2FNUZ;
constexpr ScalarKind Fp8Ocp = ScalarKind::F8E4M3FN;
constexpr ScalarKind Bf8Ocp = ScalarKind::F8E5M2;

/// One row of a table. The helpers below fix the kind and layout family.
constexpr MmaInstruction makeMma(MmaKind kind, MmaLayoutFamily layout,
                                 StringRef mnemonic, unsigned m, unsigned n,
                                 unsigned k, unsigned blocks, ScalarKind lhs,
                                 ScalarKind rhs, ScalarKind acc,
                                 unsigned cycles,
                                 MfmaBlgp blgp = MfmaBlgp::Unsupported) {
  return {mnemonic, kind, layout, m, n, k, blocks, lhs, rhs, acc, cycles, blgp};
}

/// BLGP: a lane pattern unless the row says otherwise (calculator "blgp"
/// property; see MfmaBlgp).
constexpr MfmaBlgp NoBlgp = MfmaBlgp::Unsupported;
constexpr MfmaBlgp NegBlgp = MfmaBlgp::Negate;

constexpr MmaInstruction mfma(StringRef mnemonic, unsigned m, unsigned n,
                              unsigned k, unsigned blocks, ScalarKind lhs,
                              ScalarKind rhs, ScalarKind acc, unsigned cycles,
                              MfmaBlgp blgp = MfmaBlgp::LanePattern) {
  return makeMma(MmaKind::MFMA, MmaLayoutFamily::CdnaMfma, mnemonic, m, n, k,
                 blocks, lhs, rhs, acc, cycles, blgp);
}

/// RDNA3 and RDNA4 WMMA are all 16x16x16, single block.
constexpr MmaInstruction wmmaRdna3(StringRef mnemonic, ScalarKind lhs,
                                   ScalarKind rhs, ScalarKind acc,
                                   unsigned cycles) {
  return makeMma(MmaKind::WMMA, MmaLayoutFamily::Rdna3Wmma, mnemonic, 16, 16,
                 16, 1, lhs, rhs, acc, cycles);
}

constexpr MmaInstruction wmmaRdna4(StringRef mnemonic, ScalarKind lhs,
                                   ScalarKind rhs, ScalarKind acc,
                                   unsigned cycles) {
  return makeMma(MmaKind::WMMA, MmaLayoutFamily::Rdna4Wmma, mnemonic, 16, 16,
                 16, 1, lhs, rhs, acc, cycles);
}

// Each list is grouped by (lhs, rhs, acc). Within a group the preferred form
// comes first: highest ops per cycle, then single-block before multi-block,
// then the larger output tile (more reuse of every A/B element loaded).

/// gfx908 (CDNA1), from cdna1.json. Arguments: mnemonic, M, N, K, blocks,
/// lhs, rhs, acc, cycles.
constexpr MmaInstruction kGfx908Mma[] = {
    mfma("v_mfma_f32_32x32x2f32", 32, 32, 2, 1, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x4f32", 16, 16, 4, 1, F32, F32, F32, 32),
    mfma("v_mfma_f32_32x32x1f32", 32, 32, 1, 2, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x1f32", 16, 16, 1, 4, F32, F32, F32, 32),
    mfma("v_mfma_f32_4x4x1f32", 4, 4, 1, 16, F32, F32, F32, 8),

    mfma("v_mfma_f32_32x32x8f16", 32, 32, 8, 1, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x16f16", 16, 16, 16, 1, F16, F16, F32, 32),
    mfma("v_mfma_f32_32x32x4f16", 32, 32, 4, 2, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x4f16", 16, 16, 4, 4, F16, F16, F32, 32),
    mfma("v_mfma_f32_4x4x4f16", 4, 4, 4, 16, F16, F16, F32, 8),

    // CDNA1 has only the half-rate 2 x bf16 forms (no "_1k").
    mfma("v_mfma_f32_32x32x4bf16", 32, 32, 4, 1, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x8bf16", 16, 16, 8, 1, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_32x32x2bf16", 32, 32, 2, 2, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x2bf16", 16, 16, 2, 4, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_4x4x2bf16", 4, 4, 2, 16, BF16, BF16, F32, 8),

    mfma("v_mfma_i32_32x32x8i8", 32, 32, 8, 1, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x16i8", 16, 16, 16, 1, I8, I8, I32, 32),
    mfma("v_mfma_i32_32x32x4i8", 32, 32, 4, 2, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x4i8", 16, 16, 4, 4, I8, I8, I32, 32),
    mfma("v_mfma_i32_4x4x4i8", 4, 4, 4, 16, I8, I8, I32, 8),
};

/// gfx90a (CDNA2), from cdna2.json: CDNA1's set plus the full-rate "_1k"
/// bf16 forms and f64.
constexpr MmaInstruction kGfx90aMma[] = {
    mfma("v_mfma_f32_32x32x2f32", 32, 32, 2, 1, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x4f32", 16, 16, 4, 1, F32, F32, F32, 32),
    mfma("v_mfma_f32_32x32x1f32", 32, 32, 1, 2, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x1f32", 16, 16, 1, 4, F32, F32, F32, 32),
    mfma("v_mfma_f32_4x4x1f32", 4, 4, 1, 16, F32, F32, F32, 8),

    mfma("v_mfma_f32_32x32x8f16", 32, 32, 8, 1, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x16f16", 16, 16, 16, 1, F16, F16, F32, 32),
    mfma("v_mfma_f32_32x32x4f16", 32, 32, 4, 2, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x4f16", 16, 16, 4, 4, F16, F16, F32, 32),
    mfma("v_mfma_f32_4x4x4f16", 4, 4, 4, 16, F16, F16, F32, 8),

    mfma("v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, 1, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, 1, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_32x32x4bf16_1k", 32, 32, 4, 2, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x4bf16_1k", 16, 16, 4, 4, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_4x4x4bf16_1k", 4, 4, 4, 16, BF16, BF16, F32, 8),
    // The CDNA1 2 x bf16 forms still exist (and lower) on gfx90a, at half
    // the "_1k" rate.
    mfma("v_mfma_f32_32x32x4bf16", 32, 32, 4, 1, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x8bf16", 16, 16, 8, 1, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_32x32x2bf16", 32, 32, 2, 2, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x2bf16", 16, 16, 2, 4, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_4x4x2bf16", 4, 4, 2, 16, BF16, BF16, F32, 8),

    mfma("v_mfma_i32_32x32x8i8", 32, 32, 8, 1, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x16i8", 16, 16, 16, 1, I8, I8, I32, 32),
    mfma("v_mfma_i32_32x32x4i8", 32, 32, 4, 2, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x4i8", 16, 16, 4, 4, I8, I8, I32, 32),
    mfma("v_mfma_i32_4x4x4i8", 4, 4, 4, 16, I8, I8, I32, 8),

    mfma("v_mfma_f64_16x16x4f64", 16, 16, 4, 1, F64, F64, F64, 32, NoBlgp),
    mfma("v_mfma_f64_4x4x4f64", 4, 4, 4, 4, F64, F64, F64, 16, NoBlgp),
};

/// gfx942 (CDNA3), from cdna3.json (dense forms). New spelling; the
/// single-block f16/bf16/i8/xf32/fp8 forms run twice as fast as on CDNA2.
constexpr MmaInstruction kGfx942Mma[] = {
    mfma("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, F32, F32, F32, 32),
    mfma("v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4, F32, F32, F32, 32),
    mfma("v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16, F32, F32, F32, 8),

    mfma("v_mfma_f32_32x32x4_xf32", 32, 32, 4, 1, XF32, XF32, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x8_xf32", 16, 16, 8, 1, XF32, XF32, F32, 16, NoBlgp),

    mfma("v_mfma_f32_32x32x8_f16", 32, 32, 8, 1, F16, F16, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x16_f16", 16, 16, 16, 1, F16, F16, F32, 16, NoBlgp),
    mfma("v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x4_4b_f16", 16, 16, 4, 4, F16, F16, F32, 32),
    mfma("v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16, F16, F16, F32, 8),

    mfma("v_mfma_f32_32x32x8_bf16", 32, 32, 8, 1, BF16, BF16, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1, BF16, BF16, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x4_2b_bf16", 32, 32, 4, 2, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, 16, BF16, BF16, F32, 8),

    mfma("v_mfma_i32_32x32x16_i8", 32, 32, 16, 1, I8, I8, I32, 32, NoBlgp),
    mfma("v_mfma_i32_16x16x32_i8", 16, 16, 32, 1, I8, I8, I32, 16, NoBlgp),
    mfma("v_mfma_i32_32x32x4_2b_i8", 32, 32, 4, 2, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x4_4b_i8", 16, 16, 4, 4, I8, I8, I32, 32),
    mfma("v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, 16, I8, I8, I32, 8),

    mfma("v_mfma_f64_16x16x4_f64", 16, 16, 4, 1, F64, F64, F64, 32, NegBlgp),
    mfma("v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, 4, F64, F64, F64, 16, NegBlgp),

    // fp8 = E4M3FNUZ, bf8 = E5M2FNUZ on CDNA3 ("amd_fp8"/"amd_bf8").
    mfma("v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 1, Fp8Fnuz, Fp8Fnuz, F32,
         32, NoBlgp),
    mfma("v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 1, Fp8Fnuz, Fp8Fnuz, F32,
         16, NoBlgp),
    mfma("v_mfma_f32_32x32x16_fp8_bf8", 32, 32, 16, 1, Fp8Fnuz, Bf8Fnuz, F32,
         32, NoBlgp),
    mfma("v_mfma_f32_16x16x32_fp8_bf8", 16, 16, 32, 1, Fp8Fnuz, Bf8Fnuz, F32,
         16, NoBlgp),
    mfma("v_mfma_f32_32x32x16_bf8_fp8", 32, 32, 16, 1, Bf8Fnuz, Fp8Fnuz, F32,
         32, NoBlgp),
    mfma("v_mfma_f32_16x16x32_bf8_fp8", 16, 16, 32, 1, Bf8Fnuz, Fp8Fnuz, F32,
         16, NoBlgp),
    mfma("v_mfma_f32_32x32x16_bf8_bf8", 32, 32, 16, 1, Bf8Fnuz, Bf8Fnuz, F32,
         32, NoBlgp),
    mfma("v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, 1, Bf8Fnuz, Bf8Fnuz, F32,
         16, NoBlgp),
};

/// gfx950 (CDNA4). No calculator data: CDNA3's dense set without xf32, fp8
/// reading OCP types, plus the double-rate 8 x f16/bf16 and 16 x i8 forms
/// (the block-scaled f8f6f4 forms are left out). Cycles are 4 * passes from
/// LLVM's SIDPGFX950FullSpeedModel (SISchedule.td): 16x16x32 f16/bf16 and
/// 16x16x64 i8 are 4 passes, 32x32x16 f16/bf16 and 32x32x32 i8 are 8 passes
/// (i.e. 1024 f16 and 2048 i8 ops per cycle per SIMD, 4096 / 8192 per CU,
/// matching the MI355X peaks in [notes 1]); the CDNA3 forms keep their CDNA3
/// pass counts except v_mfma_f64_16x16x4_f64, which is 16 passes on gfx950
/// (Write16PassDGEMM; 32 f64 ops per cycle per SIMD = 128 per CU, matching
/// MI355X's 78.6 TFLOP/s FP64 matrix peak).
constexpr MmaInstruction kGfx950Mma[] = {
    mfma("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, F32, F32, F32, 32),
    mfma("v_mfma_f32_32x32x1_2b_f32", 32, 32, 1, 2, F32, F32, F32, 64),
    mfma("v_mfma_f32_16x16x1_4b_f32", 16, 16, 1, 4, F32, F32, F32, 32),
    mfma("v_mfma_f32_4x4x1_16b_f32", 4, 4, 1, 16, F32, F32, F32, 8),

    mfma("v_mfma_f32_32x32x16_f16", 32, 32, 16, 1, F16, F16, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x32_f16", 16, 16, 32, 1, F16, F16, F32, 16, NoBlgp),
    mfma("v_mfma_f32_32x32x8_f16", 32, 32, 8, 1, F16, F16, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x16_f16", 16, 16, 16, 1, F16, F16, F32, 16, NoBlgp),
    mfma("v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2, F16, F16, F32, 64),
    mfma("v_mfma_f32_16x16x4_4b_f16", 16, 16, 4, 4, F16, F16, F32, 32),
    mfma("v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16, F16, F16, F32, 8),

    mfma("v_mfma_f32_32x32x16_bf16", 32, 32, 16, 1, BF16, BF16, F32, 32,
         NoBlgp),
    mfma("v_mfma_f32_16x16x32_bf16", 16, 16, 32, 1, BF16, BF16, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x8_bf16", 32, 32, 8, 1, BF16, BF16, F32, 32, NoBlgp),
    mfma("v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1, BF16, BF16, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x4_2b_bf16", 32, 32, 4, 2, BF16, BF16, F32, 64),
    mfma("v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4, BF16, BF16, F32, 32),
    mfma("v_mfma_f32_4x4x4_16b_bf16", 4, 4, 4, 16, BF16, BF16, F32, 8),

    mfma("v_mfma_i32_32x32x32_i8", 32, 32, 32, 1, I8, I8, I32, 32, NoBlgp),
    mfma("v_mfma_i32_16x16x64_i8", 16, 16, 64, 1, I8, I8, I32, 16, NoBlgp),
    mfma("v_mfma_i32_32x32x16_i8", 32, 32, 16, 1, I8, I8, I32, 32, NoBlgp),
    mfma("v_mfma_i32_16x16x32_i8", 16, 16, 32, 1, I8, I8, I32, 16, NoBlgp),
    mfma("v_mfma_i32_32x32x4_2b_i8", 32, 32, 4, 2, I8, I8, I32, 64),
    mfma("v_mfma_i32_16x16x4_4b_i8", 16, 16, 4, 4, I8, I8, I32, 32),
    mfma("v_mfma_i32_4x4x4_16b_i8", 4, 4, 4, 16, I8, I8, I32, 8),

    mfma("v_mfma_f64_16x16x4_f64", 16, 16, 4, 1, F64, F64, F64, 64, NegBlgp),
    mfma("v_mfma_f64_4x4x4_4b_f64", 4, 4, 4, 4, F64, F64, F64, 16, NegBlgp),

    // Same mnemonics as gfx942, OCP encodings (E4M3FN / E5M2).
    mfma("v_mfma_f32_32x32x16_fp8_fp8", 32, 32, 16, 1, Fp8Ocp, Fp8Ocp, F32, 32,
         NoBlgp),
    mfma("v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, 1, Fp8Ocp, Fp8Ocp, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x16_fp8_bf8", 32, 32, 16, 1, Fp8Ocp, Bf8Ocp, F32, 32,
         NoBlgp),
    mfma("v_mfma_f32_16x16x32_fp8_bf8", 16, 16, 32, 1, Fp8Ocp, Bf8Ocp, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x16_bf8_fp8", 32, 32, 16, 1, Bf8Ocp, Fp8Ocp, F32, 32,
         NoBlgp),
    mfma("v_mfma_f32_16x16x32_bf8_fp8", 16, 16, 32, 1, Bf8Ocp, Fp8Ocp, F32, 16,
         NoBlgp),
    mfma("v_mfma_f32_32x32x16_bf8_bf8", 32, 32, 16, 1, Bf8Ocp, Bf8Ocp, F32, 32,
         NoBlgp),
    mfma("v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, 1, Bf8Ocp, Bf8Ocp, F32, 16,
         NoBlgp),
};

/// gfx1100 (RDNA3), from rdna3.json; v_wmma_i32_16x16x16_iu4 is left out
/// (no int4 ScalarKind). "iu8" is i8 (signedness is an instruction modifier).
constexpr MmaInstruction kGfx1100Mma[] = {
    wmmaRdna3("v_wmma_f32_16x16x16_f16", F16, F16, F32, 32),
    wmmaRdna3("v_wmma_f32_16x16x16_bf16", BF16, BF16, F32, 32),
    wmmaRdna3("v_wmma_f16_16x16x16_f16", F16, F16, F16, 32),
    wmmaRdna3("v_wmma_bf16_16x16x16_bf16", BF16, BF16, BF16, 32),
    wmmaRdna3("v_wmma_i32_16x16x16_iu8", I8, I8, I32, 32),
};

/// gfx1201 (RDNA4), from rdna4.json (dense forms); the two iu4 forms are left
/// out. fp8/bf8 are the OCP encodings.
constexpr MmaInstruction kGfx1201Mma[] = {
    wmmaRdna4("v_wmma_f32_16x16x16_f16", F16, F16, F32, 16),
    wmmaRdna4("v_wmma_f32_16x16x16_bf16", BF16, BF16, F32, 16),
    wmmaRdna4("v_wmma_f16_16x16x16_f16", F16, F16, F16, 16),
    wmmaRdna4("v_wmma_bf16_16x16x16_bf16", BF16, BF16, BF16, 16),
    wmmaRdna4("v_wmma_i32_16x16x16_iu8", I8, I8, I32, 8),
    wmmaRdna4("v_wmma_f32_16x16x16_fp8_fp8", Fp8Ocp, Fp8Ocp, F32, 8),
    wmmaRdna4("v_wmma_f32_16x16x16_fp8_bf8", Fp8Ocp, Bf8Ocp, F32, 8),
    wmmaRdna4("v_wmma_f32_16x16x16_bf8_fp8", Bf8Ocp, Fp8Ocp, F32, 8),
    wmmaRdna4("v_wmma_f32_16x16x16_bf8_bf8", Bf8Ocp, Bf8Ocp, F32, 8),
};

// Timing-model parameters (docs/Timing.md). "(derived)" is arithmetic on
// the cited figures; "(unverified)" could not be confirmed from a primary
// source and is a stated assumption of the model.
//
// gfx942 (MI300X):
// - 304 CUs in 8 XCDs, 2100 MHz peak: ROCm docs, "AMD Instinct MI300 series
//   microarchitecture"; workgroups round-robin over the XCDs (MGPUSim PR 286).
// - effectiveClockMhz 1051 (derived): AMD's "measuring max achievable FLOPs"
//   blog measures a tight f16 MFMA loop at 654 TFLOP/s against the 1307.4 of
//   2048 FLOP/clk/CU x 304 CUs x 2.1 GHz, i.e. the sustained clock under
//   dense MFMA is 2100 x 654 / 1307.4.
// - launchOverheadUs 2: back-to-back tiny kernels cost about 2 us each
//   (RRZE-HPC gpu-benches, gpu-small-kernels; measured on MI210); one
//   isolated event-timed empty kernel reads about 4 us (ROCm TransferBench
//   PR 297), which includes the events.
// - graphLaunchOverheadUs 1 (unverified, an assumption): no published
//   per-kernel figure for a HIP graph replay on MI300X or MI250X was found.
//   ROCm's HIP graph documentation ("HIP graphs", docs 6.2) says a graph
//   launch does the per-launch setup once, without a figure; a measured
//   CUDA chain of empty kernels replays at ~0.6 us per node against ~6.4 us
//   per stream launch (RTX 5070 Ti, ocannl issue 488). The model takes half
//   the stream overhead: the dispatch packets of a chain still go through
//   the command processor one after another, which the 2 us back-to-back
//   figure above already mostly is.
// - valuCycles 4: a SIMD has 16 lanes, wave64 takes 4 passes
//   (rocprofiler-compute pipeline-descriptions). transCycles 16: the
//   transcendental unit is quarter rate (CDNA3 ISA guide; unverified).
// - branchCycles 8 (LLVM SISchedule.td WriteBranch), barrierCycles 16
//   (unverified: SISchedule's WriteBarrier 500 is marked as a guess),
//   sleepCyclesPerUnit 64 (CDNA3 ISA guide, S_SLEEP: "approximately 64
//   clocks" per unit). Cache associativity 64-way L1, 16-way L2 and MALL
//   (unverified: the simulated caches' shape, not a published figure).
//   The HBM queueing window (2048 cycles) and the utilisation cap (0.95)
//   bound the loaded-latency term (model choices, not measurements).
//   smemLatency 20 (SISchedule.td WriteSMEM is 5 but marked as taken from
//   an old guide; unverified). Wait counters: gfx9 s_waitcnt has a 6-bit
//   vmcnt and a 4-bit lgkmcnt (AMDGPUUsage, "Memory Model GFX942";
//   SIInstrInfo/AMDGPUBaseInfo getVmcntBitMask, getLgkmcntBitMask).
// - LDS: 128 B/clk per CU, at most 64 B/clk for one wave's access
//   (rocprofiler-compute LDS speed-of-light); ds_read_b32 returns in 52-55
//   cycles with 4 data cycles and ds_read_b128 in 50-64 with 16 (tingqli
//   pyhip docs/mem_latency.md, MI308X), hence ldsLatency 48 (derived).
// - addressesPerCycle 4: the texture addresser takes four lane addresses
//   per clock (AMD, "Graphics Core Next Architecture" whitepaper; unverified
//   for CDNA), so a wave's access of 64 scattered 2-byte elements costs 16
//   cycles, not 64 cache-line transfers.
// - L1 32 KiB, 128 B lines, 64 B/clk per CU; L2 4 MiB per XCD, 16 channels
//   x 128 B/clk; 256 MiB Infinity Cache (ROCm gpu-arch-specs;
//   rocprofiler-compute MI300X sysinfo). Pointer-chase latencies at 2.09 GHz
//   (RRZE-HPC gpu-benches, gpu-latency): L1 ~118 (56 ns), L2 ~212 (101 ns),
//   Infinity Cache 454-534 (236 ns), HBM 876-907 (426 ns).
// - mallGBps 17200: AMD's Infinity Cache peak bandwidth for MI300X
//   (unverified). hbmGBps 5300: HBM3 peak (ROCm gpu-arch-specs).
// - hbmQueueNs 100 is the model's one fitted constant: the loaded latency
//   of DRAM (an HBM request waits 100 ns x rho / (1 - rho) on top of the
//   unloaded 426), chosen so that a read kernel at 1, 2, 4 and 8 waves per
//   SIMD reaches 1.18, 2.18, 3.49 and 3.63 TB/s against RRZE gpu-stream's
//   1.05, 1.96, 3.10 and 4.2 (BabelStream: 4.09-4.26 at full occupancy).
//   The unloaded pointer chase is unaffected (docs/Timing.md,
//   "Calibration").
// - Wait states: LLVM GCNHazardRecognizer.cpp, checkMAIHazards90A and
//   checkMAIVALUHazards (GFX940_XDL_N_PassWrites*, GFX940_SMFMA_N_Pass*,
//   GFX90A_N_PassWrites*), checkVALUHazards (trans use, gfx940 only);
//   SIInstrInfo::isXDL (the f32 MFMAs are the gfx940 non-XDL ones).
constexpr TimingParams kGfx942Timing = {
    /*computeUnits=*/304,
    /*xcds=*/8,
    /*peakClockMhz=*/2100,
    /*effectiveClockMhz=*/1051,
    /*launchOverheadUs=*/2.0,
    /*graphLaunchOverheadUs=*/1.0,
    /*valuCycles=*/4,
    /*transCycles=*/16,
    /*branchCycles=*/8,
    /*barrierCycles=*/16,
    /*smemLatency=*/20,
    /*sleepCyclesPerUnit=*/64,
    /*maxVmcnt=*/63,
    /*maxLgkmcnt=*/15,
    /*xdlSrcABOffset=*/3,
    /*nonXdlSrcABOffset=*/2,
    /*xdlSrcCOverlapOffset=*/1,
    /*nonXdlSrcCOverlapOffset=*/0,
    /*xdlReadOffset=*/3,
    /*nonXdlReadOffset=*/2,
    /*srcCExactTwoPassWaitStates=*/2,
    /*valuToMfmaWaitStates=*/2,
    /*transUseWaitStates=*/1,
    /*f32MfmaIsXdl=*/false,
    /*ldsLatency=*/48,
    /*ldsBytesPerCycle=*/128,
    /*ldsBytesPerCycleWave=*/64,
    /*cacheLineBytes=*/128,
    /*l1Ways=*/64,
    /*l2Ways=*/16,
    /*mallWays=*/16,
    /*l1Bytes=*/32 * 1024,
    /*l1BytesPerCycle=*/64,
    /*addressesPerCycle=*/4,
    /*l1LatencyNs=*/56,
    /*l2BytesPerXcd=*/4ull << 20,
    /*l2BytesPerCyclePerXcd=*/16 * 128,
    /*l2LatencyNs=*/101,
    /*mallBytes=*/256ull << 20,
    /*mallGBps=*/17200,
    /*mallLatencyNs=*/236,
    /*hbmGBps=*/5300,
    /*hbmLatencyNs=*/426,
    /*hbmQueueNs=*/100,
    /*hbmQueueWindowCycles=*/2048,
    /*hbmQueueMaxUtilisation=*/0.95,
};

// gfx90a (one MI250X GCD):
// - 110 CUs at 1700 MHz, 8 MiB L2, HBM2e 1.6 TB/s per GCD, no Infinity
//   Cache (ROCm docs, "AMD Instinct MI250 microarchitecture").
// - effectiveClockMhz 1507 (derived): a bf16 MFMA loop on MI200 reaches
//   160.5 of 181 TFLOP/s (ROCm rocm-systems PR 5162), 1700 x 160.5 / 181.
// - L1 16 KiB with 64 B lines, 64 B/clk (CDNA2 whitepaper); L2 32 channels
//   (rocprofiler-compute, "L2 cache (TCC)": 32 on MI2XX) x 128 B/clk
//   (unverified, as gfx942).
// - Latencies, LDS and issue figures as gfx942 (unverified: no published
//   MI250X pointer chase was found). hbmGBps 1638: HBM2e peak per GCD;
//   hbmQueueNs as gfx942 (unverified).
// - launchOverheadUs and graphLaunchOverheadUs as gfx942 (unverified).
// - Wait states: as gfx942, GFX90A_* rules (no XDL distinction, no
//   exact-SrcC exception, no trans-use hazard).
constexpr TimingParams kGfx90aTiming = {
    /*computeUnits=*/110,
    /*xcds=*/1,
    /*peakClockMhz=*/1700,
    /*effectiveClockMhz=*/1507,
    /*launchOverheadUs=*/2.0,
    /*graphLaunchOverheadUs=*/1.0,
    /*valuCycles=*/4,
    /*transCycles=*/16,
    /*branchCycles=*/8,
    /*barrierCycles=*/16,
    /*smemLatency=*/20,
    /*sleepCyclesPerUnit=*/64,
    /*maxVmcnt=*/63,
    /*maxLgkmcnt=*/15,
    /*xdlSrcABOffset=*/3,
    /*nonXdlSrcABOffset=*/3,
    /*xdlSrcCOverlapOffset=*/0,
    /*nonXdlSrcCOverlapOffset=*/0,
    /*xdlReadOffset=*/3,
    /*nonXdlReadOffset=*/3,
    /*srcCExactTwoPassWaitStates=*/0,
    /*valuToMfmaWaitStates=*/2,
    /*transUseWaitStates=*/0,
    /*f32MfmaIsXdl=*/true,
    /*ldsLatency=*/48,
    /*ldsBytesPerCycle=*/128,
    /*ldsBytesPerCycleWave=*/64,
    /*cacheLineBytes=*/64,
    /*l1Ways=*/64,
    /*l2Ways=*/16,
    /*mallWays=*/16,
    /*l1Bytes=*/16 * 1024,
    /*l1BytesPerCycle=*/64,
    /*addressesPerCycle=*/4,
    /*l1LatencyNs=*/56,
    /*l2BytesPerXcd=*/8ull << 20,
    /*l2BytesPerCyclePerXcd=*/32 * 128,
    /*l2LatencyNs=*/101,
    /*mallBytes=*/0,
    /*mallGBps=*/0,
    /*mallLatencyNs=*/0,
    /*hbmGBps=*/1638,
    /*hbmLatencyNs=*/426,
    /*hbmQueueNs=*/100,
    /*hbmQueueWindowCycles=*/2048,
    /*hbmQueueMaxUtilisation=*/0.95,
};

// Chip rows. Per-chip sources:
// - ldsBytesPerWorkgroup: 64 KiB on CDNA1-3 and 160 KiB on gfx950 [notes 1,
//   4]; on RDNA3/4 the WGP has 128 KiB but one workgroup may allocate at most
//   64 KiB (llc-22: "local memory (65540) exceeds limit (65536)" for gfx1100
//   and gfx1201, and "(163844) exceeds limit (163840)" for gfx950).
// - ldsBanks: 32 banks of 4 bytes [notes 4].
// - ldsAllocGranuleBytes: AMDGPUUsage GRANULATED_LDS_SIZE, 128 dwords on
//   GFX7-GFX12, 320 dwords on GFX950.
// - maxArchVgprs 256 everywhere (getAddressableNumArchVGPRs); AGPRs: gfx908
//   has a separate 256-entry file, gfx90a+ split one 512-entry file at
//   ACCUM_OFFSET (at most 256 arch + 256 acc), RDNA has none.
// - vgprFilePerSimd / vgprAllocGranule (getTotalNumVGPRs,
//   getVGPRAllocGranule): 256 / 4 on gfx908, 512 / 8 on gfx90a+, and on
//   gfx1100 and gfx1201 (1.5x VGPR file) 1536 / 24 in wave32, i.e. 768 / 12
//   in wave64 (llc-22 reports occupancy 12 in wave32 and 7 in wave64 for
//   100 VGPRs on both). Stored at the default wave size; see
//   ChipInfo::getVgprFilePerSimd.
// - maxSgprsPerWave (getAddressableNumSGPRs): 102 on gfx9, 106 on gfx10+.
// - maxWavesPerSimd (getMaxWavesPerEU): 10 on gfx908, 8 on gfx90a+ (the
//   GFX90A feature set), 16 on gfx10.3+.
// - simdsPerComputeUnit: 4 on CDNA; an RDNA CU has 2 SIMD32 (a WGP has 4).
// - fp8: [notes 2]. mmaAccInArchVgprs: calculator "c_d_arch" (false on
//   CDNA1 only; WMMA always uses VGPRs).
// - mmaFlushesHalfDenormals: ROCm MIOpen, "MI200 matrix fused multiply-add
//   (MFMA) behavior specifics" (MFMA_F16, MFMA_BF16 and MFMA_BF16_1K flush
//   subnormal input/output data to zero on MI200). Not documented for MI100;
//   CDNA3/CDNA4 keep subnormals (ISA guides, section 7.4, as quoted in AMD's
//   rocjitsu ISA notes).
constexpr ChipInfo kChips[] = {
    {/*name=*/"gfx908",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX908,
     /*architecture=*/"CDNA1",
     /*products=*/"Instinct MI100",
     /*defaultWaveSize=*/64,
     /*supportsWave32=*/false,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/64 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/512,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/256,
     /*unifiedVgprFile=*/false,
     /*vgprFilePerSimd=*/256,
     /*vgprAllocGranule=*/4,
     /*maxSgprsPerWave=*/102,
     /*maxWavesPerSimd=*/10,
     /*simdsPerComputeUnit=*/4,
     /*fp8=*/Fp8Flavour::None,
     /*mmaAccInArchVgprs=*/false,
     /*mmaFlushesHalfDenormals=*/false,
     /*packedWorkItemIds=*/false,
     /*mmaInstructions=*/kGfx908Mma},
    {/*name=*/"gfx90a",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A,
     /*architecture=*/"CDNA2",
     /*products=*/"Instinct MI210, MI250, MI250X",
     /*defaultWaveSize=*/64,
     /*supportsWave32=*/false,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/64 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/512,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/256,
     /*unifiedVgprFile=*/true,
     /*vgprFilePerSimd=*/512,
     /*vgprAllocGranule=*/8,
     /*maxSgprsPerWave=*/102,
     /*maxWavesPerSimd=*/8,
     /*simdsPerComputeUnit=*/4,
     /*fp8=*/Fp8Flavour::None,
     /*mmaAccInArchVgprs=*/true,
     /*mmaFlushesHalfDenormals=*/true,
     /*packedWorkItemIds=*/true,
     /*mmaInstructions=*/kGfx90aMma,
     /*timing=*/&kGfx90aTiming},
    {/*name=*/"gfx942",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942,
     /*architecture=*/"CDNA3",
     /*products=*/"Instinct MI300A, MI300X, MI325X",
     /*defaultWaveSize=*/64,
     /*supportsWave32=*/false,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/64 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/512,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/256,
     /*unifiedVgprFile=*/true,
     /*vgprFilePerSimd=*/512,
     /*vgprAllocGranule=*/8,
     /*maxSgprsPerWave=*/102,
     /*maxWavesPerSimd=*/8,
     /*simdsPerComputeUnit=*/4,
     /*fp8=*/Fp8Flavour::FNUZ,
     /*mmaAccInArchVgprs=*/true,
     /*mmaFlushesHalfDenormals=*/false,
     /*packedWorkItemIds=*/true,
     /*mmaInstructions=*/kGfx942Mma,
     /*timing=*/&kGfx942Timing},
    {/*name=*/"gfx950",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950,
     /*architecture=*/"CDNA4",
     /*products=*/"Instinct MI350X, MI355X",
     /*defaultWaveSize=*/64,
     /*supportsWave32=*/false,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/160 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/1280,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/256,
     /*unifiedVgprFile=*/true,
     /*vgprFilePerSimd=*/512,
     /*vgprAllocGranule=*/8,
     /*maxSgprsPerWave=*/102,
     /*maxWavesPerSimd=*/8,
     /*simdsPerComputeUnit=*/4,
     /*fp8=*/Fp8Flavour::OCP,
     /*mmaAccInArchVgprs=*/true,
     /*mmaFlushesHalfDenormals=*/false,
     /*packedWorkItemIds=*/true,
     /*mmaInstructions=*/kGfx950Mma},
    {/*name=*/"gfx1100",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100,
     /*architecture=*/"RDNA3",
     /*products=*/"Radeon RX 7900 XTX, Radeon PRO W7900",
     /*defaultWaveSize=*/32,
     /*supportsWave32=*/true,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/64 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/512,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/0,
     /*unifiedVgprFile=*/false,
     /*vgprFilePerSimd=*/1536,
     /*vgprAllocGranule=*/24,
     /*maxSgprsPerWave=*/106,
     /*maxWavesPerSimd=*/16,
     /*simdsPerComputeUnit=*/2,
     /*fp8=*/Fp8Flavour::None,
     /*mmaAccInArchVgprs=*/true,
     /*mmaFlushesHalfDenormals=*/false,
     /*packedWorkItemIds=*/true,
     /*mmaInstructions=*/kGfx1100Mma},
    {/*name=*/"gfx1201",
     /*elfMachine=*/llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1201,
     /*architecture=*/"RDNA4",
     /*products=*/"Radeon RX 9070 XT",
     /*defaultWaveSize=*/32,
     /*supportsWave32=*/true,
     /*supportsWave64=*/true,
     /*ldsBytesPerWorkgroup=*/64 * 1024,
     /*ldsBanks=*/32,
     /*ldsAllocGranuleBytes=*/512,
     /*maxArchVgprs=*/256,
     /*maxAccVgprs=*/0,
     /*unifiedVgprFile=*/false,
     /*vgprFilePerSimd=*/1536,
     /*vgprAllocGranule=*/24,
     /*maxSgprsPerWave=*/106,
     /*maxWavesPerSimd=*/16,
     /*simdsPerComputeUnit=*/2,
     /*fp8=*/Fp8Flavour::OCP,
     /*mmaAccInArchVgprs=*/true,
     /*mmaFlushesHalfDenormals=*/false,
     /*packedWorkItemIds=*/true,
     /*mmaInstructions=*/kGfx1201Mma},
};

} // namespace

//===----------------------------------------------------------------------===//
// ChipInfo and lookups
//===----------------------------------------------------------------------===//

const MmaInstruction *ChipInfo::lookupMma(StringRef mnemonic) const {
  for (const MmaInstruction &inst : mmaInstructions)
    if (inst.mnemonic == mnemonic)
      return &inst;
  return nullptr;
}

llvm::SmallVector<const MmaInstruction *>
ChipInfo::findMma(ScalarKind lhs, ScalarKind rhs, ScalarKind acc) const {
  llvm::SmallVector<const MmaInstruction *> result;
  for (const MmaInstruction &inst : mmaInstructions)
    if (inst.lhs == lhs && inst.rhs == rhs && inst.acc == acc)
      result.push_back(&inst);
  return result;
}

ArrayRef<ChipInfo> crest::getAllChips() { return kChips; }

const ChipInfo *crest::lookupChipByElfMachine(unsigned elfMachine) {
  for (const ChipInfo &chip : kChips)
    if (chip.elfMachine == elfMachine)
      return &chip;
  return nullptr;
}

const ChipInfo *crest::lookupChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

std::string crest::getKnownChipNames() {
  std::string names;
  for (const ChipInfo &chip : kChips) {
    if (!names.empty())
      names += ", ";
    names += chip.name.str();
  }
  return names;
}

unsigned crest::resolveWaveSize(const ChipInfo &chip, unsigned requested) {
  if (requested == 0)
    return chip.defaultWaveSize;
  return chip.supportsWaveSize(requested) ? requested : 0;
}
