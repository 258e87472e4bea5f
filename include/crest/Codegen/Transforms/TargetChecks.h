//===- TargetChecks.h - Chip-table checks before LLVM codegen ---*- C++ -*-===//
//
// LLVM's AMDGPU backend does not diagnose everything it cannot compile: a
// matrix intrinsic the chip lacks ("LLVM ERROR: Cannot select: intrinsic
// %llvm.amdgcn.mfma..."), or an unknown processor name, abort the process.
// These checks run on the MLIR module before any LLVM code generation and
// turn every such case into an MLIR diagnostic on the offending op:
//
// - every matrix op (`amdgpu.mfma`, `amdgpu.wmma`, `rocdl.mfma.*`,
//   `rocdl.wmma.*`, and the sparse and scaled forms) must match an
//   instruction the chip table lists for the chip, by shape, blocks, operand
//   and accumulator types and the number of A elements each lane holds
//   (which tells CDNA's old 2 x bf16 MFMAs from the "_1k" 4 x bf16 ones and
//   the RDNA3 WMMA layout from the RDNA4 one);
// - nothing may call a function the module does not define: Crest links no
//   ROCm device library (`__ocml_*` math, `__ockl_*` queries), so such a call
//   would leave an undefined symbol in the code object;
// - kernels must be callable with bare pointers (static, identity-layout
//   memrefs), the calling convention Crest's runtime uses.
//
// All checks read the chip table only; none compares a chip name.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CODEGEN_TRANSFORMS_TARGETCHECKS_H
#define CREST_CODEGEN_TRANSFORMS_TARGETCHECKS_H

#include "crest/Target/ChipTable.h"

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace crest {

/// Checks every matrix op nested in `root` (AMDGPU and ROCDL dialect forms)
/// against the instructions `chip` has at `waveSize` lanes. Emits one error
/// per unsupported op, with a note listing the chip's instructions for the
/// op's types.
mlir::LogicalResult verifyMatrixOps(mlir::Operation *root, const ChipInfo &chip,
                                    unsigned waveSize);

/// Checks that no op nested in `root` needs code from outside the module:
/// calls (`llvm.call`, `func.call`) to functions that are only declared,
/// and the ROCDL ops whose translation calls ROCm device-library functions
/// (`rocdl.workgroup.dim.*` and `rocdl.grid.dim.*`, which `gpu.block_dim`
/// and `gpu.grid_dim` become when the sizes are not known).
mlir::LogicalResult verifyNoExternalCalls(mlir::Operation *root);

/// Checks that every `gpu.func` kernel nested in `root` takes only memrefs
/// that lower to bare pointers (static shape, identity layout).
mlir::LogicalResult verifyBarePointerKernels(mlir::Operation *root);

} // namespace crest

#endif // CREST_CODEGEN_TRANSFORMS_TARGETCHECKS_H
