//===- HostPlanner.h - A lowered crest graph to a package ----*- C++ -*-===//
//
// After crest-compile's passes, the graph's public func.func still holds
// the crest ops; every op that became a GPU kernel carries
//
//   crest.launch = #crest.launch<kernel = @module::@name, grid = [x, y, z],
//                                block = [x, y, z]>
//
// and the kernel takes one memref per op input, then one per result. The
// planner turns that function, the compiled code objects and what the
// compiler measured of each kernel into a Package (crest/runtime/Package.h):
// values, liveness-planned buffers, weights, kernels, launches and the
// reference graph (crest.kernel bodies inlined). docs/Package.md describes
// the rules; every unsupported construct is a diagnostic at its op.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_HOST_HOSTPLANNER_H
#define CREST_HOST_HOSTPLANNER_H

#include "crest/runtime/Package.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace crest {

/// One compiled gpu.module.
struct CompiledKernelModule {
  std::string name;       ///< the gpu.module's symbol name
  std::string codeObject; ///< the linked HSA code object (ELF)
  /// What the compiler measured, by kernel symbol name. A kernel missing
  /// here gets a zero KernelInfo.
  llvm::StringMap<pkg::KernelInfo> kernels;
};

struct HostPlanOptions {
  std::string chip;
  unsigned codeObjectVersion = 5;
  unsigned waveSize = 64;
};

/// Builds the package of `module`'s one public func.func. On failure the
/// diagnostics have been emitted (at the offending ops).
mlir::FailureOr<pkg::Package>
buildPackage(mlir::ModuleOp module,
             llvm::ArrayRef<CompiledKernelModule> compiled,
             const HostPlanOptions &options);

/// The reference graph alone of `module`'s one public func.func, before
/// code generation (no op needs a kernel): inputs, weights, one
/// intermediate per op result and the nodes the reference evaluator
/// (crest/runtime/Reference.h) runs; no launches or buffers, so the result
/// is no package to write. `ids`, if given, receives each SSA value's value
/// id. The precision planner evaluates candidate graphs with it.
mlir::FailureOr<pkg::Package>
buildReferenceGraph(mlir::ModuleOp module, const HostPlanOptions &options,
                    llvm::DenseMap<mlir::Value, uint32_t> *ids = nullptr);

/// One value's live range in launch order, for planBuffers.
struct LiveRange {
  uint64_t bytes = 0;
  size_t first = 0, last = 0; ///< launch indices, first <= last
};

/// Assigns buffers to values with the given live ranges: values whose
/// ranges do not overlap may share a buffer (greedy best fit, in order of
/// `first`). Returns each value's buffer and fills `bufferSizes`.
std::vector<uint32_t> planBuffers(llvm::ArrayRef<LiveRange> ranges,
                                  std::vector<uint64_t> &bufferSizes);

} // namespace crest

#endif // CREST_HOST_HOSTPLANNER_H
