//===- Launch.cpp - #crest.launch -----------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"

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

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 SymbolRefAttr kernel, ArrayRef<int64_t> grid,
                                 ArrayRef<int64_t> block) {
  if (!kernel || kernel.getNestedReferences().size() != 1)
    return emitError() << "#crest.launch 'kernel' must name a kernel in a "
                          "gpu.module, @module::@kernel, got "
                       << kernel;
  if (failed(verifyDim3(emitError, "grid", grid)) ||
      failed(verifyDim3(emitError, "block", block)))
    return failure();
  return success();
}

LaunchAttr crest::getLaunch(Operation *op) {
  return op->getAttrOfType<LaunchAttr>(CrestDialect::getLaunchAttrName());
}

void crest::setLaunch(Operation *op, SymbolRefAttr kernel,
                      ArrayRef<int64_t> grid, ArrayRef<int64_t> block) {
  op->setAttr(CrestDialect::getLaunchAttrName(),
              LaunchAttr::get(op->getContext(), kernel, grid, block));
}
