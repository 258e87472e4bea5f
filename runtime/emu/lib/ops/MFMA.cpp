//===- MFMA.cpp - Matrix fused multiply-add instructions ------------------===//
//
// v_mfma_* for every CDNA MFMA in the chip table, and v_accvgpr_read/write/
// mov_b32.
//
// Registration. For each chip and each of its CdnaMfma rows, LLVM's AMDGPU
// instruction printer names the MC opcodes that print as the row's mnemonic
// (v_mfma_f32_32x32x8_f16 on gfx942 is V_MFMA_F32_32X32X8F16_gfx940_{acd,vcd},
// v_mfma_f32_32x32x4_2b_bf16 is V_MFMA_F32_32X32X4BF16_1K_gfx940_*): the
// decoder's key of those names selects the handler. One key can serve
// several chips with different meanings (the fp8 forms read FNUZ on gfx942
// and OCP on gfx950), so each key gets a slot listing one prepared
// instruction per chip, and the slot's handler picks the wave's chip.
//
// Execution. A prepared instruction holds index tables derived once from
// the closed-form layout (MfmaLayout.h). A handler decodes the A and B
// registers into float (int, double) "planes" in one linear pass, copies the
// C registers as they are (a row of C/D is N consecutive lanes of one
// register), runs a tight loop per block (row of D += A[i][k] * row k of B,
// vectorized, with an AVX2 build picked at run time on x86-64) and writes
// D back in one pass. All reads come before any write, so D may overlap A,
// B or C. f64 C/D rows are not contiguous and go through a small gather.
//
// Semantics and numerics, with their sources. "ISA" means the CDNA3/CDNA4
// ISA guides (sections 7.1-7.4) as quoted in AMD's rocjitsu ISA-conformance
// notes (CDNA3-RJ-008/-010/-011/-013, CDNA4-XML-014/-015/-018); the guides
// themselves were not available here.
// - EXEC: ignored; every lane is read and written, even with EXEC = 0 (ISA
//   dense-MFMA rule table: "ignores the execution mask"). LLVM's MCInstrDesc
//   lists EXEC as an implicit use of every MFMA, as of every VALU op, which
//   says nothing either way.
// - Products: f16, bf16, fp8/bf8 (any mix) and xf32 products are exact in
//   f32; they are added in f32. f32 inputs use a fused multiply-add (one
//   rounding per step); f64 likewise in f64. Accumulation order (not
//   documented by AMD, not checked against hardware): per output element,
//   D = C, then D = round(D + A[i][k] * B[k][j]) for k = 0, 1, ..., K-1,
//   round to nearest even (the ISA forces RNE and ignores MODE.round).
//   Results equal hardware whenever every partial sum is exact, e.g. for
//   small integer-valued data; otherwise they can differ in the last bits.
// - i8: products of sign-extended bytes, accumulated in 32 bits with
//   wrap-around (ISA: products sign-extended before accumulation).
// - Denormals (ISA section 7.4): f32 A/B inputs honour MODE's f32 input
//   flush bit; xf32, f16, bf16, fp8 and f64 inputs and every C input and D
//   output keep denormals. On chips whose table row sets
//   mmaFlushesHalfDenormals (gfx90a: ROCm MIOpen, "MI200 MFMA behavior
//   specifics") the f16/bf16 forms flush subnormal A/B inputs and D outputs
//   to zero.
// - MODE.FP16_OVFL (bit 23) set asks the matrix core to clamp f32 overflow
//   to +-MAX and i32 overflow to the i32 range (ISA). The clamp itself is not
//   emulated: with the bit set, an MFMA whose f32 result is infinite or
//   whose exact i32 sum leaves the range fails the wave (others run as
//   usual). Triton sets the bit in kernels that convert to fp8.
// - xf32: A/B mantissas rounded to 10 bits, to nearest even, first (ISA:
//   "rounds the mantissa to 10 bits"; rocBLAS's reference model truncates
//   instead; mfma::roundToXf32).
// - fp8/bf8: FNUZ on gfx942, OCP on gfx950, per the row's ScalarKind
//   (mfma::decodeFp8).
// - NaN results are written as the canonical quiet NaN (0x7fc00000, or
//   0x7ff8000000000000 for f64); the hardware's NaN payloads are unknown.
// - CBSZ/ABID (multi-block forms other than f64, mfma::hasABroadcast): only
//   the full broadcast (2^CBSZ = blocks: every block reads block ABID) is
//   emulated. For partial broadcasts the ISA's lane formula (A lane l reads
//   lane l % S + S * ABID, S = 64 >> CBSZ) and the matrix instruction
//   calculator (block b reads block floor(b / 2^CBSZ) * 2^CBSZ + ABID) give
//   different answers, so the wave fails; so it does for ABID >= 2^CBSZ or
//   2^CBSZ > blocks (illegal / undefined in the ISA) and for any nonzero
//   field on instructions without A broadcast.
// - BLGP per the row's MfmaBlgp: a B lane pattern (mfma::getBlgpSourceLane),
//   negate bits for A, B, C (CDNA3+ f64), or unsupported (must be 0).
//
// v_accvgpr_read/write/mov_b32 copy one dword per active lane (EXEC
// applies, as for any VALU op); the write takes a VGPR, an inline constant
// or (gfx90a+) an SGPR, which the decoded operand already tells apart.
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"
#include "MfmaLayout.h"
#include "MfmaOps.h"

#include "crest/Semantics/Scalar.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <utility>

using namespace crest;
using namespace crest::emu;
using namespace crest::emu::mfma;
using llvm::StringRef;

namespace {

constexpr unsigned kLanes = 64;
/// MODE.FP16_OVFL (bit 23 of HW_REG_MODE on gfx9).
constexpr uint32_t kModeFp16Ovfl = 1u << 23;
/// Largest operands of any CDNA MFMA: 4 registers of A/B (16 bytes, f16
/// 32x32x16 or i8 16x16x64 per lane) and 32 registers of C/D.
constexpr unsigned kMaxInputRegs = 4;
constexpr unsigned kMaxInputElements = kLanes * 16;
constexpr unsigned kMaxAccElements = kLanes * 32;

//===----------------------------------------------------------------------===//
// Key derivation: chip-table mnemonic -> MC opcode names -> registry keys
//===----------------------------------------------------------------------===//

const llvm::StringMap<llvm::SmallVector<std::string, 2>> &getMnemonicKeys() {
  static const llvm::StringMap<llvm::SmallVector<std::string, 2>> map = [] {
    llvm::StringMap<llvm::SmallVector<std::string, 2>> result;
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    llvm::Triple triple("amdgcn-amd-amdhsa");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return result;
    std::unique_ptr<llvm::MCInstrInfo> instrInfo(target->createMCInstrInfo());
    std::unique_ptr<llvm::MCRegisterInfo> registerInfo(
        target->createMCRegInfo(triple));
    llvm::MCTargetOptions options;
    std::unique_ptr<llvm::MCAsmInfo> asmInfo(
        target->createMCAsmInfo(*registerInfo, triple, options));
    if (!instrInfo || !registerInfo || !asmInfo)
      return result;
    std::unique_ptr<llvm::MCInstPrinter> printer(target->createMCInstPrinter(
        triple, 0, *asmInfo, *instrInfo, *registerInfo));
    if (!printer)
      return result;
    for (unsigned opcode = 0, e = instrInfo->getNumOpcodes(); opcode < e;
         ++opcode) {
      StringRef name = instrInfo->getName(opcode);
      if (!name.starts_with("V_MFMA_"))
        continue;
      llvm::MCInst mcInst;
      mcInst.setOpcode(opcode);
      const char *mnemonic = printer->getMnemonic(mcInst).first;
      if (!mnemonic)
        continue;
      std::string key = getHandlerKey(name).str();
      llvm::SmallVector<std::string, 2> &keys =
          result[StringRef(mnemonic).trim()];
      if (llvm::find(keys, key) == keys.end())
        keys.push_back(key);
    }
    return result;
  }();
  return map;
}

//===----------------------------------------------------------------------===//
// Prepared instructions
//===----------------------------------------------------------------------===//

enum class Arith : uint8_t {
  Float,      ///< Exact products (16-bit, 8-bit, xf32 inputs) added in f32.
  FloatFused, ///< f32 inputs: fused multiply-add in f32.
  Double,     ///< f64.
  Int,        ///< i8 inputs, i32 wrap-around accumulation.
};

/// A and B are decoded into "planes": element e (of the 32 / bits a dword
/// holds) of register r in lane l goes to plane r * (32 / bits) + e, index
/// plane * 64 + l. A row of B (fixed block and k) is then N consecutive
/// values of one plane, and a row of C/D (fixed block and i) N consecutive
/// lanes of one register. f64 operands use one plane per register pair.
struct MfmaSpec {
  const ChipInfo *chip;
  const MmaInstruction *inst;
  Arith arith;
  unsigned aRegs, bRegs, dRegs;
  bool flushHalfDenormals;
  /// Plane index of A[block][i][k], in that order.
  std::vector<uint16_t> aIndex;
  /// Plane index of B[block][k][0] for each (block, k).
  std::vector<uint16_t> bRows;
  /// Register * 64 + lane of D[block][i][0] for each (block, i) (32-bit
  /// accumulators), or of every D[block][i][j] (f64: the low dword).
  std::vector<uint16_t> dRows, dLocs;
};

unsigned planeIndex(const ElementLoc &loc, unsigned bits) {
  unsigned perWord = bits >= 32 ? 1 : 32 / bits;
  unsigned plane =
      bits == 64 ? loc.reg / 2 : loc.reg * perWord + loc.bit / bits;
  return plane * kLanes + loc.lane;
}

MfmaSpec prepare(const ChipInfo &chip, const MmaInstruction &inst) {
  MfmaSpec spec;
  spec.chip = &chip;
  spec.inst = &inst;
  if (inst.acc == ScalarKind::F64)
    spec.arith = Arith::Double;
  else if (inst.acc == ScalarKind::I32)
    spec.arith = Arith::Int;
  else if (inst.lhs == ScalarKind::F32)
    spec.arith = Arith::FloatFused;
  else
    spec.arith = Arith::Float;
  spec.aRegs = getARegs(inst);
  spec.bRegs = getBRegs(inst);
  spec.dRegs = getDRegs(inst);
  spec.flushHalfDenormals = crest::sem::mmaFlushesDenormals(chip, inst.lhs);
  unsigned aBits = getScalarKindBits(inst.lhs);
  unsigned bBits = getScalarKindBits(inst.rhs);
  auto check = [&](bool ok, const char *what) {
    if (!ok)
      llvm::report_fatal_error(llvm::Twine("MFMA.cpp: ") + inst.mnemonic +
                               ": " + what + " is not contiguous");
  };
  for (unsigned b = 0; b < inst.blocks; ++b) {
    for (unsigned i = 0; i < inst.m; ++i)
      for (unsigned k = 0; k < inst.k; ++k)
        spec.aIndex.push_back(planeIndex(getALoc(inst, b, i, k), aBits));
    for (unsigned k = 0; k < inst.k; ++k) {
      unsigned start = planeIndex(getBLoc(inst, b, k, 0), bBits);
      for (unsigned j = 0; j < inst.n; ++j)
        check(planeIndex(getBLoc(inst, b, k, j), bBits) == start + j,
              "a B row");
      spec.bRows.push_back(start);
    }
    for (unsigned i = 0; i < inst.m; ++i) {
      ElementLoc first = getDLoc(inst, b, i, 0);
      spec.dRows.push_back(first.reg * kLanes + first.lane);
      for (unsigned j = 0; j < inst.n; ++j) {
        ElementLoc loc = getDLoc(inst, b, i, j);
        spec.dLocs.push_back(loc.reg * kLanes + loc.lane);
        if (spec.arith != Arith::Double)
          check(loc.reg == first.reg && loc.lane == first.lane + j, "a D row");
      }
    }
  }
  return spec;
}

//===----------------------------------------------------------------------===//
// Decoding operands into planes
//===----------------------------------------------------------------------===//

uint32_t flushF32(uint32_t bits) {
  return (bits & 0x7f800000u) ? bits : (bits & 0x80000000u);
}

/// Decodes `regs` registers of packed `Bits`-bit elements into planes.
template <unsigned Bits, typename T, typename Decode>
void decodePlanes(const uint32_t *words, unsigned regs, T *out, Decode decode) {
  constexpr unsigned kPerWord = 32 / Bits;
  constexpr uint32_t kMask = Bits == 32 ? ~0u : (1u << Bits) - 1;
  for (unsigned r = 0; r < regs; ++r)
    for (unsigned e = 0; e < kPerWord; ++e) {
      const uint32_t *in = words + r * kLanes;
      T *plane = out + (r * kPerWord + e) * kLanes;
      for (unsigned l = 0; l < kLanes; ++l)
        plane[l] = decode((in[l] >> (e * Bits)) & kMask);
    }
}

void decodeFloatPlanes(const uint32_t *words, unsigned regs, ScalarKind kind,
                       bool flushDenormals, float *out) {
  switch (kind) {
  case ScalarKind::F32:
    if (flushDenormals)
      return decodePlanes<32>(words, regs, out, [](uint32_t w) {
        return llvm::bit_cast<float>(flushF32(w));
      });
    return decodePlanes<32>(
        words, regs, out, [](uint32_t w) { return llvm::bit_cast<float>(w); });
  case ScalarKind::XF32:
    return decodePlanes<32>(words, regs, out, [](uint32_t w) {
      return llvm::bit_cast<float>(roundToXf32(w));
    });
  case ScalarKind::F16:
    if (flushDenormals)
      return decodePlanes<16>(words, regs, out, [](uint32_t h) {
        return decodeF16(uint16_t((h & 0x7c00u) ? h : (h & 0x8000u)));
      });
    return decodePlanes<16>(words, regs, out,
                            [](uint32_t h) { return decodeF16(uint16_t(h)); });
  case ScalarKind::BF16:
    if (flushDenormals)
      return decodePlanes<16>(words, regs, out, [](uint32_t h) {
        return decodeBf16(uint16_t((h & 0x7f80u) ? h : (h & 0x8000u)));
      });
    return decodePlanes<16>(words, regs, out,
                            [](uint32_t h) { return decodeBf16(uint16_t(h)); });
  default: {
    const float *table = getFp8Table(kind);
    return decodePlanes<8>(words, regs, out,
                           [table](uint32_t b) { return table[b]; });
  }
  }
}

void decodeDoublePlanes(const uint32_t *words, unsigned regs, bool negate,
                        double *out) {
  uint64_t sign = negate ? uint64_t(1) << 63 : 0;
  for (unsigned pair = 0; pair < regs / 2; ++pair)
    for (unsigned l = 0; l < kLanes; ++l)
      out[pair * kLanes + l] = llvm::bit_cast<double>(
          (words[2 * pair * kLanes + l] |
           (uint64_t(words[(2 * pair + 1) * kLanes + l]) << 32)) ^
          sign);
}

//===----------------------------------------------------------------------===//
// Block products, k ascending: acc[i][j] += a[i][k] * b[k][j]
//===----------------------------------------------------------------------===//

/// One block: `aIndex` (m * k) indexes `a`, `bRows` (k) and `dRows` (m)
/// give the first element of each B and C/D row.
struct BlockView {
  const uint16_t *aIndex, *bRows, *dRows;
};

template <unsigned N, typename In, typename Acc, typename MulAdd>
LLVM_ATTRIBUTE_ALWAYS_INLINE void
multiplyRows(unsigned m, unsigned k, const In *a, const In *b, Acc *acc,
             BlockView view, MulAdd mulAdd) {
  for (unsigned i = 0; i < m; ++i) {
    Acc row[N];
    std::memcpy(row, acc + view.dRows[i], sizeof(row));
    for (unsigned kk = 0; kk < k; ++kk) {
      In x = a[view.aIndex[i * k + kk]];
      const In *bk = b + view.bRows[kk];
      for (unsigned j = 0; j < N; ++j)
        row[j] = mulAdd(x, bk[j], row[j]);
    }
    std::memcpy(acc + view.dRows[i], row, sizeof(row));
  }
}

template <typename In, typename Acc, typename MulAdd>
LLVM_ATTRIBUTE_ALWAYS_INLINE void
multiplyBlock(unsigned m, unsigned n, unsigned k, const In *a, const In *b,
              Acc *acc, BlockView view, MulAdd mulAdd) {
  switch (n) {
  case 4:
    return multiplyRows<4>(m, k, a, b, acc, view, mulAdd);
  case 16:
    return multiplyRows<16>(m, k, a, b, acc, view, mulAdd);
  case 32:
    return multiplyRows<32>(m, k, a, b, acc, view, mulAdd);
  default:
    for (unsigned i = 0; i < m; ++i)
      for (unsigned kk = 0; kk < k; ++kk)
        for (unsigned j = 0; j < n; ++j)
          acc[view.dRows[i] + j] =
              mulAdd(a[view.aIndex[i * k + kk]], b[view.bRows[kk] + j],
                     acc[view.dRows[i] + j]);
  }
}

/// The f32 block products (exact products, or f32 inputs with a fused
/// multiply-add), compiled for the host's baseline and, on x86-64, again
/// for AVX2 + FMA, picked at run time. Results are identical: the exact
/// products make z + x * y and fma(x, y, z) the same.
struct ExactMulAdd {
  float operator()(float x, float y, float z) const { return z + x * y; }
};
struct FusedMulAdd {
  float operator()(float x, float y, float z) const {
    return std::fma(x, y, z);
  }
};

template <typename MulAdd>
void multiplyFloatBlock(unsigned m, unsigned n, unsigned k, const float *a,
                        const float *b, float *acc, BlockView view) {
  multiplyBlock(m, n, k, a, b, acc, view, MulAdd());
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CREST_MFMA_AVX2 1
template <typename MulAdd>
__attribute__((target("avx2,fma"))) void
multiplyFloatBlockAvx2(unsigned m, unsigned n, unsigned k, const float *a,
                       const float *b, float *acc, BlockView view) {
  multiplyBlock(m, n, k, a, b, acc, view, MulAdd());
}
#endif

template <typename MulAdd>
void multiplyFloatBlockBest(unsigned m, unsigned n, unsigned k, const float *a,
                            const float *b, float *acc, BlockView view) {
#ifdef CREST_MFMA_AVX2
  static const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2)
    return multiplyFloatBlockAvx2<MulAdd>(m, n, k, a, b, acc, view);
#endif
  multiplyFloatBlock<MulAdd>(m, n, k, a, b, acc, view);
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

bool checkRange(Wave &wave, const Inst &inst, const Operand &op, unsigned regs,
                const char *what) {
  if ((size_t(op.index) + regs) * kLanes <= wave.vgpr.size())
    return true;
  wave.fail(inst, llvm::formatv("{0} (register {1} and {2} more) lies outside "
                                "the wave's register file",
                                what, op.index, regs - 1));
  return false;
}

/// Copies `regs` registers, lane l of each read from lane source(l).
template <typename Source>
void swizzleLanes(const uint32_t *in, unsigned regs, uint32_t *out,
                  Source source) {
  for (unsigned r = 0; r < regs; ++r)
    for (unsigned l = 0; l < kLanes; ++l)
      out[r * kLanes + l] = in[r * kLanes + source(l)];
}

void execute(Wave &wave, const Inst &inst, const MfmaSpec &spec) {
  const MmaInstruction &mi = *spec.inst;
  StringRef mnemonic = mi.mnemonic;
  if (inst.numOps < 7)
    return wave.fail(inst, "MFMA with an unexpected operand list");
  const Operand &dst = inst.ops[0], &srcA = inst.ops[1], &srcB = inst.ops[2],
                &srcC = inst.ops[3];
  if (dst.kind != OperandKind::Vector || srcA.kind != OperandKind::Vector ||
      srcB.kind != OperandKind::Vector ||
      (srcC.kind != OperandKind::Vector && srcC.kind != OperandKind::Imm))
    return wave.fail(inst, "MFMA operands must be VGPRs or AGPRs (C may also "
                           "be an inline constant)");
  if (!checkRange(wave, inst, dst, spec.dRegs, "D") ||
      !checkRange(wave, inst, srcA, spec.aRegs, "A") ||
      !checkRange(wave, inst, srcB, spec.bRegs, "B") ||
      (srcC.kind == OperandKind::Vector &&
       !checkRange(wave, inst, srcC, spec.dRegs, "C")))
    return;
  // MODE.FP16_OVFL asks for f32/i32 overflow to clamp; that is emulated
  // only as far as checking that nothing overflowed.
  bool clampMode = wave.mode & kModeFp16Ovfl;
  auto failClamp = [&] {
    wave.fail(inst, "MODE.FP16_OVFL is set and a result overflowed: the "
                    "MFMA overflow clamp is not emulated");
  };

  const uint32_t *aRegs = wave.vreg(srcA.index);
  const uint32_t *bRegs = wave.vreg(srcB.index);
  const uint32_t *cRegs =
      srcC.kind == OperandKind::Vector ? wave.vreg(srcC.index) : nullptr;
  uint32_t *dRegs = wave.vreg(dst.index);

  // CBSZ/ABID: only the full broadcast (see the file comment). A lane l then
  // reads lane l % S + S * ABID, S = 64 >> CBSZ (the lanes of one block).
  unsigned cbsz = unsigned(inst.ops[4].imm), abid = unsigned(inst.ops[5].imm),
           blgp = unsigned(inst.ops[6].imm);
  uint32_t aSwizzled[kMaxInputRegs * kLanes];
  if (cbsz || abid) {
    if (!hasABroadcast(mi))
      return wave.fail(inst, llvm::formatv("CBSZ/ABID must be 0: {0} has no "
                                           "A-block broadcast",
                                           mnemonic));
    unsigned group = 1u << std::min(cbsz, 31u);
    if (group > mi.blocks || abid >= group)
      return wave.fail(
          inst, llvm::formatv("CBSZ={0} ABID={1} is illegal for {2} blocks "
                              "(the ISA needs 2^CBSZ <= blocks and ABID < "
                              "2^CBSZ)",
                              cbsz, abid, mi.blocks));
    if (group != mi.blocks)
      return wave.fail(
          inst, llvm::formatv("partial A broadcast (CBSZ={0} of {1} blocks) "
                              "is not emulated: the ISA guide and the matrix "
                              "instruction calculator disagree on it",
                              cbsz, mi.blocks));
    unsigned s = kLanes >> cbsz;
    swizzleLanes(aRegs, spec.aRegs, aSwizzled,
                 [&](unsigned l) { return l % s + s * abid; });
    aRegs = aSwizzled;
  }

  // BLGP: a B lane pattern, or negate bits.
  uint32_t bSwizzled[kMaxInputRegs * kLanes];
  bool negate[3] = {false, false, false};
  if (blgp) {
    switch (mi.blgp) {
    case MfmaBlgp::Unsupported:
      return wave.fail(inst, llvm::formatv("BLGP must be 0: {0} on {1} has "
                                           "no B lane patterns",
                                           mnemonic, spec.chip->name));
    case MfmaBlgp::LanePattern:
      swizzleLanes(bRegs, spec.bRegs, bSwizzled,
                   [&](unsigned l) { return getBlgpSourceLane(blgp, l); });
      bRegs = bSwizzled;
      break;
    case MfmaBlgp::Negate:
      for (unsigned i = 0; i < 3; ++i)
        negate[i] = (blgp >> i) & 1;
      break;
    }
  }

  unsigned m = mi.m, n = mi.n, k = mi.k;
  unsigned accWords = spec.dRegs * kLanes;
  auto view = [&](unsigned blk) {
    return BlockView{spec.aIndex.data() + blk * m * k,
                     spec.bRows.data() + blk * k, spec.dRows.data() + blk * m};
  };
  switch (spec.arith) {
  case Arith::Float:
  case Arith::FloatFused: {
    float a[kMaxInputElements], b[kMaxInputElements], acc[kMaxAccElements];
    // f32 inputs flush denormals unless MODE allows f32 input denormals.
    bool flushIn = spec.arith == Arith::FloatFused
                       ? !(wave.mode & (1u << mode::DenormShift))
                       : spec.flushHalfDenormals;
    decodeFloatPlanes(aRegs, spec.aRegs, mi.lhs, flushIn, a);
    decodeFloatPlanes(bRegs, spec.bRegs, mi.rhs, flushIn, b);
    if (cRegs)
      std::memcpy(acc, cRegs, accWords * sizeof(float));
    else
      std::fill_n(acc, accWords, llvm::bit_cast<float>(uint32_t(srcC.imm)));
    for (unsigned blk = 0; blk < mi.blocks; ++blk) {
      if (spec.arith == Arith::Float)
        multiplyFloatBlockBest<ExactMulAdd>(m, n, k, a, b, acc, view(blk));
      else
        multiplyFloatBlockBest<FusedMulAdd>(m, n, k, a, b, acc, view(blk));
    }
    if (clampMode &&
        std::any_of(acc, acc + accWords, [](float x) { return std::isinf(x); }))
      return failClamp();
    bool flushOut = spec.flushHalfDenormals;
    for (unsigned w = 0; w < accWords; ++w) {
      uint32_t bits = llvm::bit_cast<uint32_t>(acc[w]);
      bits = (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : bits;
      dRegs[w] = flushOut ? flushF32(bits) : bits;
    }
    break;
  }
  case Arith::Int: {
    int32_t a[kMaxInputElements], b[kMaxInputElements];
    uint32_t acc[kMaxAccElements];
    auto sext = [](uint32_t byte) { return int32_t(int8_t(byte)); };
    decodePlanes<8>(aRegs, spec.aRegs, a, sext);
    decodePlanes<8>(bRegs, spec.bRegs, b, sext);
    if (cRegs)
      std::memcpy(acc, cRegs, accWords * sizeof(uint32_t));
    else
      std::fill_n(acc, accWords, uint32_t(srcC.imm));
    if (clampMode) {
      // Exact sums, to see whether any leaves the i32 range.
      std::vector<int64_t> exact(acc, acc + accWords);
      for (int64_t &x : exact)
        x = int32_t(uint32_t(x));
      for (unsigned blk = 0; blk < mi.blocks; ++blk)
        multiplyBlock(
            m, n, k, a, b, exact.data(), view(blk),
            [](int32_t x, int32_t y, int64_t z) { return z + int64_t(x) * y; });
      if (llvm::any_of(exact, [](int64_t x) { return x != int32_t(x); }))
        return failClamp();
    }
    for (unsigned blk = 0; blk < mi.blocks; ++blk)
      multiplyBlock(
          m, n, k, a, b, acc, view(blk),
          [](int32_t x, int32_t y, uint32_t z) { return z + uint32_t(x * y); });
    std::memcpy(dRegs, acc, accWords * sizeof(uint32_t));
    break;
  }
  case Arith::Double: {
    double a[kMaxInputElements / 2], b[kMaxInputElements / 2],
        acc[kMaxAccElements / 2];
    decodeDoublePlanes(aRegs, spec.aRegs, negate[0], a);
    decodeDoublePlanes(bRegs, spec.bRegs, negate[1], b);
    // C/D rows are not contiguous: accumulate in [block][i][j] order.
    uint64_t negC = negate[2] ? uint64_t(1) << 63 : 0;
    unsigned dCount = mi.blocks * m * n;
    const uint16_t *dLocs = spec.dLocs.data();
    for (unsigned e = 0; e < dCount; ++e) {
      uint64_t bits =
          cRegs ? cRegs[dLocs[e]] | (uint64_t(cRegs[dLocs[e] + kLanes]) << 32)
                : srcC.imm;
      acc[e] = llvm::bit_cast<double>(bits ^ negC);
    }
    uint16_t rows[16]; // f64 forms have M <= 16
    for (unsigned blk = 0; blk < mi.blocks; ++blk) {
      for (unsigned i = 0; i < m; ++i)
        rows[i] = uint16_t((blk * m + i) * n);
      BlockView v = view(blk);
      v.dRows = rows;
      multiplyBlock(m, n, k, a, b, acc, v, [](double x, double y, double z) {
        return std::fma(x, y, z);
      });
    }
    for (unsigned e = 0; e < dCount; ++e) {
      uint64_t bits = llvm::bit_cast<uint64_t>(acc[e]);
      if (std::isnan(acc[e]))
        bits = 0x7ff8000000000000ull;
      dRegs[dLocs[e]] = uint32_t(bits);
      dRegs[dLocs[e] + kLanes] = uint32_t(bits >> 32);
    }
    break;
  }
  }
  ++wave.dispatch.result.mfmaInstructions;
}

//===----------------------------------------------------------------------===//
// Slots: one handler per registry key, one prepared instruction per chip
//===----------------------------------------------------------------------===//

constexpr unsigned kMaxSlots = 128;

struct Slot {
  std::string key;
  llvm::SmallVector<const MfmaSpec *, 4> specs;
};

struct MfmaTables {
  std::deque<MfmaSpec> specs;
  std::vector<Slot> slots;
};

/// Set once the tables exist; the handlers only read it.
const Slot *gSlots = nullptr;

const MfmaTables &getTables() {
  static const MfmaTables tables = [] {
    MfmaTables t;
    llvm::StringMap<unsigned> slotOfKey;
    for (const ChipInfo &chip : getAllChips()) {
      for (const MmaInstruction &inst : chip.mmaInstructions) {
        if (inst.kind != MmaKind::MFMA ||
            inst.layout != MmaLayoutFamily::CdnaMfma)
          continue;
        const MfmaSpec *spec = nullptr;
        for (const std::string &key : getHandlerKeys(inst.mnemonic)) {
          auto [it, inserted] =
              slotOfKey.try_emplace(key, unsigned(t.slots.size()));
          if (inserted) {
            if (t.slots.size() == kMaxSlots)
              llvm::report_fatal_error("MFMA.cpp: raise kMaxSlots");
            t.slots.push_back({key, {}});
          }
          Slot &slot = t.slots[it->second];
          if (llvm::any_of(slot.specs,
                           [&](const MfmaSpec *s) { return s->chip == &chip; }))
            continue;
          if (!spec)
            spec = &t.specs.emplace_back(prepare(chip, inst));
          slot.specs.push_back(spec);
        }
      }
    }
    return t;
  }();
  return tables;
}

void runSlot(const Slot &slot, Wave &wave, const Inst &inst) {
  const ChipInfo *chip = &wave.program.getChip();
  for (const MfmaSpec *spec : slot.specs)
    if (spec->chip == chip)
      return execute(wave, inst, *spec);
  for (const MfmaSpec *spec : slot.specs)
    if (spec->chip->name == chip->name)
      return execute(wave, inst, *spec);
  wave.fail(inst, llvm::formatv("{0} is not an MFMA of {1} in the chip table",
                                slot.key, chip->name));
}

template <unsigned S> void slotHandler(Wave &wave, const Inst &inst) {
  runSlot(gSlots[S], wave, inst);
}

template <size_t... I>
constexpr std::array<Handler, sizeof...(I)>
makeSlotHandlers(std::index_sequence<I...>) {
  return {&slotHandler<I>...};
}

constexpr std::array<Handler, kMaxSlots> kSlotHandlers =
    makeSlotHandlers(std::make_index_sequence<kMaxSlots>());

//===----------------------------------------------------------------------===//
// AGPR moves
//===----------------------------------------------------------------------===//

/// v_accvgpr_read_b32 vdst, asrc / v_accvgpr_write_b32 adst, {v, s, inline}
/// / v_accvgpr_mov_b32 adst, asrc: operand 0 is the destination, operand 1
/// the source, both already mapped into the unified register file.
void accvgprMove(Wave &wave, const Inst &inst) {
  if (inst.numOps < 2 || inst.ops[0].kind != OperandKind::Vector)
    return wave.fail(inst, "unexpected operands");
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane)
    if ((exec >> lane) & 1)
      wave.writeLane32(inst.ops[0], lane, wave.readLane32(inst.ops[1], lane));
}

} // namespace

llvm::SmallVector<std::string, 2> mfma::getHandlerKeys(StringRef mnemonic) {
  const auto &map = getMnemonicKeys();
  auto it = map.find(mnemonic);
  if (it == map.end())
    return {};
  return it->second;
}

void crest::emu::registerMFMAHandlers(HandlerRegistry &registry) {
  const MfmaTables &tables = getTables();
  gSlots = tables.slots.data();
  for (size_t s = 0; s < tables.slots.size(); ++s)
    registry.add(tables.slots[s].key, kSlotHandlers[s]);
  registry.add("V_ACCVGPR_READ_B32", accvgprMove);
  registry.add("V_ACCVGPR_WRITE_B32", accvgprMove);
  registry.add("V_ACCVGPR_MOV_B32", accvgprMove);
}
