//===- Tuning.h - How a contraction's configuration was tuned ---*- C++ -*-===//
//
// `crest-select-config{tune}` measures the heuristic's best candidate
// configurations of a contraction under the emulator's timing model and
// keeps the fastest. It records what it measured on the contraction as
//
//   crest.tuning = {candidates = [#crest.config<...>, ...],
//                   microseconds = array<f64: ...>,
//                   cached = array<i1: ...>,
//                   chosen = 1 : i64}
//
// `candidates[0]` is the heuristic's choice; the others follow in the
// heuristic's order. `microseconds` is each candidate's modelled kernel
// time, `cached` whether it came from the tuning cache rather than a
// simulation, and `chosen` the index of the configuration the op got. The
// report (`crest-compile --report`) and the package's `modelled_us` read
// it back through TuningRecord.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_DIALECT_CREST_IR_TUNING_H
#define CREST_DIALECT_CREST_IR_TUNING_H

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace crest {

struct TuningRecord {
  struct Candidate {
    ConfigAttr config;
    double microseconds = 0;
    bool cached = false;
  };
  /// At least one; [0] is the heuristic's choice.
  llvm::SmallVector<Candidate> candidates;
  unsigned chosen = 0;

  const Candidate &getHeuristic() const { return candidates.front(); }
  const Candidate &getChosen() const { return candidates[chosen]; }
  /// The heuristic's time over the chosen one's (>= 1 when tuning helped).
  double getGain() const {
    return getHeuristic().microseconds / getChosen().microseconds;
  }

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  /// Reads a `crest.tuning` attribute; on a malformed one returns nullopt
  /// and sets `error` (if given) to what is wrong.
  static std::optional<TuningRecord> fromAttr(mlir::Attribute attr,
                                              std::string *error = nullptr);
};

/// The tuning record of the contraction `op` launches: `op` itself or the
/// contraction inside the `crest.kernel` `op`; nullopt when it was not
/// tuned.
std::optional<TuningRecord> getTuningRecord(mlir::Operation *op);

/// A short description of `config` for reports:
/// "v_mfma_f32_32x32x8_f16 128x128x32 waves 64x64 workgroup stages 2",
/// with " split_k N" when N > 1 and " rhs_vector V" when V > 1.
std::string describeConfig(ConfigAttr config);

} // namespace crest

#endif // CREST_DIALECT_CREST_IR_TUNING_H
