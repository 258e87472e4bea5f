//===- VALUIntegerTest.cpp - VALU integer and bit operations --------------===//
//
// Expected values come from the ISA pseudocode, written out here.
//
//===----------------------------------------------------------------------===//

#include "VALUTest.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <climits>

using namespace crest::emu;
using namespace crest::emu::test;
using llvm::formatv;

namespace {

/// Interesting 32-bit values followed by pseudo-random ones.
LaneValues mixedInputs(uint64_t seed) {
  static const uint32_t kSpecial[] = {
      0,          1,          2,          31,         32,         0x7fffffff,
      0x80000000, 0xffffffff, 0xfffffffe, 0x00ffffff, 0x00800000, 0xff800000,
      0x12345678, 0xdeadbeef, 0x0000ffff, 0xffff8000};
  Random rng(seed);
  return lanes([&](unsigned i) {
    return i < 16 ? kSpecial[(i + seed) % 16] : rng.next();
  });
}

std::vector<LaneValues> threeInputs() {
  return {mixedInputs(1), mixedInputs(2), mixedInputs(3)};
}

int64_t sext(uint64_t v, unsigned bits) {
  uint64_t m = uint64_t(1) << (bits - 1);
  v &= bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  return int64_t((v ^ m) - m);
}

uint32_t popcount(uint64_t v) {
  uint32_t n = 0;
  for (; v; v &= v - 1)
    ++n;
  return n;
}

TEST(VALUInteger, BinaryOps32) {
  using In = const uint32_t *;
  std::vector<OpCheck> checks = {
      {"v_add_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] + x[1]); }},
      {"v_sub_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] - x[1]); }},
      {"v_subrev_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[1] - x[0]); }},
      {"v_mul_lo_u32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] * x[1]); }},
      {"v_mul_hi_u32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((uint64_t(x[0]) * x[1]) >> 32);
       }},
      {"v_mul_hi_i32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(uint64_t(int64_t(int32_t(x[0])) * int32_t(x[1])) >>
                         32);
       }},
      {"v_mul_u32_u24_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(uint64_t(x[0] & 0xffffff) * (x[1] & 0xffffff));
       }},
      {"v_mul_hi_u32_u24_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((uint64_t(x[0] & 0xffffff) * (x[1] & 0xffffff)) >> 32);
       }},
      {"v_mul_i32_i24_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(sext(x[0], 24) * sext(x[1], 24));
       }},
      {"v_mul_hi_i32_i24_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(uint64_t(sext(x[0], 24) * sext(x[1], 24)) >> 32);
       }},
      {"v_min_i32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(std::min(int32_t(x[0]), int32_t(x[1])));
       }},
      {"v_max_i32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(std::max(int32_t(x[0]), int32_t(x[1])));
       }},
      {"v_min_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return std::min(x[0], x[1]); }},
      {"v_max_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return std::max(x[0], x[1]); }},
      {"v_and_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return x[0] & x[1]; }},
      {"v_or_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return x[0] | x[1]; }},
      {"v_xor_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return x[0] ^ x[1]; }},
      {"v_xnor_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(~(x[0] ^ x[1])); }},
      {"v_lshlrev_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return x[1] << (x[0] % 32); }},
      {"v_lshrrev_b32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return x[1] >> (x[0] % 32); }},
      {"v_ashrrev_i32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(int32_t(x[1]) >> (x[0] % 32));
       }},
      {"v_bfm_b32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(((uint64_t(1) << (x[0] % 32)) - 1) << (x[1] % 32));
       }},
      {"v_bcnt_u32_b32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return popcount(x[0]) + x[1]; }},
      // VOP3 forms and operand kinds: an inline constant, a literal in the
      // e32 form, an SGPR.
      {"v_add_u32_e64 {d}, {a}, -7",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] - 7); }},
      {"v_sub_u32_e32 {d}, 0x12345678, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(0x12345678 - x[1]); }},
      {"v_and_b32_e32 {d}, 64, {a}",
       [](unsigned, In x) -> uint64_t { return x[0] & 64; }},
      {"v_xor_b32_e64 {d}, {a}, 0.5",
       [](unsigned, In x) -> uint64_t { return x[0] ^ 0x3f000000u; }},
  };
  checkOps(checks, threeInputs());
  checkOps(checks, threeInputs(), "gfx90a");
}

TEST(VALUInteger, UnaryOps32) {
  using In = const uint32_t *;
  auto clz = [](uint32_t v) {
    uint32_t n = 0;
    for (uint32_t bit = 0x80000000u; bit && !(v & bit); bit >>= 1)
      ++n;
    return n;
  };
  std::vector<OpCheck> checks = {
      {"v_mov_b32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return x[0]; }},
      {"v_mov_b32_e64 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return x[0]; }},
      {"v_not_b32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return uint32_t(~x[0]); }},
      {"v_bfrev_b32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         uint32_t r = 0;
         for (unsigned i = 0; i < 32; ++i)
           r |= ((x[0] >> i) & 1) << (31 - i);
         return r;
       }},
      {"v_ffbh_u32_e32 {d}, {a}",
       [&](unsigned, In x) -> uint64_t {
         return x[0] ? clz(x[0]) : 0xffffffffu;
       }},
      {"v_ffbl_b32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         if (!x[0])
           return 0xffffffffu;
         uint32_t n = 0;
         while (!((x[0] >> n) & 1))
           ++n;
         return n;
       }},
      {"v_ffbh_i32_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         // The first bit (from the MSB) that differs from the sign.
         uint32_t v = x[0];
         for (unsigned i = 1; i < 32; ++i)
           if (((v >> (31 - i)) & 1) != (v >> 31))
             return i;
         return 0xffffffffu;
       }},
      {"v_cvt_f32_ubyte0_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return bitsOf(float(x[0] & 0xff)); }},
      {"v_cvt_f32_ubyte1_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         return bitsOf(float((x[0] >> 8) & 0xff));
       }},
      {"v_cvt_f32_ubyte2_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t {
         return bitsOf(float((x[0] >> 16) & 0xff));
       }},
      {"v_cvt_f32_ubyte3_e32 {d}, {a}",
       [](unsigned, In x) -> uint64_t { return bitsOf(float(x[0] >> 24)); }},
      {"v_mov_b32_e32 {d}, 0x3e22f983",
       [](unsigned, In) -> uint64_t { return 0x3e22f983; }},
      {"v_mov_b32_e32 {d}, 0.15915494",
       [](unsigned, In) -> uint64_t { return 0x3e22f983; }},
      {"v_mov_b32_e32 {d}, -16",
       [](unsigned, In) -> uint64_t { return 0xfffffff0u; }},
      {"v_mov_b32_e32 {d}, -4.0",
       [](unsigned, In) -> uint64_t { return 0xc0800000u; }},
  };
  checkOps(checks, threeInputs());
  checkOps(checks, threeInputs(), "gfx90a");
}

TEST(VALUInteger, ThreeOperandOps) {
  using In = const uint32_t *;
  auto absDiff = [](uint32_t a, uint32_t b) { return a > b ? a - b : b - a; };
  auto byteOf = [](uint32_t v, unsigned i) { return (v >> (8 * i)) & 0xff; };
  std::vector<OpCheck> checks = {
      {"v_add3_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] + x[1] + x[2]); }},
      {"v_xad_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] ^ x[1]) + x[2]);
       }},
      {"v_lshl_add_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] << (x[1] & 31)) + x[2]);
       }},
      {"v_add_lshl_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] + x[1]) << (x[2] & 31));
       }},
      {"v_lshl_or_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t { return (x[0] << (x[1] & 31)) | x[2]; }},
      {"v_and_or_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t { return (x[0] & x[1]) | x[2]; }},
      {"v_or3_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t { return x[0] | x[1] | x[2]; }},
      {"v_bfe_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return (x[0] >> (x[1] & 31)) & ((1ull << (x[2] & 31)) - 1);
       }},
      {"v_bfe_i32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         unsigned w = x[2] & 31;
         if (!w)
           return 0;
         return uint32_t(sext(x[0] >> (x[1] & 31), w));
       }},
      {"v_bfi_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return (x[0] & x[1]) | (~x[0] & x[2]);
       }},
      {"v_alignbit_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(((uint64_t(x[0]) << 32) | x[1]) >> (x[2] & 31));
       }},
      {"v_alignbyte_b32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(((uint64_t(x[0]) << 32) | x[1]) >> (8 * (x[2] & 3)));
       }},
      {"v_mad_u32_u24 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] & 0xffffff) * uint64_t(x[1] & 0xffffff) + x[2]);
       }},
      {"v_mad_i32_i24 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(sext(x[0], 24) * sext(x[1], 24) + int32_t(x[2]));
       }},
      {"v_mad_u32_u16 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] & 0xffff) * (x[1] & 0xffff) + x[2]);
       }},
      {"v_mad_i32_i16 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(sext(x[0], 16) * sext(x[1], 16) + int32_t(x[2]));
       }},
      {"v_mad_u32_u16 {d}, {a}, {b}, {c} op_sel:[1,1,0,0]",
       [](unsigned, In x) -> uint64_t {
         return uint32_t((x[0] >> 16) * (x[1] >> 16) + x[2]);
       }},
      {"v_min3_i32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(
             std::min({int32_t(x[0]), int32_t(x[1]), int32_t(x[2])}));
       }},
      {"v_max3_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return std::max({x[0], x[1], x[2]});
       }},
      {"v_med3_i32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         int32_t v[3] = {int32_t(x[0]), int32_t(x[1]), int32_t(x[2])};
         std::sort(v, v + 3);
         return uint32_t(v[1]);
       }},
      {"v_med3_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         uint32_t v[3] = {x[0], x[1], x[2]};
         std::sort(v, v + 3);
         return v[1];
       }},
      {"v_min3_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return std::min({x[0], x[1], x[2]});
       }},
      {"v_max3_i32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(
             std::max({int32_t(x[0]), int32_t(x[1]), int32_t(x[2])}));
       }},
      {"v_sad_u8 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         uint32_t s = x[2];
         for (unsigned i = 0; i < 4; ++i)
           s += absDiff(byteOf(x[0], i), byteOf(x[1], i));
         return s;
       }},
      {"v_sad_hi_u8 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         uint32_t s = 0;
         for (unsigned i = 0; i < 4; ++i)
           s += absDiff(byteOf(x[0], i), byteOf(x[1], i));
         return uint32_t((s << 16) + x[2]);
       }},
      {"v_sad_u16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         return uint32_t(x[2] + absDiff(x[0] & 0xffff, x[1] & 0xffff) +
                         absDiff(x[0] >> 16, x[1] >> 16));
       }},
      {"v_sad_u32 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         return uint32_t(absDiff(x[0], x[1]) + x[2]);
       }},
      {"v_msad_u8 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         uint32_t s = x[2];
         for (unsigned i = 0; i < 4; ++i)
           if (byteOf(x[1], i))
             s += absDiff(byteOf(x[0], i), byteOf(x[1], i));
         return s;
       }},
      {"v_lerp_u8 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         uint32_t r = 0;
         for (unsigned i = 0; i < 4; ++i)
           r |=
               ((byteOf(x[0], i) + byteOf(x[1], i) + ((x[2] >> (8 * i)) & 1)) >>
                1)
               << (8 * i);
         return r;
       }},
      {"v_cvt_pk_u16_u32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return std::min<uint32_t>(x[0], 0xffff) |
                (std::min<uint32_t>(x[1], 0xffff) << 16);
       }},
      {"v_cvt_pk_i16_i32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         auto sat = [](uint32_t v) {
           return uint32_t(std::clamp<int32_t>(int32_t(v), -32768, 32767)) &
                  0xffff;
         };
         return sat(x[0]) | (sat(x[1]) << 16);
       }},
  };
  checkOps(checks, threeInputs());
  checkOps(checks, threeInputs(), "gfx90a");
}

/// v_perm_b32 byte selectors, from the pseudocode's BYTE_PERMUTE.
TEST(VALUInteger, Perm) {
  using In = const uint32_t *;
  auto reference = [](uint32_t a, uint32_t b, uint32_t sel) {
    uint64_t data = (uint64_t(a) << 32) | b;
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned s = (sel >> (8 * i)) & 0xff;
      uint32_t byte;
      if (s >= 13)
        byte = 0xff;
      else if (s == 12)
        byte = 0;
      else if (s == 8)
        byte = (data >> 15) & 1 ? 0xff : 0;
      else if (s == 9)
        byte = (data >> 31) & 1 ? 0xff : 0;
      else if (s == 10)
        byte = (data >> 47) & 1 ? 0xff : 0;
      else if (s == 11)
        byte = (data >> 63) & 1 ? 0xff : 0;
      else
        byte = (data >> (8 * s)) & 0xff;
      r |= byte << (8 * i);
    }
    return r;
  };
  // Every selector value 0..15 and a few large ones, in each byte position.
  LaneValues sel = lanes([](unsigned i) {
    unsigned s = i < 16 ? i : (i * 37) & 0xff;
    return s | ((15 - (i % 16)) << 8) | (((i * 5) % 17) << 16) |
           (((i * 7) % 16) << 24);
  });
  std::vector<LaneValues> in = {mixedInputs(7), mixedInputs(8), sel};
  in[0][3] = 0x80018002u; // sign bits of bytes 1 and 3 set
  in[1][5] = 0x00800080u;
  checkOps({{"v_perm_b32 {d}, {a}, {b}, {c}",
             [&](unsigned, In x) -> uint64_t {
               return reference(x[0], x[1], x[2]);
             }},
            {"s_mov_b32 s20, 0x0c0c0100\n  v_perm_b32 {d}, {a}, {b}, s20",
             [&](unsigned, In x) -> uint64_t {
               return reference(x[0], x[1], 0x0c0c0100);
             }}},
           in);
}

/// 16-bit operations of the VOP2 encoding zero bits [31:16] on gfx9; the
/// VOP3 op_sel forms write the half op_sel[3] picks and keep the other.
TEST(VALUInteger, SixteenBit) {
  using In = const uint32_t *;
  auto lo = [](uint32_t v) { return v & 0xffff; };
  auto hi = [](uint32_t v) { return v >> 16; };
  std::vector<OpCheck> checks = {
      {"v_add_u16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[0]) + lo(x[1])) & 0xffff;
       }},
      {"v_sub_u16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[0]) - lo(x[1])) & 0xffff;
       }},
      {"v_subrev_u16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[1]) - lo(x[0])) & 0xffff;
       }},
      {"v_mul_lo_u16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[0]) * lo(x[1])) & 0xffff;
       }},
      {"v_lshlrev_b16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[1]) << (x[0] & 15)) & 0xffff;
       }},
      {"v_lshrrev_b16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t { return lo(x[1]) >> (x[0] & 15); }},
      {"v_ashrrev_i16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return uint32_t(sext(x[1], 16) >> (x[0] & 15)) & 0xffff;
       }},
      {"v_max_u16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return std::max(lo(x[0]), lo(x[1]));
       }},
      {"v_min_i16_e32 {d}, {a}, {b}",
       [&](unsigned, In x) -> uint64_t {
         return uint32_t(std::min(sext(x[0], 16), sext(x[1], 16))) & 0xffff;
       }},
      {"v_add_u16_e64 {d}, {a}, {b} clamp",
       [&](unsigned, In x) -> uint64_t {
         return std::min<uint32_t>(lo(x[0]) + lo(x[1]), 0xffff);
       }},
      {"v_sub_u16_e64 {d}, {a}, {b} clamp",
       [&](unsigned, In x) -> uint64_t {
         return lo(x[0]) > lo(x[1]) ? lo(x[0]) - lo(x[1]) : 0;
       }},
      // gfx9 VOP3 op_sel: sources from the high halves, the result to the
      // high half; the poisoned low half (0xbeef) is kept.
      {"v_mad_u16 {d}, {a}, {b}, {c} op_sel:[1,0,1,1]",
       [&](unsigned, In x) -> uint64_t {
         return (((hi(x[0]) * lo(x[1]) + hi(x[2])) & 0xffff) << 16) | 0xbeef;
       }},
      // The VI encodings gfx9 keeps as *_legacy: no op_sel, and the
      // destination's high half (poisoned 0xdead) is zeroed.
      {"v_mad_legacy_u16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         return (lo(x[0]) * lo(x[1]) + lo(x[2])) & 0xffff;
       }},
      {"v_mad_legacy_i16 {d}, {a}, {b}, {c} clamp",
       [&](unsigned, In x) -> uint64_t {
         int64_t r = sext(x[0], 16) * sext(x[1], 16) + sext(x[2], 16);
         return uint32_t(std::clamp<int64_t>(r, -32768, 32767)) & 0xffff;
       }},
      {"v_mad_i16 {d}, {a}, {b}, {c} clamp",
       [&](unsigned, In x) -> uint64_t {
         int64_t r = sext(x[0], 16) * sext(x[1], 16) + sext(x[2], 16);
         return 0xdead0000u |
                (uint32_t(std::clamp<int64_t>(r, -32768, 32767)) & 0xffff);
       }},
      {"v_add_i16 {d}, {a}, {b} op_sel:[0,1,1] clamp",
       [&](unsigned, In x) -> uint64_t {
         int64_t r = sext(x[0], 16) + sext(x[1] >> 16, 16);
         return (uint32_t(std::clamp<int64_t>(r, -32768, 32767)) << 16) |
                0xbeef;
       }},
      {"v_med3_i16 {d}, {a}, {b}, {c} op_sel:[1,1,1,0]",
       [&](unsigned, In x) -> uint64_t {
         int64_t v[3] = {sext(hi(x[0]), 16), sext(hi(x[1]), 16),
                         sext(hi(x[2]), 16)};
         std::sort(v, v + 3);
         return 0xdead0000u | (uint32_t(v[1]) & 0xffff);
       }},
      {"v_max3_u16 {d}, {a}, {b}, {c}",
       [&](unsigned, In x) -> uint64_t {
         return 0xdead0000u | std::max({lo(x[0]), lo(x[1]), lo(x[2])});
       }},
      {"v_pack_b32_f16 {d}, {a}, {b} op_sel:[1,0]",
       [&](unsigned, In x) -> uint64_t { return hi(x[0]) | (lo(x[1]) << 16); }},
  };
  checkOps(checks, threeInputs());
  checkOps(checks, threeInputs(), "gfx90a");
}

TEST(VALUInteger, SixtyFourBit) {
  using In = const uint32_t *;
  auto a64 = [](In x) { return x[0] | (uint64_t(x[1]) << 32); };
  auto b64 = [](In x) { return x[2] | (uint64_t(x[3]) << 32); };
  std::vector<LaneValues> in = {mixedInputs(11), mixedInputs(12),
                                mixedInputs(13), mixedInputs(14),
                                mixedInputs(15), mixedInputs(16)};
  std::vector<OpCheck> common = {
      {"v_lshlrev_b64 {D}, {a}, {B}",
       [&](unsigned, In x) -> uint64_t { return b64(x) << (x[0] & 63); }, true},
      {"v_lshrrev_b64 {D}, {a}, {B}",
       [&](unsigned, In x) -> uint64_t { return b64(x) >> (x[0] & 63); }, true},
      {"v_ashrrev_i64 {D}, {a}, {B}",
       [&](unsigned, In x) -> uint64_t {
         return uint64_t(int64_t(b64(x)) >> (x[0] & 63));
       },
       true},
      {"v_lshlrev_b64 {D}, 3, -1",
       [&](unsigned, In) -> uint64_t { return ~uint64_t(0) << 3; }, true},
  };
  checkOps(common, in);
  checkOps(common, in, "gfx90a");

  // gfx940+: v_lshl_add_u64 (shift by S1[2:0]) and v_mov_b64.
  checkOps({{"v_lshl_add_u64 {D}, {A}, 2, {B}",
             [&](unsigned, In x) -> uint64_t { return (a64(x) << 2) + b64(x); },
             true},
            {"v_lshl_add_u64 {D}, {A}, {c}, {B}",
             [&](unsigned, In x) -> uint64_t {
               return (a64(x) << (x[2] & 7)) + b64(x);
             },
             true},
            {"v_mov_b64_e32 {D}, {A}",
             [&](unsigned, In x) -> uint64_t { return a64(x); }, true},
            {"v_mov_b64_e32 {D}, 0x80000000",
             [&](unsigned, In) -> uint64_t { return 0x80000000u; }, true},
            {"v_mov_b64_e32 {D}, -1",
             [&](unsigned, In) -> uint64_t { return ~uint64_t(0); }, true}},
           in);
}

/// v_mad_u64_u32 / v_mad_i64_i32: 64-bit result and bit 64 to an SGPR
/// pair.
TEST(VALUInteger, MadU64U32) {
  Random rng(5);
  std::vector<uint64_t> c64 = {0, ~uint64_t(0), 0x8000000000000000ull, 1,
                               0x7fffffffffffffffull};
  LaneValues a = mixedInputs(21), b = mixedInputs(22);
  std::vector<uint64_t> c(kLanes);
  for (unsigned i = 0; i < kLanes; ++i)
    c[i] = i < c64.size() ? c64[i] : (uint64_t(rng.next()) << 32 | rng.next());
  std::vector<LaneValues> cs = split64(c);
  ValuCase vc;
  vc.inputs = {a, b, cs[0], cs[1]}; // v10, v11, v[12:13]
  vc.body = "v_mad_u64_u32 v[40:41], s[20:21], v10, v11, v[12:13]\n"
            "v_mad_i64_i32 v[42:43], s[22:23], v10, v11, v[12:13]";
  vc.epilogue = "v_mov_b32 v44, s20\nv_mov_b32 v45, s21\n"
                "v_mov_b32 v46, s22\nv_mov_b32 v47, s23";
  vc.numOutputs = 8;
  for (std::string chip : {"gfx942", "gfx90a"}) {
    vc.chip = chip;
    auto out = runValu(vc);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    uint64_t carryU = 0, carryI = 0;
    for (unsigned i = 0; i < kLanes; ++i) {
      unsigned __int128 u = (unsigned __int128)a[i] * b[i] + c[i];
      __int128 s =
          (__int128)int32_t(a[i]) * int32_t(b[i]) + (__int128)int64_t(c[i]);
      EXPECT_EQ(join64((*out)[0], (*out)[1])[i], uint64_t(u)) << i;
      EXPECT_EQ(join64((*out)[2], (*out)[3])[i], uint64_t(s)) << i;
      carryU |= uint64_t(uint64_t(u >> 64) & 1) << i;
      carryI |= uint64_t(uint64_t(s >> 64) & 1) << i;
    }
    EXPECT_EQ(join64((*out)[4], (*out)[5])[0], carryU) << chip;
    EXPECT_EQ(join64((*out)[6], (*out)[7])[0], carryI) << chip;
  }
}

/// A 64-bit add and subtract through carry chains (VCC in e32, SGPR pairs
/// in e64), with half the lanes inactive: their results stay poisoned and
/// their carry bits are cleared.
TEST(VALUInteger, CarryChains) {
  std::vector<uint64_t> x(kLanes), y(kLanes);
  Random rng(9);
  for (unsigned i = 0; i < kLanes; ++i) {
    x[i] = (uint64_t(rng.next()) << 32) | rng.next();
    y[i] = i % 3 ? (uint64_t(rng.next()) << 32) | rng.next()
                 : (~x[i] + (i % 2)); // carry/borrow propagation corners
  }
  auto xs = split64(x), ys = split64(y);
  uint64_t exec = 0x00ff00ff0f0f0f0full;
  ValuCase c;
  c.inputs = {xs[0], xs[1], ys[0], ys[1]};
  c.exec = exec;
  c.body = R"(
  v_add_co_u32_e32 v40, vcc, v10, v12
  v_addc_co_u32_e32 v41, vcc, v11, v13, vcc
  s_mov_b64 s[20:21], vcc
  v_sub_co_u32_e64 v42, s[22:23], v10, v12
  v_subb_co_u32_e64 v43, s[24:25], v11, v13, s[22:23]
  v_subrev_co_u32_e64 v44, s[26:27], v12, v10
  v_subbrev_co_u32_e32 v45, vcc, v13, v11, vcc
  s_mov_b64 vcc, s[26:27]
  v_subbrev_co_u32_e32 v45, vcc, v13, v11, vcc
  s_mov_b64 s[28:29], vcc
)";
  c.epilogue = "v_mov_b32 v46, s20\nv_mov_b32 v47, s21\n"
               "v_mov_b32 v48, s24\nv_mov_b32 v49, s25\n"
               "v_mov_b32 v50, s28\nv_mov_b32 v51, s29";
  c.numOutputs = 12;
  for (std::string chip : {"gfx90a", "gfx942"}) {
    c.chip = chip;
    auto out = runValu(c);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    uint64_t addCarry = 0, subBorrow = 0;
    for (unsigned i = 0; i < kLanes; ++i) {
      bool active = (exec >> i) & 1;
      uint64_t sum = x[i] + y[i], diff = x[i] - y[i];
      uint32_t poison = 0xdeadbeef;
      EXPECT_EQ((*out)[0][i], active ? uint32_t(sum) : poison) << i;
      EXPECT_EQ((*out)[1][i], active ? uint32_t(sum >> 32) : poison) << i;
      EXPECT_EQ((*out)[2][i], active ? uint32_t(diff) : poison) << i;
      EXPECT_EQ((*out)[3][i], active ? uint32_t(diff >> 32) : poison) << i;
      EXPECT_EQ((*out)[4][i], active ? uint32_t(diff) : poison) << i;
      EXPECT_EQ((*out)[5][i], active ? uint32_t(diff >> 32) : poison) << i;
      if (active) {
        addCarry |= uint64_t(sum < x[i]) << i;
        subBorrow |= uint64_t(y[i] > x[i]) << i;
      }
    }
    EXPECT_EQ(join64((*out)[6], (*out)[7])[0], addCarry) << chip;
    EXPECT_EQ(join64((*out)[8], (*out)[9])[0], subBorrow) << chip;
    EXPECT_EQ(join64((*out)[10], (*out)[11])[0], subBorrow) << chip;
  }
}

/// Integer clamp saturates (e64); carry-out forms saturate their value.
TEST(VALUInteger, IntegerClamp) {
  using In = const uint32_t *;
  std::vector<OpCheck> checks = {
      {"v_add_u32_e64 {d}, {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         return std::min<uint64_t>(uint64_t(x[0]) + x[1], 0xffffffffu);
       }},
      {"v_sub_u32_e64 {d}, {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         return x[0] > x[1] ? x[0] - x[1] : 0;
       }},
      {"v_subrev_u32_e64 {d}, {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         return x[1] > x[0] ? x[1] - x[0] : 0;
       }},
      {"v_add_i32 {d}, {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         int64_t r = int64_t(int32_t(x[0])) + int32_t(x[1]);
         return uint32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
       }},
      {"v_sub_i32 {d}, {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         int64_t r = int64_t(int32_t(x[0])) - int32_t(x[1]);
         return uint32_t(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
       }},
      {"v_add_co_u32_e64 {d}, s[20:21], {a}, {b} clamp",
       [](unsigned, In x) -> uint64_t {
         return std::min<uint64_t>(uint64_t(x[0]) + x[1], 0xffffffffu);
       }},
  };
  checkOps(checks, threeInputs());
  checkOps(checks, threeInputs(), "gfx90a");
}

/// v_cndmask_b32 with VCC (e32) and an SGPR pair (e64), e64 abs/neg acting
/// on bit 31.
TEST(VALUInteger, Cndmask) {
  LaneValues a = mixedInputs(31), b = mixedInputs(32);
  uint64_t mask = 0x123456789abcdef0ull;
  ValuCase c;
  c.inputs = {a, b};
  c.body = formatv("s_mov_b32 s20, {0:x}\ns_mov_b32 s21, {1:x}\n"
                   "s_mov_b64 vcc, s[20:21]\n"
                   "v_cndmask_b32_e32 v40, v10, v11, vcc\n"
                   "v_cndmask_b32_e64 v41, v10, v11, s[20:21]\n"
                   "v_cndmask_b32_e64 v42, -v10, |v11|, s[20:21]\n"
                   "v_cndmask_b32_e64 v43, 0, 1.0, s[20:21]",
                   uint32_t(mask), uint32_t(mask >> 32))
               .str();
  c.numOutputs = 4;
  auto out = runValu(c);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  for (unsigned i = 0; i < kLanes; ++i) {
    bool s = (mask >> i) & 1;
    EXPECT_EQ((*out)[0][i], s ? b[i] : a[i]) << i;
    EXPECT_EQ((*out)[1][i], s ? b[i] : a[i]) << i;
    EXPECT_EQ((*out)[2][i], s ? (b[i] & 0x7fffffffu) : (a[i] ^ 0x80000000u))
        << i;
    EXPECT_EQ((*out)[3][i], s ? 0x3f800000u : 0u) << i;
  }
}

/// v_readlane, v_readfirstlane (lowest active lane; lane 0 when EXEC is
/// zero), v_writelane (ignores EXEC), v_mbcnt, v_swap.
TEST(VALUInteger, LaneAccess) {
  LaneValues a = lanes([](unsigned i) { return 0x1000 + i * 7; });
  LaneValues b = lanes([](unsigned i) { return 0x2000 + i; });
  ValuCase c;
  c.inputs = {a, b};
  c.exec = 0xf0f0f0f0f0f0f000ull; // lowest active lane: 12
  c.body = R"(
  s_mov_b32 s30, 45
  v_readlane_b32 s20, v10, 3
  v_readlane_b32 s21, v10, s30
  v_readfirstlane_b32 s22, v10
  v_writelane_b32 v40, s21, 5
  v_mbcnt_lo_u32_b32 v41, -1, 0
  v_mbcnt_hi_u32_b32 v41, -1, v41
  s_mov_b32 s26, 0x55555555
  s_mov_b32 s27, 0xaaaaaaaa
  v_mbcnt_lo_u32_b32 v42, s26, 50
  v_mbcnt_hi_u32_b32 v42, s27, v42
  v_mov_b32 v43, v10
  v_mov_b32 v44, v11
  v_swap_b32 v43, v44
  s_mov_b64 s[24:25], exec
  s_mov_b64 exec, 0
  v_readfirstlane_b32 s23, v10
  s_mov_b64 exec, s[24:25]
  v_nop
)";
  c.epilogue = "v_mov_b32 v45, s20\nv_mov_b32 v46, s21\nv_mov_b32 v47, s22\n"
               "v_mov_b32 v48, s23";
  c.numOutputs = 9;
  for (std::string chip : {"gfx90a", "gfx942"}) {
    c.chip = chip;
    auto out = runValu(c);
    ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
    const uint32_t poison = 0xdeadbeef;
    for (unsigned i = 0; i < kLanes; ++i) {
      bool active = (c.exec >> i) & 1;
      EXPECT_EQ((*out)[0][i], i == 5 ? a[45] : poison) << i;
      uint64_t below = (uint64_t(1) << i) - 1;
      EXPECT_EQ((*out)[1][i], active ? popcount(below) : poison) << i;
      uint64_t pattern = 0xaaaaaaaa55555555ull;
      EXPECT_EQ((*out)[2][i], active ? 50 + popcount(pattern & below) : poison)
          << i;
      EXPECT_EQ((*out)[3][i], active ? b[i] : poison) << i;
      EXPECT_EQ((*out)[4][i], active ? a[i] : poison) << i;
      EXPECT_EQ((*out)[5][i], a[3]);
      EXPECT_EQ((*out)[6][i], a[45]);
      EXPECT_EQ((*out)[7][i], a[12]);
      EXPECT_EQ((*out)[8][i], a[0]);
    }
  }
}

/// Inactive lanes keep their destination in every encoding.
TEST(VALUInteger, ExecMasking) {
  using In = const uint32_t *;
  std::vector<OpCheck> checks = {
      {"v_add_u32_e32 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] + x[1]); }},
      {"v_add3_u32 {d}, {a}, {b}, {c}",
       [](unsigned, In x) -> uint64_t { return uint32_t(x[0] + x[1] + x[2]); }},
      {"v_add_u32_sdwa {d}, {a}, {b} dst_sel:DWORD dst_unused:UNUSED_PAD "
       "src0_sel:DWORD src1_sel:BYTE_0",
       [](unsigned, In x) -> uint64_t {
         return uint32_t(x[0] + (x[1] & 0xff));
       }},
      {"v_mov_b32_dpp {d}, {a} quad_perm:[0,1,2,3] row_mask:0xf "
       "bank_mask:0xf",
       [](unsigned, In x) -> uint64_t { return x[0]; }},
      {"v_pk_add_u16 {d}, {a}, {b}",
       [](unsigned, In x) -> uint64_t {
         return ((x[0] + x[1]) & 0xffff) |
                (((x[0] >> 16) + (x[1] >> 16)) << 16);
       }},
      {"v_lshlrev_b64 {D}, {a}, {B}",
       [](unsigned, In x) -> uint64_t {
         return (x[2] | (uint64_t(x[3]) << 32)) << (x[0] & 63);
       },
       true},
  };
  std::vector<LaneValues> in = threeInputs();
  in.push_back(mixedInputs(4));
  for (uint64_t exec : {0x8000000000000001ull, 0x0123456789abcdefull, 0ull})
    checkOps(checks, in, "gfx942", "", exec);
}

} // namespace
