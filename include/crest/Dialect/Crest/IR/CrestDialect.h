//===- CrestDialect.h - The crest dialect and its attributes ----*- C++ -*-===//

#ifndef CREST_DIALECT_CREST_IR_CRESTDIALECT_H
#define CREST_DIALECT_CREST_IR_CRESTDIALECT_H

#include "crest/Target/ChipTable.h"
#include "crest/Target/KernelResources.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"

#include "crest/Dialect/Crest/IR/CrestOpsDialect.h.inc"

#include "crest/Dialect/Crest/IR/CrestEnums.h.inc"

namespace crest {
namespace detail {
/// `[1, 2, 3]` in attribute parameters.
mlir::FailureOr<llvm::SmallVector<int64_t>>
parseIntArray(mlir::AsmParser &parser);
void printIntArray(mlir::AsmPrinter &printer, llvm::ArrayRef<int64_t> values);
} // namespace detail
} // namespace crest

#define GET_ATTRDEF_CLASSES
#include "crest/Dialect/Crest/IR/CrestAttrs.h.inc"

namespace crest {

/// Maps an MLIR element type onto the chip table's scalar kinds (`tf32` is
/// XF32); std::nullopt for a type no matrix instruction reads.
std::optional<ScalarKind> getScalarKind(mlir::Type type);

/// A float constant converted to the float type `to` element by element as
/// crest.cast converts (sem::castFloat: round to nearest even, fp8
/// saturating): weights converted at compile time equal the cast kernel's
/// results.
mlir::DenseElementsAttr castFloatElements(mlir::DenseElementsAttr attr,
                                          mlir::FloatType to);

/// The `#crest.target` of the closest enclosing operation that has one, or
/// null.
TargetAttr lookupTarget(mlir::Operation *op);

/// The `#crest.launch` of `op` (under CrestDialect::getLaunchAttrName()),
/// or null.
LaunchAttr getLaunch(mlir::Operation *op);
/// Records that `op` runs `kernel` (`@module::@kernel`) on `grid`
/// workgroups of `block` work-items, with the `workspace` and `semaphores`
/// buffers #crest.launch describes.
void setLaunch(mlir::Operation *op, mlir::SymbolRefAttr kernel,
               llvm::ArrayRef<int64_t> grid, llvm::ArrayRef<int64_t> block,
               llvm::ArrayRef<mlir::RankedTensorType> workspace = {},
               llvm::ArrayRef<mlir::RankedTensorType> semaphores = {});

namespace OpTrait {
/// Marks elementwise operations (with broadcasting).
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};
} // namespace OpTrait

} // namespace crest

#include "crest/Dialect/Crest/IR/CrestInterfaces.h.inc"

#endif // CREST_DIALECT_CREST_IR_CRESTDIALECT_H
