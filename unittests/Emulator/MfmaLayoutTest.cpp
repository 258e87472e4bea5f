//===- MfmaLayoutTest.cpp - MFMA layouts, keys and number formats ---------===//
//
// Checks, without running kernels: the emulator's closed-form CDNA MFMA
// layouts against the calculator data for every element of every MFMA of
// gfx908, gfx90a and gfx942; the chip table's BLGP/CBSZ facts against the
// calculator's properties; that every chip-table MFMA has a handler key;
// and the f16/bf16/fp8 decoders and xf32 rounding against LLVM's APFloat
// and known values.
//
//===----------------------------------------------------------------------===//

#include "ops/MfmaLayout.h"
#include "MfmaOracle.h"
#include "ops/MfmaOps.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace crest;
using namespace crest::emu;
using namespace crest::emu::test;

namespace {

bool isCdnaMfma(const MmaInstruction &inst) {
  return inst.kind == MmaKind::MFMA && inst.layout == MmaLayoutFamily::CdnaMfma;
}

//===----------------------------------------------------------------------===//
// Layouts against the calculator
//===----------------------------------------------------------------------===//

class MfmaCalculatorLayout : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    chip = lookupChip(GetParam());
    ASSERT_NE(chip, nullptr);
    std::string why;
    oracle = loadOracle(*chip, why);
    if (!oracle)
      GTEST_SKIP() << why;
  }

  const ChipInfo *chip = nullptr;
  const OracleFile *oracle = nullptr;
};

void expectSlot(const OracleSlot &slot, const mfma::ElementLoc &loc,
                unsigned bits, const char *matrix, unsigned b, unsigned x,
                unsigned y, unsigned &mismatches) {
  if (slot.vgpr == loc.reg && slot.lane == loc.lane && slot.lo == loc.bit &&
      slot.hi == loc.bit + bits - 1)
    return;
  if (++mismatches <= 5)
    ADD_FAILURE() << matrix << "[block " << b << "][" << x << "][" << y
                  << "]: calculator v" << slot.vgpr << " lane " << slot.lane
                  << " bits " << slot.lo << ".." << slot.hi << ", closed form v"
                  << loc.reg << " lane " << loc.lane << " bit " << loc.bit;
}

TEST_P(MfmaCalculatorLayout, ClosedFormMatchesEveryElement) {

  unsigned instructions = 0;
  uint64_t elements = 0;
  for (const MmaInstruction &inst : chip->mmaInstructions) {
    if (!isCdnaMfma(inst))
      continue;
    SCOPED_TRACE(inst.mnemonic.str());
    auto it = oracle->instructions.find(inst.mnemonic.str());
    ASSERT_NE(it, oracle->instructions.end())
        << inst.mnemonic.str() << " is not in " << oracle->path;
    const OracleInstruction &o = it->second;
    ASSERT_EQ(o.m, inst.m);
    ASSERT_EQ(o.n, inst.n);
    ASSERT_EQ(o.k, inst.k);
    ASSERT_EQ(o.blocks, inst.blocks);
    unsigned aBits = getScalarKindBits(inst.lhs);
    unsigned bBits = getScalarKindBits(inst.rhs);
    unsigned dBits = getScalarKindBits(inst.acc);
    EXPECT_EQ(o.a.vgprsUsed, mfma::getARegs(inst));
    EXPECT_EQ(o.b.vgprsUsed, mfma::getBRegs(inst));
    EXPECT_EQ(o.d.vgprsUsed, mfma::getDRegs(inst));
    EXPECT_EQ(o.a.elementBits, aBits);
    EXPECT_EQ(o.b.elementBits, bBits);
    EXPECT_EQ(o.d.elementBits, dBits);

    unsigned mismatches = 0;
    for (unsigned b = 0; b < inst.blocks; ++b) {
      for (unsigned i = 0; i < inst.m; ++i)
        for (unsigned k = 0; k < inst.k; ++k)
          expectSlot(o.a.at(b, i, k), mfma::getALoc(inst, b, i, k), aBits, "A",
                     b, i, k, mismatches);
      for (unsigned k = 0; k < inst.k; ++k)
        for (unsigned j = 0; j < inst.n; ++j)
          expectSlot(o.b.at(b, k, j), mfma::getBLoc(inst, b, k, j), bBits, "B",
                     b, k, j, mismatches);
      for (unsigned i = 0; i < inst.m; ++i)
        for (unsigned j = 0; j < inst.n; ++j) {
          expectSlot(o.c.at(b, i, j), mfma::getDLoc(inst, b, i, j), dBits, "C",
                     b, i, j, mismatches);
          expectSlot(o.d.at(b, i, j), mfma::getDLoc(inst, b, i, j), dBits, "D",
                     b, i, j, mismatches);
        }
    }
    EXPECT_EQ(mismatches, 0u);
    elements += o.a.slots.size() + o.b.slots.size() + o.c.slots.size() +
                o.d.slots.size();

    // Modifier facts: the table's BLGP meaning and the CBSZ/ABID rule.
    EXPECT_EQ(o.cbszAbid, mfma::hasABroadcast(inst));
    if (!o.blgp)
      EXPECT_EQ(inst.blgp, MfmaBlgp::Unsupported);
    else if (inst.acc == ScalarKind::F64)
      EXPECT_EQ(inst.blgp, MfmaBlgp::Negate);
    else
      EXPECT_EQ(inst.blgp, MfmaBlgp::LanePattern);
    ++instructions;
  }
  EXPECT_GT(instructions, 0u);
  std::printf("[ info ] %s: %u MFMAs, %llu element positions match %s\n",
              chip->name.str().c_str(), instructions,
              static_cast<unsigned long long>(elements), oracle->path.c_str());
}

// The inverse the compiler's fragment code uses (lane -> elements; single
// block forms, as codegen generates): every element each lane claims is
// where the calculator puts it, so the lanes together cover every element.
TEST_P(MfmaCalculatorLayout, LaneInverseMatchesCalculator) {
  unsigned checked = 0;
  for (const MmaInstruction &inst : chip->mmaInstructions) {
    if (!isCdnaMfma(inst) || inst.blocks != 1)
      continue;
    SCOPED_TRACE(inst.mnemonic.str());
    const OracleInstruction &o = oracle->instructions.at(inst.mnemonic.str());
    mma::InputLayout a = mma::getALayout(inst), b = mma::getBLayout(inst);
    mma::AccLayout d = mma::getDLayout(inst);
    unsigned mismatches = 0;
    for (unsigned lane = 0; lane < mma::kMfmaWaveSize; ++lane) {
      for (unsigned e = 0; e < a.perLane; ++e) {
        const OracleSlot &slot = o.a.at(0, a.getX(lane), a.getFirstK(lane) + e);
        mismatches += slot.lane != lane || slot.vgpr != e * a.bits / 32 ||
                      slot.lo != e * a.bits % 32;
        const OracleSlot &bSlot =
            o.b.at(0, b.getFirstK(lane) + e, b.getX(lane));
        mismatches += bSlot.lane != lane || bSlot.vgpr != e * b.bits / 32 ||
                      bSlot.lo != e * b.bits % 32;
      }
      for (unsigned e = 0; e < d.elementsPerLane; ++e) {
        const OracleSlot &slot =
            o.d.at(0, d.getRow(lane, e), d.getColumn(lane));
        mismatches += slot.lane != lane || slot.vgpr != e * d.bits / 32;
      }
    }
    EXPECT_EQ(mismatches, 0u);
    ++checked;
  }
  EXPECT_GT(checked, 3u);
}

TEST_P(MfmaCalculatorLayout, BlgpLaneTableMatches) {
  for (unsigned blgp = 0; blgp < 8; ++blgp)
    for (unsigned lane = 0; lane < 64; ++lane)
      EXPECT_EQ(mfma::getBlgpSourceLane(blgp, lane),
                oracle->blgpSourceLane[blgp][lane])
          << "BLGP " << blgp << " lane " << lane;
}

INSTANTIATE_TEST_SUITE_P(Mfma, MfmaCalculatorLayout,
                         ::testing::Values("gfx908", "gfx90a", "gfx942"),
                         [](const auto &info) {
                           return std::string(info.param);
                         });

//===----------------------------------------------------------------------===//
// Handler keys
//===----------------------------------------------------------------------===//

TEST(MfmaHandlerKeys, EveryTableMfmaHasAKey) {
  unsigned count = 0;
  for (const ChipInfo &chip : getAllChips())
    for (const MmaInstruction &inst : chip.mmaInstructions) {
      if (!isCdnaMfma(inst))
        continue;
      EXPECT_FALSE(mfma::getHandlerKeys(inst.mnemonic).empty())
          << chip.name.str() << " " << inst.mnemonic.str()
          << ": LLVM prints no MC opcode with this mnemonic";
      ++count;
    }
  EXPECT_GT(count, 100u);
}

TEST(MfmaHandlerKeys, KeysFollowLlvmNames) {
  // The ISA spelling and LLVM's opcode names differ (checked with
  // llvm-mc -show-inst).
  auto keys = [](llvm::StringRef mnemonic) {
    return mfma::getHandlerKeys(mnemonic);
  };
  EXPECT_EQ(keys("v_mfma_f32_32x32x8_f16"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_32X32X8F16"}));
  EXPECT_EQ(keys("v_mfma_f32_32x32x8f16"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_32X32X8F16"}));
  EXPECT_EQ(keys("v_mfma_f32_32x32x4_2b_bf16"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_32X32X4BF16_1K"}));
  EXPECT_EQ(keys("v_mfma_f32_32x32x4bf16"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_32X32X4BF16"}));
  EXPECT_EQ(keys("v_mfma_f32_32x32x16_f16"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_32X32X16_F16"}));
  EXPECT_EQ(keys("v_mfma_f32_16x16x32_bf8_fp8"),
            (llvm::SmallVector<std::string, 2>{"V_MFMA_F32_16X16X32_BF8_FP8"}));
  EXPECT_TRUE(keys("v_mfma_f32_99x99x99_f16").empty());
}

//===----------------------------------------------------------------------===//
// Number formats
//===----------------------------------------------------------------------===//

const llvm::fltSemantics &getSemantics(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F8E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case ScalarKind::F8E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  case ScalarKind::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case ScalarKind::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case ScalarKind::F16:
    return llvm::APFloat::IEEEhalf();
  default:
    return llvm::APFloat::BFloat();
  }
}

float apfloatToFloat(ScalarKind kind, unsigned bits, uint64_t code) {
  llvm::APFloat value(getSemantics(kind), llvm::APInt(bits, code));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  EXPECT_FALSE(losesInfo);
  return value.convertToFloat();
}

void expectSameFloat(float got, float expected, const std::string &what) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
    return;
  }
  EXPECT_EQ(llvm::bit_cast<uint32_t>(got), llvm::bit_cast<uint32_t>(expected))
      << what << ": " << got << " vs " << expected;
}

TEST(MfmaNumberFormats, Fp8DecodeMatchesApFloat) {
  for (ScalarKind kind : {ScalarKind::F8E4M3FNUZ, ScalarKind::F8E5M2FNUZ,
                          ScalarKind::F8E4M3FN, ScalarKind::F8E5M2})
    for (unsigned code = 0; code < 256; ++code)
      expectSameFloat(
          mfma::decodeFp8(kind, uint8_t(code)), apfloatToFloat(kind, 8, code),
          getScalarKindName(kind).str() + " code " + std::to_string(code));
}

TEST(MfmaNumberFormats, Fp8KnownValues) {
  using K = ScalarKind;
  auto decode = [](K kind, unsigned code) {
    return mfma::decodeFp8(kind, uint8_t(code));
  };
  // FNUZ (gfx942): 0x80 is the only NaN, no -0, no infinities.
  EXPECT_TRUE(std::isnan(decode(K::F8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(decode(K::F8E5M2FNUZ, 0x80)));
  EXPECT_EQ(decode(K::F8E4M3FNUZ, 0x00), 0.0f);
  EXPECT_EQ(decode(K::F8E4M3FNUZ, 0x7f), 240.0f);
  EXPECT_EQ(decode(K::F8E4M3FNUZ, 0xff), -240.0f);
  EXPECT_EQ(decode(K::F8E5M2FNUZ, 0x7f), 57344.0f);
  EXPECT_EQ(decode(K::F8E5M2FNUZ, 0x7c), 32768.0f); // not infinity
  EXPECT_EQ(decode(K::F8E4M3FNUZ, 0x40), 1.0f);     // bias 8
  EXPECT_EQ(decode(K::F8E5M2FNUZ, 0x40), 1.0f);     // bias 16
  EXPECT_EQ(decode(K::F8E4M3FNUZ, 0x01), 0x1p-10f); // smallest subnormal
  EXPECT_EQ(decode(K::F8E5M2FNUZ, 0x01), 0x1p-17f);
  // OCP E4M3FN (gfx950): S.1111.111 is NaN, 448 is the largest, -0 exists.
  EXPECT_TRUE(std::isnan(decode(K::F8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(decode(K::F8E4M3FN, 0xff)));
  EXPECT_EQ(decode(K::F8E4M3FN, 0x7e), 448.0f);
  EXPECT_EQ(decode(K::F8E4M3FN, 0x78), 256.0f); // not infinity
  EXPECT_EQ(decode(K::F8E4M3FN, 0x38), 1.0f);   // bias 7
  EXPECT_EQ(decode(K::F8E4M3FN, 0x01), 0x1p-9f);
  EXPECT_TRUE(std::signbit(decode(K::F8E4M3FN, 0x80)));
  EXPECT_EQ(decode(K::F8E4M3FN, 0x80), 0.0f);
  // OCP E5M2: IEEE-style infinities and NaNs.
  EXPECT_EQ(decode(K::F8E5M2, 0x7c), INFINITY);
  EXPECT_EQ(decode(K::F8E5M2, 0xfc), -INFINITY);
  EXPECT_TRUE(std::isnan(decode(K::F8E5M2, 0x7d)));
  EXPECT_TRUE(std::isnan(decode(K::F8E5M2, 0x7f)));
  EXPECT_EQ(decode(K::F8E5M2, 0x7b), 57344.0f);
  EXPECT_EQ(decode(K::F8E5M2, 0x3c), 1.0f); // bias 15
  EXPECT_EQ(decode(K::F8E5M2, 0x01), 0x1p-16f);
}

TEST(MfmaNumberFormats, HalfDecodeMatchesApFloat) {
  for (unsigned code = 0; code < 65536; ++code) {
    expectSameFloat(mfma::decodeF16(uint16_t(code)),
                    apfloatToFloat(ScalarKind::F16, 16, code),
                    "f16 " + std::to_string(code));
    expectSameFloat(mfma::decodeBf16(uint16_t(code)),
                    apfloatToFloat(ScalarKind::BF16, 16, code),
                    "bf16 " + std::to_string(code));
  }
}

TEST(MfmaNumberFormats, Xf32RoundsMantissaToTenBitsNearestEven) {
  auto round = [](float value) {
    return llvm::bit_cast<float>(
        mfma::roundToXf32(llvm::bit_cast<uint32_t>(value)));
  };
  EXPECT_EQ(round(1.0f), 1.0f);
  EXPECT_EQ(round(1.0f + 0x1p-10f), 1.0f + 0x1p-10f);    // representable
  EXPECT_EQ(round(1.0f + 0x1p-11f), 1.0f);               // tie, to even
  EXPECT_EQ(round(1.0f + 3 * 0x1p-11f), 1.0f + 0x1p-9f); // tie, to even
  EXPECT_EQ(round(1.0f + 0x1p-11f + 0x1p-20f), 1.0f + 0x1p-10f);
  EXPECT_EQ(round(1.0f + 0x1p-12f), 1.0f);
  EXPECT_EQ(round(-(1.0f + 0x1p-11f + 0x1p-20f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(round(0x1.ffep0f), 2.0f); // carry into the exponent
  EXPECT_EQ(round(3.4028235e38f), INFINITY);
  EXPECT_EQ(round(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(round(NAN)));
  // A NaN whose payload is only in the dropped bits stays a NaN.
  EXPECT_TRUE(std::isnan(llvm::bit_cast<float>(mfma::roundToXf32(0x7f800001))));
  // Subnormals are rounded the same way, not flushed.
  EXPECT_EQ(round(0x1.004p-130f), 0x1p-130f);
  EXPECT_EQ(round(0x1p-136f), 0x1p-136f); // lowest kept mantissa bit
  EXPECT_EQ(round(0x1p-140f), 0.0f);      // below half of it
}

} // namespace
