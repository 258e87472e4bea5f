//===- GraphBuilder.h - What the front-end conversions share ----*- C++ -*-===//
//
// Builders and checks used by both crest-convert-tosa and
// crest-convert-linalg: constant-folding casts, reshapes and transposes,
// contractions with the requested precision, the NHWC <-> NCHW permutations,
// the patterns that move transposes through elementwise ops, and the report
// of the ops left unconverted.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_CONVERSION_GRAPHBUILDER_H
#define CREST_LIB_CONVERSION_GRAPHBUILDER_H

#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace crest::conversion {

/// Why a pattern could not convert an op, kept for the error that reports
/// the op if no other pattern converts it.
class FailureReasons {
public:
  /// Records `reason` for `op` and returns failure (for a pattern's
  /// `return reasons.fail(rewriter, op, "...")`).
  mlir::LogicalResult fail(mlir::PatternRewriter &rewriter,
                           mlir::Operation *op, const llvm::Twine &reason);
  /// The reason recorded for `op`, or "".
  llvm::StringRef lookup(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Operation *, std::string> reasons;
};

/// The options the patterns share.
struct ConversionContext {
  /// The input type of every contraction, or null to keep the graph's.
  mlir::Type matrixType;
  FailureReasons reasons;
};

/// Parses a pass's `precision` option: "" (null type), f32, f16 or bf16.
mlir::FailureOr<mlir::Type> parseMatrixType(mlir::MLIRContext *context,
                                            llvm::StringRef precision);

mlir::RankedTensorType tensorType(mlir::Value value);

/// `value` converted to `element`: a float constant is converted now (round
/// to nearest even), anything else with crest.cast.
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                   mlir::Type element);
/// crest.reshape, folded for constants, same shapes and reshapes.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value value, llvm::ArrayRef<int64_t> shape);
/// crest.transpose (result dimension i is input dimension perm[i]), folded
/// for constants and the identity.
mlir::Value transpose(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value value, llvm::ArrayRef<int64_t> perm);
/// A constant of `shape` filled with `value` (a float or integer element).
mlir::Value splat(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                  double value, llvm::ArrayRef<int64_t> shape = {});

/// Whether `value` is a constant whose every element equals `expected`.
bool isConstantSplat(mlir::Value value, double expected);
/// The scalar a constant splat `value` holds, if it is one.
std::optional<double> getConstantSplat(mlir::Value value);

/// The permutations between NHWC and NCHW.
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};
inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};

/// A contraction's operand in `ctx.matrixType` (or its own type).
mlir::Value contractionOperand(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value value,
                               const ConversionContext &ctx);
/// The precision of a contraction of `lhs` and `rhs` (already converted by
/// contractionOperand): floats accumulate in f32 and produce f32; integers
/// accumulate in and produce i32.
PrecisionAttr contractionPrecision(mlir::Value lhs, mlir::Value rhs);

/// NumPy's broadcast of two shapes (which must broadcast).
llvm::SmallVector<int64_t> broadcastShape(llvm::ArrayRef<int64_t> a,
                                          llvm::ArrayRef<int64_t> b);

/// `lhs op rhs` for a crest binary op, with the NumPy broadcast result shape.
template <typename OpTy>
mlir::Value binary(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                   mlir::Value rhs);

/// Pads `value` with `fill` by `low[d]` and `high[d]` elements in each
/// dimension (non-negative), as concatenations with constants.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, llvm::ArrayRef<int64_t> low,
                        llvm::ArrayRef<int64_t> high, mlir::Attribute fill);

/// Converts a constant's attribute to a DenseElementsAttr (reading a
/// dense_resource blob), or null.
mlir::DenseElementsAttr toDenseElements(mlir::Attribute attr);

/// The crest patterns both conversions finish with: a crest.transpose moves
/// below the elementwise op that reads it (when every other operand is a
/// constant or read through the same permutation), so that the layout
/// conversions around convolutions meet and cancel (transposes of
/// transposes and reshapes of reshapes compose); a transpose that only
/// moves unit dimensions becomes a reshape; a softmax written out (max,
/// subtract, exp, sum, divide) becomes crest.softmax; a broadcast written
/// as a multiply by ones that the reading elementwise op broadcasts anyway
/// is skipped; a dense_resource constant becomes dense elements.
void populateGraphPatterns(mlir::RewritePatternSet &patterns);

/// What each conversion pass does: parses its `precision` option, applies
/// `populate`'s patterns and the graph patterns to the graphs of `module` (its
/// top-level functions, never the kernels of a gpu.module), and reports
/// every op of `dialects` left (reportUnconverted). Errors name `pass`.
mlir::LogicalResult runGraphConversion(
    mlir::ModuleOp module, llvm::StringRef pass, llvm::StringRef precision,
    llvm::function_ref<void(mlir::RewritePatternSet &, ConversionContext &)>
        populate,
    llvm::ArrayRef<llvm::StringRef> dialects, llvm::StringRef what);

/// Emits an error for every op of `dialects` still in `module`'s graphs: the
/// reason a pattern recorded, else that `what` does not support it. Failure
/// if any.
mlir::LogicalResult
reportUnconverted(mlir::ModuleOp module,
                  llvm::ArrayRef<llvm::StringRef> dialects,
                  const FailureReasons &reasons, llvm::StringRef what);

} // namespace crest::conversion

#endif // CREST_LIB_CONVERSION_GRAPHBUILDER_H
