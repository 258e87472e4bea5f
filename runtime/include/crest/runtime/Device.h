//===- Device.h - Where a package's kernels run -----------------*- C++ -*-===//
//
// One interface over the two places Crest runs kernels:
//
//   - `emu`: the built-in AMDGPU emulator (CrestEmu), with its LDS race
//     detector on by default. A launch in which the detector finds a race
//     fails with a RaceError listing them.
//   - `hip`: the HIP runtime, loaded with dlopen (libamdhip64.so), so that
//     nothing links against ROCm and the tools run on machines without it.
//
// `createDevice(DeviceKind::Auto, ...)` picks hip when a GPU of the package's
// chip is present and usable, else emu, and says which and why.
//
// Device memory is addressed by 64-bit device addresses (DevicePtr); kernel
// arguments are the explicit arguments only, one 8-byte pointer each (what
// Crest's kernels take: bare pointers, docs/Compiling.md).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_DEVICE_H
#define CREST_RUNTIME_DEVICE_H

#include "crest/emu/Emulator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace crest::rt {

using DevicePtr = uint64_t;

enum class DeviceKind { Auto, Hip, Emu };
/// "auto", "hip" or "emu".
llvm::StringRef getDeviceKindName(DeviceKind kind);
std::optional<DeviceKind> parseDeviceKind(llvm::StringRef name);

/// What one launch measured.
struct LaunchStats {
  /// Host wall time of the emulated dispatch (not the GPU's time: see
  /// getTiming()), or the HIP event time of the kernel on the GPU.
  double seconds = 0;
  /// Emulator counters (emu only). `counters->timing` holds the timing
  /// model's projection when the device was asked for it.
  std::optional<emu::LaunchResult> counters;

  /// The timing model's projection of the launch on the chip (emu with
  /// EmuOptions::timing, on a chip the model has parameters for), else null.
  const emu::KernelTiming *getTiming() const {
    return counters ? counters->timing.get() : nullptr;
  }
};

/// The error a launch returns when the emulator's race detector found LDS
/// races. Tools map it to exit code 2.
class RaceError : public llvm::ErrorInfo<RaceError> {
public:
  static char ID;
  RaceError(std::string kernel, emu::LaunchResult result)
      : kernel(std::move(kernel)), result(std::move(result)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &getKernel() const { return kernel; }
  const emu::LaunchResult &getResult() const { return result; }

private:
  std::string kernel;
  emu::LaunchResult result;
};

/// Options of the emulator device.
struct EmuOptions {
  bool detectRaces = true;
  /// Instructions a wave runs before the scheduler moves on (1 interleaves
  /// most finely).
  uint32_t quantum = 64;
  /// Random wave order and quanta from this seed (none: round-robin).
  std::optional<uint64_t> seed;
  /// Host threads that run a launch's workgroups (emu::LaunchConfig::threads:
  /// the results do not depend on it).
  unsigned threads = emu::getHostThreads();
  /// With options, every launch also runs the timing model
  /// (LaunchStats::getTiming, docs/Timing.md). On a chip the model has no
  /// parameters for, launches run without it and Device::getTimingNote()
  /// says so; that is not an error.
  std::optional<emu::TimingOptions> timing;
  /// Limits (docs/Reliability.md): wave instructions per dispatch and per
  /// wave, host seconds per dispatch (0: none), device memory in bytes.
  uint64_t maxInstructions = emu::LaunchConfig::kDefaultMaxInstructions;
  uint64_t maxWaveInstructions =
      emu::LaunchConfig::kDefaultMaxWaveInstructions;
  double timeoutSeconds = 0;
  uint64_t memoryLimit = emu::Memory::getDefaultLimit();
};

/// Options of the HIP device.
struct HipOptions {
  /// The library to dlopen. Empty: $CREST_HIP_LIBRARY if set, else
  /// "libamdhip64.so", then "libamdhip64.so.6", then "libamdhip64.so.5".
  std::string libraryPath;
  int deviceIndex = 0;
  /// Run a session's launches as a HIP graph (docs/Hip.md, "Graphs"): the
  /// first run captures them (hipStreamBeginCapture .. hipStreamEndCapture,
  /// hipGraphInstantiate), every run replays the graph (hipGraphLaunch) while
  /// the launches are the same. Off (crest-run --no-hip-graph) or without
  /// the library's graph entry points, each launch is its own
  /// hipModuleLaunchKernel.
  bool useGraphs = true;
};

/// A loaded code object and a kernel in it, as the device names them.
using ModuleHandle = uint32_t;
using KernelHandle = uint32_t;

/// One launch of a sequence (Device::launchSequence).
struct LaunchRequest {
  KernelHandle kernel;
  std::array<uint32_t, 3> grid, block;
  std::vector<DevicePtr> args;
  bool operator==(const LaunchRequest &o) const {
    return kernel == o.kernel && grid == o.grid && block == o.block &&
           args == o.args;
  }
};

class Device {
public:
  virtual ~Device();

  /// "emu" or "hip".
  virtual DeviceKind getKind() const = 0;
  /// One line: "emulator (gfx942, races checked, quantum 64)",
  /// "HIP 5.2: device 0 gfx90a (AMD Instinct MI210)".
  virtual std::string describe() const = 0;
  /// The chip kernels run as ("gfx942").
  virtual llvm::StringRef getChip() const = 0;
  /// Whether launches carry the timing model's projection
  /// (LaunchStats::getTiming).
  virtual bool isTimed() const { return false; }
  /// Why they do not although it was asked for (EmuOptions::timing on a chip
  /// without timing parameters): one sentence, else empty.
  virtual std::string getTimingNote() const { return {}; }
  /// Runs the timing model on later launches with `options`, or (none) no
  /// longer. Only the emulator has it: other devices fail when asked for it.
  virtual llvm::Error setTiming(std::optional<emu::TimingOptions> options);

  virtual llvm::Expected<DevicePtr> allocate(uint64_t bytes,
                                             llvm::StringRef name) = 0;
  virtual void release(DevicePtr address) = 0;
  virtual llvm::Error copyToDevice(DevicePtr dst,
                                   llvm::ArrayRef<uint8_t> src) = 0;
  virtual llvm::Error copyFromDevice(llvm::MutableArrayRef<uint8_t> dst,
                                     DevicePtr src) = 0;
  /// Sets `bytes` bytes at `dst` to `value`.
  virtual llvm::Error fill(DevicePtr dst, uint64_t bytes, uint8_t value);

  /// Loads an HSA code object (ELF bytes); `name` appears in messages.
  virtual llvm::Expected<ModuleHandle>
  loadCodeObject(llvm::ArrayRef<uint8_t> elf, llvm::StringRef name) = 0;
  virtual llvm::Expected<KernelHandle> getKernel(ModuleHandle module,
                                                 llvm::StringRef name) = 0;
  /// Runs `kernel` over `grid` workgroups of `block` work-items with one
  /// 8-byte pointer argument per entry of `args`, waits for it and returns
  /// its time (and the emulator's counters).
  virtual llvm::Expected<LaunchStats>
  launch(KernelHandle kernel, std::array<uint32_t, 3> grid,
         std::array<uint32_t, 3> block, llvm::ArrayRef<DevicePtr> args) = 0;
  /// Runs `launches` in order and waits for them; one LaunchStats per
  /// launch. On failure, `failed` is the index of the launch that failed, or
  /// launches.size() when the failure is not one launch's (a HIP graph
  /// launch). The default launches each in turn; the HIP device replays
  /// them as a HIP graph (HipOptions::useGraphs).
  virtual llvm::Expected<std::vector<LaunchStats>>
  launchSequence(llvm::ArrayRef<LaunchRequest> launches, size_t &failed);
  /// How launchSequence ran the last sequence, one sentence for reports
  /// ("replayed a HIP graph of 16 kernels"), or empty.
  virtual std::string getLaunchNote() const { return {}; }
  /// Waits for all work on the device.
  virtual llvm::Error synchronize() = 0;
};

/// The emulator as a device for code objects of `chip`. Fails if the
/// emulator does not know the chip.
llvm::Expected<std::unique_ptr<Device>>
createEmuDevice(llvm::StringRef chip, const EmuOptions &options = {});

/// The HIP device `options.deviceIndex`. Fails with a message saying what
/// is missing: the library, a device, or support for `chip` or
/// `codeObjectVersion` in the installed runtime (empty chip / 0: no check).
llvm::Expected<std::unique_ptr<Device>>
createHipDevice(llvm::StringRef chip, unsigned codeObjectVersion,
                const HipOptions &options = {});

/// Picks the device for a package of `chip` and code object version
/// `codeObjectVersion`. With Auto: hip when it can run the package, else
/// emu; `why` (if given) receives one line saying which device was chosen
/// and why ("auto: emu (HIP: no AMD GPU found: hipErrorNoDevice)").
llvm::Expected<std::unique_ptr<Device>>
createDevice(DeviceKind kind, llvm::StringRef chip, unsigned codeObjectVersion,
             const EmuOptions &emuOptions = {},
             const HipOptions &hipOptions = {}, std::string *why = nullptr);

} // namespace crest::rt

#endif // CREST_RUNTIME_DEVICE_H
