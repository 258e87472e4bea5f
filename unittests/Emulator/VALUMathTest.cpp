//===- VALUMathTest.cpp - VALU division, transcendentals, conversions -----===//
//
// - LLVM's f32 and f64 IEEE division sequences (v_div_scale, v_rcp,
//   refinement, v_div_fmas, v_div_fixup) must produce the correctly rounded
//   quotient, extreme exponents and special values included.
// - Transcendentals: the hardware is documented at about 1 ulp; the emulator
//   uses correctly rounded (sqrt, rcp) or faithful double-precision libm
//   results, so these tests allow 1 ulp against a double-precision
//   reference, and exact special values.
// - Conversions, integral rounding, frexp/ldexp, unfused mad/mac.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

using In = const uint32_t *;

const char *kKeepDenormals = ".amdhsa_float_denorm_mode_32 3\n"
                             ".amdhsa_float_denorm_mode_16_64 3";
const char *kFlushDenormals = ".amdhsa_float_denorm_mode_32 0\n"
                              ".amdhsa_float_denorm_mode_16_64 0";

bool isNaN32(uint32_t b) {
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffff);
}
uint32_t flush32(uint32_t b) {
  return !(b & 0x7f800000u) ? b & 0x80000000u : b;
}
bool isNaN64(uint64_t b) {
  return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
         (b & 0xfffffffffffffull);
}
uint16_t h16d(double d) {
  _Float16 h = (_Float16)d;
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
double fromH16(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return double(h);
}

//===----------------------------------------------------------------------===//
// Division
//===----------------------------------------------------------------------===//

std::vector<float> divisionOperands() {
  return {1.0f,     3.0f,     -7.5f,           0.1f,      1e-30f,    1e30f,
          3.4e38f,  -3.4e38f, 1.17549435e-38f, 1e-40f,    1.4e-45f,  -2.9e-39f,
          0.0f,     -0.0f,    INFINITY,        -INFINITY, NAN,       1.5f,
          6.0e-39f, 2.0f,     8.5e37f,         1.7e38f,   4.0e-39f,  1e-20f,
          3.0e-45f, 1e20f,    65504.0f,        1.0e-7f,   -5.3e-39f, 2.3e-38f,
          7.0e30f,  9.9e-38f};
}

TEST(VALUMath, DivisionF32) {
  std::vector<float> ops = divisionOperands();
  // Every pair, 64 lanes per kernel.
  std::vector<uint32_t> nums, dens;
  for (float n : ops)
    for (float d : ops) {
      nums.push_back(bitsOf(n));
      dens.push_back(bitsOf(d));
    }
  // Eight batches of 64 pairs per kernel: batch b reads v[10 + 2b] (N) and
  // v[11 + 2b] (D) and writes v[40 + b]; temporaries v30-v34.
  auto body = [](unsigned b) {
    return formatv(R"(
  v_div_scale_f32 v30, s[20:21], v{1}, v{1}, v{0}
  v_rcp_f32_e32 v31, v30
  v_fma_f32 v32, -v30, v31, 1.0
  v_fmac_f32_e32 v31, v32, v31
  v_div_scale_f32 v32, vcc, v{0}, v{1}, v{0}
  v_mul_f32_e32 v33, v32, v31
  v_fma_f32 v34, -v30, v33, v32
  v_fmac_f32_e32 v33, v34, v31
  v_fma_f32 v30, -v30, v33, v32
  v_div_fmas_f32 v30, v30, v31, v33
  v_div_fixup_f32 v{2}, v30, v{1}, v{0}
)",
                   10 + 2 * b, 11 + 2 * b, 40 + b)
        .str();
  };
  constexpr unsigned kBatches = 8;
  for (std::string chip : {"gfx942", "gfx90a"})
    for (size_t first = 0; first < nums.size(); first += kBatches * kLanes) {
      ValuCase c;
      c.chip = chip;
      c.directives = kKeepDenormals;
      c.numOutputs = kBatches;
      for (unsigned b = 0; b < kBatches; ++b) {
        size_t base = first + b * kLanes;
        c.inputs.push_back(
            lanes([&](unsigned i) { return nums[(base + i) % nums.size()]; }));
        c.inputs.push_back(
            lanes([&](unsigned i) { return dens[(base + i) % dens.size()]; }));
        c.body += body(b);
      }
      auto out = runValu(c);
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      for (unsigned b = 0; b < kBatches; ++b)
        for (unsigned i = 0; i < kLanes; ++i) {
          float n = floatOf(c.inputs[2 * b][i]),
                d = floatOf(c.inputs[2 * b + 1][i]);
          uint32_t want = bitsOf(n / d), got = (*out)[b][i];
          if (isNaN32(want))
            EXPECT_TRUE(isNaN32(got)) << chip << " " << n << " / " << d;
          else
            EXPECT_EQ(got, want)
                << chip << " " << n << " / " << d << " = " << floatOf(got);
        }
    }
}

TEST(VALUMath, DivisionF64) {
  std::vector<double> ops = {1.0,      3.0,      -7.25,
                             0.1,      1e-300,   1e300,
                             1.7e308,  -1.7e308, 2.2250738585072014e-308,
                             1e-310,   4.9e-324, -3e-320,
                             0.0,      -0.0,     INFINITY,
                             NAN,      1e-200,   1e200,
                             6.0e-315, 2.0,      1.5e307,
                             9e-309,   1e-17,    123456789.0,
                             4.5e-322, 1e100,    3.3e-308,
                             -1e-100,  7e306,    1e-16,
                             2e-150,   5.5};
  std::vector<uint64_t> nums, dens;
  for (double n : ops)
    for (double d : ops) {
      nums.push_back(bitsOf(n));
      dens.push_back(bitsOf(d));
    }
  // Five batches per kernel: batch b reads N from v[10+4b:11+4b] and D from
  // v[12+4b:13+4b] and writes v[40+2b:41+2b]; temporaries v30-v37.
  auto body = [](unsigned b) {
    unsigned n = 10 + 4 * b, d = 12 + 4 * b, q = 40 + 2 * b;
    return formatv(R"(
  v_div_scale_f64 v[30:31], s[20:21], v[{1}:{2}], v[{1}:{2}], v[{0}:{3}]
  v_rcp_f64_e32 v[32:33], v[30:31]
  v_fma_f64 v[34:35], -v[30:31], v[32:33], 1.0
  v_fma_f64 v[32:33], v[32:33], v[34:35], v[32:33]
  v_fma_f64 v[34:35], -v[30:31], v[32:33], 1.0
  v_fma_f64 v[32:33], v[32:33], v[34:35], v[32:33]
  v_div_scale_f64 v[34:35], vcc, v[{0}:{3}], v[{1}:{2}], v[{0}:{3}]
  v_mul_f64 v[36:37], v[34:35], v[32:33]
  v_fma_f64 v[30:31], -v[30:31], v[36:37], v[34:35]
  v_div_fmas_f64 v[30:31], v[30:31], v[32:33], v[36:37]
  v_div_fixup_f64 v[{4}:{5}], v[30:31], v[{1}:{2}], v[{0}:{3}]
)",
                   n, d, d + 1, n + 1, q, q + 1)
        .str();
  };
  constexpr unsigned kBatches = 5;
  for (std::string chip : {"gfx942", "gfx90a"})
    for (size_t first = 0; first < nums.size(); first += kBatches * kLanes) {
      ValuCase c;
      c.chip = chip;
      c.directives = kKeepDenormals;
      c.numOutputs = 2 * kBatches;
      std::vector<std::vector<uint64_t>> n(kBatches), d(kBatches);
      for (unsigned b = 0; b < kBatches; ++b) {
        for (unsigned i = 0; i < kLanes; ++i) {
          n[b].push_back(nums[(first + b * kLanes + i) % nums.size()]);
          d[b].push_back(dens[(first + b * kLanes + i) % dens.size()]);
        }
        for (const LaneValues &v : split64(n[b]))
          c.inputs.push_back(v);
        for (const LaneValues &v : split64(d[b]))
          c.inputs.push_back(v);
        c.body += body(b);
      }
      auto out = runValu(c);
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      for (unsigned b = 0; b < kBatches; ++b) {
        std::vector<uint64_t> got = join64((*out)[2 * b], (*out)[2 * b + 1]);
        for (unsigned i = 0; i < kLanes; ++i) {
          double x = doubleOf(n[b][i]), y = doubleOf(d[b][i]);
          double q = x / y;
          if (std::isnan(q))
            EXPECT_TRUE(isNaN64(got[i])) << chip << " " << x << " / " << y;
          else
            EXPECT_EQ(got[i], bitsOf(q))
                << chip << " " << x << " / " << y << " = " << doubleOf(got[i]);
        }
      }
    }
}

/// v_div_scale's flag (VCC / SGPR pair) and v_div_fixup's special cases.
TEST(VALUMath, DivScaleAndFixup) {
  auto num = cycle({bitsOf(1.0f), bitsOf(0.0f), bitsOf(INFINITY), bitsOf(1e30f),
                    bitsOf(-2.0f), 0x7fc00001u, bitsOf(1e-30f), bitsOf(5.0f)});
  auto den =
      cycle({bitsOf(0.0f), bitsOf(0.0f), bitsOf(INFINITY), bitsOf(1e-30f),
             bitsOf(-0.0f), bitsOf(1.0f), bitsOf(1e30f), bitsOf(INFINITY)});
  ValuCase c;
  c.inputs = {num, den};
  c.directives = kKeepDenormals;
  c.body = "v_div_fixup_f32 v40, 1.0, v11, v10\n"
           "v_div_scale_f32 v41, s[20:21], v10, v11, v10";
  c.epilogue = "v_mov_b32 v42, s20\nv_mov_b32 v43, s21";
  c.numOutputs = 4;
  auto out = runValu(c);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  uint64_t flags = 0;
  for (unsigned i = 0; i < kLanes; ++i) {
    float n = floatOf(num[i]), d = floatOf(den[i]);
    bool negative = std::signbit(n) != std::signbit(d);
    uint32_t want;
    if (std::isnan(n))
      want = num[i] | 0x400000;
    else if ((n == 0 && d == 0) || (std::isinf(n) && std::isinf(d)))
      want = 0xffc00000u;
    else if (d == 0 || std::isinf(n))
      want = negative ? 0xff800000u : 0x7f800000u;
    else if (std::isinf(d) || n == 0)
      want = negative ? 0x80000000u : 0u;
    else if (int((num[i] >> 23) & 0xff) - int((den[i] >> 23) & 0xff) < -150)
      want = negative ? 0x80000000u : 0u; // quotient below the denormals
    else if (int((num[i] >> 23) & 0xff) - int((den[i] >> 23) & 0xff) > 128)
      want = negative ? 0xff800000u : 0x7f800000u; // quotient >= 2^128
    else
      want = negative ? 0xbf800000u : 0x3f800000u;
    EXPECT_EQ((*out)[0][i], want) << n << " / " << d;
    // Quotient 1e60 (near the top of the range: flag set, S0 = N kept) and
    // 1e-60 (denormal quotient: N scaled by 2^64, flag set).
    if (num[i] == bitsOf(1e30f) && den[i] == bitsOf(1e-30f)) {
      flags |= uint64_t(1) << i;
      EXPECT_EQ((*out)[1][i], num[i]);
    }
    if (num[i] == bitsOf(1e-30f) && den[i] == bitsOf(1e30f)) {
      flags |= uint64_t(1) << i;
      EXPECT_EQ((*out)[1][i], bitsOf(std::ldexp(1e-30f, 64)));
    }
    if (num[i] == bitsOf(1.0f) && den[i] == 0)
      EXPECT_TRUE(isNaN32((*out)[1][i])); // zero denominator: NaN
    // The pseudocode's first test is on exponents: a NaN numerator (exponent
    // 255) over 1.0 sets the flag.
    if (isNaN32(num[i]) && den[i] == bitsOf(1.0f))
      flags |= uint64_t(1) << i;
  }
  EXPECT_EQ((*out)[2][0] | (uint64_t((*out)[3][0]) << 32), flags);
}

//===----------------------------------------------------------------------===//
// Transcendentals
//===----------------------------------------------------------------------===//

LaneValues transcendentalInputs(uint64_t seed) {
  static const uint32_t kSpecial[] = {
      0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000,
      0xbf800000, 0x40800000, 0x3e800000, 0x00000010, 0x80400000, 0x3f000000,
      0x42fe0000, 0xc2fc0000, 0x43160000, 0x7f7fffff};
  Random rng(seed);
  return lanes([&](unsigned i) -> uint32_t {
    if (i < 16)
      return kSpecial[i];
    float v = float(int32_t(rng.next() % 200000) - 100000) / 1000.0f;
    return bitsOf(v);
  });
}

/// f32 result of a double-precision reference with the f32
/// transcendentals' denormal behaviour (inputs and results flushed).
uint32_t transcendental(uint32_t x, double (*fn)(double)) {
  if (isNaN32(x))
    return x | 0x400000;
  double r = fn(double(floatOf(flush32(x))));
  if (std::isnan(r))
    return 0xffc00000u;
  return flush32(bitsOf(float(r)));
}
double rcpRef(double x) { return 1.0 / x; }
double rsqRef(double x) {
  if (x == 0)
    return std::copysign(INFINITY, x);
  return 1.0 / std::sqrt(x);
}
double sqrtRef(double x) { return std::sqrt(x); }
double expRef(double x) { return std::exp2(x); }
double logRef(double x) { return std::log2(x); }
/// sin(2 pi x) and cos(2 pi x), exact at multiples of 1/4.
double sinRef(double x) {
  if (std::isinf(x))
    return NAN;
  if (x == 0)
    return x;
  double r = x - std::round(x);
  if (r * 4 == std::round(r * 4))
    return r == 0.25 ? 1 : r == -0.25 ? -1 : 0 * r;
  return std::sin(2 * M_PI * r);
}
double cosRef(double x) {
  if (std::isinf(x))
    return NAN;
  double r = x - std::round(x);
  if (r * 4 == std::round(r * 4))
    return r == 0 ? 1 : std::fabs(r) == 0.5 ? -1 : 0;
  return std::cos(2 * M_PI * r);
}

TEST(VALUMath, TranscendentalsF32) {
  LaneValues in = transcendentalInputs(1);
  auto check = [](const char *op, double (*fn)(double), unsigned ulps) {
    return OpCheck{
        formatv("{0} {{d}, {{a}", op).str(),
        [fn](unsigned, In x) -> uint64_t { return transcendental(x[0], fn); },
        false, Compare::F32Ulps, ulps};
  };
  std::vector<OpCheck> checks = {
      check("v_rcp_f32_e32", rcpRef, 0),
      check("v_rcp_iflag_f32_e32", rcpRef, 0),
      check("v_sqrt_f32_e32", sqrtRef, 0),
      check("v_rsq_f32_e32", rsqRef, 1),
      check("v_exp_f32_e32", expRef, 1),
      check("v_log_f32_e32", logRef, 1),
      check("v_sin_f32_e32", sinRef, 1),
      check("v_cos_f32_e32", cosRef, 1),
  };
  checkOps(checks, {in}, "gfx942", kKeepDenormals);
  checkOps(checks, {in}, "gfx90a", kFlushDenormals);
  // Exact special values from the ISA's tables.
  checkOps(
      {{"v_log_f32_e32 {d}, 0",
        [](unsigned, In) -> uint64_t { return 0xff800000u; }},
       {"v_log_f32_e32 {d}, 1.0", [](unsigned, In) -> uint64_t { return 0u; }},
       {"v_log_f32_e32 {d}, -1.0",
        [](unsigned, In) -> uint64_t { return 0xffc00000u; }},
       {"v_rcp_f32_e32 {d}, -2.0",
        [](unsigned, In) -> uint64_t { return 0xbf000000u; }},
       {"v_rsq_f32_e32 {d}, 4.0",
        [](unsigned, In) -> uint64_t { return 0x3f000000u; }},
       {"v_sqrt_f32_e32 {d}, 4.0",
        [](unsigned, In) -> uint64_t { return 0x40000000u; }},
       {"v_sin_f32_e32 {d}, 0x3e800000",
        [](unsigned, In) -> uint64_t { return 0x3f800000u; }},
       {"v_cos_f32_e32 {d}, 0x3e800000",
        [](unsigned, In) -> uint64_t { return 0u; }},
       {"v_sin_f32_e32 {d}, 0xff7fffff",
        [](unsigned, In) -> uint64_t { return 0u; }},
       {"v_cos_f32_e32 {d}, 0xff7fffff",
        [](unsigned, In) -> uint64_t { return 0x3f800000u; }},
       {"v_exp_f32_e32 {d}, 0xff800000",
        [](unsigned, In) -> uint64_t { return 0u; }},
       {"v_rsq_f32_e32 {d}, 0x80000000",
        [](unsigned, In) -> uint64_t { return 0xff800000u; }}},
      {in});
}

TEST(VALUMath, TranscendentalsF16AndF64) {
  LaneValues halves = lanes([](unsigned i) -> uint32_t {
    static const uint16_t kSpecial[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x3c00,
                                        0xbc00, 0x4400, 0x3400, 0x0001, 0x7bff};
    if (i < 10)
      return kSpecial[i];
    return h16d(double(int(i) - 30) / 7.0);
  });
  auto half = [](double (*fn)(double)) {
    return [fn](unsigned, In x) -> uint64_t {
      uint16_t v = uint16_t(x[0]);
      double r = fn(fromH16(v));
      return std::isnan(r) ? 0xfe00 : h16d(r);
    };
  };
  std::vector<OpCheck> checks = {
      {"v_rcp_f16_e32 {d}, {a}", half(rcpRef), false, Compare::F16Ulps, 0},
      {"v_sqrt_f16_e32 {d}, {a}", half(sqrtRef), false, Compare::F16Ulps, 0},
      {"v_rsq_f16_e32 {d}, {a}", half(rsqRef), false, Compare::F16Ulps, 1},
      {"v_exp_f16_e32 {d}, {a}", half(expRef), false, Compare::F16Ulps, 1},
      {"v_log_f16_e32 {d}, {a}", half(logRef), false, Compare::F16Ulps, 1},
      {"v_sin_f16_e32 {d}, {a}", half(sinRef), false, Compare::F16Ulps, 1},
      {"v_cos_f16_e32 {d}, {a}", half(cosRef), false, Compare::F16Ulps, 1},
  };
  checkOps(checks, {halves}, "gfx942", kKeepDenormals);

  std::vector<double> ds = {4.0,    2.0, 0.0,   -0.0, INFINITY,
                            1e-310, 3.0, 1e300, 0.1,  7.0};
  std::vector<uint64_t> bits;
  for (unsigned i = 0; i < kLanes; ++i)
    bits.push_back(bitsOf(i < ds.size() ? ds[i] : double(i) * 1.37));
  auto dbl = [](double (*fn)(double)) {
    return [fn](unsigned, In x) -> uint64_t {
      double r = fn(doubleOf(x[0] | (uint64_t(x[1]) << 32)));
      return std::isnan(r) ? 0xfff8000000000000ull : bitsOf(r);
    };
  };
  checkOps(
      {{"v_rcp_f64_e32 {D}, {A}", dbl(rcpRef), true, Compare::F64Ulps, 0},
       {"v_sqrt_f64_e32 {D}, {A}", dbl(sqrtRef), true, Compare::F64Ulps, 0},
       {"v_rsq_f64_e32 {D}, {A}", dbl(rsqRef), true, Compare::F64Ulps, 1}},
      split64(bits), "gfx942", kKeepDenormals);
}

/// v_trig_preop_f64: bits [shift, shift + 53) of 2/pi's fraction scaled by
/// 2^(-53 - shift) (the ISA pseudocode), from fdlibm's table of 2/pi in
/// 24-bit chunks (1200 bits; the ISA's bit 1201 is 0).
TEST(VALUMath, TrigPreop) {
  static const uint32_t kTwoOverPi24[] = {
      0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C,
      0x439041, 0xFE5163, 0xABDEBB, 0xC561B7, 0x246E3A, 0x424DD2, 0xE00649,
      0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129, 0xA73EE8, 0x8235F5, 0x2EBB44,
      0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C, 0x845F8B,
      0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D,
      0x367ECF, 0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5,
      0xF17B3D, 0x0739F7, 0x8A5292, 0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330,
      0x46FC7B};
  auto bit = [](unsigned i) -> uint64_t {
    return i < 1200 ? (kTwoOverPi24[i / 24] >> (23 - i % 24)) & 1 : 0;
  };
  auto expected = [&](uint64_t s0, uint32_t s1) -> uint64_t {
    int exponent = int(s0 >> 52) & 0x7ff;
    unsigned shift =
        53 * (s1 & 31) + unsigned(exponent > 1077 ? exponent - 1077 : 0);
    uint64_t chunk = 0;
    for (unsigned i = shift; i < shift + 53; ++i)
      chunk = chunk << 1 | bit(i);
    int scale = -53 - int(shift) + (exponent >= 1968 ? 128 : 0);
    // Below 2^-1074 granularity the chunk is truncated into a denormal.
    if (scale < -1074)
      return -1074 - scale >= 64 ? 0 : chunk >> (-1074 - scale);
    return bitsOf(std::ldexp(double(chunk), scale)); // exact
  };
  const double kS0[] = {1.0,      -1.0, 0x1p60, 1e300,  0x1p1000, 1e-310,
                        INFINITY, NAN,  0.5,    0x1p54, 0x1p55};
  const uint32_t kIndex[] = {0, 1, 2, 3, 19, 20, 22, 23, 31, 37};
  std::vector<uint64_t> s0;
  LaneValues index;
  for (unsigned i = 0; i < kLanes; ++i) {
    s0.push_back(bitsOf(kS0[i % 11]));
    index.push_back(kIndex[i % 10]);
  }
  auto wide = [](In x) { return x[0] | uint64_t(x[1]) << 32; };
  std::vector<OpCheck> checks = {
      {"v_trig_preop_f64 {D}, {A}, {c}",
       [&](unsigned, In x) { return expected(wide(x), x[2]); }, true},
      {"v_trig_preop_f64 {D}, -{A}, {c}",
       [&](unsigned, In x) { return expected(wide(x), x[2]); }, true},
      {"v_trig_preop_f64 {D}, |{A}|, 2",
       [&](unsigned, In x) { return expected(wide(x), 2); }, true},
  };
  std::vector<LaneValues> inputs = split64(s0);
  inputs.push_back(index);
  checkOps(checks, inputs, "gfx942", kKeepDenormals);
  checkOps(checks, inputs, "gfx90a", kKeepDenormals, 0x5555aaaa0f0ff0f0ull);
  // Chunk 0 is 2/pi truncated to 53 bits (rounded, it ends in ...883).
  EXPECT_EQ(expected(bitsOf(1.0), 0), bitsOf(0x1.45f306dc9c882p-1));
}

//===----------------------------------------------------------------------===//
// Rounding to integers, fract, frexp, ldexp
//===----------------------------------------------------------------------===//

TEST(VALUMath, IntegralAndExponent) {
  LaneValues in = lanes([](unsigned i) -> uint32_t {
    static const float kValues[] = {
        2.5f,       -2.5f, 3.5f, -0.5f,    0.5f,      1.0f,  -1e-30f, 1e-30f,
        8388609.0f, -0.0f, 0.0f, INFINITY, -INFINITY, 1.75f, -1.25f,  1e-40f};
    if (i < 16)
      return bitsOf(kValues[i]);
    return bitsOf(float(int(i) - 40) * 0.37f);
  });
  in[20] = 0x7fa00000u; // signaling NaN
  auto unary = [](float (*fn)(float)) {
    return [fn](unsigned, In x) -> uint64_t {
      if (isNaN32(x[0]))
        return x[0] | 0x400000;
      return bitsOf(fn(floatOf(x[0])));
    };
  };
  auto fract = [](float v) {
    if (std::isinf(v))
      return floatOf(0xffc00000u);
    float r = v - std::floor(v);
    return r < 1.0f ? r : std::nextafter(1.0f, 0.0f);
  };
  LaneValues exps =
      lanes([](unsigned i) { return uint32_t(int(i % 9) * 37 - 150); });
  std::vector<OpCheck> checks = {
      {"v_floor_f32_e32 {d}, {a}",
       unary([](float v) { return std::floor(v); })},
      {"v_ceil_f32_e32 {d}, {a}", unary([](float v) { return std::ceil(v); })},
      {"v_trunc_f32_e32 {d}, {a}",
       unary([](float v) { return std::trunc(v); })},
      {"v_rndne_f32_e32 {d}, {a}",
       unary([](float v) { return std::nearbyint(v); })},
      {"v_fract_f32_e32 {d}, {a}", unary(fract)},
      // NaN and infinity pass through unchanged (not quieted).
      {"v_frexp_mant_f32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         float v = floatOf(x[0]);
         int e;
         return std::isfinite(v) ? bitsOf(std::frexp(v, &e)) : x[0];
       }},
      {"v_frexp_exp_i32_f32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         float v = floatOf(x[0]);
         int e = 0;
         if (std::isfinite(v))
           std::frexp(v, &e);
         return uint32_t(e);
       }},
      {"v_ldexp_f32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         if (isNaN32(x[0]))
           return x[0] | 0x400000;
         return bitsOf(std::ldexp(floatOf(x[0]), int32_t(x[1])));
       }},
  };
  checkOps(checks, {in, exps}, "gfx942", kKeepDenormals);
  checkOps(checks, {in, exps}, "gfx90a", kKeepDenormals);
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST(VALUMath, Conversions) {
  LaneValues f = lanes([](unsigned i) -> uint32_t {
    static const uint32_t kSpecial[] = {
        0x7fc00001, 0x7f800000, 0xff800000, 0x4f000000, 0xcf000000, 0x4f800000,
        0xbf800000, 0x477fe000, 0x477ff000, 0x33800000, 0x33000001, 0x00000001,
        0xc7800000, 0x3f7fffff, 0x80000000, 0x387fc000};
    if (i < 16)
      return kSpecial[i];
    return bitsOf(float(int(i) * 977 - 31000) / 7.0f);
  });
  auto toI32 = [](float v) -> uint32_t {
    if (std::isnan(v))
      return 0;
    if (v <= -2147483648.0f)
      return 0x80000000u;
    if (v >= 2147483648.0f)
      return 0x7fffffffu;
    return uint32_t(int32_t(v));
  };
  auto toU32 = [](float v) -> uint32_t {
    if (std::isnan(v) || v <= 0)
      return 0;
    if (v >= 4294967296.0f)
      return 0xffffffffu;
    return uint32_t(v);
  };
  std::vector<OpCheck> checks = {
      {"v_cvt_f16_f32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         if (isNaN32(x[0]))
           return 0x7e00 | ((x[0] >> 16) & 0x8000) | ((x[0] >> 13) & 0x3ff);
         return h16d(floatOf(x[0]));
       }},
      {"v_cvt_f32_f16_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         uint16_t h = uint16_t(x[0]);
         if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
           return ((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13);
         return bitsOf(float(fromH16(h)));
       }},
      {"v_cvt_i32_f32_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t { return toI32(floatOf(x[0])); }},
      {"v_cvt_u32_f32_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t { return toU32(floatOf(x[0])); }},
      {"v_cvt_flr_i32_f32_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t {
         return toI32(std::floor(floatOf(x[0])));
       }},
      {"v_cvt_rpi_i32_f32_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t {
         double v = std::floor(double(floatOf(x[0])) + 0.5);
         if (std::isnan(v))
           return 0;
         return v <= -2147483648.0  ? 0x80000000u
                : v >= 2147483647.0 ? 0x7fffffffu
                                    : uint32_t(int32_t(v));
       }},
      {"v_cvt_f32_i32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return bitsOf(float(int32_t(x[0]))); }},
      {"v_cvt_f32_u32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return bitsOf(float(x[0])); }},
      {"v_cvt_pkrtz_f16_f32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         // Nearest, then one step towards zero if that rounded away.
         auto rtz = [](uint32_t b) -> uint32_t {
           float v = floatOf(b);
           if (std::isnan(v))
             return 0x7e00 | ((b >> 16) & 0x8000) | ((b >> 13) & 0x3ff);
           uint16_t h = h16d(v);
           if (std::fabs(fromH16(h)) > std::fabs(double(v)))
             --h;
           return h;
         };
         return rtz(x[0]) | (rtz(x[1]) << 16);
       }},
      {"v_cvt_off_f32_i4_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         int v = int(x[0] & 15);
         return bitsOf(float(v >= 8 ? v - 16 : v) / 16.0f);
       }},
      {"v_cvt_pknorm_i16_f32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         auto snorm = [](uint32_t b) -> uint32_t {
           float v = floatOf(b);
           if (std::isnan(v))
             return 0;
           v = std::fmax(-1.0f, std::fmin(1.0f, v));
           return uint32_t(int32_t(std::nearbyint(double(v) * 32767.0))) &
                  0xffff;
         };
         return snorm(x[0]) | (snorm(x[1]) << 16);
       }},
      {"v_cvt_pknorm_u16_f32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         auto unorm = [](uint32_t b) -> uint32_t {
           float v = floatOf(b);
           if (std::isnan(v))
             return 0;
           v = std::fmax(0.0f, std::fmin(1.0f, v));
           return uint32_t(std::nearbyint(double(v) * 65535.0));
         };
         return unorm(x[0]) | (unorm(x[1]) << 16);
       }},
      {"v_cvt_i16_f16_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         double v = fromH16(uint16_t(x[0]));
         if (std::isnan(v))
           return 0;
         return uint32_t(int32_t(
                    std::fmax(-32768.0, std::fmin(32767.0, std::trunc(v))))) &
                0xffff;
       }},
      {"v_cvt_u16_f16_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         double v = fromH16(uint16_t(x[0]));
         if (std::isnan(v) || v <= 0)
           return 0;
         return uint32_t(std::fmin(65535.0, std::trunc(v)));
       }},
      {"v_cvt_f16_i16_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return h16d(double(int16_t(x[0]))); }},
      {"v_cvt_f16_u16_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return h16d(double(uint16_t(x[0]))); }},
  };
  LaneValues g = f;
  std::reverse(g.begin(), g.end());
  checkOps(checks, {f, g}, "gfx942", kKeepDenormals);
  checkOps(checks, {f, g}, "gfx90a", kKeepDenormals);

  // f64 <-> f32/i32/u32.
  std::vector<uint64_t> d;
  for (unsigned i = 0; i < kLanes; ++i) {
    static const double kValues[] = {
        1e300,        -1e300,        3.4028235677973366e38, 1e-50,        -2.5,
        2147483647.5, -2147483649.0, 4294967296.0,          0x1.000001p0, NAN};
    d.push_back(bitsOf(i < 10 ? kValues[i] : double(int(i) - 32) * 1e5 / 3.0));
  }
  auto dl = split64(d);
  auto D = [](In x) { return doubleOf(x[0] | (uint64_t(x[1]) << 32)); };
  checkOps({{"v_cvt_f32_f64_e32 {d}, {A}",
             [&](unsigned, In x) -> uint64_t {
               return std::isnan(D(x)) ? 0x7fc00000u : bitsOf(float(D(x)));
             }},
            {"v_cvt_i32_f64_e32 {d}, {A}",
             [&](unsigned, In x) -> uint64_t {
               double v = D(x);
               if (std::isnan(v))
                 return 0;
               return v <= -2147483648.0  ? 0x80000000u
                      : v >= 2147483647.0 ? 0x7fffffffu
                                          : uint32_t(int32_t(v));
             }},
            {"v_cvt_u32_f64_e32 {d}, {A}",
             [&](unsigned, In x) -> uint64_t {
               double v = D(x);
               if (std::isnan(v) || v <= 0)
                 return 0;
               return v >= 4294967295.0 ? 0xffffffffu : uint32_t(v);
             }},
            {"v_cvt_f64_f32_e32 {D}, {c}",
             [&](unsigned, In x) -> uint64_t {
               return bitsOf(double(floatOf(x[2])));
             },
             true},
            {"v_cvt_f64_i32_e32 {D}, {c}",
             [&](unsigned, In x) -> uint64_t {
               return bitsOf(double(int32_t(x[2])));
             },
             true},
            {"v_cvt_f64_u32_e32 {D}, {c}",
             [&](unsigned, In x) -> uint64_t { return bitsOf(double(x[2])); },
             true}},
           {dl[0], dl[1], f}, "gfx942", kKeepDenormals);
}

/// The f16 results of conversions follow MODE's f16/f64 round mode, set
/// here with s_setreg (MODE is live state).
TEST(VALUMath, ConversionRoundModes) {
  LaneValues f = lanes([](unsigned i) {
    return bitsOf((1.0f + float(i) / 8192.0f) * (i % 2 ? -1.0f : 1.0f));
  });
  // The nearest-even result, moved to the neighbouring f16 value when it is
  // on the wrong side of the exact value (these inputs are normal and far
  // from zero).
  auto magnitudeUp = [](uint16_t h) { return uint16_t(h + 1); };
  auto magnitudeDown = [](uint16_t h) { return uint16_t(h - 1); };
  for (unsigned mode = 0; mode < 4; ++mode)
    checkOps({{formatv("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), {0}\n"
                       "  v_cvt_f16_f32_e32 {{d}, {{a}\n"
                       "  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 0",
                       mode)
                   .str(),
               [=](unsigned, In x) -> uint64_t {
                 double v = floatOf(x[0]);
                 uint16_t h = h16d(v);
                 double r = fromH16(h);
                 bool negative = v < 0;
                 if (mode == 1 && r < v)
                   h = negative ? magnitudeDown(h) : magnitudeUp(h);
                 if (mode == 2 && r > v)
                   h = negative ? magnitudeUp(h) : magnitudeDown(h);
                 if (mode == 3 && std::fabs(r) > std::fabs(v))
                   h = magnitudeDown(h);
                 return h;
               }}},
             {f}, "gfx942");
}

//===----------------------------------------------------------------------===//
// Multiply-add forms
//===----------------------------------------------------------------------===//

/// v_mad/v_mac (gfx90a) round the product first and never keep denormals;
/// v_fmamk/v_fmaak (gfx940+) and v_madmk/v_madak (gfx90a) take a literal.
TEST(VALUMath, MultiplyAdd) {
  Random rng(12);
  LaneValues a = lanes([&](unsigned) {
    return bitsOf(1.0f + float(rng.next() % (1 << 23)) / float(1 << 23));
  });
  LaneValues b = lanes([&](unsigned) {
    return bitsOf(1.0f + float(rng.next() % (1 << 23)) / float(1 << 23));
  });
  LaneValues c = lanes([&](unsigned i) {
    return i < 4 ? 0x00000005u : bitsOf(-float(rng.next() % 1000) / 300.0f);
  });
  auto unfused = [](uint32_t x, uint32_t y, uint32_t z) -> uint32_t {
    float p = floatOf(flush32(x)) * floatOf(flush32(y));
    return flush32(bitsOf(floatOf(flush32(bitsOf(p))) + floatOf(flush32(z))));
  };
  auto fused = [](uint32_t x, uint32_t y, uint32_t z) -> uint32_t {
    return bitsOf(std::fma(floatOf(x), floatOf(y), floatOf(z)));
  };
  checkOps(
      {{"v_mad_f32 {d}, {a}, {b}, {c}",
        [&](unsigned, In x) -> uint64_t { return unfused(x[0], x[1], x[2]); }},
       {"v_mov_b32 {d}, {c}\n  v_mac_f32_e32 {d}, {a}, {b}",
        [&](unsigned, In x) -> uint64_t { return unfused(x[0], x[1], x[2]); }},
       {"v_madmk_f32 {d}, {a}, 0x3fc00000, {c}",
        [&](unsigned, In x) -> uint64_t {
          return unfused(x[0], 0x3fc00000u, x[2]);
        }},
       {"v_madak_f32 {d}, {a}, {b}, 0x3fc00000",
        [&](unsigned, In x) -> uint64_t {
          return unfused(x[0], x[1], 0x3fc00000u);
        }},
       {"v_mad_legacy_f32 {d}, {a}, 0, {c}",
        [&](unsigned, In x) -> uint64_t { return flush32(x[2]); }},
       {"v_fma_f32 {d}, {a}, {b}, {c}",
        [&](unsigned, In x) -> uint64_t { return fused(x[0], x[1], x[2]); }}},
      {a, b, c}, "gfx90a", kKeepDenormals);
  checkOps(
      {
          {"v_fmamk_f32 {d}, {a}, 0x3fc00000, {c}",
           [&](unsigned, In x) -> uint64_t {
             return fused(x[0], 0x3fc00000u, x[2]);
           }},
          {"v_fmaak_f32 {d}, {a}, {b}, 0x3fc00000",
           [&](unsigned, In x) -> uint64_t {
             return fused(x[0], x[1], 0x3fc00000u);
           }},
      },
      {a, b, c}, "gfx942", kKeepDenormals);
  // v_mac_f16 / v_madmk_f16: unfused, and they keep the high half on gfx9.
  LaneValues ha =
      lanes([](unsigned i) { return 0x11110000u | h16d(1.0 + i / 64.0); });
  LaneValues hb =
      lanes([](unsigned i) { return 0x22220000u | h16d(3.0 - i / 32.0); });
  LaneValues hc =
      lanes([](unsigned i) { return 0x33330000u | h16d(i / 16.0 - 2.0); });
  auto mac16 = [](uint32_t x, uint32_t y, uint32_t z) -> uint32_t {
    double p = fromH16(h16d(fromH16(uint16_t(x)) * fromH16(uint16_t(y))));
    return h16d(p + fromH16(uint16_t(z)));
  };
  for (std::string chip : {"gfx942", "gfx90a"})
    checkOps({{"v_mov_b32 {d}, {c}\n  v_mac_f16_e32 {d}, {a}, {b}",
               [&](unsigned, In x) -> uint64_t {
                 return (x[2] & 0xffff0000u) | mac16(x[0], x[1], x[2]);
               }},
              {"v_madmk_f16 {d}, {a}, 0x3e00, {c}",
               [&](unsigned, In x) -> uint64_t {
                 return 0xdead0000u | mac16(x[0], 0x3e00, x[2]);
               }}},
             {ha, hb, hc}, chip, kKeepDenormals);
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// fp8 / bf8 (gfx940+)
//===----------------------------------------------------------------------===//

struct Fp8Spec {
  int expBits, manBits, bias;
  bool fnuz, hasInf;
};

/// The value of an fp8 code per the format definition (NaN as NaN).
double fp8Value(uint8_t code, const Fp8Spec &s) {
  if (s.fnuz && code == 0x80)
    return NAN;
  int e = (code >> s.manBits) & ((1 << s.expBits) - 1);
  int m = code & ((1 << s.manBits) - 1);
  int expMax = (1 << s.expBits) - 1;
  if (!s.fnuz && e == expMax) {
    if (s.hasInf)
      return m ? NAN : ((code & 0x80) ? -INFINITY : INFINITY);
    if (m == (1 << s.manBits) - 1)
      return NAN;
  }
  double v = e ? std::ldexp(1.0 + m / double(1 << s.manBits), e - s.bias)
               : std::ldexp(m / double(1 << s.manBits), 1 - s.bias);
  return (code & 0x80) ? -v : v;
}

/// Round-to-nearest-even by exhaustive search over the finite codes; values
/// past the largest (after rounding) and infinities overflow.
uint8_t fp8Encode(float x, const Fp8Spec &s) {
  uint8_t nan = s.fnuz ? 0x80 : (s.hasInf ? 0x7e : 0x7f);
  if (std::isnan(x))
    return s.fnuz ? 0x80 : uint8_t((std::signbit(x) ? 0x80 : 0) | nan);
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  uint8_t overflow =
      s.hasInf ? uint8_t(sign | 0x7c) : (s.fnuz ? 0x80 : uint8_t(sign | nan));
  double a = std::fabs(double(x));
  int best = -1;
  double bestDiff = INFINITY, max = 0;
  for (int c = 0; c < 128; ++c) {
    double v = fp8Value(uint8_t(c), s);
    if (!std::isfinite(v))
      continue;
    max = std::max(max, v);
    double d = std::fabs(v - a);
    if (d < bestDiff || (d == bestDiff && !(c & 1))) {
      best = c;
      bestDiff = d;
    }
  }
  // Beyond max: compare with the next step above max (even code).
  int maxCode = 0;
  for (int c = 0; c < 128; ++c)
    if (fp8Value(uint8_t(c), s) == max)
      maxCode = c;
  double ulp = max - fp8Value(uint8_t(maxCode - 1), s);
  if (std::isinf(a) || a > max + ulp / 2 ||
      (a == max + ulp / 2 && (maxCode & 1)))
    return overflow;
  if (best == 0 && s.fnuz)
    return 0; // no negative zero
  return uint8_t(sign | best);
}

TEST(VALUMath, Fp8Conversions) {
  const Fp8Spec fnuzE4M3{4, 3, 8, true, false}, fnuzE5M2{5, 2, 16, true, false};
  const Fp8Spec ocpE4M3{4, 3, 7, false, false}, ocpE5M2{5, 2, 15, false, true};
  // Every code, in the four bytes of 64 lanes.
  LaneValues codes = lanes([](unsigned i) {
    return (i * 4) | ((i * 4 + 1) << 8) | ((i * 4 + 2) << 16) |
           ((i * 4 + 3) << 24);
  });
  Random rng(13);
  LaneValues fa = lanes([&](unsigned i) -> uint32_t {
    static const float kSpecial[] = {
        0.0f,      -0.0f,  240.0f,        248.0f,   247.9f,   256.0f,
        448.0f,    464.0f, 465.0f,        57344.0f, 61440.0f, INFINITY,
        -INFINITY, NAN,    0.0009765625f, 1e-9f};
    if (i < 16)
      return bitsOf(kSpecial[i]);
    float v = std::ldexp(float(rng.next() % 1000) / 999.0f + 1.0f,
                         int(rng.next() % 40) - 22);
    return bitsOf(i % 2 ? -v : v);
  });
  LaneValues fb = fa;
  std::reverse(fb.begin(), fb.end());
  auto decodeChecks = [&](const Fp8Spec &fp8, const Fp8Spec &bf8) {
    std::vector<OpCheck> checks;
    for (unsigned byte = 0; byte < 4; ++byte) {
      auto expect = [=](const Fp8Spec &s) {
        return [=](unsigned, In x) -> uint64_t {
          double v = fp8Value(uint8_t(x[0] >> (8 * byte)), s);
          return std::isnan(v) ? 0x7fc00000u : bitsOf(float(v));
        };
      };
      checks.push_back(
          {formatv("v_cvt_f32_fp8_sdwa {{d}, {{a} src0_sel:BYTE_{0}", byte)
               .str(),
           expect(fp8)});
      checks.push_back(
          {formatv("v_cvt_f32_bf8_sdwa {{d}, {{a} src0_sel:BYTE_{0}", byte)
               .str(),
           expect(bf8)});
    }
    checks.push_back({"v_cvt_pk_f32_fp8_sdwa {D}, {a} src0_sel:WORD_1",
                      [=](unsigned, In x) -> uint64_t {
                        auto f = [&](unsigned b) -> uint64_t {
                          double v = fp8Value(uint8_t(x[0] >> b), fp8);
                          return std::isnan(v) ? 0x7fc00000u : bitsOf(float(v));
                        };
                        return f(16) | (f(24) << 32);
                      },
                      true});
    return checks;
  };
  auto encodeChecks = [&](const Fp8Spec &fp8, const Fp8Spec &bf8) {
    return std::vector<OpCheck>{
        {"v_cvt_pk_fp8_f32 {d}, {b}, {c}",
         [=](unsigned, In x) -> uint64_t {
           return 0xdead0000u | fp8Encode(floatOf(x[1]), fp8) |
                  (uint32_t(fp8Encode(floatOf(x[2]), fp8)) << 8);
         }},
        {"v_cvt_pk_bf8_f32 {d}, -{b}, {c} op_sel:[0,0,1]",
         [=](unsigned, In x) -> uint64_t {
           return 0xbeefu | (uint32_t(fp8Encode(-floatOf(x[1]), bf8)) << 16) |
                  (uint32_t(fp8Encode(floatOf(x[2]), bf8)) << 24);
         }}};
  };
  const char *mode = ".amdhsa_float_denorm_mode_32 3";
  checkOps(decodeChecks(fnuzE4M3, fnuzE5M2), {codes}, "gfx942", mode);
  checkOps(encodeChecks(fnuzE4M3, fnuzE5M2), {codes, fa, fb}, "gfx942", mode);
  checkOps(decodeChecks(ocpE4M3, ocpE5M2), {codes}, "gfx950", mode);
  checkOps(encodeChecks(ocpE4M3, ocpE5M2), {codes, fa, fb}, "gfx950", mode);
}

} // namespace
