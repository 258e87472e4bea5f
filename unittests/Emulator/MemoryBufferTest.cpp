//===- MemoryBufferTest.cpp - buffer_* with resource descriptors ----------===//
//
// Raw and structured buffers: offen/idxen/both, soffset (excluded from the
// range check), the 12-bit instruction offset, per-component checks of
// multi-dword loads, out-of-range loads returning 0, dropped stores,
// all-or-nothing atomics, and descriptors the emulator refuses. The
// descriptors are built by the test (CDNA3 ISA "Buffer Resource
// Descriptor"); gfx942 and gfx90a.
//
//===----------------------------------------------------------------------===//

#include "MemoryTest.h"

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

/// DWORD3 for raw buffers on gfx9: NUM_FORMAT 7, DATA_FORMAT 4 (32), what
/// MLIR's amdgpu.raw_buffer_load lowering uses.
constexpr uint32_t kWord3 = (7u << 12) | (4u << 15);

void putDescriptor(Bytes &b, size_t at, uint64_t base, uint32_t numRecords,
                   uint32_t stride = 0, uint32_t word3 = kWord3,
                   bool swizzle = false) {
  put<uint32_t>(b, at, uint32_t(base));
  put<uint32_t>(b, at + 4,
                uint32_t((base >> 32) & 0xffff) | (stride << 16) |
                    (swizzle ? 1u << 31 : 0));
  put<uint32_t>(b, at + 8, numRecords);
  put<uint32_t>(b, at + 12, word3);
}

class MemoryBuffer : public ChipTest {};

TEST_P(MemoryBuffer, LoadRangeChecks) {
  // s[12:15]: raw over `in`, 102 bytes; s[16:19]: raw, 168 bytes;
  // s[20:23]: structured, stride 16, 10 records.
  std::string body = R"(
  s_load_dwordx4 s[12:15], s[6:7], 0x0
  s_load_dwordx4 s[16:19], s[6:7], 0x10
  s_load_dwordx4 s[20:23], s[6:7], 0x20
  s_mov_b32 s24, 8
  v_lshlrev_b32_e32 v1, 2, v0
  v_lshlrev_b32_e32 v2, 4, v0
  v_mov_b32_e32 v6, v0
  v_mov_b32_e32 v7, 8
  v_mov_b32_e32 v22, 0x11223344
  v_mov_b32_e32 v23, 0x11223344
  s_waitcnt lgkmcnt(0)
  buffer_load_dword v10, v1, s[12:15], 0 offen
  buffer_load_dword v11, v1, s[12:15], s24 offen
  buffer_load_dword v12, v1, s[12:15], 0 offen offset:4
  buffer_load_dword v13, off, s[12:15], s24 offset:12
  buffer_load_dword v14, v6, s[20:23], 0 idxen offset:4
  buffer_load_dword v15, v[6:7], s[20:23], 0 idxen offen
  buffer_load_dwordx4 v[16:19], v2, s[16:19], 0 offen
  buffer_load_ubyte v20, v1, s[12:15], 0 offen offset:1
  buffer_load_sshort v21, v1, s[12:15], 0 offen offset:2
  buffer_load_short_d16_hi v22, v1, s[12:15], 0 offen
  buffer_load_sbyte_d16 v23, v1, s[12:15], 0 offen offset:3
  s_waitcnt vmcnt(0)
  v_lshlrev_b32_e32 v5, 6, v0
  global_store_dwordx4 v5, v[10:13], s[8:9]
  global_store_dwordx4 v5, v[14:17], s[8:9] offset:16
  global_store_dwordx4 v5, v[18:21], s[8:9] offset:32
  global_store_dwordx2 v5, v[22:23], s[8:9] offset:48
)";
  auto kernel = buildKernel(asmKernel(body, 3));
  ASSERT_TRUE(kernel);
  Bytes in = patternBytes(1024, 8);
  std::vector<Bytes> buffers = {in, Bytes(48), Bytes(64 * 64, 0xaa)};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {},
                    [](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      putDescriptor(b[1], 0, a[0], 102);
                      putDescriptor(b[1], 16, a[0], 168);
                      putDescriptor(b[1], 32, a[0], 10, 16);
                    }));
  auto w = [&](size_t at) { return get<uint32_t>(in, at); };
  auto h = [&](size_t at) { return uint32_t(get<uint16_t>(in, at)); };
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t o = 4 * l;
    // A component is in range when it ends inside NUM_RECORDS; soffset is
    // not part of the check; idxen buffers check the index.
    uint32_t expected[14] = {
        o + 4 <= 102 ? w(o) : 0,
        o + 4 <= 102 ? w(o + 8) : 0,
        o + 8 <= 102 ? w(o + 4) : 0,
        w(20),
        l < 10 ? w(16 * l + 4) : 0,
        l < 10 ? w(16 * l + 8) : 0,
        16 * l + 4 <= 168 ? w(16 * l) : 0,
        16 * l + 8 <= 168 ? w(16 * l + 4) : 0,
        16 * l + 12 <= 168 ? w(16 * l + 8) : 0,
        16 * l + 16 <= 168 ? w(16 * l + 12) : 0,
        o + 2 <= 102 ? uint32_t(in[o + 1]) : 0,
        o + 4 <= 102 ? sext16(uint16_t(h(o + 2))) : 0,
        (o + 2 <= 102 ? h(o) << 16 : 0) | 0x3344,
        0x11220000u | (o + 4 <= 102 ? sext8(in[o + 3]) & 0xffff : 0),
    };
    for (unsigned r = 0; r < 14; ++r)
      EXPECT_EQ(get<uint32_t>(buffers[2], 64 * l + 4 * r), expected[r])
          << "lane " << l << " result " << r;
  }
}

TEST_P(MemoryBuffer, OutOfRangeStoresAndAtomicsAreDropped) {
  // s[12:15]: out, 100 bytes; s[16:19]: out + 512, 130 bytes; s[20:23]:
  // out + 1024, 16 bytes. The memory behind the limits exists: only the
  // range check keeps it unchanged.
  std::string r = returnModifier(chip());
  std::string body = R"(
  s_load_dwordx4 s[12:15], s[6:7], 0x0
  s_load_dwordx4 s[16:19], s[6:7], 0x10
  s_load_dwordx4 s[20:23], s[6:7], 0x20
  v_lshlrev_b32_e32 v1, 2, v0
  v_lshlrev_b32_e32 v8, 1, v0
  v_mov_b32_e32 v9, v0
  v_lshlrev_b32_e32 v2, 8, v0
  v_lshlrev_b32_e32 v3, 16, v0
  v_mov_b32_e32 v4, 5
  s_waitcnt lgkmcnt(0)
  buffer_store_dword v2, v1, s[12:15], 0 offen
  buffer_store_short v2, v8, s[16:19], 0 offen
  buffer_store_byte_d16_hi v3, v9, s[16:19], 0 offen offset:128
  buffer_atomic_add v4, v1, s[20:23], 0 offen )" +
                     r + R"(
  s_waitcnt vmcnt(0)
  global_store_dword v1, v4, s[4:5] offset:1100
)";
  auto kernel = buildKernel(asmKernel(body, 2));
  ASSERT_TRUE(kernel);
  Bytes out(1100 + 256, 0xaa);
  for (unsigned i = 0; i < 16; ++i)
    put<uint32_t>(out, 1024 + 4 * i, 1000 + i);
  std::vector<Bytes> buffers = {out, Bytes(48)};
  ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {},
                    [](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
                      putDescriptor(b[1], 0, a[0], 100);
                      putDescriptor(b[1], 16, a[0] + 512, 130);
                      putDescriptor(b[1], 32, a[0] + 1024, 16);
                    }));
  const Bytes &o = buffers[0];
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(get<uint32_t>(o, 4 * l), 4 * l + 4 <= 100 ? l << 8 : 0xaaaaaaaa)
        << "lane " << l;
    EXPECT_EQ(get<uint16_t>(o, 512 + 2 * l), uint16_t(l << 8)) << "lane " << l;
    EXPECT_EQ(o[640 + l], l <= 1 ? l : 0xaa) << "lane " << l;
    // Lanes 0-3 add 5 and get the old value; the others get 0.
    EXPECT_EQ(get<uint32_t>(o, 1100 + 4 * l), l < 4 ? 1000 + l : 0)
        << "lane " << l;
  }
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(get<uint32_t>(o, 1024 + 4 * i), 1000 + i + (i < 4 ? 5 : 0))
        << "dword " << i;
}

TEST_P(MemoryBuffer, DescriptorsTheIsaDoesNotDefineFail) {
  std::string body = R"(
  s_load_dwordx4 s[12:15], s[6:7], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  buffer_load_dword v2, v1, s[12:15], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v1, v2, s[4:5]
)";
  auto kernel = buildKernel(asmKernel(body, 2));
  ASSERT_TRUE(kernel);
  struct Case {
    uint32_t word3;
    bool swizzle;
    bool zero;
    const char *message; ///< null: runs, every lane loads 0
  } cases[] = {
      {0, false, false, "DATA_FORMAT 0"},
      {kWord3 | (1u << 30), false, false, "is not a buffer (TYPE 1"},
      {kWord3, true, false,
       "SWIZZLE_ENABLE=1, STRIDE=0 and idxen=0 has no "
       "range check"},
      {0, false, true, nullptr},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message ? c.message : "all-zero V#");
    std::vector<Bytes> buffers = {Bytes(256, 0xaa), Bytes(16)};
    auto prepare = [&](llvm::ArrayRef<uint64_t> a, std::vector<Bytes> &b) {
      if (!c.zero)
        putDescriptor(b[1], 0, a[0], 256, 0, c.word3, c.swizzle);
    };
    if (!c.message) {
      ASSERT_TRUE(runOk(*kernel, buffers, nullptr, {}, prepare));
      for (unsigned l = 0; l < 64; ++l)
        EXPECT_EQ(get<uint32_t>(buffers[0], 4 * l), 0u) << "lane " << l;
      continue;
    }
    std::string message = runError(*kernel, buffers, {}, prepare);
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
    EXPECT_NE(message.find("buffer_load_dword v2, v1, s[12:15], 0 offen"),
              std::string::npos)
        << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, MemoryBuffer,
                         ::testing::Values("gfx942", "gfx90a"));

} // namespace
