//===- Runtime.h - Running a .crest package ---------------------*- C++ -*-===//
//
// A Session runs one package on one Device:
//
//   Expected<std::unique_ptr<Session>> s = Session::create(device, package);
//   (*s)->bindInput("x", tensor);          // checked: name, dtype, shape
//   Expected<RunStats> stats = (*s)->run(); // the launches, in order
//   Expected<HostTensor> y = (*s)->getOutput("y");
//
// create() allocates every buffer once, uploads the weights once and loads
// every code object. Each run() first fills the output and intermediate
// buffers with the poison byte 0xFF (NaN in every float type, -1 in every
// integer type), so an element no kernel writes shows up as NaN.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_RUNTIME_RUNTIME_H
#define CREST_RUNTIME_RUNTIME_H

#include "crest/runtime/Device.h"
#include "crest/runtime/Package.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace crest::rt {

/// The byte the runtime fills outputs and intermediates with before a run.
constexpr uint8_t kPoisonByte = 0xFF;

/// A tensor in host memory, laid out as on the device (row-major, little-
/// endian, the package's element types).
struct HostTensor {
  pkg::TensorType type;
  std::vector<uint8_t> data;
};

/// Reads a tensor from an .npy file or an ONNX TensorProto (.pb) file,
/// detected by content (.npy magic) and, failing that, by extension.
/// `expected` resolves the types NumPy lacks: an npy uint16 array is read as
/// bf16 and a uint8 array as an fp8 type when that is what is expected.
llvm::Expected<HostTensor>
readTensorFile(llvm::StringRef path,
               std::optional<pkg::ElementType> expected = std::nullopt);
/// Writes `tensor` as .npy, or as an ONNX TensorProto if `path` ends in
/// ".pb" (with `name` as the tensor's name). In .npy, bf16 is stored as
/// uint16 and fp8 as uint8 (their bit patterns).
llvm::Error writeTensorFile(llvm::StringRef path, const HostTensor &tensor,
                            llvm::StringRef name = "");

/// The timing model's projection of a whole run: the launches back to
/// back, each costing its modelled time plus the chip's launch overhead.
struct ModelledTime {
  double kernelMicroseconds = 0;   ///< sum of the kernels' modelled time
  double overheadMicroseconds = 0; ///< sum of their launch overheads
  size_t launches = 0;
  double totalMicroseconds() const {
    return kernelMicroseconds + overheadMicroseconds;
  }
};

/// What one run measured.
struct RunStats {
  /// One entry per launch of the manifest, in order.
  std::vector<LaunchStats> launches;
  /// Wall time of the run (uploads of inputs not included).
  double seconds = 0;
  /// Why the launches carry no modelled time although the device was asked
  /// for it (Device::getTimingNote()), else empty.
  std::string timingNote;
  /// How the device ran the launches (Device::getLaunchNote()), else empty.
  std::string launchNote;

  /// The modelled time of the run; none unless every launch carries the
  /// timing model's projection (LaunchStats::getTiming).
  std::optional<ModelledTime> getModelledTime() const;
};

class Session {
public:
  ~Session();
  /// Prepares `package` (which the session copies) to run on `device`.
  static llvm::Expected<std::unique_ptr<Session>> create(Device &device,
                                                         pkg::Package package);

  const pkg::Package &getPackage() const { return package; }
  const pkg::Manifest &getManifest() const { return package.manifest; }
  Device &getDevice() { return device; }

  /// Binds graph input `name` (or the index-th input). The element type and
  /// shape must be those of the manifest; errors name the input and give
  /// the expected and the given type.
  llvm::Error bindInput(llvm::StringRef name, const HostTensor &tensor);
  llvm::Error bindInput(unsigned index, const HostTensor &tensor);
  /// Runs every launch in order. Fails if an input is unbound, if a launch
  /// fails, or (emulator) with a RaceError if a launch has LDS races.
  llvm::Expected<RunStats> run();
  /// The output `name` (or the index-th output) of the last run.
  llvm::Expected<HostTensor> getOutput(llvm::StringRef name);
  llvm::Expected<HostTensor> getOutput(unsigned index);
  /// Reads any device value (input, weight, intermediate, output) of the
  /// last run.
  llvm::Expected<HostTensor> readValue(uint32_t valueId);

private:
  Session(Device &device, pkg::Package package)
      : device(device), package(std::move(package)) {}
  llvm::Error init();

  Device &device;
  pkg::Package package;
  std::vector<DevicePtr> buffers;
  std::vector<KernelHandle> kernels;
  std::vector<bool> bound;
  bool haveRun = false;
};

/// Prints the manifest's summary: chip, inputs, outputs, buffers, kernels,
/// launches, reference graph (crest-run --describe).
void printManifestSummary(llvm::raw_ostream &os, const pkg::Manifest &m);
/// A precision plan as the manifest stores it (crest/Precision/
/// PrecisionPlan.h's toJson) as a table: per contraction its GEMM shape,
/// precision, reason code, amax and fp8 scale of each operand; then the
/// summary line. An error when `plan` is not such a plan.
llvm::Error printPrecisionPlan(llvm::raw_ostream &os,
                               const llvm::json::Value &plan);
/// A power-of-two scale as "2^e" (others as %g; "-" for 0).
std::string formatScale(double scale);

/// Prints one row per launch: the kernel's resources from the manifest's
/// KernelInfo (registers, LDS, occupancy, MFMA and barrier counts) and what
/// the run measured (crest-run --report). On the emulator that is the
/// modelled time and bound of each kernel (when the launches carry it), the
/// host wall time of the emulation and the emulator's counters; on a GPU
/// the HIP event time.
void printRunReport(llvm::raw_ostream &os, const pkg::Manifest &m,
                    const RunStats &stats);

/// Prints the timing model's projection of every launch (emu::printTiming
/// under the launch's kernel name; with `perPc` also its hotspot table) and
/// the model's total: the kernels' modelled time plus the launch overheads,
/// the number of launches and the overheads' share (crest-run --timing).
/// Launches without a projection are skipped; a run without modelled time
/// says so, with RunStats::timingNote.
void printRunTiming(llvm::raw_ostream &os, const pkg::Manifest &m,
                    const RunStats &stats, bool perPc = false);

/// Writes the run as one Chrome/Perfetto trace (JSON array format): process
/// "model" with, per launch, a "launch overhead" slice and then a slice
/// named after the kernel lasting its modelled time, back to back; and per
/// launch, a process with the kernel's modelled compute-unit timeline
/// (emu::appendTimelineEvents, when the launch kept it), offset to the
/// kernel's start (crest-run --trace).
void writeRunTrace(llvm::raw_ostream &os, const pkg::Manifest &m,
                   const RunStats &stats);

} // namespace crest::rt

#endif // CREST_RUNTIME_RUNTIME_H
