//===- GraphBuilder.cpp - What the front-end conversions share ------------===//
//
// See GraphBuilder.h.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace crest;
using namespace crest::conversion;

LogicalResult FailureReasons::fail(PatternRewriter &rewriter, Operation *op,
                                   const Twine &reason) {
  std::string text = reason.str();
  reasons[op] = text;
  return rewriter.notifyMatchFailure(op, text);
}

StringRef FailureReasons::lookup(Operation *op) const {
  auto it = reasons.find(op);
  return it == reasons.end() ? StringRef() : StringRef(it->second);
}

FailureOr<Type> conversion::parseMatrixType(MLIRContext *context,
                                            StringRef precision) {
  Builder b(context);
  if (precision.empty())
    return Type();
  if (precision == "f32")
    return Type(b.getF32Type());
  if (precision == "f16")
    return Type(b.getF16Type());
  if (precision == "bf16")
    return Type(b.getBF16Type());
  return failure();
}

RankedTensorType conversion::tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

DenseElementsAttr conversion::toDenseElements(Attribute attr) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(attr))
    return dense;
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(attr);
  if (!resource)
    return {};
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return {};
  ArrayRef<char> data = blob->getData();
  bool splat = false;
  if (!DenseElementsAttr::isValidRawBuffer(resource.getType(), data, splat))
    return {};
  return DenseElementsAttr::getFromRawBuffer(resource.getType(), data);
}

Value conversion::castTo(OpBuilder &b, Location loc, Value value,
                         Type element) {
  RankedTensorType type = tensorType(value);
  if (type.getElementType() == element)
    return value;
  auto resultType = RankedTensorType::get(type.getShape(), element);
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)) &&
      isa<FloatType>(type.getElementType()) && isa<FloatType>(element))
    return arith::ConstantOp::create(
        b, loc, castFloatElements(attr, cast<FloatType>(element)));
  return b.createOrFold<CastOp>(loc, resultType, value);
}

/// `dense` with its dimensions permuted as `TransposeOp` does: result
/// dimension i is input dimension permutation[i]. Moves the elements' bytes
/// (every element type but i1 is stored a whole number of bytes each).
static DenseElementsAttr permuteElements(DenseElementsAttr dense,
                                         ArrayRef<int64_t> permutation,
                                         RankedTensorType resultType) {
  if (dense.isSplat())
    return dense.resizeSplat(resultType);
  ArrayRef<int64_t> shape = dense.getType().getShape();
  int64_t rank = shape.size();
  // Input strides, in elements, of the result's dimensions.
  SmallVector<int64_t> inputStrides(rank, 1), strides(rank);
  for (int64_t d = rank - 2; d >= 0; --d)
    inputStrides[d] = inputStrides[d + 1] * shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    strides[d] = inputStrides[permutation[d]];
  ArrayRef<int64_t> outShape = resultType.getShape();
  int64_t n = resultType.getNumElements();
  // The input offset of each result element, in row-major result order.
  auto forEachOffset = [&](auto visit) {
    SmallVector<int64_t> index(rank, 0);
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      visit(offset);
      for (int64_t d = rank - 1; d >= 0; --d) {
        offset += strides[d];
        if (++index[d] < outShape[d])
          break;
        offset -= strides[d] * outShape[d];
        index[d] = 0;
      }
    }
  };
  Type element = dense.getElementType();
  if (element.isInteger(1)) {
    SmallVector<bool> values(dense.getValues<bool>());
    SmallVector<bool> out;
    out.reserve(n);
    forEachOffset([&](int64_t offset) { out.push_back(values[offset]); });
    return DenseElementsAttr::get(resultType, out);
  }
  ArrayRef<char> raw = dense.getRawData();
  size_t bytes = raw.size() / dense.getNumElements();
  std::vector<char> out;
  out.reserve(raw.size());
  forEachOffset([&](int64_t offset) {
    out.insert(out.end(), raw.begin() + offset * bytes,
               raw.begin() + (offset + 1) * bytes);
  });
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

/// The constant `value` holds, if it is one.
static DenseElementsAttr getConstantElements(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return {};
  return toDenseElements(attr);
}

Value conversion::reshapeTo(OpBuilder &b, Location loc, Value value,
                            ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (DenseElementsAttr dense = getConstantElements(value))
    return arith::ConstantOp::create(b, loc, dense.reshape(resultType));
  if (auto inner = value.getDefiningOp<ReshapeOp>())
    return reshapeTo(b, loc, inner.getInput(), shape);
  return ReshapeOp::create(b, loc, resultType, value);
}

Value conversion::transpose(OpBuilder &b, Location loc, Value value,
                            ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  RankedTensorType type = tensorType(value);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (DenseElementsAttr dense = getConstantElements(value))
    return arith::ConstantOp::create(b, loc,
                                     permuteElements(dense, perm, resultType));
  return TransposeOp::create(b, loc, resultType, value,
                             b.getDenseI64ArrayAttr(perm));
}

Value conversion::splat(OpBuilder &b, Location loc, Type element, double value,
                        ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, element);
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(element))
    scalar = b.getFloatAttr(f, value);
  else if (element.isInteger(1))
    scalar = b.getBoolAttr(value != 0);
  else
    scalar = b.getIntegerAttr(element, int64_t(value));
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, scalar));
}

std::optional<double> conversion::getConstantSplat(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto dense = toDenseElements(attr);
  if (!dense || dense.empty())
    return std::nullopt;
  if (!dense.isSplat()) {
    // A one-element tensor is a splat too (TOSA's zero points are 1-D).
    if (dense.getNumElements() != 1)
      return std::nullopt;
  }
  Attribute first = *dense.getValues<Attribute>().begin();
  if (auto f = dyn_cast<FloatAttr>(first))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(first))
    return double(i.getValue().getSExtValue());
  return std::nullopt;
}

bool conversion::isConstantSplat(Value value, double expected) {
  std::optional<double> v = getConstantSplat(value);
  return v && *v == expected;
}

Value conversion::contractionOperand(OpBuilder &b, Location loc, Value value,
                                     const ConversionContext &ctx) {
  if (!ctx.matrixType || !isa<FloatType>(tensorType(value).getElementType()))
    return value;
  return castTo(b, loc, value, ctx.matrixType);
}

PrecisionAttr conversion::contractionPrecision(Value lhs, Value rhs) {
  Type a = tensorType(lhs).getElementType();
  Type bt = tensorType(rhs).getElementType();
  Builder b(lhs.getContext());
  Type acc = isa<FloatType>(a) ? Type(b.getF32Type()) : Type(b.getI32Type());
  return PrecisionAttr::get(lhs.getContext(), a, bt, acc, acc);
}

SmallVector<int64_t> conversion::broadcastShape(ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

template <typename OpTy>
Value conversion::binary(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  RankedTensorType lt = tensorType(lhs), rt = tensorType(rhs);
  Type element = lt.getElementType();
  auto resultType = RankedTensorType::get(
      broadcastShape(lt.getShape(), rt.getShape()), element);
  return b.createOrFold<OpTy>(loc, resultType, lhs, rhs);
}

template Value conversion::binary<AddOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<SubOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<MulOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<DivOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<MaxOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<MinOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<PowOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<AndOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<OrOp>(OpBuilder &, Location, Value, Value);
template Value conversion::binary<XorOp>(OpBuilder &, Location, Value, Value);

Value conversion::padConstant(OpBuilder &b, Location loc, Value value,
                              ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                              Attribute fill) {
  for (int64_t d = 0, rank = tensorType(value).getRank(); d < rank; ++d) {
    if (low[d] == 0 && high[d] == 0)
      continue;
    RankedTensorType type = tensorType(value);
    SmallVector<Value> parts;
    auto constant = [&](int64_t size) {
      SmallVector<int64_t> shape(type.getShape());
      shape[d] = size;
      auto padType = RankedTensorType::get(shape, type.getElementType());
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(padType, fill));
    };
    if (low[d] > 0)
      parts.push_back(constant(low[d]));
    parts.push_back(value);
    if (high[d] > 0)
      parts.push_back(constant(high[d]));
    SmallVector<int64_t> shape(type.getShape());
    shape[d] += low[d] + high[d];
    value = ConcatOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), parts,
        b.getI64IntegerAttr(d));
  }
  return value;
}

//===----------------------------------------------------------------------===//
// Transposes through elementwise ops
//===----------------------------------------------------------------------===//

namespace {
/// elementwise(transpose(x, P), c, transpose(y, P)) ->
/// transpose(elementwise(x, c', y), P), c' being the constant c read in x's
/// layout. At least one of the transposes must be read by elementwise ops
/// only (which all move it), so that transposes do not multiply.
struct SinkTransposeBelowElementwise : RewritePattern {
  SinkTransposeBelowElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<crest::OpTrait::Elementwise>() ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = resultType.getRank();
    std::optional<SmallVector<int64_t>> perm;
    bool freesOne = false;
    for (Value operand : op->getOperands()) {
      auto t = operand.getDefiningOp<TransposeOp>();
      if (!t || tensorType(operand).getShape() != resultType.getShape())
        continue;
      SmallVector<int64_t> p(t.getPermutation());
      if (perm && *perm != p)
        return failure();
      perm = p;
      // Once every elementwise reader has moved it, the transpose is gone.
      freesOne |= llvm::all_of(operand.getUsers(), [](Operation *user) {
        return user->hasTrait<crest::OpTrait::Elementwise>();
      });
    }
    if (!perm || !freesOne)
      return failure();
    // inverse[P[i]] = i.
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[(*perm)[i]] = i;
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto t = operand.getDefiningOp<TransposeOp>();
      if (t && tensorType(operand).getShape() == resultType.getShape() &&
          t.getPermutation() == ArrayRef<int64_t>(*perm)) {
        operands.push_back(t.getInput());
        continue;
      }
      RankedTensorType type = tensorType(operand);
      if (type.getRank() == 0) {
        operands.push_back(operand);
        continue;
      }
      if (!matchPattern(operand, m_Constant()) || type.getRank() > rank)
        return failure();
      // A broadcast constant: leading ones to the full rank, then x's
      // layout.
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      Value full = reshapeTo(rewriter, loc, operand, shape);
      operands.push_back(transpose(rewriter, loc, full, inverse));
    }
    SmallVector<int64_t> shape;
    for (int64_t d : inverse)
      shape.push_back(resultType.getDimSize(d));
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    state.addTypes(RankedTensorType::get(shape, resultType.getElementType()));
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(op, transpose(rewriter, loc, moved->getResult(0),
                                     *perm));
    return success();
  }
};

/// Whether `op`'s result may be replaced by `value`, which it equals: not
/// when it is returned, since each of a package's results must be its own
/// buffer written by a kernel (a graph input, a constant or another result
/// is returned through a same-shape crest.reshape, the copy).
static bool canForward(Operation *op, Value value) {
  return llvm::none_of(op->getUsers(), [](Operation *user) {
    return user->hasTrait<mlir::OpTrait::ReturnLike>();
  });
}

/// transpose(transpose(x, q), p) is one transpose by the composed
/// permutation, or x itself.
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> p = op.getPermutation();
    Value x = op.getInput();
    SmallVector<int64_t> composed(p);
    if (auto inner = x.getDefiningOp<TransposeOp>()) {
      // y[i] = inner[p[i]] = x[q[p[i]]].
      ArrayRef<int64_t> q = inner.getPermutation();
      for (size_t i = 0; i < p.size(); ++i)
        composed[i] = q[p[i]];
      x = inner.getInput();
    } else if (!llvm::equal(p, llvm::seq<int64_t>(0, p.size()))) {
      return failure();
    }
    if (!llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
      rewriter.replaceOpWithNewOp<TransposeOp>(
          op, op.getType(), x, rewriter.getDenseI64ArrayAttr(composed));
      return success();
    }
    if (canForward(op, x))
      rewriter.replaceOp(op, x);
    else
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), x);
    return success();
  }
};

/// reshape(reshape(x)) is one reshape, or x itself.
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    Value x = inner ? inner.getInput() : op.getInput();
    if (tensorType(x) == op.getType() && canForward(op, x)) {
      rewriter.replaceOp(op, x);
      return success();
    }
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), x);
    return success();
  }
};

/// A constant held in a dense_resource blob (torch-mlir's and IREE's weights)
/// becomes dense elements, which packages store.
struct ResourceConstantToDense : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<DenseResourceElementsAttr>(op.getValue()))
      return failure();
    DenseElementsAttr dense = toDenseElements(op.getValue());
    if (!dense)
      return rewriter.notifyMatchFailure(op, "unreadable blob");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, dense);
    return success();
  }
};

/// A transpose that keeps the order of the dimensions larger than one is a
/// reshape.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = tensorType(op.getInput());
    int64_t last = -1;
    for (int64_t d : op.getPermutation()) {
      if (type.getDimSize(d) == 1)
        continue;
      if (d < last)
        return failure();
      last = d;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// Softmax written out, as TOSA and linalg front ends decompose it:
///   m = reduce_max(x, [a], keep_dims); e = exp(x - m)
///   s = reduce_sum(e, [a], keep_dims); y = e / s  (or e * (1 / s))
/// becomes crest.softmax(x, axis = a): one kernel instead of four.
struct FoldWrittenOutSoftmax : RewritePattern {
  FoldWrittenOutSoftmax(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Value e, sum;
    if (auto div = dyn_cast<DivOp>(op)) {
      e = div.getLhs(), sum = div.getRhs();
    } else if (auto mul = dyn_cast<MulOp>(op)) {
      for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())}) {
        auto reciprocal = b.getDefiningOp<DivOp>();
        if (reciprocal && isConstantSplat(reciprocal.getLhs(), 1.0) &&
            b.hasOneUse()) {
          e = a, sum = reciprocal.getRhs();
          break;
        }
      }
      if (!e)
        return failure();
    } else {
      return failure();
    }
    auto reduceSum = sum.getDefiningOp<ReduceSumOp>();
    auto exp = e.getDefiningOp<ExpOp>();
    if (!reduceSum || !exp || reduceSum.getInput() != e ||
        !reduceSum.getKeepDims() || reduceSum.getDims().size() != 1 ||
        !sum.hasOneUse() ||
        !llvm::all_of(e.getUsers(), [&](Operation *user) {
          return user == reduceSum || user == op ||
                 (user == sum.getDefiningOp());
        }))
      return failure();
    auto sub = exp.getInput().getDefiningOp<SubOp>();
    if (!sub || !exp.getInput().hasOneUse())
      return failure();
    auto reduceMax = sub.getRhs().getDefiningOp<ReduceMaxOp>();
    Value x = sub.getLhs();
    if (!reduceMax || reduceMax.getInput() != x || !reduceMax.getKeepDims() ||
        reduceMax.getDims() != reduceSum.getDims() ||
        !sub.getRhs().hasOneUse())
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (tensorType(x) != type || tensorType(e) != type)
      return failure();
    int64_t axis = reduceSum.getDims()[0];
    if (axis < 0)
      axis += type.getRank();
    rewriter.replaceOpWithNewOp<SoftmaxOp>(op, type, x,
                                           rewriter.getI64IntegerAttr(axis));
    return success();
  }
};

/// A broadcast written as a multiply by ones (linalg.broadcast's generic
/// form) that an elementwise op's own broadcasting does anyway: the op reads
/// the value before the broadcast.
struct FoldBroadcastIntoElementwise : RewritePattern {
  FoldBroadcastIntoElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<crest::OpTrait::Elementwise>() ||
        op->getNumOperands() < 2 || op->getNumResults() != 1)
      return failure();
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    for (OpOperand &operand : op->getOpOperands()) {
      auto mul = operand.get().getDefiningOp<MulOp>();
      if (!mul || !mul->hasOneUse())
        continue;
      Value x;
      if (isConstantSplat(mul.getRhs(), 1.0))
        x = mul.getLhs();
      else if (isConstantSplat(mul.getLhs(), 1.0))
        x = mul.getRhs();
      if (!x || !isa<FloatType>(tensorType(x).getElementType()))
        continue;
      SmallVector<int64_t> broadcast(tensorType(x).getShape());
      for (OpOperand &other : op->getOpOperands())
        if (&other != &operand)
          broadcast =
              broadcastShape(broadcast, tensorType(other.get()).getShape());
      if (ArrayRef<int64_t>(broadcast) != shape)
        continue;
      rewriter.modifyOpInPlace(op, [&] { operand.set(x); });
      return success();
    }
    return failure();
  }
};
} // namespace

void conversion::populateGraphPatterns(RewritePatternSet &patterns) {
  patterns.add<SinkTransposeBelowElementwise, TransposeOfUnitDimsToReshape,
               ComposeTransposes, ComposeReshapes, FoldWrittenOutSoftmax,
               FoldBroadcastIntoElementwise, ResourceConstantToDense>(
      patterns.getContext());
}

LogicalResult conversion::runGraphConversion(
    ModuleOp module, StringRef pass, StringRef precision,
    function_ref<void(RewritePatternSet &, ConversionContext &)> populate,
    ArrayRef<StringRef> dialects, StringRef what) {
  MLIRContext *context = module.getContext();
  ConversionContext ctx;
  FailureOr<Type> matrixType = parseMatrixType(context, precision);
  if (failed(matrixType))
    return module.emitError() << pass
                              << ": precision must be f32, f16 or bf16, got '"
                              << precision << "'";
  ctx.matrixType = *matrixType;
  RewritePatternSet patterns(context);
  populate(patterns, ctx);
  populateGraphPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (auto graph : module.getOps<FunctionOpInterface>())
    if (failed(applyPatternsGreedily(graph, frozen)))
      return module.emitError() << pass << ": the rewrites did not converge";
  return reportUnconverted(module, dialects, ctx.reasons, what);
}

LogicalResult conversion::reportUnconverted(ModuleOp module,
                                            ArrayRef<StringRef> dialects,
                                            const FailureReasons &reasons,
                                            StringRef what) {
  bool failed = false;
  // An unconverted op's body (a linalg.generic's) is not reported again.
  for (auto graph : module.getOps<FunctionOpInterface>())
  graph->walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (!llvm::is_contained(dialects, dialect))
      return WalkResult::advance();
    StringRef reason = reasons.lookup(op);
    // An op without a reason whose results only unconverted ops read
    // (tosa.const_shape, tensor.empty): the readers are the error.
    if (reason.empty() && !op->use_empty() &&
        llvm::all_of(op->getUsers(), [&](Operation *user) {
          return llvm::is_contained(dialects,
                                    user->getName().getDialectNamespace());
        }))
      return WalkResult::advance();
    failed = true;
    InFlightDiagnostic diag = op->emitError();
    diag << "'" << op->getName() << "' ";
    if (!reason.empty())
      diag << "cannot be converted to crest: " << reason;
    else
      diag << "is not supported by " << what;
    return WalkResult::skip();
  });
  return failure(failed);
}
