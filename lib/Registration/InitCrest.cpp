//===- InitCrest.cpp - Register Crest's dialects and passes
//------------------===//

#include "crest/InitCrest.h"

#include "crest/Codegen/Passes.h"
#include "crest/Codegen/Transforms/Passes.h"
#include "crest/Conversion/Passes.h"
#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/Transforms/Passes.h"
#include "crest/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void crest::registerCrestDialects(mlir::DialectRegistry &registry) {
  registry.insert<crest::CrestDialect>();
}

void crest::registerAllCrestDialects(mlir::DialectRegistry &registry) {
  registerCrestDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
}

void crest::registerCrestPasses() {
  crest::registerCrestTransformsPasses();
  crest::registerCrestConversionPasses();
  crest::registerCrestCodegenPasses();
  crest::registerCrestCodegenTransformsPasses();
  crest::registerCrestPipelines();
}
