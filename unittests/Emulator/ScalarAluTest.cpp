//===- ScalarAluTest.cpp - SOP1, SOP2, SOPC and SOPK data operations ------===//
//
// Every operation runs over a grid of interesting inputs, with SCC preset to
// 0 and to 1 (so operations that must not write SCC are caught). Expected
// values come from the reference functions below, written from the CDNA3
// ISA pseudocode with plain loops and wide arithmetic, not from the
// emulator's handlers.
//
//===----------------------------------------------------------------------===//

#include "ScalarTest.h"

#include <functional>

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class ScalarAlu : public ScalarChipTest {};

struct Out {
  uint64_t d;
  bool scc;
};

// Inputs: boundaries of every signed/unsigned range, shift counts, and BFE
// operands (width in [22:16], offset in [4:0]).
const uint32_t kValues32[] = {0,          1,          2,          4,
                              31,         32,         0x7fffffff, 0x80000000,
                              0x80000001, 0xffffffff, 0xfffffffe, 0x12345678,
                              0xdeadbeef, 0x00080004, 0x0010001c, 0x00200000,
                              0xffff8000, 0x0005001f, 0x00450003};
const uint64_t kValues64[] = {0,
                              1,
                              ~0ull,
                              0x8000000000000000ull,
                              0x7fffffffffffffffull,
                              0x00000000ffffffffull,
                              0xffffffff00000000ull,
                              0x0000000100000000ull,
                              0x123456789abcdef0ull,
                              0xf0f0f0f00f0f0f0full};
// 64-bit shift counts and BFE operands.
const uint32_t kCounts64[] = {0,          1,          31,         32,
                              33,         63,         64,         0x00080004,
                              0x0020001c, 0x0040000c, 0x0041003c, 0x7f3f0000};

int64_t sext(uint64_t v, unsigned bits) {
  uint64_t sign = uint64_t(1) << (bits - 1);
  v &= bits == 64 ? ~0ull : (uint64_t(1) << bits) - 1;
  return int64_t(v ^ sign) - int64_t(sign);
}

bool bit(uint64_t v, unsigned i) { return i < 64 && ((v >> i) & 1); }

//===----------------------------------------------------------------------===//
// Reference semantics (CDNA3 ISA pseudocode)
//===----------------------------------------------------------------------===//

using Sop2Ref = std::function<Out(uint64_t, uint64_t, bool)>;

Out keep(uint64_t d, bool scc) { return {d, scc}; }
Out nz32(uint64_t d) { return {uint32_t(d), uint32_t(d) != 0}; }
Out nz64(uint64_t d) { return {d, d != 0}; }

/// BFE by bit loop: field of `width` bits at `offset` of `src`, where bits
/// past the top read `fill`.
uint64_t extract(uint64_t src, unsigned size, unsigned offset, unsigned width,
                 bool fill) {
  uint64_t d = 0;
  for (unsigned i = 0; i < width && i < size; ++i) {
    unsigned from = offset + i;
    if (from < size ? bit(src, from) : fill)
      d |= uint64_t(1) << i;
  }
  return d;
}

uint64_t bfeRef(uint64_t a, uint64_t b, unsigned size, bool isSigned) {
  unsigned offset = b & (size - 1), width = (b >> 16) & 0x7f;
  bool negative = isSigned && bit(a, size - 1);
  uint64_t d = extract(a, size, offset, width, negative);
  if (isSigned) {
    if (width == 0)
      return 0;
    if (width < size && bit(d, width - 1))
      for (unsigned i = width; i < size; ++i)
        d |= uint64_t(1) << i;
  }
  return d;
}

uint64_t bfmRef(uint64_t a, uint64_t b, unsigned size) {
  uint64_t d = 0;
  for (unsigned i = 0; i < (a & (size - 1)); ++i)
    if ((b & (size - 1)) + i < size)
      d |= uint64_t(1) << ((b & (size - 1)) + i);
  return d;
}

struct Sop2 {
  const char *mnemonic;
  Sop2Ref ref;
};

std::vector<Sop2> sop2Ops32() {
  auto s32 = [](uint64_t v) { return int64_t(int32_t(uint32_t(v))); };
  return {
      {"s_add_u32",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t t = a + b;
         return Out{uint32_t(t), t >= 0x100000000ull};
       }},
      {"s_addc_u32",
       [](uint64_t a, uint64_t b, bool c) {
         uint64_t t = a + b + c;
         return Out{uint32_t(t), t >= 0x100000000ull};
       }},
      {"s_sub_u32",
       [](uint64_t a, uint64_t b, bool) {
         return Out{uint32_t(a - b), b > a};
       }},
      {"s_subb_u32",
       [](uint64_t a, uint64_t b, bool c) {
         return Out{uint32_t(a - b - c), b + c > a};
       }},
      {"s_add_i32",
       [=](uint64_t a, uint64_t b, bool) {
         int64_t r = s32(a) + s32(b);
         return Out{uint32_t(r), r != int32_t(r)};
       }},
      {"s_sub_i32",
       [=](uint64_t a, uint64_t b, bool) {
         int64_t r = s32(a) - s32(b);
         return Out{uint32_t(r), r != int32_t(r)};
       }},
      {"s_mul_i32",
       [](uint64_t a, uint64_t b, bool c) { return keep(uint32_t(a * b), c); }},
      {"s_mul_hi_u32",
       [](uint64_t a, uint64_t b, bool c) { return keep((a * b) >> 32, c); }},
      {"s_mul_hi_i32",
       [=](uint64_t a, uint64_t b, bool c) {
         return keep(uint32_t(uint64_t(s32(a) * s32(b)) >> 32), c);
       }},
      {"s_min_i32",
       [=](uint64_t a, uint64_t b, bool) {
         bool lt = s32(a) < s32(b);
         return Out{lt ? a : b, lt};
       }},
      {"s_min_u32",
       [](uint64_t a, uint64_t b, bool) {
         return Out{a < b ? a : b, a < b};
       }},
      {"s_max_i32",
       [=](uint64_t a, uint64_t b, bool) {
         bool ge = s32(a) >= s32(b);
         return Out{ge ? a : b, ge};
       }},
      {"s_max_u32",
       [](uint64_t a, uint64_t b, bool) {
         return Out{a >= b ? a : b, a >= b};
       }},
      {"s_absdiff_i32",
       [](uint64_t a, uint64_t b, bool) {
         uint32_t d = uint32_t(a - b);
         if (d & 0x80000000u)
           d = uint32_t(-uint64_t(d));
         return nz32(d);
       }},
      {"s_lshl1_add_u32",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t t = (a << 1) + b;
         return Out{uint32_t(t), (t >> 32) != 0};
       }},
      {"s_lshl2_add_u32",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t t = (a << 2) + b;
         return Out{uint32_t(t), (t >> 32) != 0};
       }},
      {"s_lshl3_add_u32",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t t = (a << 3) + b;
         return Out{uint32_t(t), (t >> 32) != 0};
       }},
      {"s_lshl4_add_u32",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t t = (a << 4) + b;
         return Out{uint32_t(t), (t >> 32) != 0};
       }},
      {"s_and_b32", [](uint64_t a, uint64_t b, bool) { return nz32(a & b); }},
      {"s_or_b32", [](uint64_t a, uint64_t b, bool) { return nz32(a | b); }},
      {"s_xor_b32", [](uint64_t a, uint64_t b, bool) { return nz32(a ^ b); }},
      {"s_andn2_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(a & ~b); }},
      {"s_orn2_b32", [](uint64_t a, uint64_t b, bool) { return nz32(a | ~b); }},
      {"s_nand_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(~(a & b)); }},
      {"s_nor_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(~(a | b)); }},
      {"s_xnor_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(~(a ^ b)); }},
      {"s_lshl_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(a << (b % 32)); }},
      {"s_lshr_b32",
       [](uint64_t a, uint64_t b, bool) { return nz32(a >> (b % 32)); }},
      {"s_ashr_i32",
       [=](uint64_t a, uint64_t b, bool) {
         // Floor division by a power of two is an arithmetic shift.
         int64_t v = s32(a);
         for (unsigned i = 0; i < b % 32; ++i)
           v = v >= 0 ? v / 2 : (v - 1) / 2;
         return nz32(uint64_t(v));
       }},
      {"s_bfe_u32", [](uint64_t a, uint64_t b,
                       bool) { return nz32(bfeRef(a, b, 32, false)); }},
      {"s_bfe_i32", [](uint64_t a, uint64_t b,
                       bool) { return nz32(bfeRef(a, b, 32, true)); }},
      {"s_bfm_b32", [](uint64_t a, uint64_t b,
                       bool c) { return keep(bfmRef(a, b, 32), c); }},
      {"s_pack_ll_b32_b16",
       [](uint64_t a, uint64_t b, bool c) {
         return keep(((b & 0xffff) << 16) | (a & 0xffff), c);
       }},
      {"s_pack_lh_b32_b16",
       [](uint64_t a, uint64_t b, bool c) {
         return keep((b & 0xffff0000) | (a & 0xffff), c);
       }},
      {"s_pack_hh_b32_b16",
       [](uint64_t a, uint64_t b, bool c) {
         return keep((b & 0xffff0000) | (a >> 16), c);
       }},
      {"s_cselect_b32",
       [](uint64_t a, uint64_t b, bool c) { return keep(c ? a : b, c); }},
  };
}

TEST_P(ScalarAlu, Sop2Ops32) {
  ScalarKernel k = kernel();
  for (const Sop2 &op : sop2Ops32()) {
    for (uint32_t a : kValues32)
      for (uint32_t b : kValues32)
        for (bool scc : {false, true}) {
          k.set("s10", a);
          k.set("s11", b);
          k.setScc(scc);
          k << std::string("  ") + op.mnemonic + " s12, s10, s11";
          Out expected = op.ref(a, b, scc);
          std::string what = llvm::formatv("{0} {1:x}, {2:x} (scc {3})",
                                           op.mnemonic, a, b, int(scc));
          k.expect("s12", uint32_t(expected.d), what);
          k.expectScc(expected.scc, what);
        }
  }
  k.run();
}

std::vector<Sop2> sop2Ops64() {
  return {
      {"s_and_b64", [](uint64_t a, uint64_t b, bool) { return nz64(a & b); }},
      {"s_or_b64", [](uint64_t a, uint64_t b, bool) { return nz64(a | b); }},
      {"s_xor_b64", [](uint64_t a, uint64_t b, bool) { return nz64(a ^ b); }},
      {"s_andn2_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(a & ~b); }},
      {"s_orn2_b64", [](uint64_t a, uint64_t b, bool) { return nz64(a | ~b); }},
      {"s_nand_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(~(a & b)); }},
      {"s_nor_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(~(a | b)); }},
      {"s_xnor_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(~(a ^ b)); }},
      {"s_cselect_b64",
       [](uint64_t a, uint64_t b, bool c) { return keep(c ? a : b, c); }},
  };
}

TEST_P(ScalarAlu, Sop2Ops64) {
  ScalarKernel k = kernel();
  for (const Sop2 &op : sop2Ops64()) {
    for (uint64_t a : kValues64)
      for (uint64_t b : kValues64)
        for (bool scc : {false, true}) {
          k.set64(10, a);
          k.set64(12, b);
          k.setScc(scc);
          k << std::string("  ") + op.mnemonic +
                   " s[14:15], s[10:11], s[12:13]";
          Out expected = op.ref(a, b, scc);
          std::string what = llvm::formatv("{0} {1:x}, {2:x} (scc {3})",
                                           op.mnemonic, a, b, int(scc));
          k.expect64(14, expected.d, what);
          k.expectScc(expected.scc, what);
        }
  }
  k.run();
}

// 64-bit shifts and bit fields: S0 is 64-bit, S1 a 32-bit count/field.
TEST_P(ScalarAlu, ShiftsAndBitFields64) {
  std::vector<Sop2> ops = {
      {"s_lshl_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(a << (b % 64)); }},
      {"s_lshr_b64",
       [](uint64_t a, uint64_t b, bool) { return nz64(a >> (b % 64)); }},
      {"s_ashr_i64",
       [](uint64_t a, uint64_t b, bool) {
         uint64_t d = a;
         for (unsigned i = 0; i < b % 64; ++i)
           d = (d >> 1) | (d & 0x8000000000000000ull);
         return nz64(d);
       }},
      {"s_bfe_u64", [](uint64_t a, uint64_t b,
                       bool) { return nz64(bfeRef(a, b, 64, false)); }},
      {"s_bfe_i64", [](uint64_t a, uint64_t b,
                       bool) { return nz64(bfeRef(a, b, 64, true)); }},
  };
  ScalarKernel k = kernel();
  for (const Sop2 &op : ops) {
    for (uint64_t a : kValues64)
      for (uint32_t b : kCounts64)
        for (bool scc : {false, true}) {
          k.set64(10, a);
          k.set("s12", b);
          k.setScc(scc);
          k << std::string("  ") + op.mnemonic + " s[14:15], s[10:11], s12";
          Out expected = op.ref(a, b, scc);
          std::string what = llvm::formatv("{0} {1:x}, {2:x} (scc {3})",
                                           op.mnemonic, a, b, int(scc));
          k.expect64(14, expected.d, what);
          k.expectScc(expected.scc, what);
        }
  }
  k.run();
}

TEST_P(ScalarAlu, Bfm64) {
  ScalarKernel k = kernel();
  for (uint32_t a : kCounts64)
    for (uint32_t b : kCounts64) {
      k.set("s10", a);
      k.set("s11", b);
      k.setScc(true);
      k << "  s_bfm_b64 s[12:13], s10, s11";
      std::string what = llvm::formatv("s_bfm_b64 {0:x}, {1:x}", a, b);
      k.expect64(12, bfmRef(a, b, 64), what);
      k.expectScc(true, what);
    }
  k.run();
}

// MIN/MAX with equal operands: MIN clears SCC (S0 < S1 is false) while MAX
// sets it (S0 >= S1); the value is the same either way.
TEST_P(ScalarAlu, MinMaxEqualOperands) {
  ScalarKernel k = kernel();
  for (uint32_t v : {0u, 7u, 0x80000000u, 0xffffffffu}) {
    for (const char *op :
         {"s_min_i32", "s_min_u32", "s_max_i32", "s_max_u32"}) {
      for (bool scc : {false, true}) {
        k.set("s10", v);
        k.setScc(scc);
        k << std::string("  ") + op + " s12, s10, s10";
        std::string what = llvm::formatv("{0} {1:x}, {1:x}", op, v);
        k.expect("s12", v, what);
        k.expectScc(llvm::StringRef(op).starts_with("s_max"), what);
      }
    }
  }
  k.run();
}

// Multi-word arithmetic through SCC.
TEST_P(ScalarAlu, CarryChains) {
  ScalarKernel k = kernel();
  const uint64_t pairs[][2] = {{0xffffffffffffffffull, 1},
                               {0x00000000ffffffffull, 1},
                               {0x12345678ffffffffull, 0x00000001ffffffffull},
                               {0, 0xffffffffffffffffull},
                               {0x8000000000000000ull, 0x8000000000000000ull}};
  for (auto [a, b] : pairs) {
    std::string what = llvm::formatv("{0:x} +/- {1:x}", a, b);
    k.set64(10, a);
    k.set64(12, b);
    k << "  s_add_u32 s14, s10, s12"
      << "  s_addc_u32 s15, s11, s13";
    k.expect64(14, a + b, "64-bit add " + what);
    k.expectScc(((unsigned __int128)a + b) >> 64, "64-bit add carry " + what);
    k << "  s_sub_u32 s14, s10, s12"
      << "  s_subb_u32 s15, s11, s13";
    k.expect64(14, a - b, "64-bit sub " + what);
    k.expectScc(b > a, "64-bit sub borrow " + what);
  }
  // A 96-bit add: 0x00000000_ffffffff_ffffffff + 1.
  k.set("s10", 0xffffffff);
  k.set("s11", 0xffffffff);
  k.set("s12", 0);
  k << "  s_add_u32 s10, s10, 1"
    << "  s_addc_u32 s11, s11, 0"
    << "  s_addc_u32 s12, s12, 0";
  k.expect("s10", 0, "96-bit add word 0");
  k.expect("s11", 0, "96-bit add word 1");
  k.expect("s12", 1, "96-bit add word 2");
  k.expectScc(false, "96-bit add carry out");
  k.run();
}

//===----------------------------------------------------------------------===//
// SOP1
//===----------------------------------------------------------------------===//

using Sop1Ref = std::function<Out(uint64_t, bool)>;
struct Sop1 {
  const char *mnemonic;
  bool wideDst, wideSrc;
  Sop1Ref ref;
};

uint64_t countBits(uint64_t v, unsigned size, bool ones) {
  uint64_t n = 0;
  for (unsigned i = 0; i < size; ++i)
    n += bit(v, i) == ones;
  return n;
}
/// The first bit equal to `value` from the LSB, or -1.
uint32_t findFirst(uint64_t v, unsigned size, bool value) {
  for (unsigned i = 0; i < size; ++i)
    if (bit(v, i) == value)
      return i;
  return 0xffffffff;
}
/// The first set bit from the MSB (counted from the MSB), or -1.
uint32_t findFirstFromTop(uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i)
    if (bit(v, size - 1 - i))
      return i;
  return 0xffffffff;
}
/// The first bit from the MSB that differs from the sign bit, or -1.
uint32_t findSignChange(uint64_t v, unsigned size) {
  for (unsigned i = 1; i < size; ++i)
    if (bit(v, size - 1 - i) != bit(v, size - 1))
      return i;
  return 0xffffffff;
}
uint64_t reverse(uint64_t v, unsigned size) {
  uint64_t d = 0;
  for (unsigned i = 0; i < size; ++i)
    if (bit(v, i))
      d |= uint64_t(1) << (size - 1 - i);
  return d;
}
uint64_t wqmRef(uint64_t v, unsigned size) {
  uint64_t d = 0;
  for (unsigned i = 0; i < size; ++i)
    if (extract(v, size, i & ~3u, 4, false))
      d |= uint64_t(1) << i;
  return d;
}
uint64_t quadmaskRef(uint64_t v, unsigned size) {
  uint64_t d = 0;
  for (unsigned i = 0; i < size / 4; ++i)
    if (extract(v, size, 4 * i, 4, false))
      d |= uint64_t(1) << i;
  return d;
}

std::vector<Sop1> sop1Ops() {
  auto m32 = [](uint64_t v) { return uint32_t(v); };
  return {
      {"s_mov_b32", false, false,
       [](uint64_t a, bool c) { return keep(a, c); }},
      {"s_mov_b64", true, true, [](uint64_t a, bool c) { return keep(a, c); }},
      {"s_not_b32", false, false, [](uint64_t a, bool) { return nz32(~a); }},
      {"s_not_b64", true, true, [](uint64_t a, bool) { return nz64(~a); }},
      {"s_brev_b32", false, false,
       [](uint64_t a, bool c) { return keep(reverse(a, 32), c); }},
      {"s_brev_b64", true, true,
       [](uint64_t a, bool c) { return keep(reverse(a, 64), c); }},
      {"s_bcnt0_i32_b32", false, false,
       [](uint64_t a, bool) { return nz32(countBits(a, 32, false)); }},
      {"s_bcnt0_i32_b64", false, true,
       [](uint64_t a, bool) { return nz32(countBits(a, 64, false)); }},
      {"s_bcnt1_i32_b32", false, false,
       [](uint64_t a, bool) { return nz32(countBits(a, 32, true)); }},
      {"s_bcnt1_i32_b64", false, true,
       [](uint64_t a, bool) { return nz32(countBits(a, 64, true)); }},
      {"s_ff0_i32_b32", false, false,
       [](uint64_t a, bool c) { return keep(findFirst(a, 32, false), c); }},
      {"s_ff0_i32_b64", false, true,
       [](uint64_t a, bool c) { return keep(findFirst(a, 64, false), c); }},
      {"s_ff1_i32_b32", false, false,
       [](uint64_t a, bool c) { return keep(findFirst(a, 32, true), c); }},
      {"s_ff1_i32_b64", false, true,
       [](uint64_t a, bool c) { return keep(findFirst(a, 64, true), c); }},
      {"s_flbit_i32_b32", false, false,
       [](uint64_t a, bool c) { return keep(findFirstFromTop(a, 32), c); }},
      {"s_flbit_i32_b64", false, true,
       [](uint64_t a, bool c) { return keep(findFirstFromTop(a, 64), c); }},
      {"s_flbit_i32", false, false,
       [](uint64_t a, bool c) { return keep(findSignChange(a, 32), c); }},
      {"s_flbit_i32_i64", false, true,
       [](uint64_t a, bool c) { return keep(findSignChange(a, 64), c); }},
      {"s_sext_i32_i8", false, false,
       [](uint64_t a, bool c) { return keep(uint32_t(sext(a, 8)), c); }},
      {"s_sext_i32_i16", false, false,
       [](uint64_t a, bool c) { return keep(uint32_t(sext(a, 16)), c); }},
      {"s_abs_i32", false, false,
       [=](uint64_t a, bool) {
         int64_t v = int32_t(m32(a));
         return nz32(uint64_t(v < 0 ? -v : v));
       }},
      {"s_wqm_b32", false, false,
       [](uint64_t a, bool) { return nz32(wqmRef(a, 32)); }},
      {"s_wqm_b64", true, true,
       [](uint64_t a, bool) { return nz64(wqmRef(a, 64)); }},
      {"s_quadmask_b32", false, false,
       [](uint64_t a, bool) { return nz32(quadmaskRef(a, 32)); }},
      {"s_quadmask_b64", true, true,
       [](uint64_t a, bool) { return nz64(quadmaskRef(a, 64)); }},
      {"s_bitreplicate_b64_b32", true, false,
       [](uint64_t a, bool c) {
         uint64_t d = 0;
         for (unsigned i = 0; i < 32; ++i)
           if (bit(a, i))
             d |= uint64_t(3) << (2 * i);
         return keep(d, c);
       }},
  };
}

TEST_P(ScalarAlu, Sop1Ops) {
  std::vector<uint64_t> inputs(std::begin(kValues64), std::end(kValues64));
  for (uint32_t v : kValues32)
    inputs.push_back(v);
  inputs.push_back(0xffffff7full); // a zero in the low byte's top bit
  inputs.push_back(0x000000ffffffff80ull);
  ScalarKernel k = kernel();
  for (const Sop1 &op : sop1Ops()) {
    for (uint64_t a : inputs) {
      if (!op.wideSrc)
        a = uint32_t(a);
      for (bool scc : {false, true}) {
        k.set64(10, a);
        k.setScc(scc);
        std::string dst = op.wideDst ? "s[12:13]" : "s12";
        std::string src = op.wideSrc ? "s[10:11]" : "s10";
        k << std::string("  s_mov_b64 s[12:13], 0");
        k << std::string("  ") + op.mnemonic + " " + dst + ", " + src;
        Out expected = op.ref(a, scc);
        std::string what =
            llvm::formatv("{0} {1:x} (scc {2})", op.mnemonic, a, int(scc));
        if (op.wideDst)
          k.expect64(12, expected.d, what);
        else
          k.expect("s12", uint32_t(expected.d), what);
        k.expectScc(expected.scc, what);
      }
    }
  }
  k.run();
}

TEST_P(ScalarAlu, ConditionalMoves) {
  ScalarKernel k = kernel();
  for (bool scc : {false, true}) {
    std::string what = scc ? " (scc 1)" : " (scc 0)";
    k.set("s12", 0x11111111);
    k.set64(14, 0x2222222233333333ull);
    k.set("s10", 0xabcd1234);
    k.set64(16, 0xfedcba9876543210ull);
    k.setScc(scc);
    k << "  s_cmov_b32 s12, s10"
      << "  s_cmov_b64 s[14:15], s[16:17]";
    k.expect("s12", scc ? 0xabcd1234 : 0x11111111, "s_cmov_b32" + what);
    k.expect64(14, scc ? 0xfedcba9876543210ull : 0x2222222233333333ull,
               "s_cmov_b64" + what);
    k.expectScc(scc, "s_cmov" + what);
    // SOPK: s_cmovk_i32 sign-extends its 16-bit immediate.
    k.set("s18", 5);
    k.setScc(scc);
    k << "  s_cmovk_i32 s18, 0x8001";
    k.expect("s18", scc ? 0xffff8001 : 5, "s_cmovk_i32" + what);
    k.expectScc(scc, "s_cmovk_i32" + what);
  }
  k.run();
}

TEST_P(ScalarAlu, BitSet) {
  ScalarKernel k = kernel();
  for (uint32_t index : {0u, 5u, 31u, 32u, 33u, 63u, 64u, 0xffffffe1u}) {
    for (bool scc : {false, true}) {
      std::string what = llvm::formatv("bit {0}", index);
      k.set("s10", index);
      k.set("s12", 0x0f0f0f0f);
      k.set("s13", 0xf0f0f0f0);
      k.set64(14, 0x0f0f0f0ff0f0f0f0ull);
      k.set64(16, 0xf0f0f0f00f0f0f0full);
      k.setScc(scc);
      k << "  s_bitset1_b32 s12, s10"
        << "  s_bitset0_b32 s13, s10"
        << "  s_bitset1_b64 s[14:15], s10"
        << "  s_bitset0_b64 s[16:17], s10";
      k.expect("s12", 0x0f0f0f0f | (1u << (index % 32)),
               "s_bitset1_b32 " + what);
      k.expect("s13", 0xf0f0f0f0 & ~(1u << (index % 32)),
               "s_bitset0_b32 " + what);
      k.expect64(14, 0x0f0f0f0ff0f0f0f0ull | (1ull << (index % 64)),
                 "s_bitset1_b64 " + what);
      k.expect64(16, 0xf0f0f0f00f0f0f0full & ~(1ull << (index % 64)),
                 "s_bitset0_b64 " + what);
      k.expectScc(scc, "s_bitset " + what);
    }
  }
  k.run();
}

//===----------------------------------------------------------------------===//
// SOPC and SOPK
//===----------------------------------------------------------------------===//

TEST_P(ScalarAlu, Compares) {
  struct Cmp {
    const char *cc;
    std::function<bool(int64_t, int64_t)> fn;
  };
  std::vector<Cmp> ccs = {
      {"eq", [](int64_t a, int64_t b) { return a == b; }},
      {"lg", [](int64_t a, int64_t b) { return a != b; }},
      {"gt", [](int64_t a, int64_t b) { return a > b; }},
      {"ge", [](int64_t a, int64_t b) { return a >= b; }},
      {"lt", [](int64_t a, int64_t b) { return a < b; }},
      {"le", [](int64_t a, int64_t b) { return a <= b; }},
  };
  ScalarKernel k = kernel();
  const uint32_t values[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 5};
  for (const Cmp &cmp : ccs)
    for (uint32_t a : values)
      for (uint32_t b : values) {
        k.set("s10", a);
        k.set("s11", b);
        for (bool isSigned : {true, false}) {
          std::string op =
              std::string("s_cmp_") + cmp.cc + (isSigned ? "_i32" : "_u32");
          int64_t x = isSigned ? int32_t(a) : int64_t(a);
          int64_t y = isSigned ? int32_t(b) : int64_t(b);
          // Preset SCC to the opposite of the answer.
          k.setScc(!cmp.fn(x, y));
          k << "  " + op + " s10, s11";
          k.expectScc(cmp.fn(x, y),
                      llvm::formatv("{0} {1:x}, {2:x}", op, a, b));
        }
      }
  // 64-bit equality.
  for (uint64_t a : kValues64)
    for (uint64_t b : {0ull, 0xffffffffull, 0x0000000100000000ull}) {
      k.set64(10, a);
      k.set64(12, b);
      k << "  s_cmp_eq_u64 s[10:11], s[12:13]";
      k.expectScc(a == b, llvm::formatv("s_cmp_eq_u64 {0:x}, {1:x}", a, b));
      k << "  s_cmp_lg_u64 s[10:11], s[12:13]";
      k.expectScc(a != b, llvm::formatv("s_cmp_lg_u64 {0:x}, {1:x}", a, b));
    }
  k.run();
}

TEST_P(ScalarAlu, BitCompares) {
  ScalarKernel k = kernel();
  const uint64_t value = 0x8000000100000005ull;
  for (uint32_t index : {0u, 1u, 2u, 31u, 32u, 33u, 63u, 64u, 0x22u}) {
    k.set64(10, value);
    k.set("s12", index);
    std::string what = llvm::formatv("bit {0}", index);
    bool b32 = bit(uint32_t(value), index % 32);
    bool b64 = bit(value, index % 64);
    k << "  s_bitcmp1_b32 s10, s12";
    k.expectScc(b32, "s_bitcmp1_b32 " + what);
    k << "  s_bitcmp0_b32 s10, s12";
    k.expectScc(!b32, "s_bitcmp0_b32 " + what);
    k << "  s_bitcmp1_b64 s[10:11], s12";
    k.expectScc(b64, "s_bitcmp1_b64 " + what);
    k << "  s_bitcmp0_b64 s[10:11], s12";
    k.expectScc(!b64, "s_bitcmp0_b64 " + what);
  }
  k.run();
}

// SOPK: s_movk/s_addk/s_mulk sign-extend SIMM16; s_cmpk_*_i32 compares with
// the sign-extended and s_cmpk_*_u32 with the zero-extended immediate.
TEST_P(ScalarAlu, Sopk) {
  ScalarKernel k = kernel();
  for (uint32_t imm : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0xffffu, 0x1234u}) {
    int32_t simm = int16_t(imm);
    std::string immText = "0x" + hex(imm);
    k.setScc(true);
    k << "  s_movk_i32 s10, " + immText;
    k.expect("s10", uint32_t(simm), "s_movk_i32 " + immText);
    k.expectScc(true, "s_movk_i32 keeps SCC");
    for (uint32_t d :
         {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffff8000u, 0xffffu}) {
      std::string what = llvm::formatv("{0:x}, {1}", d, immText);
      k.set("s11", d);
      k << "  s_addk_i32 s11, " + immText;
      int64_t sum = int64_t(int32_t(d)) + simm;
      k.expect("s11", uint32_t(sum), "s_addk_i32 " + what);
      k.expectScc(sum != int32_t(sum), "s_addk_i32 overflow " + what);
      k.set("s12", d);
      k.setScc(false);
      k << "  s_mulk_i32 s12, " + immText;
      k.expect("s12", uint32_t(int64_t(int32_t(d)) * simm),
               "s_mulk_i32 " + what);
      k.expectScc(false, "s_mulk_i32 keeps SCC " + what);

      k.set("s13", d);
      const std::pair<const char *, std::function<bool(int64_t, int64_t)>>
          ccs[] = {{"eq", std::equal_to<int64_t>()},
                   {"lg", std::not_equal_to<int64_t>()},
                   {"gt", std::greater<int64_t>()},
                   {"ge", std::greater_equal<int64_t>()},
                   {"lt", std::less<int64_t>()},
                   {"le", std::less_equal<int64_t>()}};
      for (auto &[cc, fn] : ccs) {
        k << std::string("  s_cmpk_") + cc + "_i32 s13, " + immText;
        k.expectScc(fn(int32_t(d), simm),
                    std::string("s_cmpk_") + cc + "_i32 " + what);
        k << std::string("  s_cmpk_") + cc + "_u32 s13, " + immText;
        k.expectScc(fn(d, imm), std::string("s_cmpk_") + cc + "_u32 " + what);
      }
    }
  }
  k.run();
}

// Inline constants and 32-bit literals feeding 64-bit operands: integer
// inline constants are sign-extended; a literal is zero-extended for
// unsigned/bit operands and sign-extended for signed 64-bit ones.
TEST_P(ScalarAlu, SixtyFourBitImmediates) {
  ScalarKernel k = kernel();
  k << "  s_mov_b64 s[10:11], -1";
  k.expect64(10, ~0ull, "s_mov_b64 -1");
  k << "  s_mov_b64 s[10:11], -16";
  k.expect64(10, uint64_t(-16), "s_mov_b64 -16");
  k << "  s_mov_b64 s[10:11], 0x80000000";
  k.expect64(10, 0x80000000ull, "s_mov_b64 0x80000000 (literal)");
  k << "  s_mov_b64 s[10:11], 0xffffffff";
  k.expect64(10, 0xffffffffull, "s_mov_b64 0xffffffff (literal)");
  k << "  s_lshr_b64 s[10:11], 0x80000000, 0";
  k.expect64(10, 0x80000000ull, "s_lshr_b64 of a literal");
  k << "  s_ashr_i64 s[10:11], 0x80000000, 4";
  k.expect64(10, 0xfffffffff8000000ull, "s_ashr_i64 of a literal");
  k << "  s_and_b64 s[10:11], -1, 0x12345678";
  k.expect64(10, 0x12345678ull, "s_and_b64 with a literal");
  k << "  s_mov_b32 s12, -7";
  k.expect("s12", uint32_t(-7), "s_mov_b32 -7");
  // Literals with inline-constant values (LLVM decodes them as lit(v)
  // expressions).
  k << "  s_mov_b32 s12, lit(5)"
    << "  s_add_u32 s13, lit(64), 1"
    << "  s_mov_b64 s[14:15], lit(0xfffffffb)";
  k.expect("s12", 5, "s_mov_b32 lit(5)");
  k.expect("s13", 65, "s_add_u32 lit(64), 1");
  k.expect64(14, 0xfffffffbull, "s_mov_b64 lit(0xfffffffb)");
  k.run();
}

//===----------------------------------------------------------------------===//
// EXEC manipulation
//===----------------------------------------------------------------------===//

TEST_P(ScalarAlu, SaveExec) {
  struct Variant {
    const char *mnemonic;
    std::function<uint64_t(uint64_t s0, uint64_t exec)> fn;
  };
  std::vector<Variant> variants = {
      {"s_and_saveexec_b64", [](uint64_t s, uint64_t e) { return s & e; }},
      {"s_or_saveexec_b64", [](uint64_t s, uint64_t e) { return s | e; }},
      {"s_xor_saveexec_b64", [](uint64_t s, uint64_t e) { return s ^ e; }},
      {"s_andn1_saveexec_b64", [](uint64_t s, uint64_t e) { return ~s & e; }},
      {"s_andn2_saveexec_b64", [](uint64_t s, uint64_t e) { return s & ~e; }},
      {"s_orn1_saveexec_b64", [](uint64_t s, uint64_t e) { return ~s | e; }},
      {"s_orn2_saveexec_b64", [](uint64_t s, uint64_t e) { return s | ~e; }},
      {"s_nand_saveexec_b64", [](uint64_t s, uint64_t e) { return ~(s & e); }},
      {"s_nor_saveexec_b64", [](uint64_t s, uint64_t e) { return ~(s | e); }},
      {"s_xnor_saveexec_b64", [](uint64_t s, uint64_t e) { return ~(s ^ e); }},
  };
  const uint64_t masks[][2] = {{~0ull, 0x00000000ffff0000ull},
                               {0x00ff00ff00ff00ffull, 0xffffffff00000000ull},
                               {0, ~0ull},
                               {~0ull, ~0ull},
                               {0x8000000000000001ull, 0x8000000000000001ull}};
  ScalarKernel k = kernel();
  for (const Variant &v : variants)
    for (auto [exec, s0] : masks) {
      std::string what =
          llvm::formatv("{0} exec {1:x}, s0 {2:x}", v.mnemonic, exec, s0);
      uint64_t newExec = v.fn(s0, exec);
      k.set64(12, s0);
      k.set64(20, exec);
      k.setScc(newExec == 0);
      k << "  s_mov_b64 exec, s[20:21]";
      k << std::string("  ") + v.mnemonic + " s[14:15], s[12:13]";
      k << "  s_cselect_b32 s16, 1, 0"
        << "  s_mov_b64 s[18:19], exec"
        << "  s_mov_b64 exec, -1";
      k.expect64(14, exec, what + ": saved EXEC");
      k.expect64(18, newExec, what + ": new EXEC");
      k.expect("s16", newExec != 0, what + ": SCC");
    }
  // S_ANDN{1,2}_WREXEC_B64: EXEC = ~S0 & EXEC / S0 & ~EXEC, D = new EXEC.
  for (auto [exec, s0] : masks) {
    for (bool n1 : {true, false}) {
      const char *op = n1 ? "s_andn1_wrexec_b64" : "s_andn2_wrexec_b64";
      uint64_t newExec = n1 ? (~s0 & exec) : (s0 & ~exec);
      std::string what =
          llvm::formatv("{0} exec {1:x}, s0 {2:x}", op, exec, s0);
      k.set64(12, s0);
      k.set64(20, exec);
      k.setScc(newExec == 0);
      k << "  s_mov_b64 exec, s[20:21]";
      k << std::string("  ") + op + " s[14:15], s[12:13]";
      k << "  s_cselect_b32 s16, 1, 0"
        << "  s_mov_b64 s[18:19], exec"
        << "  s_mov_b64 exec, -1";
      k.expect64(14, newExec, what + ": D");
      k.expect64(18, newExec, what + ": new EXEC");
      k.expect("s16", newExec != 0, what + ": SCC");
    }
  }
  k.run();
}

// The structured control-flow pattern the compiler emits: if/else with
// s_and_saveexec, s_xor for the else mask, s_cbranch_execz to skip an empty
// side, and s_or_b64 exec to rejoin.
TEST_P(ScalarAlu, IfElseExecPattern) {
  ScalarKernel k = kernel();
  k.set64(20, 0x00000000ffffffffull); // "condition": lanes 0-31
  k << R"(
  s_mov_b32 s30, 0
  s_mov_b32 s31, 0
  s_and_saveexec_b64 s[22:23], s[20:21]
  s_xor_b64 s[22:23], exec, s[22:23]
  s_cbranch_execz .Lelse
  s_mov_b64 s[24:25], exec
  s_add_u32 s30, s30, 1
.Lelse:
  s_or_saveexec_b64 s[22:23], s[22:23]
  s_xor_b64 exec, exec, s[22:23]
  s_cbranch_execz .Ljoin
  s_mov_b64 s[26:27], exec
  s_add_u32 s31, s31, 1
.Ljoin:
  s_or_b64 exec, exec, s[22:23]
  s_mov_b64 s[28:29], exec
)";
  k.expect64(24, 0x00000000ffffffffull, "then-side EXEC");
  k.expect64(26, 0xffffffff00000000ull, "else-side EXEC");
  k.expect64(28, ~0ull, "EXEC after the join");
  k.expect("s30", 1, "then side ran");
  k.expect("s31", 1, "else side ran");
  k.run();
  ScalarKernel skip = kernel();
  skip << "  s_mov_b32 s36, 7"
       << "  s_mov_b64 s[32:33], 0"
       << "  s_and_saveexec_b64 s[34:35], s[32:33]"
       << "  s_cbranch_execz .Lskip"
       << "  s_mov_b32 s36, 1"
       << ".Lskip:"
       << "  s_or_b64 exec, exec, s[34:35]";
  skip.expect("s36", 7, "an if with no active lane is skipped");
  skip.run();
}

//===----------------------------------------------------------------------===//
// Relative SGPR addressing
//===----------------------------------------------------------------------===//

TEST_P(ScalarAlu, MoveRelative) {
  ScalarKernel k = kernel();
  for (unsigned i = 0; i < 8; ++i)
    k.set(ScalarKernel::sgpr(40 + i), 0x100 + i);
  k << "  s_mov_b32 m0, 3"
    << "  s_movrels_b32 s10, s40"           // s43
    << "  s_movrels_b64 s[12:13], s[40:41]" // s[43:44]
    << "  s_mov_b32 m0, 2"
    << "  s_movreld_b32 s50, 0x77"           // s52
    << "  s_movreld_b64 s[54:55], s[40:41]"; // s[56:57]
  k.expect("s10", 0x103, "s_movrels_b32");
  k.expect64(12, 0x0000010400000103ull, "s_movrels_b64");
  k.expect("s52", 0x77, "s_movreld_b32");
  k.expect64(56, 0x0000010100000100ull, "s_movreld_b64");
  k.run();

  ScalarKernel bad = kernel();
  bad << "  s_mov_b32 m0, 100"
      << "  s_movrels_b32 s10, s40";
  std::string error = bad.runExpectingFailure();
  EXPECT_NE(error.find("SGPR index 140"), std::string::npos) << error;
}

INSTANTIATE_SCALAR_CHIP_TESTS(ScalarAlu);

} // namespace
