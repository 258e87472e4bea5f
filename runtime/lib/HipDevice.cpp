//===- HipDevice.cpp - The HIP runtime as a device, through dlopen
//---------===//
//
// Nothing links against ROCm: libamdhip64.so is opened with dlopen and each
// entry point looked up with dlsym, so the tools run (and fall back to the
// emulator) on machines without it. The library is $CREST_HIP_LIBRARY if
// set (tests point it at a missing file to check that path), else
// libamdhip64.so, libamdhip64.so.6, libamdhip64.so.5. Without a GPU, tests
// point it at libcrest-hip.so, HIP's API on the emulator (docs/Hip.md), so
// this code runs the end-to-end tests (test/e2e/hip).
//
// The chip of the device comes from hipDeviceProp_t::gcnArchName. That
// struct's layout differs between HIP 5 and HIP 6 (HIP 6 renamed the entry
// point to hipGetDevicePropertiesR0600 and kept the old one), so rather than
// trusting one layout, hipGetDeviceProperties fills an oversized zeroed
// buffer (16 KiB, several times the largest known struct) and the runtime
// takes the first NUL-terminated string in it that starts with "gfx" and
// lies fully inside the buffer: gcnArchName ("gfx90a:sramecc+:xnack-") is
// the only such field (the marketing `name` at offset 0 never starts with
// "gfx"). The feature suffix after ':' is dropped.
//
// What the installed runtime supports: HIP 5.x (Debian 12 ships 5.2) loads
// code objects up to v5 and knows gfx908 and gfx90a among the CDNA chips
// Crest targets; gfx942 needs ROCm 6.0 and gfx950 ROCm 6.4; code object v6
// needs ROCm 6.3. These are checked before loading, with a message that says
// so.
//
// HIP graphs (docs/Hip.md, "Graphs"): a session's launches for one run are
// captured on the device's stream into a graph the first time
// (hipStreamBeginCapture, the hipModuleLaunchKernel calls, which record
// rather than run, hipStreamEndCapture, hipGraphInstantiate) and replayed
// with one hipGraphLaunch on every run with the same launches (the same
// kernels, grids and buffers), which costs less per kernel than stream
// launches. The graph entry points are optional: a runtime without them, or
// HipOptions::useGraphs off, launches kernel by kernel, and getLaunchNote()
// says why.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Device.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace llvm;

namespace crest::rt {
namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;
using hipEvent_t = void *;
using hipGraph_t = void *;
using hipGraphExec_t = void *;
constexpr int hipStreamCaptureModeGlobal = 0;
constexpr hipError_t hipSuccess = 0;
constexpr int hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2;
void *const kLaunchParamBufferPointer = reinterpret_cast<void *>(1);
void *const kLaunchParamBufferSize = reinterpret_cast<void *>(2);
void *const kLaunchParamEnd = reinterpret_cast<void *>(3);

/// The entry points the runtime uses.
struct HipApi {
  void *library = nullptr;
  std::string path;
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipRuntimeGetVersion)(int *);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipGetDeviceProperties)(void *, int);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpy)(void *, const void *, size_t, int);
  hipError_t (*hipMemset)(void *, int, size_t);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipStreamCreate)(hipStream_t *);
  hipError_t (*hipStreamDestroy)(hipStream_t);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  // Optional: HIP graphs. All are set or `missingGraphSymbol` names the
  // first one the library lacks.
  hipError_t (*hipStreamBeginCapture)(hipStream_t, int) = nullptr;
  hipError_t (*hipStreamEndCapture)(hipStream_t, hipGraph_t *) = nullptr;
  hipError_t (*hipGraphInstantiate)(hipGraphExec_t *, hipGraph_t, void **,
                                    char *, size_t) = nullptr;
  hipError_t (*hipGraphLaunch)(hipGraphExec_t, hipStream_t) = nullptr;
  hipError_t (*hipGraphExecDestroy)(hipGraphExec_t) = nullptr;
  hipError_t (*hipGraphDestroy)(hipGraph_t) = nullptr;
  std::string missingGraphSymbol;

  std::string errorName(hipError_t code) const {
    const char *text = hipGetErrorString ? hipGetErrorString(code) : nullptr;
    return formatv("{0} ({1})", text ? text : "unknown HIP error", code).str();
  }
};

template <typename F> bool lookup(void *library, F &fn, const char *name) {
  fn = reinterpret_cast<F>(dlsym(library, name));
  return fn != nullptr;
}

Expected<std::unique_ptr<HipApi>> openHip(const HipOptions &options) {
  std::vector<std::string> candidates;
  if (!options.libraryPath.empty())
    candidates.push_back(options.libraryPath);
  else if (const char *env = std::getenv("CREST_HIP_LIBRARY"); env && *env)
    candidates.push_back(env);
  else
    candidates = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  auto api = std::make_unique<HipApi>();
  std::string errors;
  for (const std::string &path : candidates) {
    if ((api->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      api->path = path;
      break;
    }
    const char *e = dlerror();
    errors += "\n  " + (e ? std::string(e) : path + ": cannot be opened");
  }
  if (!api->library)
    return makeError("the HIP runtime library is not installed (tried " +
                     join(candidates, ", ") + "):" + errors +
                     "\n  install ROCm's HIP runtime (Debian: apt-get install "
                     "libamdhip64-5) or use --device=emu");
#define CREST_HIP_SYMBOL(name)                                                 \
  if (!lookup(api->library, api->name, #name))                                 \
    return makeError("the HIP runtime library '" + api->path +                 \
                     "' has no symbol '" #name "'");
  CREST_HIP_SYMBOL(hipInit)
  CREST_HIP_SYMBOL(hipRuntimeGetVersion)
  CREST_HIP_SYMBOL(hipGetDeviceCount)
  CREST_HIP_SYMBOL(hipSetDevice)
  CREST_HIP_SYMBOL(hipGetDeviceProperties)
  CREST_HIP_SYMBOL(hipDeviceGetName)
  CREST_HIP_SYMBOL(hipGetErrorString)
  CREST_HIP_SYMBOL(hipMalloc)
  CREST_HIP_SYMBOL(hipFree)
  CREST_HIP_SYMBOL(hipMemcpy)
  CREST_HIP_SYMBOL(hipMemset)
  CREST_HIP_SYMBOL(hipModuleLoadData)
  CREST_HIP_SYMBOL(hipModuleUnload)
  CREST_HIP_SYMBOL(hipModuleGetFunction)
  CREST_HIP_SYMBOL(hipModuleLaunchKernel)
  CREST_HIP_SYMBOL(hipStreamCreate)
  CREST_HIP_SYMBOL(hipStreamDestroy)
  CREST_HIP_SYMBOL(hipStreamSynchronize)
  CREST_HIP_SYMBOL(hipEventCreate)
  CREST_HIP_SYMBOL(hipEventDestroy)
  CREST_HIP_SYMBOL(hipEventRecord)
  CREST_HIP_SYMBOL(hipEventSynchronize)
  CREST_HIP_SYMBOL(hipEventElapsedTime)
#undef CREST_HIP_SYMBOL
#define CREST_HIP_OPTIONAL(name)                                               \
  if (!lookup(api->library, api->name, #name) &&                               \
      api->missingGraphSymbol.empty())                                         \
    api->missingGraphSymbol = #name;
  CREST_HIP_OPTIONAL(hipStreamBeginCapture)
  CREST_HIP_OPTIONAL(hipStreamEndCapture)
  CREST_HIP_OPTIONAL(hipGraphInstantiate)
  CREST_HIP_OPTIONAL(hipGraphLaunch)
  CREST_HIP_OPTIONAL(hipGraphExecDestroy)
  CREST_HIP_OPTIONAL(hipGraphDestroy)
#undef CREST_HIP_OPTIONAL
  return api;
}

/// The gcnArchName of device `index` without its feature suffix (see the
/// file comment for why the struct is scanned).
std::string getArchName(const HipApi &api, int index) {
  std::vector<char> props(16384, 0);
  if (api.hipGetDeviceProperties(props.data(), index) != hipSuccess)
    return "";
  for (size_t i = 0; i + 3 < props.size(); ++i) {
    if ((i && props[i - 1]) || std::strncmp(&props[i], "gfx", 3))
      continue;
    const char *end =
        static_cast<const char *>(std::memchr(&props[i], 0, props.size() - i));
    if (!end)
      continue;
    StringRef arch(&props[i], end - &props[i]);
    return arch.split(':').first.str();
  }
  return "";
}

/// The oldest HIP runtime version (major * 100 + minor) that loads code
/// objects of `chip`, or 0 when Crest does not know.
unsigned minimumHipVersionFor(StringRef chip) {
  if (chip == "gfx908" || chip == "gfx90a")
    return 500;
  if (chip == "gfx942")
    return 600;
  if (chip == "gfx950")
    return 604;
  if (chip == "gfx1100")
    return 505;
  if (chip == "gfx1201")
    return 603;
  return 0;
}

class HipDevice : public Device {
public:
  HipDevice(std::unique_ptr<HipApi> api, int index, std::string arch,
            std::string name, int version, bool useGraphs)
      : api(std::move(api)), index(index), arch(std::move(arch)),
        name(std::move(name)), version(version) {
    if (!useGraphs)
      graphsOff = "HIP graphs off (--no-hip-graph)";
    else if (!this->api->missingGraphSymbol.empty())
      graphsOff = "HIP graphs off: the HIP runtime library '" +
                  this->api->path + "' has no '" +
                  this->api->missingGraphSymbol + "'";
  }
  ~HipDevice() override {
    dropGraph();
    for (void *p : allocations)
      api->hipFree(p);
    for (hipModule_t m : modules)
      api->hipModuleUnload(m);
    if (stream)
      api->hipStreamDestroy(stream);
    if (start)
      api->hipEventDestroy(start);
    if (stop)
      api->hipEventDestroy(stop);
  }

  Error init() {
    if (hipError_t e = api->hipStreamCreate(&stream))
      return failed("hipStreamCreate", e);
    if (hipError_t e = api->hipEventCreate(&start))
      return failed("hipEventCreate", e);
    if (hipError_t e = api->hipEventCreate(&stop))
      return failed("hipEventCreate", e);
    return Error::success();
  }

  DeviceKind getKind() const override { return DeviceKind::Hip; }
  std::string describe() const override {
    return formatv("HIP {0}.{1}: device {2} {3} ({4})", version / 10000000,
                   version / 100000 % 100, index, arch, name)
        .str();
  }
  StringRef getChip() const override { return arch; }

  Expected<DevicePtr> allocate(uint64_t bytes, StringRef what) override {
    void *p = nullptr;
    if (hipError_t e = api->hipMalloc(&p, bytes))
      return failed(
          formatv("hipMalloc of {0} bytes for '{1}'", bytes, what).str(), e);
    allocations.push_back(p);
    return DevicePtr(reinterpret_cast<uintptr_t>(p));
  }
  void release(DevicePtr address) override {
    void *p = reinterpret_cast<void *>(uintptr_t(address));
    auto it = std::find(allocations.begin(), allocations.end(), p);
    if (it == allocations.end())
      return;
    allocations.erase(it);
    api->hipFree(p);
  }
  Error copyToDevice(DevicePtr dst, ArrayRef<uint8_t> src) override {
    if (hipError_t e =
            api->hipMemcpy(reinterpret_cast<void *>(uintptr_t(dst)), src.data(),
                           src.size(), hipMemcpyHostToDevice))
      return failed("hipMemcpy to the device", e);
    return Error::success();
  }
  Error copyFromDevice(MutableArrayRef<uint8_t> dst, DevicePtr src) override {
    if (hipError_t e =
            api->hipMemcpy(dst.data(), reinterpret_cast<void *>(uintptr_t(src)),
                           dst.size(), hipMemcpyDeviceToHost))
      return failed("hipMemcpy from the device", e);
    return Error::success();
  }
  Error fill(DevicePtr dst, uint64_t bytes, uint8_t value) override {
    if (hipError_t e = api->hipMemset(reinterpret_cast<void *>(uintptr_t(dst)),
                                      value, bytes))
      return failed("hipMemset", e);
    return Error::success();
  }

  Expected<ModuleHandle> loadCodeObject(ArrayRef<uint8_t> elf,
                                        StringRef what) override {
    hipModule_t module = nullptr;
    if (hipError_t e = api->hipModuleLoadData(&module, elf.data()))
      return failed(("hipModuleLoadData of '" + what +
                     "' (the installed HIP runtime may not support this "
                     "chip or code object version)")
                        .str(),
                    e);
    modules.push_back(module);
    return ModuleHandle(modules.size() - 1);
  }

  Expected<KernelHandle> getKernel(ModuleHandle module,
                                   StringRef kernel) override {
    if (module >= modules.size())
      return makeError(formatv("no module {0}", module));
    hipFunction_t function = nullptr;
    if (hipError_t e = api->hipModuleGetFunction(&function, modules[module],
                                                 kernel.str().c_str()))
      return failed(("hipModuleGetFunction '" + kernel + "'").str(), e);
    functions.push_back({function, kernel.str()});
    return KernelHandle(functions.size() - 1);
  }

  Expected<LaunchStats> launch(KernelHandle handle,
                               std::array<uint32_t, 3> grid,
                               std::array<uint32_t, 3> block,
                               ArrayRef<DevicePtr> args) override {
    if (handle >= functions.size())
      return makeError(formatv("no kernel {0}", handle));
    // Only the explicit arguments go in the buffer; the runtime appends the
    // hidden ones of code object v5.
    std::vector<uint64_t> kernargs(args.begin(), args.end());
    size_t size = kernargs.size() * 8;
    uint64_t dummy = 0;
    void *config[] = {kLaunchParamBufferPointer,
                      kernargs.empty() ? static_cast<void *>(&dummy)
                                       : kernargs.data(),
                      kLaunchParamBufferSize, &size, kLaunchParamEnd};
    const std::string &kernel = functions[handle].second;
    if (hipError_t e = api->hipEventRecord(start, stream))
      return failed("hipEventRecord", e);
    if (hipError_t e = api->hipModuleLaunchKernel(
            functions[handle].first, grid[0], grid[1], grid[2], block[0],
            block[1], block[2], 0, stream, nullptr, config))
      return failed("hipModuleLaunchKernel '" + kernel + "'", e);
    if (hipError_t e = api->hipEventRecord(stop, stream))
      return failed("hipEventRecord", e);
    if (hipError_t e = api->hipEventSynchronize(stop))
      return failed("kernel '" + kernel + "'", e);
    float ms = 0;
    if (hipError_t e = api->hipEventElapsedTime(&ms, start, stop))
      return failed("hipEventElapsedTime", e);
    LaunchStats stats;
    stats.seconds = ms / 1000.0;
    return stats;
  }

  Expected<std::vector<LaunchStats>>
  launchSequence(ArrayRef<LaunchRequest> launches,
                 size_t &failedIndex) override {
    if (!graphsOff.empty() || launches.empty()) {
      launchNote = graphsOff.empty() ? "" : graphsOff + ": launched one by one";
      return Device::launchSequence(launches, failedIndex);
    }
    for (size_t i = 0; i < launches.size(); ++i)
      if (launches[i].kernel >= functions.size()) {
        failedIndex = i;
        return makeError(formatv("no kernel {0}", launches[i].kernel));
      }
    bool captured = false;
    if (!graphExec || ArrayRef<LaunchRequest>(graphLaunches) != launches) {
      dropGraph();
      if (Error e = capture(launches, failedIndex))
        return std::move(e);
      captured = true;
    }
    // Events inside a graph would break it up, so only the whole graph is
    // timed.
    failedIndex = launches.size();
    if (hipError_t e = api->hipEventRecord(start, stream))
      return failed("hipEventRecord", e);
    if (hipError_t e = api->hipGraphLaunch(graphExec, stream))
      return failed(formatv("hipGraphLaunch of the graph of {0} kernels "
                            "(--no-hip-graph launches them one by one and "
                            "names the failing one)",
                            launches.size())
                        .str(),
                    e);
    if (hipError_t e = api->hipEventRecord(stop, stream))
      return failed("hipEventRecord", e);
    if (hipError_t e = api->hipEventSynchronize(stop))
      return failed("the graph's kernels", e);
    float ms = 0;
    if (hipError_t e = api->hipEventElapsedTime(&ms, start, stop))
      return failed("hipEventElapsedTime", e);
    ++graphRuns;
    launchNote = formatv("{0} a HIP graph of {1} kernels (hipGraphLaunch "
                         "{2} on this device); per-kernel times are the "
                         "graph's event time divided evenly",
                         captured ? "captured and launched" : "replayed",
                         launches.size(), graphRuns)
                     .str();
    std::vector<LaunchStats> stats(launches.size());
    for (LaunchStats &s : stats)
      s.seconds = ms / 1000.0 / launches.size();
    return stats;
  }

  std::string getLaunchNote() const override { return launchNote; }

  Error synchronize() override {
    if (hipError_t e = api->hipStreamSynchronize(stream))
      return failed("hipStreamSynchronize", e);
    return Error::success();
  }

private:
  Error failed(const std::string &what, hipError_t code) const {
    return makeError("HIP: " + what + " failed: " + api->errorName(code));
  }

  /// Records `launches` on the stream into a graph and instantiates it.
  Error capture(ArrayRef<LaunchRequest> launches, size_t &failedLaunch) {
    failedLaunch = launches.size();
    if (hipError_t e =
            api->hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal))
      return failed("hipStreamBeginCapture", e);
    Error error = Error::success();
    for (size_t i = 0; i < launches.size() && !error; ++i) {
      const LaunchRequest &l = launches[i];
      std::vector<uint64_t> kernargs(l.args.begin(), l.args.end());
      size_t size = kernargs.size() * 8;
      uint64_t dummy = 0;
      void *config[] = {kLaunchParamBufferPointer,
                        kernargs.empty() ? static_cast<void *>(&dummy)
                                         : kernargs.data(),
                        kLaunchParamBufferSize, &size, kLaunchParamEnd};
      if (hipError_t e = api->hipModuleLaunchKernel(
              functions[l.kernel].first, l.grid[0], l.grid[1], l.grid[2],
              l.block[0], l.block[1], l.block[2], 0, stream, nullptr, config)) {
        failedLaunch = i;
        error = failed("hipModuleLaunchKernel '" + functions[l.kernel].second +
                           "' (capturing)",
                       e);
      }
    }
    hipGraph_t graph = nullptr;
    hipError_t endError = api->hipStreamEndCapture(stream, &graph);
    if (error) {
      if (graph)
        api->hipGraphDestroy(graph);
      return error;
    }
    if (endError)
      return failed("hipStreamEndCapture", endError);
    hipError_t e =
        api->hipGraphInstantiate(&graphExec, graph, nullptr, nullptr, 0);
    api->hipGraphDestroy(graph);
    if (e) {
      graphExec = nullptr;
      return failed("hipGraphInstantiate", e);
    }
    graphLaunches.assign(launches.begin(), launches.end());
    return Error::success();
  }

  void dropGraph() {
    if (graphExec)
      api->hipGraphExecDestroy(graphExec);
    graphExec = nullptr;
    graphLaunches.clear();
  }

  std::unique_ptr<HipApi> api;
  int index;
  std::string arch, name;
  int version;
  hipStream_t stream = nullptr;
  hipEvent_t start = nullptr, stop = nullptr;
  std::vector<void *> allocations;
  std::vector<hipModule_t> modules;
  std::vector<std::pair<hipFunction_t, std::string>> functions;
  /// Why launches do not use graphs (empty: they do), the instantiated graph
  /// and the launches it holds, how many times it ran, and the last note.
  std::string graphsOff;
  hipGraphExec_t graphExec = nullptr;
  std::vector<LaunchRequest> graphLaunches;
  unsigned graphRuns = 0;
  std::string launchNote;
};

} // namespace

Expected<std::unique_ptr<Device>> createHipDevice(StringRef chip,
                                                  unsigned codeObjectVersion,
                                                  const HipOptions &options) {
  Expected<std::unique_ptr<HipApi>> api = openHip(options);
  if (!api)
    return api.takeError();
  HipApi &hip = **api;
  int version = 0;
  hip.hipRuntimeGetVersion(&version);
  std::string runtime = formatv("HIP runtime {0}.{1} ({2})", version / 10000000,
                                version / 100000 % 100, hip.path)
                            .str();
  // hipInit fails when there is no device; hipGetDeviceCount then says so.
  hipError_t initError = hip.hipInit(0);
  int count = 0;
  hipError_t countError = hip.hipGetDeviceCount(&count);
  if (countError != hipSuccess || count == 0)
    return makeError("no AMD GPU found by the " + runtime + ": " +
                     hip.errorName(countError ? countError : initError));
  if (options.deviceIndex < 0 || options.deviceIndex >= count)
    return makeError(formatv("HIP device {0} does not exist ({1} device{2})",
                             options.deviceIndex, count,
                             count == 1 ? "" : "s"));
  if (hipError_t e = hip.hipSetDevice(options.deviceIndex))
    return makeError("hipSetDevice failed: " + hip.errorName(e));
  std::string arch = getArchName(hip, options.deviceIndex);
  char nameBuffer[256] = {0};
  hip.hipDeviceGetName(nameBuffer, sizeof(nameBuffer) - 1, options.deviceIndex);
  if (arch.empty())
    return makeError(formatv("cannot read the ISA of HIP device {0} ({1})",
                             options.deviceIndex, nameBuffer));
  if (!chip.empty() && arch != chip)
    return makeError(formatv("HIP device {0} is {1} ({2}) but the package "
                             "is compiled for {3}",
                             options.deviceIndex, arch, nameBuffer, chip));
  unsigned hipVersion = version / 10000000 * 100 + version / 100000 % 100;
  unsigned needed = minimumHipVersionFor(arch);
  if (needed && hipVersion < needed)
    return makeError(formatv("the {0} does not support {1}: it needs ROCm "
                             "{2}.{3} or newer (Debian's HIP 5.2 knows gfx908 "
                             "and gfx90a only)",
                             runtime, arch, needed / 100, needed % 100));
  if (codeObjectVersion > 5 && hipVersion < 603)
    return makeError(formatv("the {0} loads code objects up to v5, the "
                             "package has v{1}: recompile with "
                             "--code-object-version=5",
                             runtime, codeObjectVersion));
  auto device = std::make_unique<HipDevice>(
      std::move(*api), options.deviceIndex, arch, nameBuffer, version,
      options.useGraphs);
  if (Error e = device->init())
    return std::move(e);
  return std::move(device);
}

} // namespace crest::rt
