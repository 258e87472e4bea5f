//===- ElementwiseEmitter.h - Crest elementwise ops on scalars/vectors ----===//
//
// Emits the arith/math computation of one crest elementwise operation on
// scalars or 1-D vectors (one lane per tensor element). The one emitter of
// elementwise semantics on the device: standalone kernels
// (crest-lower-ops-to-gpu) and the fused epilogues of contractions
// (crest-lower-to-gpu) both call it, and it implements the rules of the
// scalar core (crest/Semantics/Scalar.h) that the reference evaluator and
// the folders evaluate.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_CODEGEN_ELEMENTWISEEMITTER_H
#define CREST_LIB_CODEGEN_ELEMENTWISEEMITTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace crest::codegen {

/// `elt` itself, or a vector of `elt` with the shape of `like` when `like`
/// is a vector.
mlir::Type withElementType(mlir::Type like, mlir::Type elt);

/// `type` (a scalar or vector element type) with an unsigned integer
/// element made signless: arith works on signless integers only, so kernels
/// hold unsigned data as signless values of the same width and take the
/// signedness from the crest op's types (unsigned compare, extension and
/// conversion).
mlir::Type signless(mlir::Type type);

/// A float (or integer) constant `value` of scalar or vector type `type`
/// (an unsigned element type gives a signless constant).
mlir::Value constant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                     double value);

/// Converts `v` element by element to `to` with crest.cast's semantics:
/// float to float rounds to nearest even (to fp8: saturating, infinities
/// included), float to integer truncates toward zero and saturates (NaN
/// gives 0), integer to float rounds to nearest even, integer narrowing
/// saturates. `v` is signless; `fromUnsigned` says whether its integers
/// are unsigned, and `to` may be an unsigned type (the result is its
/// signless form; integer conversions saturate to the target's range).
mlir::Value convertElements(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value v, mlir::Type to,
                            bool fromUnsigned = false);

/// Emits elementwise `op` on `operands` (scalars or equal-shaped vectors of
/// the operands' element types, unsigned ones as signless); the result has
/// element type `resultElt` (signless for an unsigned `resultElt`).
/// Narrow floats (f16, bf16) are computed in f32 and rounded once. Emits an
/// error at `op` when it is not an elementwise op this emitter knows.
mlir::FailureOr<mlir::Value> emitElementwise(mlir::OpBuilder &b,
                                             mlir::Operation *op,
                                             llvm::ArrayRef<mlir::Value> operands,
                                             mlir::Type resultElt);

} // namespace crest::codegen

#endif // CREST_LIB_CODEGEN_ELEMENTWISEEMITTER_H
