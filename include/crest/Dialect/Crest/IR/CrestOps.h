//===- CrestOps.h - Operations of the crest dialect -------------*- C++ -*-===//

#ifndef CREST_DIALECT_CREST_IR_CRESTOPS_H
#define CREST_DIALECT_CREST_IR_CRESTOPS_H

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>
#include <string>

#define GET_OP_CLASSES
#include "crest/Dialect/Crest/IR/CrestOps.h.inc"

namespace crest {
/// Whether a kernel can read an operand through `chain` (reshapes, slices
/// and transposes in program order, the first reading the source) with
/// vector loads along the operand's innermost dimension: every row of the
/// operand must be a contiguous run of a row of the source. Returns why
/// not, or nothing. The verifier of attention kernels, the fusion pass and
/// the attention lowering share it.
std::optional<std::string>
checkContiguousView(llvm::ArrayRef<mlir::Operation *> chain);

/// Whether `op` is a row op: a layer norm, softmax, reduce_* or
/// global_avg_pool2d, which one wave per row computes and a crest.kernel
/// may hold with a prologue and an epilogue of elementwise ops (the fusion
/// pass forms them, crest-lower-ops-to-gpu generates them).
bool isRowOp(mlir::Operation *op);

/// The elements of one row of row op `op` (isRowOp): the product of the
/// dimensions it normalizes or reduces.
int64_t getRowLength(mlir::Operation *op);
} // namespace crest

#endif // CREST_DIALECT_CREST_IR_CRESTOPS_H
