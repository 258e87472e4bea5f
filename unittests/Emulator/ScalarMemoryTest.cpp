//===- ScalarMemoryTest.cpp - SMEM loads, stores, atomics and buffers -----===//
//
// Buffer 1 (s[6:7]) holds the input pattern kPattern(i) at dword i; s_store
// and atomic tests also check what they leave in it.
//
//===----------------------------------------------------------------------===//

#include "ScalarTest.h"

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class ScalarMemory : public ScalarChipTest {
protected:
  static constexpr unsigned kInputDwords = 64;
  static uint32_t pattern(unsigned i) { return 0xa5000000u + i * 0x10101u; }

  ScalarKernel kernelWithInput() const {
    ScalarKernel k = kernel();
    std::vector<uint32_t> input(kInputDwords);
    for (unsigned i = 0; i < kInputDwords; ++i)
      input[i] = pattern(i);
    k.inputs.push_back(toBytes(input));
    return k;
  }

  /// Sets s[lo:lo+3] to a raw-buffer descriptor of buffer 1 with
  /// `numRecords` bytes (stride 0).
  static void makeDescriptor(ScalarKernel &k, unsigned lo, uint32_t numRecords,
                             uint32_t stride = 0) {
    k << "  s_mov_b32 " + ScalarKernel::sgpr(lo) + ", s6";
    k << "  s_and_b32 " + ScalarKernel::sgpr(lo + 1) + ", s7, 0xffff";
    if (stride)
      k << "  s_or_b32 " + ScalarKernel::sgpr(lo + 1) + ", " +
               ScalarKernel::sgpr(lo + 1) + ", 0x" + hex(stride << 16);
    k.set(ScalarKernel::sgpr(lo + 2), numRecords);
    k.set(ScalarKernel::sgpr(lo + 3), 0x00027000);
  }

  std::vector<uint32_t> inputAfterRun(const ScalarKernel &k) const {
    return fromBytes<uint32_t>(k.inputs[0]);
  }
};

/// The raw encoding of the gfx9 SMEM "alt" SGPR form (IMM = 0, SOE = 1: the
/// offset SGPR is in the SOFFSET field), which the assembler never emits.
std::string smemSoffsetOnly(unsigned opcode, unsigned sdata, unsigned sbase,
                            unsigned soffset) {
  uint32_t dword0 =
      (sbase >> 1) | (sdata << 6) | (1u << 14) | (opcode << 18) | (0x30u << 26);
  uint32_t dword1 = soffset << 25;
  return "  .long 0x" + hex(dword0) + ", 0x" + hex(dword1);
}

TEST_P(ScalarMemory, LoadForms) {
  ScalarKernel k = kernelWithInput();
  // _IMM: each width.
  k << "  s_load_dword s10, s[6:7], 0x8"
    << "  s_load_dwordx2 s[12:13], s[6:7], 0x10"
    << "  s_load_dwordx4 s[16:19], s[6:7], 0x20"
    << "  s_load_dwordx8 s[20:27], s[6:7], 0x40"
    << "  s_load_dwordx16 s[32:47], s[6:7], 0x80"
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s10", pattern(2), "s_load_dword imm");
  k.expect("s12", pattern(4), "s_load_dwordx2 [0]");
  k.expect("s13", pattern(5), "s_load_dwordx2 [1]");
  for (unsigned i = 0; i < 4; ++i)
    k.expect(ScalarKernel::sgpr(16 + i), pattern(8 + i), "s_load_dwordx4");
  for (unsigned i = 0; i < 8; ++i)
    k.expect(ScalarKernel::sgpr(20 + i), pattern(16 + i), "s_load_dwordx8");
  for (unsigned i = 0; i < 16; ++i)
    k.expect(ScalarKernel::sgpr(32 + i), pattern(32 + i), "s_load_dwordx16");
  // A negative (21-bit signed) immediate from an advanced base.
  k << "  s_add_u32 s50, s6, 0x100"
    << "  s_addc_u32 s51, s7, 0"
    << "  s_load_dword s52, s[50:51], -0x10"
    << "  s_load_dwordx2 s[54:55], s[50:51], -0x100"
    // _SGPR, M0 as the offset register, and _SGPR_IMM with a negative
    // immediate.
    << "  s_mov_b32 s56, 0x30"
    << "  s_load_dword s57, s[6:7], s56"
    << "  s_mov_b32 m0, 0x34"
    << "  s_load_dword s58, s[6:7], m0"
    << "  s_load_dword s59, s[6:7], s56 offset:-0x8"
    << "  s_load_dwordx2 s[60:61], s[50:51], s56 offset:-0x100"
    // The alt form: SGPR offset in SOFFSET (s_load_dword s62, s[6:7], s56).
    << smemSoffsetOnly(0, 62, 6, 56)
    // The two low bits of every address component are ignored.
    << "  s_add_u32 s64, s6, 2"
    << "  s_addc_u32 s65, s7, 0"
    << "  s_load_dword s66, s[64:65], 0x7"
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s52", pattern(60), "negative immediate");
  k.expect("s54", pattern(0), "negative immediate x2 [0]");
  k.expect("s55", pattern(1), "negative immediate x2 [1]");
  k.expect("s57", pattern(12), "SGPR offset");
  k.expect("s58", pattern(13), "M0 offset");
  k.expect("s59", pattern(10), "SGPR + negative immediate");
  k.expect("s60", pattern(12), "SGPR + immediate x2 [0]");
  k.expect("s61", pattern(13), "SGPR + immediate x2 [1]");
  k.expect("s62", pattern(12), "alt SGPR form");
  k.expect("s66", pattern(1), "unaligned components");
  k.run();
}

TEST_P(ScalarMemory, OutOfBoundsLoadFails) {
  ScalarKernel k = kernelWithInput();
  k << "  s_load_dwordx4 s[12:15], s[6:7], 0xf8";
  std::string error = k.runExpectingFailure();
  EXPECT_NE(error.find("out-of-bounds access of 16 bytes"), std::string::npos)
      << error;
}

TEST_P(ScalarMemory, Stores) {
  ScalarKernel k = kernelWithInput();
  k.set("s10", 0x11111111);
  k.set64(12, 0x3333333322222222ull);
  for (unsigned i = 0; i < 4; ++i)
    k.set(ScalarKernel::sgpr(16 + i), 0x40000000u + i);
  k << "  s_store_dword s10, s[6:7], 0x4"
    << "  s_store_dwordx2 s[12:13], s[6:7], 0x10"
    << "  s_mov_b32 s20, 0x20"
    << "  s_store_dwordx4 s[16:19], s[6:7], s20"
    << "  s_mov_b32 m0, 0x40"
    << "  s_store_dword s10, s[6:7], m0"
    << "  s_store_dword s10, s[6:7], s20 offset:0x24"
    << "  s_dcache_wb"
    << "  s_waitcnt lgkmcnt(0)"
    // Read back through the scalar cache.
    << "  s_load_dword s21, s[6:7], 0x4"
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s21", 0x11111111, "load after store");
  k.run();
  std::vector<uint32_t> memory = inputAfterRun(k);
  std::vector<uint32_t> expected(kInputDwords);
  for (unsigned i = 0; i < kInputDwords; ++i)
    expected[i] = pattern(i);
  expected[1] = 0x11111111;
  expected[4] = 0x22222222;
  expected[5] = 0x33333333;
  for (unsigned i = 0; i < 4; ++i)
    expected[8 + i] = 0x40000000u + i;
  expected[16] = 0x11111111;
  expected[17] = 0x11111111;
  for (unsigned i = 0; i < kInputDwords; ++i)
    EXPECT_EQ(hex(memory[i]), hex(expected[i])) << "dword " << i;
}

// s_buffer_load: raw buffer (stride 0) of 40 bytes; dwords at byte offsets
// >= num_records read 0.
TEST_P(ScalarMemory, BufferLoads) {
  ScalarKernel k = kernelWithInput();
  makeDescriptor(k, 60, 40);
  k << "  s_buffer_load_dword s10, s[60:63], 0x4"
    << "  s_buffer_load_dwordx2 s[12:13], s[60:63], 0x20"
    << "  s_buffer_load_dwordx4 s[16:19], s[60:63], 0x1c"
    << "  s_buffer_load_dwordx8 s[20:27], s[60:63], 0x0"
    << "  s_buffer_load_dwordx16 s[32:47], s[60:63], 0x0"
    << "  s_buffer_load_dword s48, s[60:63], 0x28"   // just past the end
    << "  s_buffer_load_dword s49, s[60:63], 0x1000" // far past the end
    << "  s_mov_b32 s50, 0x24"
    << "  s_buffer_load_dwordx2 s[52:53], s[60:63], s50"
    << "  s_buffer_load_dword s54, s[60:63], s50 offset:0x4"
    << "  s_mov_b32 m0, 0x8"
    << "  s_buffer_load_dword s55, s[60:63], m0"
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s10", pattern(1), "x1");
  k.expect("s12", pattern(8), "x2 [0]");
  k.expect("s13", pattern(9), "x2 [1]");
  k.expect("s16", pattern(7), "x4 [0]");
  k.expect("s17", pattern(8), "x4 [1]");
  k.expect("s18", pattern(9), "x4 [2]");
  k.expect("s19", 0, "x4 [3] out of range");
  for (unsigned i = 0; i < 8; ++i)
    k.expect(ScalarKernel::sgpr(20 + i), pattern(i), "x8");
  for (unsigned i = 0; i < 16; ++i)
    k.expect(ScalarKernel::sgpr(32 + i), i < 10 ? pattern(i) : 0, "x16");
  k.expect("s48", 0, "offset == num_records");
  k.expect("s49", 0, "far out of range");
  k.expect("s52", pattern(9), "SGPR offset [0]");
  k.expect("s53", 0, "SGPR offset [1] out of range");
  k.expect("s54", 0, "SGPR + immediate out of range");
  k.expect("s55", pattern(2), "M0 offset");
  k.run();
}

// A dword is in range only if all of it is: with num_records = 38, the
// dword at byte 36 reads 0 and is not stored.
TEST_P(ScalarMemory, BufferPartialDword) {
  ScalarKernel k = kernelWithInput();
  makeDescriptor(k, 60, 38);
  k.set("s20", 0x77777777);
  k << "  s_buffer_load_dwordx4 s[12:15], s[60:63], 0x20"
    << "  s_buffer_store_dword s20, s[60:63], 0x24"
    << "  s_buffer_store_dword s20, s[60:63], 0x20"
    << "  s_buffer_atomic_add_x2 s[22:23], s[60:63], 0x20 glc"
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s12", pattern(8), "dword at 32");
  k.expect("s13", 0, "dword at 36, half in range");
  k.expect("s14", 0, "dword at 40");
  k.expect("s15", 0, "dword at 44");
  k.expect("s22", 0, "x2 atomic reaching past num_records (low)");
  k.expect("s23", 0, "x2 atomic reaching past num_records (high)");
  k.run();
  std::vector<uint32_t> memory = inputAfterRun(k);
  EXPECT_EQ(hex(memory[8]), hex(0x77777777));
  EXPECT_EQ(hex(memory[9]), hex(pattern(9)));
}

TEST_P(ScalarMemory, BufferStoresAndAtomics) {
  ScalarKernel k = kernelWithInput();
  makeDescriptor(k, 8, 32);
  k.set("s12", 0x12121212);
  k.set("s13", 0x13131313);
  k.set("s14", 0x14141414);
  k.set("s15", 0x15151515);
  k << "  s_buffer_store_dword s12, s[8:11], 0x0"
    << "  s_buffer_store_dwordx4 s[12:15], s[8:11], 0x18" // dwords 6,7 only
    << "  s_buffer_store_dword s12, s[8:11], 0x20"        // dropped
    << "  s_mov_b32 s20, 5"
    << "  s_buffer_atomic_add s20, s[8:11], 0x4 glc" // returns pattern(1)
    << "  s_mov_b32 s21, 5"
    << "  s_buffer_atomic_add s21, s[8:11], 0x40 glc" // out of range
    << "  s_waitcnt lgkmcnt(0)";
  k.expect("s20", pattern(1), "buffer atomic returns the old value");
  k.expect("s21", 0, "out-of-range buffer atomic returns 0");
  k.run();
  std::vector<uint32_t> memory = inputAfterRun(k);
  EXPECT_EQ(hex(memory[0]), hex(0x12121212));
  EXPECT_EQ(hex(memory[1]), hex(pattern(1) + 5));
  EXPECT_EQ(hex(memory[6]), hex(0x12121212));
  EXPECT_EQ(hex(memory[7]), hex(0x13131313));
  for (unsigned i : {2u, 5u, 8u, 9u, 16u})
    EXPECT_EQ(hex(memory[i]), hex(pattern(i))) << "dword " << i;
}

TEST_P(ScalarMemory, BufferWithStrideFails) {
  ScalarKernel k = kernelWithInput();
  makeDescriptor(k, 8, 4, /*stride=*/16);
  k << "  s_buffer_load_dword s12, s[8:11], 0x0";
  std::string error = k.runExpectingFailure();
  EXPECT_NE(error.find("descriptor stride 16 is not implemented"),
            std::string::npos)
      << error;
}

TEST_P(ScalarMemory, Atomics) {
  ScalarKernel k = kernelWithInput();
  // dword d of buffer 1 is at byte 4*d.
  k << R"(
  s_mov_b32 s10, 0x10
  s_atomic_add s10, s[6:7], 0x0 glc        ; d0 += 0x10, returns old
  s_mov_b32 s11, 0x1
  s_atomic_sub s11, s[6:7], 0x4            ; d1 -= 1, no return
  s_mov_b32 s12, 0x80000000
  s_atomic_smin s12, s[6:7], 0x8 glc       ; d2 = min(d2, INT_MIN) = INT_MIN
  s_mov_b32 s13, 0xffffffff
  s_atomic_umax s13, s[6:7], 0xc glc       ; d3 = 0xffffffff
  s_mov_b32 s14, 7
  s_atomic_swap s14, s[6:7], 0x10 glc      ; d4 = 7
  s_mov_b32 s16, 0x1234                    ; cmpswap: src
  s_mov_b32 s17, 0                         ; cmp (does not match)
  s_atomic_cmpswap s[16:17], s[6:7], 0x14 glc
  s_mov_b32 s18, 0x5678
  s_mov_b32 s19, 0xa5060606                ; cmp = pattern(6)
  s_atomic_cmpswap s[18:19], s[6:7], 0x18 glc
  s_mov_b32 s20, 0xa5070707                ; inc with limit == old: wraps to 0
  s_atomic_inc s20, s[6:7], 0x1c glc
  s_mov_b32 s21, 0                         ; dec with limit 0: old > 0 -> 0
  s_atomic_dec s21, s[6:7], 0x20 glc
  s_mov_b32 s22, 0
  s_mov_b32 s23, 1
  s_atomic_add_x2 s[22:23], s[6:7], 0x28 glc  ; d10:d11 += 1 << 32
  s_mov_b32 s24, 0xffffffff
  s_mov_b32 s25, 0xffffffff
  s_mov_b32 s26, 0xa50c0c0c                ; cmp = d12:d13
  s_mov_b32 s27, 0xa50d0d0d
  s_atomic_cmpswap_x2 s[24:27], s[6:7], 0x30 glc
  s_mov_b32 s28, 0x30
  s_mov_b32 s29, 0xff
  s_atomic_or s29, s[6:7], s28 offset:0x8 glc ; d14 |= 0xff
  s_waitcnt lgkmcnt(0)
)";
  k.expect("s10", pattern(0), "atomic_add return");
  k.expect("s12", pattern(2), "atomic_smin return");
  k.expect("s13", pattern(3), "atomic_umax return");
  k.expect("s14", pattern(4), "atomic_swap return");
  k.expect("s16", pattern(5), "failed cmpswap return");
  k.expect("s17", 0, "cmpswap leaves the cmp register");
  k.expect("s18", pattern(6), "cmpswap return");
  k.expect("s20", pattern(7), "atomic_inc return");
  k.expect("s21", pattern(8), "atomic_dec return");
  k.expect("s22", pattern(10), "atomic_add_x2 return (low)");
  k.expect("s23", pattern(11), "atomic_add_x2 return (high)");
  k.expect("s24", pattern(12), "cmpswap_x2 return (low)");
  k.expect("s25", pattern(13), "cmpswap_x2 return (high)");
  k.expect("s29", pattern(14), "atomic_or return");
  k.run();
  std::vector<uint32_t> memory = inputAfterRun(k);
  EXPECT_EQ(hex(memory[0]), hex(pattern(0) + 0x10));
  EXPECT_EQ(hex(memory[1]), hex(pattern(1) - 1));
  EXPECT_EQ(hex(memory[2]), hex(0x80000000));
  EXPECT_EQ(hex(memory[3]), hex(0xffffffff));
  EXPECT_EQ(hex(memory[4]), hex(7));
  EXPECT_EQ(hex(memory[5]), hex(pattern(5)));
  EXPECT_EQ(hex(memory[6]), hex(0x5678));
  EXPECT_EQ(hex(memory[7]), hex(0));
  EXPECT_EQ(hex(memory[8]), hex(0));
  EXPECT_EQ(hex(memory[10]), hex(pattern(10)));
  EXPECT_EQ(hex(memory[11]), hex(pattern(11) + 1));
  EXPECT_EQ(hex(memory[12]), hex(0xffffffff));
  EXPECT_EQ(hex(memory[13]), hex(0xffffffff));
  EXPECT_EQ(hex(memory[14]), hex(pattern(14) | 0xff));
}

TEST_P(ScalarMemory, CacheControlsAreAccepted) {
  ScalarKernel k = kernelWithInput();
  k << "  s_dcache_wb"
    << "  s_dcache_inv"
    << "  s_dcache_wb_vol"
    << "  s_dcache_inv_vol"
    << "  s_dcache_discard s[6:7], 0x0"
    << "  s_dcache_discard_x2 s[6:7], 0x40"
    << "  s_mov_b32 s10, 1";
  k.expect("s10", 1, "ran through");
  k.run();
}

INSTANTIATE_SCALAR_CHIP_TESTS(ScalarMemory);

} // namespace
