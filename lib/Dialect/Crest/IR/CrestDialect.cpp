//===- CrestDialect.cpp - The crest dialect
//---------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Semantics/Scalar.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Dialect/Crest/IR/Tuning.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace crest;

#include "crest/Dialect/Crest/IR/CrestOpsDialect.cpp.inc"

void CrestDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "crest/Dialect/Crest/IR/CrestOps.cpp.inc"
      >();
}

LogicalResult CrestDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTargetAttrName()
             << "' must be a #crest.target attribute, got " << attr.getValue();
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be attached to a builtin.module, not '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == getLaunchAttrName()) {
    if (!isa<LaunchAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getLaunchAttrName()
             << "' must be a #crest.launch attribute, got " << attr.getValue();
    if (!isa_and_nonnull<CrestDialect>(op->getDialect()))
      return op->emitError() << "'" << getLaunchAttrName()
                             << "' must be attached to a crest op, not '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == getTuningAttrName()) {
    if (!isa<ContractionOpInterface>(op))
      return op->emitError() << "'" << getTuningAttrName()
                             << "' must be attached to a contraction, not '"
                             << op->getName() << "'";
    std::string error;
    if (!TuningRecord::fromAttr(attr.getValue(), &error))
      return op->emitError()
             << "malformed '" << getTuningAttrName() << "': " << error;
    return success();
  }
  return op->emitError() << "unknown crest attribute '"
                         << attr.getName().getValue()
                         << "'; the dialect defines '" << getTargetAttrName()
                         << "', '" << getLaunchAttrName() << "' and '"
                         << getTuningAttrName() << "'";
}

std::optional<ScalarKind> crest::getScalarKind(Type type) {
  return TypeSwitch<Type, std::optional<ScalarKind>>(type)
      .Case<Float64Type>([](auto) { return ScalarKind::F64; })
      .Case<Float32Type>([](auto) { return ScalarKind::F32; })
      .Case<FloatTF32Type>([](auto) { return ScalarKind::XF32; })
      .Case<Float16Type>([](auto) { return ScalarKind::F16; })
      .Case<BFloat16Type>([](auto) { return ScalarKind::BF16; })
      .Case<Float8E4M3FNUZType>([](auto) { return ScalarKind::F8E4M3FNUZ; })
      .Case<Float8E5M2FNUZType>([](auto) { return ScalarKind::F8E5M2FNUZ; })
      .Case<Float8E4M3FNType>([](auto) { return ScalarKind::F8E4M3FN; })
      .Case<Float8E5M2Type>([](auto) { return ScalarKind::F8E5M2; })
      .Case<IntegerType>([](IntegerType t) -> std::optional<ScalarKind> {
        if (!t.isSignless())
          return std::nullopt;
        if (t.getWidth() == 8)
          return ScalarKind::I8;
        if (t.getWidth() == 32)
          return ScalarKind::I32;
        return std::nullopt;
      })
      .Default([](Type) { return std::nullopt; });
}

TargetAttr crest::lookupTarget(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto target =
            cur->getAttrOfType<TargetAttr>(CrestDialect::getTargetAttrName()))
      return target;
  return {};
}

/// Folded elementwise ops and casts (CrestOps.cpp) become arith.constant.
DenseElementsAttr crest::castFloatElements(DenseElementsAttr attr,
                                           FloatType to) {
  const llvm::fltSemantics &semantics = to.getFloatSemantics();
  return attr.mapValues(to, [&](const APFloat &v) {
    return sem::castFloat(v, semantics).bitcastToAPInt();
  });
}

Operation *CrestDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
