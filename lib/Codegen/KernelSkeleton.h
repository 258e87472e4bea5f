//===- KernelSkeleton.h - The shape every Crest GPU kernel shares ---------===//
//
// Every kernel the lowering passes generate lives in the module's
// `gpu.module @crest_kernels` and has the same skeleton: a `gpu.func`
// named after its host function (`<func>[_<kind>]_<n>`), marked as a
// kernel with its known block size, taking one global memref per input,
// result, workspace and semaphore tensor (in that order) and its workgroup
// (LDS) buffers, with a body that ends in `gpu.return`; and a
// `#crest.launch` on the host op that names it and gives its grid, block
// and buffers. crest-lower-to-gpu (contractions) and crest-lower-ops-to-gpu
// (elementwise, reduction and data movement kernels) both create their
// kernels here; a new kernel kind (fused attention) does too.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_CODEGEN_KERNELSKELETON_H
#define CREST_LIB_CODEGEN_KERNELSKELETON_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <array>

namespace crest::codegen {

/// The name of the gpu.module that holds every Crest kernel.
constexpr llvm::StringLiteral kKernelModuleName = "crest_kernels";

/// The global-memory memref a kernel takes for a tensor of `type`. An empty
/// tensor of rank > 1 becomes a 1-D memref of 0 elements: it is never
/// accessed, and a 0 inside a shape would make its strides non-static
/// (breaking the bare-pointer calling convention).
mlir::MemRefType getGlobalMemRefType(mlir::RankedTensorType type);

/// An LDS buffer of `shape` x `elt`.
mlir::MemRefType getWorkgroupMemRefType(llvm::ArrayRef<int64_t> shape,
                                        mlir::Type elt);

/// The buffers of one kernel, as the host sees them.
struct KernelSignature {
  /// The host op's operands and results; one memref argument each.
  llvm::SmallVector<mlir::RankedTensorType> inputs, results;
  /// Scratch buffers the host allocates per launch (`#crest.launch`'s
  /// workspace), and zero-initialised counters that every launch leaves
  /// zero again (its semaphores); arguments after the results.
  llvm::SmallVector<mlir::RankedTensorType> workspace, semaphores;
  /// Workgroup attributions (LDS), in workgroup address space.
  llvm::SmallVector<mlir::Type> workgroupBuffers;
};

/// The module's kernel container during one pass: creates
/// `@crest_kernels` if needed and numbers the kernels it adds.
class KernelModule {
public:
  /// Finds or creates `module`'s `@crest_kernels` and marks `module` as a
  /// GPU container module.
  explicit KernelModule(mlir::ModuleOp module);

  mlir::gpu::GPUModuleOp getOperation() { return kernels; }

  /// Creates the kernel of host op `anchor` (`kind` names it, e.g. "add",
  /// "softmax"; empty for contractions): a `gpu.func` of `signature` whose
  /// body is a lone `gpu.return`, launched on `grid` workgroups of `block`
  /// work-items (recorded as `anchor`'s `#crest.launch`). Build the body
  /// before the terminator.
  mlir::gpu::GPUFuncOp createKernel(mlir::Operation *anchor,
                                    llvm::StringRef kind,
                                    const KernelSignature &signature,
                                    std::array<int64_t, 3> grid,
                                    std::array<int64_t, 3> block);

private:
  mlir::gpu::GPUModuleOp kernels;
  mlir::SymbolTable symbols;
  unsigned counter = 0;
};

} // namespace crest::codegen

#endif // CREST_LIB_CODEGEN_KERNELSKELETON_H
