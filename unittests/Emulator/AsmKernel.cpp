//===- AsmKernel.cpp - Run hand-written AMDGPU assembly in tests
//------------===//

#include "AsmKernel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::test;

static std::string kernelSource(const AsmKernel &k) {
  std::string prologue;
  for (unsigned i = 0; i < k.numBuffers; ++i)
    prologue += formatv("  s_load_dwordx2 s[{0}:{1}], s[0:1], {2:x}\n",
                        4 + 2 * i, 5 + 2 * i, 8 * i);
  prologue += "  s_waitcnt lgkmcnt(0)\n";
  std::string args;
  for (unsigned i = 0; i < k.numBuffers; ++i)
    args += formatv("      - {{ .size: 8, .offset: {0}, .value_kind: "
                    "global_buffer, .address_space: global }\n",
                    8 * i);
  bool hasAccumOffset =
      k.chip == "gfx90a" || k.chip == "gfx942" || k.chip == "gfx950";
  unsigned vgprs = k.vgprs ? k.vgprs : hasAccumOffset ? 512 : 256;
  unsigned kernargBytes = std::max(8u, 8 * k.numBuffers);
  // Chips with architected flat scratch (gfx940+) enable scratch with
  // .amdhsa_enable_private_segment, which older chips reject; they get a
  // private-segment wave offset SGPR instead.
  bool architectedFlatScratch = k.chip == "gfx940" || k.chip == "gfx941" ||
                                k.chip == "gfx942" || k.chip == "gfx950";
  std::string privateSegment =
      formatv("{0} {1}",
              architectedFlatScratch
                  ? ".amdhsa_enable_private_segment"
                  : ".amdhsa_system_sgpr_private_segment_wavefront_offset",
              k.privateBytes ? 1 : 0)
          .str();
  return formatv(R"(  .amdgcn_target "amdgcn-amd-amdhsa--{0}"
  .amdhsa_code_object_version {1}
  .text
  .globl test_kernel
  .p2align 8
  .type test_kernel,@function
test_kernel:
{2}{3}
  s_endpgm
.Lend:
  .size test_kernel, .Lend-test_kernel
  .rodata
  .p2align 6
  .amdhsa_kernel test_kernel
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr {4}
    .amdhsa_next_free_sgpr 96
    .amdhsa_group_segment_fixed_size {5}
    .amdhsa_private_segment_fixed_size {6}
    {7}
    {8}
    {9}
    {10}
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, {11} ]
amdhsa.kernels:
  - .name: test_kernel
    .symbol: test_kernel.kd
    .kernarg_segment_size: {12}
    .kernarg_segment_align: 8
    .group_segment_fixed_size: {5}
    .private_segment_fixed_size: {6}
    .wavefront_size: {13}
    .sgpr_count: 96
    .vgpr_count: {4}
    .max_flat_workgroup_size: 1024
    .args:
{14}...
  .end_amdgpu_metadata
)",
                 k.chip, k.codeObjectVersion, prologue, k.body,
                 vgprs, k.ldsBytes, k.privateBytes, privateSegment,
                 hasAccumOffset
                     ? formatv(".amdhsa_accum_offset {0}",
                               std::min(256u, alignTo(vgprs, 4)))
                           .str()
                     : std::string(),
                 k.wavefrontSize == 32 ? ".amdhsa_wavefront_size32 1" : "",
                 k.descriptorDirectives, k.codeObjectVersion - 3, kernargBytes,
                 k.wavefrontSize, args)
      .str();
}

Expected<std::vector<uint8_t>>
crest::emu::test::assemble(const std::string &source, const std::string &chip) {
  SmallString<128> dir;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("crest-emu-test", dir))
    return createStringError(ec, "cannot create a temporary directory");
  std::string asmPath = (dir + "/k.s").str(), objPath = (dir + "/k.o").str(),
              coPath = (dir + "/k.co").str(), logPath = (dir + "/log").str();
  {
    std::error_code ec;
    raw_fd_ostream os(asmPath, ec);
    if (ec)
      return createStringError(ec, "cannot write " + asmPath);
    os << source;
  }
  std::string tools = CREST_LLVM_TOOLS_DIR;
  std::string mc = tools + "/llvm-mc", lld = tools + "/ld.lld";
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  auto readLog = [&] {
    auto buf = MemoryBuffer::getFile(logPath);
    return buf ? (*buf)->getBuffer().str() : std::string();
  };
  std::string cpu = "-mcpu=" + chip;
  StringRef mcArgs[] = {
      mc,     "-triple=amdgcn-amd-amdhsa", cpu, "-filetype=obj", asmPath, "-o",
      objPath};
  if (sys::ExecuteAndWait(mc, mcArgs, std::nullopt, redirects) != 0)
    return createStringError(inconvertibleErrorCode(),
                             "llvm-mc failed:\n" + readLog() + "\n" + source);
  StringRef lldArgs[] = {lld, "-shared", objPath, "-o", coPath};
  if (sys::ExecuteAndWait(lld, lldArgs, std::nullopt, redirects) != 0)
    return createStringError(inconvertibleErrorCode(),
                             "ld.lld failed:\n" + readLog());
  auto buf = MemoryBuffer::getFile(coPath, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!buf)
    return createStringError(buf.getError(), "cannot read " + coPath);
  std::vector<uint8_t> bytes((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  sys::fs::remove_directories(dir);
  return bytes;
}

Expected<std::unique_ptr<LoadedKernel>>
LoadedKernel::build(const AsmKernel &kernel) {
  Expected<std::vector<uint8_t>> bytes =
      assemble(kernelSource(kernel), kernel.chip);
  if (!bytes)
    return bytes.takeError();
  Expected<CodeObject> object = CodeObject::load(*bytes, "test_kernel.co");
  if (!object)
    return object.takeError();
  auto loaded = std::unique_ptr<LoadedKernel>(new LoadedKernel());
  loaded->object = std::make_unique<CodeObject>(std::move(*object));
  Expected<std::unique_ptr<Program>> program =
      Program::decode(*loaded->object, loaded->object->getKernels().front());
  if (!program)
    return program.takeError();
  loaded->program = std::move(*program);
  return loaded;
}

Expected<LaunchResult>
LoadedKernel::run(std::vector<std::vector<uint8_t>> &buffers,
                  const LaunchConfig &config) {
  Memory &memory = emulator.getMemory();
  std::vector<uint64_t> addresses;
  std::vector<uint8_t> kernargs;
  for (size_t i = 0; i < buffers.size(); ++i) {
    uint64_t address =
        memory.allocate(buffers[i].size(), "buffer " + std::to_string(i));
    cantFail(memory.write(address, buffers[i]));
    addresses.push_back(address);
    for (unsigned b = 0; b < 8; ++b)
      kernargs.push_back(uint8_t(address >> (8 * b)));
  }
  if (kernargs.empty())
    kernargs.assign(8, 0);
  Expected<LaunchResult> result = emulator.launch(*program, kernargs, config);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (result)
      cantFail(memory.read(addresses[i], buffers[i]));
    memory.release(addresses[i]);
  }
  return result;
}
