//===- CodegenHook.cpp - Where kernel code generation plugs in ------------===//
//
// addCrestCodegenPasses is the single place that decides which passes turn
// a crest graph into gpu.module kernels before crest-gpu-to-rocdl runs;
// crest-compile and every other driver pick it up without changes.
//
//===----------------------------------------------------------------------===//

#include "crest/Pipelines/Pipelines.h"

#include "crest/Codegen/Passes.h"
#include "crest/Dialect/Crest/Transforms/ConfigMeasurer.h"
#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

void crest::addCrestCodegenPasses(OpPassManager &pm,
                                  const CrestCodegenOptions &options) {
  CrestAttachTargetPassOptions attach;
  attach.chip = options.chip;
  attach.waveSize = options.waveSize;
  pm.addPass(createCrestAttachTargetPass(attach));
  // Contractions with their epilogues, and elementwise chains, become
  // crest.kernel regions before their kernels are configured and generated.
  pm.addPass(createCrestFuseEpiloguesPass());
  CrestSelectConfigPassOptions select;
  select.tune = options.tune;
  select.tuneCandidates = options.tuneCandidates;
  pm.addPass(createCrestSelectConfigPass(select, options.measurer));
  pm.addPass(createCrestLowerToGPUPass());
  // Every other crest op (elementwise, normalizations, reductions, pooling).
  pm.addPass(createCrestLowerOpsToGPUPass());
  // Barriers from the generated kernels' LDS accesses, then the independent
  // check that every cross-wave LDS hazard is ordered.
  CrestInsertBarriersPassOptions barriers;
  barriers.dropBarrier = options.testingDropBarrier;
  pm.addNestedPass<gpu::GPUModuleOp>(createCrestInsertBarriersPass(barriers));
  if (options.testingDropBarrier == 0)
    pm.addNestedPass<gpu::GPUModuleOp>(createCrestVerifyBarriersPass());
}
