//===- CrestAttrs.td - Crest attributes --------------------*- tablegen -*-===//
//
// #crest.precision, #crest.sync, #crest.target, #crest.config and
// #crest.launch.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_DIALECT_CREST_IR_CRESTATTRS_TD
#define CREST_DIALECT_CREST_IR_CRESTATTRS_TD

include "crest/Dialect/Crest/IR/CrestBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"

/// `[1, 2, 3]`: a bracketed list of integers.
class Crest_IntArrayParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ ::crest::detail::parseIntArray($_parser) }];
  let printer = [{ ::crest::detail::printIntArray($_printer, $_self) }];
}

class Crest_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Crest_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Crest_SyncScope : I32EnumAttr<"SyncScope",
    "the scope at which waves share operand tiles", [
      I32EnumAttrCase<"Wavefront", 0, "wavefront">,
      I32EnumAttrCase<"Workgroup", 1, "workgroup">
    ]> {
  let cppNamespace = "::crest";
  let genSpecializedAttr = 0;
}

def Crest_CausalMask : I32EnumAttr<"CausalMask",
    "which query-key pairs a causal crest.attention masks", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"TopLeft", 1, "top_left">,
      I32EnumAttrCase<"BottomRight", 2, "bottom_right">
    ]> {
  let cppNamespace = "::crest";
}

def Crest_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how crest.gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::crest";
}


//===----------------------------------------------------------------------===//
// #crest.precision
//===----------------------------------------------------------------------===//

def Crest_PrecisionAttr : Crest_Attr<"Precision", "precision"> {
  let summary = "Element types a contraction reads, accumulates in and writes";
  let description = [{
    `lhs` and `rhs` are the element types the matrix instructions multiply,
    `acc` the type they accumulate in, and `out` the element type of the
    result. `lhs`, `rhs` and `out` must be the element types of the
    operation's operands and result, except that `tf32` in `lhs`/`rhs` reads
    `f32` operands and multiplies them at reduced precision (the `xf32`
    instructions of CDNA3).

    Legal everywhere: float inputs accumulate in `f32` (or `f64` for `f64`
    inputs; `f16`/`bf16` for inputs of that type on RDNA), `i8` inputs in
    `i32`; an `i32` accumulator writes `i32` or `i8`. fp8 inputs name their
    flavour: `f8E4M3FNUZ`/`f8E5M2FNUZ` (gfx942) or `f8E4M3FN`/`f8E5M2` (OCP:
    gfx950, gfx1201), and the two inputs must be of one flavour. Under a
    `#crest.target`, the chip must have a matrix instruction for
    `lhs x rhs -> acc`.

    Example:

    ```mlir
    #crest.precision<lhs = f16, rhs = f16, acc = f32, out = f32>
    ```
  }];
  let parameters = (ins "::mlir::Type":$lhs, "::mlir::Type":$rhs,
                        "::mlir::Type":$acc, "::mlir::Type":$out);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// #crest.sync
//===----------------------------------------------------------------------===//

def Crest_SyncAttr : Crest_Attr<"Sync", "sync"> {
  let summary = "How the waves of a workgroup share operand tiles";
  let description = [{
    - `scope = wavefront`: each wave loads its own operand fragments and owns
      its output tile. Waves never share LDS, so the main loop has no
      workgroup barrier. Suited to small, latency-bound shapes.
    - `scope = workgroup`: the waves stage the A and B tiles in LDS and share
      them. `stages` is the number of LDS buffers: 1 needs two barriers per K
      step, 2 (double buffering) at most one, 3 lets loads run two steps
      ahead.

    With `scope = wavefront`, `stages` is the number of register fragment
    buffers (how far ahead a wave's loads run). `stages` must be 1, 2 or 3
    and defaults to 1.

    The attribute states intent; the barrier pass derives the exact barriers
    from the kernel's LDS accesses.

    Example:

    ```mlir
    #crest.sync<scope = workgroup, stages = 2>
    ```
  }];
  let parameters = (ins
    "::crest::SyncScope":$scope,
    DefaultValuedParameter<"unsigned", "1">:$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr unsigned kMaxStages = 3;
  }];
}

//===----------------------------------------------------------------------===//
// #crest.target
//===----------------------------------------------------------------------===//

def Crest_TargetAttr : Crest_Attr<"Target", "target"> {
  let summary = "The AMD GPU a module is compiled for";
  let description = [{
    Names a chip of Crest's chip table (`gfx908`, `gfx90a`, `gfx942`,
    `gfx950`, `gfx1100`, `gfx1201`) and optionally the wave size (RDNA chips
    run wave32 or wave64; the default is the chip's native size). It is
    attached to a module as the `crest.target` attribute:

    ```mlir
    module attributes {crest.target = #crest.target<chip = "gfx942">} { ... }
    ```

    An unknown chip is an error that lists the known ones.
  }];
  let parameters = (ins
    StringRefParameter<"LLVM processor name">:$chip,
    DefaultValuedParameter<"unsigned", "0">:$wave_size);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip-table entry; never null for a verified attribute.
    const ::crest::ChipInfo *getChipInfo() const;
    /// The wave size in effect: `wave_size`, or the chip's default.
    unsigned getEffectiveWaveSize() const;
  }];
}

//===----------------------------------------------------------------------===//
// #crest.config
//===----------------------------------------------------------------------===//

def Crest_ConfigAttr : Crest_Attr<"Config", "config"> {
  let summary = "The kernel configuration selected for a contraction";
  let description = [{
    Filled in by configuration selection, or written by hand to override it.

    - `mma`: the matrix instruction, spelled as in the target chip's ISA
      (e.g. `"v_mfma_f32_32x32x8_f16"` on gfx942);
    - `workgroup_tile = [M, N, K]`: the output tile of one workgroup and the
      K depth of one main-loop step;
    - `wave_tile = [M, N]`: the output tile of one wave; it divides the
      workgroup tile, and the quotient gives the waves per workgroup;
    - `scope`, `stages`: as in `#crest.sync`;
    - `split_k`: how many groups of waves of one workgroup split the K
      range of its tile (default 1); their partial sums are added in LDS.
      `scope = wavefront` only.
    - `rhs_vector`: with `scope = wavefront` and a K-major rhs (B is K x N,
      row-major), each lane loads `rhs_vector` consecutive N elements of one
      K row at once (16 bytes for 8 halves) and transposes them in
      registers into `rhs_vector` MMA fragments (the skinny-GEMM path, see
      docs/Codegen.md); the wave tile's N is then `rhs_vector` times the
      lane columns of one instruction tile. 1 (the default): fragments are
      read in the instruction's layout.
    - `global_split_k`: how many workgroups split the K range of one output
      tile (default 1; the skinny path only). Each adds up its share of K
      and stores its partial sums, in the accumulator type, to a workspace
      the launch carries; the workgroup that arrives last at the tile's
      semaphore adds the partials up in a fixed order (so results do not
      depend on which one that is), runs the epilogue and resets the
      semaphore. Every workgroup must get at least one K step.

    Under a `#crest.target` the instruction must exist on the chip and match
    the contraction's precision, the tiles must be multiples of the
    instruction's shape, and the LDS the configuration needs must fit.

    ```mlir
    #crest.config<mma = "v_mfma_f32_32x32x8_f16", workgroup_tile = [128, 128, 32],
                  wave_tile = [64, 64], scope = workgroup, stages = 2>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"matrix instruction mnemonic">:$mma,
    Crest_IntArrayParameter<"[M, N, K]">:$workgroup_tile,
    Crest_IntArrayParameter<"[M, N]">:$wave_tile,
    "::crest::SyncScope":$scope,
    DefaultValuedParameter<"unsigned", "1">:$stages,
    DefaultValuedParameter<"unsigned", "1">:$split_k,
    DefaultValuedParameter<"unsigned", "1">:$rhs_vector,
    DefaultValuedParameter<"unsigned", "1">:$global_split_k);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTileM() const { return getWorkgroupTile()[0]; }
    int64_t getTileN() const { return getWorkgroupTile()[1]; }
    int64_t getTileK() const { return getWorkgroupTile()[2]; }
    /// Waves per workgroup: (tile M / wave M) * (tile N / wave N) * split_k.
    int64_t getNumWaves() const;
    /// The LDS the lowering allocates for this config (crest/Target/
    /// KernelResources.h): with workgroup scope `stages` buffers of the A
    /// and B tiles, their rows padded, and the split-K partial sums (with
    /// rhs_vector, of the rows inside the problem's M when `m` is given).
    ::crest::GemmLdsLayout getLdsLayout(unsigned lhsBits, unsigned rhsBits,
                                        unsigned accBits,
                                        int64_t m = 0) const;
    /// getLdsLayout(...).getTotalBytes().
    int64_t getLdsBytes(unsigned lhsBits, unsigned rhsBits,
                        unsigned accBits, int64_t m = 0) const;
  }];
}

//===----------------------------------------------------------------------===//
// #crest.launch
//===----------------------------------------------------------------------===//

def Crest_LaunchAttr : Crest_Attr<"Launch", "launch"> {
  let summary = "The kernel a host op runs, and its launch geometry";
  let description = [{
    Code generation (`crest-lower-to-gpu`, `crest-lower-ops-to-gpu`) puts
    one on every op of a host function it generates a kernel for (a
    contraction, a `crest.kernel` or another crest op), under the
    `crest.launch` name; the host planner turns each into a launch of the
    package.

    `kernel` is the `gpu.func` as `@module::@kernel`; `grid` counts
    workgroups and `block` work-items per workgroup, each as `[x, y, z]`
    of positive sizes that fit in 32 bits (the package stores them as
    `uint32`).

    ```mlir
    %0 = crest.relu %x {crest.launch = #crest.launch<
           kernel = @crest_kernels::@graph_elementwise_0,
           grid = [6, 1, 1], block = [256, 1, 1]>} : tensor<6144xf32>
    ```

    A kernel may need device memory beyond its operands and results, passed
    as further buffer arguments after the results, in this order:

    - `workspace`: the types of scratch tensors that live for the launch
      only; their contents are undefined when it starts;
    - `semaphores`: the types of i32 tensors that are zero when the first
      launch starts and that every launch leaves zero again, so the host
      zeroes them once (a split-K kernel's per-tile arrival counters).

    ```mlir
    #crest.launch<kernel = @crest_kernels::@gemm_0, grid = [256, 1, 1],
                  block = [512, 1, 1], workspace = [tensor<8x1x4096xf32>],
                  semaphores = [tensor<32xi32>]>
    ```
  }];
  let parameters = (ins
    "::mlir::SymbolRefAttr":$kernel,
    Crest_IntArrayParameter<"workgroups [x, y, z]">:$grid,
    Crest_IntArrayParameter<"work-items per workgroup [x, y, z]">:$block,
    OptionalParameter<"::mlir::ArrayAttr",
                      "scratch tensor types">:$workspace,
    OptionalParameter<"::mlir::ArrayAttr",
                      "zero-kept i32 tensor types">:$semaphores);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// `@module` of `@module::@kernel`.
    ::llvm::StringRef getKernelModule() const {
      return getKernel().getRootReference().getValue();
    }
    /// `@kernel` of `@module::@kernel`.
    ::llvm::StringRef getKernelName() const {
      return getKernel().getLeafReference().getValue();
    }
    /// The workspace and semaphore tensor types (empty when absent).
    ::llvm::SmallVector<::mlir::RankedTensorType> getWorkspaceTypes() const;
    ::llvm::SmallVector<::mlir::RankedTensorType> getSemaphoreTypes() const;
  }];
}

#endif // CREST_DIALECT_CREST_IR_CRESTATTRS_TD
