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

#include "crest/Codegen/Passes.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace crest {
#define GEN_PASS_DEF_CRESTLOWEROPSTOGPUPASS
#include "crest/Codegen/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

namespace {

constexpr StringLiteral kKernelModuleName = "crest_kernels";

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

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Builds the body of one kernel: index arithmetic and flat memory access.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

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
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }

  /// Continues emission inside `if (cond)`; the guard restores nothing, so
  /// call it only where the rest of the body belongs inside.
  void enterIf(Value cond) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
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
  /// Loads and widens to f32.
  Value loadF32(Value flat, Value offset) {
    return convertElements(b, loc, load(flat, offset), b.getF32Type());
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
};

/// A rows x R view of a tensor: element (row, r) is at
/// (row / inner) * R * inner + r * inner + row % inner.
struct RowLayout {
  int64_t rows, r, inner;
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

  LogicalResult lowerElementwise(Operation *anchor, ArrayRef<Value> bodyInputs,
                                 ArrayRef<Operation *> body,
                                 ArrayRef<Value> yielded);
  /// One wave per row; `emitRow` emits the work of one row given the wave's
  /// lane, the row's base offset and the flat argument views.
  LogicalResult
  lowerRows(Operation *anchor, StringRef kind, RowLayout layout,
            function_ref<void(Emitter &, Value lane, Value row, Value rowBase,
                              ArrayRef<Value> flat)>
                emitRow);
  LogicalResult lowerSoftmax(SoftmaxOp op);
  LogicalResult lowerLayerNorm(LayerNormOp op);
  LogicalResult lowerMean(Operation *op, ArrayRef<int64_t> dims);
  LogicalResult lowerPool(Operation *op);

  gpu::GPUModuleOp kernels;
  SymbolTable *symbols = nullptr; ///< of `kernels`, during runOnOperation
  unsigned waveSize = 64;
  unsigned counter = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Kernel skeleton
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp LowerOpsToGPUPass::createKernel(Operation *anchor,
                                               StringRef kind,
                                               TypeRange inputs,
                                               TypeRange results, int64_t grid,
                                               int64_t block) {
  MLIRContext *ctx = &getContext();
  auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  SmallVector<Type> argTypes;
  for (TypeRange types : {inputs, results})
    for (Type t : types) {
      auto tensor = cast<RankedTensorType>(t);
      argTypes.push_back(MemRefType::get(tensor.getShape(),
                                         tensor.getElementType(),
                                         MemRefLayoutAttrInterface(), global));
    }

  std::string prefix = "kernel";
  if (auto parent = anchor->getParentOfType<FunctionOpInterface>())
    prefix = parent.getName().str();
  std::string name;
  do {
    name = prefix + "_" + kind.str() + "_" + std::to_string(counter++);
  } while (symbols->lookup(name));

  OpBuilder outer = OpBuilder::atBlockEnd(kernels.getBody());
  auto func = gpu::GPUFuncOp::create(outer, anchor->getLoc(), name,
                                     FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), outer.getUnitAttr());
  func.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {int32_t(block), 1, 1}));
  symbols->insert(func);
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  gpu::ReturnOp::create(b, anchor->getLoc());

  NamedAttrList launch;
  launch.append("kernel",
                SymbolRefAttr::get(ctx, kKernelModuleName,
                                   {FlatSymbolRefAttr::get(ctx, name)}));
  launch.append("grid", DenseI32ArrayAttr::get(ctx, {int32_t(grid), 1, 1}));
  launch.append("block", DenseI32ArrayAttr::get(ctx, {int32_t(block), 1, 1}));
  anchor->setAttr("crest.launch", launch.getDictionary(ctx));
  return func;
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
             << "is not elementwise; kernels without a contraction may only "
                "hold elementwise operations yet";

  int64_t n = product(shape);
  int64_t vec = vectorWidth;
  if (vec < 2 || !llvm::isPowerOf2_64(vec) || shape.empty() ||
      shape.back() % vec != 0)
    vec = 1;
  int64_t items = n / vec;
  int64_t block = std::min<int64_t>(blockSize, llvm::alignTo(items, waveSize));
  int64_t grid = llvm::divideCeil(items, block);
  gpu::GPUFuncOp func =
      createKernel(anchor, "elementwise", inputTypes, resultTypes, grid, block);

  Location loc = anchor->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc);
  SmallVector<Value> flat;
  for (BlockArgument arg : func.getArguments())
    flat.push_back(e.flatten(arg));
  Value gid = e.add(
      e.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), block),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  if (items % block != 0)
    e.enterIf(e.lessThan(gid, items));
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
    Type elt = tensorType(tensor).getElementType();
    DenseElementsAttr dense;
    if (Operation *def = tensor.getDefiningOp();
        def && matchPattern(def, m_Constant(&dense))) {
      if (!dense.isSplat())
        return def->emitOpError()
               << "is a non-splat constant inside a kernel; pass it as a "
                  "kernel input";
      auto scalar = dense.getSplatValue<TypedAttr>();
      Value c = vec > 1 ? arith::ConstantOp::create(
                              b, loc,
                              DenseElementsAttr::get(
                                  cast<ShapedType>(typeOf(elt)), scalar))
                              .getResult()
                        : arith::ConstantOp::create(b, loc, scalar).getResult();
      values.map(tensor, c);
      return c;
    }
    auto it = llvm::find(bodyInputs, tensor);
    if (it == bodyInputs.end())
      return emitError(tensor.getLoc()) << "kernel value is neither an input, "
                                           "a constant nor computed inside";
    Value mem = flat[it - bodyInputs.begin()];
    ArrayRef<int64_t> in = tensorType(tensor).getShape();
    Value offset;
    if (in == shape) {
      offset = base;
    } else {
      SmallVector<int64_t> inStrides = rowMajorStrides(in);
      int64_t lead = shape.size() - in.size();
      offset = e.idx(0);
      for (int64_t d = 0; d < int64_t(in.size()); ++d)
        if (in[d] != 1)
          offset = e.add(offset, e.mul(coord(d + lead), inStrides[d]));
    }
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
    Operation *anchor, StringRef kind, RowLayout layout,
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
  Emitter e(b, loc);
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
/// the new accumulators (f32 scalars).
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
} // namespace

LogicalResult LowerOpsToGPUPass::lowerSoftmax(SoftmaxOp op) {
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
  return lowerRows(op, "softmax", layout,
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
    Value negInf = e.f32(-std::numeric_limits<double>::infinity());
    Value m = rowLoop(e, lane, layout.r, w, {negInf},
                      [&](Value r, ValueRange acc) -> SmallVector<Value> {
                        return {maxF(acc[0], e.loadF32(flat[0], at(r)))};
                      })[0];
    m = e.waveAllReduce(m, w, maxF);
    auto expAt = [&](Value r) -> Value {
      return math::ExpOp::create(
          b, loc, arith::SubFOp::create(b, loc, e.loadF32(flat[0], at(r)), m));
    };
    Value s = rowLoop(e, lane, layout.r, w, {e.f32(0)},
                      [&](Value r, ValueRange acc) -> SmallVector<Value> {
                        return {addF(acc[0], expAt(r))};
                      })[0];
    s = e.waveAllReduce(s, w, addF);
    Value inv = arith::DivFOp::create(b, loc, e.f32(1), s);
    rowLoop(e, lane, layout.r, w, {},
            [&](Value r, ValueRange) -> SmallVector<Value> {
              Value p = arith::MulFOp::create(b, loc, expAt(r), inv);
              e.store(convertElements(b, loc, p, outElt), flat[1], at(r));
              return {};
            });
  });
}

LogicalResult LowerOpsToGPUPass::lowerLayerNorm(LayerNormOp op) {
  ArrayRef<int64_t> shape = tensorType(op.getInput()).getShape();
  int64_t rank = shape.size();
  int64_t axis = int64_t(op.getAxis());
  if (axis < 0)
    axis += rank;
  RowLayout layout{product(shape.take_front(axis)),
                   product(shape.drop_front(axis)), 1};
  Type outElt = tensorType(op.getResult()).getElementType();
  bool hasBias = bool(op.getBias());
  double eps = op.getEpsilon().convertToDouble();
  unsigned w = waveSize;
  return lowerRows(op, "layer_norm", layout,
                   [&](Emitter &e, Value lane, Value, Value rowBase,
                       ArrayRef<Value> flat) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    auto addF = [&](Value x, Value y) -> Value {
      return arith::AddFOp::create(b, loc, x, y);
    };
    auto x = [&](Value r) { return e.loadF32(flat[0], e.add(rowBase, r)); };
    Value invLen = e.f32(1.0 / double(layout.r));
    Value sum = rowLoop(e, lane, layout.r, w, {e.f32(0)},
                        [&](Value r, ValueRange acc) -> SmallVector<Value> {
                          return {addF(acc[0], x(r))};
                        })[0];
    Value mean =
        arith::MulFOp::create(b, loc, e.waveAllReduce(sum, w, addF), invLen);
    Value sq = rowLoop(e, lane, layout.r, w, {e.f32(0)},
                       [&](Value r, ValueRange acc) -> SmallVector<Value> {
                         Value d = arith::SubFOp::create(b, loc, x(r), mean);
                         return {arith::AddFOp::create(
                             b, loc, acc[0],
                             arith::MulFOp::create(b, loc, d, d))};
                       })[0];
    Value var =
        arith::MulFOp::create(b, loc, e.waveAllReduce(sq, w, addF), invLen);
    Value rstd = arith::DivFOp::create(
        b, loc, e.f32(1),
        math::SqrtOp::create(b, loc, addF(var, e.f32(eps))));
    Value out = flat[hasBias ? 3 : 2];
    rowLoop(e, lane, layout.r, w, {},
            [&](Value r, ValueRange) -> SmallVector<Value> {
              Value d = arith::SubFOp::create(b, loc, x(r), mean);
              Value y = arith::MulFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, d, rstd),
                  e.loadF32(flat[1], r));
              if (hasBias)
                y = addF(y, e.loadF32(flat[2], r));
              e.store(convertElements(b, loc, y, outElt), out,
                      e.add(rowBase, r));
              return {};
            });
  });
}

LogicalResult LowerOpsToGPUPass::lowerMean(Operation *op,
                                           ArrayRef<int64_t> dims) {
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
  return lowerRows(op, isa<ReduceMeanOp>(op) ? "reduce_mean"
                                             : "global_avg_pool2d",
                   layout,
                   [&](Emitter &e, Value lane, Value row, Value rowBase,
                       ArrayRef<Value> flat) {
    OpBuilder &b = e.b;
    Location loc = e.loc;
    auto addF = [&](Value x, Value y) -> Value {
      return arith::AddFOp::create(b, loc, x, y);
    };
    Value sum = rowLoop(
        e, lane, layout.r, w, {e.f32(0)},
        [&](Value r, ValueRange acc) -> SmallVector<Value> {
          return {addF(acc[0], e.loadF32(flat[0], e.add(rowBase,
                                                         e.mul(r, layout.inner))))};
        })[0];
    Value mean = arith::MulFOp::create(b, loc, e.waveAllReduce(sum, w, addF),
                                       e.f32(1.0 / double(layout.r)));
    e.enterIf(e.cmp(arith::CmpIPredicate::eq, lane, e.idx(0)));
    e.store(convertElements(b, loc, mean, outElt), flat[1], row);
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
  int64_t block = std::min<int64_t>(blockSize, llvm::alignTo(items, waveSize));
  int64_t grid = llvm::divideCeil(items, block);
  gpu::GPUFuncOp func =
      createKernel(op, isMax ? "max_pool2d" : "avg_pool2d",
                   op->getOperandTypes(), op->getResultTypes(), grid, block);
  Location loc = op->getLoc();
  OpBuilder b(func.getBody().front().getTerminator());
  Emitter e(b, loc);
  Value src = e.flatten(func.getArgument(0));
  Value dst = e.flatten(func.getArgument(1));
  Value gid = e.add(
      e.mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), block),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  if (items % block != 0)
    e.enterIf(e.lessThan(gid, items));
  Value x = e.rem(gid, ow);
  Value y = e.rem(e.div(gid, ow), oh);
  Value plane = e.mul(e.div(gid, ow * oh), h * w);
  // Window origin in input coordinates (may be negative: top/left pads).
  Value y0 = e.sub(e.mul(y, strides[0]), e.idx(pads[0]));
  Value x0 = e.sub(e.mul(x, strides[1]), e.idx(pads[1]));
  Value init = e.f32(isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  using P = arith::CmpIPredicate;
  auto rows = scf::ForOp::create(b, loc, e.idx(0), e.idx(kernel[0]), e.idx(1),
                                 ValueRange{init, e.f32(0)});
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
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{b.getF32Type()}, valid,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g3(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        Value v = e.loadF32(src, e.add(plane, e.add(e.mul(yy, w), xx)));
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
          arith::SelectOp::create(b, loc, valid, e.f32(1), e.f32(0)));
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
          b, loc, b.getF32Type(),
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
// The pass
//===----------------------------------------------------------------------===//

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

  SmallVector<Operation *> work;
  module.walk([&](Operation *op) {
    if (!isa_and_nonnull<CrestDialect>(op->getDialect()) || isa<YieldOp>(op) ||
        op->getParentOfType<KernelOp>() || op->hasAttr("crest.launch"))
      return;
    work.push_back(op);
  });
  if (work.empty())
    return;

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));
  kernels = dyn_cast_or_null<gpu::GPUModuleOp>(
      SymbolTable::lookupSymbolIn(module, kKernelModuleName));
  if (!kernels) {
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    kernels =
        gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
  }
  SymbolTable symbolTable(kernels);
  symbols = &symbolTable;

  for (Operation *op : work) {
    LogicalResult result = success();
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      if (kernel.getContraction()) {
        result = op->emitOpError()
                 << "has a contraction but no crest.launch; run "
                    "crest-lower-to-gpu first";
      } else {
        Block &body = kernel.getBody().front();
        SmallVector<Value> inputs(body.getArguments());
        SmallVector<Operation *> ops;
        for (Operation &inner : body.without_terminator())
          ops.push_back(&inner);
        SmallVector<Value> yielded(
            cast<YieldOp>(body.getTerminator()).getValues());
        if (yielded.empty())
          result = op->emitOpError() << "yields nothing";
        else
          result = lowerElementwise(op, inputs, ops, yielded);
      }
    } else if (op->hasTrait<crest::OpTrait::Elementwise>()) {
      SmallVector<Value> inputs(op->getOperands());
      result = lowerElementwise(op, inputs, {op}, {op->getResult(0)});
    } else if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
      result = lowerSoftmax(softmax);
    } else if (auto norm = dyn_cast<LayerNormOp>(op)) {
      result = lowerLayerNorm(norm);
    } else if (auto mean = dyn_cast<ReduceMeanOp>(op)) {
      result = lowerMean(op, mean.getDims());
    } else if (isa<GlobalAvgPool2DOp>(op)) {
      int64_t hw[] = {2, 3};
      result = lowerMean(op, hw);
    } else if (isa<MaxPool2DOp, AvgPool2DOp>(op)) {
      result = lowerPool(op);
    } else if (isa<ContractionOpInterface>(op)) {
      result = op->emitOpError()
               << (isa<Conv2DOp>(op)
                       ? "has no kernel generator yet; lower convolutions to "
                         "matmuls first"
                       : "has no crest.launch; run crest-lower-to-gpu first");
    } else {
      result = op->emitOpError() << "has no GPU kernel lowering";
    }
    if (failed(result))
      return signalPassFailure();
  }
}
