//===- HipRuntime.cpp - libcrest-hip.so: HIP's C API on the emulator ------===//
//
// The part of HIP's C API that module-based programs use (device queries,
// memory, streams, events, modules and hipModuleLaunchKernel), implemented
// on Crest's AMDGPU emulator, so that HIP programs and Crest's own HIP
// device (runtime/lib/HipDevice.cpp, which dlopens a HIP runtime) run
// without a GPU. The declarations are HIP's own (<hip/hip_runtime_api.h>
// from Debian's libamdhip64-dev, HIP 5.2), so every prototype, enum and the
// hipDeviceProp_t layout are checked against them by the compiler.
//
// One emulated device, the chip of $CREST_HIP_CHIP (default gfx942). Device
// memory is the emulator's (emu::Memory): device pointers are emulator
// addresses, not host addresses. Kernels run synchronously when they are
// launched, on the calling thread; streams are therefore trivially ordered
// and every *Async call has completed when it returns. The explicit kernel
// arguments are laid out from the caller's kernelParams or `extra` buffer,
// checked against the code object's metadata, and handed to
// emu::Emulator::launch, which appends the hidden arguments (the one
// kernarg packer, shared with the emulator device and crest-emu) with the
// values HIP's runtime gives a module launch: a 3-dimensional NDRange of
// grid * block work-items, so hidden_block_count_* = grid,
// hidden_group_size_* = block, hidden_remainder_* = 0, hidden_grid_dims = 3,
// hidden_global_offset_* = 0, hidden_dynamic_lds_size = sharedMemBytes.
//
// Stream capture records a stream's launches, copies, fills and event
// records into a graph (one chain of GraphOps) instead of running them;
// hipGraphLaunch replays an instantiated graph in order, each kernel charged
// the chip's graph launch overhead in modelled time
// (TimingParams::graphLaunchOverheadUs) instead of the stream launch
// overhead.
//
// docs/Hip.md describes the environment variables and the limits.
//
//===----------------------------------------------------------------------===//

#include "crest/Target/ChipTable.h"
#include "crest/emu/CodeObject.h"
#include "crest/emu/Emulator.h"
#include "crest/emu/Program.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace llvm;
using namespace crest;

// The handle types HIP declares opaque.
struct ihipGraph;
struct ihipStream_t {
  unsigned id;
  /// The graph a stream capture records into (hipStreamBeginCapture), its
  /// mode and id, and whether a disallowed call invalidated it.
  ihipGraph *capture = nullptr;
  hipStreamCaptureMode captureMode = hipStreamCaptureModeGlobal;
  unsigned long long captureId = 0;
  bool captureInvalidated = false;
};
struct ihipEvent_t {
  bool recorded = false;
  /// Host time of the record, and the device's modelled time then.
  std::chrono::steady_clock::time_point host;
  double modelledUs = 0;
  /// Whether every kernel before the record was modelled.
  bool modelled = false;
};
struct ihipModuleSymbol_t;
struct ihipModule_t {
  std::string name;
  std::unique_ptr<emu::CodeObject> object;
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> functions;
};
struct ihipModuleSymbol_t {
  ihipModule_t *module;
  const emu::Kernel *kernel;
  std::unique_ptr<emu::Program> program;
  /// The explicit arguments in metadata order, the offset just past the last
  /// one, and the offset of the first hidden argument (the segment size if
  /// there is none).
  std::vector<const emu::KernelArg *> explicitArgs;
  uint32_t explicitEnd = 0;
  uint32_t hiddenStart = 0;
};

/// One operation a stream capture recorded: a kernel with its explicit
/// arguments already laid out and checked, a copy, a fill or an event
/// record. Replayed in order by hipGraphLaunch.
struct GraphOp {
  enum Kind { Kernel, Copy, Fill, EventRecord } kind = Kernel;
  ihipModuleSymbol_t *function = nullptr;
  std::array<uint32_t, 3> grid{}, block{};
  unsigned sharedMemBytes = 0;
  std::vector<uint8_t> args;
  void *dst = nullptr;
  const void *src = nullptr;
  size_t bytes = 0;
  int copyKind = hipMemcpyDefault; ///< as rawKind returns it
  uint64_t value = 0;
  unsigned width = 1;
  hipEvent_t event = nullptr;
};
/// A captured graph (hipStreamEndCapture) and an instantiated one
/// (hipGraphInstantiate): a straight chain of operations, as one stream's
/// capture makes.
struct ihipGraph {
  std::vector<GraphOp> ops;
};
struct hipGraphExec {
  std::vector<GraphOp> ops;
  unsigned kernels = 0;
};

namespace {

/// HIP's per-thread last error (hipGetLastError / hipPeekAtLastError).
thread_local hipError_t lastError = hipSuccess;

/// What clang's host code passes to __hipRegisterFatBinary: a wrapper
/// around the offload bundle of the program's device code.
struct FatBinaryWrapper {
  uint32_t magic; ///< "HIPF"
  uint32_t version;
  const void *binary;
  const void *unused;
};
constexpr uint32_t kFatBinaryMagic = 0x48495046;

/// A registered fat binary, loaded as a module at its first launch.
struct FatBinary {
  const void *bundle = nullptr;
  hipModule_t module = nullptr;
};

/// The configuration of a `kernel<<<grid, block, shared, stream>>>` launch,
/// between __hipPushCallConfiguration and __hipPopCallConfiguration.
struct CallConfiguration {
  dim3 grid, block;
  size_t sharedMem;
  hipStream_t stream;
};
thread_local std::vector<CallConfiguration> callConfigurations;

/// The process's one emulated device.
struct Runtime {
  std::recursive_mutex mutex;
  bool initialized = false;
  const ChipInfo *chip = nullptr;
  /// Why there is no device (an unknown $CREST_HIP_CHIP), for messages.
  std::string noDeviceReason;
  emu::Emulator emu;
  std::map<uint64_t, uint64_t> allocations; ///< base -> bytes
  std::set<ihipStream_t *> streams;
  std::set<ihipEvent_t *> events;
  std::set<ihipModule_t *> modules;
  std::set<ihipModuleSymbol_t *> functions;
  std::set<ihipGraph *> graphs;
  std::set<hipGraphExec *> graphExecs;
  unsigned long long nextCaptureId = 1;
  /// The fat binaries clang's host code registers, and its kernels: host
  /// stub -> (binary, kernel name).
  std::vector<std::unique_ptr<FatBinary>> fatBinaries;
  std::map<const void *, std::pair<FatBinary *, std::string>> stubs;
  unsigned nextStream = 1;
  int currentDevice = 0;
  // Options, from the environment.
  uint32_t quantum = 64;
  unsigned threads = emu::getHostThreads();
  std::optional<uint64_t> seed;
  bool detectRaces = true;
  bool timing = false;
  bool quiet = false;
  /// $CREST_HIP_TRACE: one line on stderr per graph instantiation and launch.
  bool trace = false;
  uint8_t mallocFill = 0xA5;
  /// The modelled time of every kernel run so far (microseconds), and
  /// whether all of them were modelled.
  double modelledUs = 0;
  bool allModelled = true;
};

Runtime &runtime() {
  static Runtime *instance = new Runtime; // never destroyed: atexit order
  return *instance;
}

/// Reads an unsigned $name (decimal, or hex with 0x); nothing when it is
/// unset, empty or not a number.
std::optional<uint64_t> envNumber(const char *name) {
  const char *text = std::getenv(name);
  uint64_t value;
  if (!text || !*text || StringRef(text).getAsInteger(0, value))
    return std::nullopt;
  return value;
}

void initialize(Runtime &rt) {
  if (rt.initialized)
    return;
  rt.initialized = true;
  const char *chip = std::getenv("CREST_HIP_CHIP");
  StringRef name = chip && *chip ? chip : "gfx942";
  rt.chip = lookupChip(name);
  if (!rt.chip)
    rt.noDeviceReason = ("CREST_HIP_CHIP=" + name +
                         " is not a chip Crest knows (" + getKnownChipNames() +
                         ")")
                            .str();
  if (auto q = envNumber("CREST_HIP_QUANTUM"); q && *q > 0)
    rt.quantum = uint32_t(*q);
  rt.seed = envNumber("CREST_HIP_SEED");
  if (auto t = envNumber("CREST_HIP_THREADS"); t && *t > 0)
    rt.threads = unsigned(*t);
  if (auto r = envNumber("CREST_HIP_RACE_CHECK"))
    rt.detectRaces = *r != 0;
  if (auto t = envNumber("CREST_HIP_TIMING"))
    rt.timing = *t != 0;
  if (auto q = envNumber("CREST_HIP_QUIET"))
    rt.quiet = *q != 0;
  if (auto t = envNumber("CREST_HIP_TRACE"))
    rt.trace = *t != 0;
  if (auto f = envNumber("CREST_HIP_MALLOC_FILL"))
    rt.mallocFill = uint8_t(*f);
}

/// Records `code` as the thread's last error and, unless $CREST_HIP_QUIET,
/// prints why on stderr (a real runtime only returns the code; the message
/// says which argument or kernel was wrong).
hipError_t fail(hipError_t code, const char *api, const Twine &why) {
  lastError = code;
  if (!runtime().quiet)
    std::fprintf(stderr, "crest-hip: %s: %s: %s\n", api, hipGetErrorName(code),
                 why.str().c_str());
  return code;
}

/// The common prologue: the lock, lazy initialisation, and a device.
#define CREST_HIP_ENTER(api)                                                   \
  Runtime &rt = runtime();                                                     \
  std::lock_guard<std::recursive_mutex> lock(rt.mutex);                        \
  initialize(rt);                                                              \
  const char *apiName = api;                                                   \
  (void)apiName;
#define CREST_HIP_NEED_DEVICE()                                                \
  if (!rt.chip)                                                                \
    return fail(hipErrorNoDevice, apiName, rt.noDeviceReason);

/// Whether [address, address + bytes) lies in one device allocation.
bool isDevice(Runtime &rt, const void *address, size_t bytes) {
  return rt.emu.getMemory().translate(reinterpret_cast<uintptr_t>(address),
                                      std::max<size_t>(bytes, 1)) != nullptr;
}

std::string describeAddress(Runtime &rt, const void *address) {
  return rt.emu.getMemory().describe(reinterpret_cast<uintptr_t>(address));
}

bool validStream(Runtime &rt, hipStream_t stream) {
  return !stream || rt.streams.count(stream);
}

/// A call that synchronises with the device (hipMemcpy, hipMemset,
/// hipDeviceSynchronize, or work on the null stream, which synchronises
/// with every stream) while a stream captures in global or thread-local
/// mode: HIP refuses it with hipErrorStreamCaptureImplicit and invalidates
/// those captures (hipStreamEndCapture then fails). Relaxed captures allow
/// it.
hipError_t checkNotCapturing(Runtime &rt, const char *api) {
  bool found = false;
  for (ihipStream_t *s : rt.streams)
    if (s->capture && s->captureMode != hipStreamCaptureModeRelaxed) {
      s->captureInvalidated = true;
      found = true;
    }
  if (found)
    return fail(hipErrorStreamCaptureImplicit, api,
                "a synchronous call or one on the null stream while a "
                "stream captures; the capture is invalidated");
  return hipSuccess;
}

/// Where work issued to `stream` goes: `*graph` is set when the stream
/// captures (the work is recorded, not run). Fails for an invalidated
/// capture and as checkNotCapturing for the null stream.
hipError_t captureOf(Runtime &rt, const char *api, hipStream_t stream,
                     ihipGraph **graph) {
  *graph = nullptr;
  if (!stream)
    return checkNotCapturing(rt, api);
  if (stream->captureInvalidated)
    return fail(hipErrorStreamCaptureInvalidated, api,
                "the stream's capture was invalidated by an earlier call");
  *graph = stream->capture;
  return hipSuccess;
}

/// A hipMemcpyKind argument as the integer the caller passed. A C caller may
/// pass any int (17 is hipErrorInvalidMemcpyDirection, not undefined
/// behaviour): the bits are copied, never loaded as the enum, whose range
/// ends at 7.
int rawKind(const hipMemcpyKind &kind) {
  int raw;
  static_assert(sizeof(raw) == sizeof(kind));
  std::memcpy(&raw, &kind, sizeof(raw));
  return raw;
}

/// The copy itself, for every hipMemcpy* form; `kind` as rawKind gives it.
/// With `perform` false only the checks (a copy being captured).
hipError_t copy(Runtime &rt, const char *api, void *dst, const void *src,
                size_t bytes, int kind, bool perform = true) {
  if (bytes == 0)
    return hipSuccess;
  if (!dst || !src)
    return fail(hipErrorInvalidValue, api, "null pointer");
  bool dstDevice = isDevice(rt, dst, bytes);
  bool srcDevice = isDevice(rt, src, bytes);
  if (kind == hipMemcpyDefault) {
    if (dstDevice)
      kind = srcDevice ? hipMemcpyDeviceToDevice : hipMemcpyHostToDevice;
    else
      kind = srcDevice ? hipMemcpyDeviceToHost : hipMemcpyHostToHost;
  }
  emu::Memory &memory = rt.emu.getMemory();
  uint64_t dstAddress = reinterpret_cast<uintptr_t>(dst);
  uint64_t srcAddress = reinterpret_cast<uintptr_t>(src);
  auto badDevice = [&](const char *which, const void *p) {
    return fail(hipErrorInvalidValue, api,
                formatv("the {0} {1} is not {2} bytes of one device "
                        "allocation: it starts at {3}",
                        which, p == dst ? "destination" : "source", bytes,
                        describeAddress(rt, p)));
  };
  switch (kind) {
  case hipMemcpyHostToHost:
    if (perform)
      std::memmove(dst, src, bytes);
    return hipSuccess;
  case hipMemcpyHostToDevice:
    if (!dstDevice)
      return badDevice("device", dst);
    if (perform)
      cantFail(memory.write(dstAddress,
                          ArrayRef(static_cast<const uint8_t *>(src), bytes)));
    return hipSuccess;
  case hipMemcpyDeviceToHost:
    if (!srcDevice)
      return badDevice("device", src);
    if (perform)
      cantFail(memory.read(srcAddress,
                         MutableArrayRef(static_cast<uint8_t *>(dst), bytes)));
    return hipSuccess;
  case hipMemcpyDeviceToDevice:
    if (!dstDevice)
      return badDevice("device", dst);
    if (!srcDevice)
      return badDevice("device", src);
    if (perform)
      std::memmove(memory.translate(dstAddress, bytes),
                 memory.translate(srcAddress, bytes), bytes);
    return hipSuccess;
  default:
    return fail(hipErrorInvalidMemcpyDirection, api,
                formatv("hipMemcpyKind {0}", kind));
  }
}

hipError_t fillBytes(Runtime &rt, const char *api, void *dst, uint64_t value,
                     unsigned width, size_t count, bool perform);

/// An operation on `stream`: `run(perform)` checks it and, with `perform`,
/// carries it out; when the stream captures it is only checked and
/// `record()` is appended to the capture (the host side of a copy is read
/// or written when the graph runs, as in HIP).
hipError_t onStream(Runtime &rt, const char *api, hipStream_t stream,
                    llvm::function_ref<hipError_t(bool perform)> run,
                    llvm::function_ref<GraphOp()> record) {
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, api, "not a live stream");
  ihipGraph *graph = nullptr;
  if (hipError_t e = captureOf(rt, api, stream, &graph))
    return e;
  if (hipError_t e = run(/*perform=*/!graph))
    return e;
  if (graph)
    graph->ops.push_back(record());
  return hipSuccess;
}

/// A copy on `stream`, recorded when the stream captures.
hipError_t copyOn(Runtime &rt, const char *api, void *dst, const void *src,
                  size_t bytes, int kind, hipStream_t stream) {
  return onStream(
      rt, api, stream,
      [&](bool perform) {
        return copy(rt, api, dst, src, bytes, kind, perform);
      },
      [&] {
        GraphOp op;
        op.kind = GraphOp::Copy;
        op.dst = dst;
        op.src = src;
        op.bytes = bytes;
        op.copyKind = kind;
        return op;
      });
}

/// A fill on `stream`, recorded when the stream captures.
hipError_t fillOn(Runtime &rt, const char *api, void *dst, uint64_t value,
                  unsigned width, size_t count, hipStream_t stream) {
  return onStream(
      rt, api, stream,
      [&](bool perform) {
        return fillBytes(rt, api, dst, value, width, count, perform);
      },
      [&] {
        GraphOp op;
        op.kind = GraphOp::Fill;
        op.dst = dst;
        op.value = value;
        op.width = width;
        op.bytes = count;
        return op;
      });
}

hipError_t fillBytes(Runtime &rt, const char *api, void *dst, uint64_t value,
                     unsigned width, size_t count, bool perform) {
  size_t bytes = count * width;
  if (bytes == 0)
    return hipSuccess;
  uint8_t *p = rt.emu.getMemory().translate(reinterpret_cast<uintptr_t>(dst),
                                            bytes);
  if (!p)
    return fail(hipErrorInvalidValue, api,
                formatv("{0} bytes at {1}", bytes, describeAddress(rt, dst)));
  if (!perform)
    return hipSuccess;
  for (size_t i = 0; i < count; ++i)
    for (unsigned b = 0; b < width; ++b)
      p[i * width + b] = uint8_t(value >> (8 * b));
  return hipSuccess;
}

/// The size of the ELF image at `image`, from its headers (hipModuleLoadData
/// is given no size), or 0 if it is not a 64-bit ELF or its header tables
/// are implausibly far (a corrupt header must not send the reads below into
/// unmapped memory; an image truncated below what its headers describe
/// cannot be detected, as with HIP's own runtime).
uint64_t elfSize(const uint8_t *image) {
  using support::endian::read16le;
  using support::endian::read32le;
  using support::endian::read64le;
  if (std::memcmp(image, "\x7f" "ELF", 4) || image[4] != 2 /*ELFCLASS64*/)
    return 0;
  uint64_t phoff = read64le(image + 0x20), shoff = read64le(image + 0x28);
  unsigned phentsize = read16le(image + 0x36), phnum = read16le(image + 0x38);
  unsigned shentsize = read16le(image + 0x3a), shnum = read16le(image + 0x3c);
  constexpr uint64_t kMaxImage = uint64_t(1) << 30;
  if (phoff > kMaxImage || shoff > kMaxImage)
    return 0;
  uint64_t size = std::max<uint64_t>(64, phoff + uint64_t(phentsize) * phnum);
  size = std::max(size, shoff + uint64_t(shentsize) * shnum);
  for (unsigned i = 0; i < phnum && phentsize >= 56; ++i) {
    const uint8_t *ph = image + phoff + uint64_t(i) * phentsize;
    size = std::max(size, read64le(ph + 8) + read64le(ph + 32));
  }
  for (unsigned i = 0; i < shnum && shentsize >= 64; ++i) {
    const uint8_t *sh = image + shoff + uint64_t(i) * shentsize;
    if (read32le(sh + 4) != 8 /*SHT_NOBITS*/)
      size = std::max(size, read64le(sh + 24) + read64le(sh + 32));
  }
  return size;
}

constexpr StringLiteral kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

/// The code object for `chip` in a clang offload bundle (the format hipcc's
/// fat binaries use), or an empty array with `why` set.
ArrayRef<uint8_t> findInBundle(const uint8_t *image, StringRef chip,
                               std::string &why) {
  using support::endian::read64le;
  uint64_t count = read64le(image + kBundleMagic.size());
  const uint8_t *entry = image + kBundleMagic.size() + 8;
  std::vector<std::string> ids;
  for (uint64_t i = 0; i < count && i < 4096; ++i) {
    uint64_t offset = read64le(entry), size = read64le(entry + 8);
    uint64_t idSize = read64le(entry + 16);
    if (idSize > 4096 || offset > (uint64_t(1) << 30) ||
        size > (uint64_t(1) << 30))
      break;
    StringRef id(reinterpret_cast<const char *>(entry + 24), idSize);
    entry += 24 + idSize;
    ids.push_back(id.str());
    // "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-": the processor is
    // what follows the last "--", before any feature.
    auto [kind, rest] = id.split('-');
    if (kind != "hip" && kind != "hipv4")
      continue;
    size_t dashes = id.rfind("--");
    if (dashes != StringRef::npos &&
        id.substr(dashes + 2).split(':').first == chip)
      return ArrayRef(image + offset, size);
  }
  why = "the offload bundle has no code object for " + chip.str() +
        " (it has " + join(ids, ", ") + ")";
  return {};
}

void fillProperties(const ChipInfo &chip, hipDeviceProp_t &p) {
  std::memset(&p, 0, sizeof(p));
  std::snprintf(p.name, sizeof(p.name), "Crest AMDGPU emulator (%s)",
                chip.name.str().c_str());
  std::snprintf(p.gcnArchName, sizeof(p.gcnArchName), "%s:sramecc+:xnack-",
                chip.name.str().c_str());
  const TimingParams *t = chip.timing;
  p.totalGlobalMem = size_t(64) << 30;
  p.sharedMemPerBlock = chip.ldsBytesPerWorkgroup;
  p.regsPerBlock = 65536;
  p.warpSize = int(chip.defaultWaveSize);
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = p.maxThreadsDim[2] = 1024;
  p.maxGridSize[0] = p.maxGridSize[1] = p.maxGridSize[2] = 0x7fffffff;
  p.clockRate = t ? int(t->peakClockMhz * 1000) : 0;
  p.memoryClockRate = 0;
  p.memoryBusWidth = 0;
  p.totalConstMem = p.totalGlobalMem;
  // gfx942 -> 9.4, gfx90a -> 9.0 (HIP's "compute capability" of AMD chips
  // is the major and minor digits of the processor).
  StringRef digits = chip.name.drop_front(3);
  p.major = digits.size() == 4 ? (digits[0] - '0') * 10 + (digits[1] - '0')
                               : digits[0] - '0';
  p.minor = int(hexDigitValue(digits[digits.size() - 2]));
  p.multiProcessorCount = t ? int(t->computeUnits) : 1;
  p.l2CacheSize = 4 << 20;
  p.maxThreadsPerMultiProcessor = int(
      chip.maxWavesPerSimd * chip.simdsPerComputeUnit * chip.defaultWaveSize);
  p.computeMode = 0;
  p.clockInstructionRate = 100000; // 100 MHz, as s_memrealtime
  p.arch.hasGlobalInt32Atomics = p.arch.hasGlobalFloatAtomicExch = 1;
  p.arch.hasSharedInt32Atomics = p.arch.hasSharedFloatAtomicExch = 1;
  p.arch.hasFloatAtomicAdd = p.arch.hasGlobalInt64Atomics = 1;
  p.arch.hasSharedInt64Atomics = p.arch.hasDoubles = 1;
  p.arch.hasWarpVote = p.arch.hasWarpBallot = p.arch.hasWarpShuffle = 1;
  p.arch.hasFunnelShift = p.arch.hasThreadFenceSystem = 1;
  p.arch.hasSyncThreadsExt = p.arch.has3dGrid = 1;
  p.concurrentKernels = 0;
  p.maxSharedMemoryPerMultiProcessor = chip.ldsBytesPerWorkgroup;
  p.canMapHostMemory = 0;
  // The deprecated decimal gcnArch: 942, 908, 910 for gfx90a.
  unsigned gcn = 0;
  p.gcnArch = digits.getAsInteger(10, gcn) ? p.major * 100 + 10 : int(gcn);
  p.integrated = 0;
  p.cooperativeLaunch = 0;
  p.memPitch = p.totalGlobalMem;
  p.textureAlignment = 256;
  p.texturePitchAlignment = 256;
  p.isLargeBar = 1;
}

/// " 'x'" for an argument the metadata names, else nothing.
std::string describeName(const emu::KernelArg &arg) {
  return arg.name.empty() ? std::string() : " '" + arg.name + "'";
}

hipError_t run(Runtime &rt, const char *api, ihipModuleSymbol_t *f,
               std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
               unsigned sharedMemBytes, ArrayRef<uint8_t> args,
               bool fromGraph);

/// The launch: argument layout from kernelParams or `extra`, checks, then
/// run, or recorded when the stream captures.
hipError_t launch(Runtime &rt, const char *api, ihipModuleSymbol_t *f,
                  std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
                  unsigned sharedMemBytes, hipStream_t stream,
                  void **kernelParams, void **extra) {
  if (!f || !rt.functions.count(f))
    return fail(hipErrorInvalidResourceHandle, api,
                "the function is not one hipModuleGetFunction returned");
  const emu::Kernel &kernel = *f->kernel;
  auto bad = [&](hipError_t code, const Twine &why) {
    return fail(code, api, "kernel '" + kernel.name + "': " + why);
  };
  if (!validStream(rt, stream))
    return bad(hipErrorInvalidResourceHandle,
               "the stream is not a live stream");
  for (unsigned d = 0; d < 3; ++d) {
    if (!grid[d] || !block[d])
      return bad(hipErrorInvalidValue,
                 formatv("grid {0}x{1}x{2} and block {3}x{4}x{5} must be "
                         "positive",
                         grid[0], grid[1], grid[2], block[0], block[1],
                         block[2]));
    if (uint64_t(grid[d]) * block[d] > 0xffffffffull)
      return bad(hipErrorInvalidValue,
                 formatv("grid {0} x block {1} work-items in dimension {2} "
                         "exceed 2^32",
                         grid[d], block[d], d));
  }
  uint64_t items = uint64_t(block[0]) * block[1] * block[2];
  uint32_t maxItems = std::min<uint32_t>(1024, kernel.maxFlatWorkgroupSize);
  if (items > maxItems)
    return bad(hipErrorInvalidValue,
               formatv("a block of {0} work-items exceeds the kernel's "
                       "maximum of {1}",
                       items, maxItems));
  if (uint64_t(kernel.groupSegmentFixedSize) + sharedMemBytes >
      rt.chip->ldsBytesPerWorkgroup)
    return bad(hipErrorInvalidValue,
               formatv("{0} bytes of static and {1} of dynamic LDS exceed "
                       "the {2} bytes {3} has",
                       kernel.groupSegmentFixedSize, sharedMemBytes,
                       rt.chip->ldsBytesPerWorkgroup, rt.chip->name));

  // The explicit arguments, laid out as the metadata says.
  std::vector<uint8_t> args(f->explicitEnd, 0);
  if (kernelParams && extra)
    return bad(hipErrorInvalidValue,
               "both kernelParams and extra are given; pass one");
  if (extra) {
    if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
        extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != HIP_LAUNCH_PARAM_END)
      return bad(hipErrorInvalidValue,
                 "extra must be {HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer, "
                 "HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}");
    const uint8_t *buffer = static_cast<const uint8_t *>(extra[1]);
    const size_t *sizePtr = static_cast<const size_t *>(extra[3]);
    if (!sizePtr || (!buffer && *sizePtr))
      return bad(hipErrorInvalidValue, "extra has a null buffer or size");
    size_t size = *sizePtr;
    // The buffer must hold every explicit argument at its metadata offset
    // and end before the hidden arguments the runtime writes.
    if (size < f->explicitEnd || size > f->hiddenStart) {
      std::string layout;
      for (size_t i = 0; i < f->explicitArgs.size(); ++i) {
        const emu::KernelArg &arg = *f->explicitArgs[i];
        layout += formatv("{0}argument {1}{2}: {3}, {4} bytes at offset {5}",
                          i ? "; " : "", i, describeName(arg),
                          arg.valueKind, arg.size, arg.offset)
                      .str();
      }
      return bad(hipErrorInvalidValue,
                 formatv("the argument buffer holds {0} bytes, but the "
                         "code object's metadata has {1} bytes of explicit "
                         "arguments{2} (.kernarg_segment_size {3}, hidden "
                         "arguments from offset {4}): {5}",
                         size, f->explicitEnd,
                         size < f->explicitEnd ? "" : " and the buffer runs "
                                                      "into the hidden ones",
                         kernel.kernargSegmentSize, f->hiddenStart,
                         layout.empty() ? "none" : layout));
    }
    if (f->explicitEnd)
      std::memcpy(args.data(), buffer, f->explicitEnd);
  } else if (!f->explicitArgs.empty()) {
    if (!kernelParams)
      return bad(hipErrorInvalidValue,
                 formatv("the kernel takes {0} arguments; kernelParams and "
                         "extra are both null",
                         f->explicitArgs.size()));
    for (size_t i = 0; i < f->explicitArgs.size(); ++i) {
      const emu::KernelArg &arg = *f->explicitArgs[i];
      if (!kernelParams[i])
        return bad(hipErrorInvalidValue,
                   formatv("kernelParams[{0}] (argument {0}{1}) is null", i,
                           describeName(arg)));
      std::memcpy(args.data() + arg.offset, kernelParams[i], arg.size);
    }
  }
  // Every non-null global pointer must point into a device allocation: a
  // wrong layout shows here, before the kernel runs.
  for (size_t i = 0; i < f->explicitArgs.size(); ++i) {
    const emu::KernelArg &arg = *f->explicitArgs[i];
    if (arg.valueKind != "global_buffer" || arg.size != 8)
      continue;
    uint64_t p = support::endian::read64le(args.data() + arg.offset);
    if (p && !rt.emu.getMemory().translate(p, 1))
      return bad(hipErrorInvalidValue,
                 formatv("argument {0}{1} (global_buffer at offset {2}) "
                         "is {3:x}, which is not in a device allocation ({4})",
                         i, describeName(arg), arg.offset, p,
                         rt.emu.getMemory().describe(p)));
  }

  ihipGraph *graph = nullptr;
  if (hipError_t e = captureOf(rt, api, stream, &graph))
    return e;
  if (graph) {
    GraphOp op;
    op.kind = GraphOp::Kernel;
    op.function = f;
    op.grid = grid;
    op.block = block;
    op.sharedMemBytes = sharedMemBytes;
    op.args = std::move(args);
    graph->ops.push_back(std::move(op));
    return hipSuccess;
  }
  return run(rt, api, f, grid, block, sharedMemBytes, args, false);
}

/// Marks `event` as recorded now (host and modelled time).
void recordEvent(Runtime &rt, hipEvent_t event) {
  event->recorded = true;
  event->host = std::chrono::steady_clock::now();
  event->modelledUs = rt.modelledUs;
  event->modelled = rt.timing && rt.allModelled;
}

/// Runs a checked launch. The modelled time of a kernel launched from a
/// graph (`fromGraph`) carries the chip's graph launch overhead instead of
/// the stream launch overhead (TimingParams::graphLaunchOverheadUs).
hipError_t run(Runtime &rt, const char *api, ihipModuleSymbol_t *f,
               std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block,
               unsigned sharedMemBytes, ArrayRef<uint8_t> args,
               bool fromGraph) {
  const emu::Kernel &kernel = *f->kernel;
  auto bad = [&](hipError_t code, const Twine &why) {
    return fail(code, api, "kernel '" + kernel.name + "': " + why);
  };
  emu::LaunchConfig config;
  config.grid = grid;
  config.block = block;
  config.dynamicLdsBytes = sharedMemBytes;
  config.gridDims = 3;
  config.quantum = rt.quantum;
  config.seed = rt.seed;
  config.threads = rt.threads;
  config.detectRaces = rt.detectRaces;
  bool timed = rt.timing && rt.chip->timing;
  if (timed)
    config.timing = emu::TimingOptions();
  Expected<emu::LaunchResult> result =
      rt.emu.launch(*f->program, args, config);
  if (!result)
    return bad(hipErrorLaunchFailure, toString(result.takeError()));
  if (result->racesFound) {
    std::string races;
    for (const emu::RaceReport &race : result->races)
      races += "\n  " + race.describe();
    return bad(hipErrorLaunchFailure,
               formatv("the LDS race detector found {0} racy accesses:{1}",
                       result->racesFound, races));
  }
  if (timed && result->timing)
    rt.modelledUs += result->timing->microseconds +
                     (fromGraph ? rt.chip->timing->graphLaunchOverheadUs
                                : result->timing->launchOverheadUs);
  else
    rt.allModelled = false;
  return hipSuccess;
}

} // namespace

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

extern "C" {

const char *hipGetErrorName(hipError_t error) {
  switch (error) {
#define CREST_HIP_ERROR(name)                                                  \
  case name:                                                                   \
    return #name;
    CREST_HIP_ERROR(hipSuccess)
    CREST_HIP_ERROR(hipErrorInvalidValue)
    CREST_HIP_ERROR(hipErrorOutOfMemory)
    CREST_HIP_ERROR(hipErrorNotInitialized)
    CREST_HIP_ERROR(hipErrorDeinitialized)
    CREST_HIP_ERROR(hipErrorInvalidConfiguration)
    CREST_HIP_ERROR(hipErrorInvalidSymbol)
    CREST_HIP_ERROR(hipErrorInvalidDevicePointer)
    CREST_HIP_ERROR(hipErrorInvalidMemcpyDirection)
    CREST_HIP_ERROR(hipErrorInsufficientDriver)
    CREST_HIP_ERROR(hipErrorMissingConfiguration)
    CREST_HIP_ERROR(hipErrorPriorLaunchFailure)
    CREST_HIP_ERROR(hipErrorInvalidDeviceFunction)
    CREST_HIP_ERROR(hipErrorNoDevice)
    CREST_HIP_ERROR(hipErrorInvalidDevice)
    CREST_HIP_ERROR(hipErrorInvalidImage)
    CREST_HIP_ERROR(hipErrorInvalidContext)
    CREST_HIP_ERROR(hipErrorNoBinaryForGpu)
    CREST_HIP_ERROR(hipErrorInvalidKernelFile)
    CREST_HIP_ERROR(hipErrorInvalidSource)
    CREST_HIP_ERROR(hipErrorFileNotFound)
    CREST_HIP_ERROR(hipErrorSharedObjectSymbolNotFound)
    CREST_HIP_ERROR(hipErrorSharedObjectInitFailed)
    CREST_HIP_ERROR(hipErrorOperatingSystem)
    CREST_HIP_ERROR(hipErrorInvalidHandle)
    CREST_HIP_ERROR(hipErrorIllegalState)
    CREST_HIP_ERROR(hipErrorNotFound)
    CREST_HIP_ERROR(hipErrorNotReady)
    CREST_HIP_ERROR(hipErrorIllegalAddress)
    CREST_HIP_ERROR(hipErrorLaunchOutOfResources)
    CREST_HIP_ERROR(hipErrorLaunchTimeOut)
    CREST_HIP_ERROR(hipErrorLaunchFailure)
    CREST_HIP_ERROR(hipErrorNotSupported)
    CREST_HIP_ERROR(hipErrorStreamCaptureUnsupported)
    CREST_HIP_ERROR(hipErrorStreamCaptureInvalidated)
    CREST_HIP_ERROR(hipErrorStreamCaptureMerge)
    CREST_HIP_ERROR(hipErrorStreamCaptureUnmatched)
    CREST_HIP_ERROR(hipErrorStreamCaptureUnjoined)
    CREST_HIP_ERROR(hipErrorStreamCaptureIsolation)
    CREST_HIP_ERROR(hipErrorStreamCaptureImplicit)
    CREST_HIP_ERROR(hipErrorCapturedEvent)
    CREST_HIP_ERROR(hipErrorStreamCaptureWrongThread)
    CREST_HIP_ERROR(hipErrorUnknown)
#undef CREST_HIP_ERROR
  default:
    return "hipErrorUnknown";
  }
}

const char *hipGetErrorString(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "no error";
  case hipErrorInvalidValue:
    return "invalid argument";
  case hipErrorOutOfMemory:
    return "out of memory";
  case hipErrorNotInitialized:
    return "initialization error";
  case hipErrorInvalidMemcpyDirection:
    return "invalid copy direction for memcpy";
  case hipErrorInvalidDeviceFunction:
    return "invalid device function";
  case hipErrorNoDevice:
    return "no ROCm-capable device is detected";
  case hipErrorInvalidDevice:
    return "invalid device ordinal";
  case hipErrorInvalidImage:
    return "device kernel image is invalid";
  case hipErrorNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case hipErrorFileNotFound:
    return "file not found";
  case hipErrorInvalidHandle:
    return "invalid resource handle";
  case hipErrorNotFound:
    return "named symbol not found";
  case hipErrorNotReady:
    return "device not ready";
  case hipErrorLaunchFailure:
    return "unspecified launch failure";
  case hipErrorNotSupported:
    return "operation not supported";
  default:
    return hipGetErrorName(error);
  }
}

hipError_t hipGetLastError(void) {
  hipError_t e = lastError;
  lastError = hipSuccess;
  return e;
}

hipError_t hipPeekAtLastError(void) { return lastError; }

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

hipError_t hipInit(unsigned int flags) {
  CREST_HIP_ENTER("hipInit");
  if (flags)
    return fail(hipErrorInvalidValue, apiName, "flags must be 0");
  CREST_HIP_NEED_DEVICE();
  return hipSuccess;
}

/// Reports HIP 6.4 (so that Crest's HIP device accepts gfx942 and code
/// object v6); the API and hipDeviceProp_t are those of the HIP 5.2 headers,
/// which HIP 6 keeps for hipGetDeviceProperties.
hipError_t hipRuntimeGetVersion(int *version) {
  CREST_HIP_ENTER("hipRuntimeGetVersion");
  if (!version)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  *version = 60400000;
  return hipSuccess;
}

hipError_t hipDriverGetVersion(int *version) {
  CREST_HIP_ENTER("hipDriverGetVersion");
  if (!version)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  *version = 60400000;
  return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count) {
  CREST_HIP_ENTER("hipGetDeviceCount");
  if (!count)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  *count = rt.chip ? 1 : 0;
  CREST_HIP_NEED_DEVICE();
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  CREST_HIP_ENTER("hipSetDevice");
  CREST_HIP_NEED_DEVICE();
  if (device != 0)
    return fail(hipErrorInvalidDevice, apiName,
                formatv("device {0} (there is one device, 0)", device));
  rt.currentDevice = device;
  return hipSuccess;
}

hipError_t hipGetDevice(int *device) {
  CREST_HIP_ENTER("hipGetDevice");
  if (!device)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  *device = rt.currentDevice;
  return hipSuccess;
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal) {
  CREST_HIP_ENTER("hipDeviceGet");
  if (!device)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  if (ordinal != 0)
    return fail(hipErrorInvalidDevice, apiName,
                formatv("device {0} (there is one device, 0)", ordinal));
  *device = 0;
  return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *props, int device) {
  CREST_HIP_ENTER("hipGetDeviceProperties");
  if (!props)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  if (device != 0)
    return fail(hipErrorInvalidDevice, apiName,
                formatv("device {0} (there is one device, 0)", device));
  fillProperties(*rt.chip, *props);
  return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int length, hipDevice_t device) {
  CREST_HIP_ENTER("hipDeviceGetName");
  if (!name || length <= 0)
    return fail(hipErrorInvalidValue, apiName, "null or empty buffer");
  CREST_HIP_NEED_DEVICE();
  if (device != 0)
    return fail(hipErrorInvalidDevice, apiName,
                formatv("device {0} (there is one device, 0)", device));
  hipDeviceProp_t props;
  fillProperties(*rt.chip, props);
  std::snprintf(name, size_t(length), "%s", props.name);
  return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attribute,
                                 int device) {
  CREST_HIP_ENTER("hipDeviceGetAttribute");
  if (!value)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  if (device != 0)
    return fail(hipErrorInvalidDevice, apiName,
                formatv("device {0} (there is one device, 0)", device));
  hipDeviceProp_t p;
  fillProperties(*rt.chip, p);
  switch (attribute) {
  case hipDeviceAttributeMaxThreadsPerBlock:
    *value = p.maxThreadsPerBlock;
    break;
  case hipDeviceAttributeMaxBlockDimX:
  case hipDeviceAttributeMaxBlockDimY:
  case hipDeviceAttributeMaxBlockDimZ:
    *value = p.maxThreadsDim[attribute - hipDeviceAttributeMaxBlockDimX];
    break;
  case hipDeviceAttributeMaxGridDimX:
  case hipDeviceAttributeMaxGridDimY:
  case hipDeviceAttributeMaxGridDimZ:
    *value = p.maxGridSize[attribute - hipDeviceAttributeMaxGridDimX];
    break;
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
  case hipDeviceAttributeSharedMemPerBlockOptin:
    *value = int(p.sharedMemPerBlock);
    break;
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
  case hipDeviceAttributeSharedMemPerMultiprocessor:
    *value = int(p.maxSharedMemoryPerMultiProcessor);
    break;
  case hipDeviceAttributeWarpSize:
    *value = p.warpSize;
    break;
  case hipDeviceAttributeMultiprocessorCount:
    *value = p.multiProcessorCount;
    break;
  case hipDeviceAttributeClockRate:
    *value = p.clockRate;
    break;
  case hipDeviceAttributeClockInstructionRate:
    *value = p.clockInstructionRate;
    break;
  case hipDeviceAttributeComputeCapabilityMajor:
    *value = p.major;
    break;
  case hipDeviceAttributeComputeCapabilityMinor:
    *value = p.minor;
    break;
  case hipDeviceAttributeMaxRegistersPerBlock:
    *value = p.regsPerBlock;
    break;
  case hipDeviceAttributeMaxThreadsPerMultiProcessor:
    *value = p.maxThreadsPerMultiProcessor;
    break;
  case hipDeviceAttributeL2CacheSize:
    *value = p.l2CacheSize;
    break;
  case hipDeviceAttributeGcnArch:
    *value = p.gcnArch;
    break;
  case hipDeviceAttributeTotalConstantMemory:
    *value = int(std::min<size_t>(p.totalConstMem, 0x7fffffff));
    break;
  case hipDeviceAttributeIntegrated:
  case hipDeviceAttributeConcurrentKernels:
  case hipDeviceAttributeCooperativeLaunch:
  case hipDeviceAttributeCooperativeMultiDeviceLaunch:
  case hipDeviceAttributeEccEnabled:
  case hipDeviceAttributeManagedMemory:
  case hipDeviceAttributeCanMapHostMemory:
  case hipDeviceAttributeComputeMode:
  case hipDeviceAttributeIsMultiGpuBoard:
  case hipDeviceAttributeKernelExecTimeout:
  case hipDeviceAttributePciBusId:
  case hipDeviceAttributePciDeviceId:
  case hipDeviceAttributePciDomainID:
  case hipDeviceAttributeMemoryClockRate:
  case hipDeviceAttributeMemoryBusWidth:
    *value = 0;
    break;
  default:
    return fail(hipErrorInvalidValue, apiName,
                formatv("attribute {0} is not implemented by the emulator's "
                        "runtime",
                        int(attribute)));
  }
  return hipSuccess;
}

hipError_t hipDeviceSynchronize(void) {
  CREST_HIP_ENTER("hipDeviceSynchronize");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return hipSuccess; // kernels and copies complete when they are issued
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

hipError_t hipMalloc(void **ptr, size_t size) {
  CREST_HIP_ENTER("hipMalloc");
  if (!ptr)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  *ptr = nullptr;
  if (size == 0)
    return hipSuccess;
  if (size > (size_t(1) << 40))
    return fail(hipErrorOutOfMemory, apiName,
                formatv("{0} bytes is more than the emulator's 1 TiB", size));
  uint64_t address = rt.emu.getMemory().allocate(
      size, formatv("hipMalloc #{0}", rt.allocations.size() + 1).str(),
      rt.mallocFill);
  rt.allocations[address] = size;
  *ptr = reinterpret_cast<void *>(uintptr_t(address));
  return hipSuccess;
}

hipError_t hipFree(void *ptr) {
  CREST_HIP_ENTER("hipFree");
  if (!ptr)
    return hipSuccess;
  auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == rt.allocations.end())
    return fail(hipErrorInvalidValue, apiName,
                formatv("{0} is not a pointer hipMalloc returned ({1})", ptr,
                        describeAddress(rt, ptr)));
  rt.emu.getMemory().release(it->first);
  rt.allocations.erase(it);
  return hipSuccess;
}

hipError_t hipMemGetInfo(size_t *free, size_t *total) {
  CREST_HIP_ENTER("hipMemGetInfo");
  if (!free || !total)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  size_t used = 0;
  for (auto &[base, bytes] : rt.allocations)
    used += bytes;
  *total = size_t(64) << 30;
  *free = *total > used ? *total - used : 0;
  return hipSuccess;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes,
                     hipMemcpyKind kind) {
  CREST_HIP_ENTER("hipMemcpy");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return copy(rt, apiName, dst, src, sizeBytes, rawKind(kind));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes,
                          hipMemcpyKind kind, hipStream_t stream) {
  CREST_HIP_ENTER("hipMemcpyAsync");
  CREST_HIP_NEED_DEVICE();
  return copyOn(rt, apiName, dst, src, sizeBytes, rawKind(kind), stream);
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes) {
  CREST_HIP_ENTER("hipMemcpyHtoD");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return copy(rt, apiName, dst, src, sizeBytes, hipMemcpyHostToDevice);
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes) {
  CREST_HIP_ENTER("hipMemcpyDtoH");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return copy(rt, apiName, dst, src, sizeBytes, hipMemcpyDeviceToHost);
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src,
                         size_t sizeBytes) {
  CREST_HIP_ENTER("hipMemcpyDtoD");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return copy(rt, apiName, dst, src, sizeBytes, hipMemcpyDeviceToDevice);
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes,
                              hipStream_t stream) {
  CREST_HIP_ENTER("hipMemcpyHtoDAsync");
  CREST_HIP_NEED_DEVICE();
  return copyOn(rt, apiName, dst, src, sizeBytes, hipMemcpyHostToDevice,
                stream);
}

hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes,
                              hipStream_t stream) {
  CREST_HIP_ENTER("hipMemcpyDtoHAsync");
  CREST_HIP_NEED_DEVICE();
  return copyOn(rt, apiName, dst, src, sizeBytes, hipMemcpyDeviceToHost,
                stream);
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src,
                              size_t sizeBytes, hipStream_t stream) {
  CREST_HIP_ENTER("hipMemcpyDtoDAsync");
  CREST_HIP_NEED_DEVICE();
  return copyOn(rt, apiName, dst, src, sizeBytes, hipMemcpyDeviceToDevice,
                stream);
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes) {
  CREST_HIP_ENTER("hipMemset");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return fillBytes(rt, apiName, dst, uint8_t(value), 1, sizeBytes, true);
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes,
                          hipStream_t stream) {
  CREST_HIP_ENTER("hipMemsetAsync");
  CREST_HIP_NEED_DEVICE();
  return fillOn(rt, apiName, dst, uint8_t(value), 1, sizeBytes, stream);
}

hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count) {
  CREST_HIP_ENTER("hipMemsetD8");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return fillBytes(rt, apiName, dst, value, 1, count, true);
}

hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  CREST_HIP_ENTER("hipMemsetD32");
  CREST_HIP_NEED_DEVICE();
  if (hipError_t e = checkNotCapturing(rt, apiName))
    return e;
  return fillBytes(rt, apiName, dst, uint32_t(value), 4, count, true);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

hipError_t hipStreamCreate(hipStream_t *stream) {
  CREST_HIP_ENTER("hipStreamCreate");
  if (!stream)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  *stream = new ihipStream_t{rt.nextStream++};
  rt.streams.insert(*stream);
  return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags) {
  (void)flags; // hipStreamDefault and hipStreamNonBlocking mean the same here
  return hipStreamCreate(stream);
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  CREST_HIP_ENTER("hipStreamDestroy");
  if (!stream || !rt.streams.erase(stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  if (stream->capture) {
    rt.graphs.erase(stream->capture);
    delete stream->capture;
  }
  delete stream;
  return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  CREST_HIP_ENTER("hipStreamSynchronize");
  CREST_HIP_NEED_DEVICE();
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  if (!stream)
    return checkNotCapturing(rt, apiName);
  if (stream->capture) {
    stream->captureInvalidated = true;
    return fail(hipErrorStreamCaptureUnsupported, apiName,
                "the stream is capturing; the capture is invalidated");
  }
  return hipSuccess;
}

hipError_t hipStreamQuery(hipStream_t stream) {
  CREST_HIP_ENTER("hipStreamQuery");
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  if (stream && stream->capture) {
    stream->captureInvalidated = true;
    return fail(hipErrorStreamCaptureUnsupported, apiName,
                "the stream is capturing; the capture is invalidated");
  }
  return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t *event) {
  CREST_HIP_ENTER("hipEventCreate");
  if (!event)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  *event = new ihipEvent_t;
  rt.events.insert(*event);
  return hipSuccess;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags) {
  (void)flags;
  return hipEventCreate(event);
}

hipError_t hipEventDestroy(hipEvent_t event) {
  CREST_HIP_ENTER("hipEventDestroy");
  if (!event || !rt.events.erase(event))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live event");
  delete event;
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  CREST_HIP_ENTER("hipEventRecord");
  if (!event || !rt.events.count(event))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live event");
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  ihipGraph *graph = nullptr;
  if (hipError_t e = captureOf(rt, apiName, stream, &graph))
    return e;
  if (graph) {
    GraphOp op;
    op.kind = GraphOp::EventRecord;
    op.event = event;
    graph->ops.push_back(std::move(op));
    return hipSuccess;
  }
  recordEvent(rt, event);
  return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  CREST_HIP_ENTER("hipEventSynchronize");
  if (!event || !rt.events.count(event))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live event");
  return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t event) {
  CREST_HIP_ENTER("hipEventQuery");
  if (!event || !rt.events.count(event))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live event");
  return hipSuccess;
}

/// With $CREST_HIP_TIMING=1 (and a chip the timing model covers), the
/// modelled time of the kernels between the two records; else host time.
hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop) {
  CREST_HIP_ENTER("hipEventElapsedTime");
  if (!ms)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  for (hipEvent_t e : {start, stop})
    if (!e || !rt.events.count(e))
      return fail(hipErrorInvalidResourceHandle, apiName, "not a live event");
  if (!start->recorded || !stop->recorded)
    return fail(hipErrorInvalidResourceHandle, apiName,
                "an event has not been recorded");
  if (start->modelled && stop->modelled) {
    *ms = float((stop->modelledUs - start->modelledUs) / 1000.0);
    return hipSuccess;
  }
  std::chrono::duration<double, std::milli> host = stop->host - start->host;
  *ms = float(host.count());
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  CREST_HIP_ENTER("hipModuleLoadData");
  if (!module || !image)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  CREST_HIP_NEED_DEVICE();
  *module = nullptr;
  const uint8_t *bytes = static_cast<const uint8_t *>(image);
  ArrayRef<uint8_t> elf;
  if (!std::memcmp(bytes, kBundleMagic.data(), kBundleMagic.size())) {
    std::string why;
    elf = findInBundle(bytes, rt.chip->name, why);
    if (elf.empty())
      return fail(hipErrorNoBinaryForGpu, apiName, why);
  } else {
    uint64_t size = elfSize(bytes);
    if (!size || size > (uint64_t(1) << 32))
      return fail(hipErrorInvalidImage, apiName,
                  "the image is neither a 64-bit ELF code object nor a clang "
                  "offload bundle");
    elf = ArrayRef(bytes, size);
  }
  auto result = std::make_unique<ihipModule_t>();
  result->name = formatv("module #{0}", rt.modules.size() + 1).str();
  Expected<emu::CodeObject> object = emu::CodeObject::load(elf, result->name);
  if (!object)
    return fail(hipErrorInvalidImage, apiName, toString(object.takeError()));
  if (object->getChip().name != rt.chip->name)
    return fail(hipErrorNoBinaryForGpu, apiName,
                formatv("the code object is for {0}, the device is {1} "
                        "(CREST_HIP_CHIP)",
                        object->getChip().name, rt.chip->name));
  result->object = std::make_unique<emu::CodeObject>(std::move(*object));
  *module = result.release();
  rt.modules.insert(*module);
  return hipSuccess;
}

hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image,
                               unsigned int numOptions, hipJitOption *options,
                               void **optionValues) {
  (void)numOptions, (void)options, (void)optionValues; // unused, as in HIP
  return hipModuleLoadData(module, image);
}

hipError_t hipModuleLoad(hipModule_t *module, const char *fname) {
  {
    CREST_HIP_ENTER("hipModuleLoad");
    if (!module || !fname)
      return fail(hipErrorInvalidValue, apiName, "null pointer");
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(fname);
  if (!file) {
    CREST_HIP_ENTER("hipModuleLoad");
    return fail(hipErrorFileNotFound, apiName,
                Twine(fname) + ": " + file.getError().message());
  }
  if ((*file)->getBufferSize() < 64) {
    CREST_HIP_ENTER("hipModuleLoad");
    return fail(hipErrorInvalidImage, apiName,
                Twine(fname) + " is too short for a code object");
  }
  return hipModuleLoadData(module, (*file)->getBufferStart());
}

hipError_t hipModuleUnload(hipModule_t module) {
  CREST_HIP_ENTER("hipModuleUnload");
  if (!module || !rt.modules.erase(module))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a loaded module");
  for (auto &[name, function] : module->functions)
    rt.functions.erase(function.get());
  delete module;
  return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *kname) {
  CREST_HIP_ENTER("hipModuleGetFunction");
  if (!function || !kname)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  if (!module || !rt.modules.count(module))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a loaded module");
  auto found = module->functions.find(kname);
  if (found != module->functions.end()) {
    *function = found->second.get();
    return hipSuccess;
  }
  const emu::Kernel *kernel = module->object->findKernel(kname);
  if (!kernel) {
    std::vector<std::string> names;
    for (const emu::Kernel &k : module->object->getKernels())
      names.push_back(k.name);
    return fail(hipErrorNotFound, apiName,
                formatv("{0} has no kernel '{1}' (it has {2})", module->name,
                        kname, join(names, ", ")));
  }
  Expected<std::unique_ptr<emu::Program>> program =
      emu::Program::decode(*module->object, *kernel);
  if (!program)
    return fail(hipErrorInvalidImage, apiName,
                "kernel '" + Twine(kname) +
                    "': " + toString(program.takeError()));
  auto f = std::make_unique<ihipModuleSymbol_t>();
  f->module = module;
  f->kernel = kernel;
  f->program = std::move(*program);
  f->hiddenStart = kernel->kernargSegmentSize;
  for (const emu::KernelArg &arg : kernel->args) {
    if (StringRef(arg.valueKind).starts_with("hidden_")) {
      f->hiddenStart = std::min(f->hiddenStart, arg.offset);
      continue;
    }
    f->explicitArgs.push_back(&arg);
    f->explicitEnd = std::max(f->explicitEnd, arg.offset + arg.size);
  }
  if (f->explicitEnd > f->hiddenStart)
    return fail(hipErrorInvalidImage, apiName,
                formatv("kernel '{0}': the metadata's explicit arguments end "
                        "at {1}, after the first hidden one at {2}",
                        kname, f->explicitEnd, f->hiddenStart));
  *function = f.get();
  rt.functions.insert(f.get());
  module->functions[kname] = std::move(f);
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                 unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY,
                                 unsigned int blockDimZ,
                                 unsigned int sharedMemBytes,
                                 hipStream_t stream, void **kernelParams,
                                 void **extra) {
  CREST_HIP_ENTER("hipModuleLaunchKernel");
  CREST_HIP_NEED_DEVICE();
  return launch(rt, apiName, f, {gridDimX, gridDimY, gridDimZ},
                {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, stream,
                kernelParams, extra);
}

//===----------------------------------------------------------------------===//
// Stream capture and graphs
//===----------------------------------------------------------------------===//

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  CREST_HIP_ENTER("hipStreamBeginCapture");
  CREST_HIP_NEED_DEVICE();
  if (!stream)
    return fail(hipErrorStreamCaptureUnsupported, apiName,
                "the null stream cannot be captured");
  if (!rt.streams.count(stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  if (mode != hipStreamCaptureModeGlobal &&
      mode != hipStreamCaptureModeThreadLocal &&
      mode != hipStreamCaptureModeRelaxed)
    return fail(hipErrorInvalidValue, apiName,
                formatv("hipStreamCaptureMode {0}", int(mode)));
  if (stream->capture)
    return fail(hipErrorIllegalState, apiName,
                "the stream is already capturing");
  stream->capture = new ihipGraph;
  rt.graphs.insert(stream->capture);
  stream->captureMode = mode;
  stream->captureId = rt.nextCaptureId++;
  stream->captureInvalidated = false;
  return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph) {
  CREST_HIP_ENTER("hipStreamEndCapture");
  if (!pGraph)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  if (!stream || !rt.streams.count(stream))
    return fail(hipErrorIllegalState, apiName,
                "the stream is not a live stream that captures");
  if (!stream->capture)
    return fail(hipErrorIllegalState, apiName,
                "the stream is not capturing (no hipStreamBeginCapture)");
  ihipGraph *graph = stream->capture;
  stream->capture = nullptr;
  if (stream->captureInvalidated) {
    stream->captureInvalidated = false;
    rt.graphs.erase(graph);
    delete graph;
    *pGraph = nullptr;
    return fail(hipErrorStreamCaptureInvalidated, apiName,
                "a disallowed call during the capture invalidated it");
  }
  *pGraph = graph;
  return hipSuccess;
}

hipError_t hipStreamIsCapturing(hipStream_t stream,
                                hipStreamCaptureStatus *pCaptureStatus) {
  CREST_HIP_ENTER("hipStreamIsCapturing");
  if (!pCaptureStatus)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  *pCaptureStatus = !stream || !stream->capture
                        ? hipStreamCaptureStatusNone
                    : stream->captureInvalidated
                        ? hipStreamCaptureStatusInvalidated
                        : hipStreamCaptureStatusActive;
  return hipSuccess;
}

hipError_t hipStreamGetCaptureInfo(hipStream_t stream,
                                   hipStreamCaptureStatus *pCaptureStatus,
                                   unsigned long long *pId) {
  if (hipError_t e = hipStreamIsCapturing(stream, pCaptureStatus))
    return e;
  if (pId && stream && stream->capture)
    *pId = stream->captureId;
  return hipSuccess;
}

hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags) {
  CREST_HIP_ENTER("hipGraphCreate");
  if (!pGraph || flags)
    return fail(hipErrorInvalidValue, apiName,
                "a null pointer or non-zero flags");
  *pGraph = new ihipGraph;
  rt.graphs.insert(*pGraph);
  return hipSuccess;
}

hipError_t hipGraphDestroy(hipGraph_t graph) {
  CREST_HIP_ENTER("hipGraphDestroy");
  if (!graph || !rt.graphs.count(graph))
    return fail(hipErrorInvalidValue, apiName,
                "not a graph hipStreamEndCapture or hipGraphCreate returned");
  for (ihipStream_t *s : rt.streams)
    if (s->capture == graph)
      return fail(hipErrorInvalidValue, apiName,
                  "the graph is still being captured");
  rt.graphs.erase(graph);
  delete graph;
  return hipSuccess;
}

hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes,
                            size_t *numNodes) {
  CREST_HIP_ENTER("hipGraphGetNodes");
  if (!graph || !rt.graphs.count(graph) || !numNodes)
    return fail(hipErrorInvalidValue, apiName,
                "not a graph, or a null count");
  if (nodes)
    return fail(hipErrorInvalidValue, apiName,
                "node handles are not provided; pass nodes = null for the "
                "count");
  *numNodes = graph->ops.size();
  return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer,
                               size_t bufferSize) {
  CREST_HIP_ENTER("hipGraphInstantiate");
  if (pErrorNode)
    *pErrorNode = nullptr;
  if (pLogBuffer && bufferSize)
    pLogBuffer[0] = 0;
  if (!pGraphExec)
    return fail(hipErrorInvalidValue, apiName, "null pointer");
  if (!graph || !rt.graphs.count(graph))
    return fail(hipErrorInvalidValue, apiName,
                "not a graph hipStreamEndCapture or hipGraphCreate returned");
  // Kernels and modules stay valid while a graph uses them only if the
  // program keeps them loaded, as in HIP.
  auto exec = std::make_unique<hipGraphExec>();
  exec->ops = graph->ops;
  for (const GraphOp &op : exec->ops)
    exec->kernels += op.kind == GraphOp::Kernel;
  if (rt.trace)
    std::fprintf(stderr,
                 "crest-hip: hipGraphInstantiate: %zu nodes, %u kernels\n",
                 exec->ops.size(), exec->kernels);
  *pGraphExec = exec.release();
  rt.graphExecs.insert(*pGraphExec);
  return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
  CREST_HIP_ENTER("hipGraphLaunch");
  CREST_HIP_NEED_DEVICE();
  if (!graphExec || !rt.graphExecs.count(graphExec))
    return fail(hipErrorInvalidValue, apiName,
                "not an executable graph hipGraphInstantiate returned");
  if (!validStream(rt, stream))
    return fail(hipErrorInvalidResourceHandle, apiName, "not a live stream");
  ihipGraph *capture = nullptr;
  if (hipError_t e = captureOf(rt, apiName, stream, &capture))
    return e;
  if (capture) {
    // A graph launched into a capture becomes part of it.
    capture->ops.insert(capture->ops.end(), graphExec->ops.begin(),
                        graphExec->ops.end());
    return hipSuccess;
  }
  if (rt.trace)
    std::fprintf(stderr, "crest-hip: hipGraphLaunch: %zu nodes, %u kernels\n",
                 graphExec->ops.size(), graphExec->kernels);
  for (const GraphOp &op : graphExec->ops) {
    hipError_t e = hipSuccess;
    switch (op.kind) {
    case GraphOp::Kernel:
      if (!rt.functions.count(op.function))
        return fail(hipErrorInvalidResourceHandle, apiName,
                    "a kernel of the graph was unloaded");
      e = run(rt, apiName, op.function, op.grid, op.block, op.sharedMemBytes,
              op.args, /*fromGraph=*/true);
      break;
    case GraphOp::Copy:
      e = copy(rt, apiName, op.dst, op.src, op.bytes, op.copyKind);
      break;
    case GraphOp::Fill:
      e = fillBytes(rt, apiName, op.dst, op.value, op.width, op.bytes, true);
      break;
    case GraphOp::EventRecord:
      if (rt.events.count(op.event))
        recordEvent(rt, op.event);
      break;
    }
    if (e)
      return e;
  }
  return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec) {
  CREST_HIP_ENTER("hipGraphExecDestroy");
  if (!graphExec || !rt.graphExecs.erase(graphExec))
    return fail(hipErrorInvalidValue, apiName,
                "not an executable graph hipGraphInstantiate returned");
  delete graphExec;
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// The registration API of programs compiled by clang -x hip (hipcc)
//===----------------------------------------------------------------------===//

// Not declared in HIP's headers: clang's host code calls them from a
// constructor it emits (__hip_module_ctor) and at exit.
void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction,
                           char *deviceFunction, const char *deviceName,
                           unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipUnregisterFatBinary(void **modules);

void **__hipRegisterFatBinary(const void *data) {
  CREST_HIP_ENTER("__hipRegisterFatBinary");
  const auto *wrapper = static_cast<const FatBinaryWrapper *>(data);
  auto binary = std::make_unique<FatBinary>();
  if (wrapper && wrapper->magic == kFatBinaryMagic)
    binary->bundle = wrapper->binary;
  else
    (void)fail(hipErrorInvalidKernelFile, apiName,
         "the fat binary wrapper has no HIPF magic; its kernels will not "
         "launch");
  rt.fatBinaries.push_back(std::move(binary));
  return reinterpret_cast<void **>(rt.fatBinaries.back().get());
}

void __hipRegisterFunction(void **modules, const void *hostFunction,
                           char *deviceFunction, const char *deviceName,
                           unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize) {
  (void)deviceFunction, (void)threadLimit, (void)tid, (void)bid;
  (void)blockDim, (void)gridDim, (void)wSize;
  CREST_HIP_ENTER("__hipRegisterFunction");
  if (!hostFunction || !deviceName)
    return;
  rt.stubs[hostFunction] = {reinterpret_cast<FatBinary *>(modules),
                            deviceName};
}

void __hipUnregisterFatBinary(void **modules) {
  CREST_HIP_ENTER("__hipUnregisterFatBinary");
  FatBinary *binary = reinterpret_cast<FatBinary *>(modules);
  for (auto it = rt.stubs.begin(); it != rt.stubs.end();)
    it = it->second.first == binary ? rt.stubs.erase(it) : std::next(it);
  if (binary && binary->module)
    (void)hipModuleUnload(binary->module);
  auto it = std::find_if(rt.fatBinaries.begin(), rt.fatBinaries.end(),
                         [&](auto &b) { return b.get() == binary; });
  if (it != rt.fatBinaries.end())
    rt.fatBinaries.erase(it);
}

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                      size_t sharedMem, hipStream_t stream) {
  callConfigurations.push_back({gridDim, blockDim, sharedMem, stream});
  return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                     size_t *sharedMem, hipStream_t *stream) {
  if (callConfigurations.empty()) {
    CREST_HIP_ENTER("__hipPopCallConfiguration");
    return fail(hipErrorMissingConfiguration, apiName,
                "no launch configuration was pushed");
  }
  CallConfiguration c = callConfigurations.back();
  callConfigurations.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.sharedMem;
  *stream = c.stream;
  return hipSuccess;
}

hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks,
                           dim3 dimBlocks, void **args, size_t sharedMemBytes,
                           hipStream_t stream) {
  CREST_HIP_ENTER("hipLaunchKernel");
  CREST_HIP_NEED_DEVICE();
  auto stub = rt.stubs.find(function_address);
  if (stub == rt.stubs.end())
    return fail(hipErrorInvalidDeviceFunction, apiName,
                "the function is not a kernel the program registered");
  FatBinary &binary = *stub->second.first;
  if (!binary.bundle)
    return fail(hipErrorInvalidDeviceFunction, apiName,
                "kernel '" + stub->second.second +
                    "' is in a fat binary that could not be registered");
  if (!binary.module)
    if (hipError_t e = hipModuleLoadData(&binary.module, binary.bundle))
      return fail(e, apiName,
                  "the program's device code cannot be loaded (see above)");
  hipFunction_t f = nullptr;
  if (hipError_t e = hipModuleGetFunction(&f, binary.module,
                                          stub->second.second.c_str()))
    return e;
  if (sharedMemBytes > 0xffffffffu)
    return fail(hipErrorInvalidValue, apiName,
                formatv("{0} bytes of dynamic LDS", sharedMemBytes));
  return launch(rt, apiName, f, {numBlocks.x, numBlocks.y, numBlocks.z},
                {dimBlocks.x, dimBlocks.y, dimBlocks.z},
                unsigned(sharedMemBytes), stream, args, nullptr);
}

} // extern "C"
