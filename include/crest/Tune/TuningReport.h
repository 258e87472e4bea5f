//===- TuningReport.h - What tuning chose, per kernel -----------*- C++ -*-===//
//
// Reads the `crest.tuning` records crest-select-config{tune} left on a
// compiled graph's contractions (crest/Dialect/Crest/IR/Tuning.h), keyed by
// the kernel that computes each, for `crest-compile --report` and for the
// package's `modelled_us`.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TUNE_TUNINGREPORT_H
#define CREST_TUNE_TUNINGREPORT_H

#include "crest/Dialect/Crest/IR/Tuning.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace crest {

/// One launched contraction of the host functions, in launch order.
struct TuningRow {
  std::string kernel; ///< the kernel's symbol name
  /// "matmul 256x256x256, f16 x f16 -> f16 (f32 accumulation)"
  std::string contraction;
  /// What tuning measured; nullopt when the contraction was not tuned (an
  /// explicit configuration, or the heuristic's could not be measured).
  std::optional<TuningRecord> record;
};

/// The rows of `module`'s launched contractions (ops with `crest.launch`).
llvm::SmallVector<TuningRow> collectTuningRows(mlir::ModuleOp module);

/// Prints, per tuned contraction, every measured candidate with its
/// modelled time, marking the heuristic's choice, the tuned one and those
/// taken from the cache, then a line with the heuristic's and the tuned
/// time and the gain; and a total line. See docs/Compiling.md ("Tuning").
void printTuningReport(llvm::raw_ostream &os, llvm::ArrayRef<TuningRow> rows);

} // namespace crest

#endif // CREST_TUNE_TUNINGREPORT_H
