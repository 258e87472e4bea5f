//===- EmulatorFuzzer.cpp - Random instruction streams into the emulator --===//
//
// The input's first byte picks a chip, its second the launch (waves per
// workgroup, workgroups, timing model on or off, scheduling seed); the rest
// is machine code, placed before the s_endpgm of a template kernel for that
// chip (emulator-template.s.in, assembled at build time) and decoded and run
// with small budgets. Every outcome but a clean error or a clean end (a
// crash, a sanitizer report, a hang) is a bug: random code branches
// anywhere, reads any address, and never ends.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/emu/CodeObject.h"
#include "crest/emu/Emulator.h"
#include "crest/emu/Program.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cstring>
#include <memory>

using namespace llvm;
using namespace crest::emu;

namespace {
const char *const kChips[] = {"gfx908", "gfx90a", "gfx942",
                              "gfx950", "gfx1100", "gfx1201"};
constexpr unsigned kNumChips = sizeof(kChips) / sizeof(kChips[0]);
std::unique_ptr<CodeObject> templates[kNumChips];
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The templates are assembled next to the fuzz targets' sources' build
  // folder; CREST_EMU_FUZZ_TEMPLATES names another folder.
  std::string folder = CREST_EMU_FUZZ_TEMPLATES;
  if (std::optional<std::string> env =
          sys::Process::GetEnv("CREST_EMU_FUZZ_TEMPLATES"))
    folder = *env;
  for (unsigned i = 0; i < kNumChips; ++i) {
    SmallString<256> path(folder);
    sys::path::append(path, std::string(kChips[i]) + ".hsaco");
    Expected<CodeObject> object = CodeObject::loadFile(path);
    if (!object) {
      errs() << "crest-emulator-fuzzer: " << toString(object.takeError())
             << "\n";
      std::exit(1);
    }
    templates[i] = std::make_unique<CodeObject>(std::move(*object));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  const CodeObject &object = *templates[data[0] % kNumChips];
  uint8_t launch = data[1];
  Kernel kernel = object.getKernels().front();
  // Whole dwords of random code, then the template's s_endpgm.
  size_t codeBytes = (size - 2) & ~size_t(3);
  std::vector<uint8_t> code(data + 2, data + 2 + codeBytes);
  code.insert(code.end(), kernel.code.begin(), kernel.code.end());
  kernel.code = std::move(code);

  Expected<std::unique_ptr<Program>> program = Program::decode(object, kernel);
  if (!program) {
    consumeError(program.takeError());
    return 0;
  }

  Emulator emu;
  emu.getMemory().setLimit(64 << 20);
  uint64_t buffer = emu.getMemory().allocate(4096, "buffer", 0x5a);
  std::vector<uint8_t> kernargs(12);
  std::memcpy(kernargs.data(), &buffer, 8);
  uint32_t count = 1024;
  std::memcpy(kernargs.data() + 8, &count, 4);

  LaunchConfig config;
  unsigned waveSize = kernel.wavefrontSize;
  config.block = {waveSize * (1 + (launch & 3)), 1, 1};
  config.grid = {1u + ((launch >> 2) & 1), 1, 1};
  config.maxWaveInstructions = 2048;
  config.maxInstructions = 16384;
  if (launch & 8)
    config.timing = TimingOptions();
  if (launch & 16)
    config.seed = launch >> 5;
  Expected<LaunchResult> result = emu.launch(**program, kernargs, config);
  if (!result)
    consumeError(result.takeError());
  return 0;
}
