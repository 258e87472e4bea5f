//===- LowerToGPU.cpp - Generate MFMA kernels for crest contractions
//--------===//
//
// One gpu.func per configured contraction (with its fused epilogue). The
// kernel is built directly with OpBuilder as a workgroup -> wave -> MMA
// fragment hierarchy; see the pass description in Passes.td.
//
// Fragment layouts: which lane holds which A, B and D element is asked of
// the instruction family's MMA emitter (MmaEmitter.h; the MFMA one reads
// the shared CDNA layout of crest/Target/MmaLayout.h, checked against AMD's
// calculator data); codegen handles single-block forms with m == n.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "KernelSkeleton.h"
#include "MmaEmitter.h"

#include "crest/Codegen/KernelConfig.h"
#include "crest/Codegen/Passes.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace crest {
#define GEN_PASS_DEF_CRESTLOWERTOGPUPASS
#include "crest/Codegen/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {

using codegen::MmaOperand;
/// Work-items per workgroup of the direct convolution kernel.
constexpr int64_t kDirectConvBlockSize = 256;

/// The shape of a crest.conv2d: input N x C x H x W, filter
/// F x C/groups x KH x KW, output N x F x OH x OW.
struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, f = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  int64_t strideH = 1, strideW = 1, padTop = 0, padLeft = 0, dilationH = 1,
          dilationW = 1, groups = 1;

  static ConvGeometry get(Conv2DOp op) {
    ConvGeometry g;
    ArrayRef<int64_t> in = op.getInput().getType().getShape();
    ArrayRef<int64_t> fs = op.getFilter().getType().getShape();
    ArrayRef<int64_t> out = op.getResult().getType().getShape();
    g.n = in[0];
    g.c = in[1];
    g.h = in[2];
    g.w = in[3];
    g.f = fs[0];
    g.kh = fs[2];
    g.kw = fs[3];
    g.oh = out[2];
    g.ow = out[3];
    g.strideH = op.getStrides()[0];
    g.strideW = op.getStrides()[1];
    g.padTop = op.getPads()[0];
    g.padLeft = op.getPads()[1];
    g.dilationH = op.getDilations()[0];
    g.dilationW = op.getDilations()[1];
    g.groups = op.getGroups();
    return g;
  }
  /// A 1x1, stride-1, unpadded convolution: per image a plain GEMM.
  bool isPointwise() const {
    return kh == 1 && kw == 1 && strideH == 1 && strideW == 1 && padTop == 0 &&
           padLeft == 0 && oh == h && ow == w;
  }
};

/// Everything codegen needs to know about one kernel.
struct KernelPlan {
  Operation *anchor;                  ///< crest.kernel or the contraction
  ContractionOpInterface contraction; ///< the contraction inside
  ConfigAttr config;
  const ChipInfo *chip;
  const MmaInstruction *mma;
  /// The instruction family's fragments and instructions (shared by the
  /// copies of a plan).
  std::shared_ptr<const codegen::MmaEmitter> mmaEmitter;
  unsigned waveSize;
  // Problem.
  int64_t batch, m, n, k;
  bool transposeLhs, transposeRhs;
  RankedTensorType lhsType, rhsType;
  Type accType; ///< f32 or i32 (the MMA accumulator)
  // Tiling.
  int64_t tileM, tileN, tileK, waveM, waveN, wavesM, wavesN, stages;
  int64_t splitK; ///< waves along K (their partial sums are added in LDS)
  /// rhs elements a lane loads along N at once (the skinny path; 1: the
  /// fragment layout).
  int64_t rhsVector = 1;
  /// Skinny path: rows of the wave tile whose partial sums go through LDS
  /// (the rows that can be inside M).
  int64_t reduceRows = 0;
  /// Workgroups along K per output tile (global_split_k), the full K steps
  /// each adds up, and the output tiles along N.
  int64_t globalSplitK = 1, stepsPerGroup = 0, tilesAlongN = 1;
  bool shareLds;
  int64_t kpl; ///< operand elements per lane per MMA
  int64_t accPerLane;
  // Kernel interface: one memref per kernel input, then one per result.
  SmallVector<Value> inputs;  ///< tensors in the host function
  SmallVector<Value> results; ///< tensors yielded (host values)
  // Convolutions (implicit GEMM when groups = 1, else the direct kernel).
  ConvGeometry conv;
  bool isConv = false;
  /// The lhs is gathered from input patches (false for 1x1, stride 1,
  /// unpadded convolutions, whose lhs is the input viewed as a transposed
  /// C x H*W matrix per image).
  bool gatherLhs = false;
  /// Each operand's prologue (lhs, rhs): the crest.kernel ops applied to
  /// its elements as they are loaded, and the body argument they read
  /// them from (KernelOp::getPrologue, getPrologueSource).
  SmallVector<Operation *> prologue[2];
  Value prologueSource[2];
};

/// Builds one kernel.
class KernelBuilder {
public:
  KernelBuilder(const KernelPlan &plan, ImplicitLocOpBuilder &b)
      : plan(plan), b(b) {}

  /// Binds the operand and LDS buffers and the tile origin (colBase,
  /// rowBase, batchIdx) at the start of `func`.
  void bindKernel(gpu::GPUFuncOp func, ArrayRef<Value> bodyInputs);
  LogicalResult build(gpu::GPUFuncOp func, ArrayRef<Operation *> epilogue,
                      ArrayRef<Value> bodyInputs, ArrayRef<Value> yielded);
  /// Whether a prologue op could not be generated (its error is emitted).
  bool hasPrologueFailed() const { return prologueFailed; }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  /// 0 <= x < bound, for a signed (possibly negative) index x.
  Value inRange(Value x, int64_t bound) {
    return both(
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge, x, idx(0)),
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, idx(bound)));
  }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, x, idx(y)); }
  Value lessThan(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, idx(bound));
  }

  Type lhsElt() const { return plan.lhsType.getElementType(); }
  Type rhsElt() const { return plan.rhsType.getElementType(); }

  /// Index list into a (batch?, d0, d1) operand memref.
  SmallVector<Value> operandIndices(Value memref, Value batchIdx, Value d0,
                                    Value d1);
  /// Reads `len` elements of `memref` starting at `indices`, along the last
  /// dimension (`alongRows` false) or the second-last (true). Elements past
  /// the end of that dimension read as zero; `rowValid` guards the other
  /// index. With `operand` (0: lhs, 1: rhs), the elements read go through
  /// that operand's prologue (the zeros stay zeros).
  Value readVector(Value memref, ArrayRef<Value> indices, int64_t len,
                   bool alongRows, Value rowValid, bool alwaysInBounds,
                   std::optional<unsigned> operand = std::nullopt);
  /// Applies operand `operand`'s prologue to `loaded`: a scalar read at
  /// `indices` of the operand's memref, or a vector read from `indices`
  /// along dimension `dim`. Returns it in the operand's element type (the
  /// value itself without a prologue).
  Value applyPrologue(unsigned operand, Value loaded, ArrayRef<Value> indices,
                      unsigned dim);
  /// The coordinates in operand `operand`'s prologue source (its tensor
  /// shape) of `indices` into the operand's memref (a convolution's is
  /// collapsed to GEMM shape).
  SmallVector<Value> sourceCoords(unsigned operand, ArrayRef<Value> indices);
  /// The element of `tensor` for the op being generated: its value in
  /// `values`, a splat constant, or the kernel input loaded at `coords()`
  /// (broadcast NumPy-style).
  FailureOr<Value> elementOf(Value tensor, IRMapping &values,
                             llvm::function_ref<ArrayRef<Value>()> coords);
  /// Emits `ops` (elementwise, in order) on one element each, their
  /// operands from elementOf; results go into `values`.
  LogicalResult emitElementOps(ArrayRef<Operation *> ops, IRMapping &values,
                               llvm::function_ref<ArrayRef<Value>()> coords);

  /// How the threads of a workgroup split the copy of one operand tile.
  struct TileCopy {
    int64_t rows;     ///< tile rows (M for lhs, N for rhs)
    int64_t vec;      ///< elements per global load
    int64_t kRows;    ///< K rows per chunk (1 when K-contiguous)
    int64_t chunks;   ///< chunks per tile, spread over the threads
    bool kContiguous; ///< K is the fast dimension in global memory
  };
  TileCopy tileCopy(bool isLhs) const;
  /// Global loads of K step `step` of the lhs (or rhs) tile: the vectors
  /// this thread later writes to LDS with storeTile.
  SmallVector<Value> loadTile(bool isLhs, Value step);
  /// Writes what loadTile returned into LDS slot `slot`.
  void storeTile(bool isLhs, ArrayRef<Value> loaded, Value slot);
  /// Copies K step `step` of the lhs (or rhs) tile into LDS slot `slot`.
  void copyTileToLds(bool isLhs, Value step, Value slot);
  /// The fragment of MMA tile `t` (row tile for lhs, column tile for rhs)
  /// at K offset `kOffset` (relative to the K step), from LDS or global.
  Value loadFragment(bool isLhs, int64_t t, int64_t kOffset, Value step,
                     Value slot);
  /// acc + a * b: one matrix instruction.
  Value emitMma(Value a, Value b, Value acc);
  /// `len` elements of the implicit-GEMM lhs of a convolution, row `row`
  /// (an output pixel), K `k0`.. (channel, ky, kx), gathered from the input
  /// with padding, stride and dilation; out-of-range taps read zero.
  Value gatherPatch(Value row, Value k0, int64_t len);
  /// Coordinates in the contraction's result of GEMM element (i, j).
  SmallVector<Value> resultCoords(Value i, Value j);

  LogicalResult emitEpilogue(ValueRange accs, ArrayRef<Operation *> epilogue,
                             ArrayRef<Value> bodyInputs,
                             ArrayRef<Value> yielded);
  /// Applies the epilogue to accumulator value `acc` of the result element
  /// at `coords` and stores every yielded value there. Inputs already in
  /// `loaded` (tensor -> element) are not loaded again.
  LogicalResult emitEpilogueElement(Value acc, ArrayRef<Value> coords,
                                    ArrayRef<Operation *> epilogue,
                                    ArrayRef<Value> bodyInputs,
                                    ArrayRef<Value> yielded,
                                    const IRMapping *loaded = nullptr);
  /// Loads the element of epilogue input `mem` broadcast to `coords`
  /// (NumPy rules: trailing dimensions align, size-1 dimensions broadcast).
  Value loadEpilogueInput(Value mem, ArrayRef<Value> coords);

public:
  /// The skinny-GEMM kernel (rhs_vector > 1, wavefront scope, K-major B):
  /// see buildVectorRhs's comment.
  LogicalResult buildVectorRhs(gpu::GPUFuncOp func,
                               ArrayRef<Operation *> epilogue,
                               ArrayRef<Value> bodyInputs,
                               ArrayRef<Value> yielded);

private:
  /// Global loads of K step `step` for the skinny path: the lane's rhs row
  /// vectors (one per K index it owns), then its lhs chunks per row tile.
  /// With `guardK`, elements past K read as zero.
  SmallVector<Value> loadVectorRhsStep(Value step, Value rhsCol,
                                       ArrayRef<Value> lhsRows, bool guardK);
  /// One K step of MFMAs from what loadVectorRhsStep returned.
  void computeVectorRhsStep(ArrayRef<Value> loaded,
                            MutableArrayRef<Value> accs);

public:
  /// The direct kernel of a grouped or depthwise convolution: one work-item
  /// per output element, f32 (acc type) accumulation over C/groups x KH x
  /// KW, then the fused epilogue.
  LogicalResult buildDirectConv(gpu::GPUFuncOp func, int64_t blockSize,
                                ArrayRef<Operation *> epilogue,
                                ArrayRef<Value> bodyInputs,
                                ArrayRef<Value> yielded);

private:
  FailureOr<Value> emitElementwise(Operation *op, ArrayRef<Value> operands,
                                   Type eltType);
  Value convert(Value v, Type to);

  const KernelPlan &plan;
  ImplicitLocOpBuilder &b;
  /// The crest.kernel body's arguments (one per kernel input).
  SmallVector<Value> bodyArgs;
  /// Set when a prologue op could not be generated (its error is emitted).
  bool prologueFailed = false;
  // Set up by build().
  Value tid, lane, waveRow, waveCol, rowBase, colBase, batchIdx;
  Value kSlice; ///< which 1/splitK of the K steps this wave accumulates
  /// Global split-K: which of the tile's workgroups this is, and its
  /// workspace, semaphores and LDS arrival flag.
  Value group, workspaceMem, semaphoreMem;
  Value lhsMem, rhsMem, ldsLhs, ldsRhs, ldsPartials;
  SmallVector<Value> argMems; ///< kernel inputs then results
};

} // namespace

//===----------------------------------------------------------------------===//
// Memory access helpers
//===----------------------------------------------------------------------===//

SmallVector<Value> KernelBuilder::operandIndices(Value memref, Value batchIdx,
                                                 Value d0, Value d1) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> indices;
  if (type.getRank() == 3)
    indices.push_back(type.getDimSize(0) == 1 ? idx(0) : batchIdx);
  indices.push_back(d0);
  indices.push_back(d1);
  return indices;
}

Value KernelBuilder::readVector(Value memref, ArrayRef<Value> indices,
                                int64_t len, bool alongRows, Value rowValid,
                                bool alwaysInBounds,
                                std::optional<unsigned> operand) {
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  auto vecType = VectorType::get({len}, elt);
  unsigned rank = type.getRank();
  unsigned dim = alongRows ? rank - 2 : rank - 1;
  int64_t extent = type.getDimSize(dim);
  Value start = indices[dim];
  // What is read, in the operand's type: through its prologue.
  auto finish = [&](Value v, ArrayRef<Value> at) {
    return operand ? applyPrologue(*operand, v, at, dim) : v;
  };
  Type outElt = elt;
  if (operand)
    outElt = *operand == 0 ? lhsElt() : rhsElt();
  auto outType = VectorType::get({len}, outElt);
  Value zero = arith::ConstantOp::create(b, outElt, b.getZeroAttr(outElt));
  Value zeros = arith::ConstantOp::create(
      b, outType, DenseElementsAttr::get(outType, b.getZeroAttr(outElt)));
  unsigned eltBytes = std::max(1u, elt.getIntOrFloatBitWidth() / 8);

  // When the tiles divide the problem, every element is in bounds: a plain
  // (aligned where rows start aligned) vector load, or one load per element
  // along rows.
  if (alwaysInBounds) {
    if (alongRows) {
      SmallVector<Value> elements;
      for (int64_t e = 0; e < len; ++e) {
        SmallVector<Value> at(indices);
        at[dim] = add(start, idx(e));
        elements.push_back(memref::LoadOp::create(b, memref, at));
      }
      return finish(vector::FromElementsOp::create(b, vecType, elements),
                    indices);
    }
    auto load = vector::LoadOp::create(b, vecType, memref, indices);
    if ((extent * eltBytes) % (len * eltBytes) == 0 &&
        llvm::isPowerOf2_64(len * eltBytes))
      load.setAlignment(len * eltBytes);
    return finish(load, indices);
  }

  auto ifOp = scf::IfOp::create(b, TypeRange{outType}, rowValid,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, zeros);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  if (alongRows) {
    // Strided: one guarded scalar load per element.
    SmallVector<Value> elements;
    for (int64_t e = 0; e < len; ++e) {
      SmallVector<Value> at(indices);
      at[dim] = add(start, idx(e));
      auto inner =
          scf::IfOp::create(b, TypeRange{outElt}, lessThan(at[dim], extent),
                            /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&inner.getThenRegion().front());
      scf::YieldOp::create(
          b, finish(memref::LoadOp::create(b, memref, at).getResult(), at));
      b.setInsertionPointToStart(&inner.getElseRegion().front());
      scf::YieldOp::create(b, zero);
      b.setInsertionPointAfter(inner);
      elements.push_back(inner.getResult(0));
    }
    scf::YieldOp::create(
        b, vector::FromElementsOp::create(b, outType, elements).getResult());
    return ifOp.getResult(0);
  }
  // Contiguous: a full vector load when the vector is in bounds (aligned
  // to its size when every row starts aligned), else a masked load.
  Value end = add(start, idx(len));
  Value full =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ule, end, idx(extent));
  auto fullIf = scf::IfOp::create(b, TypeRange{outType}, full,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&fullIf.getThenRegion().front());
    bool aligned = (extent * eltBytes) % (len * eltBytes) == 0 &&
                   llvm::isPowerOf2_64(len * eltBytes);
    auto load = vector::LoadOp::create(b, vecType, memref, indices);
    if (aligned)
      load.setAlignment(len * eltBytes);
    scf::YieldOp::create(b, finish(load, indices));
    b.setInsertionPointToStart(&fullIf.getElseRegion().front());
    Value remaining = arith::SubIOp::create(b, idx(extent), start);
    Value count = arith::MaxSIOp::create(
        b, arith::MinSIOp::create(b, remaining, idx(len)), idx(0));
    // mask[e] = e < count, built from arith ops on an i32 vector.
    auto i32Vec = VectorType::get({len}, b.getI32Type());
    SmallVector<int32_t> iota(len);
    for (int64_t e = 0; e < len; ++e)
      iota[e] = int32_t(e);
    Value lanes = arith::ConstantOp::create(
        b, i32Vec, DenseElementsAttr::get(i32Vec, ArrayRef<int32_t>(iota)));
    Value countVec = vector::BroadcastOp::create(
        b, i32Vec, arith::IndexCastOp::create(b, b.getI32Type(), count));
    Value mask =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lanes, countVec);
    Value sourceZeros = arith::ConstantOp::create(
        b, vecType, DenseElementsAttr::get(vecType, b.getZeroAttr(elt)));
    Value masked = vector::MaskedLoadOp::create(b, vecType, memref, indices,
                                                mask, sourceZeros);
    // The masked-off elements are zero in the operand, whatever the
    // prologue makes of a zero.
    if (operand)
      masked = arith::SelectOp::create(b, mask, finish(masked, indices), zeros);
    scf::YieldOp::create(b, masked);
  }
  scf::YieldOp::create(b, fullIf.getResult(0));
  return ifOp.getResult(0);
}

KernelBuilder::TileCopy KernelBuilder::tileCopy(bool isLhs) const {
  // The tile is `rows` x tileK elements, stored row-major with K contiguous
  // in LDS (for the rhs, rows are output columns: B is kept transposed so
  // fragments are contiguous).
  TileCopy copy;
  copy.rows = isLhs ? plan.tileM : plan.tileN;
  Type elt = isLhs ? lhsElt() : rhsElt();
  copy.kContiguous = isLhs ? !plan.transposeLhs : plan.transposeRhs;
  int64_t threads = plan.wavesM * plan.wavesN * plan.splitK * plan.waveSize;
  int64_t eltBytes = std::max(1u, elt.getIntOrFloatBitWidth() / 8);
  // Vectors divide the length of the rows they are read from, so none
  // straddles a row's end: a vector is read whole or not at all (a partly
  // valid vector takes element loads in a branch, each waited for).
  auto fitRow = [](int64_t vec, int64_t rowLength) {
    while (vec > 1 && rowLength % vec != 0)
      vec /= 2;
    return vec;
  };
  if (copy.kContiguous) {
    // 16-byte vectors along K.
    copy.vec = std::min<int64_t>(16 / eltBytes, plan.tileK);
    if (!(isLhs && plan.gatherLhs))
      copy.vec = fitRow(copy.vec, plan.k);
    copy.kRows = 1;
    copy.chunks = copy.rows * (plan.tileK / copy.vec);
    return copy;
  }
  // K is the slow dimension in global memory. Each thread reads `kRows`
  // consecutive K rows of `vec` elements along M (or N) and writes, for
  // each of them, `kRows` K-consecutive elements (8 bytes when the tile
  // allows it), transposing in registers instead of scattering elements.
  copy.kRows = 1;
  while (copy.kRows * 2 * eltBytes <= 8 && plan.tileK % (copy.kRows * 2) == 0)
    copy.kRows *= 2;
  // Keep every thread busy: narrower vectors when the tile is small.
  int64_t perThread = copy.rows * plan.tileK / threads;
  copy.vec = std::min<int64_t>(16 / eltBytes, copy.rows);
  while (copy.vec > 1 && copy.vec * copy.kRows > perThread &&
         copy.vec * eltBytes > 4)
    copy.vec /= 2;
  copy.vec = fitRow(copy.vec, isLhs ? plan.m : plan.n);
  copy.chunks = (plan.tileK / copy.kRows) * (copy.rows / copy.vec);
  return copy;
}

SmallVector<Value> KernelBuilder::loadTile(bool isLhs, Value step) {
  TileCopy copy = tileCopy(isLhs);
  Value mem = isLhs ? lhsMem : rhsMem;
  Type elt = isLhs ? lhsElt() : rhsElt();
  int64_t extent = isLhs ? plan.m : plan.n;
  Value base = isLhs ? rowBase : colBase;
  int64_t threads = plan.wavesM * plan.wavesN * plan.splitK * plan.waveSize;
  Value kBase = mul(step, idx(plan.tileK));
  bool inBounds = extent % copy.rows == 0 && plan.k % plan.tileK == 0;
  unsigned operand = isLhs ? 0 : 1;
  auto vecType = VectorType::get({copy.vec}, elt);
  SmallVector<Value> loaded;
  for (int64_t it = 0; it * threads < copy.chunks; ++it) {
    Value c = add(tid, idx(it * threads));
    auto emit = [&]() -> SmallVector<Value> {
      if (copy.kContiguous) {
        int64_t perRow = plan.tileK / copy.vec;
        Value gRow = add(base, div(c, perRow));
        Value gK = add(kBase, mul(rem(c, perRow), idx(copy.vec)));
        if (isLhs && plan.gatherLhs)
          return {gatherPatch(gRow, gK, copy.vec)};
        return {readVector(mem, operandIndices(mem, batchIdx, gRow, gK),
                           copy.vec, /*alongRows=*/false,
                           lessThan(gRow, extent), inBounds, operand)};
      }
      int64_t perK = copy.rows / copy.vec;
      Value kk = mul(div(c, perK), idx(copy.kRows));
      Value gRow = add(base, mul(rem(c, perK), idx(copy.vec)));
      SmallVector<Value> rows;
      for (int64_t q = 0; q < copy.kRows; ++q) {
        Value gK = add(kBase, add(kk, idx(q)));
        rows.push_back(readVector(mem, operandIndices(mem, batchIdx, gK, gRow),
                                  copy.vec, /*alongRows=*/false,
                                  lessThan(gK, plan.k), inBounds, operand));
      }
      return rows;
    };
    if ((it + 1) * threads <= copy.chunks) {
      llvm::append_range(loaded, emit());
      continue;
    }
    // The last round: only the threads with a chunk load (the others hold
    // zeros they never store).
    int64_t count = copy.kContiguous ? 1 : copy.kRows;
    auto ifOp = scf::IfOp::create(b, SmallVector<Type>(count, vecType),
                                  lessThan(c, copy.chunks),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, emit());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value zeros = arith::ConstantOp::create(
        b, vecType, DenseElementsAttr::get(vecType, b.getZeroAttr(elt)));
    scf::YieldOp::create(b, SmallVector<Value>(count, zeros));
    llvm::append_range(loaded, ifOp.getResults());
  }
  return loaded;
}

void KernelBuilder::storeTile(bool isLhs, ArrayRef<Value> loaded, Value slot) {
  TileCopy copy = tileCopy(isLhs);
  Value lds = isLhs ? ldsLhs : ldsRhs;
  Type elt = isLhs ? lhsElt() : rhsElt();
  int64_t threads = plan.wavesM * plan.wavesN * plan.splitK * plan.waveSize;
  int64_t eltBytes = std::max(1u, elt.getIntOrFloatBitWidth() / 8);
  int64_t rowBytes = cast<MemRefType>(lds.getType()).getDimSize(2) * eltBytes;
  int64_t perChunk = copy.kContiguous ? 1 : copy.kRows;
  for (int64_t it = 0; it * threads < copy.chunks; ++it) {
    Value c = add(tid, idx(it * threads));
    ArrayRef<Value> values = loaded.slice(it * perChunk, perChunk);
    auto emit = [&] {
      if (copy.kContiguous) {
        int64_t perRow = plan.tileK / copy.vec;
        Value r = div(c, perRow);
        Value kc = mul(rem(c, perRow), idx(copy.vec));
        vector::StoreOp::create(b, values[0], lds, ValueRange{slot, r, kc});
        return;
      }
      int64_t perK = copy.rows / copy.vec;
      Value kk = mul(div(c, perK), idx(copy.kRows));
      Value r = mul(rem(c, perK), idx(copy.vec));
      int64_t bytes = copy.kRows * eltBytes;
      for (int64_t e = 0; e < copy.vec; ++e) {
        SmallVector<Value> column;
        for (Value row : values)
          column.push_back(vector::ExtractOp::create(b, row, e));
        Value at = add(r, idx(e));
        if (copy.kRows == 1) {
          memref::StoreOp::create(b, column[0], lds, ValueRange{slot, at, kk});
          continue;
        }
        auto colType = VectorType::get({copy.kRows}, elt);
        auto store = vector::StoreOp::create(
            b, vector::FromElementsOp::create(b, colType, column), lds,
            ValueRange{slot, at, kk});
        if (rowBytes % bytes == 0 && llvm::isPowerOf2_64(bytes))
          store.setAlignment(bytes);
      }
    };
    if ((it + 1) * threads <= copy.chunks) {
      emit();
      continue;
    }
    auto ifOp = scf::IfOp::create(b, lessThan(c, copy.chunks), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    emit();
  }
}

void KernelBuilder::copyTileToLds(bool isLhs, Value step, Value slot) {
  storeTile(isLhs, loadTile(isLhs, step), slot);
}

Value KernelBuilder::loadFragment(bool isLhs, int64_t t, int64_t kOffset,
                                  Value step, Value slot) {
  // The lane holds one row (column) of the instruction tile, kpl
  // consecutive K from its K group's first on.
  const codegen::MmaEmitter &mma = *plan.mmaEmitter;
  MmaOperand operand = isLhs ? MmaOperand::A : MmaOperand::B;
  int64_t mn = isLhs ? mma.getM() : mma.getN();
  Value inTile =
      add(mul(isLhs ? waveRow : waveCol, idx(isLhs ? plan.waveM : plan.waveN)),
          add(idx(t * mn), mma.getOperandIndex(b, b.getLoc(), lane, operand)));
  Value kk = add(idx(kOffset),
                 mma.getOperandFirstK(b, b.getLoc(), lane, operand));
  Type elt = isLhs ? lhsElt() : rhsElt();
  Value frag;
  if (plan.shareLds) {
    auto vecType = VectorType::get({plan.kpl}, elt);
    frag = vector::LoadOp::create(b, vecType, isLhs ? ldsLhs : ldsRhs,
                                  ValueRange{slot, inTile, kk});
  } else {
    Value mem = isLhs ? lhsMem : rhsMem;
    bool kContiguous = isLhs ? !plan.transposeLhs : plan.transposeRhs;
    Value gRow = add(isLhs ? rowBase : colBase, inTile);
    Value gK = add(mul(step, idx(plan.tileK)), kk);
    int64_t extent = isLhs ? plan.m : plan.n;
    Value rowValid = lessThan(gRow, extent);
    bool inBounds = extent % (isLhs ? plan.tileM : plan.tileN) == 0 &&
                    plan.k % plan.tileK == 0;
    unsigned operand = isLhs ? 0 : 1;
    frag = isLhs && plan.gatherLhs ? gatherPatch(gRow, gK, plan.kpl)
           : kContiguous
               ? readVector(mem, operandIndices(mem, batchIdx, gRow, gK),
                            plan.kpl, /*alongRows=*/false, rowValid, inBounds,
                            operand)
               : readVector(mem, operandIndices(mem, batchIdx, gK, gRow),
                            plan.kpl, /*alongRows=*/true, rowValid, inBounds,
                            operand);
  }
  if (plan.kpl == 1)
    return vector::ExtractOp::create(b, frag, 0);
  return frag;
}

Value KernelBuilder::emitMma(Value a, Value bv, Value acc) {
  return plan.mmaEmitter->emitMma(b, b.getLoc(), a, bv, acc);
}

Value KernelBuilder::gatherPatch(Value row, Value k0, int64_t len) {
  const ConvGeometry &g = plan.conv;
  Type elt = lhsElt();
  Value zero = arith::ConstantOp::create(b, elt, b.getZeroAttr(elt));
  // The output pixel: image, row and column.
  Value rowValid = lessThan(row, plan.m);
  Value pixel = rem(row, g.oh * g.ow);
  Value image = select(rowValid, div(row, g.oh * g.ow), idx(0));
  Value iy0 = sub(mul(div(pixel, g.ow), idx(g.strideH)), idx(g.padTop));
  Value ix0 = sub(mul(rem(pixel, g.ow), idx(g.strideW)), idx(g.padLeft));
  int64_t taps = g.kh * g.kw;
  SmallVector<Value> elements;
  for (int64_t e = 0; e < len; ++e) {
    // K index -> (channel, ky, kx); the tap's input position.
    Value kk = add(k0, idx(e));
    Value tap = rem(kk, taps);
    Value iy = add(iy0, mul(div(tap, g.kw), idx(g.dilationH)));
    Value ix = add(ix0, mul(rem(tap, g.kw), idx(g.dilationW)));
    Value valid = both(both(rowValid, lessThan(kk, plan.k)),
                       both(inRange(iy, g.h), inRange(ix, g.w)));
    // Out-of-range taps load a valid address and are replaced by zero.
    Value channel = select(valid, div(kk, taps), idx(0));
    SmallVector<Value> at = {image, channel, select(valid, iy, idx(0)),
                             select(valid, ix, idx(0))};
    Value v = memref::LoadOp::create(b, lhsMem, at);
    // Padding is zero in the operand, after the prologue.
    elements.push_back(select(valid, applyPrologue(0, v, at, 3), zero));
  }
  return vector::FromElementsOp::create(b, VectorType::get({len}, elt),
                                        elements);
}

SmallVector<Value> KernelBuilder::resultCoords(Value i, Value j) {
  if (!plan.isConv) {
    auto type =
        cast<RankedTensorType>(plan.contraction->getResult(0).getType());
    if (type.getRank() == 3)
      return {batchIdx, i, j};
    return {i, j};
  }
  // Rows are output pixels (per image when the images are the batch).
  const ConvGeometry &g = plan.conv;
  Value image = plan.gatherLhs ? div(i, g.oh * g.ow) : batchIdx;
  Value pixel = plan.gatherLhs ? rem(i, g.oh * g.ow) : i;
  return {image, j, div(pixel, g.ow), rem(pixel, g.ow)};
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

// The epilogue computes with the same emitter as standalone elementwise
// kernels (ElementwiseEmitter.cpp), so a fused op and its standalone kernel
// follow the same rules (crest/Semantics/Scalar.h): compute type, rounding
// of each op to its result type, cast saturation, NaN -> 0 for integers.

Value KernelBuilder::convert(Value v, Type to) {
  return codegen::convertElements(b, b.getLoc(), v, to);
}

FailureOr<Value> KernelBuilder::emitElementwise(Operation *op,
                                                ArrayRef<Value> operands,
                                                Type elt) {
  return codegen::emitElementwise(b, op, operands, elt);
}

LogicalResult KernelBuilder::emitEpilogue(ValueRange accs,
                                          ArrayRef<Operation *> epilogue,
                                          ArrayRef<Value> bodyInputs,
                                          ArrayRef<Value> yielded) {
  const codegen::MmaEmitter &mma = *plan.mmaEmitter;
  int64_t tilesM = plan.waveM / mma.getM(), tilesN = plan.waveN / mma.getN();
  Location loc = b.getLoc();

  for (int64_t ti = 0; ti < tilesM; ++ti) {
    for (int64_t tj = 0; tj < tilesN; ++tj) {
      Value acc = accs[ti * tilesN + tj];
      Value j = add(colBase, add(mul(waveCol, idx(plan.waveN)),
                                 add(idx(tj * mma.getN()),
                                     mma.getAccColumn(b, loc, lane))));
      bool guarded = plan.m % plan.tileM != 0 || plan.n % plan.tileN != 0;
      SmallVector<Value> rows;
      for (int64_t r = 0; r < plan.accPerLane; ++r) {
        rows.push_back(add(rowBase,
                           add(mul(waveRow, idx(plan.waveM)),
                               add(idx(ti * mma.getM()),
                                   mma.getAccRow(b, loc, lane, r)))));
      }
      // Every input element of the lane's elements first (from clamped,
      // always valid coordinates), so that the loads are in flight together
      // instead of each waiting behind the previous element's store.
      SmallVector<IRMapping> loaded(plan.accPerLane);
      for (int64_t r = 0; r < plan.accPerLane; ++r) {
        Value i = rows[r], jj = j;
        if (guarded) {
          i = arith::MinUIOp::create(b, i, idx(plan.m - 1));
          jj = arith::MinUIOp::create(b, j, idx(plan.n - 1));
        }
        SmallVector<Value> coords = resultCoords(i, jj);
        for (Operation *op : epilogue)
          for (Value operand : op->getOperands()) {
            auto it = llvm::find(bodyInputs, operand);
            if (it != bodyInputs.end() && !loaded[r].contains(operand))
              loaded[r].map(operand,
                            loadEpilogueInput(
                                argMems[it - bodyInputs.begin()], coords));
          }
      }
      for (int64_t r = 0; r < plan.accPerLane; ++r) {
        Value i = rows[r];
        // Guard the element unless the tiles divide the output.
        OpBuilder::InsertionGuard g(b);
        if (guarded) {
          Value inBounds = arith::AndIOp::create(b, lessThan(i, plan.m),
                                                 lessThan(j, plan.n));
          auto ifOp = scf::IfOp::create(b, inBounds, false);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        }
        Value v = vector::ExtractOp::create(b, acc, r);
        if (failed(emitEpilogueElement(v, resultCoords(i, j), epilogue,
                                       bodyInputs, yielded, &loaded[r])))
          return failure();
      }
    }
  }
  return success();
}

FailureOr<Value>
KernelBuilder::elementOf(Value tensor, IRMapping &values,
                         llvm::function_ref<ArrayRef<Value>()> coords) {
  if (Value mapped = values.lookupOrNull(tensor))
    return mapped;
  Operation *def = tensor.getDefiningOp();
  DenseElementsAttr dense;
  if (def && matchPattern(def, m_Constant(&dense)) && dense.isSplat()) {
    Type elt = dense.getElementType();
    Value c = arith::ConstantOp::create(
        b, elt, cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    values.map(tensor, c);
    return c;
  }
  auto it = llvm::find(bodyArgs, tensor);
  if (it == bodyArgs.end())
    return emitError(tensor.getLoc())
           << "operand of a fused op is neither a kernel input, a splat "
              "constant nor computed in the kernel";
  Value element = loadEpilogueInput(argMems[it - bodyArgs.begin()], coords());
  values.map(tensor, element);
  return element;
}

LogicalResult
KernelBuilder::emitElementOps(ArrayRef<Operation *> ops, IRMapping &values,
                              llvm::function_ref<ArrayRef<Value>()> coords) {
  for (Operation *op : ops) {
    if (matchPattern(op, m_Constant()))
      continue;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> v = elementOf(operand, values, coords);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    Type elt =
        cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
    FailureOr<Value> result = emitElementwise(op, operands, elt);
    if (failed(result))
      return failure();
    values.map(op->getResult(0), *result);
  }
  return success();
}

SmallVector<Value> KernelBuilder::sourceCoords(unsigned operand,
                                               ArrayRef<Value> indices) {
  if (!plan.isConv || (operand == 0 && plan.gatherLhs))
    return SmallVector<Value>(indices);
  const ConvGeometry &g = plan.conv;
  if (operand == 0) // N x C x (H * W)
    return {indices[0], indices[1], div(indices[2], g.w),
            rem(indices[2], g.w)};
  // The filter as F x (C * KH * KW).
  Value tap = rem(indices[1], g.kh * g.kw);
  return {indices[0], div(indices[1], g.kh * g.kw), div(tap, g.kw),
          rem(tap, g.kw)};
}

Value KernelBuilder::applyPrologue(unsigned operand, Value loaded,
                                   ArrayRef<Value> indices, unsigned dim) {
  ArrayRef<Operation *> ops = plan.prologue[operand];
  if (ops.empty())
    return loaded;
  Value result = plan.contraction->getOperand(operand);
  Type outElt = operand == 0 ? lhsElt() : rhsElt();
  auto vecType = dyn_cast<VectorType>(loaded.getType());
  int64_t len = vecType ? vecType.getNumElements() : 1;
  SmallVector<Value> out;
  for (int64_t e = 0; e < len; ++e) {
    // After a failure (reported once) the kernel is dropped: zeros.
    if (prologueFailed) {
      out.push_back(
          arith::ConstantOp::create(b, outElt, b.getZeroAttr(outElt)));
      continue;
    }
    Value element =
        vecType ? vector::ExtractOp::create(b, loaded, e).getResult() : loaded;
    // The element's coordinates, computed only if an op loads another
    // input there. A vector's elements past the end of the operand (read
    // as zero, and zero after the prologue) load that input at the last
    // element instead: always a valid address.
    std::optional<SmallVector<Value>> coords;
    auto at = [&]() -> ArrayRef<Value> {
      if (!coords) {
        SmallVector<Value> where(indices);
        if (vecType) {
          Value mem = operand == 0 ? lhsMem : rhsMem;
          int64_t extent = cast<MemRefType>(mem.getType()).getDimSize(dim);
          where[dim] = arith::MinUIOp::create(b, add(where[dim], idx(e)),
                                              idx(extent - 1));
        }
        coords = sourceCoords(operand, where);
      }
      return *coords;
    };
    IRMapping values;
    values.map(plan.prologueSource[operand], element);
    if (failed(emitElementOps(ops, values, at))) {
      prologueFailed = true;
      out.push_back(
          arith::ConstantOp::create(b, outElt, b.getZeroAttr(outElt)));
      continue;
    }
    out.push_back(values.lookup(result));
  }
  if (!vecType)
    return out[0];
  return vector::FromElementsOp::create(b, VectorType::get({len}, outElt),
                                        out);
}

Value KernelBuilder::loadEpilogueInput(Value mem, ArrayRef<Value> coords) {
  auto type = cast<MemRefType>(mem.getType());
  int64_t rank = type.getRank(), resultRank = coords.size();
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t coord = resultRank - rank + d;
    if (type.getDimSize(d) == 1 || coord < 0)
      indices.push_back(idx(0));
    else
      indices.push_back(coords[coord]);
  }
  return memref::LoadOp::create(b, mem, indices);
}

LogicalResult KernelBuilder::emitEpilogueElement(Value acc,
                                                 ArrayRef<Value> coords,
                                                 ArrayRef<Operation *> epilogue,
                                                 ArrayRef<Value> bodyInputs,
                                                 ArrayRef<Value> yielded,
                                                 const IRMapping *loaded) {
  Value contractionResult = plan.contraction->getResult(0);
  Type outElt =
      cast<RankedTensorType>(contractionResult.getType()).getElementType();
  int64_t numInputs = bodyArgs.size();
  IRMapping values;
  if (loaded)
    values = *loaded;
  values.map(contractionResult, convert(acc, outElt));
  auto at = [&]() { return coords; };
  if (failed(emitElementOps(epilogue, values, at)))
    return failure();
  for (auto [index, value] : llvm::enumerate(yielded)) {
    FailureOr<Value> v = elementOf(value, values, at);
    if (failed(v))
      return failure();
    memref::StoreOp::create(b, *v, argMems[numInputs + index], coords);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel body
//===----------------------------------------------------------------------===//

/// The kernel prologue both GEMM bodies share: the buffers of the
/// operands (a convolution's collapsed to GEMM shape), the LDS buffers and
/// the workgroup's tile origin.
void KernelBuilder::bindKernel(gpu::GPUFuncOp func,
                               ArrayRef<Value> bodyInputs) {
  b.setInsertionPointToStart(&func.getBody().front());
  for (BlockArgument arg : func.getArguments())
    argMems.push_back(arg);
  bodyArgs.assign(bodyInputs.begin(), bodyInputs.end());
  auto inputIndex = [&](Value v) {
    return llvm::find(bodyInputs, v) - bodyInputs.begin();
  };
  // An operand with a prologue is read from the prologue's source.
  ContractionOpInterface contraction = plan.contraction;
  auto stored = [&](unsigned operand) {
    Value source = plan.prologueSource[operand];
    return source ? source : contraction->getOperand(operand);
  };
  lhsMem = argMems[inputIndex(stored(0))];
  rhsMem = argMems[inputIndex(stored(1))];
  if (plan.isConv) {
    // The filter as F x (C * KH * KW); a pointwise convolution's input as
    // N x C x (H * W).
    rhsMem = memref::CollapseShapeOp::create(
        b, rhsMem, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    if (!plan.gatherLhs)
      lhsMem = memref::CollapseShapeOp::create(
          b, lhsMem, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  }
  if (plan.shareLds) {
    ldsLhs = func.getWorkgroupAttributions()[0];
    ldsRhs = func.getWorkgroupAttributions()[1];
  }
  if (plan.globalSplitK > 1) {
    // The last two kernel arguments (the block's arguments go on with the
    // workgroup attributions).
    size_t args = func.getFunctionType().getNumInputs();
    workspaceMem = argMems[args - 2];
    semaphoreMem = argMems[args - 1];
  }
  if (plan.splitK > 1 || plan.rhsVector > 1)
    ldsPartials = func.getWorkgroupAttributions().back();
  Value tileX = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  if (plan.globalSplitK > 1) {
    // Workgroup x = tile + tilesAlongN * group.
    group = div(tileX, plan.tilesAlongN);
    tileX = rem(tileX, plan.tilesAlongN);
  }
  colBase = mul(tileX, idx(plan.tileN));
  rowBase = mul(gpu::BlockIdOp::create(b, gpu::Dimension::y), idx(plan.tileM));
  batchIdx = gpu::BlockIdOp::create(b, gpu::Dimension::z);
}

LogicalResult KernelBuilder::build(gpu::GPUFuncOp func,
                                   ArrayRef<Operation *> epilogue,
                                   ArrayRef<Value> bodyInputs,
                                   ArrayRef<Value> yielded) {
  bindKernel(func, bodyInputs);

  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value wave = div(tid, plan.waveSize);
  lane = rem(tid, plan.waveSize);
  // Waves [s * wavesM * wavesN, (s + 1) * wavesM * wavesN) cover the
  // workgroup tile for K slice s.
  Value waveInSlice = rem(wave, plan.wavesM * plan.wavesN);
  kSlice = div(wave, plan.wavesM * plan.wavesN);
  waveRow = div(waveInSlice, plan.wavesN);
  waveCol = rem(waveInSlice, plan.wavesN);

  const MmaInstruction &mma = *plan.mma;
  int64_t tilesM = plan.waveM / mma.m, tilesN = plan.waveN / mma.n;
  auto accVecType = VectorType::get({plan.accPerLane}, plan.accType);
  Value zeroAcc = arith::ConstantOp::create(
      b, accVecType,
      DenseElementsAttr::get(accVecType, b.getZeroAttr(plan.accType)));
  SmallVector<Value> initAccs(tilesM * tilesN, zeroAcc);

  int64_t steps = llvm::divideCeil(plan.k, plan.tileK);
  int64_t stages = plan.stages;
  // Prologue: fill the first stages - 1 slots.
  if (plan.shareLds)
    for (int64_t s = 0; s < std::min<int64_t>(stages - 1, steps); ++s) {
      copyTileToLds(true, idx(s), idx(s));
      copyTileToLds(false, idx(s), idx(s));
    }

  // With split-K, wave slice s runs the K steps s, s + splitK, ...
  auto loop = plan.splitK > 1
                  ? scf::ForOp::create(b, kSlice, idx(steps), idx(plan.splitK),
                                       initAccs)
                  : scf::ForOp::create(b, idx(0), idx(steps), idx(1), initAccs);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    Value slot, ahead;
    SmallVector<Value> aheadLhs, aheadRhs;
    if (plan.shareLds) {
      if (stages == 1) {
        copyTileToLds(true, t, idx(0));
        copyTileToLds(false, t, idx(0));
        slot = idx(0);
      } else {
        // Software pipelining, in this order: read every fragment of step
        // t from LDS and wait for them; issue the global loads of step
        // t + stages - 1 into registers; run step t's MFMAs; write the
        // loaded tile into its LDS slot. The loads' latency hides behind
        // the MFMAs, and no LDS wait falls while they are in flight (a
        // model that, like llvm-mca's, counts global loads on the LDS
        // counter too, would otherwise stall there). The last stages - 1
        // iterations reload the last step and do not store it.
        ahead = add(t, idx(stages - 1));
        slot = rem(t, stages);
      }
    }
    SmallVector<Value> accs(loop.getRegionIterArgs());
    // [kk][tile] fragments of the whole K step.
    SmallVector<SmallVector<Value>> aFrags, bFrags;
    auto loadFragments = [&](int64_t kk) {
      aFrags.emplace_back();
      bFrags.emplace_back();
      for (int64_t ti = 0; ti < tilesM; ++ti)
        aFrags.back().push_back(loadFragment(true, ti, kk, t, slot));
      for (int64_t tj = 0; tj < tilesN; ++tj)
        bFrags.back().push_back(loadFragment(false, tj, kk, t, slot));
    };
    if (ahead) {
      for (int64_t kk = 0; kk < plan.tileK; kk += mma.k)
        loadFragments(kk);
      auto none = amdgpu::sched_barrier_opt_enum::none;
      amdgpu::SchedBarrierOp::create(b, none);
      amdgpu::MemoryCounterWaitOp::create(b, IntegerAttr(), IntegerAttr(),
                                          b.getI32IntegerAttr(0), IntegerAttr(),
                                          IntegerAttr());
    }
    for (int64_t kk = 0, s = 0; kk < plan.tileK; kk += mma.k, ++s) {
      if (!ahead)
        loadFragments(kk);
      for (int64_t ti = 0; ti < tilesM; ++ti)
        for (int64_t tj = 0; tj < tilesN; ++tj)
          accs[ti * tilesN + tj] =
              emitMma(aFrags[s][ti], bFrags[s][tj], accs[ti * tilesN + tj]);
      // The global loads go with the first MFMAs (their address arithmetic
      // fills the MFMA issue gaps); the other MFMAs cover their latency.
      if (ahead && s == 0) {
        Value aheadStep = arith::MinUIOp::create(b, ahead, idx(steps - 1));
        aheadLhs = loadTile(true, aheadStep);
        aheadRhs = loadTile(false, aheadStep);
        amdgpu::SchedBarrierOp::create(b, amdgpu::sched_barrier_opt_enum::none);
      }
    }
    if (ahead) {
      // Keep the LDS writes (and their wait for the loads) after the MFMAs.
      amdgpu::SchedBarrierOp::create(b, amdgpu::sched_barrier_opt_enum::none);
      auto ifOp = scf::IfOp::create(b, lessThan(ahead, steps), false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value aheadSlot = rem(ahead, stages);
      storeTile(true, aheadLhs, aheadSlot);
      storeTile(false, aheadRhs, aheadSlot);
      // Wait for the LDS writes here, before the loop's barrier: LLVM's
      // waitcnt insertion may drop the wait the barrier's release fence
      // implies when the writes sit in this conditional block at the end
      // of the loop (seen with gathered convolution tiles on gfx942; the
      // emulator reports the unwaited write).
      amdgpu::MemoryCounterWaitOp::create(b, IntegerAttr(), IntegerAttr(),
                                          b.getI32IntegerAttr(0), IntegerAttr(),
                                          IntegerAttr());
    }
    scf::YieldOp::create(b, accs);
  }
  SmallVector<Value> sums(loop.getResults());
  OpBuilder::InsertionGuard epilogueGuard(b);
  if (plan.splitK > 1) {
    // Split-K: slices 1.. leave their partial sums in LDS, slice 0 adds
    // them (in slice order) and runs the epilogue and the single store.
    // The barrier between the two is crest-insert-barriers' to place.
    Value waveInSlice = add(mul(waveRow, idx(plan.wavesN)), waveCol);
    auto writeIf = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, kSlice, idx(0)),
        false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&writeIf.getThenRegion().front());
      Value partial = arith::SubIOp::create(b, kSlice, idx(1));
      for (auto [tile, acc] : llvm::enumerate(sums))
        vector::StoreOp::create(
            b, acc, ldsPartials,
            ValueRange{partial, waveInSlice, idx(tile), lane, idx(0)});
    }
    auto reduceIf = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kSlice, idx(0)),
        false);
    b.setInsertionPointToStart(&reduceIf.getThenRegion().front());
    auto accVecType = VectorType::get({plan.accPerLane}, plan.accType);
    for (int64_t s = 1; s < plan.splitK; ++s)
      for (int64_t tile = 0, e = sums.size(); tile < e; ++tile) {
        Value other = vector::LoadOp::create(
            b, accVecType, ldsPartials,
            ValueRange{idx(s - 1), waveInSlice, idx(tile), lane, idx(0)});
        Value &acc = sums[tile];
        acc = isa<FloatType>(plan.accType)
                  ? arith::AddFOp::create(b, acc, other).getResult()
                  : arith::AddIOp::create(b, acc, other).getResult();
      }
  }
  return emitEpilogue(sums, epilogue, bodyInputs, yielded);
}

//===----------------------------------------------------------------------===//
// The skinny-GEMM kernel (rhs_vector > 1)
//===----------------------------------------------------------------------===//
//
// For small M the kernel streams B and is bound by how fast it can read it.
// B (K x N, row-major) is read with one wide load per lane: lane j + n * g
// of an MMA with n columns and kpl elements per lane loads rhs_vector (v)
// consecutive columns [v * j, v * j + v) of each of its kpl K rows
// (g * kpl + q), and the v elements of each load become the kpl-element
// fragments of v MMA tiles by a register transpose: tile e's column j is
// B column v * j + e. A is read in the MMA's own layout (K-contiguous,
// 8 bytes per lane for f16), its rows clamped to M - 1: rows past M and
// columns past N compute values that are never stored. Every wave of the
// workgroup owns the same output tile and runs every split_k-th K step,
// with the loads of `stages - 1` steps in flight in registers ahead of the
// MFMAs that consume them. After the loop each wave stores its partial sums
// row-major in LDS ([slice][row][column]); after the barrier the first
// waves add them in slice order (deterministic), each for its own block of
// columns, in the MMA's accumulator layout, and run the fused epilogue.

/// K order within a step of the skinny path: lane group g (lane / n) owns
/// the `kpl * substeps` consecutive K indices from g * kpl * substeps, of
/// which instruction K substep s takes the kpl from s * kpl. A lane's lhs
/// elements of one step are then contiguous (one 16-byte load for two f16
/// substeps); A and B follow the same order, so the sum is unchanged.
static int64_t vectorRhsLhsChunk(const KernelPlan &plan, Type lhsElt) {
  int64_t perLane = plan.kpl * (plan.tileK / plan.mma->k);
  unsigned bytes = std::max(1u, lhsElt.getIntOrFloatBitWidth() / 8);
  return std::min<int64_t>(perLane, std::max<int64_t>(16 / bytes, 1));
}

SmallVector<Value> KernelBuilder::loadVectorRhsStep(Value step, Value rhsCol,
                                                    ArrayRef<Value> lhsRows,
                                                    bool guardK) {
  const MmaInstruction &mma = *plan.mma;
  int64_t v = plan.rhsVector, kpl = plan.kpl;
  int64_t substeps = plan.tileK / mma.k, perLane = kpl * substeps;
  Type elt = rhsElt();
  auto vecType = VectorType::get({v}, elt);
  // The rhs as stored (before its prologue).
  Type storedElt = cast<MemRefType>(rhsMem.getType()).getElementType();
  auto storedType = VectorType::get({v}, storedElt);
  unsigned eltBytes = std::max(1u, storedElt.getIntOrFloatBitWidth() / 8);
  // This lane's first K index in the step (A and B lanes of the same K
  // group own the same K indices).
  Location loc = b.getLoc();
  auto firstK = [&](MmaOperand operand) {
    return add(mul(step, idx(plan.tileK)),
               mul(plan.mmaEmitter->getOperandKGroup(b, loc, lane, operand),
                   idx(perLane)));
  };
  Value kLane = firstK(MmaOperand::B);
  Value zeros = arith::ConstantOp::create(
      b, vecType, DenseElementsAttr::get(vecType, b.getZeroAttr(elt)));
  SmallVector<Value> loaded;
  // The rhs: one v-element row vector per K index of the lane.
  for (int64_t e = 0; e < perLane; ++e) {
    Value row = add(kLane, idx(e));
    Value at = row;
    if (guardK)
      at = arith::MinUIOp::create(b, row, idx(plan.k - 1));
    SmallVector<Value> indices = operandIndices(rhsMem, batchIdx, at, rhsCol);
    auto load = vector::LoadOp::create(b, storedType, rhsMem, indices);
    if (llvm::isPowerOf2_64(v * eltBytes))
      load.setAlignment(v * eltBytes);
    Value value = applyPrologue(1, load, indices, indices.size() - 1);
    if (guardK)
      value = select(lessThan(row, plan.k), value, zeros);
    loaded.push_back(value);
  }
  // The lhs: the lane's contiguous K elements of each of its rows, in
  // chunks of at most 16 bytes; only lanes whose row is inside M load.
  int64_t chunk = vectorRhsLhsChunk(plan, lhsElt());
  Value kLhs = firstK(MmaOperand::A);
  for (Value lhsRow : lhsRows)
    for (int64_t c = 0; c < perLane; c += chunk)
      loaded.push_back(readVector(
          lhsMem, operandIndices(lhsMem, batchIdx, lhsRow, add(kLhs, idx(c))),
          chunk, /*alongRows=*/false, lessThan(lhsRow, plan.m),
          /*alwaysInBounds=*/!guardK && plan.m % plan.tileM == 0,
          /*operand=*/0));
  return loaded;
}

void KernelBuilder::computeVectorRhsStep(ArrayRef<Value> loaded,
                                         MutableArrayRef<Value> accs) {
  const MmaInstruction &mma = *plan.mma;
  int64_t v = plan.rhsVector, kpl = plan.kpl;
  int64_t tilesM = plan.waveM / mma.m;
  int64_t substeps = plan.tileK / mma.k, perLane = kpl * substeps;
  int64_t chunk = vectorRhsLhsChunk(plan, lhsElt());
  int64_t chunks = perLane / chunk;
  auto fragType = VectorType::get({kpl}, rhsElt());
  for (int64_t s = 0; s < substeps; ++s) {
    ArrayRef<Value> rows = loaded.slice(s * kpl, kpl);
    // This substep's lhs fragments: kpl elements of one chunk.
    SmallVector<Value> lhs;
    int64_t first = s * kpl;
    for (int64_t ti = 0; ti < tilesM; ++ti) {
      Value vec = loaded[perLane + ti * chunks + first / chunk];
      int64_t offset = first % chunk;
      if (kpl == 1)
        lhs.push_back(vector::ExtractOp::create(b, vec, offset));
      else if (kpl == chunk)
        lhs.push_back(vec);
      else {
        SmallVector<Value> elements;
        for (int64_t e = 0; e < kpl; ++e)
          elements.push_back(vector::ExtractOp::create(b, vec, offset + e));
        lhs.push_back(vector::FromElementsOp::create(
            b, VectorType::get({kpl}, lhsElt()), elements));
      }
    }
    for (int64_t col = 0; col < v; ++col) {
      // Tile `col`'s fragment: element `col` of each of the kpl K rows.
      SmallVector<Value> elements;
      for (Value row : rows)
        elements.push_back(vector::ExtractOp::create(b, row, col));
      Value frag = kpl == 1 ? elements[0]
                            : vector::FromElementsOp::create(b, fragType,
                                                             elements)
                                  .getResult();
      for (int64_t ti = 0; ti < tilesM; ++ti)
        accs[ti * v + col] = emitMma(lhs[ti], frag, accs[ti * v + col]);
    }
  }
}

LogicalResult KernelBuilder::buildVectorRhs(gpu::GPUFuncOp func,
                                            ArrayRef<Operation *> epilogue,
                                            ArrayRef<Value> bodyInputs,
                                            ArrayRef<Value> yielded) {
  bindKernel(func, bodyInputs);

  const MmaInstruction &mma = *plan.mma;
  int64_t v = plan.rhsVector, split = plan.splitK, stages = plan.stages;
  int64_t tilesM = plan.waveM / mma.m;
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = rem(tid, plan.waveSize);
  kSlice = div(tid, plan.waveSize);
  waveRow = idx(0);
  waveCol = idx(0);

  // The lane's v columns (clamped into N) and its lhs rows.
  const codegen::MmaEmitter &emitter = *plan.mmaEmitter;
  Location loc = b.getLoc();
  Value rhsCol = arith::MinUIOp::create(
      b,
      add(colBase,
          mul(emitter.getOperandIndex(b, loc, lane, MmaOperand::B), idx(v))),
      idx(plan.n - v));
  SmallVector<Value> lhsRows;
  for (int64_t ti = 0; ti < tilesM; ++ti)
    lhsRows.push_back(
        add(rowBase,
            add(idx(ti * mma.m),
                emitter.getOperandIndex(b, loc, lane, MmaOperand::A))));

  auto accVecType = VectorType::get({plan.accPerLane}, plan.accType);
  Value zeroAcc = arith::ConstantOp::create(
      b, accVecType,
      DenseElementsAttr::get(accVecType, b.getZeroAttr(plan.accType)));
  SmallVector<Value> accs(tilesM * v, zeroAcc);

  // Steps [0, fullSteps) need no K guard; a partial last step is peeled.
  // With global split-K this workgroup adds up steps [first, end), and the
  // last group also the partial step.
  int64_t fullSteps = plan.k / plan.tileK;
  int64_t ahead = stages - 1;
  int64_t groups = plan.globalSplitK;
  Value first = idx(0), end = idx(fullSteps);
  if (groups > 1) {
    first = mul(group, idx(plan.stepsPerGroup));
    end = arith::MinUIOp::create(b, add(first, idx(plan.stepsPerGroup)),
                                 idx(fullSteps));
  }
  int64_t lastFirst = (groups - 1) * plan.stepsPerGroup;
  // Loads of step `step`, or zeros (no loads) when the step is past the
  // slice's range: a uniform branch.
  auto loadIfInRange = [&](Value step) -> SmallVector<Value> {
    // The rhs row vectors of the step, then the lhs chunks of each row tile.
    int64_t perLane = plan.kpl * (plan.tileK / mma.k);
    int64_t chunk = vectorRhsLhsChunk(plan, lhsElt());
    SmallVector<Type> types(perLane, VectorType::get({v}, rhsElt()));
    types.append(tilesM * (perLane / chunk),
                 VectorType::get({chunk}, lhsElt()));
    auto ifOp = scf::IfOp::create(
        b, types,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, step, end),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loadVectorRhsStep(step, rhsCol, lhsRows, false));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    SmallVector<Value> zeros;
    for (Type t : types)
      zeros.push_back(arith::ConstantOp::create(
          b, t, DenseElementsAttr::get(cast<ShapedType>(t),
                                       b.getZeroAttr(getElementTypeOrSelf(t)))));
    scf::YieldOp::create(b, zeros);
    return SmallVector<Value>(ifOp.getResults());
  };

  if (fullSteps > 0) {
    // Prologue: the first `ahead` steps of this slice.
    SmallVector<Value> inFlight;
    int64_t perStep = 0;
    for (int64_t a = 0; a < ahead; ++a) {
      SmallVector<Value> loaded =
          loadIfInRange(add(first, add(kSlice, idx(a * split))));
      perStep = loaded.size();
      llvm::append_range(inFlight, loaded);
    }
    SmallVector<Value> init(accs);
    llvm::append_range(init, inFlight);
    auto loop =
        scf::ForOp::create(b, add(first, kSlice), end, idx(split), init);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      auto args = loop.getRegionIterArgs();
      SmallVector<Value> loopAccs(args.begin(), args.begin() + accs.size());
      SmallVector<Value> carried(args.begin() + accs.size(), args.end());
      SmallVector<Value> current, next;
      if (ahead == 0) {
        current = loadVectorRhsStep(t, rhsCol, lhsRows, false);
      } else {
        // Issue step t + ahead * split's loads before this step's MFMAs.
        current.assign(carried.begin(), carried.begin() + perStep);
        next.assign(carried.begin() + perStep, carried.end());
        llvm::append_range(next, loadIfInRange(add(t, idx(ahead * split))));
        amdgpu::SchedBarrierOp::create(b,
                                       amdgpu::sched_barrier_opt_enum::none);
      }
      computeVectorRhsStep(current, loopAccs);
      SmallVector<Value> yieldValues(loopAccs);
      llvm::append_range(yieldValues, next);
      scf::YieldOp::create(b, yieldValues);
    }
    for (size_t i = 0; i < accs.size(); ++i)
      accs[i] = loop.getResult(i);
  }
  if (plan.k % plan.tileK != 0) {
    // The partial last step, in the last group's slice whose turn it is.
    Value mine = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, kSlice,
                                       idx((fullSteps - lastFirst) % split));
    if (groups > 1)
      mine = both(mine, arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                              group, idx(groups - 1)));
    auto tail = scf::IfOp::create(b, TypeRange(ValueRange(accs)), mine,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&tail.getThenRegion().front());
      SmallVector<Value> tailAccs(accs);
      computeVectorRhsStep(
          loadVectorRhsStep(idx(fullSteps), rhsCol, lhsRows, true), tailAccs);
      scf::YieldOp::create(b, tailAccs);
      b.setInsertionPointToStart(&tail.getElseRegion().front());
      scf::YieldOp::create(b, accs);
    }
    for (size_t i = 0; i < accs.size(); ++i)
      accs[i] = tail.getResult(i);
  }

  // Partial sums to LDS, row-major: for each accumulator register a lane
  // stores its v tiles' values, which are v consecutive columns (its B
  // column index is its accumulator column).
  auto rowOf = [&](int64_t ti, int64_t r) {
    return add(idx(ti * mma.m), emitter.getAccRow(b, loc, lane, r));
  };
  auto rowVecType = VectorType::get({v}, plan.accType);
  for (int64_t ti = 0; ti < tilesM; ++ti)
    for (int64_t r = 0; r < plan.accPerLane; ++r) {
      Value i = rowOf(ti, r);
      SmallVector<Value> values;
      for (int64_t col = 0; col < v; ++col)
        values.push_back(vector::ExtractOp::create(b, accs[ti * v + col], r));
      OpBuilder::InsertionGuard g(b);
      if (plan.reduceRows < plan.waveM) {
        auto ifOp = scf::IfOp::create(b, lessThan(i, plan.reduceRows), false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      vector::StoreOp::create(
          b, vector::FromElementsOp::create(b, rowVecType, values),
          ldsPartials,
          ValueRange{kSlice, i, mul(emitter.getAccColumn(b, loc, lane), idx(v))});
    }

  // The first `epilogueWaves` waves each add up a block of columns in the
  // MMA's accumulator layout and run the epilogue on it.
  int64_t tilesN = plan.waveN / mma.n;
  // A power of two that divides the (power-of-two) tiles: every wave gets
  // the same number of them.
  int64_t epilogueWaves = 1;
  while (epilogueWaves * 2 <= std::min(split, tilesN) &&
         tilesN % (epilogueWaves * 2) == 0)
    epilogueWaves *= 2;
  int64_t tilesPerWave = tilesN / epilogueWaves;
  KernelPlan epiloguePlan = plan;
  epiloguePlan.waveN = tilesPerWave * mma.n;
  epiloguePlan.wavesN = epilogueWaves;
  KernelBuilder finisher(epiloguePlan, b);
  finisher.argMems = argMems;
  finisher.bodyArgs = bodyArgs;
  finisher.lane = lane;
  finisher.rowBase = rowBase;
  finisher.colBase = colBase;
  finisher.batchIdx = batchIdx;
  finisher.waveRow = idx(0);
  finisher.waveCol = kSlice;
  auto reduceIf = scf::IfOp::create(b, lessThan(kSlice, epilogueWaves), false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&reduceIf.getThenRegion().front());
  // The tile column of this lane's elements of MMA tile tj.
  auto colOf = [&](int64_t tj) {
    return add(mul(kSlice, idx(tilesPerWave * mma.n)),
               add(idx(tj * mma.n), emitter.getAccColumn(b, loc, lane)));
  };
  SmallVector<Value> sums;
  for (int64_t ti = 0; ti < tilesM; ++ti)
    for (int64_t tj = 0; tj < tilesPerWave; ++tj) {
      Value col = colOf(tj);
      SmallVector<Value> elements;
      for (int64_t r = 0; r < plan.accPerLane; ++r) {
        // Rows past reduceRows are past M: any value will do.
        Value i = arith::MinUIOp::create(b, rowOf(ti, r),
                                         idx(plan.reduceRows - 1));
        Value sum;
        for (int64_t s = 0; s < split; ++s) {
          Value part = memref::LoadOp::create(b, ldsPartials,
                                              ValueRange{idx(s), i, col});
          sum = !sum ? part
                : isa<FloatType>(plan.accType)
                    ? arith::AddFOp::create(b, sum, part).getResult()
                    : arith::AddIOp::create(b, sum, part).getResult();
        }
        elements.push_back(sum);
      }
      sums.push_back(vector::FromElementsOp::create(b, accVecType, elements));
    }
  if (groups == 1) {
    return finisher.emitEpilogue(sums, epilogue, bodyInputs, yielded);
  }

  // Global split-K: this workgroup's sums go to its slice of the
  // workspace; the workgroup that arrives last at the tile's semaphore adds
  // the groups' slices up in group order and runs the epilogue.
  auto forEachElement = [&](auto &&fn) {
    for (int64_t ti = 0; ti < tilesM; ++ti)
      for (int64_t tj = 0; tj < tilesPerWave; ++tj)
        for (int64_t r = 0; r < plan.accPerLane; ++r)
          fn(ti * tilesPerWave + tj, r, add(rowBase, rowOf(ti, r)),
             add(colBase, colOf(tj)));
  };
  forEachElement([&](int64_t t, int64_t r, Value row, Value col) {
    OpBuilder::InsertionGuard inner(b);
    auto inside = scf::IfOp::create(
        b, both(lessThan(row, plan.m), lessThan(col, plan.n)), false);
    b.setInsertionPointToStart(&inside.getThenRegion().front());
    memref::StoreOp::create(b, vector::ExtractOp::create(b, sums[t], r),
                            workspaceMem,
                            ValueRange{group, batchIdx, row, col});
  });
  b.setInsertionPointAfter(reduceIf);
  // Every wave's stores are visible device-wide before the workgroup
  // arrives (each wave releases its own, as the leader's atomic cannot).
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::release, "agent");
  gpu::BarrierOp::create(b);
  int64_t tilesAlongM = llvm::divideCeil(plan.m, plan.tileM);
  Value tile =
      add(mul(add(mul(batchIdx, idx(tilesAlongM)), div(rowBase, plan.tileM)),
              idx(plan.tilesAlongN)),
          div(colBase, plan.tileN));
  Type i32 = b.getI32Type();
  auto i32Const = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, i32, v).getResult();
  };
  {
    OpBuilder::InsertionGuard inner(b);
    auto leader = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0)),
        false);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    Value before = memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::addi, i32Const(1), semaphoreMem,
        ValueRange{tile});
    Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, before,
                                       i32Const(groups - 1));
    // The flag goes where the first partial sum was (read before the
    // barrier above): 1 or 0 in the accumulator type.
    Value one = isa<FloatType>(plan.accType)
                    ? arith::ConstantOp::create(b, b.getFloatAttr(plan.accType,
                                                                  1.0))
                          .getResult()
                    : arith::ConstantIntOp::create(b, plan.accType, 1)
                          .getResult();
    Value zero = arith::ConstantOp::create(b, b.getZeroAttr(plan.accType));
    memref::StoreOp::create(b, select(last, one, zero), ldsPartials,
                            ValueRange{idx(0), idx(0), idx(0)});
    // Every group has arrived: the semaphore is free for the next launch.
    auto reset = scf::IfOp::create(b, last, false);
    b.setInsertionPointToStart(&reset.getThenRegion().front());
    memref::StoreOp::create(b, i32Const(0), semaphoreMem, ValueRange{tile});
  }
  gpu::BarrierOp::create(b);
  Value flag = memref::LoadOp::create(b, ldsPartials,
                                      ValueRange{idx(0), idx(0), idx(0)});
  Value arrivedLast =
      isa<FloatType>(plan.accType)
          ? arith::CmpFOp::create(
                b, arith::CmpFPredicate::ONE, flag,
                arith::ConstantOp::create(b, b.getZeroAttr(plan.accType)))
                .getResult()
          : arith::CmpIOp::create(
                b, arith::CmpIPredicate::ne, flag,
                arith::ConstantOp::create(b, b.getZeroAttr(plan.accType)))
                .getResult();
  auto finishIf = scf::IfOp::create(
      b, both(arrivedLast, lessThan(kSlice, epilogueWaves)), false);
  b.setInsertionPointToStart(&finishIf.getThenRegion().front());
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::acquire, "agent");
  SmallVector<SmallVector<Value>> totals(sums.size());
  forEachElement([&](int64_t t, int64_t r, Value row, Value col) {
    // Rows and columns past the problem: any value will do.
    row = arith::MinUIOp::create(b, row, idx(plan.m - 1));
    col = arith::MinUIOp::create(b, col, idx(plan.n - 1));
    Value total;
    for (int64_t g = 0; g < groups; ++g) {
      Value part = memref::LoadOp::create(
          b, workspaceMem, ValueRange{idx(g), batchIdx, row, col});
      total = !total ? part
              : isa<FloatType>(plan.accType)
                  ? arith::AddFOp::create(b, total, part).getResult()
                  : arith::AddIOp::create(b, total, part).getResult();
    }
    totals[t].push_back(total);
  });
  SmallVector<Value> totalVectors;
  for (ArrayRef<Value> elements : totals)
    totalVectors.push_back(
        vector::FromElementsOp::create(b, accVecType, elements));
  return finisher.emitEpilogue(totalVectors, epilogue, bodyInputs, yielded);
}

LogicalResult KernelBuilder::buildDirectConv(gpu::GPUFuncOp func,
                                             int64_t blockSize,
                                             ArrayRef<Operation *> epilogue,
                                             ArrayRef<Value> bodyInputs,
                                             ArrayRef<Value> yielded) {
  b.setInsertionPointToStart(&func.getBody().front());
  for (BlockArgument arg : func.getArguments())
    argMems.push_back(arg);
  bodyArgs.assign(bodyInputs.begin(), bodyInputs.end());
  auto conv =
      cast<Conv2DOp>(ContractionOpInterface(plan.contraction).getOperation());
  auto inputIndex = [&](Value v) {
    return llvm::find(bodyInputs, v) - bodyInputs.begin();
  };
  Value input = argMems[inputIndex(conv.getInput())];
  Value filter = argMems[inputIndex(conv.getFilter())];
  const ConvGeometry &g = plan.conv;
  Type acc = plan.accType;
  int64_t channelsPerGroup = g.c / g.groups, filtersPerGroup = g.f / g.groups;
  int64_t total = g.n * g.f * g.oh * g.ow;

  // One work-item per output element, in NCHW order (consecutive lanes
  // read consecutive input columns).
  Value id =
      add(mul(gpu::BlockIdOp::create(b, gpu::Dimension::x), idx(blockSize)),
          gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  auto inside = scf::IfOp::create(b, lessThan(id, total), false);
  b.setInsertionPointToStart(&inside.getThenRegion().front());
  Value ox = rem(id, g.ow);
  Value rest = div(id, g.ow);
  Value oy = rem(rest, g.oh);
  rest = div(rest, g.oh);
  Value f = rem(rest, g.f);
  Value image = div(rest, g.f);
  Value firstChannel = mul(div(f, filtersPerGroup), idx(channelsPerGroup));
  Value iy0 = sub(mul(oy, idx(g.strideH)), idx(g.padTop));
  Value ix0 = sub(mul(ox, idx(g.strideW)), idx(g.padLeft));
  Value zeroIn =
      arith::ConstantOp::create(b, lhsElt(), b.getZeroAttr(lhsElt()));

  // sum += x[image][channel][iy][ix] * w[f][c][ky][kx] over the window;
  // taps in the padding read zero (from a valid address).
  auto tap = [&](Value sum, Value c, Value ky, Value kx) -> Value {
    Value iy = add(iy0, mul(ky, idx(g.dilationH)));
    Value ix = add(ix0, mul(kx, idx(g.dilationW)));
    Value valid = both(inRange(iy, g.h), inRange(ix, g.w));
    Value x = memref::LoadOp::create(b, input,
                                     ValueRange{image, add(firstChannel, c),
                                                select(valid, iy, idx(0)),
                                                select(valid, ix, idx(0))});
    x = select(valid, x, zeroIn);
    Value w = memref::LoadOp::create(b, filter, ValueRange{f, c, ky, kx});
    Value product =
        isa<FloatType>(acc)
            ? arith::MulFOp::create(b, convert(x, acc), convert(w, acc))
                  .getResult()
            : arith::MulIOp::create(b, convert(x, acc), convert(w, acc))
                  .getResult();
    return isa<FloatType>(acc)
               ? arith::AddFOp::create(b, sum, product).getResult()
               : arith::AddIOp::create(b, sum, product).getResult();
  };
  // The window: unrolled up to 7x7, else loops.
  auto window = [&](Value sum, Value c) -> Value {
    if (g.kh * g.kw <= 49) {
      for (int64_t ky = 0; ky < g.kh; ++ky)
        for (int64_t kx = 0; kx < g.kw; ++kx)
          sum = tap(sum, c, idx(ky), idx(kx));
      return sum;
    }
    auto rows = scf::ForOp::create(b, idx(0), idx(g.kh), idx(1), sum);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rows.getBody());
    auto cols = scf::ForOp::create(b, idx(0), idx(g.kw), idx(1),
                                   rows.getRegionIterArgs()[0]);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(cols.getBody());
      scf::YieldOp::create(b,
                           tap(cols.getRegionIterArgs()[0], c,
                               rows.getInductionVar(), cols.getInductionVar()));
    }
    scf::YieldOp::create(b, cols.getResult(0));
    return rows.getResult(0);
  };
  Value sum = arith::ConstantOp::create(b, acc, b.getZeroAttr(acc));
  if (channelsPerGroup == 1) {
    sum = window(sum, idx(0));
  } else {
    auto channels =
        scf::ForOp::create(b, idx(0), idx(channelsPerGroup), idx(1), sum);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(channels.getBody());
    scf::YieldOp::create(
        b, window(channels.getRegionIterArgs()[0], channels.getInductionVar()));
    b.setInsertionPointAfter(channels);
    sum = channels.getResult(0);
  }
  Value coords[] = {image, f, oy, ox};
  return emitEpilogueElement(sum, coords, epilogue, bodyInputs, yielded);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
/// Grouped and depthwise convolutions run as direct kernels.
bool needsDirectKernel(ContractionOpInterface op) {
  auto conv = dyn_cast<Conv2DOp>(op.getOperation());
  return conv && conv.getGroups() != 1;
}

class LowerToGPUPass
    : public crest::impl::CrestLowerToGPUPassBase<LowerToGPUPass> {
public:
  using Base::Base;
  void runOnOperation() override;

private:
  FailureOr<KernelPlan> plan(Operation *anchor, ContractionOpInterface op,
                             ConfigAttr config, TargetAttr target);
  LogicalResult lower(Operation *anchor, ContractionOpInterface op,
                      ConfigAttr config, TargetAttr target,
                      codegen::KernelModule &kernels);
};
} // namespace

/// Checks a skinny-path configuration (rhs_vector > 1) against the problem
/// and sets the rows its partial sums cover.
static LogicalResult planVectorRhs(KernelPlan &p, ContractionOpInterface op) {
  int64_t v = p.rhsVector;
  auto fail = [&]() {
    return op->emitOpError() << "rhs_vector = " << v << ": ";
  };
  if (p.isConv || p.transposeRhs || p.transposeLhs)
    return fail() << "the wide rhs loads need a row-major K x N rhs and a "
                     "row-major M x K lhs (no transpose, no convolution)";
  unsigned rhsBytes = std::max(1u, p.rhsType.getElementTypeBitWidth() / 8);
  if (v * rhsBytes > 16)
    return fail() << v << " elements of " << p.rhsType.getElementType()
                  << " exceed one 16-byte load";
  if (p.waveN != p.mma->n * v || p.tileN != p.waveN || p.tileM != p.waveM)
    return fail() << "needs wave_tile = workgroup_tile[0:2] with N = "
                  << p.mma->n << " x " << v << " (the instruction's "
                  << p.mma->n << " lane columns times " << v
                  << " columns per lane), got wave_tile [" << p.waveM << ", "
                  << p.waveN << "] in workgroup_tile [" << p.tileM << ", "
                  << p.tileN << ", " << p.tileK << "]";
  if (p.n % v != 0)
    return fail() << "N = " << p.n << " is not a multiple of " << v
                  << " (every lane's load must be inside N and aligned)";
  if (p.tileK % p.mma->k != 0)
    return fail() << "tile K = " << p.tileK << " is not a multiple of the "
                  << "instruction's K = " << p.mma->k;
  if (p.globalSplitK > 1) {
    p.stepsPerGroup = getStepsPerGroup(p.k / p.tileK, p.globalSplitK);
    if (p.stepsPerGroup == 0)
      return op->emitOpError()
             << "global_split_k = " << p.globalSplitK << " leaves a "
             << "workgroup without a K step (K = " << p.k << ", tile K = "
             << p.tileK << ")";
  }
  // With one row of workgroups, only the rows inside M are reduced.
  p.reduceRows =
      p.m <= p.tileM ? std::min<int64_t>(p.m, p.waveM) : p.waveM;
  return success();
}

FailureOr<KernelPlan> LowerToGPUPass::plan(Operation *anchor,
                                           ContractionOpInterface op,
                                           ConfigAttr config,
                                           TargetAttr target) {
  KernelPlan p;
  p.anchor = anchor;
  p.contraction = op;
  p.config = config;
  p.chip = target.getChipInfo();
  p.waveSize = target.getEffectiveWaveSize();
  p.mma = p.chip->lookupMma(config.getMma());
  if (!p.mma)
    return op->emitOpError() << "config instruction " << config.getMma()
                             << " is not one of " << p.chip->name << "'s";
  // tf32 operands: f32 tensors multiplied at reduced precision (xf32).
  bool xf32 = isa<FloatTF32Type>(op.getPrecision().getLhs());
  FailureOr<std::unique_ptr<codegen::MmaEmitter>> emitter =
      codegen::createMmaEmitter(*p.mma, p.waveSize, xf32,
                                [&] { return op->emitOpError(); });
  if (failed(emitter))
    return failure();
  p.mmaEmitter = std::move(*emitter);
  if (auto conv = dyn_cast<Conv2DOp>(op.getOperation());
      conv && conv.getGroups() != 1)
    return op->emitOpError()
           << "has groups = " << conv.getGroups()
           << " and a #crest.config; only convolutions with groups = 1 run "
              "as implicit GEMMs on matrix instructions (grouped and "
              "depthwise ones get a direct kernel without a config)";
  if (config.getSplitK() > 1 && config.getScope() != SyncScope::Wavefront)
    return op->emitOpError()
           << "split_k = " << config.getSplitK()
           << " splits K across the waves of a workgroup and is generated "
              "for scope = wavefront only";
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  p.batch = shape[0];
  p.m = shape[1];
  p.n = shape[2];
  p.k = shape[3];
  p.lhsType = cast<RankedTensorType>(op.getLhs().getType());
  p.rhsType = cast<RankedTensorType>(op.getRhs().getType());
  p.transposeLhs = op->hasAttr("transpose_lhs");
  p.transposeRhs = op->hasAttr("transpose_rhs");
  p.accType = op.getPrecision().getAcc();
  p.tileM = config.getTileM();
  p.tileN = config.getTileN();
  p.tileK = config.getTileK();
  p.waveM = config.getWaveTile()[0];
  p.waveN = config.getWaveTile()[1];
  p.wavesM = p.tileM / p.waveM;
  p.wavesN = p.tileN / p.waveN;
  p.stages = config.getStages();
  p.splitK = config.getSplitK();
  p.rhsVector = config.getRhsVector();
  p.globalSplitK = config.getGlobalSplitK();
  p.tilesAlongN = llvm::divideCeil(p.n, p.tileN);
  p.shareLds = config.getScope() == SyncScope::Workgroup;
  p.kpl = p.mmaEmitter->getOperandElementsPerLane(MmaOperand::A);
  p.accPerLane = p.mmaEmitter->getAccElementsPerLane();
  if (auto conv = dyn_cast<Conv2DOp>(op.getOperation())) {
    // Implicit GEMM: rows are output pixels, columns filters, K runs over
    // (channel, ky, kx). The filter is the rhs viewed as F x K, i.e. a
    // transposed (K-contiguous) rhs.
    ConvGeometry &g = p.conv;
    g = ConvGeometry::get(conv);
    p.isConv = true;
    p.transposeRhs = true;
    p.rhsType = RankedTensorType::get({g.f, g.c * g.kh * g.kw},
                                      p.rhsType.getElementType());
    Type inElt = p.lhsType.getElementType();
    if (g.isPointwise()) {
      // Per image, A is the input viewed as C x (H * W): a transposed lhs;
      // the images are the grid's Z dimension.
      p.batch = g.n;
      p.m = g.h * g.w;
      p.transposeLhs = true;
      p.lhsType = RankedTensorType::get({g.n, g.c, g.h * g.w}, inElt);
    } else {
      p.batch = 1;
      p.m = g.n * g.oh * g.ow;
      p.gatherLhs = true;
    }
  }
  if (p.rhsVector > 1 && failed(planVectorRhs(p, op)))
    return failure();
  return p;
}

LogicalResult LowerToGPUPass::lower(Operation *anchor,
                                    ContractionOpInterface op,
                                    ConfigAttr config, TargetAttr target,
                                    codegen::KernelModule &kernels) {
  // Grouped and depthwise convolutions get the direct kernel (no config).
  auto conv = dyn_cast<Conv2DOp>(op.getOperation());
  bool direct = conv && conv.getGroups() != 1 && !config;
  FailureOr<KernelPlan> planOr = KernelPlan();
  if (direct) {
    planOr->anchor = anchor;
    planOr->contraction = op;
    planOr->chip = target.getChipInfo();
    planOr->waveSize = target.getEffectiveWaveSize();
    planOr->accType = op.getPrecision().getAcc();
    planOr->isConv = true;
    planOr->conv = ConvGeometry::get(conv);
    planOr->lhsType = cast<RankedTensorType>(conv.getInput().getType());
    planOr->rhsType = cast<RankedTensorType>(conv.getFilter().getType());
  } else {
    planOr = plan(anchor, op, config, target);
  }
  if (failed(planOr))
    return failure();
  KernelPlan &p = *planOr;
  MLIRContext *ctx = &getContext();

  // The kernel's interface and body, from a crest.kernel or a lone op.
  SmallVector<Value> hostInputs, bodyInputs, yielded;
  SmallVector<Operation *> epilogue;
  SmallVector<Type> resultTypes;
  if (auto kernel = dyn_cast<KernelOp>(anchor)) {
    hostInputs.assign(kernel.getInputs().begin(), kernel.getInputs().end());
    Block &block = kernel.getBody().front();
    bodyInputs.assign(block.getArguments().begin(), block.getArguments().end());
    // The ops before the contraction are its operands' prologues, those
    // after it the epilogue.
    for (Operation &inner : llvm::make_range(
             std::next(op->getIterator()), block.without_terminator().end()))
      epilogue.push_back(&inner);
    for (unsigned operand : {0u, 1u}) {
      p.prologue[operand] = kernel.getPrologue(operand);
      p.prologueSource[operand] = kernel.getPrologueSource(operand);
    }
    Operation *first = !p.prologue[0].empty()   ? p.prologue[0].front()
                       : !p.prologue[1].empty() ? p.prologue[1].front()
                                                : nullptr;
    for (unsigned operand : {0u, 1u})
      if (Value source = p.prologueSource[operand];
          source && getElementTypeOrSelf(source).isInteger(1))
        return p.prologue[operand].front()->emitOpError()
               << "reads the contraction's "
               << (operand == 0 ? "lhs" : "rhs")
               << " from a bool tensor, which the operand's vector loads "
                  "cannot read (i1 is not byte-addressed); cast it outside "
                  "the crest.kernel";
    if (direct && first)
      return first->emitOpError()
             << "is fused into the operand loads of a grouped convolution, "
                "whose direct kernel has no operand prologue; keep it "
                "outside the crest.kernel";
    auto yield = cast<YieldOp>(block.getTerminator());
    yielded.assign(yield.getValues().begin(), yield.getValues().end());
    for (Value r : kernel.getResults())
      resultTypes.push_back(r.getType());
  } else {
    hostInputs = {op.getLhs(), op.getRhs()};
    bodyInputs = hostInputs;
    yielded = {op->getResult(0)};
    resultTypes = {op->getResult(0).getType()};
  }
  // Results must be [batch,] M x N tensors (a convolution's N x F x OH x
  // OW).
  for (Type t : resultTypes) {
    auto type = cast<RankedTensorType>(t);
    ArrayRef<int64_t> s = type.getShape();
    bool matches =
        p.isConv
            ? s == cast<RankedTensorType>(op->getResult(0).getType()).getShape()
            : s.size() >= 2 && s[s.size() - 2] == p.m && s.back() == p.n;
    if (!matches)
      return anchor->emitOpError()
             << "kernel results must have the contraction's output shape";
  }

  codegen::KernelSignature signature;
  for (Value v : hostInputs)
    signature.inputs.push_back(cast<RankedTensorType>(v.getType()));
  for (Type t : resultTypes)
    signature.results.push_back(cast<RankedTensorType>(t));
  // Global split-K: the groups' partial sums and the tiles' semaphores.
  if (!direct && p.globalSplitK > 1) {
    signature.workspace.push_back(RankedTensorType::get(
        {p.globalSplitK, p.batch, p.m, p.n}, p.accType));
    signature.semaphores.push_back(RankedTensorType::get(
        {p.batch * int64_t(llvm::divideCeil(p.m, p.tileM)) * p.tilesAlongN},
        IntegerType::get(ctx, 32)));
  }
  SmallVector<Type> &ldsTypes = signature.workgroupBuffers;
  if (!direct && p.shareLds) {
    // The padded A/B stages of the one LDS layout (KernelResources.h).
    GemmLdsShape shape;
    shape.tileM = p.tileM;
    shape.tileN = p.tileN;
    shape.tileK = p.tileK;
    shape.stages = p.stages;
    shape.lhsBits = p.lhsType.getElementTypeBitWidth();
    shape.rhsBits = p.rhsType.getElementTypeBitWidth();
    shape.staged = true;
    GemmLdsLayout lds = computeGemmLdsLayout(shape);
    for (auto [tile, type] :
         {std::pair(lds.lhs, p.lhsType), std::pair(lds.rhs, p.rhsType)})
      ldsTypes.push_back(codegen::getWorkgroupMemRefType(
          {tile.stages, tile.rows, tile.rowElements}, type.getElementType()));
  }
  if (!direct && p.rhsVector > 1) {
    // Every wave's partial sums of the rows inside M, row-major.
    ldsTypes.push_back(codegen::getWorkgroupMemRefType(
        {p.splitK, p.reduceRows, p.waveN}, p.accType));
  } else if (!direct && p.splitK > 1) {
    // The partial accumulators of K slices 1..splitK-1, per wave of a
    // slice, per MMA tile, lane-major so each lane's registers are one
    // 16-byte-aligned vector.
    int64_t tiles = (p.waveM / p.mma->m) * (p.waveN / p.mma->n);
    ldsTypes.push_back(codegen::getWorkgroupMemRefType(
        {p.splitK - 1, p.wavesM * p.wavesN, tiles, p.waveSize, p.accPerLane},
        p.accType));
  }

  // Launch geometry: a direct convolution's work-items cover the output
  // elements; a GEMM's workgroups its tiles (times the split-K groups along
  // x), with the batch along z.
  int64_t threads = direct ? kDirectConvBlockSize
                           : p.wavesM * p.wavesN * p.splitK * p.waveSize;
  std::array<int64_t, 3> grid;
  if (direct) {
    const ConvGeometry &g = p.conv;
    p.batch = 1;
    grid = {int64_t(llvm::divideCeil(g.n * g.f * g.oh * g.ow, threads)), 1,
            1};
  } else {
    grid = {p.tilesAlongN * p.globalSplitK,
            int64_t(llvm::divideCeil(p.m, p.tileM)), p.batch};
  }
  gpu::GPUFuncOp func = kernels.createKernel(anchor, /*kind=*/"", signature,
                                             grid, {threads, 1, 1});

  ImplicitLocOpBuilder b(anchor->getLoc(), ctx);
  KernelBuilder builder(p, b);
  if (failed(direct ? builder.buildDirectConv(func, threads, epilogue,
                                              bodyInputs, yielded)
             : p.rhsVector > 1
                 ? builder.buildVectorRhs(func, epilogue, bodyInputs, yielded)
                 : builder.build(func, epilogue, bodyInputs, yielded)) ||
      builder.hasPrologueFailed())
    return failure();
  return success();
}

void LowerToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  TargetAttr target = lookupTarget(module);
  if (!target || !target.getChipInfo()) {
    module.emitError() << "crest-lower-to-gpu needs a #crest.target on the "
                          "module (run crest-attach-target first)";
    return signalPassFailure();
  }
  // Collect first: lowering adds a gpu.module to the module.
  SmallVector<std::tuple<Operation *, ContractionOpInterface, ConfigAttr>> work;
  bool missing = false;
  module.walk([&](Operation *op) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      ContractionOpInterface c = kernel.getContraction();
      if (!c)
        return; // elementwise/reduction groups have their own lowering
      ConfigAttr config =
          kernel.getConfigAttr() ? kernel.getConfigAttr() : c.getConfigAttr();
      if (!config && needsDirectKernel(c)) {
        work.emplace_back(kernel, c, config);
        return;
      }
      if (!config) {
        c->emitOpError() << "has no #crest.config; run crest-select-config "
                            "first";
        missing = true;
        return;
      }
      work.emplace_back(kernel, c, config);
      return;
    }
    auto c = dyn_cast<ContractionOpInterface>(op);
    if (!c || op->getParentOfType<KernelOp>())
      return;
    if (!c.getConfigAttr() && needsDirectKernel(c)) {
      work.emplace_back(op, c, ConfigAttr());
      return;
    }
    if (!c.getConfigAttr()) {
      c->emitOpError() << "has no #crest.config; run crest-select-config "
                          "first";
      missing = true;
      return;
    }
    work.emplace_back(op, c, c.getConfigAttr());
  });
  if (missing)
    return signalPassFailure();
  if (work.empty())
    return;

  codegen::KernelModule kernels(module);
  for (auto [anchor, contraction, config] : work)
    if (failed(lower(anchor, contraction, config, target, kernels)))
      return signalPassFailure();
}
