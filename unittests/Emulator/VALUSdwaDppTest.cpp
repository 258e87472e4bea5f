//===- VALUSdwaDppTest.cpp - VALU SDWA and DPP encodings ------------------===//
//
// SDWA: every source select (with and without sign extension), every
// destination select with each dst_unused mode, IEEE operations with
// modifiers and omod, compares.
// DPP: every gfx9 control, row_mask/bank_mask keeping the old value,
// bound_ctrl zero-filling invalid (out-of-range or inactive) source lanes,
// and gfx940's 64-bit row_newbcast.
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

const char *kSelNames[7] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3",
                            "WORD_0", "WORD_1", "DWORD"};

/// The operand an SDWA source select produces.
uint32_t selected(uint32_t v, unsigned sel, bool sext) {
  if (sel == 6)
    return v;
  unsigned width = sel < 4 ? 8 : 16;
  unsigned shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
  uint32_t field = (v >> shift) & ((1u << width) - 1);
  if (sext && (field >> (width - 1)))
    field |= ~((1u << width) - 1);
  return field;
}

LaneValues sdwaInputs(uint64_t seed) {
  Random rng(seed);
  return lanes([&](unsigned i) -> uint32_t {
    // Mix high bits set and clear in every byte.
    uint32_t v = rng.next();
    return i % 4 == 0 ? v | 0x80808080u : i % 4 == 1 ? v & 0x7f7f7f7fu : v;
  });
}

TEST(VALUSdwa, SourceSelects) {
  std::vector<OpCheck> checks;
  for (unsigned s0 = 0; s0 < 7; ++s0)
    for (unsigned s1 = 0; s1 < 7; ++s1)
      for (bool sext : {false, true}) {
        std::string a = sext ? "sext({a})" : "{a}";
        std::string b = sext ? "sext({b})" : "{b}";
        checks.push_back(
            {formatv("v_add_u32_sdwa {{d}, {0}, {1} dst_sel:DWORD "
                     "dst_unused:UNUSED_PAD src0_sel:{2} src1_sel:{3}",
                     a, b, kSelNames[s0], kSelNames[s1])
                 .str(),
             [=](unsigned, In x) -> uint64_t {
               return uint32_t(selected(x[0], s0, sext) +
                               selected(x[1], s1, sext));
             }});
      }
  checkOps(checks, {sdwaInputs(1), sdwaInputs(2)});
}

TEST(VALUSdwa, DestinationSelects) {
  const char *kUnused[3] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
  std::vector<OpCheck> checks;
  for (unsigned sel = 0; sel < 7; ++sel)
    for (unsigned unused = 0; unused < 3; ++unused) {
      if (sel == 6 && unused != 0)
        continue; // DWORD has no unused bits
      checks.push_back(
          {formatv("v_xor_b32_sdwa {{d}, {{a}, {{b} dst_sel:{0} dst_unused:{1} "
                   "src0_sel:DWORD src1_sel:DWORD",
                   kSelNames[sel], kUnused[unused])
               .str(),
           [=](unsigned, In x) -> uint64_t {
             uint32_t r = x[0] ^ x[1], old = 0xdeadbeef;
             if (sel == 6)
               return r;
             unsigned width = sel < 4 ? 8 : 16;
             unsigned shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
             uint64_t fieldMask = ((uint64_t(1) << width) - 1) << shift;
             uint32_t field = uint32_t((uint64_t(r) << shift) & fieldMask);
             if (unused == 0)
               return field;
             if (unused == 2)
               return field | (old & ~uint32_t(fieldMask));
             bool negative = (r >> (width - 1)) & 1;
             uint64_t upper = ~((uint64_t(1) << (shift + width)) - 1);
             return field | (negative ? uint32_t(upper) : 0u);
           }});
    }
  checkOps(checks, {sdwaInputs(3), sdwaInputs(4)});
  checkOps(checks, {sdwaInputs(3), sdwaInputs(4)}, "gfx90a");
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

/// IEEE operations: source modifiers after the select, omod (IEEE mode
/// off, denormals flushed) and clamp; compares with an sdst; SGPR sources.
TEST(VALUSdwa, FloatCompareAndOperands) {
  LaneValues halves = lanes([](unsigned i) {
    return (uint32_t(h16d(double(i) * 0.75 - 20.0)) << 16) |
           h16d(double(i % 9) - 4.5);
  });
  LaneValues floats =
      lanes([](unsigned i) { return bitsOf(float(int(i) - 31) * 0.375f); });
  std::vector<OpCheck> checks = {
      // The common f16 packing idiom: high halves added into the high half.
      {"v_add_f16_sdwa {d}, {a}, {a} dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
       "src0_sel:WORD_1 src1_sel:WORD_0",
       [](unsigned, In x) -> uint64_t {
         uint16_t r =
             h16d(fromH16(uint16_t(x[0] >> 16)) + fromH16(uint16_t(x[0])));
         return (uint32_t(r) << 16) | 0xbeef;
       }},
      {"v_mul_f32_sdwa {d}, -{b}, |{b}| dst_sel:DWORD dst_unused:UNUSED_PAD "
       "src0_sel:DWORD src1_sel:DWORD",
       [](unsigned, In x) -> uint64_t {
         float v = floatOf(x[1]);
         return bitsOf(-v * std::fabs(v));
       }},
      {"v_add_f32_sdwa {d}, {b}, {b} clamp mul:2 dst_sel:DWORD "
       "dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
       [](unsigned, In x) -> uint64_t {
         float v = 2.0f * (floatOf(x[1]) + floatOf(x[1]));
         return v <= 0 ? 0u : bitsOf(v > 1 ? 1.0f : v);
       }},
      {"v_cvt_f32_f16_sdwa {d}, {a} dst_sel:DWORD dst_unused:UNUSED_PAD "
       "src0_sel:WORD_1",
       [](unsigned, In x) -> uint64_t {
         return bitsOf(float(fromH16(uint16_t(x[0] >> 16))));
       }},
      {"v_cmp_lt_f16_sdwa s[20:21], {a}, {a} src0_sel:WORD_1 src1_sel:WORD_0\n"
       "  v_cndmask_b32_e64 {d}, 0, 1, s[20:21]",
       [](unsigned, In x) -> uint64_t {
         return fromH16(uint16_t(x[0] >> 16)) < fromH16(uint16_t(x[0]));
       }},
      {"v_cmp_gt_i32_sdwa vcc, sext({a}), {b} src0_sel:WORD_0 src1_sel:BYTE_0\n"
       "  v_cndmask_b32_e64 {d}, 0, 1, vcc",
       [](unsigned, In x) -> uint64_t {
         return int32_t(int16_t(x[0])) > int32_t(x[1] & 0xff);
       }},
      // Compiler idioms: a byte as a shift count, a selected condition.
      {"v_lshlrev_b32_sdwa {d}, {b}, {a} dst_sel:DWORD dst_unused:UNUSED_PAD "
       "src0_sel:DWORD src1_sel:BYTE_0",
       [](unsigned, In x) -> uint64_t { return (x[0] & 0xff) << (x[1] & 31); }},
      {"s_mov_b64 vcc, 0x5555\n"
       "  v_cndmask_b32_sdwa {d}, {a}, {b}, vcc dst_sel:DWORD "
       "dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD",
       [](unsigned lane, In x) -> uint64_t {
         return (uint64_t(0x5555) >> lane) & 1 ? x[1] : (x[0] >> 8) & 0xff;
       }},
      {"v_mov_b32_sdwa {d}, {a} dst_sel:BYTE_2 dst_unused:UNUSED_SEXT "
       "src0_sel:BYTE_1",
       [](unsigned, In x) -> uint64_t {
         uint32_t b = (x[0] >> 8) & 0xff;
         return (b << 16) | ((b & 0x80) ? 0xff000000u : 0u);
       }},
      {"s_mov_b32 s20, 0x12345678\n"
       "  v_sub_u32_sdwa {d}, s20, {a} dst_sel:WORD_0 dst_unused:UNUSED_PAD "
       "src0_sel:BYTE_3 src1_sel:WORD_1",
       [](unsigned, In x) -> uint64_t {
         return uint16_t(0x12 - (x[0] >> 16));
       }},
  };
  std::string mode = ".amdhsa_ieee_mode 0\n.amdhsa_float_denorm_mode_32 0\n"
                     ".amdhsa_float_denorm_mode_16_64 3";
  checkOps(checks, {halves, floats}, "gfx942", mode);
  checkOps(checks, {halves, floats}, "gfx90a", mode);
}

//===----------------------------------------------------------------------===//
// DPP
//===----------------------------------------------------------------------===//

struct DppControl {
  std::string syntax;
  /// The lane read by `lane`, or -1 when it is out of range.
  std::function<int(int lane)> source;
};

std::vector<DppControl> dppControls() {
  std::vector<DppControl> controls;
  for (std::string perm :
       {"[0,1,2,3]", "[3,2,1,0]", "[1,0,3,2]", "[2,2,0,1]"}) {
    int sel[4] = {perm[1] - '0', perm[3] - '0', perm[5] - '0', perm[7] - '0'};
    controls.push_back({"quad_perm:" + perm, [=](int lane) {
                          return (lane / 4) * 4 + sel[lane % 4];
                        }});
  }
  for (int n = 1; n <= 15; ++n) {
    controls.push_back({formatv("row_shl:{0}", n).str(), [=](int lane) {
                          return lane % 16 + n < 16 ? lane + n : -1;
                        }});
    controls.push_back({formatv("row_shr:{0}", n).str(), [=](int lane) {
                          return lane % 16 - n >= 0 ? lane - n : -1;
                        }});
    controls.push_back({formatv("row_ror:{0}", n).str(), [=](int lane) {
                          return lane / 16 * 16 + (lane % 16 + 16 - n) % 16;
                        }});
  }
  controls.push_back(
      {"wave_shl:1", [](int lane) { return lane < 63 ? lane + 1 : -1; }});
  controls.push_back({"wave_rol:1", [](int lane) { return (lane + 1) % 64; }});
  controls.push_back(
      {"wave_shr:1", [](int lane) { return lane > 0 ? lane - 1 : -1; }});
  controls.push_back({"wave_ror:1", [](int lane) { return (lane + 63) % 64; }});
  controls.push_back(
      {"row_mirror", [](int lane) { return lane / 16 * 16 + 15 - lane % 16; }});
  controls.push_back({"row_half_mirror",
                      [](int lane) { return lane / 8 * 8 + 7 - lane % 8; }});
  controls.push_back({"row_bcast:15", [](int lane) {
                        return lane >= 16 ? lane / 16 * 16 - 1 : -1;
                      }});
  controls.push_back(
      {"row_bcast:31", [](int lane) { return lane >= 32 ? 31 : -1; }});
  return controls;
}

/// Expected result of v_mov_b32_dpp for one lane.
uint64_t dppExpect(const DppControl &c, int lane, In x, uint64_t exec,
                   unsigned rowMask, unsigned bankMask, bool boundCtrl,
                   const LaneValues &src) {
  const uint32_t old = 0xdeadbeef;
  if (!((rowMask >> (lane / 16)) & 1) || !((bankMask >> (lane % 16 / 4)) & 1))
    return old;
  int from = c.source(lane);
  bool valid = from >= 0 && ((exec >> from) & 1);
  if (!valid)
    return boundCtrl ? 0 : old;
  return src[from];
}

TEST(VALUDpp, EveryControl) {
  LaneValues src = lanes([](unsigned i) { return 0x1000u + i; });
  struct Setting {
    uint64_t exec;
    unsigned rowMask, bankMask;
    bool boundCtrl;
  };
  for (Setting s : {Setting{~0ull, 0xf, 0xf, false},
                    Setting{0xfffefffffff7ff7full, 0xf, 0xf, true},
                    Setting{0x7fffffffffffff0full, 0xf, 0xf, false},
                    Setting{~0ull, 0xa, 0x5, true}}) {
    std::vector<OpCheck> checks;
    for (const DppControl &c : dppControls())
      checks.push_back(
          {formatv(
               "v_mov_b32_dpp {{d}, {{a} {0} row_mask:{1:x} bank_mask:{2:x}{3}",
               c.syntax, s.rowMask, s.bankMask,
               s.boundCtrl ? " bound_ctrl:0" : "")
               .str(),
           [=](unsigned lane, In x) -> uint64_t {
             return dppExpect(c, int(lane), x, s.exec, s.rowMask, s.bankMask,
                              s.boundCtrl, src);
           }});
    checkOps(checks, {src}, "gfx942", "", s.exec);
    if (s.boundCtrl && s.rowMask == 0xf)
      checkOps(checks, {src}, "gfx90a", "", s.exec);
  }
}

/// DPP on an arithmetic operation: src0 comes from the permuted lane with
/// its modifiers, src1 from the lane itself.
TEST(VALUDpp, Arithmetic) {
  LaneValues a = lanes([](unsigned i) { return bitsOf(float(i) + 0.5f); });
  LaneValues b = lanes([](unsigned i) { return bitsOf(float(i) * -2.0f); });
  std::vector<OpCheck> checks = {
      {"v_add_f32_dpp {d}, -{a}, |{b}| row_shr:1 row_mask:0xf bank_mask:0xf "
       "bound_ctrl:0",
       [&](unsigned lane, In x) -> uint64_t {
         float s0 = lane % 16 ? -floatOf(a[lane - 1]) : -0.0f;
         return bitsOf(s0 + std::fabs(floatOf(x[1])));
       }},
      {"v_add_u32_dpp {d}, {a}, {b} quad_perm:[1,1,1,1] row_mask:0x3 "
       "bank_mask:0xf",
       [&](unsigned lane, In x) -> uint64_t {
         if (lane >= 32)
           return 0xdeadbeef;
         return uint32_t(a[lane / 4 * 4 + 1] + x[1]);
       }},
      {"v_mov_b32 {d}, {b}\n  v_fmac_f32_dpp {d}, {a}, {b} row_mirror "
       "row_mask:0xf bank_mask:0xf",
       [&](unsigned lane, In x) -> uint64_t {
         float s0 = floatOf(a[lane / 16 * 16 + 15 - lane % 16]);
         return bitsOf(std::fma(s0, floatOf(x[1]), floatOf(x[1])));
       }},
      {"v_subrev_u32_dpp {d}, {a}, {b} row_shl:2 row_mask:0xf bank_mask:0xf "
       "bound_ctrl:0",
       [&](unsigned lane, In x) -> uint64_t {
         uint32_t s0 = lane % 16 < 14 ? a[lane + 2] : 0;
         return uint32_t(x[1] - s0);
       }},
  };
  checkOps(checks, {a, b});
  checkOps(checks, {a, b}, "gfx90a");
}

/// gfx940's 64-bit DPP: row_newbcast:n gives every lane of a row lane n of
/// that row.
TEST(VALUDpp, NewBroadcast64) {
  std::vector<uint64_t> v(kLanes);
  for (unsigned i = 0; i < kLanes; ++i)
    v[i] = (uint64_t(0xabc00000u + i) << 32) | (0x100u + i);
  std::vector<OpCheck> checks;
  for (int n : {0, 5, 15})
    checks.push_back(
        {formatv("v_mov_b64_dpp {{D}, {{A} row_newbcast:{0} row_mask:0xf "
                 "bank_mask:0xf",
                 n)
             .str(),
         [=](unsigned lane, In) -> uint64_t { return v[lane / 16 * 16 + n]; },
         true});
  checkOps(checks, split64(v), "gfx942");
}

} // namespace
