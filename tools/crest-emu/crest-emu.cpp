//===- crest-emu.cpp - Run one kernel of a code object on the emulator
//-------===//
//
//   crest-emu gemm.co --kernel=gemm --grid=4,4 --block=256 \
//     --arg=in:a.npy --arg=in:b.npy --arg=out:c.npy=f32:128x128 --arg=i32:128
//
// Arguments bind to the kernel's explicit arguments in order:
//   in:FILE.npy              a buffer holding the array in FILE
//   out:FILE.npy=TYPE:SHAPE  a buffer of that type and shape (e.g. f32:64x64),
//                            filled with a poison pattern before the run and
//                            written to FILE after it
//   inout:IN.npy:OUT.npy     a buffer initialised from IN, written to OUT
//   i32:V, u32:V, i64:V, u64:V, f32:V, f64:V   a value argument
// It prints the instruction counters and every LDS race found, and exits 1
// on an error and 2 when races were found. --timing adds the timing
// model's projection (docs/Timing.md), --timing=pc a per-instruction table,
// --trace=FILE.json a Perfetto timeline.
//
//===----------------------------------------------------------------------===//

#include "crest/ToolVersion.h"
#include "crest/emu/Emulator.h"
#include "crest/runtime/Npy.h"

#include "crest/Support/Limits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest;
using namespace crest::emu;

static cl::OptionCategory category("crest-emu options");
static cl::opt<std::string> codeObjectPath(cl::Positional, cl::Required,
                                           cl::desc("<code object>"),
                                           cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("Kernel to run (default: the "
                                                "only one)"),
                                       cl::cat(category));
static cl::opt<std::string> gridOpt("grid", cl::init("1"),
                                    cl::desc("Workgroups: X[,Y[,Z]]"),
                                    cl::cat(category));
static cl::opt<std::string> blockOpt("block", cl::init("64"),
                                     cl::desc("Work-items per workgroup: "
                                              "X[,Y[,Z]]"),
                                     cl::cat(category));
static cl::list<std::string> argOpts("arg",
                                     cl::desc("Kernel argument (see "
                                              "--help)"),
                                     cl::cat(category));
static cl::opt<unsigned> quantum("quantum", cl::init(64),
                                 cl::desc("Instructions a wave runs before "
                                          "the next one is scheduled"),
                                 cl::cat(category));
static cl::opt<uint64_t> maxInstructions(
    "max-instructions", cl::init(LaunchConfig::kDefaultMaxInstructions),
    cl::desc("Wave instructions the dispatch may execute (default 2^28)"),
    cl::cat(category));
static cl::opt<uint64_t> maxWaveInstructions(
    "max-wave-instructions",
    cl::init(LaunchConfig::kDefaultMaxWaveInstructions),
    cl::desc("Instructions one wave may execute (default 2^20)"),
    cl::cat(category));
static cl::opt<double> timeoutSeconds(
    "timeout", cl::init(0),
    cl::desc("Host seconds the dispatch may run (default 0: no timeout)"),
    cl::cat(category));
static cl::opt<uint64_t> emuMemoryLimit(
    "emu-memory-limit", cl::init(0),
    cl::desc("Device memory in bytes (default 0: half of the host's "
             "memory)"),
    cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::init(0),
                              cl::desc("Random wave order and quanta from "
                                       "this seed (0: round-robin)"),
                              cl::cat(category));
static cl::opt<unsigned> threads(
    "emu-threads", cl::init(0),
    cl::desc("Host threads that run workgroups (default 0: all cores; the "
             "results do not depend on it)"),
    cl::cat(category));
static cl::opt<unsigned> dynamicLds("dynamic-lds", cl::init(0),
                                    cl::desc("Dynamic LDS bytes"),
                                    cl::cat(category));
static cl::opt<bool> noRaceCheck("no-race-check",
                                 cl::desc("Do not run the LDS race detector"),
                                 cl::cat(category));
enum class TimingMode { Off, Summary, Pc };
static cl::opt<TimingMode> timingMode(
    "timing", cl::desc("Project the dispatch's time with the timing model"),
    cl::ValueOptional, cl::init(TimingMode::Off),
    cl::values(clEnumValN(TimingMode::Summary, "", "per-kernel summary"),
               clEnumValN(TimingMode::Summary, "summary",
                          "per-kernel summary"),
               clEnumValN(TimingMode::Pc, "pc",
                          "summary and per-instruction hotspots")),
    cl::cat(category));
static cl::opt<bool> timingOnly(
    "timing-only",
    cl::desc("With --timing: execute only the workgroups the model replays "
             "(outputs are not written); for projecting large grids"),
    cl::cat(category));
static cl::opt<double> clockMhz("clock-mhz", cl::init(0),
                                cl::desc("Effective clock of the timing "
                                         "model (default: the chip table's)"),
                                cl::cat(category));
static cl::opt<std::string> tracePath(
    "trace",
    cl::desc("Write the modelled timeline of one compute unit as a "
             "Chrome/Perfetto JSON trace (implies --timing)"),
    cl::value_desc("FILE.json"), cl::cat(category));
namespace {
enum class KernargPreload { On, Off };
} // namespace
static cl::opt<KernargPreload> kernargPreload(
    "kernarg-preload", cl::init(KernargPreload::On),
    cl::desc("For kernels that preload kernel arguments into SGPRs"),
    cl::values(clEnumValN(KernargPreload::On, "on",
                          "Preload them and start 256 bytes past the entry, "
                          "as current firmware does (default)"),
               clEnumValN(KernargPreload::Off, "off",
                          "Start at the entry and let the kernel's "
                          "compatibility prologue load them")),
    cl::cat(category));
static cl::opt<bool> listKernels("list-kernels",
                                 cl::desc("List the kernels and exit"),
                                 cl::cat(category));
static cl::opt<bool> disassemble("disassemble",
                                 cl::desc("Print the decoded instructions and "
                                          "exit"),
                                 cl::cat(category));

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

static Expected<std::array<uint32_t, 3>> parseDims(StringRef text,
                                                   StringRef what) {
  std::array<uint32_t, 3> dims = {1, 1, 1};
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return makeError("--" + what + " takes X[,Y[,Z]], got '" + text + "'");
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(10, dims[i]) || dims[i] == 0)
      return makeError("--" + what + ": '" + parts[i] +
                       "' is not a positive integer");
  return dims;
}

namespace {
struct BufferArg {
  uint64_t address = 0;
  NpyArray array;
  std::string outputPath;
};
} // namespace

static int run(int argc, char **argv) {
  InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "Runs one kernel of an AMDGPU code object on "
                              "Crest's emulator\n");
  auto fail = [](Error error) {
    WithColor::error(errs(), "crest-emu") << toString(std::move(error)) << "\n";
    return 1;
  };

  Expected<CodeObject> object = CodeObject::loadFile(codeObjectPath);
  if (!object)
    return fail(object.takeError());
  if (listKernels) {
    for (const Kernel &k : object->getKernels())
      outs() << k.name << "\n";
    return 0;
  }
  const Kernel *kernel = nullptr;
  if (kernelName.empty()) {
    if (object->getKernels().size() != 1)
      return fail(makeError("the code object has " +
                            Twine(object->getKernels().size()) +
                            " kernels; choose one with --kernel"));
    kernel = &object->getKernels().front();
  } else if (!(kernel = object->findKernel(kernelName))) {
    return fail(makeError("no kernel named '" + kernelName + "'"));
  }
  Expected<std::unique_ptr<Program>> program =
      Program::decode(*object, *kernel);
  if (!program)
    return fail(program.takeError());
  if (disassemble) {
    const std::vector<Inst> &insts = (*program)->getInstructions();
    for (size_t i = 0; i < insts.size(); ++i)
      outs() << formatv("{0:x-8}  {1,-32} {2}\n", insts[i].address,
                        insts[i].name, (*program)->getDisassembly(i));
    return 0;
  }

  LaunchConfig config;
  Expected<std::array<uint32_t, 3>> grid = parseDims(gridOpt, "grid");
  if (!grid)
    return fail(grid.takeError());
  Expected<std::array<uint32_t, 3>> block = parseDims(blockOpt, "block");
  if (!block)
    return fail(block.takeError());
  config.grid = *grid;
  config.block = *block;
  config.quantum = quantum;
  if (seed)
    config.seed = seed;
  config.dynamicLdsBytes = dynamicLds;
  config.detectRaces = !noRaceCheck;
  config.threads = threads ? unsigned(threads) : emu::getHostThreads();
  if (maxInstructions == 0 || maxWaveInstructions == 0 || timeoutSeconds < 0)
    return fail(makeError("--max-instructions and --max-wave-instructions "
                          "must be positive, --timeout not negative"));
  config.maxInstructions = maxInstructions;
  config.maxWaveInstructions = maxWaveInstructions;
  config.timeoutSeconds = timeoutSeconds;
  if (timingOnly && timingMode == TimingMode::Off && tracePath.empty())
    return fail(makeError("--timing-only needs --timing"));
  if (timingMode != TimingMode::Off || !tracePath.empty()) {
    TimingOptions options;
    options.perPc = timingMode == TimingMode::Pc;
    options.timeline = !tracePath.empty();
    options.sampleOnly = timingOnly;
    options.clockMhz = clockMhz;
    config.timing = options;
  }
  config.preloadKernargs = kernargPreload == KernargPreload::On;

  // Bind --arg values to the explicit kernel arguments in order.
  Emulator emu;
  if (emuMemoryLimit)
    emu.getMemory().setLimit(emuMemoryLimit);
  std::vector<const KernelArg *> explicitArgs;
  for (const KernelArg &arg : kernel->args)
    if (!StringRef(arg.valueKind).starts_with("hidden_"))
      explicitArgs.push_back(&arg);
  if (argOpts.size() != explicitArgs.size())
    return fail(
        makeError(formatv("kernel '{0}' takes {1} arguments, {2} "
                          "given with --arg",
                          kernel->name, explicitArgs.size(), argOpts.size())));
  uint32_t kernargBytes = 0;
  for (const KernelArg *arg : explicitArgs)
    kernargBytes = std::max(kernargBytes, arg->offset + arg->size);
  std::vector<uint8_t> kernargs(kernargBytes, 0);
  std::vector<BufferArg> buffers;
  for (size_t i = 0; i < explicitArgs.size(); ++i) {
    const KernelArg &arg = *explicitArgs[i];
    StringRef spec = argOpts[i];
    auto [kind, rest] = spec.split(':');
    auto argError = [&](const Twine &message) {
      return makeError(formatv("--arg #{0} '{1}' for argument {2} ({3}, {4} "
                               "bytes): {5}",
                               i, spec, i, arg.valueKind, arg.size,
                               message.str()));
    };
    uint64_t value = 0;
    if (kind == "in" || kind == "out" || kind == "inout") {
      if (arg.valueKind != "global_buffer" || arg.size != 8)
        return fail(argError("a buffer is given for a non-pointer argument"));
      BufferArg buffer;
      if (kind == "out") {
        auto [path, typeAndShape] = rest.split('=');
        auto [typeText, shapeText] = typeAndShape.split(':');
        std::optional<NpyType> type = parseNpyType(typeText);
        if (path.empty() || !type || shapeText.empty())
          return fail(argError("expected out:FILE.npy=TYPE:SHAPE, e.g. "
                               "out:y.npy=f32:64x64"));
        buffer.array.type = *type;
        SmallVector<StringRef> dims;
        shapeText.split(dims, 'x');
        for (StringRef d : dims) {
          int64_t n;
          if (d.getAsInteger(10, n) || n <= 0)
            return fail(argError("bad dimension '" + d + "'"));
          buffer.array.shape.push_back(n);
        }
        // The bytes must fit in the device memory before the host copy is
        // made.
        std::optional<int64_t> count = checkedProduct(buffer.array.shape);
        std::optional<int64_t> bytes =
            count ? checkedMul(*count, getNpyTypeSize(*type)) : std::nullopt;
        if (!bytes || uint64_t(*bytes) > emu.getMemory().getLimit())
          return fail(argError(formatv(
              "{0} bytes exceed the emulator's device memory limit of {1} "
              "bytes (--emu-memory-limit)",
              bytes ? std::to_string(*bytes) : std::string("too many"),
              emu.getMemory().getLimit())
                                   .str()));
        // Poison: every byte 0xA5, so unwritten elements show.
        buffer.array.data.assign(
            buffer.array.getNumElements() * getNpyTypeSize(*type), 0xA5);
        buffer.outputPath = path.str();
      } else {
        auto [inPath, outPath] = rest.split(':');
        Expected<NpyArray> array = readNpyFile(inPath);
        if (!array)
          return fail(array.takeError());
        buffer.array = std::move(*array);
        if (kind == "inout") {
          if (outPath.empty())
            return fail(argError("expected inout:IN.npy:OUT.npy"));
          buffer.outputPath = outPath.str();
        }
      }
      Expected<uint64_t> address = emu.getMemory().tryAllocate(
          buffer.array.getByteSize(), "argument " + std::to_string(i));
      if (!address)
        return fail(address.takeError());
      buffer.address = *address;
      if (Error e = emu.getMemory().write(buffer.address, buffer.array.data))
        return fail(std::move(e));
      value = buffer.address;
      buffers.push_back(std::move(buffer));
    } else {
      if (arg.valueKind != "by_value")
        return fail(argError("a value is given for a pointer argument"));
      unsigned bytes = 0;
      bool ok = true;
      if (kind == "i32" || kind == "i64") {
        int64_t v;
        ok = !rest.getAsInteger(0, v);
        value = uint64_t(v);
        bytes = kind == "i32" ? 4 : 8;
      } else if (kind == "u32" || kind == "u64") {
        ok = !rest.getAsInteger(0, value);
        bytes = kind == "u32" ? 4 : 8;
      } else if (kind == "f32" || kind == "f64") {
        double v;
        ok = !rest.getAsDouble(v);
        if (kind == "f32") {
          float f = float(v);
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          value = bits;
          bytes = 4;
        } else {
          std::memcpy(&value, &v, 8);
          bytes = 8;
        }
      } else {
        return fail(argError("unknown kind '" + kind +
                             "'; use in, out, inout, i32, u32, i64, u64, "
                             "f32 or f64"));
      }
      if (!ok)
        return fail(argError("'" + rest + "' is not a " + kind + " value"));
      if (bytes != arg.size)
        return fail(argError(formatv("a {0}-byte value for a {1}-byte "
                                     "argument",
                                     bytes, arg.size)));
    }
    for (unsigned b = 0; b < arg.size && b < 8; ++b)
      kernargs[arg.offset + b] = uint8_t(value >> (8 * b));
  }

  Expected<LaunchResult> result = emu.launch(**program, kernargs, config);
  if (!result)
    return fail(result.takeError());

  for (BufferArg &buffer : buffers) {
    if (buffer.outputPath.empty() || timingOnly)
      continue;
    if (Error e = emu.getMemory().read(buffer.address, buffer.array.data))
      return fail(std::move(e));
    if (Error e = writeNpyFile(buffer.outputPath, buffer.array))
      return fail(std::move(e));
  }

  raw_ostream &os = outs();
  os << formatv("kernel {0}: grid {1}x{2}x{3}, block {4}x{5}x{6}, {7:f3} s\n",
                kernel->name, config.grid[0], config.grid[1], config.grid[2],
                config.block[0], config.block[1], config.block[2],
                result->seconds);
  os << formatv("  wave instructions {0} (VALU {1}, SALU {2}, MFMA {3}, LDS "
                "{4}, VMEM {5}), barriers {6}\n",
                result->waveInstructions, result->valuInstructions,
                result->saluInstructions, result->mfmaInstructions,
                result->ldsInstructions, result->vmemInstructions,
                result->barriers);
  os << formatv("  LDS bank-conflict cycles {0}\n", result->bankConflictCycles);
  os << formatv("  races {0}\n", result->racesFound);
  for (const RaceReport &race : result->races)
    os << "  " << race.describe() << "\n";
  if (const KernelTiming *timing = result->timing.get()) {
    os << formatv("timing on {0} (model: docs/Timing.md):\n", timing->chip);
    printTiming(os, *timing);
    if (timingMode == TimingMode::Pc)
      printPcTable(os, *timing);
    if (!tracePath.empty()) {
      std::error_code ec;
      raw_fd_ostream file(tracePath, ec);
      if (ec)
        return fail(makeError("cannot write '" + tracePath +
                              "': " + ec.message()));
      std::vector<TraceEvent> events;
      appendTimelineEvents(events, *timing, 0, 0);
      writeTraceJson(file, events, {kernel->name});
      if (Error e = crest::checkOutputStream(file, tracePath))
        return fail(std::move(e));
    }
  }
  return result->racesFound ? 2 : 0;
}

int main(int argc, char **argv) {
  // An output error (closed stdout, /dev/full) is a diagnostic, not
  // raw_fd_ostream's fatal error at exit.
  return crest::finishStdout("crest-emu", run(argc, argv));
}
