//===- Pipelines.h - Crest's pass pipelines ---------------------*- C++ -*-===//
//
// Crest's compilation as named, registered pass pipelines, defined once:
//
//   crest-codegen-pipeline  crest graph -> gpu.module kernels in the LLVM and
//                           ROCDL dialects, ready for
//                           crest::serializeGpuModule: exactly what
//                           `crest-compile` runs (and what --emit=mlir
//                           prints); it is the two halves below
//   addCrestCodegenPasses   crest graph -> gpu.module kernels (target,
//                           fusion, configuration, kernels, barriers)
//   crest-gpu-to-rocdl      gpu.module kernels -> LLVM + ROCDL dialects
//
//   crest-opt model.mlir \
//     --pass-pipeline='builtin.module(crest-codegen-pipeline{chip=gfx942})'
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

/// The device-code options both pipelines take, each defined once.
template <typename Derived>
struct DeviceCodeOptions : public mlir::PassPipelineOptions<Derived> {
  using PassOptions = mlir::detail::PassOptions;
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

/// Options of `crest-gpu-to-rocdl`.
struct GpuToRocdlOptions : public DeviceCodeOptions<GpuToRocdlOptions> {};

/// Appends the lowering of every `gpu.module` (gpu, amdgpu, vector, memref,
/// scf, cf, arith, math ops) to the LLVM and ROCDL dialects to `pm`, which
/// must run on a `builtin.module`. Kernels take bare pointers (one per
/// memref). The chip-table checks run before and after the lowering.
void buildGpuToRocdlPipeline(mlir::OpPassManager &pm,
                             const GpuToRocdlOptions &options);

/// Options of `crest-codegen-pipeline` (crest-compile's flags of the same
/// names set them).
struct CrestCodegenOptions : public DeviceCodeOptions<CrestCodegenOptions> {
  using PassOptions = mlir::detail::PassOptions;
  /// crest-select-config's `tune`: measure the best `tune-candidates`
  /// configurations of every contraction with the measurer given to
  /// buildCrestCodegenPipeline and keep the fastest (see
  /// ConfigMeasurer.h). Without a measurer (a pipeline parsed from text)
  /// the pass warns and keeps the heuristic's choices.
  PassOptions::Option<bool> tune{
      *this, "tune",
      llvm::cl::desc("Measure the best candidate configurations of every "
                     "contraction and keep the fastest"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> tuneCandidates{
      *this, "tune-candidates",
      llvm::cl::desc("Candidates `tune` measures per contraction"),
      llvm::cl::init(4)};
  /// crest-fuse-epilogues' `remarks`: a remark for every elementwise op a
  /// contraction's epilogue refuses, saying why.
  PassOptions::Option<bool> fusionRemarks{
      *this, "fusion-remarks",
      llvm::cl::desc("Remark on every elementwise op a contraction's "
                     "epilogue refuses, saying why"),
      llvm::cl::init(false)};
  /// crest-fuse-epilogues' `prologues`: casts and cheap arithmetic on a
  /// contraction's operands fuse into its operand loads, attention
  /// kernels read and store through the data movement around them, and
  /// layer norms, softmaxes and reductions compute their input as they
  /// read it.
  PassOptions::Option<bool> fusePrologues{
      *this, "fuse-prologues",
      llvm::cl::desc("Fuse casts and per-channel scales computing a "
                     "contraction's operands into its operand loads, the "
                     "slices, reshapes and transposes around an attention "
                     "into its kernel, and the ops computing a layer norm's, "
                     "softmax's or reduction's input into its row loads"),
      llvm::cl::init(true)};
  /// crest-fuse-epilogues' `rows`: layer norms, softmaxes and reductions
  /// take the elementwise ops around them into their kernels.
  PassOptions::Option<bool> fuseRows{
      *this, "fuse-rows",
      llvm::cl::desc("Fuse the elementwise ops and gathers computing a "
                     "layer norm's, softmax's or reduction's input, and "
                     "those computed from its result, into its kernel"),
      llvm::cl::init(true)};
  /// Run crest-fuse-attention (attention written as separate ops becomes
  /// one crest.attention kernel).
  PassOptions::Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Fuse Q K^T, softmax and P V written as separate ops "
                     "into one crest.attention"),
      llvm::cl::init(true)};
  /// Testing only: drop the N-th barrier crest-insert-barriers would place
  /// and skip crest-verify-barriers (0: drop none).
  PassOptions::Option<unsigned> testingDropBarrier{
      *this, "testing-drop-barrier",
      llvm::cl::desc("Testing: drop the N-th barrier crest-insert-barriers "
                     "would place and skip crest-verify-barriers"),
      llvm::cl::init(0)};
};

/// The first half of `crest-codegen-pipeline`: the passes that turn a
/// module of crest ops into `gpu.module` kernels. It attaches the target
/// (`crest-attach-target`), groups contractions with their epilogues
/// (`crest-fuse-epilogues`), selects kernel configurations
/// (`crest-select-config`, measuring with `measurer` under `tune`),
/// generates the kernels (`crest-lower-to-gpu`, `crest-lower-ops-to-gpu`),
/// places their barriers (`crest-insert-barriers`) and checks them
/// (`crest-verify-barriers`). A module that already holds `gpu.module`s
/// and no crest contractions passes through unchanged.
void addCrestCodegenPasses(mlir::OpPassManager &pm,
                           const CrestCodegenOptions &options,
                           std::shared_ptr<ConfigMeasurer> measurer = {});

/// `crest-codegen-pipeline`: addCrestCodegenPasses, then
/// buildGpuToRocdlPipeline with the same chip and wave size. `pm` must run
/// on a `builtin.module`. crest-compile builds its pass manager with this
/// function; crest-opt runs the same pipeline by name.
void buildCrestCodegenPipeline(mlir::OpPassManager &pm,
                               const CrestCodegenOptions &options,
                               std::shared_ptr<ConfigMeasurer> measurer = {});

/// Registers `crest-codegen-pipeline` and `crest-gpu-to-rocdl`.
void registerCrestPipelines();

} // namespace crest

#endif // CREST_PIPELINES_PIPELINES_H
