//===- KernargPreloadTest.cpp - Kernel arguments preloaded into SGPRs -----===//
//
// Kernels whose descriptor sets KERNARG_PRELOAD_SPEC_LENGTH/OFFSET get
// kernarg dwords in the user SGPRs after the enabled ones and start 256 bytes
// past their entry; the first 256 bytes are a compatibility prologue that
// loads the same dwords with s_load (AMDGPUUsage, "Preloaded Kernel
// Arguments"). Each test kernel stores every user SGPR and the workgroup ID
// that follows them to its row of the output, so the checks see exactly
// which SGPR received what, on both paths.
//
//===----------------------------------------------------------------------===//

#include "AsmKernel.h"

#include "crest/emu/CodeObject.h"
#include "crest/emu/Program.h"

#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::test;

namespace {

/// The kernarg dwords after the output pointer (dwords 0-1) hold
/// kernargValue(i) at dword i.
uint32_t kernargValue(unsigned dword) { return 0xc0de0000u + dword * 0x101u; }

/// Dwords of output per workgroup (one row).
constexpr unsigned kRowDwords = 32;

struct PreloadSpec {
  std::string name;
  std::string chip = "gfx942";
  // Enabled user SGPRs, in their hardware order.
  bool privateSegmentBuffer = false;
  bool dispatchPtr = false;
  bool queuePtr = false;
  bool dispatchId = false;
  bool flatScratchInit = false;
  bool privateSegmentSize = false;
  unsigned preloadLength = 0;
  unsigned preloadOffset = 0;
  /// .amdhsa_user_sgpr_count, if larger than the enabled and preloaded
  /// SGPRs need.
  unsigned explicitUserSgprCount = 0;
  unsigned kernargBytes = 64;

  unsigned kernargPtrSgpr() const {
    return 4 * privateSegmentBuffer + 2 * dispatchPtr + 2 * queuePtr;
  }
  unsigned firstPreloadSgpr() const {
    return kernargPtrSgpr() + 2 + 2 * dispatchId + 2 * flatScratchInit +
           privateSegmentSize;
  }
  unsigned userSgprCount() const {
    return std::max(firstPreloadSgpr() + preloadLength, explicitUserSgprCount);
  }
};

// Test names and failure messages name the spec.
void PrintTo(const PreloadSpec &spec, std::ostream *os) { *os << spec.name; }

/// The optional user SGPRs (the kernarg segment pointer is always enabled).
enum class UserSgpr {
  PrivateSegmentBuffer,
  DispatchPtr,
  QueuePtr,
  DispatchId,
  FlatScratchInit,
  PrivateSegmentSize,
};

PreloadSpec makeSpec(std::string name, std::string chip, unsigned length,
                     unsigned offset,
                     std::initializer_list<UserSgpr> enabled = {},
                     unsigned explicitUserSgprCount = 0) {
  PreloadSpec spec;
  spec.name = std::move(name);
  spec.chip = std::move(chip);
  spec.preloadLength = length;
  spec.preloadOffset = offset;
  spec.explicitUserSgprCount = explicitUserSgprCount;
  for (UserSgpr sgpr : enabled) {
    switch (sgpr) {
    case UserSgpr::PrivateSegmentBuffer:
      spec.privateSegmentBuffer = true;
      break;
    case UserSgpr::DispatchPtr:
      spec.dispatchPtr = true;
      break;
    case UserSgpr::QueuePtr:
      spec.queuePtr = true;
      break;
    case UserSgpr::DispatchId:
      spec.dispatchId = true;
      break;
    case UserSgpr::FlatScratchInit:
      spec.flatScratchInit = true;
      break;
    case UserSgpr::PrivateSegmentSize:
      spec.privateSegmentSize = true;
      break;
    }
  }
  return spec;
}

/// The assembly of `spec`'s kernel. `prologueBytes` (256 for a well-formed
/// kernel) is where the main body starts; the prologue loads the preloaded
/// dwords with s_load_dword and branches there.
std::string kernelSource(const PreloadSpec &spec,
                         unsigned prologueBytes = 256) {
  unsigned kernarg = spec.kernargPtrSgpr();
  std::string prologue;
  for (unsigned i = 0; i < spec.preloadLength; ++i)
    prologue += formatv("  s_load_dword s{0}, s[{1}:{2}], {3:x}\n",
                        spec.firstPreloadSgpr() + i, kernarg, kernarg + 1,
                        4 * (spec.preloadOffset + i));
  prologue += "  s_waitcnt lgkmcnt(0)\n  s_branch .Lmain\n";
  // s_nop padding up to `prologueBytes` (.p2align 8 would do for 256, but
  // a test needs another length).
  std::string padding = formatv("  .fill ({0} - (. - test_kernel)) / 4, 4, "
                                "0xbf800000\n",
                                prologueBytes);

  // The body: s[40:41] = output pointer, row = workgroup ID; store s0 ..
  // s[USER_SGPR_COUNT] (the last is the workgroup ID) to the row.
  unsigned count = spec.userSgprCount();
  std::string body = formatv("  s_load_dwordx2 s[40:41], s[{0}:{1}], 0x0\n"
                             "  s_mul_i32 s42, s{2}, {3}\n"
                             "  v_mov_b32_e32 v1, s42\n"
                             "  s_waitcnt lgkmcnt(0)\n",
                             kernarg, kernarg + 1, count, 4 * kRowDwords);
  for (unsigned i = 0; i <= count; ++i)
    body += formatv("  v_mov_b32_e32 v2, s{0}\n"
                    "  global_store_dword v1, v2, s[40:41] offset:{1}\n",
                    i, 4 * i);

  std::string directives;
  auto directive = [&](StringRef name, unsigned value) {
    directives += formatv("    .amdhsa_{0} {1}\n", name, value);
  };
  // gfx942 (architected flat scratch) has neither of these directives.
  if (spec.privateSegmentBuffer)
    directive("user_sgpr_private_segment_buffer", 1);
  directive("user_sgpr_dispatch_ptr", spec.dispatchPtr);
  directive("user_sgpr_queue_ptr", spec.queuePtr);
  directive("user_sgpr_kernarg_segment_ptr", 1);
  directive("user_sgpr_dispatch_id", spec.dispatchId);
  if (spec.flatScratchInit)
    directive("user_sgpr_flat_scratch_init", 1);
  directive("user_sgpr_private_segment_size", spec.privateSegmentSize);
  directive("user_sgpr_kernarg_preload_length", spec.preloadLength);
  directive("user_sgpr_kernarg_preload_offset", spec.preloadOffset);
  if (spec.explicitUserSgprCount)
    directive("user_sgpr_count", spec.explicitUserSgprCount);
  directive("kernarg_size", spec.kernargBytes);

  std::string args = "      - { .size: 8, .offset: 0, .value_kind: "
                     "global_buffer, .address_space: global }\n";
  for (unsigned offset = 8; offset < spec.kernargBytes; offset += 4)
    args += formatv("      - {{ .size: 4, .offset: {0}, .value_kind: "
                    "by_value }\n",
                    offset);

  return formatv(R"(  .amdgcn_target "amdgcn-amd-amdhsa--{0}"
  .amdhsa_code_object_version 5
  .text
  .globl test_kernel
  .p2align 8
  .type test_kernel,@function
test_kernel:
{1}{2}.Lmain:
{3}  s_endpgm
.Lend:
  .size test_kernel, .Lend-test_kernel
  .rodata
  .p2align 6
  .amdhsa_kernel test_kernel
{4}    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 48
    .amdhsa_accum_offset 8
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: test_kernel
    .symbol: test_kernel.kd
    .kernarg_segment_size: {5}
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 48
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .args:
{6}...
  .end_amdgpu_metadata
)",
                 spec.chip, prologue, padding, body, directives,
                 spec.kernargBytes, args)
      .str();
}

/// File offset of the 64-byte kernel descriptor test_kernel.kd.
std::optional<size_t> descriptorOffset(const std::vector<uint8_t> &bytes) {
  using ELFT = object::ELF64LE;
  StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  Expected<object::ELFFile<ELFT>> elf = object::ELFFile<ELFT>::create(data);
  if (!elf) {
    consumeError(elf.takeError());
    return std::nullopt;
  }
  auto sections = cantFail(elf->sections());
  for (const ELFT::Shdr &sec : sections) {
    if (sec.sh_type != ELF::SHT_SYMTAB)
      continue;
    StringRef strtab = cantFail(elf->getStringTableForSymtab(sec, sections));
    for (const ELFT::Sym &sym : cantFail(elf->symbols(&sec))) {
      if (cantFail(sym.getName(strtab)) != "test_kernel.kd")
        continue;
      const ELFT::Shdr &holder = sections[sym.st_shndx];
      return holder.sh_offset + (sym.st_value - holder.sh_addr);
    }
  }
  return std::nullopt;
}

/// Overwrites the u16 KERNARG_PRELOAD field (descriptor byte 58).
void setKernargPreload(std::vector<uint8_t> &bytes, unsigned length,
                       unsigned offset) {
  std::optional<size_t> kd = descriptorOffset(bytes);
  ASSERT_TRUE(kd.has_value());
  support::endian::write16le(&bytes[*kd + 58], length | (offset << 7));
}

/// Overwrites USER_SGPR_COUNT (COMPUTE_PGM_RSRC2 bits 5:1).
void setUserSgprCount(std::vector<uint8_t> &bytes, unsigned count) {
  std::optional<size_t> kd = descriptorOffset(bytes);
  ASSERT_TRUE(kd.has_value());
  uint32_t rsrc2 = support::endian::read32le(&bytes[*kd + 52]);
  rsrc2 = (rsrc2 & ~0x3eu) | (count << 1);
  support::endian::write32le(&bytes[*kd + 52], rsrc2);
}

std::string loadError(const std::vector<uint8_t> &bytes) {
  Expected<CodeObject> object = CodeObject::load(bytes, "k.co");
  if (object)
    return "";
  return toString(object.takeError());
}

/// One run of a preload kernel: the output rows, their address and the
/// counters.
struct Run {
  std::vector<uint32_t> out;
  uint64_t outAddress;
  LaunchResult result;
};

constexpr unsigned kWorkgroups = 3;

class PreloadKernel {
public:
  static Expected<std::unique_ptr<PreloadKernel>>
  build(const PreloadSpec &spec) {
    Expected<std::vector<uint8_t>> bytes =
        assemble(kernelSource(spec), spec.chip);
    if (!bytes)
      return bytes.takeError();
    Expected<CodeObject> object = CodeObject::load(*bytes, "k.co");
    if (!object)
      return object.takeError();
    auto kernel = std::unique_ptr<PreloadKernel>(new PreloadKernel());
    kernel->spec = spec;
    kernel->object = std::make_unique<CodeObject>(std::move(*object));
    Expected<std::unique_ptr<Program>> program =
        Program::decode(*kernel->object, kernel->object->getKernels()[0]);
    if (!program)
      return program.takeError();
    kernel->program = std::move(*program);
    return kernel;
  }

  /// Runs on a fresh emulator, so that every run gets the same addresses.
  Expected<Run> run(bool preload) const {
    Emulator emulator;
    Memory &memory = emulator.getMemory();
    std::vector<uint32_t> out(kWorkgroups * kRowDwords, 0xdeadbeef);
    uint64_t address = memory.allocate(4 * out.size(), "out");
    cantFail(memory.write(address, toBytes(out)));
    std::vector<uint32_t> kernargs(spec.kernargBytes / 4);
    kernargs[0] = uint32_t(address);
    kernargs[1] = uint32_t(address >> 32);
    for (unsigned i = 2; i < kernargs.size(); ++i)
      kernargs[i] = kernargValue(i);
    LaunchConfig config;
    config.grid = {kWorkgroups, 1, 1};
    config.block = {64, 1, 1};
    config.preloadKernargs = preload;
    Expected<LaunchResult> result =
        emulator.launch(*program, toBytes(kernargs), config);
    if (!result)
      return result.takeError();
    std::vector<uint8_t> bytes(4 * out.size());
    cantFail(memory.read(address, bytes));
    return Run{fromBytes<uint32_t>(bytes), address, *result};
  }

  const Program &getProgram() const { return *program; }

private:
  PreloadSpec spec;
  std::unique_ptr<CodeObject> object;
  std::unique_ptr<Program> program;
};

class KernargPreload : public ::testing::TestWithParam<PreloadSpec> {};

TEST_P(KernargPreload, SgprsHoldTheKernargDwordsOnBothPaths) {
  const PreloadSpec &spec = GetParam();
  auto kernel = PreloadKernel::build(spec);
  ASSERT_TRUE(bool(kernel)) << toString(kernel.takeError());
  const Program &program = (*kernel)->getProgram();
  const Kernel &k = program.getKernel();
  EXPECT_EQ(k.descriptor.kernargPreloadLength(), spec.preloadLength);
  EXPECT_EQ(k.descriptor.kernargPreloadOffset(), spec.preloadOffset);
  EXPECT_EQ(k.descriptor.userSgprCount(), spec.userSgprCount());
  // Both entry points are instructions of the one decoded program.
  EXPECT_EQ(program.getStartIndex(false), 0u);
  EXPECT_EQ(program.getInstructions()[program.getStartIndex(true)].address,
            k.entryAddress + 256);

  auto preloaded = (*kernel)->run(/*preload=*/true);
  ASSERT_TRUE(bool(preloaded)) << toString(preloaded.takeError());
  auto prologue = (*kernel)->run(/*preload=*/false);
  ASSERT_TRUE(bool(prologue)) << toString(prologue.takeError());

  // The kernarg segment's dwords: the output pointer, then the values.
  auto kernargDword = [&](unsigned dword) {
    if (dword < 2)
      return uint32_t(preloaded->outAddress >> (32 * dword));
    return kernargValue(dword);
  };
  unsigned first = spec.firstPreloadSgpr();
  unsigned count = spec.userSgprCount();
  for (unsigned wg = 0; wg < kWorkgroups; ++wg) {
    const uint32_t *row = &preloaded->out[wg * kRowDwords];
    for (unsigned i = 0; i < spec.preloadLength; ++i)
      EXPECT_EQ(row[first + i], kernargDword(spec.preloadOffset + i))
          << spec.name << ": workgroup " << wg << ", s" << first + i
          << " should hold kernarg dword " << spec.preloadOffset + i;
    // SGPRs counted in USER_SGPR_COUNT past the preloaded ones stay 0.
    for (unsigned sgpr = first + spec.preloadLength; sgpr < count; ++sgpr)
      EXPECT_EQ(row[sgpr], 0u) << spec.name << ": s" << sgpr;
    // The workgroup ID follows the USER_SGPR_COUNT user SGPRs.
    EXPECT_EQ(row[count], wg) << spec.name << ": s" << count;
    // The rest of the row is not written.
    for (unsigned i = count + 1; i < kRowDwords; ++i)
      EXPECT_EQ(row[i], 0xdeadbeefu) << spec.name << ": dword " << i;
  }

  // The compatibility prologue loads the same values into the same SGPRs;
  // everything else a wave starts with is the same too (each run has a
  // fresh emulator, so the pointers are the same).
  ASSERT_EQ(prologue->outAddress, preloaded->outAddress);
  EXPECT_EQ(prologue->out, preloaded->out) << spec.name;
  // The preloading path skips the prologue: its s_load_dwords, s_waitcnt
  // and s_branch (the s_nop padding is branched over).
  uint64_t perWave = spec.preloadLength + 2;
  EXPECT_EQ(prologue->result.waveInstructions,
            preloaded->result.waveInstructions + kWorkgroups * perWave)
      << spec.name;
}

INSTANTIATE_TEST_SUITE_P(
    Specs, KernargPreload,
    ::testing::Values(
        // Triton's layout on gfx942: s[0:1] kernarg pointer, then 14 dwords.
        makeSpec("triton942", "gfx942", 14, 0),
        // Dispatch and queue pointers and dispatch ID, an offset, and
        // USER_SGPR_COUNT above the SGPRs used: the workgroup ID is at s16
        // and s13-s15 stay 0.
        makeSpec("pointers942", "gfx942", 5, 3,
                 {UserSgpr::DispatchPtr, UserSgpr::QueuePtr,
                  UserSgpr::DispatchId},
                 /*explicitUserSgprCount=*/16),
        // gfx90a: private segment buffer, dispatch pointer, flat scratch
        // init and private segment size (11 SGPRs with the kernarg
        // pointer), then 5 dwords from dword 9: 16 in all.
        makeSpec("scratch90a", "gfx90a", 5, 9,
                 {UserSgpr::PrivateSegmentBuffer, UserSgpr::DispatchPtr,
                  UserSgpr::FlatScratchInit, UserSgpr::PrivateSegmentSize}),
        // The output pointer itself (dwords 0-1 of the segment) preloaded.
        makeSpec("pointer942", "gfx942", 3, 0),
        // Only the last dword of the segment, after an odd SGPR count.
        makeSpec("lastDword90a", "gfx90a", 1, 15,
                 {UserSgpr::PrivateSegmentSize})),
    [](const ::testing::TestParamInfo<PreloadSpec> &info) {
      return info.param.name;
    });

//===----------------------------------------------------------------------===//
// Invalid specifications
//===----------------------------------------------------------------------===//

std::vector<uint8_t> assembleSpec(const PreloadSpec &spec,
                                  unsigned prologueBytes = 256) {
  Expected<std::vector<uint8_t>> bytes =
      assemble(kernelSource(spec, prologueBytes), spec.chip);
  EXPECT_TRUE(bool(bytes)) << toString(bytes.takeError());
  return bytes ? *bytes : std::vector<uint8_t>();
}

TEST(KernargPreloadErrors, SpecPastTheKernargSegment) {
  std::vector<uint8_t> bytes = assembleSpec(makeSpec("k", "gfx942", 4, 0));
  ASSERT_FALSE(bytes.empty());
  ASSERT_EQ(loadError(bytes), "");
  // Dwords 13 to 16 of a 64-byte (16-dword) segment.
  setKernargPreload(bytes, 4, 13);
  std::string message = loadError(bytes);
  EXPECT_NE(message.find("kernel 'test_kernel' preloads kernarg dwords 13 to "
                         "16 (KERNARG_PRELOAD_SPEC_OFFSET 13, LENGTH 4), "
                         "which run past its 64-byte kernarg segment"),
            std::string::npos)
      << message;
  // The last dword exactly fits.
  setKernargPreload(bytes, 4, 12);
  EXPECT_EQ(loadError(bytes), "");
  // A huge offset with the largest length.
  setKernargPreload(bytes, 127, 511);
  EXPECT_NE(loadError(bytes).find("dwords 511 to 637"), std::string::npos)
      << loadError(bytes);
}

TEST(KernargPreloadErrors, MoreThanSixteenUserSgprs) {
  // 11 enabled user SGPRs (gfx90a) and 5 preloaded: 16, the maximum.
  std::vector<uint8_t> bytes = assembleSpec(
      makeSpec("k", "gfx90a", 5, 0,
               {UserSgpr::PrivateSegmentBuffer, UserSgpr::DispatchPtr,
                UserSgpr::FlatScratchInit, UserSgpr::PrivateSegmentSize}));
  ASSERT_FALSE(bytes.empty());
  ASSERT_EQ(loadError(bytes), "");
  setKernargPreload(bytes, 6, 0);
  std::string message = loadError(bytes);
  EXPECT_NE(message.find("kernel 'test_kernel' enables 11 user SGPRs and "
                         "preloads 6 kernarg dwords after them; a wave has "
                         "at most 16 user SGPRs"),
            std::string::npos)
      << message;
}

TEST(KernargPreloadErrors, CodeEndsBeforeThePreloadEntry) {
  // A kernel with the preload directives but no compatibility prologue:
  // its whole code is shorter than 256 bytes.
  std::string source = kernelSource(makeSpec("k", "gfx942", 2, 0));
  std::string::size_type fill = source.find("  .fill");
  ASSERT_NE(fill, std::string::npos);
  source.erase(fill, source.find('\n', fill) + 1 - fill);
  Expected<std::vector<uint8_t>> bytes = assemble(source, "gfx942");
  ASSERT_TRUE(bool(bytes)) << toString(bytes.takeError());
  std::string message = loadError(*bytes);
  EXPECT_NE(message.find("kernel 'test_kernel' preloads kernel arguments, so "
                         "it starts 256 bytes past its entry (after the "
                         "compatibility prologue), but its code is "),
            std::string::npos)
      << message;
}

TEST(KernargPreloadErrors, PreloadEntryInsideAnInstruction) {
  // The prologue ends 4 bytes short of 256 and the body starts with an
  // 8-byte instruction, so entry + 256 falls inside it.
  std::vector<uint8_t> bytes =
      assembleSpec(makeSpec("k", "gfx942", 2, 0), /*prologueBytes=*/252);
  ASSERT_FALSE(bytes.empty());
  Expected<CodeObject> object = CodeObject::load(bytes, "k.co");
  ASSERT_TRUE(bool(object)) << toString(object.takeError());
  auto program = Program::decode(*object, object->getKernels()[0]);
  ASSERT_FALSE(bool(program));
  std::string message = toString(program.takeError());
  EXPECT_NE(message.find("the kernel preloads kernel arguments, so it starts "
                         "256 bytes past its entry, but no instruction "
                         "begins there"),
            std::string::npos)
      << message;
}

TEST(KernargPreloadErrors, UserSgprCountMustIncludeThePreloadedSgprs) {
  PreloadSpec spec = makeSpec("k", "gfx942", 6, 0, {UserSgpr::DispatchPtr});
  std::vector<uint8_t> bytes = assembleSpec(spec);
  ASSERT_FALSE(bytes.empty());
  // 4 enabled + 6 preloaded = 10, but USER_SGPR_COUNT says 9.
  setUserSgprCount(bytes, 9);
  Expected<CodeObject> object = CodeObject::load(bytes, "k.co");
  ASSERT_TRUE(bool(object)) << toString(object.takeError());
  auto program = Program::decode(*object, object->getKernels()[0]);
  ASSERT_TRUE(bool(program)) << toString(program.takeError());
  Emulator emulator;
  std::vector<uint8_t> kernargs(spec.kernargBytes, 0);
  for (bool preload : {true, false}) {
    LaunchConfig config;
    config.preloadKernargs = preload;
    auto result = emulator.launch(**program, kernargs, config);
    ASSERT_FALSE(bool(result));
    std::string message = toString(result.takeError());
    EXPECT_NE(message.find("the descriptor enables 4 user SGPRs and preloads "
                           "6 kernarg dwords after them but USER_SGPR_COUNT "
                           "is 9"),
              std::string::npos)
        << message;
  }
}

} // namespace
