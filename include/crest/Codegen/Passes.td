//===- Passes.td - Crest kernel codegen passes -------------*- tablegen -*-===//

#ifndef CREST_CODEGEN_PASSES_TD
#define CREST_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def CrestLowerToGPUPass : Pass<"crest-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate a GPU kernel for every configured contraction";
  let description = [{
    For each `crest.kernel` (a contraction plus its elementwise epilogue)
    and each standalone `crest.matmul` / `crest.batch_matmul` with a
    `#crest.config` (run `crest-select-config` first), generates a
    `gpu.func` in the module's `gpu.module @crest_kernels` that computes it
    with `amdgpu.mfma`:

    - the grid has one workgroup per `workgroup_tile` of the output (X over
      N, Y over M, Z over the batch) and `waves * wave size` work-items;
    - with `scope = workgroup` the A and B tiles of each K step are copied
      cooperatively into `stages` LDS buffers (16-byte vector loads,
      padded rows against bank conflicts) and every wave reads its
      fragments from LDS; with `scope = wavefront` each wave reads its own
      fragments from global memory and nothing is shared;
    - fragments follow the instruction's lane layout; any M, N, K works
      (out-of-range elements read as zero, stores are guarded);
    - the epilogue applies the fused elementwise operations to each
      accumulator element and converts it once, before the single store.

    No barriers are emitted here: `crest-insert-barriers` places them from
    the LDS accesses. The original op stays in the host function, annotated
    with `crest.launch = {kernel, grid, block}` for the host planner.
  }];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::crest::CrestDialect"
  ];
}

#endif // CREST_CODEGEN_PASSES_TD
