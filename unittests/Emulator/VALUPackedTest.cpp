//===- VALUPackedTest.cpp - VALU packed math (VOP3P) ----------------------===//
//
// op_sel picks the half of each source feeding the low result element,
// op_sel_hi the half feeding the high element; neg_lo/neg_hi negate the
// low/high element's source. For v_pk_*_f32 the halves are dwords of a
// register pair.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

using In = const uint32_t *;

const char *kKeepDenormals = ".amdhsa_float_denorm_mode_32 3\n"
                             ".amdhsa_float_denorm_mode_16_64 3";

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
bool isNaN16(uint16_t b) { return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }

/// An f16 result with the NaN rules (first NaN operand, quieted).
uint16_t halfResult(std::initializer_list<uint16_t> ops, double exact) {
  for (uint16_t v : ops)
    if (isNaN16(v))
      return v | 0x200;
  uint16_t r = h16d(exact);
  return isNaN16(r) ? 0xfe00 : r;
}

LaneValues packedHalves(uint64_t seed) {
  static const uint16_t kSpecial[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00,
                                      0xfc00, 0x7e00, 0x0001, 0x3555, 0xc100};
  Random rng(seed);
  return lanes([&](unsigned i) -> uint32_t {
    auto one = [&](unsigned k) -> uint32_t {
      if ((i + k) % 5 == 0)
        return kSpecial[(i + k + seed) % 10];
      return h16d(double(int32_t(rng.next() % 4000) - 2000) / 64.0);
    };
    return one(0) | (one(1) << 16);
  });
}

/// The 16-bit element a VOP3P source supplies for one result half.
uint16_t element(uint32_t v, bool selHigh, bool neg) {
  uint16_t h = uint16_t(selHigh ? v >> 16 : v);
  return neg ? uint16_t(h ^ 0x8000) : h;
}

/// Every op_sel/op_sel_hi/neg_lo/neg_hi combination of v_pk_add_f16.
TEST(VALUPacked, AddF16EveryModifier) {
  std::vector<OpCheck> checks;
  for (unsigned bits = 0; bits < 256; ++bits) {
    bool s0 = bits & 1, s1 = bits & 2, h0 = bits & 4, h1 = bits & 8;
    bool n0 = bits & 16, n1 = bits & 32, m0 = bits & 64, m1 = bits & 128;
    checks.push_back(
        {formatv("v_pk_add_f16 {{d}, {{a}, {{b} op_sel:[{0},{1}] "
                 "op_sel_hi:[{2},{3}] neg_lo:[{4},{5}] neg_hi:[{6},{7}]",
                 int(s0), int(s1), int(h0), int(h1), int(n0), int(n1), int(m0),
                 int(m1))
             .str(),
         [=](unsigned, In x) -> uint64_t {
           uint16_t a = element(x[0], s0, n0), b = element(x[1], s1, n1);
           uint16_t c = element(x[0], h0, m0), d = element(x[1], h1, m1);
           uint32_t lo = halfResult({a, b}, fromH16(a) + fromH16(b));
           uint32_t hi = halfResult({c, d}, fromH16(c) + fromH16(d));
           return lo | (hi << 16);
         }});
  }
  checkOps(checks, {packedHalves(1), packedHalves(2)}, "gfx942",
           kKeepDenormals);
}

TEST(VALUPacked, F16Operations) {
  std::vector<LaneValues> in = {packedHalves(3), packedHalves(4),
                                packedHalves(5)};
  auto each = [](uint32_t x, uint32_t y, uint32_t z, auto fn) -> uint64_t {
    uint32_t lo = fn(uint16_t(x), uint16_t(y), uint16_t(z));
    uint32_t hi = fn(uint16_t(x >> 16), uint16_t(y >> 16), uint16_t(z >> 16));
    return lo | (hi << 16);
  };
  auto maxH = [](uint16_t a, uint16_t b) -> uint16_t {
    auto sig = [](uint16_t v) { return isNaN16(v) && !(v & 0x200); };
    if (sig(a))
      return a | 0x200;
    if (sig(b))
      return b | 0x200;
    if (isNaN16(a))
      return b;
    if (isNaN16(b))
      return a;
    if (!(a & 0x7fff) && !(b & 0x7fff))
      return (a >> 15) ? b : a;
    return fromH16(a) >= fromH16(b) ? a : b;
  };
  std::vector<OpCheck> checks = {
      {"v_pk_mul_f16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [](uint16_t a, uint16_t b, uint16_t) {
           return halfResult({a, b}, fromH16(a) * fromH16(b));
         });
       }},
      {"v_pk_fma_f16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) {
         return each(x[0], x[1], x[2], [](uint16_t a, uint16_t b, uint16_t c) {
           // Exact in double: products of these f16 values have <= 22 bits.
           return halfResult({a, b, c}, fromH16(a) * fromH16(b) + fromH16(c));
         });
       }},
      {"v_pk_fma_f16 {d}, {a}, {b}, {c} op_sel:[0,1,1] op_sel_hi:[1,0,0] "
       "neg_lo:[0,0,1] neg_hi:[1,0,0]",
       [&](unsigned, In x) -> uint64_t {
         auto fmaH = [](uint16_t a, uint16_t b, uint16_t c) -> uint32_t {
           return halfResult({a, b, c}, fromH16(a) * fromH16(b) + fromH16(c));
         };
         uint32_t lo =
             fmaH(element(x[0], false, false), element(x[1], true, false),
                  element(x[2], true, true));
         uint32_t hi =
             fmaH(element(x[0], true, true), element(x[1], false, false),
                  element(x[2], false, false));
         return lo | (hi << 16);
       }},
      {"v_pk_max_f16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [&](uint16_t a, uint16_t b, uint16_t) {
           return maxH(a, b);
         });
       }},
      {"v_pk_min_f16 {d}, {a}, {b} op_sel:[1,0] op_sel_hi:[0,1]",
       [&](unsigned, In x) -> uint64_t {
         auto minH = [&](uint16_t a, uint16_t b) -> uint32_t {
           uint16_t m = maxH(a, b);
           if (isNaN16(a) || isNaN16(b))
             return m; // the NaN rules are symmetric
           if (!(a & 0x7fff) && !(b & 0x7fff))
             return (a >> 15) ? a : b;
           return fromH16(a) < fromH16(b) ? a : b;
         };
         return minH(uint16_t(x[0] >> 16), uint16_t(x[1])) |
                (minH(uint16_t(x[0]), uint16_t(x[1] >> 16)) << 16);
       }},
      {"v_pk_mul_f16 {d}, {a}, {b} clamp",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [](uint16_t a, uint16_t b, uint16_t) {
           uint16_t r = halfResult({a, b}, fromH16(a) * fromH16(b));
           if (isNaN16(r))
             return uint16_t(0); // DX10_CLAMP (the default) clamps NaN to 0
           if (r >> 15)
             return uint16_t(0);
           return fromH16(r) > 1.0 ? uint16_t(0x3c00) : r;
         });
       }},
      // Inline constants: f16 constants fill the low half only (the high
      // half reads 0), so op_sel_hi:[1,0] is how 1.0 reaches both halves.
      {"v_pk_add_f16 {d}, {a}, 1.0 op_sel_hi:[1,0]",
       [&](unsigned, In x) {
         return each(x[0], 0, 0, [](uint16_t a, uint16_t, uint16_t) {
           return halfResult({a}, fromH16(a) + 1.0);
         });
       }},
      {"v_pk_add_f16 {d}, {a}, 1.0",
       [&](unsigned, In x) -> uint64_t {
         uint16_t lo = uint16_t(x[0]), hi = uint16_t(x[0] >> 16);
         return halfResult({lo}, fromH16(lo) + 1.0) |
                (uint32_t(halfResult({hi}, fromH16(hi) + 0.0)) << 16);
       }},
  };
  checkOps(checks, in, "gfx942", kKeepDenormals);
  checkOps(checks, in, "gfx90a", kKeepDenormals);
}

TEST(VALUPacked, IntegerOperations) {
  Random rng(8);
  auto ints = [&](unsigned) { return rng.next(); };
  std::vector<LaneValues> in = {lanes(ints), lanes(ints), lanes(ints)};
  in[0][0] = 0x7fff8000;
  in[1][0] = 0x7fff8000;
  in[0][1] = 0xffff0001;
  in[1][1] = 0x0001ffff;
  auto each = [](uint32_t x, uint32_t y, uint32_t z, auto fn) -> uint64_t {
    uint32_t lo = fn(uint16_t(x), uint16_t(y), uint16_t(z)) & 0xffff;
    uint32_t hi =
        fn(uint16_t(x >> 16), uint16_t(y >> 16), uint16_t(z >> 16)) & 0xffff;
    return lo | (hi << 16);
  };
  using U = uint16_t;
  std::vector<OpCheck> checks = {
      {"v_pk_add_u16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U a, U b, U) { return uint32_t(a + b); });
       }},
      {"v_pk_add_u16 {d}, {a}, {b} clamp",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [](U a, U b, U) {
           return std::min(uint32_t(a) + b, 0xffffu);
         });
       }},
      {"v_pk_sub_i16 {d}, {a}, {b} clamp",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [](U a, U b, U) {
           return uint32_t(
               std::clamp(int(int16_t(a)) - int16_t(b), -32768, 32767));
         });
       }},
      {"v_pk_add_i16 {d}, {a}, {b} op_sel:[1,1] op_sel_hi:[0,0]",
       [&](unsigned, In x) -> uint64_t {
         uint32_t lo = uint16_t((x[0] >> 16) + (x[1] >> 16));
         uint32_t hi = uint16_t(x[0] + x[1]);
         return lo | (hi << 16);
       }},
      {"v_pk_sub_u16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U a, U b, U) { return uint32_t(a - b); });
       }},
      {"v_pk_mul_lo_u16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U a, U b, U) { return uint32_t(a) * b; });
       }},
      {"v_pk_mad_u16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) {
         return each(x[0], x[1], x[2],
                     [](U a, U b, U c) { return uint32_t(a) * b + c; });
       }},
      {"v_pk_mad_i16 {d}, {a}, {b}, {c} clamp",
       [&](unsigned, In x) {
         return each(x[0], x[1], x[2], [](U a, U b, U c) {
           int64_t r = int64_t(int16_t(a)) * int16_t(b) + int16_t(c);
           return uint32_t(std::clamp<int64_t>(r, -32768, 32767));
         });
       }},
      {"v_pk_max_i16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0, [](U a, U b, U) {
           return uint32_t(std::max(int16_t(a), int16_t(b)));
         });
       }},
      {"v_pk_min_u16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U a, U b, U) { return uint32_t(std::min(a, b)); });
       }},
      {"v_pk_lshlrev_b16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U s, U v, U) { return uint32_t(v << (s & 15)); });
       }},
      {"v_pk_lshrrev_b16 {d}, {a}, {b}",
       [&](unsigned, In x) {
         return each(x[0], x[1], 0,
                     [](U s, U v, U) { return uint32_t(v >> (s & 15)); });
       }},
      {"v_pk_ashrrev_i16 {d}, {a}, {b} op_sel_hi:[0,1]",
       [&](unsigned, In x) -> uint64_t {
         // Both shift counts from the low half of S0.
         unsigned s = x[0] & 15;
         uint32_t lo = uint16_t(int16_t(x[1]) >> s);
         uint32_t hi = uint16_t(int16_t(x[1] >> 16) >> s);
         return lo | (hi << 16);
       }},
      // An integer inline constant is sign-extended to 32 bits: -1 gives
      // 0xffff in both halves.
      {"v_pk_add_u16 {d}, {a}, -1",
       [&](unsigned, In x) {
         return each(x[0], 0, 0,
                     [](U a, U, U) { return uint32_t(a + 0xffff); });
       }},
      {"v_pk_add_u16 {d}, {a}, 5",
       [&](unsigned, In x) -> uint64_t {
         return uint16_t(x[0] + 5) | (uint32_t(uint16_t(x[0] >> 16)) << 16);
       }},
  };
  checkOps(checks, in, "gfx942");
  checkOps(checks, in, "gfx90a");
}

/// v_pk_*_f32 on register pairs: op_sel picks dwords.
TEST(VALUPacked, F32Pairs) {
  Random rng(21);
  auto f = [&](unsigned i) -> uint32_t {
    if (i % 11 == 0)
      return 0x7fc00000u | i;
    return bitsOf(float(int32_t(rng.next() % 100000) - 50000) / 256.0f);
  };
  std::vector<LaneValues> in = {lanes(f), lanes(f), lanes(f),
                                lanes(f), lanes(f), lanes(f)};
  auto nanFirst = [](std::initializer_list<uint32_t> ops, float r) -> uint32_t {
    for (uint32_t v : ops)
      if ((v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffff))
        return v | 0x400000;
    return bitsOf(r);
  };
  std::vector<OpCheck> checks;
  for (unsigned bits = 0; bits < 64; ++bits) {
    bool s0 = bits & 1, s1 = bits & 2, h0 = bits & 4, h1 = bits & 8;
    bool n0 = bits & 16, m1 = bits & 32;
    checks.push_back(
        {formatv("v_pk_mul_f32 {{D}, {{A}, {{B} op_sel:[{0},{1}] "
                 "op_sel_hi:[{2},{3}] neg_lo:[{4},0] neg_hi:[0,{5}]",
                 int(s0), int(s1), int(h0), int(h1), int(n0), int(m1))
             .str(),
         [=](unsigned, In x) -> uint64_t {
           auto pick = [&](unsigned src, bool hi, bool neg) {
             uint32_t v = x[2 * src + (hi ? 1 : 0)];
             return neg ? v ^ 0x80000000u : v;
           };
           uint32_t a = pick(0, s0, n0), b = pick(1, s1, false);
           uint32_t c = pick(0, h0, false), d = pick(1, h1, m1);
           uint64_t lo = nanFirst({a, b}, floatOf(a) * floatOf(b));
           uint64_t hi = nanFirst({c, d}, floatOf(c) * floatOf(d));
           return lo | (hi << 32);
         },
         true});
  }
  checks.push_back(
      {"v_pk_fma_f32 {D}, {A}, {B}, {C}",
       [&](unsigned, In x) -> uint64_t {
         uint64_t lo =
             nanFirst({x[0], x[2], x[4]},
                      std::fma(floatOf(x[0]), floatOf(x[2]), floatOf(x[4])));
         uint64_t hi =
             nanFirst({x[1], x[3], x[5]},
                      std::fma(floatOf(x[1]), floatOf(x[3]), floatOf(x[5])));
         return lo | (hi << 32);
       },
       true});
  checks.push_back({"v_pk_add_f32 {D}, {A}, 1.0 op_sel_hi:[1,0]",
                    [&](unsigned, In x) -> uint64_t {
                      uint64_t lo = nanFirst({x[0]}, floatOf(x[0]) + 1.0f);
                      uint64_t hi = nanFirst({x[1]}, floatOf(x[1]) + 1.0f);
                      return lo | (hi << 32);
                    },
                    true});
  checks.push_back({"s_mov_b32 s20, 2.0\n  s_mov_b32 s21, 0.5\n"
                    "  v_pk_mul_f32 {D}, {A}, s[20:21]",
                    [&](unsigned, In x) -> uint64_t {
                      uint64_t lo = nanFirst({x[0]}, floatOf(x[0]) * 2.0f);
                      uint64_t hi = nanFirst({x[1]}, floatOf(x[1]) * 0.5f);
                      return lo | (hi << 32);
                    },
                    true});
  checkOps(checks, in, "gfx942", kKeepDenormals);
  checkOps(checks, in, "gfx90a", kKeepDenormals);
}

TEST(VALUPacked, MovB32) {
  Random rng(3);
  auto r = [&](unsigned) { return rng.next(); };
  std::vector<LaneValues> in = {lanes(r), lanes(r), lanes(r), lanes(r)};
  std::vector<OpCheck> checks;
  for (unsigned bits = 0; bits < 4; ++bits) {
    bool s0 = bits & 1, s1 = bits & 2;
    checks.push_back({formatv("v_pk_mov_b32 {{D}, {{A}, {{B} op_sel:[{0},{1}]",
                              int(s0), int(s1))
                          .str(),
                      [=](unsigned, In x) -> uint64_t {
                        return x[s0 ? 1 : 0] | (uint64_t(x[s1 ? 3 : 2]) << 32);
                      },
                      true});
  }
  checks.push_back(
      {"s_mov_b32 s20, 0x12345678\n  s_mov_b32 s21, 0x9abcdef0\n"
       "  v_pk_mov_b32 {D}, s[20:21], s[20:21] op_sel:[0,1]",
       [](unsigned, In) -> uint64_t { return 0x9abcdef012345678ull; }, true});
  checks.push_back({"v_pk_mov_b32 {D}, 1.0, {B} op_sel:[0,1]",
                    [](unsigned, In x) -> uint64_t {
                      return 0x3f800000u | (uint64_t(x[3]) << 32);
                    },
                    true});
  checkOps(checks, in, "gfx942");
  checkOps(checks, in, "gfx90a");
}

TEST(VALUPacked, DotProducts) {
  Random rng(6);
  auto r = [&](unsigned) { return rng.next(); };
  std::vector<LaneValues> in = {lanes(r), lanes(r), lanes(r)};
  in[0][0] = 0x7fff7fff; // saturation cases
  in[1][0] = 0x7fff7fff;
  in[2][0] = 0x7fffffff;
  auto dot = [](uint32_t a, uint32_t b, unsigned bits, bool sign) {
    int64_t sum = 0;
    for (unsigned i = 0; i < 32; i += bits) {
      int64_t x = (a >> i) & ((1u << bits) - 1),
              y = (b >> i) & ((1u << bits) - 1);
      if (sign) {
        x = x >= (1 << (bits - 1)) ? x - (1 << bits) : x;
        y = y >= (1 << (bits - 1)) ? y - (1 << bits) : y;
      }
      sum += x * y;
    }
    return sum;
  };
  auto sat = [](int64_t v, bool sign) -> uint32_t {
    return sign ? uint32_t(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX))
                : uint32_t(std::min<int64_t>(v, UINT32_MAX));
  };
  std::vector<OpCheck> checks;
  struct Dot {
    const char *name;
    unsigned bits;
    bool sign;
  };
  for (Dot d :
       {Dot{"v_dot2_i32_i16", 16, true}, Dot{"v_dot2_u32_u16", 16, false},
        Dot{"v_dot4_i32_i8", 8, true}, Dot{"v_dot4_u32_u8", 8, false},
        Dot{"v_dot8_i32_i4", 4, true}, Dot{"v_dot8_u32_u4", 4, false}}) {
    checks.push_back({formatv("{0} {{d}, {{a}, {{b}, {{c}", d.name).str(),
                      [=](unsigned, In x) -> uint64_t {
                        int64_t c =
                            d.sign ? int64_t(int32_t(x[2])) : int64_t(x[2]);
                        return uint32_t(dot(x[0], x[1], d.bits, d.sign) + c);
                      }});
    checks.push_back({formatv("{0} {{d}, {{a}, {{b}, {{c} clamp", d.name).str(),
                      [=](unsigned, In x) -> uint64_t {
                        int64_t c =
                            d.sign ? int64_t(int32_t(x[2])) : int64_t(x[2]);
                        return sat(dot(x[0], x[1], d.bits, d.sign) + c, d.sign);
                      }});
  }
  // The VOP2 forms accumulate into the destination.
  checks.push_back({"v_mov_b32 {d}, {c}\n  v_dot2c_i32_i16_e32 {d}, {a}, {b}",
                    [&](unsigned, In x) -> uint64_t {
                      return uint32_t(dot(x[0], x[1], 16, true) +
                                      int32_t(x[2]));
                    }});
  checks.push_back({"v_mov_b32 {d}, {c}\n  v_dot4c_i32_i8_e32 {d}, {a}, {b}",
                    [&](unsigned, In x) -> uint64_t {
                      return uint32_t(dot(x[0], x[1], 8, true) + int32_t(x[2]));
                    }});
  checks.push_back({"v_mov_b32 {d}, {c}\n  v_dot8c_i32_i4_e32 {d}, {a}, {b}",
                    [&](unsigned, In x) -> uint64_t {
                      return uint32_t(dot(x[0], x[1], 4, true) + int32_t(x[2]));
                    }});
  checkOps(checks, in, "gfx942");
  checkOps(checks, in, "gfx90a");

  // f16 dot products accumulate in f32, rounding after each addition.
  std::vector<LaneValues> fin = {
      packedHalves(9), packedHalves(10),
      lanes([](unsigned i) { return bitsOf(float(int(i) - 20) * 0.375f); })};
  auto dot2f = [](uint32_t a, uint32_t b, uint32_t c) -> uint64_t {
    float acc = floatOf(c);
    for (unsigned s : {0u, 16u}) {
      uint16_t x = uint16_t(a >> s), y = uint16_t(b >> s);
      float p = float(fromH16(x) * fromH16(y)); // exact
      acc = acc + p;
    }
    uint32_t r = bitsOf(acc);
    if ((r & 0x7f800000u) == 0x7f800000u && (r & 0x7fffff)) {
      // NaN: the first NaN operand quieted, else the default NaN.
      for (unsigned s : {0u, 16u})
        for (uint32_t v : {a, b}) {
          uint16_t h = uint16_t(v >> s);
          if (isNaN16(h))
            return 0x7fc00000u | ((h & 0x8000u) << 16) | ((h & 0x1ffu) << 13);
        }
      return 0xffc00000u;
    }
    return r;
  };
  std::vector<OpCheck> fchecks = {
      {"v_dot2_f32_f16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) { return dot2f(x[0], x[1], x[2]); }, false,
       Compare::F32Ulps, 0},
      {"v_mov_b32 {d}, {c}\n  v_dot2c_f32_f16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) { return dot2f(x[0], x[1], x[2]); }, false,
       Compare::F32Ulps, 0},
  };
  checkOps(fchecks, fin, "gfx942", kKeepDenormals);
  checkOps(fchecks, fin, "gfx90a", kKeepDenormals);
}

/// v_fma_mix: each operand is the f32 value or a half of it as f16, per
/// {op_sel_hi, op_sel}; neg_hi is abs.
TEST(VALUPacked, FmaMix) {
  std::vector<LaneValues> in = {
      lanes([](unsigned i) {
        return i % 2 ? bitsOf(float(i) * 0.25f - 3.0f)
                     : (uint32_t(h16d(i * 0.5 - 7.0)) << 16) | h16d(1.5 + i);
      }),
      lanes([](unsigned i) {
        return (uint32_t(h16d(2.0 - i * 0.125)) << 16) | h16d(i * 0.75 - 4.0);
      }),
      lanes([](unsigned i) { return bitsOf(float(i) * 1.5f - 30.0f); })};
  auto operand = [](uint32_t v, bool opselHi, bool opsel, bool neg,
                    bool abs) -> double {
    double x =
        !opselHi ? double(floatOf(v)) : fromH16(uint16_t(opsel ? v >> 16 : v));
    if (abs)
      x = std::fabs(x);
    return neg ? -x : x;
  };
  std::vector<OpCheck> checks = {
      {"v_fma_mix_f32 {d}, {a}, {b}, {c} op_sel_hi:[0,1,0]",
       [&](unsigned, In x) -> uint64_t {
         return bitsOf(
             std::fma(float(operand(x[0], false, false, false, false)),
                      float(operand(x[1], true, false, false, false)),
                      float(operand(x[2], false, false, false, false))));
       }},
      {"v_fma_mix_f32 {d}, -{a}, |{b}|, {c} op_sel:[1,1,0] op_sel_hi:[1,1,0]",
       [&](unsigned, In x) -> uint64_t {
         return bitsOf(
             std::fma(float(operand(x[0], true, true, true, false)),
                      float(operand(x[1], true, true, false, true)),
                      float(operand(x[2], false, false, false, false))));
       }},
      {"v_fma_mixlo_f16 {d}, {a}, {b}, {c} op_sel_hi:[1,1,0]",
       [&](unsigned, In x) -> uint64_t {
         float r = std::fma(float(operand(x[0], true, false, false, false)),
                            float(operand(x[1], true, false, false, false)),
                            float(operand(x[2], false, false, false, false)));
         return 0xdead0000u | h16d(r);
       }},
      {"v_fma_mixhi_f16 {d}, {a}, {b}, {c} op_sel:[0,1,0] op_sel_hi:[1,1,0]",
       [&](unsigned, In x) -> uint64_t {
         float r = std::fma(float(operand(x[0], true, false, false, false)),
                            float(operand(x[1], true, true, false, false)),
                            float(operand(x[2], false, false, false, false)));
         return 0xbeefu | (uint32_t(h16d(r)) << 16);
       }},
  };
  checkOps(checks, in, "gfx942", kKeepDenormals);
  checkOps(checks, in, "gfx90a", kKeepDenormals);
}

} // namespace
