//===- EmulatorCoreTest.cpp - Loader, decoder and dispatch tests
//------------===//

#include "AsmKernel.h"

#include "gtest/gtest.h"

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

// Every lane stores its work-item ID: checks the kernarg pointer in s[0:1],
// the packed ID in v0, EXEC for a partial wave, and the store path.
TEST(EmulatorCore, LanesStoreTheirWorkItemId) {
  AsmKernel k;
  k.body = R"(
  v_and_b32_e32 v2, 0x3ff, v0
  v_lshlrev_b32_e32 v1, 2, v2
  global_store_dword v1, v2, s[4:5]
)";
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  // 100 work-items: a full wave and a partial one. The buffer is poisoned
  // so that lanes that must not store (and those that do) show.
  std::vector<uint32_t> out(128, 0xdeadbeef);
  std::vector<std::vector<uint8_t>> buffers = {toBytes(out)};
  LaunchConfig config;
  config.block = {100, 1, 1};
  auto result = (*kernel)->run(buffers, config);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  out = fromBytes<uint32_t>(buffers[0]);
  for (unsigned i = 0; i < 100; ++i)
    EXPECT_EQ(out[i], i) << "work-item " << i;
  for (unsigned i = 100; i < 128; ++i)
    EXPECT_EQ(out[i], 0xdeadbeefu) << "element " << i << " was written";
  // Two waves, each runs the prologue (2 loads + wait) and 4 instructions.
  EXPECT_EQ(result->waveInstructions, 2u * 6);
}

TEST(EmulatorCore, OutOfBoundsStoreIsReported) {
  AsmKernel k;
  k.body = R"(
  v_and_b32_e32 v2, 0x3ff, v0
  v_lshlrev_b32_e32 v1, 2, v2
  global_store_dword v1, v2, s[4:5] offset:4
)";
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  // 64 lanes store at 4*(i+1): lane 63 writes 4 bytes past the end.
  std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(256, 0)};
  auto result = (*kernel)->run(buffers);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("out-of-bounds access of 4 bytes"), std::string::npos)
      << message;
  EXPECT_NE(message.find("by lane 63"), std::string::npos) << message;
  EXPECT_NE(message.find("0 bytes past the end of 'buffer 0'"),
            std::string::npos)
      << message;
}

TEST(EmulatorCore, UnknownOpcodeFailsAtLoad) {
  AsmKernel k;
  // Return from a trap handler: never in a compute kernel, so the emulator
  // has no handler for it.
  k.body = "  s_rfe_b64 s[0:1]\n";
  auto kernel = LoadedKernel::build(k);
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("unimplemented opcode S_RFE_B64"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'s_rfe_b64 s[0:1]'"), std::string::npos) << message;
}

} // namespace

namespace {

// gfx90a+ atomics may return into AGPRs and take AGPR data; LLVM names
// those opcodes with an "_agpr" suffix (GLOBAL_ATOMIC_ADD_SADDR_RTN_agpr_vi,
// DS_ADD_RTN_U32_vi_agpr), which the decoder strips so one handler serves
// both register files.
TEST(EmulatorCore, AtomicsTakeAgprData) {
  AsmKernel k;
  k.chip = "gfx90a";
  k.body = R"(
  v_and_b32_e32 v3, 0x3ff, v0
  v_lshlrev_b32_e32 v1, 2, v3
  v_accvgpr_write_b32 a2, v3
  global_atomic_add a0, v1, a2, s[4:5] glc
  ds_write_b32 v1, v3
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_add_rtn_u32 a1, v1, a2
  s_waitcnt lgkmcnt(0)
  v_accvgpr_read_b32 v4, a0
  v_accvgpr_read_b32 v5, a1
  global_store_dword v1, v4, s[4:5] offset:256
  global_store_dword v1, v5, s[4:5] offset:512
)";
  k.ldsBytes = 256;
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<uint32_t> data(192, 0xdeadbeef);
  for (unsigned i = 0; i < 64; ++i)
    data[i] = 1000 + 7 * i;
  std::vector<std::vector<uint8_t>> buffers = {toBytes(data)};
  auto result = (*kernel)->run(buffers);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  data = fromBytes<uint32_t>(buffers[0]);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(data[i], 1000 + 8 * i) << "lane " << i;      // += i
    EXPECT_EQ(data[64 + i], 1000 + 7 * i) << "lane " << i; // old, via a0
    EXPECT_EQ(data[128 + i], i) << "lane " << i;           // old LDS, via a1
  }
}

} // namespace
