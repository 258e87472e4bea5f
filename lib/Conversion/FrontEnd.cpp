//===- FrontEnd.cpp - The front-end conversions as one step ---------------===//
//
// See crest/Conversion/Passes.h.
//
//===----------------------------------------------------------------------===//

#include "crest/Conversion/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

bool crest::hasFrontEndOps(ModuleOp module) {
  // In the graphs only: a gpu.module's kernels are compiled as written.
  for (auto graph : module.getOps<FunctionOpInterface>()) {
    WalkResult result = graph->walk([](Operation *op) {
      StringRef dialect = op->getName().getDialectNamespace();
      return dialect == "tosa" || dialect == "linalg" || dialect == "tensor"
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

void crest::buildFrontEndConversionPipeline(OpPassManager &pm,
                                            StringRef precision) {
  CrestConvertTosaPassOptions tosa;
  tosa.precision = precision.str();
  pm.addPass(createCrestConvertTosaPass(tosa));
  CrestConvertLinalgPassOptions linalg;
  linalg.precision = precision.str();
  pm.addPass(createCrestConvertLinalgPass(linalg));
}
