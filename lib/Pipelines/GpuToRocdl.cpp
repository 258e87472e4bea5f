//===- GpuToRocdl.cpp - The crest-gpu-to-rocdl pipeline -------------------===//
//
// gpu.module kernels -> LLVM + ROCDL dialects, from upstream passes only
// (plus Crest's math legalization and chip-table checks):
//
//   crest-verify-target                       chip, matrix ops, signatures
//   rocdl-attach-target{chip abi O=3}         records the target in the IR
//   gpu.module(
//     crest-legalize-math                     no __ocml_* calls later
//     convert-vector-to-scf                   n-D transfers -> loops
//     expand-strided-metadata, lower-affine   subviews -> plain arithmetic
//     canonicalize, cse
//     convert-scf-to-cf
//     convert-arith-to-amdgpu{chipset}        fp8 conversions -> hardware
//     crest-decompose-vector-slices           the slices they stitch with
//     convert-gpu-to-rocdl{chipset runtime=HIP
//       use-bare-ptr-memref-call-conv=true index-bitwidth})
//   reconcile-unrealized-casts
//   gpu.module(canonicalize, cse)             folds the unused descriptors
//   crest-verify-target                       no calls out of the module
//
// convert-gpu-to-rocdl applies the AMDGPU -> ROCDL patterns itself (with the
// same chipset and type converter), so convert-amdgpu-to-rocdl is not run
// separately: running it first would only add memref-descriptor casts that
// the bare-pointer convention then has to reconcile.
//
//===----------------------------------------------------------------------===//

#include "crest/Pipelines/Pipelines.h"

#include "crest/Codegen/Transforms/Passes.h"
#include "crest/Codegen/Transforms/TargetChecks.h"
#include "crest/Target/ChipTable.h"

#include "mlir/Conversion/ArithToAMDGPU/ArithToAMDGPU.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace crest;

void crest::buildGpuToRocdlPipeline(OpPassManager &pm,
                                    const GpuToRocdlOptions &options) {
  CrestVerifyTargetPassOptions verify;
  verify.chip = options.chip;
  verify.waveSize = options.waveSize;
  verify.barePointers = true;
  pm.addPass(createCrestVerifyTargetPass(verify));

  GpuROCDLAttachTargetOptions target;
  target.chip = options.chip;
  target.abiVersion = std::to_string(options.codeObjectVersion * 100);
  target.optLevel = 3;
  // The flag only records the wave size (it selects device-library
  // variants Crest does not link); an unknown chip fails the check above.
  const ChipInfo *chip = lookupChip(options.chip);
  target.wave64Flag = !chip || resolveWaveSize(*chip, options.waveSize) == 64;
  pm.addPass(createGpuROCDLAttachTarget(target));

  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createCrestLegalizeMathPass());
  gpu.addPass(createConvertVectorToSCFPass());
  gpu.addPass(memref::createExpandStridedMetadataPass());
  gpu.addPass(createLowerAffinePass());
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  gpu.addPass(createSCFToControlFlowPass());
  ArithToAMDGPUConversionPassOptions arithToAmdgpu;
  arithToAmdgpu.chipset = options.chip;
  gpu.addPass(createArithToAMDGPUConversionPass(arithToAmdgpu));
  gpu.addPass(createCrestDecomposeVectorSlicesPass());
  ConvertGpuOpsToROCDLOpsOptions toRocdl;
  toRocdl.chipset = options.chip;
  toRocdl.indexBitwidth = options.indexBitwidth;
  toRocdl.useBarePtrCallConv = true;
  toRocdl.runtime = gpu::amd::Runtime::HIP;
  gpu.addPass(createConvertGpuOpsToROCDLOps(toRocdl));

  pm.addPass(createReconcileUnrealizedCastsPass());
  // Folds the memref descriptors the bare pointers were packed into.
  OpPassManager &cleanup = pm.nest<gpu::GPUModuleOp>();
  cleanup.addPass(createCanonicalizerPass());
  cleanup.addPass(createCSEPass());
  pm.addPass(createCrestVerifyTargetPass(verify));
}
