//===- CodegenPipeline.cpp - The crest-codegen-pipeline -------------------===//
//
// The single definition of the passes that compile a crest graph: the
// kernel code generation (addCrestCodegenPasses) followed by
// crest-gpu-to-rocdl. crest-compile, the tuner's measurer and crest-opt
// (`crest-codegen-pipeline`, by name) all build it here.
//
//===----------------------------------------------------------------------===//

#include "crest/Pipelines/Pipelines.h"

#include "crest/Codegen/Passes.h"
#include "crest/Codegen/Transforms/ConfigMeasurer.h"
#include "crest/Codegen/Transforms/Passes.h"
#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void crest::addCrestCodegenPasses(OpPassManager &pm,
                                  const CrestCodegenOptions &options,
                                  std::shared_ptr<ConfigMeasurer> measurer) {
  CrestAttachTargetPassOptions attach;
  attach.chip = options.chip;
  attach.waveSize = options.waveSize;
  pm.addPass(createCrestAttachTargetPass(attach));
  // Attention written as separate ops becomes one crest.attention.
  if (options.fuseAttention) {
    CrestFuseAttentionPassOptions attention;
    attention.remarks = options.fusionRemarks;
    pm.addPass(createCrestFuseAttentionPass(attention));
  }
  // Contractions with their epilogues, and elementwise chains, become
  // crest.kernel regions before their kernels are configured and generated.
  CrestFuseEpiloguesPassOptions fuse;
  fuse.remarks = options.fusionRemarks;
  fuse.prologues = options.fusePrologues;
  fuse.rows = options.fuseRows;
  pm.addPass(createCrestFuseEpiloguesPass(fuse));
  CrestSelectConfigPassOptions select;
  select.tune = options.tune;
  select.tuneCandidates = options.tuneCandidates;
  pm.addPass(createCrestSelectConfigPass(select, std::move(measurer)));
  pm.addPass(createCrestLowerToGPUPass());
  // Attention: one fused kernel each.
  pm.addPass(createCrestLowerAttentionPass());
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

void crest::buildCrestCodegenPipeline(OpPassManager &pm,
                                      const CrestCodegenOptions &options,
                                      std::shared_ptr<ConfigMeasurer> measurer) {
  addCrestCodegenPasses(pm, options, std::move(measurer));
  GpuToRocdlOptions lowering;
  lowering.chip = options.chip;
  lowering.waveSize = options.waveSize;
  lowering.indexBitwidth = options.indexBitwidth;
  lowering.codeObjectVersion = options.codeObjectVersion;
  buildGpuToRocdlPipeline(pm, lowering);
}

void crest::registerCrestPipelines() {
  PassPipelineRegistration<CrestCodegenOptions>(
      "crest-codegen-pipeline",
      "Compile a crest graph to gpu.module kernels in the LLVM and ROCDL "
      "dialects: what crest-compile runs before serializing",
      [](OpPassManager &pm, const CrestCodegenOptions &options) {
        buildCrestCodegenPipeline(pm, options);
      });
  PassPipelineRegistration<GpuToRocdlOptions>(
      "crest-gpu-to-rocdl",
      "Lower gpu.module kernels to the LLVM and ROCDL dialects (bare-pointer "
      "kernel arguments, chip-table checks before and after)",
      buildGpuToRocdlPipeline);
}
