//===- EmulatorMeasurer.h - Tuning against the timing model -----*- C++ -*-===//
//
// The ConfigMeasurer crest-compile --tune hands to crest-select-config. To
// measure a contraction with a configuration it
//
//   1. copies the contraction (or its crest.kernel, with the epilogue) into
//      a module of its own with the configuration pinned, printed and
//      parsed into the measurer's own MLIRContext;
//   2. compiles it as crest-compile would: crest-codegen-pipeline
//      (buildCrestCodegenPipeline), serializeGpuModule with linking;
//   3. loads the code object into the emulator (crest::emu), gives every
//      kernel argument a buffer of small non-zero values and launches it
//      with the timing model, executing only the workgroups the model
//      replays (TimingOptions::sampleOnly);
//   4. returns KernelTiming::microseconds, and keeps it in the TuneCache.
//
// Linking runs the in-process lld, which resets every LLVM command-line
// option to its default (MLIR's printing options and LLVM's backend options
// included). A driver copies its own options before the pass pipeline runs
// and sets `restoreCommandLine` to parse its command line again after each
// link (crest-compile does), so that what follows sees the user's options.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TUNE_EMULATORMEASURER_H
#define CREST_TUNE_EMULATORMEASURER_H

#include "crest/Codegen/Transforms/ConfigMeasurer.h"
#include "crest/Tune/TuneCache.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace crest {

struct EmulatorMeasurerOptions {
  /// How the measured kernels are compiled; should match the build's.
  unsigned codeObjectVersion = 5;
  unsigned indexBitwidth = 64;
  unsigned optLevel = 3;
  /// The cache file; empty: a cache of this run only.
  std::string cachePath;
  /// Called after each measured kernel is linked (see the file comment).
  std::function<void()> restoreCommandLine;
};

class EmulatorMeasurer : public ConfigMeasurer {
public:
  explicit EmulatorMeasurer(EmulatorMeasurerOptions options);
  ~EmulatorMeasurer() override;

  /// Reads the cache file; returns a warning when it is ignored.
  std::optional<std::string> loadCache() { return cache.load(); }
  /// Writes the cache file when something was measured.
  llvm::Error saveCache() { return cache.save(); }
  llvm::StringRef getCachePath() const { return cache.getPath(); }

  llvm::Error checkTarget(TargetAttr target) override;
  llvm::Expected<ConfigMeasurement> measure(ContractionOpInterface op,
                                            ConfigAttr config) override;

  /// Measurements simulated and taken from the cache so far, and the host
  /// time spent compiling and simulating.
  unsigned getNumSimulated() const { return simulated; }
  unsigned getNumCached() const { return cached; }
  double getSeconds() const { return seconds; }

  /// The cache key of `op`'s kernel: the ops it fuses, its operand and
  /// result types and the contraction's attributes but its configuration,
  /// e.g. "matmul+add (tensor<8x256xf16>, ...) -> (tensor<8x128xf32>)
  /// {precision = ...}".
  static std::string describeProblem(ContractionOpInterface op);

private:
  llvm::Expected<double> simulate(llvm::StringRef moduleText,
                                  TargetAttr target);

  EmulatorMeasurerOptions options;
  TuneCache cache;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned simulated = 0, cached = 0;
  double seconds = 0;
};

} // namespace crest

#endif // CREST_TUNE_EMULATORMEASURER_H
