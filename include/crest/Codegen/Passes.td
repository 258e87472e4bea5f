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
      accumulator element and converts it once, before the single store;
    - a `crest.conv2d` with `groups = 1` is an implicit GEMM (M = output
      pixels, N = filters, K = C * KH * KW): the lhs is gathered from the
      NCHW input (padding, stride, dilation; taps outside read zero), the
      rhs is the filter viewed as F x K; 1x1 stride-1 unpadded ones read
      the input as a C x H*W matrix per image (images on Z);
    - a grouped or depthwise `crest.conv2d` (no config) gets a direct
      kernel: one work-item per output element, accumulation in the
      precision's `acc` type over C/groups x KH x KW, the same epilogue.

    No barriers are emitted here: `crest-insert-barriers` places them from
    the LDS accesses. The original op stays in the host function, annotated
    with a `crest.launch = #crest.launch<kernel, grid, block>` for the host
    planner.
  }];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::crest::CrestDialect"
  ];
}

def CrestLowerAttentionPass : Pass<"crest-lower-attention", "::mlir::ModuleOp"> {
  let summary = "Generate one fused flash-attention kernel per crest.attention";
  let description = [{
    Runs before `crest-lower-ops-to-gpu`. Every `crest.attention` in a host
    function becomes one `gpu.func` in `gpu.module @crest_kernels`
    (annotated with its `crest.launch`), which never writes the score or
    probability matrix to memory:

    - Each wave owns `N` query rows (`N` = 16 when the rows of one
      key/value head fit, else 32) of one key/value head; the rows of the
      `Hq / Hkv` query heads that share a key/value head are merged
      (grouped-query attention reads each K and V element once per wave).
      Workgroups of up to 4 waves; the grid is
      `[ceil(row blocks / waves), Hkv, B]`.
    - It computes `S^T = K Q^T` and `O^T += V^T P^T` on the chip's MFMA
      instructions, with the query fragments in registers for the whole key
      loop, 64 keys per step. The pair of instructions is chosen from the
      chip table so that the score accumulator's registers are, as they
      are, the B fragments of the P V instruction (checked from the lane
      layouts at compile time; V's fragments are loaded in the same key
      order): P never goes through LDS.
    - Online softmax in base 2: one constant `scale * log2(e)`, one scaled
      score used for both the running maximum and `exp2(s - m)`
      (`rocdl.exp2`, the chip's `v_exp_f32`); the maximum and the sum are
      combined across the lanes holding a row with `gpu.shuffle xor`; P is
      rounded to nearest even to the `pv` lhs type; the row sum stays f32.
    - Masks by key-block ranges: blocks that no query of the wave can see
      (causal, sliding window, `kv_length`) are not visited, blocks that
      every query sees whole are not masked, the others (the diagonal, a
      partial block, any bool mask) select `-inf` per score. Keys at or
      past `kv_length` read V as zero.
    - A row with every key masked writes 0 and `lse = -inf`.
    - Split-KV (decode): when the waves would not fill the chip's compute
      units (the chip table's `computeUnits`), the key sequence is split
      over up to `computeUnits / waves` workgroups of at least four key
      blocks each. Each writes its unnormalised output, row maximum and
      row sum to the launch's workspace; the wave that arrives last at its
      row block's semaphore combines the splits in split order, weighted
      by their maxima, and writes the result: still one launch.

    An attention whose precisions have no pair of instructions with
    compatible layouts (e.g. wave32 chips, whose WMMA codegen does not
    exist) is an error at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::ROCDL::ROCDLDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::crest::CrestDialect"
  ];
}

def CrestLowerOpsToGPUPass : Pass<"crest-lower-ops-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Generate a GPU kernel for every remaining crest op";
  let description = [{
    Runs after `crest-lower-to-gpu`. For every `crest.kernel` without a
    contraction and every crest op in a host function (outside
    `crest.kernel`) that has no `crest.launch` yet, generates a `gpu.func`
    in `gpu.module @crest_kernels` and annotates the op with
    `crest.launch = #crest.launch<kernel = @crest_kernels::@name, grid,
    block>`. The
    kernel takes one memref per input, then one per result, in the
    global address space, shaped like the host tensors.

    - Elementwise ops and elementwise-only `crest.kernel`s (NumPy
      broadcasting, casts with the dialect's rounding): one work-item per
      element, or per `vector-width` consecutive elements (16-byte
      accesses for f32) when the innermost output dimension allows;
      256 work-items per workgroup.
    - `crest.softmax` (any axis), `crest.layer_norm`, `crest.reduce_mean`
      and `crest.global_avg_pool2d`: one wave per output row, each lane
      striding over the row, reduced across lanes with `gpu.shuffle xor`
      (no LDS, no barrier); f16/bf16 inputs accumulate in f32. Softmax
      subtracts the row maximum; layer_norm computes the variance from the
      mean in a second pass over the row.
    - `crest.max_pool2d` / `crest.avg_pool2d`: one work-item per output
      element, with pads, strides, `ceil_mode` (a window starting in the
      bottom/right padding is dropped) and `count_include_pad` (the divisor
      counts padding inside the padded input, never the extra `ceil_mode`
      cells).

    - Data movement, one work-item per output element (or per
      `vector-width` consecutive ones), writes coalesced: `crest.transpose`
      (dimensions merged where the permutation keeps them adjacent; one
      that moves the innermost input dimension goes through a 32x32 LDS
      tile, read along the input's rows and written along the output's,
      with the barrier from `crest-insert-barriers`), `crest.slice`,
      `crest.concat` (any number of inputs and axis), `crest.gather`
      (i32/i64 indices; negative ones wrap once, others out of range give
      zeros without reading). `crest.reshape` gets no kernel: the host
      planner makes its result an alias of its input's bytes; only a
      returned reshape whose bytes belong to a graph input, a weight or
      another result gets a copy kernel.

    An op this pass cannot lower (a contraction without `crest.launch`, a
    `crest.kernel` holding
    a normalization, a reduction over non-contiguous dimensions) is an
    error at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::crest::CrestDialect"
  ];
  let options = [
    Option<"blockSize", "block-size", "unsigned", /*default=*/"256",
           "Work-items per workgroup (a multiple of the wave size)">,
    Option<"vectorWidth", "vector-width", "unsigned", /*default=*/"4",
           "Elements per work-item in elementwise kernels when the "
           "innermost output dimension is a multiple of it (1 disables)">,
    Option<"tiledTranspose", "tiled-transpose", "bool", /*default=*/"true",
           "Transpose through a 32x32 LDS tile when the innermost input "
           "dimension moves (false: one strided read per element)">,
  ];
}

#endif // CREST_CODEGEN_PASSES_TD
