//===- Launch.cpp - #crest.launch -----------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <limits>

using namespace mlir;
using namespace crest;

static LogicalResult verifyDim3(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, ArrayRef<int64_t> sizes) {
  if (sizes.size() != 3)
    return emitError() << "#crest.launch '" << name
                       << "' must have 3 sizes [x, y, z], got "
                       << sizes.size();
  for (auto [i, size] : llvm::enumerate(sizes))
    if (size < 1 || size > std::numeric_limits<int32_t>::max())
      return emitError() << "#crest.launch '" << name << "' size "
                         << "xyz"[i] << " must be in [1, 2^31), got " << size;
  return success();
}

/// Every element of `types` (if present) a static tensor type, of i32 for
/// semaphores.
static LogicalResult verifyBuffers(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef name, ArrayAttr types,
                                   bool i32Only) {
  if (!types)
    return success();
  for (auto [i, element] : llvm::enumerate(types)) {
    auto typeAttr = dyn_cast<TypeAttr>(element);
    auto tensor =
        typeAttr ? dyn_cast<RankedTensorType>(typeAttr.getValue()) : nullptr;
    if (!tensor || !tensor.hasStaticShape() || tensor.getNumElements() == 0 ||
        (i32Only && !tensor.getElementType().isSignlessInteger(32)))
      return emitError() << "#crest.launch '" << name << "' #" << i
                         << " must be a non-empty static tensor type"
                         << (i32Only ? " of i32" : "") << ", got " << element;
  }
  return success();
}

static SmallVector<RankedTensorType> getTensorTypes(ArrayAttr types) {
  SmallVector<RankedTensorType> result;
  if (types)
    for (Attribute element : types)
      result.push_back(
          cast<RankedTensorType>(cast<TypeAttr>(element).getValue()));
  return result;
}

SmallVector<RankedTensorType> LaunchAttr::getWorkspaceTypes() const {
  return getTensorTypes(getWorkspace());
}

SmallVector<RankedTensorType> LaunchAttr::getSemaphoreTypes() const {
  return getTensorTypes(getSemaphores());
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 SymbolRefAttr kernel, ArrayRef<int64_t> grid,
                                 ArrayRef<int64_t> block, ArrayAttr workspace,
                                 ArrayAttr semaphores) {
  if (!kernel || kernel.getNestedReferences().size() != 1)
    return emitError() << "#crest.launch 'kernel' must name a kernel in a "
                          "gpu.module, @module::@kernel, got "
                       << kernel;
  if (failed(verifyDim3(emitError, "grid", grid)) ||
      failed(verifyDim3(emitError, "block", block)) ||
      failed(verifyBuffers(emitError, "workspace", workspace, false)) ||
      failed(verifyBuffers(emitError, "semaphores", semaphores, true)))
    return failure();
  return success();
}

LaunchAttr crest::getLaunch(Operation *op) {
  return op->getAttrOfType<LaunchAttr>(CrestDialect::getLaunchAttrName());
}

void crest::setLaunch(Operation *op, SymbolRefAttr kernel,
                      ArrayRef<int64_t> grid, ArrayRef<int64_t> block,
                      ArrayRef<RankedTensorType> workspace,
                      ArrayRef<RankedTensorType> semaphores) {
  MLIRContext *ctx = op->getContext();
  auto toArray = [&](ArrayRef<RankedTensorType> types) -> ArrayAttr {
    if (types.empty())
      return nullptr;
    SmallVector<Attribute> elements;
    for (RankedTensorType type : types)
      elements.push_back(TypeAttr::get(type));
    return ArrayAttr::get(ctx, elements);
  };
  op->setAttr(CrestDialect::getLaunchAttrName(),
              LaunchAttr::get(ctx, kernel, grid, block, toArray(workspace),
                              toArray(semaphores)));
}
