//===- EmuDevice.cpp - The emulator as a device ---------------------------===//
//
// Kernels run synchronously in Emulator::launch, so synchronize() has
// nothing to wait for. The explicit kernel arguments must be 8-byte global
// pointers at offsets 0, 8, 16, ... (Crest's bare-pointer convention); the
// hidden arguments of code object v5/v6 are filled in by the emulator.
// With EmuOptions::timing, each launch also runs the timing model where the
// chip table has its parameters; elsewhere launches run untimed and
// getTimingNote() says why.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Device.h"

#include "crest/Target/ChipTable.h"
#include "crest/emu/CodeObject.h"
#include "crest/emu/Program.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace llvm;

namespace crest::rt {
namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

class EmuDevice : public Device {
public:
  EmuDevice(const ChipInfo &chip, const EmuOptions &options)
      : chip(chip), options(options) {
    emu.getMemory().setLimit(options.memoryLimit);
  }

  DeviceKind getKind() const override { return DeviceKind::Emu; }
  std::string describe() const override {
    std::string text =
        formatv("emulator ({0}, races {1}, quantum {2}", chip.name,
                options.detectRaces ? "checked" : "not checked",
                options.quantum)
            .str();
    if (options.seed)
      text += formatv(", seed {0}", *options.seed).str();
    return text + ")";
  }
  StringRef getChip() const override { return chip.name; }
  bool isTimed() const override { return options.timing && chip.timing; }
  std::string getTimingNote() const override {
    if (!options.timing || chip.timing)
      return {};
    SmallVector<StringRef> timed;
    for (const ChipInfo &other : getAllChips())
      if (other.timing)
        timed.push_back(other.name);
    return formatv("the timing model has no parameters for {0} (it covers "
                   "{1})",
                   chip.name, join(timed, ", "))
        .str();
  }
  Error setTiming(std::optional<emu::TimingOptions> timing) override {
    options.timing = timing;
    return Error::success();
  }

  Expected<DevicePtr> allocate(uint64_t bytes, StringRef name) override {
    if (bytes == 0)
      return makeError("cannot allocate 0 bytes for '" + name + "'");
    return emu.getMemory().tryAllocate(bytes, name);
  }
  void release(DevicePtr address) override { emu.getMemory().release(address); }
  Error copyToDevice(DevicePtr dst, ArrayRef<uint8_t> src) override {
    return emu.getMemory().write(dst, src);
  }
  Error copyFromDevice(MutableArrayRef<uint8_t> dst, DevicePtr src) override {
    return emu.getMemory().read(src, dst);
  }
  Error fill(DevicePtr dst, uint64_t bytes, uint8_t value) override {
    uint8_t *p = emu.getMemory().translate(dst, bytes);
    if (!p)
      return makeError(formatv("fill of {0} bytes at {1}", bytes,
                               emu.getMemory().describe(dst)));
    std::fill(p, p + bytes, value);
    return Error::success();
  }

  Expected<ModuleHandle> loadCodeObject(ArrayRef<uint8_t> elf,
                                        StringRef name) override {
    Expected<emu::CodeObject> object = emu::CodeObject::load(elf, name);
    if (!object)
      return object.takeError();
    if (object->getChip().name != chip.name)
      return makeError(formatv("code object '{0}' is for {1}, the device "
                               "emulates {2}",
                               name, object->getChip().name, chip.name));
    modules.push_back(std::make_unique<emu::CodeObject>(std::move(*object)));
    return ModuleHandle(modules.size() - 1);
  }

  Expected<KernelHandle> getKernel(ModuleHandle module,
                                   StringRef name) override {
    if (module >= modules.size())
      return makeError(formatv("no module {0}", module));
    const emu::CodeObject &object = *modules[module];
    const emu::Kernel *kernel = object.findKernel(name);
    if (!kernel)
      return makeError("code object '" + object.getName() +
                       "' has no kernel named '" + name + "'");
    // Crest kernels take only 8-byte pointers, at offsets 0, 8, ...
    unsigned index = 0;
    for (const emu::KernelArg &arg : kernel->args) {
      if (StringRef(arg.valueKind).starts_with("hidden_"))
        continue;
      if (arg.valueKind != "global_buffer" || arg.size != 8 ||
          arg.offset != 8 * index)
        return makeError(formatv(
            "kernel '{0}': argument {1} is {2} ({3} bytes at offset {4}); "
            "the runtime passes only 8-byte global pointers",
            name, index, arg.valueKind, arg.size, arg.offset));
      ++index;
    }
    Expected<std::unique_ptr<emu::Program>> program =
        emu::Program::decode(object, *kernel);
    if (!program)
      return program.takeError();
    kernels.push_back({std::move(*program), index, name.str()});
    return KernelHandle(kernels.size() - 1);
  }

  Expected<LaunchStats> launch(KernelHandle handle,
                               std::array<uint32_t, 3> grid,
                               std::array<uint32_t, 3> block,
                               ArrayRef<DevicePtr> args) override {
    if (handle >= kernels.size())
      return makeError(formatv("no kernel {0}", handle));
    LoadedKernel &kernel = kernels[handle];
    if (args.size() != kernel.numArgs)
      return makeError(formatv("kernel '{0}' takes {1} arguments, {2} given",
                               kernel.name, kernel.numArgs, args.size()));
    std::vector<uint8_t> kernargs(8 * args.size());
    for (size_t i = 0; i < args.size(); ++i)
      for (unsigned b = 0; b < 8; ++b)
        kernargs[8 * i + b] = uint8_t(args[i] >> (8 * b));
    emu::LaunchConfig config;
    config.grid = grid;
    config.block = block;
    config.quantum = options.quantum;
    config.seed = options.seed;
    config.threads = options.threads;
    config.detectRaces = options.detectRaces;
    config.maxInstructions = options.maxInstructions;
    config.maxWaveInstructions = options.maxWaveInstructions;
    config.timeoutSeconds = options.timeoutSeconds;
    if (isTimed())
      config.timing = options.timing;
    Expected<emu::LaunchResult> result =
        emu.launch(*kernel.program, kernargs, config);
    if (!result)
      return makeError("kernel '" + kernel.name +
                       "': " + toString(result.takeError()));
    if (result->racesFound)
      return make_error<RaceError>(kernel.name, std::move(*result));
    LaunchStats stats;
    stats.seconds = result->seconds;
    stats.counters = std::move(*result);
    return stats;
  }

  Error synchronize() override { return Error::success(); }

private:
  struct LoadedKernel {
    std::unique_ptr<emu::Program> program;
    unsigned numArgs;
    std::string name;
  };
  const ChipInfo &chip;
  EmuOptions options;
  emu::Emulator emu;
  std::vector<std::unique_ptr<emu::CodeObject>> modules;
  std::vector<LoadedKernel> kernels;
};

} // namespace

Expected<std::unique_ptr<Device>> createEmuDevice(StringRef chip,
                                                  const EmuOptions &options) {
  const ChipInfo *info = lookupChip(chip);
  if (!info)
    return makeError("the emulator does not know chip '" + chip + "'");
  if (options.quantum == 0)
    return makeError("the emulator's quantum must be at least 1");
  if (options.threads == 0)
    return makeError("the emulator needs at least 1 thread");
  return std::make_unique<EmuDevice>(*info, options);
}

} // namespace crest::rt
