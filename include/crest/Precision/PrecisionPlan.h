//===- PrecisionPlan.h - Per-contraction precision plans --------*- C++ -*-===//
//
// The precision planner (docs/Precision.md): given a crest graph whose
// contractions read f32 operands (an ONNX model imported in f32, or a graph
// written so), it decides per contraction which element types its matrix
// instructions read -- the chip's fp8 flavour (FNUZ on gfx942, OCP on
// gfx950), f16 or f32 -- and rewrites the graph accordingly:
//
//   fp8:  a = cast<fp8>(x * s_x)      activations, in the producer's epilogue
//         w' = cast<fp8>(w * s_w)     weights, at compile time
//         y  = contraction(a, w') * (1 / (s_x s_w))   in its own epilogue
//   f16:  the operands converted to f16 (weights at compile time)
//   f32:  unchanged
//
// Scales are powers of two, so the scale multiplies and the dequantisation
// are exact: s is the largest power of two with amax * s <= fp8_max *
// 2^-margin. Weights take their amax from their values at compile time (per
// tensor, or per output channel); activations from calibration inputs
// evaluated on the host by the reference evaluator (crest/runtime/
// Reference.h) on the f32 graph. An activation without calibration data is
// never given a scale: its contraction stays at f16 with reason
// `uncalibrated`.
//
// Every decision carries a reason code from a fixed list (getReasonCodes);
// the plan is data (toJson, stored in the package's manifest) and prints as
// a table (printPlan).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_PRECISION_PRECISIONPLAN_H
#define CREST_PRECISION_PRECISIONPLAN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace crest {
struct ChipInfo;

/// What the user asked for.
struct PrecisionRequest {
  /// "fp8": every contraction the chip's fp8 can serve, on calibrated
  /// activations. "auto": fp8 for the contractions that keep the outputs'
  /// loss (relative L2 against the f32 graph) under `budget` on the
  /// calibration and holdout inputs, chosen greedily by matrix-core cycles
  /// saved per quantisation error; the others f16.
  std::string mode = "fp8";
  /// auto: the end-to-end loss budget (relative L2 of the outputs).
  double budget = 0.01;
  /// auto: input sets to confirm the plan on (as calibrationDir).
  std::string holdoutDir;
  /// The calibration inputs: a directory of input sets (subdirectories,
  /// each holding one .npy or .pb file per graph input, named after the
  /// input or input_<i>), or one set itself. Empty: no calibration data.
  std::string calibrationDir;
  /// Activations: amax * s <= fp8_max * 2^-margin.
  double marginBits = 1;
  /// Weights get one scale per output channel instead of one per tensor.
  bool perChannelWeights = false;
  /// A plan (toJson's form, e.g. one an earlier compile wrote) whose ops
  /// with a "pin" (fp8, f16 or f32) keep that precision, by name; empty:
  /// none.
  std::string planPath;
};

/// The fixed list of reason codes, with what each means (docs/Precision.md
/// documents the same list; test/Precision/reason-codes.test compares).
llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> getReasonCodes();

/// One operand of a planned contraction.
struct OperandPlan {
  bool isWeight = false;
  /// Largest magnitude (weights: of the values; activations: over the
  /// calibration inputs); nullopt when unknown (uncalibrated).
  std::optional<double> amax;
  /// The fp8 scale (per tensor), 0 when the operand is not quantised.
  double scale = 0;
  /// Per output channel weights: the smallest and largest channel scale.
  double minChannelScale = 0, maxChannelScale = 0;
  /// Fraction of the calibration elements (weights: of the values) that
  /// saturate at the fp8 maximum after scaling.
  double clipped = 0;
  /// Fraction of the nonzero elements that become zero in fp8.
  double flushed = 0;
  /// ||q(x s) / s - x|| / ||x||: the operand's relative fp8 rounding error.
  double error = 0;
};

/// The decision for one contraction.
struct OpPlan {
  std::string name; ///< the ONNX node, else the op's location
  std::string op;   ///< matmul, batch_matmul, conv2d
  llvm::SmallVector<int64_t, 4> gemm; ///< batch, M, N, K
  std::string precision;              ///< fp8, f16, f32
  std::string operandType;            ///< f8E4M3FNUZ, f16, f32, ...
  std::string reason;
  OperandPlan lhs, rhs;
  /// The contraction's result in the planned graph (dequantised) against
  /// the f32 graph's, over the calibration inputs (reference evaluator,
  /// exact rounding): SQNR in dB, cosine similarity, max |d| / max |ref|.
  std::optional<double> sqnr, cosine, maxRelError;
  /// auto: the outputs' loss (relative L2 against f32, first calibration
  /// set) with this contraction alone in fp8, the others at their
  /// fallback; the ranking divides the cycles fp8 saves by it.
  std::optional<double> fp8AloneLoss;
  /// Matrix-instruction cycles (chip table throughput, one matrix core)
  /// per candidate precision: fp8 (0 when the chip has none), f16, f32.
  double fp8Cycles = 0, f16Cycles = 0, f32Cycles = 0;
};

/// How planned outputs compare with the f32 graph's.
struct OutputError {
  double relL2 = 0;    ///< ||y - y32|| / ||y32||
  double cosine = 1;
  double maxRel = 0;   ///< max |y - y32| / max |y32|
};

struct PrecisionPlan {
  std::string chip, mode;
  std::string fp8Type; ///< the chip's E4M3 type name; empty without fp8
  double fp8Max = 0;
  double marginBits = 0;
  bool perChannelWeights = false;
  unsigned calibrationSets = 0;
  std::vector<OpPlan> ops;
  /// The graph outputs against the f32 graph's on the calibration inputs.
  std::optional<OutputError> outputs;
  /// auto: the budget, the holdout sets and the outputs' error on them.
  double budget = 0;
  unsigned holdoutSets = 0;
  std::optional<OutputError> holdout;
  /// auto: no plan, not even the all-f16 baseline, met the budget (the
  /// baseline is emitted; crest-compile warns and exits with status 3).
  bool budgetMissed = false;
  /// Matrix-instruction cycles of the contractions (chip table
  /// throughput, one SIMD) in this plan and with every contraction f16.
  double matrixCycles = 0, f16MatrixCycles = 0;

  llvm::json::Value toJson() const;
  /// "2/3 contractions fp8, 1 f16, 0 f32"
  std::string summary() const;
};

/// Prints the plan as the table crest-compile --report and crest-run
/// --describe print (crest::rt::printPrecisionPlan).
void printPlan(llvm::raw_ostream &os, const PrecisionPlan &plan);

/// Plans and rewrites `module`'s contractions for `chip`. Errors are
/// diagnostics on the module's context (at the first contraction for a chip
/// without fp8, naming the chips that have it).
mlir::FailureOr<PrecisionPlan> planPrecision(mlir::ModuleOp module,
                                             const ChipInfo &chip,
                                             const PrecisionRequest &request);

} // namespace crest

#endif // CREST_PRECISION_PRECISIONPLAN_H
