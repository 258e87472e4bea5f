//===- LowerOpsToGPU.cpp - Kernels for the non-contraction crest ops ------===//
//
// One gpu.func per elementwise-only crest.kernel and per standalone crest op
// that crest-lower-to-gpu left without a `crest.launch`: elementwise ops
// (one work-item per element or per short vector), row reductions (softmax,
// layer_norm, reduce_mean, global_avg_pool2d: one wave per row, reduced
// with gpu.shuffle xor) and windowed pooling (one work-item per output
// element). See the pass description in Passes.td.
//
// Every kernel argument is a memref of the host tensor's shape in the global
// address space (inputs, then results); the body works on 1-D views of
// them (memref.collapse_shape), indexing with the row-major strides.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "KernelSkeleton.h"

#include "crest/Codegen/Passes.h"
#include "crest/Codegen/RowKernels.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Semantics/View.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <limits>

namespace crest {
#define GEN_PASS_DEF_CRESTLOWEROPSTOGPUPASS
#include "crest/Codegen/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

namespace {


int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Whether vectors of `elt` may be loaded and stored: memrefs hold one
/// element per byte (or more), but LLVM packs a vector of i1 into bits, so
/// a bool vector load reads the wrong bytes; bools move one at a time.
bool isByteVectorizable(Type elt) {
  return elt.getIntOrFloatBitWidth() % 8 == 0;
}

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Builds the body of one kernel: index arithmetic and flat memory access.
class Emitter {
public:
  /// `element` is the element type of the data a reduction reads: f64
  /// data is reduced in f64, every other type in f32.
  Emitter(OpBuilder &b, Location loc, Type element = {})
      : b(b), loc(loc),
        accType(element && element.isF64() ? b.getF64Type()
                                            : b.getF32Type()) {}

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, idx(y)).getResult();
  }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, idx(y)).getResult();
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value lessThan(Value x, int64_t bound) {
    return cmp(arith::CmpIPredicate::ult, x, idx(bound));
  }
  /// A constant of the accumulation type.
  Value acc(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(accType, v));
  }

  /// Continues emission inside `if (cond)`; the guard restores nothing, so
  /// call it only where the rest of the body belongs inside.
  void enterIf(Value cond) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }

  /// The index of this work-item's item in a kernel of `block` work-items
  /// per workgroup and one work-item per item (createItemKernel); the rest
  /// of the body runs only for indices below `items` when the last
  /// workgroup is partial.
  Value itemIndex(int64_t block, int64_t items) {
    Value gid =
        add(mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), block),
            gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    if (items == 0 || items % block != 0)
      enterIf(lessThan(gid, items));
    return gid;
  }

  /// A 1-D view of a kernel argument (the argument itself when rank <= 1).
  Value flatten(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.getRank() <= 1)
      return memref;
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    return memref::CollapseShapeOp::create(b, loc, memref,
                                           ArrayRef<ReassociationIndices>{all});
  }
  Value load(Value flat, Value offset) {
    if (cast<MemRefType>(flat.getType()).getRank() == 0)
      return memref::LoadOp::create(b, loc, flat, ValueRange{});
    return memref::LoadOp::create(b, loc, flat, ValueRange{offset});
  }
  void store(Value v, Value flat, Value offset) {
    if (cast<MemRefType>(flat.getType()).getRank() == 0)
      memref::StoreOp::create(b, loc, v, flat, ValueRange{});
    else
      memref::StoreOp::create(b, loc, v, flat, ValueRange{offset});
  }
  /// Loads and converts to the accumulation type.
  Value loadAcc(Value flat, Value offset) {
    return convertElements(b, loc, load(flat, offset), accType);
  }

  /// Butterfly all-reduce across the `width` lanes of a wave: every lane
  /// ends with the combined value.
  Value waveAllReduce(Value v, unsigned width,
                      function_ref<Value(Value, Value)> combine) {
    Value widthV = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(width));
    for (unsigned off = width / 2; off >= 1; off /= 2) {
      Value offV = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(off));
      Value other = gpu::ShuffleOp::create(b, loc, v, offV, widthV,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      v = combine(v, other);
    }
    return v;
  }

  OpBuilder &b;
  Location loc;
  /// What reductions, softmax, layer_norm and pooling compute in.
  FloatType accType;
};

/// The scalar of splat constant `dense` as an element of type `elt` (the
/// signless type unsigned data is held in: ElementwiseEmitter.h).
TypedAttr getSplatScalar(DenseElementsAttr dense, Type elt) {
  auto scalar = dense.getSplatValue<TypedAttr>();
  if (auto i = dyn_cast<IntegerAttr>(scalar); i && i.getType() != elt)
    return IntegerAttr::get(elt, i.getValue());
  return scalar;
}

/// The flat offset, in a tensor of shape `in` broadcast NumPy-style to
/// `shape`, of the element at output coordinates coord(d) (d < rank of
/// `shape`).
Value getBroadcastOffset(Emitter &e, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> in,
                         function_ref<Value(int64_t)> coord) {
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  int64_t lead = shape.size() - in.size();
  Value offset = e.idx(0);
  for (int64_t d = 0; d < int64_t(in.size()); ++d)
    if (in[d] != 1)
      offset = e.add(offset, e.mul(coord(d + lead), inStrides[d]));
  return offset;
}

/// A rows x R view of a tensor: element (row, r) is at
/// (row / inner) * R * inner + r * inner + row % inner.
struct RowLayout {
  int64_t rows, r, inner;
};

/// A copy in which output element `[c0, c1, ...]` (row-major over `shape`)
/// is input element `base + sum_d c_d * strides[d]` (flat): transposes,
/// slices and reshape copies.
struct StridedMap {
  SmallVector<int64_t> shape, strides;
  int64_t base = 0;
};

/// How a row kernel (softmax, layer_norm, a reduction) reads its op's
/// operands and stores its result: for a standalone op its operands and
/// result are the kernel's arguments; in a crest.kernel the op's input is
/// computed per element by the prologue before it and its result goes
/// through the epilogue after it (lowerRowGroup), and the kernel may
/// return the values of both.
struct RowIO {
  /// The element at flat offset `o` of the row op's input, in its element
  /// type; appends to `extras` the prologue values to store at `o` (one
  /// per entry of `extraResults`).
  std::function<Value(Emitter &, ArrayRef<Value> flat, Value o,
                      SmallVectorImpl<Value> &extras)>
      input;
  /// The element at flat offset `o` of operand `v` (a layer norm's scale
  /// and bias) of the row op.
  std::function<Value(Emitter &, ArrayRef<Value> flat, Value v, Value o)>
      operand;
  /// Stores the row op's result element `y` (of its element type) at
  /// flat offset `o` of the result.
  std::function<void(Emitter &, ArrayRef<Value> flat, Value y, Value o)>
      store;
  /// The kernel arguments the extras are stored to.
  SmallVector<unsigned> extraResults;
};

class LowerOpsToGPUPass
    : public crest::impl::CrestLowerOpsToGPUPassBase<LowerOpsToGPUPass> {
public:
  using Base::Base;
  void runOnOperation() override;

private:
  /// A gpu.func for `anchor` taking `inputs` then `results` (tensor types)
  /// as memrefs, annotated on `anchor` with the launch geometry.
  gpu::GPUFuncOp createKernel(Operation *anchor, StringRef kind,
                              TypeRange inputs, TypeRange results,
                              int64_t grid, int64_t block);
  /// createKernel for one work-item per item: blocks of up to `blockSize`
  /// work-items (whole waves) over `items` items. Returns the kernel and
  /// its block size (for Emitter::itemIndex).
  std::pair<gpu::GPUFuncOp, int64_t>
  createItemKernel(Operation *anchor, StringRef kind, TypeRange inputs,
                   TypeRange results, int64_t items);

  /// A crest.kernel without a contraction: its body as one elementwise
  /// kernel.
  LogicalResult lowerGroup(KernelOp kernel);
  LogicalResult lowerElementwise(Operation *anchor, ArrayRef<Value> bodyInputs,
                                 ArrayRef<Operation *> body,
                                 ArrayRef<Value> yielded);
  /// One wave per row; `emitRow` emits the work of one row given the wave's
  /// lane, the row's base offset and the flat argument views.
  /// `element` is the element type of the row op's input.
  LogicalResult
  lowerRows(Operation *anchor, StringRef kind, Type element, RowLayout layout,
            function_ref<void(Emitter &, Value lane, Value row, Value rowBase,
                              ArrayRef<Value> flat)>
                emitRow);
  /// A standalone op's RowIO: its operands are the kernel's arguments.
  RowIO getStandaloneRowIO(Operation *op);
  LogicalResult lowerSoftmax(SoftmaxOp op, Operation *anchor,
                             const RowIO &io);
  LogicalResult lowerLayerNorm(LayerNormOp op, Operation *anchor,
                               const RowIO &io);
  /// A crest.kernel whose body is a prologue of elementwise ops and
  /// gathers, the row op `row` (isRowOp) reading it, and an epilogue of
  /// elementwise ops on its result.
  LogicalResult lowerRowGroup(KernelOp kernel, Operation *row);
  LogicalResult lowerReduction(Operation *op, ArrayRef<int64_t> dims,
                               Operation *anchor, const RowIO &io);
  LogicalResult lowerPool(Operation *op);

  /// Elements per work-item of the data movement kernels: `vector-width`,
  /// halved until the vector is at most 16 bytes.
  int64_t moveWidth(Type elt) const;
  /// One work-item per `vec` consecutive elements of `op`'s single result
  /// (`vec` falls back to 1 when it does not divide the element count);
  /// `emitItem` returns the scalar or vector<vec> to store at flat output
  /// offset `o`.
  LogicalResult
  lowerPerOutput(Operation *op, StringRef kind, int64_t vec,
                 function_ref<FailureOr<Value>(Emitter &, ArrayRef<Value> flat,
                                               Value o)>
                     emitItem);
  LogicalResult lowerStrided(Operation *op, StringRef kind,
                             const StridedMap &map);
  LogicalResult lowerTranspose(TransposeOp op);
  LogicalResult lowerTransposeTiled(TransposeOp op, const StridedMap &map);
  LogicalResult lowerSlice(SliceOp op);
  LogicalResult lowerCopy(Operation *op, StringRef kind);
  LogicalResult lowerConcat(ConcatOp op);
  LogicalResult lowerGather(GatherOp op);

  /// The kernel container, during runOnOperation.
  codegen::KernelModule *kernels = nullptr;
  unsigned waveSize = 64;
};

} // namespace

//===----------------------------------------------------------------------===//
// Kernel skeleton
//===----------------------------------------------------------------------===//

std::pair<gpu::GPUFuncOp, int64_t>
LowerOpsToGPUPass::createItemKernel(Operation *anchor, StringRef kind,
                                    TypeRange inputs, TypeRange results,
                                    int64_t items) {
  int64_t block = std::min<int64_t>(
      blockSize, llvm::alignTo(std::max<int64_t>(items, 1), waveSize));
  int64_t grid = std::max<int64_t>(1, llvm::divideCeil(items, block));
  return {createKernel(anchor, kind, inputs, results, grid, block), block};
}

gpu::GPUFuncOp LowerOpsToGPUPass::createKernel(Operation *anchor,
                                               StringRef kind,
                                               TypeRange inputs,
                                               TypeRange results, int64_t grid,
                                               int64_t block) {
  codegen::KernelSignature signature;
  for (Type t : inputs)
    signature.inputs.push_back(cast<RankedTensorType>(t));
  for (Type t : results)
    signature.results.push_back(cast<RankedTensorType>(t));
  return kernels->createKernel(anchor, kind, signature, {grid, 1, 1},
                               {block, 1, 1});
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult LowerOpsToGPUPass::lowerElementwise(Operation *anchor,
                                                  ArrayRef<Value> bodyInputs,
                                                  ArrayRef<Operation *> body,
                                                  ArrayRef<Value> yielded) {
  SmallVector<Type> inputTypes, resultTypes;
  for (Value v : bodyInputs)
    inputTypes.push_back(v.getType());
  for (Value v : yielded)
    resultTypes.push_back(v.getType());
  ArrayRef<int64_t> shape = tensorType(yielded.front()).getShape();
  for (Value v : yielded)
    if (tensorType(v).getShape() != shape)
      return anchor->emitOpError()
             << "elementwise kernel results must all have one shape";
  for (Value v : bodyInputs)
    if (tensorType(v).getRank() > int64_t(shape.size()))
      return anchor->emitOpError()
             << "elementwise kernel input of type " << v.getType()
             << " does not broadcast to the result shape";
  for (Operation *op : body)
    if (!op->hasTrait<crest::OpTrait::Elementwise>() &&
        !matchPattern(op, m_Constant()))
      return op->emitOpError()
             << "is not elementwise; a kernel without a contraction holds "
                "elementwise operations, ending in at most one layer norm, "
                "softmax or reduction";

  int64_t n = product(shape);
  int64_t vec = vectorWidth;
  if (vec < 2 || !llvm::isPowerOf2_64(vec) || shape.empty() ||
      shape.back() % vec != 0 ||
      !llvm::all_of(llvm::concat<Type>(inputTypes, resultTypes), [](Type t) {
        return isByteVectorizable(getElementTypeOrSelf(t));
      }))
    vec = 1;
  int64_t items = n / vec;
  auto [func, block] = createItemKernel(anchor, "elementwise", inputTypes,
                                        resultTypes, items);

  Location loc = anchor->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc);
  SmallVector<Value> flat;
  for (BlockArgument arg : func.getArguments())
    flat.push_back(e.flatten(arg));
  Value gid = e.itemIndex(block, items);
  Value base = e.mul(gid, vec);

  // Output coordinates, computed when an input broadcasts.
  SmallVector<int64_t> outStrides = rowMajorStrides(shape);
  SmallVector<Value> coords;
  auto coord = [&](int64_t d) {
    if (coords.empty())
      for (int64_t i = 0; i < int64_t(shape.size()); ++i)
        coords.push_back(e.rem(e.div(base, outStrides[i]), shape[i]));
    return coords[d];
  };
  auto typeOf = [&](Type elt) -> Type {
    return vec > 1 ? VectorType::get({vec}, elt) : elt;
  };

  IRMapping values;
  auto valueOf = [&](Value tensor) -> FailureOr<Value> {
    if (Value v = values.lookupOrNull(tensor))
      return v;
    // Unsigned data is held as signless integers (ElementwiseEmitter.h).
    Type elt = signless(tensorType(tensor).getElementType());
    // A kernel input (of a standalone op, also a constant of the host
    // function: a weight) is loaded; only constants inside a crest.kernel
    // body are materialized.
    auto input = llvm::find(bodyInputs, tensor);
    DenseElementsAttr dense;
    if (Operation *def = tensor.getDefiningOp();
        input == bodyInputs.end() && def &&
        matchPattern(def, m_Constant(&dense))) {
      if (!dense.isSplat())
        return def->emitOpError()
               << "is a non-splat constant inside a kernel; pass it as a "
                  "kernel input";
      TypedAttr scalar = getSplatScalar(dense, elt);
      Value c = vec > 1 ? arith::ConstantOp::create(
                              b, loc,
                              DenseElementsAttr::get(
                                  cast<ShapedType>(typeOf(elt)), scalar))
                              .getResult()
                        : arith::ConstantOp::create(b, loc, scalar).getResult();
      values.map(tensor, c);
      return c;
    }
    if (input == bodyInputs.end())
      return emitError(tensor.getLoc()) << "kernel value is neither an input, "
                                           "a constant nor computed inside";
    Value mem = flat[input - bodyInputs.begin()];
    ArrayRef<int64_t> in = tensorType(tensor).getShape();
    Value offset =
        in == shape ? base : getBroadcastOffset(e, shape, in, coord);
    Value v;
    if (vec > 1 && !in.empty() && in.back() == shape.back()) {
      auto load = vector::LoadOp::create(
          b, loc, cast<VectorType>(typeOf(elt)), mem, ValueRange{offset});
      int64_t bytes = vec * std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
      if (llvm::isPowerOf2_64(bytes))
        load.setAlignment(bytes);
      v = load;
    } else {
      v = e.load(mem, offset);
      if (vec > 1)
        v = vector::BroadcastOp::create(b, loc, typeOf(elt), v);
    }
    values.map(tensor, v);
    return v;
  };

  for (Operation *op : body) {
    if (matchPattern(op, m_Constant()))
      continue;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> v = valueOf(operand);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    FailureOr<Value> r = emitElementwise(
        b, op, operands, tensorType(op->getResult(0)).getElementType());
    if (failed(r))
      return failure();
    values.map(op->getResult(0), *r);
  }
  for (auto [i, y] : llvm::enumerate(yielded)) {
    FailureOr<Value> v = valueOf(y);
    if (failed(v))
      return failure();
    Value out = flat[bodyInputs.size() + i];
    if (vec > 1) {
      auto store =
          vector::StoreOp::create(b, loc, *v, out, ValueRange{base});
      Type elt = tensorType(y).getElementType();
      int64_t bytes = vec * std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
      if (llvm::isPowerOf2_64(bytes))
        store.setAlignment(bytes);
    } else {
      e.store(*v, out, base);
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Row reductions
//===----------------------------------------------------------------------===//

LogicalResult LowerOpsToGPUPass::lowerRows(
    Operation *anchor, StringRef kind, Type element, RowLayout layout,
    function_ref<void(Emitter &, Value, Value, Value, ArrayRef<Value>)>
        emitRow) {
  SmallVector<Type> inputs(anchor->getOperandTypes());
  SmallVector<Type> results(anchor->getResultTypes());
  int64_t wavesPerBlock =
      std::min<int64_t>(std::max<unsigned>(1, blockSize / waveSize),
                        layout.rows);
  int64_t block = wavesPerBlock * waveSize;
  int64_t grid = llvm::divideCeil(layout.rows, wavesPerBlock);
  gpu::GPUFuncOp func = createKernel(anchor, kind, inputs, results, grid, block);

  Location loc = anchor->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc, element);
  SmallVector<Value> flat;
  for (BlockArgument arg : func.getArguments())
    flat.push_back(e.flatten(arg));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = e.rem(tid, waveSize);
  Value row = e.add(
      e.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), wavesPerBlock),
      e.div(tid, waveSize));
  // Whole waves leave together, so the shuffles below see full waves.
  if (layout.rows % wavesPerBlock != 0)
    e.enterIf(e.lessThan(row, layout.rows));
  Value rowBase =
      layout.inner == 1
          ? e.mul(row, layout.r)
          : e.add(e.mul(e.div(row, layout.inner), layout.r * layout.inner),
                  e.rem(row, layout.inner));
  emitRow(e, lane, row, rowBase, flat);
  return success();
}

namespace {
/// Lane-strided loop over a row of `len` elements: `step(r, acc)` returns
/// the new accumulators (scalars of the accumulation type).
SmallVector<Value>
rowLoop(Emitter &e, Value lane, int64_t len, unsigned waveSize,
        ValueRange init,
        function_ref<SmallVector<Value>(Value r, ValueRange acc)> step) {
  OpBuilder &b = e.b;
  auto loop = scf::ForOp::create(b, e.loc, lane, e.idx(len),
                                 e.idx(waveSize), init);
  OpBuilder::InsertionGuard g(b);
  // Without iter_args the builder already added the terminator.
  if (init.empty())
    b.setInsertionPoint(loop.getBody()->getTerminator());
  else
    b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> next =
      step(loop.getInductionVar(), loop.getRegionIterArgs());
  if (!init.empty())
    scf::YieldOp::create(b, e.loc, next);
  return SmallVector<Value>(loop.getResults());
}

/// A row of `len` elements (isCachedRow) held by
/// the wave: this lane's element i is at r[i] = lane + i * waveSize, its
/// value x[i] (of the accumulation type); valid[i] is null where every lane's element is inside
/// the row, else whether this lane's is (past the row, x[i] repeats the
/// last element, read from a valid address).
struct CachedRow {
  SmallVector<Value> r, x, valid;

  /// The lane's elements combined in row order, with `identity` for the
  /// ones past the row: the same order as rowLoop's.
  Value reduce(Emitter &e, Value identity,
               function_ref<Value(Value, Value)> combine,
               function_ref<Value(unsigned)> value) const {
    Value acc = identity;
    for (unsigned i = 0; i < r.size(); ++i) {
      Value v = value(i);
      if (valid[i])
        v = arith::SelectOp::create(e.b, e.loc, valid[i], v, identity);
      acc = combine(acc, v);
    }
    return acc;
  }
  /// Emits `store(i)` for each of the lane's elements inside the row.
  void forEach(Emitter &e, function_ref<void(unsigned)> store) const {
    for (unsigned i = 0; i < r.size(); ++i) {
      OpBuilder::InsertionGuard g(e.b);
      if (valid[i])
        e.enterIf(valid[i]);
      store(i);
    }
  }
};

CachedRow cacheRow(Emitter &e, Value lane, int64_t len, unsigned waveSize,
                   function_ref<Value(Value r)> load) {
  CachedRow row;
  for (int64_t i = 0; i * waveSize < len; ++i) {
    Value r = e.add(lane, e.idx(i * waveSize));
    Value valid;
    if ((i + 1) * int64_t(waveSize) > len) {
      valid = e.lessThan(r, len);
      r = arith::MinUIOp::create(e.b, e.loc, r, e.idx(len - 1));
    }
    row.r.push_back(r);
    row.valid.push_back(valid);
    row.x.push_back(load(r));
  }
  return row;
}
} // namespace

RowIO LowerOpsToGPUPass::getStandaloneRowIO(Operation *op) {
  RowIO io;
  io.input = [](Emitter &e, ArrayRef<Value> flat, Value o,
                SmallVectorImpl<Value> &) { return e.load(flat[0], o); };
  io.operand = [op](Emitter &e, ArrayRef<Value> flat, Value v, Value o) {
    unsigned index = llvm::find(op->getOperands(), v) - op->operand_begin();
    return e.load(flat[index], o);
  };
  unsigned result = op->getNumOperands();
  io.store = [result](Emitter &e, ArrayRef<Value> flat, Value y, Value o) {
    e.store(y, flat[result], o);
  };
  return io;
}

namespace {
/// Stores the prologue values `extras` of one element at `o`.
void storeExtras(Emitter &e, ArrayRef<Value> flat, const RowIO &io,
                 ArrayRef<Value> extras, Value o) {
  for (auto [v, arg] : llvm::zip_equal(extras, io.extraResults))
    e.store(v, flat[arg], o);
}

/// A row read into registers through `io`: x[i] of the accumulation type;
/// the prologue's values are stored once, for the lane's elements inside
/// the row.
CachedRow cacheRowThrough(Emitter &e, const RowIO &io, ArrayRef<Value> flat,
                          Value lane, int64_t len, unsigned waveSize,
                          function_ref<Value(Value r)> at) {
  SmallVector<SmallVector<Value>> extras;
  CachedRow row = cacheRow(e, lane, len, waveSize, [&](Value r) {
    Value x = io.input(e, flat, at(r), extras.emplace_back());
    return convertElements(e.b, e.loc, x, e.accType);
  });
  if (!io.extraResults.empty())
    row.forEach(e, [&](unsigned i) {
      storeExtras(e, flat, io, extras[i], at(row.r[i]));
    });
  return row;
}

/// The element at `o` through `io` in the accumulation type; with `store`
/// (the first of the reads of a long row), the prologue's values are
/// stored there too.
Value loadThrough(Emitter &e, const RowIO &io, ArrayRef<Value> flat, Value o,
                  bool store) {
  SmallVector<Value> extras;
  Value x = io.input(e, flat, o, extras);
  if (store)
    storeExtras(e, flat, io, extras, o);
  return convertElements(e.b, e.loc, x, e.accType);
}
} // namespace

LogicalResult LowerOpsToGPUPass::lowerSoftmax(SoftmaxOp op, Operation *anchor,
                                              const RowIO &io) {
  ArrayRef<int64_t> shape = tensorType(op.getInput()).getShape();
  int64_t rank = shape.size();
  int64_t axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  RowLayout layout{product(shape.take_front(axis)) *
                       product(shape.drop_front(axis + 1)),
                   shape[axis], product(shape.drop_front(axis + 1))};
  Type outElt = tensorType(op.getResult()).getElementType();
  unsigned w = waveSize;
  // crest-fuse-epilogues sizes row prologues by the same length.
  assert(layout.r == getRowLength(op) && "row layout and row length differ");
  return lowerRows(anchor, "softmax",
                   tensorType(op.getInput()).getElementType(), layout,
                   [&](Emitter &e, Value lane, Value, Value rowBase,
                       ArrayRef<Value> flat) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    auto at = [&](Value r) { return e.add(rowBase, e.mul(r, layout.inner)); };
    auto maxF = [&](Value x, Value y) -> Value {
      return arith::MaximumFOp::create(b, loc, x, y);
    };
    auto addF = [&](Value x, Value y) -> Value {
      return arith::AddFOp::create(b, loc, x, y);
    };
    Value negInf = e.acc(-std::numeric_limits<double>::infinity());
    if (isCachedRow(layout.r, w)) {
      // The row once into registers; each exp once.
      CachedRow row = cacheRowThrough(e, io, flat, lane, layout.r, w, at);
      Value m = e.waveAllReduce(
          row.reduce(e, negInf, maxF, [&](unsigned i) { return row.x[i]; }),
          w, maxF);
      SmallVector<Value> p;
      for (Value x : row.x)
        p.push_back(math::ExpOp::create(b, loc,
                                        arith::SubFOp::create(b, loc, x, m)));
      Value s = e.waveAllReduce(
          row.reduce(e, e.acc(0), addF, [&](unsigned i) { return p[i]; }), w,
          addF);
      Value inv = arith::DivFOp::create(b, loc, e.acc(1), s);
      row.forEach(e, [&](unsigned i) {
        Value y = arith::MulFOp::create(b, loc, p[i], inv);
        io.store(e, flat, convertElements(b, loc, y, outElt), at(row.r[i]));
      });
      return;
    }
    Value m = rowLoop(e, lane, layout.r, w, {negInf},
                      [&](Value r, ValueRange acc) -> SmallVector<Value> {
                        return {maxF(acc[0],
                                     loadThrough(e, io, flat, at(r), true))};
                      })[0];
    m = e.waveAllReduce(m, w, maxF);
    auto expAt = [&](Value r) -> Value {
      return math::ExpOp::create(
          b, loc,
          arith::SubFOp::create(b, loc, loadThrough(e, io, flat, at(r), false),
                                m));
    };
    Value s = rowLoop(e, lane, layout.r, w, {e.acc(0)},
                      [&](Value r, ValueRange acc) -> SmallVector<Value> {
                        return {addF(acc[0], expAt(r))};
                      })[0];
    s = e.waveAllReduce(s, w, addF);
    Value inv = arith::DivFOp::create(b, loc, e.acc(1), s);
    rowLoop(e, lane, layout.r, w, {},
            [&](Value r, ValueRange) -> SmallVector<Value> {
              Value p = arith::MulFOp::create(b, loc, expAt(r), inv);
              io.store(e, flat, convertElements(b, loc, p, outElt), at(r));
              return {};
            });
  });
}

LogicalResult LowerOpsToGPUPass::lowerLayerNorm(LayerNormOp op,
                                                Operation *anchor,
                                                const RowIO &io) {
  ArrayRef<int64_t> shape = tensorType(op.getInput()).getShape();
  int64_t rank = shape.size();
  int64_t axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  RowLayout layout{product(shape.take_front(axis)),
                   product(shape.drop_front(axis)), 1};
  Type outElt = tensorType(op.getResult()).getElementType();
  double eps = op.getEpsilon().convertToDouble();
  unsigned w = waveSize;
  // crest-fuse-epilogues sizes row prologues by the same length.
  assert(layout.r == getRowLength(op) && "row layout and row length differ");
  return lowerRows(anchor, "layer_norm",
                   tensorType(op.getInput()).getElementType(), layout,
                   [&](Emitter &e, Value lane, Value, Value rowBase,
                       ArrayRef<Value> flat) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    auto addF = [&](Value x, Value y) -> Value {
      return arith::AddFOp::create(b, loc, x, y);
    };
    auto at = [&](Value r) { return e.add(rowBase, r); };
    auto x = [&](Value r, bool first) {
      return loadThrough(e, io, flat, at(r), first);
    };
    auto operandAt = [&](Value v, Value r) {
      return convertElements(b, loc, io.operand(e, flat, v, r), e.accType);
    };
    Value invLen = e.acc(1.0 / double(layout.r));
    auto normalize = [&](Value xr, Value r, Value mean, Value rstd) {
      Value d = arith::SubFOp::create(b, loc, xr, mean);
      Value y = arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, d, rstd),
          operandAt(op.getScale(), r));
      if (Value bias = op.getBias())
        y = addF(y, operandAt(bias, r));
      io.store(e, flat, convertElements(b, loc, y, outElt), at(r));
    };
    if (isCachedRow(layout.r, w)) {
      // The row once into registers, summed in rowLoop's order.
      CachedRow row = cacheRowThrough(e, io, flat, lane, layout.r, w, at);
      Value mean = arith::MulFOp::create(
          b, loc,
          e.waveAllReduce(row.reduce(e, e.acc(0), addF,
                                     [&](unsigned i) { return row.x[i]; }),
                          w, addF),
          invLen);
      Value sq = row.reduce(e, e.acc(0), addF, [&](unsigned i) -> Value {
        Value d = arith::SubFOp::create(b, loc, row.x[i], mean);
        return arith::MulFOp::create(b, loc, d, d);
      });
      Value var =
          arith::MulFOp::create(b, loc, e.waveAllReduce(sq, w, addF), invLen);
      Value rstd = arith::DivFOp::create(
          b, loc, e.acc(1),
          math::SqrtOp::create(b, loc, addF(var, e.acc(eps))));
      row.forEach(e, [&](unsigned i) {
        normalize(row.x[i], row.r[i], mean, rstd);
      });
      return;
    }
    Value sum = rowLoop(e, lane, layout.r, w, {e.acc(0)},
                        [&](Value r, ValueRange acc) -> SmallVector<Value> {
                          return {addF(acc[0], x(r, true))};
                        })[0];
    Value mean =
        arith::MulFOp::create(b, loc, e.waveAllReduce(sum, w, addF), invLen);
    Value sq = rowLoop(e, lane, layout.r, w, {e.acc(0)},
                       [&](Value r, ValueRange acc) -> SmallVector<Value> {
                         Value d =
                             arith::SubFOp::create(b, loc, x(r, false), mean);
                         return {arith::AddFOp::create(
                             b, loc, acc[0],
                             arith::MulFOp::create(b, loc, d, d))};
                       })[0];
    Value var =
        arith::MulFOp::create(b, loc, e.waveAllReduce(sq, w, addF), invLen);
    Value rstd = arith::DivFOp::create(
        b, loc, e.acc(1),
        math::SqrtOp::create(b, loc, addF(var, e.acc(eps))));
    rowLoop(e, lane, layout.r, w, {},
            [&](Value r, ValueRange) -> SmallVector<Value> {
              normalize(x(r, false), r, mean, rstd);
              return {};
            });
  });
}

/// reduce_mean, reduce_sum, reduce_prod, reduce_max, reduce_min and
/// global_avg_pool2d: one wave per output element, lanes striding the
/// reduced elements in f32, then a butterfly across the wave.
LogicalResult LowerOpsToGPUPass::lowerReduction(Operation *op,
                                                ArrayRef<int64_t> dims,
                                                Operation *anchor,
                                                const RowIO &io) {
  ArrayRef<int64_t> shape = tensorType(op->getOperand(0)).getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> sorted;
  for (int64_t d : dims)
    sorted.push_back(d < 0 ? d + rank : d);
  llvm::sort(sorted);
  // Size-1 dimensions do not change the layout: drop them, then the rest
  // must be consecutive.
  SmallVector<int64_t> real;
  for (int64_t d : sorted)
    if (shape[d] != 1)
      real.push_back(d);
  int64_t first = real.empty() ? rank : real.front();
  int64_t last = real.empty() ? rank - 1 : real.back();
  for (int64_t d = first; d <= last; ++d)
    if (shape[d] != 1 && !llvm::is_contained(real, d))
      return op->emitOpError()
             << "reduces non-adjacent dimensions; only a reduction over "
                "consecutive dimensions has a kernel yet";
  RowLayout layout{product(shape.take_front(first)) *
                       product(shape.drop_front(last + 1)),
                   product(shape.slice(first, last + 1 - first)),
                   product(shape.drop_front(last + 1))};
  Type outElt = tensorType(op->getResult(0)).getElementType();
  unsigned w = waveSize;
  enum class Kind { Sum, Mean, Prod, Max, Min };
  Kind kind = llvm::TypeSwitch<Operation *, Kind>(op)
                  .Case([](ReduceSumOp) { return Kind::Sum; })
                  .Case([](ReduceProdOp) { return Kind::Prod; })
                  .Case([](ReduceMaxOp) { return Kind::Max; })
                  .Case([](ReduceMinOp) { return Kind::Min; })
                  .Default([](Operation *) { return Kind::Mean; });
  double inf = std::numeric_limits<double>::infinity();
  double init = kind == Kind::Prod  ? 1.0
                : kind == Kind::Max ? -inf
                : kind == Kind::Min ? inf
                                    : 0.0;
  StringRef name = isa<GlobalAvgPool2DOp>(op)
                       ? StringRef("global_avg_pool2d")
                       : op->getName().stripDialect();
  // crest-fuse-epilogues sizes row prologues by the same length.
  assert(layout.r == getRowLength(op) && "row layout and row length differ");
  return lowerRows(anchor, name,
                   tensorType(op->getOperand(0)).getElementType(), layout,
                   [&](Emitter &e, Value lane, Value row, Value rowBase,
                       ArrayRef<Value> flat) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    auto combine = [&](Value x, Value y) -> Value {
      switch (kind) {
      case Kind::Prod:
        return arith::MulFOp::create(b, loc, x, y);
      case Kind::Max:
        return arith::MaximumFOp::create(b, loc, x, y);
      case Kind::Min:
        return arith::MinimumFOp::create(b, loc, x, y);
      default:
        return arith::AddFOp::create(b, loc, x, y);
      }
    };
    auto at = [&](Value r) { return e.add(rowBase, e.mul(r, layout.inner)); };
    // Each element is read once: its prologue values are stored there. A
    // short row is read as one batch of independent loads (cacheRow, the
    // elements combined in rowLoop's order: the same bits), a long one
    // lane-strided.
    Value acc;
    if (isCachedRow(layout.r, w)) {
      CachedRow cachedRow =
          cacheRowThrough(e, io, flat, lane, layout.r, w, at);
      acc = cachedRow.reduce(e, e.acc(init), combine,
                             [&](unsigned i) { return cachedRow.x[i]; });
    } else {
      acc = rowLoop(e, lane, layout.r, w, {e.acc(init)},
                    [&](Value r, ValueRange acc) -> SmallVector<Value> {
                      return {combine(acc[0],
                                      loadThrough(e, io, flat, at(r), true))};
                    })[0];
    }
    Value result = e.waveAllReduce(acc, w, combine);
    if (kind == Kind::Mean)
      result = arith::MulFOp::create(b, loc, result,
                                     e.acc(1.0 / double(layout.r)));
    e.enterIf(e.cmp(arith::CmpIPredicate::eq, lane, e.idx(0)));
    io.store(e, flat, convertElements(b, loc, result, outElt), row);
  });
}

//===----------------------------------------------------------------------===//
// Windowed pooling
//===----------------------------------------------------------------------===//

LogicalResult LowerOpsToGPUPass::lowerPool(Operation *op) {
  bool isMax = isa<MaxPool2DOp>(op);
  ArrayRef<int64_t> kernel, strides, pads;
  bool countPad = false;
  if (auto max = dyn_cast<MaxPool2DOp>(op)) {
    kernel = max.getKernel();
    strides = max.getStrides();
    pads = max.getPads();
  } else {
    auto avg = cast<AvgPool2DOp>(op);
    kernel = avg.getKernel();
    strides = avg.getStrides();
    pads = avg.getPads();
    countPad = avg.getCountIncludePad();
  }
  ArrayRef<int64_t> in = tensorType(op->getOperand(0)).getShape();
  ArrayRef<int64_t> out = tensorType(op->getResult(0)).getShape();
  int64_t h = in[2], w = in[3], oh = out[2], ow = out[3];
  int64_t items = product(out);
  auto [func, block] =
      createItemKernel(op, isMax ? "max_pool2d" : "avg_pool2d",
                       op->getOperandTypes(), op->getResultTypes(), items);
  Location loc = op->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc, tensorType(op->getOperand(0)).getElementType());
  Value src = e.flatten(func.getArgument(0));
  Value dst = e.flatten(func.getArgument(1));
  Value gid = e.itemIndex(block, items);
  Value x = e.rem(gid, ow);
  Value y = e.rem(e.div(gid, ow), oh);
  Value plane = e.mul(e.div(gid, ow * oh), h * w);
  // Window origin in input coordinates (may be negative: top/left pads).
  Value y0 = e.sub(e.mul(y, strides[0]), e.idx(pads[0]));
  Value x0 = e.sub(e.mul(x, strides[1]), e.idx(pads[1]));
  Value init = e.acc(isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  using P = arith::CmpIPredicate;
  auto rows = scf::ForOp::create(b, loc, e.idx(0), e.idx(kernel[0]), e.idx(1),
                                 ValueRange{init, e.acc(0)});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(rows.getBody());
    Value yy = e.add(y0, rows.getInductionVar());
    Value yValid = arith::AndIOp::create(b, loc, e.cmp(P::sge, yy, e.idx(0)),
                                         e.cmp(P::slt, yy, e.idx(h)));
    auto cols = scf::ForOp::create(b, loc, e.idx(0), e.idx(kernel[1]),
                                   e.idx(1), rows.getRegionIterArgs());
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(cols.getBody());
      Value xx = e.add(x0, cols.getInductionVar());
      Value valid = arith::AndIOp::create(
          b, loc, yValid,
          arith::AndIOp::create(b, loc, e.cmp(P::sge, xx, e.idx(0)),
                                e.cmp(P::slt, xx, e.idx(w))));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{e.accType}, valid,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        Value v = e.loadAcc(src, e.add(plane, e.add(e.mul(yy, w), xx)));
        scf::YieldOp::create(b, loc, v);
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, init);
      }
      ValueRange acc = cols.getRegionIterArgs();
      Value v = ifOp.getResult(0);
      Value next = isMax ? arith::MaximumFOp::create(b, loc, acc[0], v)
                               .getResult()
                         : arith::AddFOp::create(b, loc, acc[0], v).getResult();
      Value count = arith::AddFOp::create(
          b, loc, acc[1],
          arith::SelectOp::create(b, loc, valid, e.acc(1), e.acc(0)));
      scf::YieldOp::create(b, loc, ValueRange{next, count});
    }
    scf::YieldOp::create(b, loc, cols.getResults());
  }
  Value result = rows.getResult(0);
  if (!isMax) {
    Value divisor = rows.getResult(1);
    if (countPad) {
      // The window clipped to the padded input (not to ceil_mode's extra
      // cells beyond the bottom/right padding).
      Value y1 = arith::MinSIOp::create(b, loc, e.add(y0, e.idx(kernel[0])),
                                        e.idx(h + pads[2]));
      Value x1 = arith::MinSIOp::create(b, loc, e.add(x0, e.idx(kernel[1])),
                                        e.idx(w + pads[3]));
      Value cells = e.mul(e.sub(y1, y0), e.sub(x1, x0));
      divisor = arith::SIToFPOp::create(
          b, loc, e.accType,
          arith::IndexCastOp::create(b, loc, b.getI32Type(), cells));
    }
    result = arith::DivFOp::create(b, loc, result, divisor);
  }
  e.store(convertElements(b, loc, result,
                          tensorType(op->getResult(0)).getElementType()),
          dst, gid);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

namespace {
/// Loads `vec` consecutive elements along a dimension of input stride
/// `stride` starting at `offset`: a scalar, one vector load (stride 1), or
/// `vec` scalar loads assembled into a vector.
Value loadRun(Emitter &e, Value flat, Value offset, int64_t vec,
              int64_t stride, bool aligned) {
  if (vec == 1)
    return e.load(flat, offset);
  Type elt = cast<MemRefType>(flat.getType()).getElementType();
  auto type = VectorType::get({vec}, elt);
  if (stride == 1 && aligned) {
    auto load = vector::LoadOp::create(e.b, e.loc, type, flat,
                                       ValueRange{offset});
    int64_t bytes = vec * std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
    if (llvm::isPowerOf2_64(bytes))
      load.setAlignment(bytes);
    return load;
  }
  SmallVector<Value> parts;
  for (int64_t k = 0; k < vec; ++k)
    parts.push_back(e.load(flat, e.add(offset, e.idx(k * stride))));
  return vector::FromElementsOp::create(e.b, e.loc, type, parts);
}

/// `if (cond) then() else otherwise()`, both yielding one value of `type`.
Value emitSelect(Emitter &e, Value cond, Type type, function_ref<Value()> then,
                 function_ref<Value()> otherwise) {
  auto ifOp = scf::IfOp::create(e.b, e.loc, TypeRange{type}, cond,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(e.b);
  e.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(e.b, e.loc, then());
  e.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(e.b, e.loc, otherwise());
  return ifOp.getResult(0);
}

/// Drops size-1 dimensions and merges neighbours that are contiguous in the
/// input, so that index arithmetic and vector width see the real layout.
StridedMap simplifyStridedMap(const StridedMap &map) {
  StridedMap r;
  r.base = map.base;
  for (auto [size, stride] : llvm::zip(map.shape, map.strides)) {
    if (size == 1)
      continue;
    if (!r.shape.empty() && r.strides.back() == stride * size) {
      r.shape.back() *= size;
      r.strides.back() = stride;
      continue;
    }
    r.shape.push_back(size);
    r.strides.push_back(stride);
  }
  if (r.shape.empty()) { // a single element (or none)
    r.shape.push_back(product(map.shape));
    r.strides.push_back(1);
  }
  return r;
}
} // namespace

int64_t LowerOpsToGPUPass::moveWidth(Type elt) const {
  int64_t vec = vectorWidth;
  if (vec < 2 || !llvm::isPowerOf2_64(vec) || !isByteVectorizable(elt))
    return 1;
  int64_t bytes = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
  while (vec > 1 && vec * bytes > 16)
    vec /= 2;
  return vec;
}

LogicalResult LowerOpsToGPUPass::lowerPerOutput(
    Operation *op, StringRef kind, int64_t vec,
    function_ref<FailureOr<Value>(Emitter &, ArrayRef<Value>, Value)>
        emitItem) {
  RankedTensorType outType = tensorType(op->getResult(0));
  int64_t n = outType.getNumElements();
  if (vec > 1 && n % vec != 0)
    vec = 1;
  int64_t items = n / vec;
  auto [func, block] = createItemKernel(op, kind, op->getOperandTypes(),
                                        op->getResultTypes(), items);
  Location loc = op->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc);
  SmallVector<Value> flat;
  for (BlockArgument arg : func.getArguments())
    flat.push_back(e.flatten(arg));
  Value gid = e.itemIndex(block, items);
  Value o = e.mul(gid, vec);
  FailureOr<Value> v = emitItem(e, flat, o);
  if (failed(v))
    return failure();
  Value out = flat.back();
  if (vec > 1) {
    auto store = vector::StoreOp::create(b, loc, *v, out, ValueRange{o});
    Type elt = outType.getElementType();
    int64_t bytes = vec * std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
    if (llvm::isPowerOf2_64(bytes))
      store.setAlignment(bytes);
  } else {
    e.store(*v, out, o);
  }
  return success();
}

LogicalResult LowerOpsToGPUPass::lowerStrided(Operation *op, StringRef kind,
                                              const StridedMap &given) {
  StridedMap map = simplifyStridedMap(given);
  Type elt = signless(tensorType(op->getResult(0)).getElementType());
  // A work-item covers `vec` consecutive output elements of one innermost
  // row; they are consecutive in the input too when its stride is 1.
  int64_t vec = moveWidth(elt);
  if (map.shape.empty() || map.shape.back() % vec != 0)
    vec = 1;
  bool aligned = map.base % vec == 0 &&
                 llvm::all_of(ArrayRef<int64_t>(map.strides).drop_back(),
                              [&](int64_t s) { return s % vec == 0; });
  return lowerPerOutput(
      op, kind, vec,
      [&](Emitter &e, ArrayRef<Value> flat, Value o) -> FailureOr<Value> {
        SmallVector<int64_t> outStrides = rowMajorStrides(map.shape);
        Value offset = e.idx(map.base);
        for (size_t d = 0; d < map.shape.size(); ++d) {
          Value c = e.div(o, outStrides[d]);
          if (d > 0)
            c = e.rem(c, map.shape[d]);
          offset = e.add(offset, e.mul(c, map.strides[d]));
        }
        int64_t inner = map.strides.empty() ? 1 : map.strides.back();
        return loadRun(e, flat[0], offset, vec, inner, aligned);
      });
}

LogicalResult LowerOpsToGPUPass::lowerTranspose(TransposeOp op) {
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  StridedMap map;
  for (int64_t p : op.getPermutation()) {
    map.shape.push_back(in[p]);
    map.strides.push_back(inStrides[p]);
  }
  StridedMap simple = simplifyStridedMap(map);
  // A transpose that moves the innermost input dimension: read and write
  // through an LDS tile, so both sides are coalesced.
  if (simple.shape.size() >= 2 && simple.strides.back() != 1 &&
      tiledTranspose && simple.shape.back() >= 8 &&
      simple.shape[llvm::find(simple.strides, 1) - simple.strides.begin()] >=
          8)
    return lowerTransposeTiled(op, simple);
  return lowerStrided(op, "transpose", map);
}

LogicalResult LowerOpsToGPUPass::lowerSlice(SliceOp op) {
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  ArrayRef<int64_t> out = tensorType(op.getResult()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  StridedMap map;
  std::optional<ArrayRef<int64_t>> strides = op.getStrides();
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t step = strides ? (*strides)[d] : 1;
    map.base += op.getOffsets()[d] * inStrides[d];
    map.shape.push_back(out[d]);
    map.strides.push_back(step * inStrides[d]);
  }
  return lowerStrided(op, "slice", map);
}

LogicalResult LowerOpsToGPUPass::lowerCopy(Operation *op, StringRef kind) {
  StridedMap map;
  map.shape.push_back(tensorType(op->getResult(0)).getNumElements());
  map.strides.push_back(1);
  return lowerStrided(op, kind, map);
}

LogicalResult LowerOpsToGPUPass::lowerConcat(ConcatOp op) {
  RankedTensorType outType = tensorType(op.getResult());
  ArrayRef<int64_t> shape = outType.getShape();
  int64_t axis = int64_t(op.getAxis()); // I64Attr reads as uint64_t
  if (axis < 0)
    axis += outType.getRank();
  // The output as rows of `rowLen`; input k fills columns
  // [starts[k], starts[k] + lens[k]) of every row.
  int64_t inner = product(shape.drop_front(axis + 1));
  int64_t rowLen = shape[axis] * inner;
  SmallVector<int64_t> starts, lens;
  int64_t vec = moveWidth(outType.getElementType());
  for (Value input : op.getInputs()) {
    int64_t len = tensorType(input).getDimSize(axis) * inner;
    starts.push_back(lens.empty() ? 0 : starts.back() + lens.back());
    lens.push_back(len);
    if (len % vec != 0)
      vec = 1;
  }
  return lowerPerOutput(
      op, "concat", vec,
      [&](Emitter &e, ArrayRef<Value> flat, Value o) -> FailureOr<Value> {
        Value row = e.div(o, rowLen);
        Value col = e.rem(o, rowLen);
        Type outElt = signless(outType.getElementType());
        Type type = vec > 1 ? Type(VectorType::get({vec}, outElt)) : outElt;
        // The inputs that hold anything, the last one taking what is left.
        SmallVector<size_t> parts;
        for (size_t k = 0; k < lens.size(); ++k)
          if (lens[k] > 0)
            parts.push_back(k);
        std::function<Value(size_t)> pick = [&](size_t i) -> Value {
          size_t k = parts[i];
          auto load = [&, k]() {
            Value offset =
                e.add(e.mul(row, lens[k]), e.sub(col, e.idx(starts[k])));
            return loadRun(e, flat[k], offset, vec, 1, /*aligned=*/true);
          };
          if (i + 1 == parts.size())
            return load();
          return emitSelect(e, e.lessThan(col, starts[k] + lens[k]), type,
                            load, [&, i]() { return pick(i + 1); });
        };
        if (parts.empty())
          return constant(e.b, e.loc, type, 0.0); // an empty result
        return pick(0);
      });
}

namespace {
/// The `vec` elements of gather `op`'s result from flat offset `o` (a
/// scalar for 1), read from the flat views `data` and `indices`: a
/// negative index counts from the end of the axis, and any index still
/// outside it reads zeros.
Value emitGatherAt(Emitter &e, GatherOp op, Value data, Value indices,
                   Value o, int64_t vec) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  ArrayRef<int64_t> shape = tensorType(op.getData()).getShape();
  int64_t axis = int64_t(op.getAxis()); // I64Attr reads as uint64_t
  if (axis < 0)
    axis += int64_t(shape.size());
  int64_t inner = product(shape.drop_front(axis + 1));
  int64_t extent = shape[axis];
  int64_t count = tensorType(op.getIndices()).getNumElements();
  // Output element o = [outer, j, r]: data[outer, indices[j], r].
  Value r = e.rem(o, inner);
  Value j = e.rem(e.div(o, inner), count);
  Value outer = e.div(o, inner * count);
  Value index = e.load(indices, j);
  Type i64 = b.getI64Type();
  if (index.getType() != i64)
    index = arith::ExtSIOp::create(b, loc, i64, index);
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  using P = arith::CmpIPredicate;
  Value negative = arith::CmpIOp::create(b, loc, P::slt, index, c64(0));
  index = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, index, c64(extent)),
      index);
  // After wrapping, [0, extent) is valid; anything else (including a
  // still negative index) reads nothing.
  Value valid = arith::CmpIOp::create(b, loc, P::ult, index, c64(extent));
  Type outElt = signless(tensorType(op.getResult()).getElementType());
  Type type = vec > 1 ? Type(VectorType::get({vec}, outElt)) : outElt;
  return emitSelect(
      e, valid, type,
      [&]() {
        Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
        Value offset =
            e.add(e.mul(e.add(e.mul(outer, extent), i), inner), r);
        return loadRun(e, data, offset, vec, 1, /*aligned=*/true);
      },
      [&]() { return constant(b, loc, type, 0.0); });
}
} // namespace

LogicalResult LowerOpsToGPUPass::lowerGather(GatherOp op) {
  ArrayRef<int64_t> data = tensorType(op.getData()).getShape();
  int64_t axis = int64_t(op.getAxis()); // I64Attr reads as uint64_t
  if (axis < 0)
    axis += int64_t(data.size());
  int64_t inner = product(data.drop_front(axis + 1));
  int64_t vec = moveWidth(tensorType(op.getResult()).getElementType());
  if (inner % vec != 0)
    vec = 1;
  return lowerPerOutput(
      op, "gather", vec,
      [&](Emitter &e, ArrayRef<Value> flat, Value o) -> FailureOr<Value> {
        return emitGatherAt(e, op, flat[0], flat[1], o, vec);
      });
}

LogicalResult LowerOpsToGPUPass::lowerTransposeTiled(TransposeOp op,
                                                     const StridedMap &map) {
  // Output dimension `inner` (the last) is input dimension `p`; input
  // dimension `q` (stride 1) is output dimension `q`. A workgroup of
  // kTile x kRows work-items moves one kTile x kTile tile of (p, q) for one
  // index of the other ("batch") dimensions: it reads rows of q
  // (consecutive in the input) into LDS and writes rows of p (consecutive
  // in the output) from it.
  constexpr int64_t kTile = 32, kRows = 8;
  ArrayRef<int64_t> shape = map.shape;
  int64_t rank = shape.size(), p = rank - 1;
  int64_t q = llvm::find(map.strides, 1) - map.strides.begin();
  SmallVector<int64_t> outStrides = rowMajorStrides(shape);
  SmallVector<int64_t> batchDims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != p && d != q)
      batchDims.push_back(d);
  int64_t tilesP = llvm::divideCeil(shape[p], kTile);
  int64_t tilesQ = llvm::divideCeil(shape[q], kTile);
  int64_t batches = 1;
  for (int64_t d : batchDims)
    batches *= shape[d];
  int64_t block = kTile * kRows;
  gpu::GPUFuncOp func =
      createKernel(op, "transpose", op->getOperandTypes(),
                   op->getResultTypes(), batches * tilesP * tilesQ, block);
  Type elt = signless(tensorType(op.getResult()).getElementType());
  Location loc = op.getLoc();
  auto workgroup = gpu::AddressSpaceAttr::get(&getContext(),
                                              gpu::AddressSpace::Workgroup);
  // One element of padding per row: the column reads hit distinct banks.
  // The leading dimension of one is the tile's slot for
  // crest-insert-barriers: the four stores, all of slot 0, are then one
  // cooperative copy (no WAW among them) and one barrier orders the loads.
  Value lds = func.addWorkgroupAttribution(
      MemRefType::get({1, kTile, kTile + 1}, elt, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc, tensorType(op->getOperand(0)).getElementType());
  Value src = e.flatten(func.getArgument(0));
  Value dst = e.flatten(func.getArgument(1));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tx = e.rem(tid, kTile), ty = e.div(tid, kTile);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value p0 = e.mul(e.rem(bid, tilesP), kTile);
  Value q0 = e.mul(e.rem(e.div(bid, tilesP), tilesQ), kTile);
  Value batch = e.div(bid, tilesP * tilesQ);
  Value inBase = e.idx(map.base), outBase = e.idx(0);
  int64_t step = 1;
  for (int64_t d : llvm::reverse(batchDims)) {
    Value c = e.rem(e.div(batch, step), shape[d]);
    step *= shape[d];
    inBase = e.add(inBase, e.mul(c, map.strides[d]));
    outBase = e.add(outBase, e.mul(c, outStrides[d]));
  }
  auto inside = [&](Value pp, Value qq) -> Value {
    return arith::AndIOp::create(b, loc, e.lessThan(pp, shape[p]),
                                 e.lessThan(qq, shape[q]));
  };
  auto guarded = [&](Value cond, function_ref<void()> body) {
    OpBuilder::InsertionGuard g(b);
    e.enterIf(cond);
    body();
  };
  // Top-level guarded accesses only: crest-insert-barriers places the one
  // barrier between the LDS writes and the LDS reads.
  for (int64_t k = 0; k < kTile; k += kRows) {
    Value row = e.add(ty, e.idx(k));
    Value pp = e.add(p0, row), qq = e.add(q0, tx);
    guarded(inside(pp, qq), [&] {
      Value v = e.load(src, e.add(inBase, e.add(e.mul(pp, map.strides[p]),
                                                qq)));
      memref::StoreOp::create(b, loc, v, lds, ValueRange{e.idx(0), row, tx});
    });
  }
  for (int64_t k = 0; k < kTile; k += kRows) {
    Value row = e.add(ty, e.idx(k));
    Value pp = e.add(p0, tx), qq = e.add(q0, row);
    guarded(inside(pp, qq), [&] {
      Value v =
          memref::LoadOp::create(b, loc, lds, ValueRange{e.idx(0), tx, row});
      e.store(v, dst, e.add(outBase, e.add(e.mul(qq, outStrides[q]), pp)));
    });
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Views without a kernel
//===----------------------------------------------------------------------===//

/// Whether `slice` is a window of its input's bytes the host planner can
/// alias (crest/Semantics/View.h): one contiguous run, starting aligned,
/// of a value a launch computes, a graph input or another view's (a
/// constant's slice is left to its kernel).
static bool isAliasableWindow(SliceOp slice) {
  RankedTensorType in = slice.getInput().getType();
  RankedTensorType out = slice.getResult().getType();
  ArrayRef<int64_t> strides;
  if (std::optional<ArrayRef<int64_t>> s = slice.getStrides())
    strides = *s;
  Type element = in.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  std::optional<int64_t> bytes = getContiguousWindowByteOffset(
      in.getShape(), out.getShape(), slice.getOffsets(), strides,
      element.getIntOrFloatBitWidth() / 8);
  return bytes && isAliasableWindowOffset(*bytes) &&
         !matchPattern(slice.getInput(), m_Constant());
}

/// The views that get no kernel: reshapes and contiguous windows (slices);
/// the host planner makes each result an alias of its input's bytes, at an
/// offset for a window (docs/Package.md). A returned reshape gets a copy
/// kernel instead when those bytes already belong to a graph input, a
/// weight, another result, or another returned alias of the same bytes, or
/// are a window of a larger value; a returned window always gets one (its
/// bytes are part of another value's).
static DenseSet<Operation *> findAliasedViews(ModuleOp module) {
  DenseSet<Operation *> aliased;
  module.walk([&](FunctionOpInterface func) {
    if (func.isExternal() || isa<gpu::GPUFuncOp>(func))
      return;
    DenseSet<Value> returned, claimed, windows;
    for (Block &block : func.getFunctionBody())
      if (Operation *term = block.getTerminator();
          term && term->getParentOp() == func.getOperation() &&
          !isa_and_nonnull<CrestDialect>(term->getDialect()))
        returned.insert(term->operand_begin(), term->operand_end());
    // The value whose bytes a (chain of) aliased view(s) shows.
    DenseMap<Value, Value> rootOf;
    auto root = [&](Value v) { return rootOf.lookup(v) ? rootOf.lookup(v) : v; };
    auto owned = [&](Value r) {
      Operation *def = r.getDefiningOp();
      return claimed.contains(r) || returned.contains(r) || !def ||
             !isa_and_nonnull<CrestDialect>(def->getDialect());
    };
    func.walk([&](Operation *op) {
      if (!isa<ReshapeOp, SliceOp>(op) || op->getParentOfType<KernelOp>() ||
          getLaunch(op))
        return;
      Value input = op->getOperand(0), result = op->getResult(0);
      Value r = root(input);
      if (auto slice = dyn_cast<SliceOp>(op)) {
        if (returned.contains(result) || !isAliasableWindow(slice))
          return; // a kernel
        windows.insert(result);
      } else {
        if (windows.contains(input))
          windows.insert(result);
        if (returned.contains(result)) {
          if (owned(r) || windows.contains(result))
            return; // a copy kernel
          claimed.insert(r);
        }
      }
      rootOf[result] = r;
      aliased.insert(op);
    });
  });
  return aliased;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

LogicalResult LowerOpsToGPUPass::lowerGroup(KernelOp kernel) {
  if (kernel.getContraction())
    return kernel->emitOpError() << "has a contraction but no crest.launch; "
                                    "run crest-lower-to-gpu first";
  Block &body = kernel.getBody().front();
  SmallVector<Value> inputs(body.getArguments());
  SmallVector<Operation *> ops;
  for (Operation &inner : body.without_terminator())
    ops.push_back(&inner);
  SmallVector<Value> yielded(cast<YieldOp>(body.getTerminator()).getValues());
  if (yielded.empty())
    return kernel->emitOpError() << "yields nothing";
  if (Operation *const *row = llvm::find_if(ops, isRowOp); row != ops.end())
    return lowerRowGroup(kernel, *row);
  return lowerElementwise(kernel, inputs, ops, yielded);
}

LogicalResult LowerOpsToGPUPass::lowerRowGroup(KernelOp kernel,
                                               Operation *row) {
  Block &body = kernel.getBody().front();
  Value input = row->getOperand(0);
  Value rowResult = row->getResult(0);
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  ArrayRef<int64_t> outShape = tensorType(rowResult).getShape();
  // The prologue: elementwise ops and gathers of the input's shape before
  // the row op; the epilogue: elementwise ops of its result's shape after
  // it.
  SmallVector<Operation *> prologue, epilogue;
  for (Operation &op : body.without_terminator()) {
    if (matchPattern(&op, m_Constant()) || &op == row)
      continue;
    bool after = row->isBeforeInBlock(&op);
    bool elementwise = op.hasTrait<crest::OpTrait::Elementwise>();
    if (!after && (isa<GatherOp>(op) || elementwise) &&
        tensorType(op.getResult(0)).getShape() == shape) {
      prologue.push_back(&op);
      continue;
    }
    if (after && elementwise &&
        tensorType(op.getResult(0)).getShape() == outShape) {
      epilogue.push_back(&op);
      continue;
    }
    return op.emitOpError()
           << "cannot join the kernel of " << row->getName()
           << ": only elementwise ops and gathers of its input's shape may "
              "come before it, and elementwise ops of its result's shape "
              "after it";
  }
  auto isOperand = [&](Value v) {
    DenseElementsAttr dense;
    return isa<BlockArgument>(v) ||
           (matchPattern(v, m_Constant(&dense)) && dense.isSplat());
  };
  auto computedBy = [](Value v, ArrayRef<Operation *> ops) {
    Operation *def = v.getDefiningOp();
    return def && llvm::is_contained(ops, def);
  };
  for (Operation *op : llvm::concat<Operation *>(prologue, epilogue))
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      bool computed = llvm::is_contained(prologue, op)
                          ? computedBy(v, prologue)
                          : computedBy(v, epilogue) || v == rowResult;
      if (isa<GatherOp>(op) ? !isa<BlockArgument>(v)
                            : !(computed || isOperand(v)))
        return op->emitOpError()
               << "in a row kernel reads operand #" << i
               << ", which is neither a kernel input"
               << (isa<GatherOp>(op) ? ""
                                     : ", a splat constant nor computed "
                                       "before it in its part of the kernel");
    }
  for (Value v : llvm::drop_begin(row->getOperands()))
    if (!isOperand(v))
      return row->emitOpError()
             << "in a row kernel reads its scale and bias from kernel inputs "
                "or splat constants only";
  // Each yielded value is stored where it is computed: the prologue's as
  // the input is read, the row op's and the epilogue's as the result is.
  auto yield = cast<YieldOp>(body.getTerminator());
  unsigned numInputs = body.getNumArguments();
  RowIO io;
  SmallVector<std::pair<Value, unsigned>> resultStores;
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    if (v == rowResult || computedBy(v, epilogue)) {
      resultStores.push_back({v, numInputs + i});
      continue;
    }
    if (!computedBy(v, prologue))
      return yield.emitOpError()
             << "of a row kernel yields value #" << i
             << ", which is computed by none of its ops";
    io.extraResults.push_back(numInputs + i);
  }
  if (resultStores.empty())
    return yield.emitOpError()
           << "of a row kernel must yield the result of " << row->getName()
           << " or of an op after it";

  // A kernel input or a splat constant at flat offset `o` of a tensor of
  // shape `target` (broadcast from a smaller shape).
  auto operandIn = [](ArrayRef<int64_t> target) {
    return [target](Emitter &e, ArrayRef<Value> flat, Value v,
                    Value o) -> Value {
      DenseElementsAttr dense;
      if (matchPattern(v, m_Constant(&dense)))
        return arith::ConstantOp::create(
            e.b, e.loc,
            getSplatScalar(dense, signless(tensorType(v).getElementType())));
      Value mem = flat[cast<BlockArgument>(v).getArgNumber()];
      ArrayRef<int64_t> in = tensorType(v).getShape();
      if (in == target)
        return e.load(mem, o);
      SmallVector<int64_t> strides = rowMajorStrides(target);
      return e.load(mem, getBroadcastOffset(e, target, in, [&](int64_t d) {
                      return e.rem(e.div(o, strides[d]), target[d]);
                    }));
    };
  };
  auto operandAt = operandIn(shape);
  auto resultOperandAt = operandIn(outShape);
  LogicalResult status = success();
  // Evaluates the elementwise op `op` on `operands`.
  auto apply = [&](Emitter &e, Operation *op, ArrayRef<Value> operands) {
    Type elt = tensorType(op->getResult(0)).getElementType();
    FailureOr<Value> r = emitElementwise(e.b, op, operands, elt);
    if (succeeded(r))
      return *r;
    status = failure();
    return constant(e.b, e.loc, signless(elt), 0.0);
  };
  io.input = [&](Emitter &e, ArrayRef<Value> flat, Value o,
                 SmallVectorImpl<Value> &extras) -> Value {
    IRMapping values;
    auto valueOf = [&](Value v) {
      if (Value computed = values.lookupOrNull(v))
        return computed;
      return operandAt(e, flat, v, o);
    };
    for (Operation *op : prologue) {
      Value result;
      if (auto gather = dyn_cast<GatherOp>(op)) {
        auto arg = [&](Value v) {
          return flat[cast<BlockArgument>(v).getArgNumber()];
        };
        result = emitGatherAt(e, gather, arg(gather.getData()),
                              arg(gather.getIndices()), o, 1);
      } else {
        SmallVector<Value> operands;
        for (Value v : op->getOperands())
          operands.push_back(valueOf(v));
        result = apply(e, op, operands);
      }
      values.map(op->getResult(0), result);
    }
    for (Value v : yield.getValues())
      if (computedBy(v, prologue))
        extras.push_back(values.lookup(v));
    return valueOf(input);
  };
  io.operand = operandAt;
  io.store = [&](Emitter &e, ArrayRef<Value> flat, Value y, Value o) {
    IRMapping values;
    values.map(rowResult, y);
    auto valueOf = [&](Value v) {
      if (Value computed = values.lookupOrNull(v))
        return computed;
      return resultOperandAt(e, flat, v, o);
    };
    for (Operation *op : epilogue) {
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(valueOf(v));
      values.map(op->getResult(0), apply(e, op, operands));
    }
    for (auto [v, arg] : resultStores)
      e.store(values.lookup(v), flat[arg], o);
  };
  LogicalResult lowered =
      llvm::TypeSwitch<Operation *, LogicalResult>(row)
          .Case([&](LayerNormOp norm) {
            return lowerLayerNorm(norm, kernel, io);
          })
          .Case([&](SoftmaxOp softmax) {
            return lowerSoftmax(softmax, kernel, io);
          })
          .Case<ReduceMeanOp, ReduceSumOp, ReduceProdOp, ReduceMaxOp,
                ReduceMinOp>([&](auto reduce) {
            return lowerReduction(reduce, reduce.getDims(), kernel, io);
          })
          .Case([&](GlobalAvgPool2DOp pool) {
            int64_t hw[] = {2, 3};
            return lowerReduction(pool, hw, kernel, io);
          });
  return success(succeeded(lowered) && succeeded(status));
}

void LowerOpsToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  TargetAttr target = lookupTarget(module);
  if (!target || !target.getChipInfo()) {
    module.emitError() << "crest-lower-ops-to-gpu needs a #crest.target on "
                          "the module (run crest-attach-target first)";
    return signalPassFailure();
  }
  waveSize = target.getEffectiveWaveSize();
  if (blockSize == 0 || blockSize % waveSize != 0 || blockSize > 1024) {
    module.emitError() << "block-size " << unsigned(blockSize)
                       << " must be a positive multiple of the wave size ("
                       << waveSize << ") of at most 1024";
    return signalPassFailure();
  }

  DenseSet<Operation *> aliased = findAliasedViews(module);
  SmallVector<Operation *> work;
  module.walk([&](Operation *op) {
    if (!isa_and_nonnull<CrestDialect>(op->getDialect()) || isa<YieldOp>(op) ||
        op->getParentOfType<KernelOp>() || getLaunch(op) ||
        aliased.contains(op))
      return;
    work.push_back(op);
  });
  if (work.empty())
    return;

  codegen::KernelModule kernelModule(module);
  kernels = &kernelModule;

  for (Operation *op : work) {
    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](KernelOp kernel) { return lowerGroup(kernel); })
            .Case([&](SoftmaxOp softmax) {
              return lowerSoftmax(softmax, softmax,
                                  getStandaloneRowIO(softmax));
            })
            .Case([&](LayerNormOp norm) {
              return lowerLayerNorm(norm, norm, getStandaloneRowIO(norm));
            })
            .Case<ReduceMeanOp, ReduceSumOp, ReduceProdOp, ReduceMaxOp,
                  ReduceMinOp>([&](auto reduce) {
              return lowerReduction(reduce, reduce.getDims(), reduce,
                                    getStandaloneRowIO(reduce));
            })
            .Case([&](GlobalAvgPool2DOp pool) {
              int64_t hw[] = {2, 3};
              return lowerReduction(pool, hw, pool, getStandaloneRowIO(pool));
            })
            .Case<MaxPool2DOp, AvgPool2DOp>(
                [&](Operation *pool) { return lowerPool(pool); })
            .Case([&](TransposeOp t) { return lowerTranspose(t); })
            .Case([&](SliceOp slice) { return lowerSlice(slice); })
            .Case([&](ConcatOp concat) { return lowerConcat(concat); })
            .Case([&](GatherOp gather) { return lowerGather(gather); })
            .Case([&](ReshapeOp reshape) {
              return lowerCopy(reshape, "reshape");
            })
            .Case([&](AttentionOp attention) {
              return attention.emitOpError()
                     << "has no crest.launch; run crest-lower-attention "
                        "first";
            })
            .Case([&](ContractionOpInterface) {
              return op->emitOpError()
                     << "has no crest.launch; run crest-lower-to-gpu first";
            })
            .Default([&](Operation *other) -> LogicalResult {
              if (other->hasTrait<crest::OpTrait::Elementwise>()) {
                SmallVector<Value> inputs(other->getOperands());
                return lowerElementwise(other, inputs, {other},
                                        {other->getResult(0)});
              }
              return other->emitOpError() << "has no GPU kernel lowering";
            });
    if (failed(result))
      return signalPassFailure();
  }
}
