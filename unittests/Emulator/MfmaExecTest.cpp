//===- MfmaExecTest.cpp - MFMA and AGPR-move kernels ----------------------===//
//
// Runs real kernels. Every MFMA of gfx908, gfx90a, gfx942 and gfx950 gets
// small integer-valued A, B and C placed by the calculator's layout
// (test/Inputs/mfma-layouts; gfx950 has no calculator data and uses the
// emulator's closed form instead), runs in its AGPR (acd) and, where the
// chip allows, VGPR (vcd) form, and must produce D = A * B + C bit for bit
// as read through the calculator's D layout. Further tests cover CBSZ/ABID,
// BLGP, f64 negation, EXEC, denormals, xf32, fp8 specials, the AGPR moves
// and the speed of a 32x32x8 f16 MFMA.
//
// Operands reach the registers without vector loads: for each lane the
// kernel sets EXEC to that lane alone, s_loads the lane's dwords and moves
// them into VGPRs with v_mov_b32 (and v_accvgpr_write for AGPRs).
//
//===----------------------------------------------------------------------===//

#include "AsmKernel.h"
#include "MfmaOracle.h"
#include "ops/MfmaLayout.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <random>

using namespace crest;
using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

constexpr unsigned kLanes = 64;
/// Input dwords per lane: A at 0..3, B at 4..7, C at 8..39.
constexpr unsigned kLaneStride = 48;
constexpr unsigned kInA = 0, kInB = 4, kInC = 8;
/// Registers: A v[8:11], B v[12:15], C staged in v[32:63], vcd D in
/// v[64:95], acd D read back into v[96:127]; AGPR C/D in a[0:31].
constexpr unsigned kVA = 8, kVB = 12, kVC = 32, kVD = 64, kVRead = 96;

bool isCdnaMfma(const MmaInstruction &inst) {
  return inst.kind == MmaKind::MFMA && inst.layout == MmaLayoutFamily::CdnaMfma;
}

std::string regs(char kind, unsigned base, unsigned count) {
  if (count == 1)
    return formatv("{0}{1}", kind, base).str();
  return formatv("{0}[{1}:{2}]", kind, base, base + count - 1).str();
}

//===----------------------------------------------------------------------===//
// Element layouts: from the calculator data, or the closed form (gfx950)
//===----------------------------------------------------------------------===//

struct Layout {
  std::function<OracleSlot(unsigned, unsigned, unsigned)> a, b, d;
  bool fromCalculator = false;
};

OracleSlot fromLoc(const mfma::ElementLoc &loc, unsigned bits) {
  return {loc.reg, loc.bit, loc.bit + bits - 1, loc.lane};
}

/// The calculator's layout of `inst`, or, for CDNA4 (which the calculator
/// does not cover), the emulator's closed form (fromCalculator = false);
/// nullopt with `why` if the calculator data should be there but is not.
std::optional<Layout> getLayout(const ChipInfo &chip,
                                const MmaInstruction &inst, std::string &why) {
  const OracleFile *oracle = loadOracle(chip, why);
  if (oracle) {
    auto it = oracle->instructions.find(inst.mnemonic.str());
    if (it == oracle->instructions.end()) {
      why = inst.mnemonic.str() + " is not in " + oracle->path;
      return std::nullopt;
    }
    const OracleInstruction *o = &it->second;
    Layout layout;
    layout.fromCalculator = true;
    layout.a = [o](unsigned b, unsigned i, unsigned k) {
      return o->a.at(b, i, k);
    };
    layout.b = [o](unsigned b, unsigned k, unsigned j) {
      return o->b.at(b, k, j);
    };
    layout.d = [o](unsigned b, unsigned i, unsigned j) {
      return o->d.at(b, i, j);
    };
    return layout;
  }
  // The calculator has no CDNA4 data (shared/mfma-layouts/README.md).
  if (chip.architecture != "CDNA4")
    return std::nullopt;
  Layout layout;
  const MmaInstruction *p = &inst;
  layout.a = [p](unsigned b, unsigned i, unsigned k) {
    return fromLoc(mfma::getALoc(*p, b, i, k), getScalarKindBits(p->lhs));
  };
  layout.b = [p](unsigned b, unsigned k, unsigned j) {
    return fromLoc(mfma::getBLoc(*p, b, k, j), getScalarKindBits(p->rhs));
  };
  layout.d = [p](unsigned b, unsigned i, unsigned j) {
    return fromLoc(mfma::getDLoc(*p, b, i, j), getScalarKindBits(p->acc));
  };
  return layout;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

const llvm::fltSemantics &getSemantics(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F64:
    return llvm::APFloat::IEEEdouble();
  case ScalarKind::F32:
  case ScalarKind::XF32:
    return llvm::APFloat::IEEEsingle();
  case ScalarKind::F16:
    return llvm::APFloat::IEEEhalf();
  case ScalarKind::BF16:
    return llvm::APFloat::BFloat();
  case ScalarKind::F8E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case ScalarKind::F8E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  case ScalarKind::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case ScalarKind::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  default:
    llvm_unreachable("not a float kind");
  }
}

/// The bits of `value` in `kind` (exactly representable values only).
uint64_t encode(ScalarKind kind, double value) {
  if (!isFloatKind(kind))
    return uint64_t(int64_t(value)) &
           ((uint64_t(1) << getScalarKindBits(kind)) - 1);
  llvm::APFloat f(value);
  bool losesInfo = false;
  f.convert(getSemantics(kind), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  EXPECT_FALSE(losesInfo) << value << " in " << getScalarKindName(kind).str();
  return f.bitcastToAPInt().getZExtValue();
}

double decode(ScalarKind kind, uint64_t bits) {
  unsigned width = getScalarKindBits(kind);
  if (!isFloatKind(kind))
    return double(llvm::SignExtend64(bits, width));
  llvm::APFloat f(getSemantics(kind), llvm::APInt(width, bits));
  bool losesInfo = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToDouble();
}

/// Random small values that every kind represents exactly, so that every
/// partial sum of A * B + C is exact too.
double randomInput(ScalarKind kind, std::mt19937 &rng) {
  if (kind == ScalarKind::I8)
    return double(int(rng() % 256) - 128);
  if (isFp8Kind(kind)) {
    static const double kValues[] = {-4,  -3, -2,  -1.5, -1, -0.5, 0,
                                     0.5, 1,  1.5, 2,    3,  4};
    return kValues[rng() % std::size(kValues)];
  }
  return double(int(rng() % 33) - 16) / 2;
}

double randomAcc(ScalarKind kind, std::mt19937 &rng) {
  if (kind == ScalarKind::I32)
    return double(int32_t(rng()));
  return double(int(rng() % 513) - 256) / 2;
}

//===----------------------------------------------------------------------===//
// One MFMA case: data, kernel, expected result
//===----------------------------------------------------------------------===//

struct MfmaCase {
  const ChipInfo *chip = nullptr;
  const MmaInstruction *inst = nullptr;
  Layout layout;
  /// [block][i][k], [block][k][j], [block][i][j].
  std::vector<double> a, b, c;

  unsigned aCount() const { return inst->blocks * inst->m * inst->k; }
  unsigned bCount() const { return inst->blocks * inst->k * inst->n; }
  unsigned dCount() const { return inst->blocks * inst->m * inst->n; }
  unsigned aIndex(unsigned blk, unsigned i, unsigned k) const {
    return (blk * inst->m + i) * inst->k + k;
  }
  unsigned bIndex(unsigned blk, unsigned k, unsigned j) const {
    return (blk * inst->k + k) * inst->n + j;
  }
  unsigned dIndex(unsigned blk, unsigned i, unsigned j) const {
    return (blk * inst->m + i) * inst->n + j;
  }

  void randomize(uint32_t seed) {
    std::mt19937 rng(seed);
    a.resize(aCount());
    b.resize(bCount());
    c.resize(dCount());
    for (double &v : a)
      v = randomInput(inst->lhs, rng);
    for (double &v : b)
      v = randomInput(inst->rhs, rng);
    for (double &v : c)
      v = randomAcc(inst->acc, rng);
  }

  /// The per-lane input image: kLaneStride dwords per lane.
  std::vector<uint32_t> packInputs() const {
    std::vector<uint32_t> image(kLanes * kLaneStride, 0);
    auto put = [&](unsigned base, const OracleSlot &slot, ScalarKind kind,
                   double value) {
      uint64_t bits = encode(kind, value);
      uint32_t *lane = &image[slot.lane * kLaneStride + base];
      if (getScalarKindBits(kind) == 64) {
        lane[slot.vgpr] = uint32_t(bits);
        lane[slot.vgpr + 1] = uint32_t(bits >> 32);
      } else {
        lane[slot.vgpr] |= uint32_t(bits) << slot.lo;
      }
    };
    const MmaInstruction &mi = *inst;
    for (unsigned blk = 0; blk < mi.blocks; ++blk) {
      for (unsigned i = 0; i < mi.m; ++i)
        for (unsigned k = 0; k < mi.k; ++k)
          put(kInA, layout.a(blk, i, k), mi.lhs, a[aIndex(blk, i, k)]);
      for (unsigned k = 0; k < mi.k; ++k)
        for (unsigned j = 0; j < mi.n; ++j)
          put(kInB, layout.b(blk, k, j), mi.rhs, b[bIndex(blk, k, j)]);
      for (unsigned i = 0; i < mi.m; ++i)
        for (unsigned j = 0; j < mi.n; ++j)
          put(kInC, layout.d(blk, i, j), mi.acc, c[dIndex(blk, i, j)]);
    }
    return image;
  }

  /// D = A * B + C from the given (possibly modified) operands, encoded.
  std::vector<uint64_t> expected(const std::vector<double> &av,
                                 const std::vector<double> &bv,
                                 const std::vector<double> &cv) const {
    const MmaInstruction &mi = *inst;
    std::vector<uint64_t> out(dCount());
    for (unsigned blk = 0; blk < mi.blocks; ++blk)
      for (unsigned i = 0; i < mi.m; ++i)
        for (unsigned j = 0; j < mi.n; ++j) {
          unsigned d = dIndex(blk, i, j);
          if (mi.acc == ScalarKind::I32) {
            int64_t sum = int64_t(cv[d]);
            for (unsigned k = 0; k < mi.k; ++k)
              sum += int64_t(av[aIndex(blk, i, k)]) *
                     int64_t(bv[bIndex(blk, k, j)]);
            out[d] = uint32_t(uint64_t(sum));
            continue;
          }
          double sum = cv[d];
          for (unsigned k = 0; k < mi.k; ++k)
            sum += av[aIndex(blk, i, k)] * bv[bIndex(blk, k, j)];
          out[d] = encode(mi.acc, sum);
        }
    return out;
  }
  std::vector<uint64_t> expected() const { return expected(a, b, c); }
};

struct KernelOptions {
  bool acd = true, vcd = true;
  /// Appended to the MFMA (" cbsz:4 abid:3", " blgp:2", " neg:[1,0,1]").
  std::string modifiers;
  /// Put A and B in AGPRs a[40:43], a[44:47] (gfx90a+).
  bool abInAgprs = false;
  std::string descriptorDirectives;
};

/// Output buffers: 1-2 for the acd form's D registers 0-15 and 16-31, 3-4
/// for the vcd form's.
constexpr unsigned kAcdBuffer = 1, kVcdBuffer = 3, kNumBuffers = 5;

std::string storeRegisters(unsigned firstVgpr, unsigned count,
                           unsigned buffer) {
  std::string body;
  for (unsigned r = 0; r < count; ++r) {
    unsigned sbase = 4 + 2 * (buffer + r / 16);
    body += formatv("  global_store_dword v2, v{0}, s[{1}:{2}] offset:{3}\n",
                    firstVgpr + r, sbase, sbase + 1, (r % 16) * 256);
  }
  return body;
}

/// Loads the input image (buffer 0) into A v[8:], B v[12:] and C v[32:].
std::string loadInputs(unsigned aRegs, unsigned bRegs, unsigned dRegs) {
  std::string body;
  unsigned dwords = kInC + dRegs;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    uint64_t mask = uint64_t(1) << lane;
    body += formatv("  s_mov_b32 exec_lo, {0:x}\n  s_mov_b32 exec_hi, {1:x}\n",
                    uint32_t(mask), uint32_t(mask >> 32));
    for (unsigned chunk = 0; chunk * 16 < dwords; ++chunk)
      body += formatv("  s_load_dwordx16 s[{0}:{1}], s[4:5], {2:x}\n",
                      16 + 16 * chunk, 31 + 16 * chunk,
                      (lane * kLaneStride + 16 * chunk) * 4);
    body += "  s_waitcnt lgkmcnt(0)\n";
    for (unsigned r = 0; r < aRegs; ++r)
      body += formatv("  v_mov_b32 v{0}, s{1}\n", kVA + r, 16 + kInA + r);
    for (unsigned r = 0; r < bRegs; ++r)
      body += formatv("  v_mov_b32 v{0}, s{1}\n", kVB + r, 16 + kInB + r);
    for (unsigned r = 0; r < dRegs; ++r)
      body += formatv("  v_mov_b32 v{0}, s{1}\n", kVC + r, 16 + kInC + r);
  }
  body += "  s_mov_b32 exec_lo, -1\n  s_mov_b32 exec_hi, -1\n";
  return body;
}

std::string buildBody(const MmaInstruction &inst, const KernelOptions &opts) {
  unsigned aRegs = mfma::getARegs(inst), bRegs = mfma::getBRegs(inst),
           dRegs = mfma::getDRegs(inst);
  std::string body = loadInputs(aRegs, bRegs, dRegs);
  body += "  v_and_b32_e32 v1, 0x3ff, v0\n  v_lshlrev_b32_e32 v2, 2, v1\n";
  std::string a = regs('v', kVA, aRegs), b = regs('v', kVB, bRegs);
  if (opts.abInAgprs) {
    for (unsigned r = 0; r < aRegs; ++r)
      body += formatv("  v_accvgpr_write_b32 a{0}, v{1}\n", 40 + r, kVA + r);
    for (unsigned r = 0; r < bRegs; ++r)
      body += formatv("  v_accvgpr_write_b32 a{0}, v{1}\n", 44 + r, kVB + r);
    a = regs('a', 40, aRegs);
    b = regs('a', 44, bRegs);
  }
  if (opts.acd) {
    for (unsigned r = 0; r < dRegs; ++r)
      body += formatv("  v_accvgpr_write_b32 a{0}, v{1}\n", r, kVC + r);
    std::string acc = regs('a', 0, dRegs);
    body += formatv("  {0} {1}, {2}, {3}, {1}{4}\n  s_nop 7\n  s_nop 7\n",
                    inst.mnemonic, acc, a, b, opts.modifiers);
    for (unsigned r = 0; r < dRegs; ++r)
      body += formatv("  v_accvgpr_read_b32 v{0}, a{1}\n", kVRead + r, r);
    body += storeRegisters(kVRead, dRegs, kAcdBuffer);
  }
  if (opts.vcd) {
    body += formatv("  {0} {1}, {2}, {3}, {4}{5}\n  s_nop 7\n  s_nop 7\n",
                    inst.mnemonic, regs('v', kVD, dRegs), a, b,
                    regs('v', kVC, dRegs), opts.modifiers);
    body += storeRegisters(kVD, dRegs, kVcdBuffer);
  }
  return body;
}

struct RunResult {
  /// D registers (32 x 64 dwords, register-major) of each form.
  std::vector<uint32_t> acd, vcd;
};

llvm::Expected<RunResult> runCase(const MfmaCase &mc,
                                  const KernelOptions &opts) {
  AsmKernel k;
  k.chip = mc.chip->name.str();
  k.numBuffers = kNumBuffers;
  k.body = buildBody(*mc.inst, opts);
  k.descriptorDirectives = opts.descriptorDirectives;
  auto kernel = LoadedKernel::build(k);
  if (!kernel)
    return kernel.takeError();
  std::vector<std::vector<uint8_t>> buffers(kNumBuffers);
  buffers[0] = toBytes(mc.packInputs());
  for (unsigned i = 1; i < kNumBuffers; ++i)
    buffers[i] = toBytes(std::vector<uint32_t>(16 * kLanes, 0xdeadbeef));
  auto result = (*kernel)->run(buffers);
  if (!result)
    return result.takeError();
  RunResult out;
  auto collect = [&](unsigned first) {
    std::vector<uint32_t> d = fromBytes<uint32_t>(buffers[first]);
    std::vector<uint32_t> hi = fromBytes<uint32_t>(buffers[first + 1]);
    d.insert(d.end(), hi.begin(), hi.end());
    return d;
  };
  if (opts.acd)
    out.acd = collect(kAcdBuffer);
  if (opts.vcd)
    out.vcd = collect(kVcdBuffer);
  return out;
}

/// D read back through the layout, one encoded value per element.
std::vector<uint64_t> readD(const MfmaCase &mc,
                            const std::vector<uint32_t> &regsOut) {
  const MmaInstruction &mi = *mc.inst;
  bool wide = getScalarKindBits(mi.acc) == 64;
  std::vector<uint64_t> out(mc.dCount());
  for (unsigned blk = 0; blk < mi.blocks; ++blk)
    for (unsigned i = 0; i < mi.m; ++i)
      for (unsigned j = 0; j < mi.n; ++j) {
        OracleSlot slot = mc.layout.d(blk, i, j);
        uint64_t v = regsOut[slot.vgpr * kLanes + slot.lane];
        if (wide)
          v |= uint64_t(regsOut[(slot.vgpr + 1) * kLanes + slot.lane]) << 32;
        out[mc.dIndex(blk, i, j)] = v;
      }
  return out;
}

void expectD(const MfmaCase &mc, const std::vector<uint32_t> &regsOut,
             const std::vector<uint64_t> &expected, const char *form) {
  std::vector<uint64_t> got = readD(mc, regsOut);
  const MmaInstruction &mi = *mc.inst;
  unsigned mismatches = 0;
  for (unsigned blk = 0; blk < mi.blocks; ++blk)
    for (unsigned i = 0; i < mi.m; ++i)
      for (unsigned j = 0; j < mi.n; ++j) {
        unsigned d = mc.dIndex(blk, i, j);
        if (got[d] == expected[d])
          continue;
        if (++mismatches <= 5)
          ADD_FAILURE() << form << " D[block " << blk << "][" << i << "][" << j
                        << "] = " << decode(mi.acc, got[d]) << " (0x"
                        << llvm::utohexstr(got[d]) << "), expected "
                        << decode(mi.acc, expected[d]) << " (0x"
                        << llvm::utohexstr(expected[d]) << ")";
      }
  EXPECT_EQ(mismatches, 0u) << form << ": elements differ";
}

//===----------------------------------------------------------------------===//
// Every MFMA of every CDNA chip
//===----------------------------------------------------------------------===//

struct InstructionParam {
  const ChipInfo *chip;
  const MmaInstruction *inst;
};

std::vector<InstructionParam> getAllMfmas() {
  std::vector<InstructionParam> params;
  for (const ChipInfo &chip : getAllChips())
    for (const MmaInstruction &inst : chip.mmaInstructions)
      if (isCdnaMfma(inst))
        params.push_back({&chip, &inst});
  return params;
}

void PrintTo(const InstructionParam &p, std::ostream *os) {
  *os << p.chip->name.str() << " " << p.inst->mnemonic.str();
}

class MfmaInstruction : public ::testing::TestWithParam<InstructionParam> {};

TEST_P(MfmaInstruction, ComputesAxBplusCInCalculatorLayout) {
  const ChipInfo &chip = *GetParam().chip;
  const MmaInstruction &inst = *GetParam().inst;
  std::string why;
  std::optional<Layout> layout = getLayout(chip, inst, why);
  if (!layout)
    GTEST_SKIP() << why;
  MfmaCase mc{&chip, &inst, *layout, {}, {}, {}};
  mc.randomize(uint32_t(
      std::hash<std::string>()(chip.name.str() + inst.mnemonic.str())));
  KernelOptions opts;
  opts.vcd = chip.mmaAccInArchVgprs;
  auto result = runCase(mc, opts);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  std::vector<uint64_t> expected = mc.expected();
  expectD(mc, result->acd, expected, "acd");
  if (opts.vcd)
    expectD(mc, result->vcd, expected, "vcd");
  if (!layout->fromCalculator)
    std::printf("[ info ] %s %s: no calculator data, placed with the "
                "emulator's closed-form layout\n",
                chip.name.str().c_str(), inst.mnemonic.str().c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Mfma, MfmaInstruction, ::testing::ValuesIn(getAllMfmas()),
    [](const ::testing::TestParamInfo<InstructionParam> &info) {
      return (info.param.chip->name + "_" + info.param.inst->mnemonic).str();
    });

//===----------------------------------------------------------------------===//
// Modifiers
//===----------------------------------------------------------------------===//

const MmaInstruction &getMfma(llvm::StringRef chip, llvm::StringRef mnemonic) {
  const ChipInfo *info = lookupChip(chip);
  const MmaInstruction *inst = info ? info->lookupMma(mnemonic) : nullptr;
  if (!inst)
    llvm::report_fatal_error("no " + mnemonic + " on " + chip);
  return *inst;
}

/// A random case for `mnemonic` on `chip`, laid out by the calculator.
std::optional<MfmaCase> makeCase(llvm::StringRef chip, llvm::StringRef mnemonic,
                                 std::string &why, uint32_t seed = 1) {
  const ChipInfo *info = lookupChip(chip);
  const MmaInstruction &inst = getMfma(chip, mnemonic);
  std::optional<Layout> layout = getLayout(*info, inst, why);
  if (!layout)
    return std::nullopt;
  MfmaCase mc{info, &inst, *layout, {}, {}, {}};
  mc.randomize(seed);
  return mc;
}

#define MAKE_CASE_OR_SKIP(var, chip, mnemonic)                                 \
  std::string var##Why;                                                        \
  std::optional<MfmaCase> var##Opt = makeCase(chip, mnemonic, var##Why);       \
  if (!var##Opt)                                                               \
    GTEST_SKIP() << var##Why;                                                  \
  MfmaCase &var = *var##Opt

/// CBSZ = log2(blocks): every block reads A from block ABID.
TEST(MfmaModifiers, CbszFullBroadcastReadsBlockAbid) {
  struct Case {
    const char *chip, *mnemonic;
    unsigned cbsz, abid;
  } cases[] = {
      {"gfx942", "v_mfma_f32_4x4x1_16b_f32", 4, 11},
      {"gfx942", "v_mfma_f32_32x32x1_2b_f32", 1, 1},
      {"gfx90a", "v_mfma_f32_16x16x4f16", 2, 3},
      {"gfx90a", "v_mfma_i32_4x4x4i8", 4, 2},
      {"gfx908", "v_mfma_f32_4x4x2bf16", 4, 15},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.chip) + " " + c.mnemonic);
    MAKE_CASE_OR_SKIP(mc, c.chip, c.mnemonic);
    KernelOptions opts;
    opts.vcd = mc.chip->mmaAccInArchVgprs;
    opts.modifiers = formatv(" cbsz:{0} abid:{1}", c.cbsz, c.abid).str();
    auto result = runCase(mc, opts);
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    // The README's rule: block b reads block floor(b / 2^CBSZ) * 2^CBSZ +
    // ABID, which is ABID for a full broadcast.
    std::vector<double> a = mc.a;
    const MmaInstruction &mi = *mc.inst;
    unsigned group = 1u << c.cbsz;
    for (unsigned blk = 0; blk < mi.blocks; ++blk)
      for (unsigned i = 0; i < mi.m; ++i)
        for (unsigned k = 0; k < mi.k; ++k)
          a[mc.aIndex(blk, i, k)] =
              mc.a[mc.aIndex(blk / group * group + c.abid, i, k)];
    std::vector<uint64_t> expected = mc.expected(a, mc.b, mc.c);
    expectD(mc, result->acd, expected, "acd");
    if (opts.vcd)
      expectD(mc, result->vcd, expected, "vcd");
  }
}

void expectFailure(const MfmaCase &mc, const KernelOptions &opts,
                   llvm::StringRef message) {
  auto result = runCase(mc, opts);
  ASSERT_FALSE(bool(result))
      << "expected a failure mentioning '" << message.str() << "'";
  std::string text = llvm::toString(result.takeError());
  EXPECT_NE(text.find(message.str()), std::string::npos) << text;
}

TEST(MfmaModifiers, UnsupportedBroadcastsFail) {
  KernelOptions opts;
  opts.vcd = false;
  {
    MAKE_CASE_OR_SKIP(mc, "gfx942", "v_mfma_f32_4x4x1_16b_f32");
    opts.modifiers = " cbsz:1 abid:1";
    expectFailure(mc, opts, "partial A broadcast (CBSZ=1 of 16 blocks)");
    opts.modifiers = " cbsz:2 abid:4";
    expectFailure(mc, opts, "CBSZ=2 ABID=4 is illegal for 16 blocks");
  }
  {
    MAKE_CASE_OR_SKIP(mc, "gfx942", "v_mfma_f32_32x32x1_2b_f32");
    opts.modifiers = " cbsz:2 abid:0";
    expectFailure(mc, opts, "CBSZ=2 ABID=0 is illegal for 2 blocks");
  }
  {
    MAKE_CASE_OR_SKIP(mc, "gfx90a", "v_mfma_f32_32x32x8f16");
    opts.modifiers = " cbsz:1 abid:0";
    expectFailure(mc, opts, "has no A-block broadcast");
    opts.modifiers = " abid:1";
    expectFailure(mc, opts, "has no A-block broadcast");
  }
}

/// BLGP lane patterns: the B value the layout puts in lane L comes from
/// lane blgp_source_lane[BLGP][L] of the calculator's table.
TEST(MfmaModifiers, BlgpLanePatternsFollowCalculatorTable) {
  struct Case {
    const char *chip, *mnemonic;
  } cases[] = {
      {"gfx90a", "v_mfma_f32_32x32x8f16"},
      {"gfx90a", "v_mfma_f32_16x16x4bf16_1k"},
      {"gfx942", "v_mfma_f32_4x4x4_16b_f16"},
      {"gfx942", "v_mfma_f32_16x16x4_f32"},
      {"gfx942", "v_mfma_i32_32x32x4_2b_i8"},
      {"gfx908", "v_mfma_f32_32x32x4bf16"},
  };
  for (const Case &c : cases) {
    MAKE_CASE_OR_SKIP(mc, c.chip, c.mnemonic);
    std::string why;
    const OracleFile *oracle = loadOracle(*mc.chip, why);
    ASSERT_NE(oracle, nullptr) << why;
    std::vector<uint32_t> image = mc.packInputs();
    for (unsigned blgp = 1; blgp < 8; ++blgp) {
      SCOPED_TRACE(formatv("{0} {1} blgp:{2}", c.chip, c.mnemonic, blgp).str());
      KernelOptions opts;
      opts.vcd = mc.chip->mmaAccInArchVgprs;
      opts.modifiers = formatv(" blgp:{0}", blgp).str();
      auto result = runCase(mc, opts);
      ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
      const MmaInstruction &mi = *mc.inst;
      unsigned bits = getScalarKindBits(mi.rhs);
      std::vector<double> b = mc.b;
      for (unsigned blk = 0; blk < mi.blocks; ++blk)
        for (unsigned k = 0; k < mi.k; ++k)
          for (unsigned j = 0; j < mi.n; ++j) {
            OracleSlot slot = mc.layout.b(blk, k, j);
            unsigned lane = oracle->blgpSourceLane[blgp][slot.lane];
            uint32_t word = image[lane * kLaneStride + kInB + slot.vgpr];
            uint64_t raw = (word >> slot.lo) & ((uint64_t(1) << bits) - 1);
            b[mc.bIndex(blk, k, j)] = decode(mi.rhs, raw);
          }
      std::vector<uint64_t> expected = mc.expected(mc.a, b, mc.c);
      expectD(mc, result->acd, expected, "acd");
      if (opts.vcd)
        expectD(mc, result->vcd, expected, "vcd");
    }
  }
}

TEST(MfmaModifiers, BlgpIsRejectedWhereUnsupported) {
  KernelOptions opts;
  opts.vcd = false;
  opts.modifiers = " blgp:1";
  {
    MAKE_CASE_OR_SKIP(mc, "gfx942", "v_mfma_f32_32x32x8_f16");
    expectFailure(mc, opts, "BLGP must be 0");
  }
  {
    MAKE_CASE_OR_SKIP(mc, "gfx90a", "v_mfma_f64_16x16x4f64");
    expectFailure(mc, opts, "BLGP must be 0");
  }
}

/// CDNA3 f64 MFMAs read BLGP as negate bits for A, B and C.
TEST(MfmaModifiers, F64NegateOnGfx942) {
  for (const char *mnemonic :
       {"v_mfma_f64_16x16x4_f64", "v_mfma_f64_4x4x4_4b_f64"}) {
    MAKE_CASE_OR_SKIP(mc, "gfx942", mnemonic);
    for (unsigned neg = 1; neg < 8; ++neg) {
      SCOPED_TRACE(formatv("{0} neg {1}", mnemonic, neg).str());
      KernelOptions opts;
      opts.modifiers =
          formatv(" neg:[{0},{1},{2}]", neg & 1, (neg >> 1) & 1, (neg >> 2) & 1)
              .str();
      auto result = runCase(mc, opts);
      ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
      auto flip = [](std::vector<double> v, bool on) {
        if (on)
          for (double &x : v)
            x = -x;
        return v;
      };
      std::vector<uint64_t> expected = mc.expected(
          flip(mc.a, neg & 1), flip(mc.b, neg & 2), flip(mc.c, neg & 4));
      expectD(mc, result->acd, expected, "acd");
      expectD(mc, result->vcd, expected, "vcd");
    }
  }
}

/// A and B may come from AGPRs on gfx90a and later.
TEST(MfmaModifiers, AAndBInAgprs) {
  struct Case {
    const char *chip, *mnemonic;
  } cases[] = {{"gfx90a", "v_mfma_f32_32x32x8f16"},
               {"gfx942", "v_mfma_f64_4x4x4_4b_f64"},
               {"gfx942", "v_mfma_i32_16x16x32_i8"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.chip) + " " + c.mnemonic);
    MAKE_CASE_OR_SKIP(mc, c.chip, c.mnemonic);
    KernelOptions opts;
    opts.abInAgprs = true;
    auto result = runCase(mc, opts);
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    std::vector<uint64_t> expected = mc.expected();
    expectD(mc, result->acd, expected, "acd");
    expectD(mc, result->vcd, expected, "vcd");
  }
}

//===----------------------------------------------------------------------===//
// Uniform-data kernels: every lane holds the same operand dwords
//===----------------------------------------------------------------------===//

struct UniformMfma {
  std::string chip, mnemonic;
  uint32_t aWord = 0, bWord = 0;
  /// Every C dword (with f64: the low and high dwords of every element), or
  /// an inline-constant C operand when cInline is not empty.
  uint32_t cWord = 0, cHigh = 0;
  std::string cInline;
  std::string before, after; ///< Around the MFMA (e.g. EXEC changes).
  std::string descriptorDirectives;
  bool f64 = false;
};

/// Runs one MFMA in its acd form on uniform operands; returns the D dwords
/// (register-major, 64 lanes each).
llvm::Expected<std::vector<uint32_t>> runUniform(const UniformMfma &u) {
  const MmaInstruction &inst = getMfma(u.chip, u.mnemonic);
  unsigned aRegs = mfma::getARegs(inst), bRegs = mfma::getBRegs(inst),
           dRegs = mfma::getDRegs(inst);
  std::string body;
  for (unsigned r = 0; r < aRegs; ++r)
    body += formatv("  v_mov_b32 v{0}, {1:x}\n", kVA + r, u.aWord);
  for (unsigned r = 0; r < bRegs; ++r)
    body += formatv("  v_mov_b32 v{0}, {1:x}\n", kVB + r, u.bWord);
  for (unsigned r = 0; r < dRegs; ++r) {
    uint32_t word = (u.f64 && r % 2) ? u.cHigh : u.cWord;
    body += formatv("  v_mov_b32 v{0}, {1:x}\n", kVC + r, word);
    body += formatv("  v_accvgpr_write_b32 a{0}, v{1}\n", r, kVC + r);
  }
  body += "  v_and_b32_e32 v1, 0x3ff, v0\n  v_lshlrev_b32_e32 v2, 2, v1\n";
  std::string acc = regs('a', 0, dRegs);
  body += u.before;
  body += formatv("  {0} {1}, {2}, {3}, {4}\n", u.mnemonic, acc,
                  regs('v', kVA, aRegs), regs('v', kVB, bRegs),
                  u.cInline.empty() ? acc : u.cInline);
  body += u.after;
  for (unsigned r = 0; r < dRegs; ++r)
    body += formatv("  v_accvgpr_read_b32 v{0}, a{1}\n", kVRead + r, r);
  body += storeRegisters(kVRead, dRegs, 0);
  AsmKernel k;
  k.chip = u.chip;
  k.numBuffers = 2;
  k.body = body;
  k.descriptorDirectives = u.descriptorDirectives;
  auto kernel = LoadedKernel::build(k);
  if (!kernel)
    return kernel.takeError();
  std::vector<std::vector<uint8_t>> buffers = {
      toBytes(std::vector<uint32_t>(16 * kLanes, 0xdeadbeef)),
      toBytes(std::vector<uint32_t>(16 * kLanes, 0xdeadbeef))};
  auto result = (*kernel)->run(buffers);
  if (!result)
    return result.takeError();
  std::vector<uint32_t> out = fromBytes<uint32_t>(buffers[0]);
  std::vector<uint32_t> hi = fromBytes<uint32_t>(buffers[1]);
  out.insert(out.end(), hi.begin(), hi.end());
  out.resize(dRegs * kLanes);
  return out;
}

/// Expects every D dword to be `word` (for f64, alternating low/high).
void expectUniform(const std::vector<uint32_t> &d, uint32_t word,
                   uint32_t high = 0, bool f64 = false) {
  unsigned bad = 0;
  for (size_t e = 0; e < d.size(); ++e) {
    uint32_t want = (f64 && (e / kLanes) % 2) ? high : word;
    if (d[e] != want && ++bad <= 3)
      ADD_FAILURE() << "register " << e / kLanes << " lane " << e % kLanes
                    << ": 0x" << llvm::utohexstr(d[e]) << ", expected 0x"
                    << llvm::utohexstr(want);
  }
  EXPECT_EQ(bad, 0u);
}

uint32_t f32(float v) { return llvm::bit_cast<uint32_t>(v); }

#define RUN_UNIFORM(var, ...)                                                  \
  auto var##Result = runUniform(__VA_ARGS__);                                  \
  ASSERT_TRUE(bool(var##Result)) << llvm::toString(var##Result.takeError());   \
  const std::vector<uint32_t> &var = *var##Result

/// MFMA ignores EXEC: all 64 lanes are read and written.
TEST(MfmaExec, MfmaIgnoresExec) {
  for (const char *exec : {"1", "0"}) {
    SCOPED_TRACE(std::string("EXEC=") + exec);
    UniformMfma u;
    u.chip = "gfx942";
    u.mnemonic = "v_mfma_f32_16x16x4_f32";
    u.aWord = f32(1.5f);
    u.bWord = f32(2.0f);
    u.cWord = f32(3.0f);
    u.before =
        formatv("  s_mov_b32 exec_lo, {0}\n  s_mov_b32 exec_hi, 0\n", exec)
            .str();
    u.after = "  s_mov_b32 exec_lo, -1\n  s_mov_b32 exec_hi, -1\n";
    RUN_UNIFORM(d, u);
    expectUniform(d, f32(3.0f + 4 * 1.5f * 2.0f));
  }
}

TEST(MfmaNumerics, InlineConstantC) {
  UniformMfma u;
  u.chip = "gfx90a";
  u.mnemonic = "v_mfma_f32_32x32x8f16";
  u.aWord = 0x40003c00; // halves 1.0, 2.0
  u.bWord = 0x3c003c00; // 1.0, 1.0
  u.cInline = "1.0";
  RUN_UNIFORM(d, u);
  expectUniform(d, f32(1.0f + 2 * (1.0f + 2.0f) * 2)); // K = 8: 4 pairs
  u.cInline = "0";
  RUN_UNIFORM(d0, u);
  expectUniform(d0, f32(12.0f));

  UniformMfma f;
  f.chip = "gfx942";
  f.mnemonic = "v_mfma_f64_4x4x4_4b_f64";
  f.f64 = true;
  // Every dword of A and B is 0x40000000: each f64 element is
  // 0x4000000040000000 (2.0000004768...), so the products are inexact and
  // the result shows the fused, k-ordered accumulation.
  f.aWord = f.bWord = 0x40000000;
  f.cInline = "-1.0";
  RUN_UNIFORM(fd, f);
  double ab = llvm::bit_cast<double>(0x4000000040000000ull);
  uint64_t want = llvm::bit_cast<uint64_t>(std::fma(
      ab, ab, std::fma(ab, ab, std::fma(ab, ab, std::fma(ab, ab, -1.0)))));
  expectUniform(fd, uint32_t(want), uint32_t(want >> 32), /*f64=*/true);
}

TEST(MfmaNumerics, I8AccumulationWrapsAround) {
  UniformMfma u;
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_i32_4x4x4_16b_i8";
  u.aWord = 0x01010101;
  u.bWord = 0xffffff7f; // 127, -1, -1, -1 (one byte per k)
  u.cWord = 0x7ffffff0;
  RUN_UNIFORM(d, u);
  expectUniform(d, uint32_t(0x7ffffff0u + uint32_t(127 - 3)));
  u.aWord = 0x80808080; // -128 each
  u.bWord = 0x80808080;
  u.cWord = 0x7fffffff;
  RUN_UNIFORM(d2, u);
  expectUniform(d2, uint32_t(0x7fffffffu + 4u * 16384u));
}

TEST(MfmaNumerics, Xf32RoundsInputsToTenBitMantissa) {
  UniformMfma u;
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_f32_16x16x8_xf32";
  u.aWord = f32(1.0f + 0x1p-11f + 0x1p-20f); // rounds up to 1 + 2^-10
  u.bWord = f32(1.0f + 0x1p-12f);            // rounds down to 1
  u.cWord = f32(0.0f);
  RUN_UNIFORM(d, u);
  expectUniform(d, f32(8 * (1.0f + 0x1p-10f)));
}

TEST(MfmaNumerics, F16DenormalsKeptOnGfx942FlushedOnGfx90a) {
  UniformMfma u;
  u.aWord = 0x00010001; // smallest f16 subnormal, 2^-24
  u.bWord = 0x3c003c00; // 1.0
  u.cWord = f32(0.0f);
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_f32_4x4x4_16b_f16";
  RUN_UNIFORM(kept, u);
  expectUniform(kept, f32(4 * 0x1p-24f));
  u.chip = "gfx90a";
  u.mnemonic = "v_mfma_f32_4x4x4f16";
  RUN_UNIFORM(flushed, u);
  expectUniform(flushed, f32(0.0f));
  // bf16: the output flushes too on gfx90a (C is a denormal, A * B = 0).
  u.mnemonic = "v_mfma_f32_4x4x4bf16_1k";
  u.aWord = 0;
  u.cWord = 0x00000010;
  RUN_UNIFORM(out, u);
  expectUniform(out, 0);
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_f32_4x4x4_16b_bf16";
  RUN_UNIFORM(outKept, u);
  expectUniform(outKept, 0x00000010);
}

TEST(MfmaNumerics, F32InputDenormalsFollowMode) {
  UniformMfma u;
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_f32_4x4x1_16b_f32";
  u.aWord = f32(0x1p-130f); // an f32 subnormal
  u.bWord = f32(0x1p10f);
  u.cWord = f32(0.0f);
  u.descriptorDirectives = ".amdhsa_float_denorm_mode_32 3";
  RUN_UNIFORM(kept, u);
  expectUniform(kept, f32(0x1p-120f));
  u.descriptorDirectives = ".amdhsa_float_denorm_mode_32 0";
  RUN_UNIFORM(flushed, u);
  expectUniform(flushed, f32(0.0f));
  // C and D keep denormals whatever MODE says.
  u.aWord = 0;
  u.cWord = 0x00000123;
  RUN_UNIFORM(c, u);
  expectUniform(c, 0x00000123);
}

TEST(MfmaNumerics, Fp8SpecialValues) {
  UniformMfma u;
  u.chip = "gfx942";
  u.mnemonic = "v_mfma_f32_16x16x32_fp8_fp8";
  u.cWord = f32(0.0f);
  u.aWord = 0x80808080; // FNUZ NaN
  u.bWord = 0x40404040; // FNUZ E4M3 1.0
  RUN_UNIFORM(nan, u);
  expectUniform(nan, 0x7fc00000);
  u.aWord = 0x7f7f7f7f; // FNUZ E4M3 max, 240
  RUN_UNIFORM(max, u);
  expectUniform(max, f32(32 * 240.0f));
  // bf8 x fp8 on gfx942 (FNUZ): 0x7c is 32768 (no infinity).
  u.mnemonic = "v_mfma_f32_16x16x32_bf8_fp8";
  u.aWord = 0x7c7c7c7c;
  RUN_UNIFORM(big, u);
  expectUniform(big, f32(32 * 32768.0f));

  // gfx950 reads OCP: E4M3FN 0x7f is NaN, 0x7e is 448, 1.0 is 0x38.
  u.chip = "gfx950";
  u.mnemonic = "v_mfma_f32_16x16x32_fp8_fp8";
  u.aWord = 0x7e7e7e7e;
  u.bWord = 0x38383838;
  RUN_UNIFORM(ocpMax, u);
  expectUniform(ocpMax, f32(32 * 448.0f));
  u.aWord = 0x7f7f7f7f;
  RUN_UNIFORM(ocpNan, u);
  expectUniform(ocpNan, 0x7fc00000);
  // bf8 E5M2 0x7c is +infinity.
  u.mnemonic = "v_mfma_f32_16x16x32_bf8_fp8";
  u.aWord = 0x7c7c7c7c;
  RUN_UNIFORM(inf, u);
  expectUniform(inf, 0x7f800000);
}

//===----------------------------------------------------------------------===//
// v_accvgpr_read/write/mov_b32
//===----------------------------------------------------------------------===//

void testAccvgprMoves(const std::string &chip, bool sgprSource, bool mov) {
  SCOPED_TRACE(chip);
  std::string body = R"(
  v_and_b32_e32 v1, 0x3ff, v0
  v_lshlrev_b32_e32 v2, 2, v1
  v_mov_b32_e32 v3, 0x12345678
  v_mov_b32_e32 v5, 0
)";
  body += "  v_accvgpr_write_b32 a0, v1\n";
  body += sgprSource ? "  s_mov_b32 s20, 0x12345678\n"
                       "  v_accvgpr_write_b32 a1, s20\n"
                     : "  v_accvgpr_write_b32 a1, v3\n";
  body += "  v_accvgpr_write_b32 a2, 1.0\n  v_accvgpr_write_b32 a3, -2\n";
  body += mov ? "  v_accvgpr_mov_b32 a4, a0\n"
              : "  v_accvgpr_read_b32 v4, a0\n"
                "  v_accvgpr_write_b32 a4, v4\n";
  // Partial EXEC: only lanes 0-15 and 48-63 change.
  body += "  s_mov_b32 exec_lo, 0xffff\n  s_mov_b32 exec_hi, 0xffff0000\n";
  body += sgprSource ? "  v_accvgpr_write_b32 a0, s20\n"
                     : "  v_accvgpr_write_b32 a0, v3\n";
  body += "  v_accvgpr_read_b32 v5, a2\n";
  body += mov ? "  v_accvgpr_mov_b32 a3, a1\n" : "";
  body += "  s_mov_b32 exec_lo, -1\n  s_mov_b32 exec_hi, -1\n";
  for (unsigned r = 0; r < 5; ++r)
    body += formatv("  v_accvgpr_read_b32 v{0}, a{1}\n", 10 + r, r);
  body += storeRegisters(10, 5, 0);
  body += "  global_store_dword v2, v5, s[4:5] offset:1280\n";
  AsmKernel k;
  k.chip = chip;
  k.body = body;
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<std::vector<uint8_t>> buffers = {
      toBytes(std::vector<uint32_t>(6 * kLanes, 0xdeadbeef))};
  auto result = (*kernel)->run(buffers);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  std::vector<uint32_t> out = fromBytes<uint32_t>(buffers[0]);
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    bool active = lane < 16 || lane >= 48;
    EXPECT_EQ(out[0 * kLanes + lane], active ? 0x12345678u : lane) << lane;
    EXPECT_EQ(out[1 * kLanes + lane], 0x12345678u) << lane;
    EXPECT_EQ(out[2 * kLanes + lane], 0x3f800000u) << lane;
    EXPECT_EQ(out[3 * kLanes + lane], mov && active ? 0x12345678u : 0xfffffffeu)
        << lane;
    EXPECT_EQ(out[4 * kLanes + lane], lane) << lane;
    // v5 was written under the partial EXEC only.
    EXPECT_EQ(out[5 * kLanes + lane], active ? 0x3f800000u : 0u) << lane;
  }
}

TEST(MfmaAccvgpr, ReadWriteMove) {
  testAccvgprMoves("gfx908", /*sgprSource=*/false, /*mov=*/false);
  testAccvgprMoves("gfx90a", /*sgprSource=*/true, /*mov=*/true);
  testAccvgprMoves("gfx942", /*sgprSource=*/true, /*mov=*/true);
}

//===----------------------------------------------------------------------===//
// Speed
//===----------------------------------------------------------------------===//

/// 131072 v_mfma_f32_32x32x8_f16 (the count of a 1024^3 f16 GEMM): 16
/// workgroups of 4 waves, 2048 MFMAs each.
TEST(MfmaSpeed, F16Gemm1024Cubed) {
  constexpr unsigned kPerWave = 2048;
  std::string body = R"(
  v_mov_b32_e32 v8, 0x3c003800
  v_mov_b32_e32 v9, 0x34003000
  v_mov_b32_e32 v12, 0x3c00bc00
  v_mov_b32_e32 v13, 0x38003400
)";
  for (unsigned r = 0; r < 16; ++r)
    body += formatv("  v_accvgpr_write_b32 a{0}, 0\n", r);
  for (unsigned i = 0; i < kPerWave; ++i)
    body += "  v_mfma_f32_32x32x8_f16 a[0:15], v[8:9], v[12:13], a[0:15]\n";
  body += R"(
  v_and_b32_e32 v1, 0x3ff, v0
  v_lshlrev_b32_e32 v2, 2, v1
  v_accvgpr_read_b32 v3, a0
  global_store_dword v2, v3, s[4:5]
)";
  AsmKernel k;
  k.chip = "gfx942";
  k.body = body;
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<std::vector<uint8_t>> buffers = {
      toBytes(std::vector<uint32_t>(256, 0))};
  LaunchConfig config;
  config.grid = {16, 1, 1};
  config.block = {256, 1, 1};
  config.detectRaces = false;
  auto start = std::chrono::steady_clock::now();
  std::clock_t cpuStart = std::clock();
  auto result = (*kernel)->run(buffers, config);
  double cpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  uint64_t mfmas = uint64_t(16) * 4 * kPerWave;
  EXPECT_EQ(result->mfmaInstructions, mfmas);
  // Each MFMA adds the same dot product to every element of D: A's k
  // values are (0.5, 1, 0.125, 0.25) twice, B's (-1, 1, 0.25, 0.5) twice.
  float perMfma =
      2 * (0.5f * -1.0f + 1.0f * 1.0f + 0.125f * 0.25f + 0.25f * 0.5f);
  std::vector<uint32_t> out = fromBytes<uint32_t>(buffers[0]);
  EXPECT_EQ(llvm::bit_cast<float>(out[0]), perMfma * kPerWave);
  std::printf("[ info ] %llu v_mfma_f32_32x32x8_f16 in %.3f s (%.3f s of "
              "CPU): %.0f ns each\n",
              static_cast<unsigned long long>(mfmas), seconds, cpuSeconds,
              cpuSeconds * 1e9 / double(mfmas));
  EXPECT_LT(seconds, 20.0) << "a 1024^3 f16 GEMM's MFMAs must emulate in "
                              "seconds";
}

} // namespace
