//===- ScalarTest.cpp - The scalar semantics core -------------------------===//
//
// Expectations come from IEEE 754 (round to nearest even), the OCP 8-bit
// float spec and the FNUZ encodings (AMD CDNA3 ISA), and the rules
// Scalar.h states; each is worked out by hand in the comment beside it.
//
//===----------------------------------------------------------------------===//

#include "crest/Semantics/Scalar.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace crest;
using namespace crest::sem;
using llvm::APFloat;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

ScalarType f8(const llvm::fltSemantics &s) { return ScalarType::getFloat(s); }

TEST(ScalarSemantics, FloatToIntTruncatesSaturatesNaNIsZero) {
  EXPECT_EQ(castFloatToInt(3.9, 32), 3);
  EXPECT_EQ(castFloatToInt(-3.9, 32), -3);
  EXPECT_EQ(castFloatToInt(kNaN, 32), 0);
  EXPECT_EQ(castFloatToInt(-kNaN, 8), 0);
  EXPECT_EQ(castFloatToInt(kInf, 32), 2147483647);
  EXPECT_EQ(castFloatToInt(-kInf, 32), -2147483647 - 1);
  EXPECT_EQ(castFloatToInt(1e10, 32), 2147483647);
  // The largest f32 below 2^31 is 2^31 - 128: representable, not saturated.
  EXPECT_EQ(castFloatToInt(2147483520.0, 32), 2147483520);
  EXPECT_EQ(castFloatToInt(2147483648.0, 32), 2147483647);
  EXPECT_EQ(castFloatToInt(127.9, 8), 127);
  EXPECT_EQ(castFloatToInt(200.0, 8), 127);
  EXPECT_EQ(castFloatToInt(-128.5, 8), -128);
  EXPECT_EQ(castFloatToInt(-300.0, 8), -128);
  EXPECT_EQ(castFloatToInt(-0.5, 8, /*isUnsigned=*/true), 0);
  EXPECT_EQ(castFloatToInt(300.0, 8, /*isUnsigned=*/true), 255);
  EXPECT_EQ(castTo(kNaN, ScalarType::getInt(32)), 0.0);
}

TEST(ScalarSemantics, IntegerNarrowingSaturatesArithmeticWraps) {
  EXPECT_EQ(castIntToInt(300, 8), 127);
  EXPECT_EQ(castIntToInt(-300, 8), -128);
  EXPECT_EQ(castIntToInt(-5, 32), -5);
  EXPECT_EQ(wrapInt(128, 8), -128);
  EXPECT_EQ(wrapInt(int64_t(1) << 32, 32), 0);
  ScalarType i8 = ScalarType::getInt(8), i32 = ScalarType::getInt(32);
  EXPECT_EQ(evaluate(ElementwiseOp::Add, {127, 1}, i8), -128);
  EXPECT_EQ(evaluate(ElementwiseOp::Add, {2147483647, 1}, i32), -2147483648.0);
  EXPECT_EQ(evaluate(ElementwiseOp::Mul, {65536, 65536}, i32), 0);
  EXPECT_EQ(evaluate(ElementwiseOp::Sub, {-128, 1}, i8), 127);
  EXPECT_EQ(evaluate(ElementwiseOp::Max, {-7, 3}, i32), 3);
}

TEST(ScalarSemantics, IntegerDivisionTruncatesRemainderHasTwoModes) {
  ScalarType i64 = ScalarType::getInt(64), i32 = ScalarType::getInt(32);
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  // Toward zero, not toward -inf: -7 / 2 = -3 (Python's // gives -4).
  EXPECT_EQ(divInt(7, 2, i64), 3);
  EXPECT_EQ(divInt(-7, 2, i64), -3);
  EXPECT_EQ(divInt(7, -2, i64), -3);
  EXPECT_EQ(divInt(-7, -2, i64), 3);
  EXPECT_EQ(divInt(kMin, -1, i64), kMin);
  EXPECT_EQ(divInt(int64_t(INT32_MIN), -1, i32), int64_t(INT32_MIN));
  EXPECT_FALSE(divInt(5, 0, i64));
  // fmod = 0: the sign of the divisor (Python's %).
  EXPECT_EQ(remInt(-7, 3, /*signOfDividend=*/false, i64), 2);
  EXPECT_EQ(remInt(7, -3, false, i64), -2);
  EXPECT_EQ(remInt(-7, -3, false, i64), -1);
  EXPECT_EQ(remInt(6, -3, false, i64), 0);
  // fmod = 1: the sign of the dividend (C's %).
  EXPECT_EQ(remInt(-7, 3, /*signOfDividend=*/true, i64), -1);
  EXPECT_EQ(remInt(7, -3, true, i64), 1);
  EXPECT_EQ(remInt(kMin, -1, true, i64), 0);
  EXPECT_FALSE(remInt(5, 0, true, i64));
  // evaluateInt is exact past 2^53 (INT64_MAX ends of Slice).
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(evaluateInt(ElementwiseOp::Sub, kMax, 1, i64), kMax - 1);
  EXPECT_EQ(evaluateInt(ElementwiseOp::Add, kMax, 1, i64), kMin);
  EXPECT_EQ(evaluateInt(ElementwiseOp::Div, -9, 4, i64), -2);
  EXPECT_FALSE(evaluateInt(ElementwiseOp::Pow, 2, 3, i64));
  // The double form agrees where doubles are exact.
  EXPECT_EQ(evaluate(ElementwiseOp::Div, {-9, 4}, i32), -2.0);
}

TEST(ScalarSemantics, FloatNarrowingRoundsToNearestEven) {
  ScalarType f16 = ScalarType::getF16(), bf16 = ScalarType::getBF16();
  ScalarType f32 = ScalarType::getF32();
  // f16: ulp of [2048, 4096) is 2; 2049 ties to 2048, 2051 to 2052.
  EXPECT_EQ(castTo(2049.0, f16), 2048.0);
  EXPECT_EQ(castTo(2051.0, f16), 2052.0);
  // The f16 overflow threshold is 65504 + ulp/2 = 65520.
  EXPECT_EQ(castTo(65519.0, f16), 65504.0);
  EXPECT_EQ(castTo(65520.0, f16), kInf);
  EXPECT_EQ(castTo(-1e6, f16), -kInf);
  // bf16 has 8 significand bits: 257 ties to 256, 259 to 260.
  EXPECT_EQ(castTo(257.0, bf16), 256.0);
  EXPECT_EQ(castTo(259.0, bf16), 260.0);
  // Integer to f32: 2^24 + 1 ties to 2^24, 2^24 + 3 to 2^24 + 4.
  EXPECT_EQ(castTo(16777217.0, f32), 16777216.0);
  EXPECT_EQ(castTo(16777219.0, f32), 16777220.0);
  EXPECT_TRUE(std::isnan(castTo(kNaN, f16)));
  EXPECT_TRUE(std::signbit(castTo(-0.0, f16)));
  // f16 subnormals survive a cast: 2^-24 is the smallest.
  EXPECT_EQ(castTo(std::ldexp(1.0, -24), f16), std::ldexp(1.0, -24));
  EXPECT_EQ(castTo(std::ldexp(1.0, -26), f16), 0.0);
}

TEST(ScalarSemantics, Fp8SaturatesInCasts) {
  ScalarType fnuz = f8(APFloat::Float8E4M3FNUZ());
  ScalarType ocp = f8(APFloat::Float8E4M3FN());
  ScalarType e5 = f8(APFloat::Float8E5M2());
  EXPECT_EQ(castTo(1e6, fnuz), 240.0);
  EXPECT_EQ(castTo(-kInf, fnuz), -240.0);
  EXPECT_EQ(castTo(500.0, ocp), 448.0);
  EXPECT_EQ(castTo(kInf, e5), 57344.0);
  EXPECT_TRUE(std::isnan(castTo(kNaN, ocp)));
  // E4M3: 3 mantissa bits; 1.0625 ties to 1.0, 1.1875 to 1.25.
  EXPECT_EQ(castTo(1.0625, ocp), 1.0);
  EXPECT_EQ(castTo(1.1875, ocp), 1.25);
  // FNUZ has no -0.
  EXPECT_FALSE(std::signbit(castTo(-0.0, fnuz)));
  EXPECT_TRUE(std::signbit(castTo(-0.0, ocp)));
}

TEST(ScalarSemantics, Fp8Encodings) {
  const auto &fnuz4 = APFloat::Float8E4M3FNUZ(), &fnuz5 = APFloat::Float8E5M2FNUZ();
  const auto &ocp4 = APFloat::Float8E4M3FN(), &ocp5 = APFloat::Float8E5M2();
  // 1.0: exponent field = bias (8, 16, 7, 15).
  EXPECT_EQ(encodeFp8(1.0, fnuz4, true), 0x40);
  EXPECT_EQ(encodeFp8(1.0, fnuz5, true), 0x40);
  EXPECT_EQ(encodeFp8(1.0, ocp4, true), 0x38);
  EXPECT_EQ(encodeFp8(1.0, ocp5, true), 0x3c);
  // Largest: FNUZ E4M3 0x7f = 1.875 * 2^7 = 240; OCP E4M3 0x7e = 448.
  EXPECT_EQ(decodeFp8(0x7f, fnuz4), 240.0);
  EXPECT_EQ(decodeFp8(0x7e, ocp4), 448.0);
  EXPECT_EQ(decodeFp8(0x7b, ocp5), 57344.0);
  EXPECT_EQ(decodeFp8(0x7c, ocp5), kInf);
  EXPECT_TRUE(std::isnan(decodeFp8(0x80, fnuz4)));
  EXPECT_TRUE(std::isnan(decodeFp8(0xff, ocp4)));
  // Smallest subnormal: 2^(1 - bias - mantissa bits).
  EXPECT_EQ(decodeFp8(0x01, fnuz4), std::ldexp(1.0, -10));
  EXPECT_EQ(decodeFp8(0x01, ocp4), std::ldexp(1.0, -9));
  EXPECT_EQ(decodeFp8(0x81, ocp5), -std::ldexp(1.0, -16));
  // Saturating and hardware (non-saturating) overflow.
  EXPECT_EQ(encodeFp8(1e6, ocp4, true), 0x7e);
  EXPECT_EQ(encodeFp8(-1e6, ocp4, true), 0xfe);
  EXPECT_EQ(encodeFp8(1e6, ocp4, false), 0x7f);
  EXPECT_EQ(encodeFp8(-kInf, ocp4, false), 0xff);
  EXPECT_EQ(encodeFp8(1e6, ocp5, false), 0x7c);
  EXPECT_EQ(encodeFp8(1e6, fnuz4, false), 0x80);
  EXPECT_EQ(encodeFp8(kInf, fnuz5, false), 0x80);
  EXPECT_EQ(encodeFp8(kNaN, ocp5, true), 0x7e);
  EXPECT_EQ(encodeFp8(-kNaN, ocp4, true), 0xff);
  EXPECT_EQ(encodeFp8(-0.0, fnuz4, true), 0x00);
  EXPECT_EQ(encodeFp8(-1e-10, fnuz4, false), 0x00);
  EXPECT_EQ(encodeFp8(-1e-10, ocp4, false), 0x80);
  EXPECT_EQ(encodeFp8(-0.0, ocp4, true), 0x80);
  // Every non-NaN encoding round-trips.
  for (const llvm::fltSemantics *s : {&fnuz4, &fnuz5, &ocp4, &ocp5})
    for (unsigned b = 0; b < 256; ++b) {
      double v = decodeFp8(uint8_t(b), *s);
      if (!std::isnan(v))
        EXPECT_EQ(encodeFp8(v, *s, false), b) << b;
    }
}

TEST(ScalarSemantics, BitsRoundTrip) {
  ScalarType f16 = ScalarType::getF16(), bf16 = ScalarType::getBF16();
  EXPECT_EQ(encodeBits(1.0, f16), 0x3c00u);
  EXPECT_EQ(encodeBits(-2.0, bf16), 0xc000u);
  EXPECT_EQ(decodeBits(0x0001, f16), std::ldexp(1.0, -24));
  EXPECT_EQ(encodeBits(-1, ScalarType::getInt(8)), 0xffu);
  EXPECT_EQ(decodeBits(0xff, ScalarType::getInt(8)), -1.0);
}

TEST(ScalarSemantics, MaxMinNaNAndSignedZeros) {
  ScalarType f32 = ScalarType::getF32();
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Max, {kNaN, 1.0}, f32)));
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Min, {1.0, kNaN}, f32)));
  EXPECT_FALSE(std::signbit(evaluate(ElementwiseOp::Max, {-0.0, 0.0}, f32)));
  EXPECT_TRUE(std::signbit(evaluate(ElementwiseOp::Min, {0.0, -0.0}, f32)));
  EXPECT_FALSE(std::signbit(evaluate(ElementwiseOp::Relu, {-0.0}, f32)));
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Relu, {kNaN}, f32)));
  OpParams clip;
  clip.lo = 0, clip.hi = 6;
  EXPECT_EQ(evaluate(ElementwiseOp::Clip, {7.5}, f32, clip), 6.0);
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Clip, {kNaN}, f32, clip)));
  EXPECT_EQ(evaluate(ElementwiseOp::Clip, {-kInf}, f32, clip), 0.0);
}

TEST(ScalarSemantics, NarrowFloatsComputeInF32AndRoundOnce) {
  ScalarType f16 = ScalarType::getF16();
  // 2048 + 1 = 2049 exactly in f32, then ties to even in f16: 2048.
  EXPECT_EQ(evaluate(ElementwiseOp::Add, {2048, 1}, f16), 2048.0);
  EXPECT_EQ(evaluate(ElementwiseOp::Add, {2048, 3}, f16), 2052.0);
  // 60000 + 60000 overflows f16 but not f32: inf only after the rounding.
  EXPECT_EQ(evaluate(ElementwiseOp::Add, {60000, 60000}, f16), kInf);
  // 300 * 300 / 300 would overflow an f16 intermediate; here only the
  // result is f16 (each op rounds once): the product 90000 -> inf.
  EXPECT_EQ(evaluate(ElementwiseOp::Mul, {300, 300}, f16), kInf);
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Div, {0, 0}, f16)));
  EXPECT_EQ(evaluate(ElementwiseOp::Div, {-1, 0}, f16), -kInf);
  EXPECT_EQ(evaluate(ElementwiseOp::Sqrt, {2}, f16), castTo(std::sqrt(2.0), f16));
}

TEST(ScalarSemantics, CompositesRoundEachStepInF32) {
  ScalarType f32 = ScalarType::getF32();
  // hardsigmoid(x) = max(0, min(1, fl(fl(0.2f x) + 0.5))).
  float alpha = 0.2f;
  OpParams hs;
  hs.alpha = alpha;
  float x = 1.3f;
  float want = std::fmax(0.0f, std::fmin(1.0f, alpha * x + 0.5f));
  EXPECT_EQ(evaluate(ElementwiseOp::HardSigmoid, {x}, f32, hs), double(want));
  // hardswish(x) = fl(fl(x * clamp(fl(x + 3), 0, 6)) / 6).
  float y = -1.7f;
  float v = std::fmin(6.0f, std::fmax(0.0f, y + 3.0f));
  EXPECT_EQ(evaluate(ElementwiseOp::HardSwish, {y}, f32), double((y * v) / 6.0f));
  EXPECT_EQ(evaluate(ElementwiseOp::HardSwish, {3.0}, f32), 3.0);
  EXPECT_EQ(evaluate(ElementwiseOp::HardSwish, {-3.0}, f32), 0.0);
}

TEST(ScalarSemantics, LeakyReluAndLog) {
  ScalarType f32 = ScalarType::getF32(), f16 = ScalarType::getF16();
  OpParams leaky;
  leaky.alpha = 0.1;
  // alpha is an f32 constant; alpha x rounds once in the result's type.
  EXPECT_EQ(evaluate(ElementwiseOp::LeakyRelu, {-3.0}, f32, leaky),
            double(0.1f * -3.0f));
  EXPECT_EQ(evaluate(ElementwiseOp::LeakyRelu, {-3.0}, f16, leaky),
            castTo(double(0.1f * -3.0f), f16));
  EXPECT_EQ(evaluate(ElementwiseOp::LeakyRelu, {2.5}, f32, leaky), 2.5);
  // NaN is not below zero and -0 is not either: both pass through.
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::LeakyRelu, {kNaN}, f32,
                                  leaky)));
  EXPECT_TRUE(std::signbit(evaluate(ElementwiseOp::LeakyRelu, {-0.0}, f32,
                                    leaky)));
  EXPECT_EQ(evaluate(ElementwiseOp::Log, {1.0}, f32), 0.0);
  EXPECT_EQ(evaluate(ElementwiseOp::Log, {0.0}, f32), -kInf);
  EXPECT_EQ(evaluate(ElementwiseOp::Log, {kInf}, f32), kInf);
  EXPECT_TRUE(std::isnan(evaluate(ElementwiseOp::Log, {-1.0}, f32)));
  EXPECT_EQ(evaluate(ElementwiseOp::Log, {8.0}, f32),
            double(float(3 * std::log(2.0))));
  EXPECT_FALSE(isCorrectlyRounded(ElementwiseOp::Log));
  EXPECT_TRUE(isCorrectlyRounded(ElementwiseOp::LeakyRelu));
}

TEST(ScalarSemantics, RoundToIntegral) {
  ScalarType f32 = ScalarType::getF32(), f16 = ScalarType::getF16();
  auto ev = [&](ElementwiseOp op, double x, ScalarType t = ScalarType::getF32()) {
    return evaluate(op, {x}, t);
  };
  EXPECT_EQ(ev(ElementwiseOp::Floor, -0.5), -1.0);
  EXPECT_EQ(ev(ElementwiseOp::Floor, 2.999), 2.0);
  EXPECT_EQ(ev(ElementwiseOp::Ceil, 2.001), 3.0);
  // ceil of (-1, 0) and round of [-0.5, 0) keep the sign: -0.
  EXPECT_TRUE(std::signbit(ev(ElementwiseOp::Ceil, -0.5)));
  EXPECT_EQ(ev(ElementwiseOp::Ceil, -0.5), 0.0);
  EXPECT_TRUE(std::signbit(ev(ElementwiseOp::Round, -0.5)));
  EXPECT_TRUE(std::signbit(ev(ElementwiseOp::Floor, -0.0)));
  // Ties to even, not away from zero.
  EXPECT_EQ(ev(ElementwiseOp::Round, 0.5), 0.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, 1.5), 2.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, 2.5), 2.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, -2.5), -2.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, -3.5), -4.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, double(std::nextafter(2.5f, 3.0f))), 3.0);
  // Beyond 2^23 every f32 is an integer; 2^24 + 2 stays itself.
  EXPECT_EQ(ev(ElementwiseOp::Floor, 16777218.0), 16777218.0);
  EXPECT_EQ(ev(ElementwiseOp::Floor, -kInf), -kInf);
  EXPECT_TRUE(std::isnan(ev(ElementwiseOp::Round, std::nan(""))));
  // f16: 1023.5 is a tie in f16's last place (ulp 0.5 at 2^9 .. 2^10).
  EXPECT_EQ(ev(ElementwiseOp::Round, 1023.5, f16), 1024.0);
  EXPECT_EQ(ev(ElementwiseOp::Round, 1022.5, f16), 1022.0);
  EXPECT_EQ(ev(ElementwiseOp::Floor, -1022.5, f16), -1023.0);
  for (ElementwiseOp op :
       {ElementwiseOp::Floor, ElementwiseOp::Ceil, ElementwiseOp::Round}) {
    EXPECT_TRUE(isCorrectlyRounded(op));
    EXPECT_EQ(getUlpBound(op, f32), 0u);
    EXPECT_EQ(lookupElementwiseOp(getElementwiseOpName(op)), op);
  }
}

TEST(ScalarSemantics, Denormals) {
  const auto &half = APFloat::IEEEhalf();
  EXPECT_TRUE(isDenormal(std::ldexp(1.0, -15), half));
  EXPECT_FALSE(isDenormal(std::ldexp(1.0, -14), half));
  EXPECT_FALSE(isDenormal(0.0, half));
  EXPECT_EQ(flushDenormal(std::ldexp(3.0, -20), half), 0.0);
  EXPECT_TRUE(std::signbit(flushDenormal(-std::ldexp(1.0, -20), half)));
  EXPECT_EQ(flushDenormal(0.5, half), 0.5);
  // The chip-table fact: gfx90a's f16/bf16 MFMAs flush, gfx942's do not.
  EXPECT_TRUE(mmaFlushesDenormals(*lookupChip("gfx90a"), ScalarKind::F16));
  EXPECT_TRUE(mmaFlushesDenormals(*lookupChip("gfx90a"), ScalarKind::BF16));
  EXPECT_FALSE(mmaFlushesDenormals(*lookupChip("gfx90a"), ScalarKind::F32));
  EXPECT_FALSE(mmaFlushesDenormals(*lookupChip("gfx942"), ScalarKind::F16));
}

TEST(ScalarSemantics, OpNames) {
  for (unsigned i = 0; i <= unsigned(ElementwiseOp::Cast); ++i) {
    auto op = ElementwiseOp(i);
    EXPECT_EQ(lookupElementwiseOp(getElementwiseOpName(op),
                                  op == ElementwiseOp::GeluTanh),
              op);
  }
}

} // namespace
