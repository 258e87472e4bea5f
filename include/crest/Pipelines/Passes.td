//===- Passes.td - Passes of Crest's GPU lowering pipeline -*- tablegen -*-===//

#ifndef CREST_PIPELINES_PASSES_TD
#define CREST_PIPELINES_PASSES_TD

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
      `atanh`, `exp2`, `powf`, `fpowi`, `ceil`, `rsqrt` and `clampf`;
    - `floor(x)` as `-ceil(-x)` and `log10(x)` as `log(x) / ln(10)`;
    - the f16 and bf16 forms of all of these, and of `exp` and `log`,
      compute in f32;
    - `arith.ceildivsi`, `arith.ceildivui` and `arith.floordivsi`, which
      have no LLVM lowering, are expanded too.

    f64 ops stay as they are: `crest-verify-target` rejects the
    device-library calls they lower to, with their location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
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

#endif // CREST_PIPELINES_PASSES_TD
