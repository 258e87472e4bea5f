//===- ConfigMeasurer.h - Measuring configurations for tuning ---*- C++ -*-===//
//
// `crest-select-config{tune}` asks a ConfigMeasurer how long a contraction's
// kernel takes with a candidate configuration. The dialect libraries know
// nothing of how: crest-compile hands the pass the emulator's timing model
// (crest::EmulatorMeasurer, lib/Tune), which compiles the kernel alone and
// replays it; tests may hand it anything else.
//
//   auto measurer = std::make_shared<MyMeasurer>();
//   pm.addPass(createCrestSelectConfigPass(options, measurer));
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CODEGEN_TRANSFORMS_CONFIGMEASURER_H
#define CREST_CODEGEN_TRANSFORMS_CONFIGMEASURER_H

#include "crest/Codegen/Transforms/Passes.h"
#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace crest {

/// One measured configuration.
struct ConfigMeasurement {
  /// The kernel's modelled time, without launch overhead.
  double microseconds = 0;
  /// Taken from a cache (of this run or an earlier one) instead of
  /// simulated now.
  bool cached = false;
};

class ConfigMeasurer {
public:
  virtual ~ConfigMeasurer();

  /// Succeeds when configurations can be measured for `target`; otherwise
  /// the error says why not ("gfx908 has no timing model ...").
  virtual llvm::Error checkTarget(TargetAttr target) = 0;

  /// The modelled time of the kernel that computes `op` (with the
  /// epilogue of its enclosing crest.kernel, if any) when `op` has
  /// configuration `config`. `op` is not modified.
  virtual llvm::Expected<ConfigMeasurement> measure(ContractionOpInterface op,
                                                    ConfigAttr config) = 0;
};

/// crest-select-config with `options`; with `tune` set it measures
/// candidates with `measurer` (null: the pass warns and keeps the
/// heuristic's choices).
std::unique_ptr<mlir::Pass>
createCrestSelectConfigPass(const CrestSelectConfigPassOptions &options,
                            std::shared_ptr<ConfigMeasurer> measurer);

} // namespace crest

#endif // CREST_CODEGEN_TRANSFORMS_CONFIGMEASURER_H
