//===- VALUFloatTest.cpp - VALU floating-point operations -----------------===//
//
// Expected values are computed with the host's IEEE arithmetic (x86-64 SSE:
// round-to-nearest-even, denormals kept) and clang's _Float16, plus the
// ISA's rules written out here: NaN inputs propagate quieted (the first NaN
// of S0, S1, S2), invalid operations give the default NaN 0xffc00000,
// MODE's denormal flushing, IEEE-mode min/max.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

using In = const uint32_t *;

// MODE set-ups (kernel descriptor directives).
const char *kKeepDenormals = ".amdhsa_float_denorm_mode_32 3\n"
                             ".amdhsa_float_denorm_mode_16_64 3";
const char *kFlushDenormals = ".amdhsa_float_denorm_mode_32 0\n"
                              ".amdhsa_float_denorm_mode_16_64 0";

constexpr uint32_t kDefaultNaN = 0xffc00000u;

bool isNaN32(uint32_t b) {
  return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffff);
}
bool isDenormal32(uint32_t b) { return !(b & 0x7f800000u) && (b & 0x7fffff); }
uint32_t flush32(uint32_t b) { return isDenormal32(b) ? b & 0x80000000u : b; }

/// A binary f32 operation with the ISA's NaN rules around host arithmetic.
uint32_t ref2(uint32_t a, uint32_t b, float (*op)(float, float),
              bool flush = false) {
  if (isNaN32(a))
    return a | 0x400000;
  if (isNaN32(b))
    return b | 0x400000;
  if (flush) {
    a = flush32(a);
    b = flush32(b);
  }
  uint32_t r = bitsOf(op(floatOf(a), floatOf(b)));
  if (isNaN32(r))
    return kDefaultNaN;
  return flush ? flush32(r) : r;
}
uint32_t ref3(uint32_t a, uint32_t b, uint32_t c,
              float (*op)(float, float, float), bool flush = false) {
  for (uint32_t v : {a, b, c})
    if (isNaN32(v))
      return v | 0x400000;
  if (flush) {
    a = flush32(a);
    b = flush32(b);
    c = flush32(c);
  }
  uint32_t r = bitsOf(op(floatOf(a), floatOf(b), floatOf(c)));
  if (isNaN32(r))
    return kDefaultNaN;
  return flush ? flush32(r) : r;
}
float addOp(float a, float b) { return a + b; }
float subOp(float a, float b) { return a - b; }
float mulOp(float a, float b) { return a * b; }
float fmaOp(float a, float b, float c) { return std::fma(a, b, c); }

/// IEEE-mode minimum/maximum as the v_min_f32 pseudocode defines them.
uint32_t refMinMax(uint32_t a, uint32_t b, bool max, bool ieee) {
  auto signaling = [](uint32_t v) { return isNaN32(v) && !(v & 0x400000); };
  if (ieee && signaling(a))
    return a | 0x400000;
  if (ieee && signaling(b))
    return b | 0x400000;
  if (isNaN32(a))
    return b;
  if (isNaN32(b))
    return a;
  float x = floatOf(a), y = floatOf(b);
  if (x == 0 && y == 0) // -0 < +0
    return max ? ((a >> 31) ? b : a) : ((a >> 31) ? a : b);
  if (max)
    return x >= y ? a : b;
  return x < y ? a : b;
}

/// Normal f32 values, specials, denormals, NaNs (quiet and signaling).
LaneValues floatInputs(uint64_t seed) {
  static const uint32_t kSpecial[] = {
      0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
      0x7fc00000, 0x7f800001, 0xffc12345, 0x00000001, 0x807fffff, 0x00400000,
      0x7f7fffff, 0xff7fffff, 0x00800000, 0x3f000000};
  Random rng(seed);
  return lanes([&](unsigned i) -> uint32_t {
    if (i < 16)
      return kSpecial[(i * 5 + seed) % 16];
    float v = float(int32_t(rng.next() % 2000000) - 1000000) / 1024.0f;
    if (i % 7 == 0)
      v = std::ldexp(v, -135); // denormal results
    return bitsOf(v);
  });
}

TEST(VALUFloat, ArithmeticF32) {
  std::vector<LaneValues> in = {floatInputs(1), floatInputs(2), floatInputs(3)};
  for (bool flush : {false, true}) {
    std::vector<OpCheck> checks = {
        {"v_add_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[0], x[1], addOp, flush);
         }},
        {"v_sub_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[0], x[1], subOp, flush);
         }},
        {"v_subrev_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[1], x[0], subOp, flush);
         }},
        {"v_mul_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[0], x[1], mulOp, flush);
         }},
        {"v_fma_f32 {d}, {a}, {b}, {c}",
         [&](unsigned, In x) -> uint64_t {
           return ref3(x[0], x[1], x[2], fmaOp, flush);
         }},
        {"v_mov_b32 {d}, {c}\n  v_fmac_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return ref3(x[0], x[1], x[2], fmaOp, flush);
         }},
        // e64 source modifiers: abs, then neg.
        {"v_add_f32_e64 {d}, -{a}, |{b}|",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[0] ^ 0x80000000u, x[1] & 0x7fffffffu, addOp, flush);
         }},
        {"v_mul_f32_e64 {d}, -|{a}|, -{b}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(x[0] | 0x80000000u, x[1] ^ 0x80000000u, mulOp, flush);
         }},
        {"v_fma_f32 {d}, {a}, -{b}, -|{c}|",
         [&](unsigned, In x) -> uint64_t {
           return ref3(x[0], x[1] ^ 0x80000000u, x[2] | 0x80000000u, fmaOp,
                       flush);
         }},
        // Inline constants and a literal.
        {"v_add_f32_e32 {d}, 0.5, {a}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(0x3f000000u, x[0], addOp, flush);
         }},
        {"v_mul_f32_e32 {d}, 0x40490fdb, {a}",
         [&](unsigned, In x) -> uint64_t {
           return ref2(0x40490fdbu, x[0], mulOp, flush);
         }},
        {"v_fma_f32 {d}, {a}, 4.0, -1.0",
         [&](unsigned, In x) -> uint64_t {
           return ref3(x[0], 0x40800000u, 0xbf800000u, fmaOp, flush);
         }},
        {"v_mul_legacy_f32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           uint32_t a = flush ? flush32(x[0]) : x[0];
           uint32_t b = flush ? flush32(x[1]) : x[1];
           if (!(a & 0x7fffffff) || !(b & 0x7fffffff))
             return 0; // DX9: 0 * anything = +0
           return ref2(x[0], x[1], mulOp, flush);
         }},
    };
    checkOps(checks, in, "gfx942", flush ? kFlushDenormals : kKeepDenormals);
    checkOps(checks, in, "gfx90a", flush ? kFlushDenormals : kKeepDenormals);
  }
}

TEST(VALUFloat, MinMaxIeeeMode) {
  std::vector<LaneValues> in = {floatInputs(4), floatInputs(5), floatInputs(6)};
  for (bool ieee : {true, false}) {
    std::string mode = std::string(kKeepDenormals) +
                       formatv("\n.amdhsa_ieee_mode {0}", ieee ? 1 : 0).str();
    auto mn = [ieee](uint32_t a, uint32_t b) {
      return refMinMax(a, b, false, ieee);
    };
    auto mx = [ieee](uint32_t a, uint32_t b) {
      return refMinMax(a, b, true, ieee);
    };
    std::vector<OpCheck> checks = {
        {"v_min_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t { return mn(x[0], x[1]); }},
        {"v_max_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t { return mx(x[0], x[1]); }},
        {"v_min3_f32 {d}, {a}, {b}, {c}",
         [&](unsigned, In x) -> uint64_t { return mn(mn(x[0], x[1]), x[2]); }},
        {"v_max3_f32 {d}, {a}, {b}, {c}",
         [&](unsigned, In x) -> uint64_t { return mx(mx(x[0], x[1]), x[2]); }},
        {"v_med3_f32 {d}, {a}, {b}, {c}",
         [&](unsigned, In x) -> uint64_t {
           if (isNaN32(x[0]) || isNaN32(x[1]) || isNaN32(x[2]))
             return mn(mn(x[0], x[1]), x[2]);
           float top = floatOf(mx(mx(x[0], x[1]), x[2]));
           if (top == floatOf(x[0]))
             return mx(x[1], x[2]);
           if (top == floatOf(x[1]))
             return mx(x[0], x[2]);
           return mx(x[0], x[1]);
         }},
        {"v_max_f32_e64 {d}, -{a}, |{b}|",
         [&](unsigned, In x) -> uint64_t {
           return mx(x[0] ^ 0x80000000u, x[1] & 0x7fffffffu);
         }},
    };
    checkOps(checks, in, "gfx942", mode);
  }
}

/// f32 denormals with MODE.FP_DENORM: 0 (flush in and out), 1 (flush out),
/// 2 (flush in), 3 (keep).
TEST(VALUFloat, DenormalModes) {
  LaneValues a = lanes([](unsigned i) -> uint32_t {
    return i % 2 ? 0x00000005u + i : 0x80400000u | i; // denormals
  });
  LaneValues b = lanes([](unsigned i) -> uint32_t {
    return i % 3 ? 0x00000000u : 0x3f000000u; // 0 or 0.5
  });
  for (unsigned field = 0; field < 4; ++field) {
    bool keepIn = field & 1, keepOut = field & 2;
    auto in = [&](uint32_t v) { return keepIn ? v : flush32(v); };
    auto out = [&](uint32_t v) { return keepOut ? v : flush32(v); };
    std::vector<OpCheck> checks = {
        {"v_add_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return out(bitsOf(floatOf(in(x[0])) + floatOf(x[1])));
         }},
        {"v_mul_f32_e32 {d}, 1.0, {a}",
         [&](unsigned, In x) -> uint64_t {
           return out(bitsOf(floatOf(in(x[0])) * 1.0f));
         }},
        // A denormal result from normal inputs: 2^-100 * 2^-30.
        {"v_mov_b32 {d}, 0x30800000\n  v_mul_f32_e32 {d}, 0x0d800000, {d}",
         [&](unsigned, In) -> uint64_t { return out(0x00080000u); }},
        {"v_max_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return out(refMinMax(in(x[0]), x[1], true, true));
         }},
        // Bit moves are not floating-point operations.
        {"v_mov_b32_e32 {d}, {a}",
         [&](unsigned, In x) -> uint64_t { return x[0]; }},
        {"s_mov_b64 s[20:21], 0\n  v_cndmask_b32_e64 {d}, {a}, {b}, s[20:21]",
         [&](unsigned, In x) -> uint64_t { return x[0]; }},
    };
    checkOps(checks, {a, b}, "gfx942",
             formatv(".amdhsa_float_denorm_mode_32 {0}", field).str());
  }
}

/// omod (x2, x4, /2) applies only with MODE.IEEE clear and output
/// denormals flushed; clamp limits to [0, 1] with NaN -> 0 under DX10_CLAMP.
TEST(VALUFloat, OutputModifiers) {
  LaneValues a =
      cycle({bitsOf(0.75f), bitsOf(-0.75f), bitsOf(0.3f), 0x7fc00000u,
             bitsOf(3.0f), 0x80000000u, bitsOf(1e-39f), bitsOf(-3.5f)});
  LaneValues b = cycle({bitsOf(0.125f), 0x80000000u});
  auto sum = [](In x) { return floatOf(x[0]) + floatOf(x[1]); };
  auto clamp01 = [](float v, bool dx10) -> uint32_t {
    if (std::isnan(v))
      return dx10 ? 0u : bitsOf(v);
    if (std::signbit(v))
      return 0u;
    return bitsOf(v > 1.0f ? 1.0f : v);
  };
  for (bool dx10 : {true, false}) {
    std::string mode = formatv(".amdhsa_ieee_mode 0\n.amdhsa_dx10_clamp {0}\n"
                               ".amdhsa_float_denorm_mode_32 0",
                               dx10 ? 1 : 0)
                           .str();
    auto omod = [](float v, float k) -> uint32_t {
      uint32_t r = flush32(bitsOf(v * k));
      return r == 0x80000000u ? 0u : r; // -0 becomes +0
    };
    std::vector<OpCheck> checks = {
        {"v_add_f32_e64 {d}, {a}, {b} mul:2",
         [&](unsigned, In x) -> uint64_t {
           return std::isnan(sum(x)) ? uint64_t(x[0]) : omod(sum(x), 2);
         }},
        {"v_add_f32_e64 {d}, {a}, {b} mul:4",
         [&](unsigned, In x) -> uint64_t {
           return std::isnan(sum(x)) ? uint64_t(x[0]) : omod(sum(x), 4);
         }},
        {"v_add_f32_e64 {d}, {a}, {b} div:2",
         [&](unsigned, In x) -> uint64_t {
           return std::isnan(sum(x)) ? uint64_t(x[0]) : omod(sum(x), 0.5f);
         }},
        {"v_add_f32_e64 {d}, {a}, {b} clamp",
         [&](unsigned, In x) -> uint64_t {
           return clamp01(floatOf(flush32(bitsOf(sum(x)))), dx10);
         }},
        {"v_mul_f32_e64 {d}, {a}, 4.0 clamp mul:2",
         [&](unsigned, In x) -> uint64_t {
           float v = floatOf(flush32(x[0])) * 4.0f;
           if (std::isnan(v))
             return clamp01(floatOf(x[0]), dx10);
           return clamp01(floatOf(omod(v, 2)), dx10);
         }},
    };
    checkOps(checks, {a, b}, "gfx942", mode);
  }
  // IEEE mode, or output denormals kept: omod is ignored.
  for (const char *mode :
       {".amdhsa_ieee_mode 1\n.amdhsa_float_denorm_mode_32 0",
        ".amdhsa_ieee_mode 0\n.amdhsa_float_denorm_mode_32 3"})
    checkOps({{"v_add_f32_e64 {d}, {a}, {b} mul:4",
               [&](unsigned, In x) -> uint64_t {
                 uint32_t r = bitsOf(sum(x));
                 if (std::isnan(sum(x)))
                   return x[0];
                 return std::strstr(mode, "mode_32 0") ? flush32(r) : r;
               }}},
             {a, b}, "gfx942", mode);
}

/// Rounds a double to f32 in one of the MODE round modes (1 toward +inf,
/// 2 toward -inf, 3 toward zero): the nearest-even result moved one ulp
/// when it lies on the wrong side of the exact value.
uint32_t roundTo32(double exact, unsigned mode) {
  float f = float(exact);
  if (mode == 1 && double(f) < exact)
    f = std::nextafter(f, INFINITY);
  if (mode == 2 && double(f) > exact)
    f = std::nextafter(f, -INFINITY);
  if (mode == 3 && std::fabs(double(f)) > std::fabs(exact))
    f = std::nextafter(f, 0.0f);
  return bitsOf(f);
}

TEST(VALUFloat, RoundModes) {
  // Operands chosen so that sums, products and a * b + a are exact in
  // double: 20-bit and 10-bit significands.
  Random rng(77);
  LaneValues a = lanes([&](unsigned i) {
    float v = float(rng.next() % (1u << 20)) / 4096.0f;
    return bitsOf(i % 2 ? -v : v);
  });
  LaneValues b = lanes(
      [&](unsigned) { return bitsOf(float(rng.next() % 1000 + 1) / 8.0f); });
  LaneValues ints = lanes([&](unsigned i) { return rng.next() | (i << 31); });
  for (unsigned mode = 1; mode < 4; ++mode) {
    std::string directives = formatv(".amdhsa_float_round_mode_32 {0}\n"
                                     ".amdhsa_float_round_mode_16_64 {0}\n{1}",
                                     mode, kKeepDenormals)
                                 .str();
    std::vector<OpCheck> checks = {
        {"v_add_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return roundTo32(double(floatOf(x[0])) + floatOf(x[1]), mode);
         }},
        {"v_mul_f32_e32 {d}, {a}, {b}",
         [&](unsigned, In x) -> uint64_t {
           return roundTo32(double(floatOf(x[0])) * floatOf(x[1]), mode);
         }},
        {"v_fma_f32 {d}, {a}, {b}, {a}",
         [&](unsigned, In x) -> uint64_t {
           // a * b + a is exact in double for these inputs.
           return roundTo32(
               double(floatOf(x[0])) * floatOf(x[1]) + floatOf(x[0]), mode);
         }},
        {"v_cvt_f32_i32_e32 {d}, {c}",
         [&](unsigned, In x) -> uint64_t {
           return roundTo32(double(int32_t(x[2])), mode);
         }},
        {"v_cvt_f32_u32_e32 {d}, {c}",
         [&](unsigned, In x) -> uint64_t {
           return roundTo32(double(x[2]), mode);
         }},
        {"v_sqrt_f32_e64 {d}, |{a}|", // transcendental: round to nearest
         [&](unsigned, In x) -> uint64_t {
           return bitsOf(std::sqrt(std::fabs(floatOf(x[0]))));
         }},
    };
    checkOps(checks, {a, b, ints}, "gfx942", directives);
  }
}

/// f16 arithmetic against clang's _Float16 (computed in float and rounded
/// once, which is exact for +, -, *); VOP1/VOP2 results zero bits [31:16].
uint16_t h16(float f) {
  _Float16 h = (_Float16)f;
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
/// Double to f16 with one rounding (clang's __truncdfhf2).
uint16_t h16d(double d) {
  _Float16 h = (_Float16)d;
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
float fromH16(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return float(h);
}
bool isNaN16(uint16_t b) { return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }

LaneValues halfInputs(uint64_t seed) {
  static const uint16_t kSpecial[] = {0x0000, 0x8000, 0x3c00, 0xbc00,
                                      0x7c00, 0xfc00, 0x7e00, 0x7c01,
                                      0x0001, 0x83ff, 0x7bff, 0x0400};
  Random rng(seed);
  return lanes([&](unsigned i) -> uint32_t {
    uint16_t lo = i < 12
                      ? kSpecial[(i + seed) % 12]
                      : h16(float(int32_t(rng.next() % 20000) - 10000) / 64.0f);
    return lo | (rng.next() << 16); // garbage in the high half
  });
}

uint32_t refH(uint32_t a, uint32_t b, float (*op)(float, float)) {
  uint16_t x = uint16_t(a), y = uint16_t(b);
  if (isNaN16(x))
    return x | 0x200;
  if (isNaN16(y))
    return y | 0x200;
  uint16_t r = h16(op(fromH16(x), fromH16(y)));
  return isNaN16(r) ? 0xfe00 : r;
}

TEST(VALUFloat, ArithmeticF16) {
  std::vector<LaneValues> in = {halfInputs(1), halfInputs(2), halfInputs(3)};
  std::vector<OpCheck> checks = {
      {"v_add_f16_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return refH(x[0], x[1], addOp); }},
      {"v_sub_f16_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return refH(x[0], x[1], subOp); }},
      {"v_mul_f16_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return refH(x[0], x[1], mulOp); }},
      {"v_add_f16_e64 {d}, -{a}, |{b}|",
       [](unsigned, In x) -> uint64_t {
         return refH(x[0] ^ 0x8000, x[1] & 0x7fff, addOp);
       }},
      {"v_add_f16_e32 {d}, 0.5, {a}",
       [](unsigned, In x) -> uint64_t { return refH(0x3800, x[0], addOp); }},
      {"v_max_f16_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         uint16_t p = uint16_t(x[0]), q = uint16_t(x[1]);
         auto sig = [](uint16_t v) { return isNaN16(v) && !(v & 0x200); };
         if (sig(p))
           return p | 0x200;
         if (sig(q))
           return q | 0x200;
         if (isNaN16(p))
           return q;
         if (isNaN16(q))
           return p;
         if (!(p & 0x7fff) && !(q & 0x7fff))
           return (p >> 15) ? q : p;
         return fromH16(p) >= fromH16(q) ? p : q;
       }},
      // fma: a * b + c is exact in double for these operands (f16 low
      // halves, small integers in the high halves); one rounding to f16.
      {"v_fma_f16 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         uint16_t p = uint16_t(x[0]), q = uint16_t(x[1]), r = uint16_t(x[2]);
         for (uint16_t v : {p, q, r})
           if (isNaN16(v))
             return 0xdead0000u | v | 0x200;
         double e = double(fromH16(p)) * fromH16(q) + fromH16(r);
         uint16_t h = h16d(e);
         return 0xdead0000u | (isNaN16(h) ? 0xfe00 : h);
       }},
      // gfx9's v_fma_legacy_f16 (the VI encoding): the same value, the
      // destination's high half zeroed instead of kept.
      {"v_fma_legacy_f16 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         uint16_t p = uint16_t(x[0]), q = uint16_t(x[1]), r = uint16_t(x[2]);
         for (uint16_t v : {p, q, r})
           if (isNaN16(v))
             return v | 0x200;
         double e = double(fromH16(p)) * fromH16(q) + fromH16(r);
         uint16_t h = h16d(e);
         return isNaN16(h) ? 0xfe00 : h;
       }},
      {"v_fma_f16 {d}, {a}, {b}, {c} op_sel:[1,1,1,1]",
       [](unsigned, In x) -> uint64_t {
         uint16_t p = uint16_t(x[0] >> 16), q = uint16_t(x[1] >> 16),
                  r = uint16_t(x[2] >> 16);
         uint16_t h;
         if (isNaN16(p) || isNaN16(q) || isNaN16(r))
           h = (isNaN16(p) ? p : isNaN16(q) ? q : r) | 0x200;
         else {
           double e = double(fromH16(p)) * fromH16(q) + fromH16(r);
           h = h16d(e);
           if (isNaN16(h))
             h = 0xfe00;
         }
         return (uint32_t(h) << 16) | 0xbeef;
       }},
  };
  // The high halves are random f16 patterns: keep them finite and small
  // for the exactness argument of the fma reference.
  for (LaneValues &v : in)
    for (unsigned i = 0; i < kLanes; ++i)
      v[i] = (v[i] & 0xffff) | (uint32_t(h16(float(i % 13) - 6.0f)) << 16);
  checkOps(checks, in, "gfx942", kKeepDenormals);
  checkOps(checks, in, "gfx90a", kKeepDenormals);
}

/// f64 arithmetic.
TEST(VALUFloat, ArithmeticF64) {
  Random rng(3);
  std::vector<uint64_t> specials = {0,
                                    0x8000000000000000ull,
                                    bitsOf(1.0),
                                    bitsOf(-2.5),
                                    0x7ff0000000000000ull,
                                    0xfff0000000000000ull,
                                    0x7ff8000000000000ull,
                                    0x7ff0000000000001ull,
                                    0x0000000000000001ull,
                                    0x800fffffffffffffull};
  auto make = [&](uint64_t salt) {
    std::vector<uint64_t> v(kLanes);
    for (unsigned i = 0; i < kLanes; ++i)
      v[i] = i < specials.size()
                 ? specials[(i + salt) % specials.size()]
                 : bitsOf(double(int64_t(rng.next()) - (int64_t(1) << 31)) /
                          977.0);
    return v;
  };
  std::vector<uint64_t> x = make(0), y = make(3), z = make(5);
  auto xs = split64(x), ys = split64(y), zs = split64(z);
  std::vector<LaneValues> in = {xs[0], xs[1], ys[0], ys[1], zs[0], zs[1]};
  auto isNaN64 = [](uint64_t b) {
    return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
           (b & 0xfffffffffffffull);
  };
  auto nanRule = [&](std::initializer_list<uint64_t> ops, double r) {
    for (uint64_t v : ops)
      if (isNaN64(v))
        return v | 0x8000000000000ull;
    uint64_t b = bitsOf(r);
    return isNaN64(b) ? 0xfff8000000000000ull : b;
  };
  auto A = [](In v) { return v[0] | (uint64_t(v[1]) << 32); };
  auto B = [](In v) { return v[2] | (uint64_t(v[3]) << 32); };
  auto C = [](In v) { return v[4] | (uint64_t(v[5]) << 32); };
  std::vector<OpCheck> checks = {
      {"v_add_f64 {D}, {A}, {B}",
       [&](unsigned, In v) -> uint64_t {
         return nanRule({A(v), B(v)}, doubleOf(A(v)) + doubleOf(B(v)));
       },
       true},
      {"v_mul_f64 {D}, {A}, -{B}",
       [&](unsigned, In v) -> uint64_t {
         uint64_t b = B(v) ^ 0x8000000000000000ull;
         return nanRule({A(v), b}, doubleOf(A(v)) * doubleOf(b));
       },
       true},
      {"v_fma_f64 {D}, {A}, {B}, {C}",
       [&](unsigned, In v) -> uint64_t {
         return nanRule(
             {A(v), B(v), C(v)},
             std::fma(doubleOf(A(v)), doubleOf(B(v)), doubleOf(C(v))));
       },
       true},
      {"v_mov_b64 {D}, {C}\n  v_fmac_f64_e32 {D}, {A}, {B}",
       [&](unsigned, In v) -> uint64_t {
         return nanRule(
             {A(v), B(v), C(v)},
             std::fma(doubleOf(A(v)), doubleOf(B(v)), doubleOf(C(v))));
       },
       true},
      {"v_add_f64 {D}, {A}, 1.0",
       [&](unsigned, In v) -> uint64_t {
         return nanRule({A(v)}, doubleOf(A(v)) + 1.0);
       },
       true},
      {"v_ldexp_f64 {D}, {A}, {e}",
       [&](unsigned, In v) -> uint64_t {
         if (isNaN64(A(v)))
           return A(v) | 0x8000000000000ull;
         return bitsOf(std::ldexp(doubleOf(A(v)), int32_t(v[4]) % 2100));
       },
       true},
  };
  // {e}: an exponent in v14 (in[4]) kept moderate.
  for (OpCheck &c : checks) {
    size_t at = c.asmLine.find("{e}");
    if (at != std::string::npos)
      c.asmLine.replace(at, 3, "v14");
  }
  for (unsigned i = 0; i < kLanes; ++i)
    in[4][i] = uint32_t(int32_t(in[4][i]) % 2100);
  std::vector<OpCheck> gfx942 = checks;
  checkOps(gfx942, in, "gfx942", kKeepDenormals);
  // gfx90a has no v_mov_b64: use v_pk_mov_b32 instead.
  checks[3].asmLine = "v_pk_mov_b32 {D}, {C}, {C} op_sel:[0,1]\n"
                      "  v_fmac_f64_e32 {D}, {A}, {B}";
  checkOps(checks, in, "gfx90a", kKeepDenormals);
}

} // namespace

namespace {

/// f16 and f64 follow MODE's FP_DENORM[7:6] (.amdhsa_float_denorm_mode_16_64)
/// independently of the f32 field.
TEST(VALUFloat, DenormalModesF16F64) {
  LaneValues h = lanes([](unsigned i) -> uint32_t {
    return i % 2 ? 0x0003u + i : 0x8200u; // f16 denormals
  });
  std::vector<uint64_t> d(kLanes);
  for (unsigned i = 0; i < kLanes; ++i)
    d[i] = i % 2 ? 0x0000000000000005ull + i : 0x8008000000000000ull;
  auto ds = split64(d);
  for (unsigned field : {0u, 3u}) {
    bool keep = field == 3;
    std::vector<OpCheck> checks = {
        {"v_add_f16_e32 {d}, 0, {a}",
         [&](unsigned, In x) -> uint64_t {
           uint16_t v = uint16_t(x[0]);
           return keep ? v : 0u; // a flushed -denormal: +0 + -0 = +0
         }},
        {"v_mul_f64 {D}, {B}, 1.0",
         [&](unsigned, In x) -> uint64_t {
           uint64_t v = x[2] | (uint64_t(x[3]) << 32);
           return keep ? v : v & 0x8000000000000000ull;
         },
         true},
        // f32 stays in its own mode (kept here).
        {"v_mul_f32_e32 {d}, 1.0, {a}",
         [&](unsigned, In x) -> uint64_t { return x[0]; }},
    };
    checkOps(checks, {h, h, ds[0], ds[1]}, "gfx942",
             formatv(".amdhsa_float_denorm_mode_32 3\n"
                     ".amdhsa_float_denorm_mode_16_64 {0}",
                     field)
                 .str());
  }
}

/// gfx950's bf16 conversions and dot products.
TEST(VALUFloat, BFloat16Gfx950) {
  auto bf16 = [](float f) -> uint32_t {
    // Round to nearest even on the bit pattern (finite values).
    uint32_t b = bitsOf(f);
    return (b + 0x7fff + ((b >> 16) & 1)) >> 16;
  };
  LaneValues a =
      lanes([](unsigned i) { return bitsOf(float(i) * 1.0009765f - 20.0f); });
  LaneValues b = lanes([](unsigned i) { return bitsOf(float(i) / 3.0f); });
  std::vector<OpCheck> checks = {
      {"v_cvt_pk_bf16_f32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return bf16(floatOf(x[0])) | (bf16(floatOf(x[1])) << 16);
       }},
      {"v_cvt_f32_bf16_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t { return x[0] << 16; }},
      {"v_cvt_pk_bf16_f32 {d}, {a}, {b}\n  v_dot2_f32_bf16 {d}, {d}, {d}, {b}",
       [&](unsigned, In x) -> uint64_t {
         float lo = floatOf(bf16(floatOf(x[0])) << 16);
         float hi = floatOf(bf16(floatOf(x[1])) << 16);
         float acc = floatOf(x[1]);
         acc = acc + lo * lo; // products of bf16 values are exact in f32
         acc = acc + hi * hi;
         return bitsOf(acc);
       }},
  };
  checkOps(checks, {a, b}, "gfx950",
           ".amdhsa_float_denorm_mode_32 3\n.amdhsa_float_denorm_mode_16_64 3");
}

} // namespace
