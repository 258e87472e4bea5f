//===- Passes.td - Crest's codegen decisions and checks ----*- tablegen -*-===//
//
// The passes that decide and check how each kernel is generated: the kernel
// configuration of every contraction, the LDS barriers of the generated
// kernels, math without device libraries, and the chip-table checks before
// LLVM sees the code. They run inside the named pipelines of
// crest/Pipelines/Pipelines.h; the graph passes are in
// crest/Dialect/Crest/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CODEGEN_TRANSFORMS_PASSES_TD
#define CREST_CODEGEN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CrestLegalizeMathPass : Pass<"crest-legalize-math"> {
  let summary = "Expand math ops that would need the ROCm device libraries";
  let description = [{
    `convert-gpu-to-rocdl` lowers most `math` ops (and `math.floor`,
    `math.exp` on f16, ...) to calls of `__ocml_*` functions from the ROCm
    device libraries, which Crest does not link. This pass rewrites them
    beforehand into `arith` ops and the `math` ops the AMDGPU backend
    implements with instructions (`exp` and `log` on f32, `sqrt`, `fma`,
    `absf`, `copysign`, `trunc`, `round`, `roundeven`):

    - MLIR's polynomial approximations for `tanh`, `erf`, `erfc`, `atan`,
      `atan2`, `asin`, `acos`, `sin`, `cos`, `log2`, `log1p`, `expm1` and
      `cbrt`;
    - MLIR's expansions of `sinh`, `cosh`, `tan`, `asinh`, `acosh`,
      `atanh`, `exp2`, `powf`, `fpowi`, `rsqrt` and `clampf`;
    - `ceil` and `floor` from `trunc`, keeping the sign of zero
      (`ceil(x) = x > trunc(x) ? trunc(x) + 1 : trunc(x)`, `floor` with
      `<` and `- 1`), and `log10(x)` as `log(x) / ln(10)`;
    - the f16 and bf16 forms of all of these, and of `exp` and `log`,
      compute in f32;
    - `arith.ceildivsi`, `arith.ceildivui` and `arith.floordivsi`, which
      have no LLVM lowering, are expanded too.

    - `exp`, `log` and `log10` on f64 are expanded in f64 arithmetic
      (range reduction by powers of two and ln 2, a Taylor polynomial for
      `exp`, the atanh series for `log`; a few ulp, every special value).

    Other f64 ops stay as they are: `crest-verify-target` rejects the
    device-library calls they lower to, with their location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def CrestDecomposeVectorSlicesPass
    : Pass<"crest-decompose-vector-slices"> {
  let summary = "Rewrite strided vector slices as shuffles and element moves";
  let description = [{
    `convert-arith-to-amdgpu` turns fp8 conversions of vectors into the
    packed hardware conversions (`amdgpu.ext_packed_fp8`,
    `amdgpu.packed_trunc_2xfp8`) and stitches their results together with
    `vector.extract_strided_slice` and `vector.insert_strided_slice`, for
    which `convert-gpu-to-rocdl` has no lowering. This pass rewrites both
    into chains of `vector.extract` and `vector.insert` (MLIR's
    `populateVectorInsertExtractStridedSliceTransforms`), which it lowers.
    `crest-gpu-to-rocdl` runs it right after `convert-arith-to-amdgpu`.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def CrestVerifyTargetPass : Pass<"crest-verify-target"> {
  let summary = "Check GPU code against the chip table before LLVM sees it";
  let description = [{
    LLVM's AMDGPU backend aborts the process ("LLVM ERROR: Cannot select")
    on some matrix intrinsics a chip lacks, and an unknown chip name aborts
    it too. This pass turns those cases into diagnostics on the op:

    - the chip must be in the chip table;
    - every `amdgpu.mfma`, `amdgpu.wmma` and `rocdl.mfma.*`/`rocdl.wmma.*`
      must match an instruction the chip table lists for the chip (shape,
      blocks, operand and accumulator types, A elements per lane); the
      note lists the chip's instructions for those types;
    - no op in a `gpu.module` may call a function the module does not
      define (ROCm device-library calls such as `__ocml_tanh_f64`, or
      `rocdl.workgroup.dim.x` when the block size is unknown); host code
      may;
    - with `bare-pointers`, every kernel's memref arguments must lower to
      bare pointers.

    `crest-gpu-to-rocdl` runs it before and after lowering; the serializer
    runs the same checks again.

    ```sh
    crest-opt kernels.mlir --crest-verify-target=chip=gfx942
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (a chip-table name)">,
    Option<"waveSize", "wave-size", "unsigned", /*default=*/"0",
           "Wave size (32 or 64; 0 = the chip's default)">,
    Option<"barePointers", "bare-pointers", "bool", /*default=*/"true",
           "Require kernel memref arguments that lower to bare pointers">,
  ];
}

def CrestSelectConfigPass : Pass<"crest-select-config", "::mlir::ModuleOp"> {
  let summary = "Choose the kernel configuration of every contraction";
  let description = [{
    For each `crest.matmul`, `crest.batch_matmul` and `crest.conv2d` with
    `groups = 1` (grouped and depthwise convolutions get a direct kernel
    without matrix instructions) under
    the module's `#crest.target` that has no `#crest.config` yet, picks the
    matrix instruction, the workgroup and wave tiles, the sync scope, the
    LDS stages and the split-K factor from the chip table, and attaches them
    as `config`. An explicit `config` (on the op or its `crest.kernel`) is
    kept as written; a `sync` attribute fixes the scope and the stages.

    Candidates are single-block instructions of the op's precision, tried
    with decreasing tiles. Small, latency-bound problems (M or N at most 16)
    get wavefront scope and tiles of one instruction per wave. A candidate
    is rejected when its LDS exceeds the chip's, its accumulators exceed the
    register file, or its estimated occupancy is below `min-waves-per-simd`.
    When nothing fits, the error lists every candidate and why it was
    rejected. With `explain`, a remark gives the choice and its cost.

    With `tune`, the pass measures the `tune-candidates` best candidates
    that fit (in the heuristic's order: the heuristic's choice first, then
    the other candidates of its sync scope, then, unless the op has a
    `#crest.sync`, those of the other scope) with a `ConfigMeasurer`
    (crest/Codegen/Transforms/ConfigMeasurer.h) and keeps the fastest;
    a tie keeps the earlier one. The measurer is handed to the pass by its
    creator: `crest-compile --tune` gives it the emulator's timing model,
    which compiles each candidate's kernel alone and replays it. Without a
    measurer, or on a chip the measurer cannot time, the pass warns and
    keeps the heuristic's choices. A candidate that fails to compile or run
    is left out with a warning; when the heuristic's own choice fails, the
    op keeps it untuned. Each tuned contraction records what was measured
    in a `crest.tuning` attribute (crest/Dialect/Crest/IR/Tuning.h):

    ```mlir
    crest.tuning = {candidates = [#crest.config<...>, ...],
                    microseconds = array<f64: 3.2, 2.9>,
                    cached = array<i1: false, false>, chosen = 1 : i64}
    ```

    ```sh
    crest-opt model.mlir --crest-attach-target=chip=gfx942 --crest-select-config
    ```
  }];
  let dependentDialects = ["::crest::CrestDialect"];
  let options = [
    Option<"minWavesPerSimd", "min-waves-per-simd", "unsigned",
           /*default=*/"1",
           "Reject configurations with a lower estimated occupancy">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark describing each choice">,
    Option<"tune", "tune", "bool", /*default=*/"false",
           "Measure the best candidates with the pass's ConfigMeasurer and "
           "keep the fastest">,
    Option<"tuneCandidates", "tune-candidates", "unsigned", /*default=*/"4",
           "How many candidates `tune` measures per contraction">,
  ];
}

def CrestInsertBarriersPass
    : Pass<"crest-insert-barriers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Insert the LDS barriers a generated kernel needs";
  let description = [{
    Inserts `amdgpu.lds_barrier` into every `gpu.func` of the module exactly
    where one wave may read LDS another wave wrote (RAW), or overwrite LDS
    another wave still reads (WAR) or writes (WAW), and nowhere else.

    LDS is any memref whose allocation (a workgroup attribution,
    `memref.alloc`, `memref.get_global`, seen through views) is in the
    workgroup address space. Every access is assumed to be performed by all
    waves (cooperative copies, per-wave fragment loads), so two accesses of
    one buffer conflict unless the slot their leading index selects
    provably differs: a constant, `(t + c) mod S` of the K loop's iteration
    number `t` (`arith.remui`/`remsi`, `affine.apply`, power-of-two `andi`),
    or `gpu.subgroup_id`; anything else may be any slot.

    The kernel body is a prologue, top-level `scf.for` loops that touch LDS
    (the K loops), and an epilogue; an access inside a nested region
    (`scf.if`, an inner loop) happens at that region's position, possibly
    many times. The pass simulates the loops for every trip count that
    matters, derives for each conflicting access pair the positions a
    barrier ordering it may take, and picks positions hitting every pair:
    first the fewest inside loop bodies, then the fewest in total. Existing
    barriers are kept and counted. Details, assumptions and limits are in
    docs/Barriers.md.

    ```sh
    crest-opt kernels.mlir --crest-insert-barriers=print-reasons
    ```
  }];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect"];
  let options = [
    Option<"printReasons", "print-reasons", "bool", /*default=*/"false",
           "Emit a remark at each inserted barrier listing the access pairs "
           "only it orders">,
    Option<"dropBarrier", "drop-barrier", "unsigned", /*default=*/"0",
           "Testing: do not insert the N-th barrier (1-based, program order "
           "over the module) to demonstrate that it is needed">,
  ];
}

def CrestVerifyBarriersPass
    : Pass<"crest-verify-barriers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Check that every conflicting LDS access pair is ordered";
  let description = [{
    Runs the analysis of `crest-insert-barriers` on kernels that already
    contain barriers (`amdgpu.lds_barrier`, `gpu.barrier` and
    `rocdl.s.barrier` count; barriers inside nested regions such as `scf.if`
    do not, as they may not execute) and emits an error at the second
    access of every conflicting pair that no barrier separates, naming both
    accesses, the hazard (RAW, WAR, WAW), the slots and the iterations
    involved. The module is left unchanged.

    With `report-redundant`, a remark marks each barrier that orders no
    access pair another barrier does not already order.

    ```sh
    crest-opt kernels.mlir --crest-insert-barriers --crest-verify-barriers
    ```
  }];
  let options = [
    Option<"reportRedundant", "report-redundant", "bool", /*default=*/"false",
           "Emit a remark at each barrier that could be removed">,
  ];
}

#endif // CREST_CODEGEN_TRANSFORMS_PASSES_TD
