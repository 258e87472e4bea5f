//===- Pipelines.h - Crest's pass pipelines ---------------------*- C++ -*-===//
//
// The two halves of Crest's compilation, as pass pipelines other tools can
// build:
//
//   addCrestCodegenPasses   crest graph -> gpu.module kernels (the codegen
//                           hook; see below)
//   buildGpuToRocdlPipeline gpu.module kernels -> LLVM + ROCDL dialects,
//                           ready for crest::serializeGpuModule
//
// `crest-gpu-to-rocdl` is the registered name of the second one:
//
//   crest-opt k.mlir \
//     --pass-pipeline='builtin.module(crest-gpu-to-rocdl{chip=gfx942})'
//
//===----------------------------------------------------------------------===//

#ifndef CREST_PIPELINES_PIPELINES_H
#define CREST_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace crest {

class ConfigMeasurer;

/// Options of `crest-gpu-to-rocdl`.
struct GpuToRocdlOptions : public mlir::PassPipelineOptions<GpuToRocdlOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip (a chip-table name)"),
      llvm::cl::init("gfx942")};
  PassOptions::Option<unsigned> waveSize{
      *this, "wave-size",
      llvm::cl::desc("Wave size (32 or 64; 0 = the chip's default)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bit width of `index` in device code (32 or 64)"),
      llvm::cl::init(64)};
  PassOptions::Option<unsigned> codeObjectVersion{
      *this, "code-object-version",
      llvm::cl::desc("HSA code object version recorded in the "
                     "#rocdl.target attached to each gpu.module (4, 5, 6)"),
      llvm::cl::init(5)};
};

/// Appends the lowering of every `gpu.module` (gpu, amdgpu, vector, memref,
/// scf, cf, arith, math ops) to the LLVM and ROCDL dialects to `pm`, which
/// must run on a `builtin.module`. Kernels take bare pointers (one per
/// memref). The chip-table checks run before and after the lowering.
void buildGpuToRocdlPipeline(mlir::OpPassManager &pm,
                             const GpuToRocdlOptions &options);

/// Options of the codegen hook.
struct CrestCodegenOptions {
  std::string chip = "gfx942";
  /// 0 selects the chip's default.
  unsigned waveSize = 0;
  /// Testing only: drop the N-th barrier crest-insert-barriers would place
  /// and skip crest-verify-barriers (0: drop none).
  unsigned testingDropBarrier = 0;
  /// crest-select-config's `tune`: measure the best `tuneCandidates`
  /// configurations of every contraction with `measurer` and keep the
  /// fastest (see ConfigMeasurer.h).
  bool tune = false;
  unsigned tuneCandidates = 4;
  std::shared_ptr<ConfigMeasurer> measurer;
};

/// The hook for Crest's kernel code generation: the passes that turn a
/// module of crest ops into `gpu.module` kernels, run by `crest-compile`
/// before `buildGpuToRocdlPipeline`: it attaches the target
/// (`crest-attach-target`), selects kernel configurations
/// (`crest-select-config`), generates the kernels (`crest-lower-to-gpu`),
/// places their barriers (`crest-insert-barriers`) and checks them
/// (`crest-verify-barriers`). A module that already holds `gpu.module`s and
/// no crest contractions passes through unchanged.
void addCrestCodegenPasses(mlir::OpPassManager &pm,
                           const CrestCodegenOptions &options);

/// Registers `crest-gpu-to-rocdl` and the passes in Passes.td.
void registerCrestPipelines();

} // namespace crest

#endif // CREST_PIPELINES_PIPELINES_H
