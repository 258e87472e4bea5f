//===- CodeObjectTest.cpp - Loader tests, including corrupt inputs
//----------===//

#include "AsmKernel.h"

#include "crest/emu/CodeObject.h"

#include "llvm/BinaryFormat/ELF.h"
#include "gtest/gtest.h"

#include <random>

using namespace crest::emu;
using namespace crest::emu::test;

namespace {

std::string kernelAsm(const std::string &chip, unsigned version,
                      const std::string &metadataExtra = "") {
  bool accum = chip != "gfx908";
  return R"(  .amdgcn_target "amdgcn-amd-amdhsa--)" + chip + R"("
  .amdhsa_code_object_version )" +
         std::to_string(version) + R"(
  .text
  .globl scale
  .p2align 8
  .type scale,@function
scale:
  s_endpgm
.Lend:
  .size scale, .Lend-scale
  .rodata
  .p2align 6
  .amdhsa_kernel scale
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_group_segment_fixed_size 1024
    )" + (accum ? ".amdhsa_accum_offset 8" : "") +
         R"(
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, )" +
         std::to_string(version - 3) + R"( ]
amdhsa.kernels:
  - .name: scale
    .symbol: scale.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .max_flat_workgroup_size: 64
    .group_segment_fixed_size: 1024
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }
      - { .size: 4, .offset: 8, .value_kind: by_value }
)" + metadataExtra +
         R"(...
  .end_amdgpu_metadata
)";
}

std::vector<uint8_t> build(const std::string &chip, unsigned version,
                           const std::string &extra = "") {
  auto bytes = assemble(kernelAsm(chip, version, extra), chip);
  EXPECT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  return bytes ? *bytes : std::vector<uint8_t>();
}

std::string loadError(const std::vector<uint8_t> &bytes) {
  auto object = CodeObject::load(bytes, "x.co");
  if (object)
    return "";
  return llvm::toString(object.takeError());
}

TEST(CodeObject, LoadsKernelDescriptorAndMetadata) {
  for (unsigned version : {4, 5, 6}) {
    std::vector<uint8_t> bytes = build("gfx942", version);
    auto object = CodeObject::load(bytes, "x.co");
    ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
    EXPECT_EQ(object->getCodeObjectVersion(), version);
    EXPECT_EQ(object->getChip().name, "gfx942");
    ASSERT_EQ(object->getKernels().size(), 1u);
    const Kernel &k = object->getKernels()[0];
    EXPECT_EQ(k.name, "scale");
    EXPECT_EQ(k.groupSegmentFixedSize, 1024u);
    EXPECT_EQ(k.descriptor.groupSegmentFixedSize, 1024u);
    EXPECT_EQ(k.kernargSegmentSize, 16u);
    EXPECT_TRUE(k.descriptor.userSgprKernargSegmentPtr());
    // .amdhsa_accum_offset 8 is stored as 8 / 4 - 1.
    EXPECT_EQ(k.descriptor.accumOffset(), 8u);
    ASSERT_EQ(k.args.size(), 2u);
    EXPECT_EQ(k.args[1].valueKind, "by_value");
    EXPECT_EQ(k.args[1].offset, 8u);
    // s_endpgm is one 4-byte instruction.
    EXPECT_EQ(k.code.size(), 4u);
  }
  auto gfx90a = CodeObject::load(build("gfx90a", 5), "x.co");
  ASSERT_TRUE(bool(gfx90a)) << llvm::toString(gfx90a.takeError());
  EXPECT_EQ(gfx90a->getChip().name, "gfx90a");
}

TEST(CodeObject, RejectsWrongFileKinds) {
  std::vector<uint8_t> good = build("gfx942", 5);
  ASSERT_FALSE(good.empty());

  EXPECT_NE(loadError({'n', 'o', 't', 'e', 'l', 'f'}).find("not an ELF file"),
            std::string::npos);

  std::vector<uint8_t> machine = good;
  machine[18] = llvm::ELF::EM_X86_64; // e_machine
  machine[19] = 0;
  EXPECT_NE(loadError(machine).find("not an AMDGPU code object (e_machine 62)"),
            std::string::npos)
      << loadError(machine);

  std::vector<uint8_t> abi = good;
  abi[llvm::ELF::EI_ABIVERSION] = 9;
  EXPECT_NE(loadError(abi).find("unsupported code object version "
                                "(EI_ABIVERSION 9)"),
            std::string::npos)
      << loadError(abi);

  std::vector<uint8_t> osabi = good;
  osabi[llvm::ELF::EI_OSABI] = 0;
  EXPECT_NE(loadError(osabi).find("not an HSA code object"), std::string::npos)
      << loadError(osabi);

  // e_flags at offset 48: an EF_AMDGPU_MACH Crest does not know (gfx1030).
  std::vector<uint8_t> chip = good;
  chip[48] = (chip[48] & 0x00) | 0x36;
  EXPECT_NE(loadError(chip).find("for a chip Crest does not know "
                                 "(EF_AMDGPU_MACH 0x36)"),
            std::string::npos)
      << loadError(chip);
}

TEST(CodeObject, RejectsInconsistentMetadata) {
  // An argument that runs past the kernarg segment.
  std::string bad =
      "      - { .size: 8, .offset: 12, .value_kind: by_value }\n";
  std::string message = loadError(build("gfx942", 5, bad));
  EXPECT_NE(message.find("(offset 12, size 8) lies outside the 16-byte "
                         "kernarg segment"),
            std::string::npos)
      << message;
}

TEST(CodeObject, RejectsMissingDescriptorSymbol) {
  std::vector<uint8_t> bytes = build("gfx942", 5);
  // Rename every "scale.kd" string so the metadata's .symbol has no match.
  std::string text(bytes.begin(), bytes.end());
  for (size_t pos = text.find("scale.kd"); pos != std::string::npos;
       pos = text.find("scale.kd", pos + 1))
    if (text.compare(pos - 1, 1, std::string(1, '\0')) == 0)
      bytes[pos] = 'S'; // only the symbol-table string, not the metadata
  std::string message = loadError(bytes);
  EXPECT_NE(message.find("has no symbol 'scale.kd'"), std::string::npos)
      << message;
}

// Truncations and random corruption must give an error or a valid object,
// never a crash or an out-of-bounds read (run under the sanitizers/valgrind
// this is the loader's robustness test).
TEST(CodeObject, SurvivesTruncationAndCorruption) {
  std::vector<uint8_t> good = build("gfx942", 5);
  ASSERT_FALSE(good.empty());
  unsigned errors = 0;
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    errors += !loadError(cut).empty();
  }
  // Cutting anything off loses the section headers at the end of the file.
  EXPECT_EQ(errors, (good.size() + 6) / 7);

  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = good;
    for (int flips = 0; flips < 4; ++flips)
      bytes[rng() % bytes.size()] ^= uint8_t(1 + rng() % 255);
    auto object = CodeObject::load(bytes, "x.co");
    if (!object)
      llvm::consumeError(object.takeError());
  }
}

} // namespace
