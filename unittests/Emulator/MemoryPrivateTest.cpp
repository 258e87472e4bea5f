//===- MemoryPrivateTest.cpp - scratch_* and the private segment buffer ---===//
//
// Each lane's private memory through scratch_* (vaddr, SADDR, and on gfx942
// the ST and SVS forms), its bounds, and on gfx90a the private segment
// buffer s[0:3] as LLVM's spills use it (off/offen/soffset), which must
// reach the same per-lane bytes as scratch_* and flat private addresses.
//
//===----------------------------------------------------------------------===//

#include "MemoryTest.h"

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

class MemoryPrivate : public ChipTest {};

TEST_P(MemoryPrivate, ScratchFormsRoundTrip) {
  bool gfx942 = chip() == "gfx942";
  // x = lane << 8, y = lane << 16; private offsets: v1 = 12, s30 = 20.
  std::string body = R"(
  v_lshlrev_b32_e32 v2, 8, v0
  v_lshlrev_b32_e32 v3, 16, v0
  v_mov_b32_e32 v1, 12
  s_mov_b32 s30, 20
  v_mov_b32_e32 v16, 0x11223344
  scratch_store_dword v1, v2, off offset:4
  scratch_store_dword off, v3, s30 offset:4
  scratch_store_short v1, v2, off offset:-12
  scratch_store_byte_d16_hi v1, v3, off offset:-10
  scratch_store_dwordx2 v1, v[2:3], off offset:20
  scratch_load_dword v10, v1, off offset:4
  scratch_load_dword v11, off, s30 offset:4
  scratch_load_ushort v12, off, s30 offset:-20
  scratch_load_ubyte v13, v1, off offset:-10
  scratch_load_dwordx2 v[14:15], off, s30 offset:12
  scratch_load_short_d16_hi v16, v1, off offset:-12
)" +
                     std::string(gfx942 ? R"(
  scratch_load_dword v17, off, off offset:16
  scratch_load_dword v18, v1, s30 offset:-8
)"
                                        : R"(
  v_mov_b32_e32 v17, v2
  v_mov_b32_e32 v18, v3
)") + R"(
  v_mov_b32_e32 v19, 0
  s_waitcnt vmcnt(0)
  v_lshlrev_b32_e32 v4, 6, v0
  global_store_dwordx4 v4, v[10:13], s[20:21]
  global_store_dwordx4 v4, v[14:17], s[20:21] offset:16
  global_store_dwordx2 v4, v[18:19], s[20:21] offset:32
)";
  auto kernel = PrivateKernel::build(chip(), body, 1, 64);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(64 * 64)};
  auto result = kernel->run(buffers);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l << 8, y = l << 16;
    uint32_t expected[10] = {x, y, x, l, x, y, (x << 16) | 0x3344, x, y, 0};
    for (unsigned r = 0; r < 10; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[0], 64 * l + 4 * r), expected[r])
          << "lane " << l << " result " << r;
  }
}

TEST_P(MemoryPrivate, ScratchOutsideThePrivateSegmentFails) {
  std::string body = R"(
  s_mov_b32 s30, 4
  scratch_load_dword v2, off, s30 offset:62
)";
  auto kernel = PrivateKernel::build(chip(), body, 0, 64);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers;
  auto result = kernel->run(buffers);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("private (scratch) access of 4 bytes at offset 66 "
                         "of lane 0 is outside the kernel's 64-byte private "
                         "segment"),
            std::string::npos)
      << message;
}

TEST_P(MemoryPrivate, ScratchLoadsToLds) {
  // scratch_load_lds_dword (gfx940+): lane L's private dword goes to LDS
  // M0 + offset + 4 * L.
  if (chip() != "gfx942")
    GTEST_SKIP() << "scratch_load_lds_dword is gfx940+";
  std::string body = R"(
  v_lshlrev_b32_e32 v2, 8, v0
  v_mov_b32_e32 v1, 4
  s_mov_b32 s30, 8
  scratch_store_dword v1, v2, off offset:4
  s_waitcnt vmcnt(0)
  s_mov_b32 m0, 0x40
  scratch_load_lds_dword v1, off offset:4
  s_mov_b32 m0, 0x200
  scratch_load_lds_dword off, s30
  s_waitcnt vmcnt(0)
  v_lshlrev_b32_e32 v3, 2, v0
  ds_read_b32 v4, v3 offset:68
  ds_read_b32 v5, v3 offset:512
  s_waitcnt lgkmcnt(0)
  global_store_dword v3, v4, s[20:21]
  global_store_dword v3, v5, s[20:21] offset:256
)";
  auto kernel = PrivateKernel::build(chip(), body, 1, 16, 1024);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(512)};
  auto result = kernel->run(buffers);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(get<uint32_t>(buffers[0], 4 * l), l << 8) << "lane " << l;
    EXPECT_EQ(get<uint32_t>(buffers[0], 256 + 4 * l), l << 8) << "lane " << l;
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, MemoryPrivate,
                         ::testing::Values("gfx942", "gfx90a"));

TEST(MemoryPrivateSegmentBuffer, SpillsReachEachLanesPrivateMemory) {
  // LLVM's gfx90a prologue adds the wave offset (s7) to the V# base, then
  // spills with `off` + offset, `offen` + offset and a wave-scaled soffset
  // (16 bytes per lane * 64 lanes = 0x400). scratch_* and flat private
  // loads must see the same bytes. Also pins the V# the dispatch builds.
  std::string body = R"(
  v_mov_b32_e32 v24, s0
  v_mov_b32_e32 v25, s1
  v_mov_b32_e32 v26, s2
  v_mov_b32_e32 v27, s3
  s_add_u32 s0, s0, s7
  s_addc_u32 s1, s1, 0
  v_lshlrev_b32_e32 v2, 8, v0
  v_lshlrev_b32_e32 v3, 16, v0
  v_mov_b32_e32 v1, 8
  s_mov_b32 s30, 0x400
  buffer_store_dword v2, off, s[0:3], 0 offset:4
  buffer_store_dword v3, v1, s[0:3], 0 offen offset:4
  buffer_store_dword v2, off, s[0:3], s30
  buffer_store_dwordx2 v[2:3], v1, s[0:3], 0 offen offset:16
  s_waitcnt vmcnt(0)
  buffer_load_dword v10, off, s[0:3], 0 offset:4
  buffer_load_dword v11, v1, s[0:3], 0 offen offset:4
  s_mov_b32 s31, 16
  scratch_load_dword v12, off, s31
  buffer_load_ubyte v13, v1, s[0:3], 0 offen offset:6
  s_mov_b64 s[32:33], src_private_base
  v_mov_b32_e32 v20, 24
  v_mov_b32_e32 v21, s33
  flat_load_dwordx2 v[14:15], v[20:21]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_lshlrev_b32_e32 v4, 5, v0
  global_store_dwordx4 v4, v[10:13], s[20:21]
  global_store_dwordx2 v4, v[14:15], s[20:21] offset:16
  v_mov_b32_e32 v4, 0
  global_store_dwordx4 v4, v[24:27], s[20:21] offset:2048
)";
  auto kernel = PrivateKernel::build("gfx90a", body, 1, 32);
  ASSERT_TRUE(kernel);
  std::vector<Bytes> buffers = {Bytes(2048 + 16)};
  auto result = kernel->run(buffers);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t x = l << 8, y = l << 16;
    uint32_t expected[6] = {x, y, x, l, x, y};
    for (unsigned r = 0; r < 6; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[0], 32 * l + 4 * r), expected[r])
          << "lane " << l << " result " << r;
  }
  // ROCr's gfx9 scratch V#: base, SWIZZLE_ENABLE, NUM_RECORDS = 32 * 64,
  // DST_SEL XYZW, NUM_FORMAT UINT, DATA_FORMAT 32, INDEX_STRIDE 64,
  // ADD_TID_ENABLE.
  EXPECT_EQ(get<uint32_t>(buffers[0], 2048),
            uint32_t(Memory::kPrivateSegmentBase));
  EXPECT_EQ(get<uint32_t>(buffers[0], 2052),
            uint32_t(Memory::kPrivateSegmentBase >> 32) | 0x80000000u);
  EXPECT_EQ(get<uint32_t>(buffers[0], 2056), 32u * 64);
  EXPECT_EQ(get<uint32_t>(buffers[0], 2060), 0x00ea4facu);
}

} // namespace
