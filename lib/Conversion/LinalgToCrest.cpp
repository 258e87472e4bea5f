//===- LinalgToCrest.cpp - crest-convert-linalg ---------------------------===//
//
// linalg on tensors (and the tensor ops around it) to crest ops.
//
// Contractions are found by their indexing maps (linalg's contraction
// interface), whatever op spells them; convolutions and pooling by their
// named ops. Every other structured op goes through its linalg.generic form,
// whose body is rewritten op by op into crest ops on tensors laid out in the
// generic's iteration space: an operand read through a projected permutation
// is transposed to ascending loop order and given a size-1 dimension for
// each loop it does not index, so that crest's NumPy broadcasting does the
// rest. A reduction's accumulate op becomes a crest.reduce_* over the
// reduction loops.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include "crest/Conversion/Passes.h"
#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/ScopedPrinter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace crest {
#define GEN_PASS_DEF_CRESTCONVERTLINALGPASS
#include "crest/Conversion/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::conversion;

namespace {

/// The scalar an init operand starts from: a linalg.fill of a constant or a
/// constant splat.
static std::optional<double> getInitValue(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Attribute attr;
    if (!matchPattern(fill.getInputs()[0], m_Constant(&attr)))
      return std::nullopt;
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return double(i.getValue().getSExtValue());
    return std::nullopt;
  }
  return getConstantSplat(init);
}

/// Statically shaped tensors only, as for TOSA.
static LogicalResult checkStatic(Operation *op, FailureReasons &reasons,
                                 PatternRewriter &rewriter) {
  for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults())) {
    if (!isa<ShapedType>(value.getType()))
      continue;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return reasons.fail(rewriter, op,
                          "Crest needs statically shaped tensors, got " +
                              llvm::to_string(value.getType()));
  }
  return success();
}

/// `value` given the iteration-space shape `shape` (value broadcast as a
/// multiply by ones, exact for every float; integers select).
static Value broadcastTo(OpBuilder &b, Location loc, Value value,
                         ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  Type element = type.getElementType();
  auto full = RankedTensorType::get(shape, element);
  if (isa<FloatType>(element))
    return MulOp::create(b, loc, full, value,
                         splat(b, loc, element, 1.0, shape));
  Value yes = splat(b, loc, b.getI1Type(), 1.0, shape);
  return SelectOp::create(b, loc, full, yes, value, value);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// Any structured op whose maps and body are a contraction with one M, N and
/// K loop and at most one batch loop.
struct ContractionPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionPattern(MLIRContext *context, ConversionContext &ctx)
      : OpInterfaceRewritePattern(context, /*benefit=*/2), ctx(ctx) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !linalg::isaContractionOpInterface(op))
      return failure();
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1 || dims->batch.size() > 1)
      return ctx.reasons.fail(
          rewriter, op,
          "only contractions with one M, N and K dimension and at most one "
          "batch dimension are supported");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto positions = [](AffineMap map) {
      SmallVector<unsigned> result;
      for (AffineExpr e : map.getResults())
        result.push_back(cast<AffineDimExpr>(e).getPosition());
      return result;
    };
    SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    auto expect = [&](SmallVector<unsigned> inner) {
      SmallVector<unsigned> all(batch);
      llvm::append_range(all, inner);
      return all;
    };
    SmallVector<unsigned> lhs = positions(maps[0]), rhs = positions(maps[1]),
                          out = positions(maps[2]);
    if (out != expect({m, n}))
      return ctx.reasons.fail(rewriter, op,
                              "the result must be indexed [batch,] M, N");
    bool transposeLhs = lhs == expect({k, m});
    bool transposeRhs = rhs == expect({n, k});
    if ((!transposeLhs && lhs != expect({m, k})) ||
        (!transposeRhs && rhs != expect({k, n})))
      return ctx.reasons.fail(rewriter, op,
                              "the operands must be indexed [batch,] M, K (or "
                              "K, M) and [batch,] K, N (or N, K)");
    Location loc = op.getLoc();
    Value a = contractionOperand(rewriter, loc, op.getDpsInputs()[0], ctx);
    Value b = contractionOperand(rewriter, loc, op.getDpsInputs()[1], ctx);
    Value init = op.getDpsInits()[0];
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    PrecisionAttr precision = contractionPrecision(a, b);
    auto type =
        RankedTensorType::get(resultType.getShape(), precision.getOut());
    Value c;
    if (batch.empty())
      c = MatmulOp::create(rewriter, loc, type, a, b, transposeLhs,
                           transposeRhs, precision, SyncAttr(), ConfigAttr());
    else
      c = BatchMatmulOp::create(rewriter, loc, type, a, b, transposeLhs,
                                transposeRhs, precision, SyncAttr(),
                                ConfigAttr());
    // C = init + A B.
    std::optional<double> start = getInitValue(init);
    if (!start || *start != 0) {
      Value initValue = init;
      if (auto fill = init.getDefiningOp<linalg::FillOp>())
        initValue = splat(rewriter, loc, resultType.getElementType(), *start,
                          resultType.getShape());
      c = binary<AddOp>(rewriter, loc, c,
                        castTo(rewriter, loc, initValue, precision.getOut()));
    }
    rewriter.replaceOp(op,
                       castTo(rewriter, loc, c, resultType.getElementType()));
    return success();
  }

  ConversionContext &ctx;
};

//===----------------------------------------------------------------------===//
// Convolutions and pooling
//===----------------------------------------------------------------------===//

/// The layouts of the named 2-D convolutions.
enum class ConvLayout { Nchw, Nhwc };

/// `input` without a constant tensor.pad of its spatial dimensions (pads
/// [top, left, bottom, right] go to the crest op), if it has one that pads
/// with `fill` (0 for a convolution, -inf or the lowest value for max
/// pooling).
static Value absorbPad(Value input, ConvLayout layout,
                       llvm::function_ref<bool(double)> fillOk,
                       SmallVectorImpl<int64_t> &pads) {
  pads.assign(4, 0);
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return input;
  Value fill = pad.getConstantPaddingValue();
  Attribute attr;
  if (!fill || !matchPattern(fill, m_Constant(&attr)))
    return input;
  double v = isa<FloatAttr>(attr)
                 ? cast<FloatAttr>(attr).getValueAsDouble()
                 : double(cast<IntegerAttr>(attr).getValue().getSExtValue());
  if (!fillOk(v))
    return input;
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (llvm::any_of(llvm::concat<int64_t>(low, high),
                   [](int64_t p) { return ShapedType::isDynamic(p) || p < 0; }))
    return input;
  int64_t h = layout == ConvLayout::Nchw ? 2 : 1, w = h + 1;
  int64_t c = layout == ConvLayout::Nchw ? 1 : 3;
  if (low[0] || high[0] || low[c] || high[c])
    return input;
  pads.assign({low[h], low[w], high[h], high[w]});
  return pad.getSource();
}

static FailureOr<SmallVector<int64_t>> getInts(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!dense)
    return failure();
  SmallVector<int64_t> values;
  for (const APInt &v : dense)
    values.push_back(v.getSExtValue());
  return values;
}

/// The named 2-D convolutions (plain and depthwise, NCHW and NHWC).
struct ConvPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ConvPattern(MLIRContext *context, ConversionContext &ctx)
      : OpInterfaceRewritePattern(context, /*benefit=*/2), ctx(ctx) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    // The filter's permutation to crest's F x C/groups x KH x KW, and
    // whether the convolution is depthwise (groups = C).
    ConvLayout layout;
    enum class Filter { Fchw, Hwcf, Fhwc, Chw, Hwc, Hwcm } filter;
    if (isa<linalg::Conv2DNchwFchwOp>(op)) {
      layout = ConvLayout::Nchw, filter = Filter::Fchw;
    } else if (isa<linalg::Conv2DNhwcHwcfOp>(op)) {
      layout = ConvLayout::Nhwc, filter = Filter::Hwcf;
    } else if (isa<linalg::Conv2DNhwcFhwcOp>(op)) {
      layout = ConvLayout::Nhwc, filter = Filter::Fhwc;
    } else if (isa<linalg::DepthwiseConv2DNchwChwOp>(op)) {
      layout = ConvLayout::Nchw, filter = Filter::Chw;
    } else if (isa<linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
      layout = ConvLayout::Nhwc, filter = Filter::Hwc;
    } else if (isa<linalg::DepthwiseConv2DNhwcHwcmOp>(op)) {
      layout = ConvLayout::Nhwc, filter = Filter::Hwcm;
    } else {
      return failure();
    }
    if (!op.hasPureTensorSemantics() ||
        failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    FailureOr<SmallVector<int64_t>> strides =
        getInts(op->getAttr("strides"));
    FailureOr<SmallVector<int64_t>> dilations =
        getInts(op->getAttr("dilations"));
    if (failed(strides) || failed(dilations))
      return ctx.reasons.fail(rewriter, op,
                              "its strides and dilations must be 2 integers");
    Location loc = op.getLoc();
    SmallVector<int64_t> pads;
    Value input = absorbPad(op.getDpsInputs()[0], layout,
                            [](double v) { return v == 0; }, pads);
    Value w = op.getDpsInputs()[1];
    ArrayRef<int64_t> ws = tensorType(w).getShape();
    int64_t groups = 1;
    switch (filter) {
    case Filter::Fchw:
      break;
    case Filter::Hwcf:
      w = transpose(rewriter, loc, w, {3, 2, 0, 1});
      break;
    case Filter::Fhwc:
      w = transpose(rewriter, loc, w, kNhwcToNchw);
      break;
    case Filter::Chw:
      groups = ws[0];
      w = reshapeTo(rewriter, loc, w, {ws[0], 1, ws[1], ws[2]});
      break;
    case Filter::Hwc:
      groups = ws[2];
      w = transpose(rewriter, loc, w, {2, 0, 1});
      w = reshapeTo(rewriter, loc, w, {ws[2], 1, ws[0], ws[1]});
      break;
    case Filter::Hwcm:
      // Output channel c * M + m reads input channel c.
      groups = ws[2];
      w = reshapeTo(rewriter, loc, w, {ws[0], ws[1], ws[2] * ws[3]});
      w = transpose(rewriter, loc, w, {2, 0, 1});
      w = reshapeTo(rewriter, loc, w, {ws[2] * ws[3], 1, ws[0], ws[1]});
      break;
    }
    if (layout == ConvLayout::Nhwc)
      input = transpose(rewriter, loc, input, kNhwcToNchw);
    input = contractionOperand(rewriter, loc, input, ctx);
    w = contractionOperand(rewriter, loc, w, ctx);
    PrecisionAttr precision = contractionPrecision(input, w);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> rs = resultType.getShape();
    SmallVector<int64_t> nchw(rs);
    if (filter == Filter::Hwcm)
      // linalg's HWCM result is N x OH x OW x C x M.
      nchw = {rs[0], rs[3] * rs[4], rs[1], rs[2]};
    else if (layout == ConvLayout::Nhwc)
      nchw = {rs[0], rs[3], rs[1], rs[2]};
    Value y = Conv2DOp::create(
        rewriter, loc, RankedTensorType::get(nchw, precision.getOut()), input,
        w, rewriter.getDenseI64ArrayAttr(*strides),
        rewriter.getDenseI64ArrayAttr(pads),
        rewriter.getDenseI64ArrayAttr(*dilations),
        rewriter.getI64IntegerAttr(groups), precision, SyncAttr(),
        ConfigAttr());
    if (layout == ConvLayout::Nhwc)
      y = transpose(rewriter, loc, y, kNchwToNhwc);
    y = reshapeTo(rewriter, loc, y, rs);
    Value init = op.getDpsInits()[0];
    std::optional<double> start = getInitValue(init);
    if (!start || *start != 0) {
      Value initValue =
          init.getDefiningOp<linalg::FillOp>()
              ? splat(rewriter, loc, precision.getOut(), *start, {})
              : castTo(rewriter, loc, init, precision.getOut());
      y = binary<AddOp>(rewriter, loc, y, initValue);
    }
    rewriter.replaceOp(op,
                       castTo(rewriter, loc, y, resultType.getElementType()));
    return success();
  }

  ConversionContext &ctx;
};

/// linalg.pooling_{nchw,nhwc}_{max,sum}.
struct PoolPattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  PoolPattern(MLIRContext *context, ConversionContext &ctx)
      : OpInterfaceRewritePattern(context, /*benefit=*/2), ctx(ctx) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    bool isMax;
    ConvLayout layout;
    if (isa<linalg::PoolingNchwMaxOp>(op))
      isMax = true, layout = ConvLayout::Nchw;
    else if (isa<linalg::PoolingNhwcMaxOp>(op))
      isMax = true, layout = ConvLayout::Nhwc;
    else if (isa<linalg::PoolingNchwSumOp>(op))
      isMax = false, layout = ConvLayout::Nchw;
    else if (isa<linalg::PoolingNhwcSumOp>(op))
      isMax = false, layout = ConvLayout::Nhwc;
    else
      return failure();
    if (!op.hasPureTensorSemantics() ||
        failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    FailureOr<SmallVector<int64_t>> strides =
        getInts(op->getAttr("strides"));
    FailureOr<SmallVector<int64_t>> dilations =
        getInts(op->getAttr("dilations"));
    if (failed(strides) || failed(dilations))
      return ctx.reasons.fail(rewriter, op,
                              "its strides and dilations must be 2 integers");
    if (*dilations != SmallVector<int64_t>{1, 1})
      return ctx.reasons.fail(rewriter, op,
                              "pooling with dilations is not supported");
    Value x = op.getDpsInputs()[0];
    if (!isa<FloatType>(tensorType(x).getElementType()))
      return ctx.reasons.fail(rewriter, op, "Crest pools floats only");
    Value init = op.getDpsInits()[0];
    std::optional<double> start = getInitValue(init);
    // A max pool starts from -inf (or the lowest finite value), a sum from 0.
    auto identity = [&](double v) {
      return isMax ? (v == -std::numeric_limits<double>::infinity() ||
                      v <= -3.4028234663852886e38)
                   : v == 0;
    };
    if (!start || !identity(*start))
      return ctx.reasons.fail(
          rewriter, op,
          isMax ? "its init must be a fill of -inf or the lowest value"
                : "its init must be a fill of 0");
    Location loc = op.getLoc();
    SmallVector<int64_t> pads;
    x = absorbPad(x, layout, identity, pads);
    ArrayRef<int64_t> window = tensorType(op.getDpsInputs()[1]).getShape();
    if (layout == ConvLayout::Nhwc)
      x = transpose(rewriter, loc, x, kNhwcToNchw);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> rs = resultType.getShape();
    SmallVector<int64_t> nchw(rs);
    if (layout == ConvLayout::Nhwc)
      nchw = {rs[0], rs[3], rs[1], rs[2]};
    auto type = RankedTensorType::get(nchw, resultType.getElementType());
    auto kernel = rewriter.getDenseI64ArrayAttr(window);
    for (int i = 0; i < 2; ++i)
      if (pads[i] >= window[i] || pads[i + 2] >= window[i])
        return ctx.reasons.fail(rewriter, op,
                                "a pad is not smaller than the window");
    Value y;
    if (isMax) {
      y = MaxPool2DOp::create(rewriter, loc, type, x, kernel,
                              rewriter.getDenseI64ArrayAttr(*strides),
                              rewriter.getDenseI64ArrayAttr(pads), UnitAttr());
    } else {
      // The sum is the average over the whole (padded) window times its
      // size.
      y = AvgPool2DOp::create(rewriter, loc, type, x, kernel,
                              rewriter.getDenseI64ArrayAttr(*strides),
                              rewriter.getDenseI64ArrayAttr(pads), UnitAttr(),
                              rewriter.getUnitAttr());
      y = binary<MulOp>(rewriter, loc, y,
                        splat(rewriter, loc, resultType.getElementType(),
                              double(window[0] * window[1])));
    }
    if (layout == ConvLayout::Nhwc)
      y = transpose(rewriter, loc, y, kNchwToNhwc);
    rewriter.replaceOp(op, y);
    return success();
  }

  ConversionContext &ctx;
};

//===----------------------------------------------------------------------===//
// linalg.generic: elementwise and reductions
//===----------------------------------------------------------------------===//

/// Rewrites a generic's body into crest ops on iteration-space tensors.
class BodyConverter {
public:
  BodyConverter(PatternRewriter &rewriter, Location loc,
                ArrayRef<int64_t> loops)
      : rewriter(rewriter), loc(loc), loops(loops) {}

  void bind(Value scalar, Value tensor) { values[scalar] = tensor; }

  /// The tensor of a scalar the body uses, converting its defining op.
  FailureOr<Value> get(Value scalar, std::string &why) {
    auto it = values.find(scalar);
    if (it != values.end())
      return it->second;
    Operation *def = scalar.getDefiningOp();
    Attribute attr;
    if (def && matchPattern(scalar, m_Constant(&attr)) &&
        (isa<FloatAttr>(attr) || isa<IntegerAttr>(attr))) {
      auto type = RankedTensorType::get({}, scalar.getType());
      Value t = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(type, attr));
      values[scalar] = t;
      return t;
    }
    if (!def) {
      why = "the body reads a value from outside it that is not a constant";
      return failure();
    }
    FailureOr<Value> result = convert(def, why);
    if (failed(result))
      return failure();
    values[scalar] = *result;
    return *result;
  }

private:
  template <typename OpTy>
  FailureOr<Value> unary(Operation *op, std::string &why) {
    FailureOr<Value> x = get(op->getOperand(0), why);
    if (failed(x))
      return failure();
    return Value(OpTy::create(rewriter, loc, tensorType(*x), *x));
  }
  template <typename OpTy>
  FailureOr<Value> binaryOp(Operation *op, std::string &why) {
    FailureOr<Value> a = get(op->getOperand(0), why);
    if (failed(a))
      return failure();
    FailureOr<Value> b = get(op->getOperand(1), why);
    if (failed(b))
      return failure();
    return binary<OpTy>(rewriter, loc, *a, *b);
  }
  template <typename OpTy>
  FailureOr<Value> compare(Value lhs, Value rhs, std::string &why) {
    FailureOr<Value> a = get(lhs, why);
    if (failed(a))
      return failure();
    FailureOr<Value> b = get(rhs, why);
    if (failed(b))
      return failure();
    auto type = RankedTensorType::get(
        broadcastShape(tensorType(*a).getShape(), tensorType(*b).getShape()),
        rewriter.getI1Type());
    return Value(OpTy::create(rewriter, loc, type, *a, *b));
  }

  FailureOr<Value> negate(FailureOr<Value> value) {
    if (failed(value))
      return failure();
    return Value(NotOp::create(rewriter, loc, tensorType(*value), *value));
  }

  FailureOr<Value> convert(Operation *op, std::string &why) {
    using FV = FailureOr<Value>;
    return TypeSwitch<Operation *, FV>(op)
        .Case<arith::AddFOp, arith::AddIOp>(
            [&](auto) { return binaryOp<AddOp>(op, why); })
        .Case<arith::SubFOp, arith::SubIOp>(
            [&](auto) { return binaryOp<SubOp>(op, why); })
        .Case<arith::MulFOp, arith::MulIOp>(
            [&](auto) { return binaryOp<MulOp>(op, why); })
        .Case<arith::DivFOp>([&](auto) { return binaryOp<DivOp>(op, why); })
        .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
            [&](auto) { return binaryOp<MaxOp>(op, why); })
        .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
            [&](auto) { return binaryOp<MinOp>(op, why); })
        .Case<math::PowFOp>([&](auto) { return binaryOp<PowOp>(op, why); })
        .Case<arith::NegFOp>([&](auto) { return unary<NegOp>(op, why); })
        .Case<math::ExpOp>([&](auto) { return unary<ExpOp>(op, why); })
        .Case<math::LogOp>([&](auto) { return unary<LogOp>(op, why); })
        .Case<math::TanhOp>([&](auto) { return unary<TanhOp>(op, why); })
        .Case<math::SqrtOp>([&](auto) { return unary<SqrtOp>(op, why); })
        .Case<math::ErfOp>([&](auto) { return unary<ErfOp>(op, why); })
        .Case<math::AbsFOp>([&](auto) { return unary<AbsOp>(op, why); })
        .Case<math::FloorOp>([&](auto) { return unary<FloorOp>(op, why); })
        .Case<math::CeilOp>([&](auto) { return unary<CeilOp>(op, why); })
        .Case<math::RoundEvenOp>([&](auto) { return unary<RoundOp>(op, why); })
        .Case<math::RsqrtOp>([&](auto) -> FV {
          FV s = unary<SqrtOp>(op, why);
          if (failed(s))
            return failure();
          Value one = splat(rewriter, loc, tensorType(*s).getElementType(), 1);
          return binary<DivOp>(rewriter, loc, one, *s);
        })
        .Case<math::FmaOp>([&](auto) -> FV {
          FV ab = binaryOp<MulOp>(op, why);
          if (failed(ab))
            return failure();
          FV c = get(op->getOperand(2), why);
          if (failed(c))
            return failure();
          return binary<AddOp>(rewriter, loc, *ab, *c);
        })
        .Case<arith::CmpFOp>([&](arith::CmpFOp cmp) -> FV {
          Value a = cmp.getLhs(), b = cmp.getRhs();
          switch (cmp.getPredicate()) {
          case arith::CmpFPredicate::OEQ:
            return compare<EqualOp>(a, b, why);
          case arith::CmpFPredicate::OGT:
            return compare<GreaterOp>(a, b, why);
          case arith::CmpFPredicate::OGE:
            return compare<GreaterEqualOp>(a, b, why);
          case arith::CmpFPredicate::OLT:
            return compare<LessOp>(a, b, why);
          case arith::CmpFPredicate::OLE:
            return compare<LessEqualOp>(a, b, why);
          // An unordered predicate is the negation of the opposite ordered
          // one (ugt: NaN or a > b, that is not a <= b).
          case arith::CmpFPredicate::UGT:
            return negate(compare<LessEqualOp>(a, b, why));
          case arith::CmpFPredicate::UGE:
            return negate(compare<LessOp>(a, b, why));
          case arith::CmpFPredicate::ULT:
            return negate(compare<GreaterEqualOp>(a, b, why));
          case arith::CmpFPredicate::ULE:
            return negate(compare<GreaterOp>(a, b, why));
          case arith::CmpFPredicate::UNE:
            return negate(compare<EqualOp>(a, b, why));
          default:
            why = "arith.cmpf " +
                  arith::stringifyCmpFPredicate(cmp.getPredicate()).str() +
                  " is not supported";
            return failure();
          }
        })
        .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) -> FV {
          Value a = cmp.getLhs(), b = cmp.getRhs();
          switch (cmp.getPredicate()) {
          case arith::CmpIPredicate::eq:
            return compare<EqualOp>(a, b, why);
          case arith::CmpIPredicate::sgt:
            return compare<GreaterOp>(a, b, why);
          case arith::CmpIPredicate::sge:
            return compare<GreaterEqualOp>(a, b, why);
          case arith::CmpIPredicate::slt:
            return compare<LessOp>(a, b, why);
          case arith::CmpIPredicate::sle:
            return compare<LessEqualOp>(a, b, why);
          default:
            why = "arith.cmpi " +
                  arith::stringifyCmpIPredicate(cmp.getPredicate()).str() +
                  " is not supported (eq and signed orders only)";
            return failure();
          }
        })
        .Case<arith::SelectOp>([&](arith::SelectOp sel) -> FV {
          FV c = get(sel.getCondition(), why);
          if (failed(c))
            return failure();
          FV t = get(sel.getTrueValue(), why);
          if (failed(t))
            return failure();
          FV f = get(sel.getFalseValue(), why);
          if (failed(f))
            return failure();
          SmallVector<int64_t> full = broadcastShape(
              broadcastShape(tensorType(*t).getShape(),
                             tensorType(*f).getShape()),
              tensorType(*c).getShape());
          auto type = RankedTensorType::get(
              full, tensorType(*t).getElementType());
          return Value(SelectOp::create(rewriter, loc, type, *c, *t, *f));
        })
        .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
              arith::FPToSIOp, arith::ExtSIOp, arith::TruncIOp>(
            [&](auto) -> FV {
              FV x = get(op->getOperand(0), why);
              if (failed(x))
                return failure();
              return castTo(rewriter, loc, *x, op->getResult(0).getType());
            })
        .Default([&](Operation *) -> FV {
          why = "'" + op->getName().getStringRef().str() +
                "' in its body is not supported";
          return failure();
        });
  }

  PatternRewriter &rewriter;
  Location loc;
  ArrayRef<int64_t> loops;
  DenseMap<Value, Value> values;
};

/// The crest reduction of an accumulate op, and the init values that leave
/// it unchanged.
enum class Combiner { Sum, Prod, Max, Min };

static std::optional<Combiner> getCombiner(Operation *op) {
  if (isa<arith::AddFOp>(op))
    return Combiner::Sum;
  if (isa<arith::MulFOp>(op))
    return Combiner::Prod;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return Combiner::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return Combiner::Min;
  return std::nullopt;
}

static bool isIdentity(Combiner combiner, double v) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (combiner) {
  case Combiner::Sum:
    return v == 0;
  case Combiner::Prod:
    return v == 1;
  case Combiner::Max:
    return v == -kInf;
  case Combiner::Min:
    return v == kInf;
  }
  return false;
}

struct GenericPattern : OpRewritePattern<linalg::GenericOp> {
  GenericPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context), ctx(ctx) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return ctx.reasons.fail(rewriter, op, "it must work on tensors");
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    if (op.getNumDpsInits() != 1)
      return ctx.reasons.fail(rewriter, op,
                              "only generics with one result are supported");
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!llvm::all_of(maps, [](AffineMap m) {
          return m.isProjectedPermutation(/*allowZeroInResults=*/false);
        }))
      return ctx.reasons.fail(
          rewriter, op,
          "its operands must be read through projected permutations (no "
          "sliding windows or constant indices)");
    SmallVector<unsigned> reduced;
    for (auto [i, type] : llvm::enumerate(op.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction)
        reduced.push_back(i);
    Location loc = op.getLoc();

    // Each operand in the iteration space.
    auto inSpace = [&](Value operand, AffineMap map) {
      SmallVector<unsigned> dims;
      for (AffineExpr e : map.getResults())
        dims.push_back(cast<AffineDimExpr>(e).getPosition());
      SmallVector<int64_t> order(dims.size());
      for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
      llvm::sort(order,
                 [&](int64_t a, int64_t b) { return dims[a] < dims[b]; });
      Value t = transpose(rewriter, loc, operand, order);
      SmallVector<int64_t> shape(loops.size(), 1);
      for (unsigned d : dims)
        shape[d] = loops[d];
      return reshapeTo(rewriter, loc, t, shape);
    };

    Block &body = *op.getBody();
    BodyConverter converter(rewriter, loc, loops);
    for (OpOperand *input : op.getDpsInputOperands())
      converter.bind(op.getMatchingBlockArgument(input),
                     inSpace(input->get(), op.getMatchingIndexingMap(input)));
    OpOperand *initOperand = op.getDpsInitOperand(0);
    BlockArgument acc = op.getMatchingBlockArgument(initOperand);
    Value init = initOperand->get();
    AffineMap outMap = op.getMatchingIndexingMap(initOperand);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value yielded = body.getTerminator()->getOperand(0);
    std::string why;

    Value result;
    if (reduced.empty()) {
      if (!acc.use_empty())
        converter.bind(acc, inSpace(init, outMap));
      FailureOr<Value> value = converter.get(yielded, why);
      if (failed(value))
        return ctx.reasons.fail(rewriter, op, why);
      result = broadcastTo(rewriter, loc, *value, loops);
    } else {
      // yield combiner(f(inputs), acc).
      Operation *combine = yielded.getDefiningOp();
      std::optional<Combiner> combiner =
          combine ? getCombiner(combine) : std::nullopt;
      if (!combiner || combine->getBlock() != &body ||
          !llvm::is_contained(combine->getOperands(), acc))
        return ctx.reasons.fail(
            rewriter, op,
            "a reduction's body must end in arith.addf, mulf, maximumf, "
            "maxnumf, minimumf or minnumf with its accumulator");
      Value part = combine->getOperand(0) == acc ? combine->getOperand(1)
                                                 : combine->getOperand(0);
      if (part == acc || acc.getNumUses() != 1)
        return ctx.reasons.fail(rewriter, op,
                                "the accumulator may be read once only");
      FailureOr<Value> value = converter.get(part, why);
      if (failed(value))
        return ctx.reasons.fail(rewriter, op, why);
      if (!isa<FloatType>(tensorType(*value).getElementType()))
        return ctx.reasons.fail(rewriter, op, "Crest reduces floats only");
      Value full = broadcastTo(rewriter, loc, *value, loops);
      SmallVector<int64_t> dims(reduced.begin(), reduced.end());
      SmallVector<int64_t> kept(loops);
      for (int64_t d : dims)
        kept[d] = 1;
      auto reducedType =
          RankedTensorType::get(kept, tensorType(full).getElementType());
      auto dimsAttr = rewriter.getDenseI64ArrayAttr(dims);
      UnitAttr keep = rewriter.getUnitAttr();
      switch (*combiner) {
      case Combiner::Sum:
        result = ReduceSumOp::create(rewriter, loc, reducedType, full, dimsAttr,
                                     keep);
        break;
      case Combiner::Prod:
        result = ReduceProdOp::create(rewriter, loc, reducedType, full,
                                      dimsAttr, keep);
        break;
      case Combiner::Max:
        result = ReduceMaxOp::create(rewriter, loc, reducedType, full, dimsAttr,
                                     keep);
        break;
      case Combiner::Min:
        result = ReduceMinOp::create(rewriter, loc, reducedType, full, dimsAttr,
                                     keep);
        break;
      }
      // Combine with the init unless it is the identity.
      std::optional<double> start = getInitValue(init);
      if (!start || !isIdentity(*combiner, *start)) {
        Value initValue =
            init.getDefiningOp<linalg::FillOp>()
                ? splat(rewriter, loc, resultType.getElementType(), *start)
                : inSpace(init, outMap);
        switch (*combiner) {
        case Combiner::Sum:
          result = binary<AddOp>(rewriter, loc, result, initValue);
          break;
        case Combiner::Prod:
          result = binary<MulOp>(rewriter, loc, result, initValue);
          break;
        case Combiner::Max:
          result = binary<MaxOp>(rewriter, loc, result, initValue);
          break;
        case Combiner::Min:
          result = binary<MinOp>(rewriter, loc, result, initValue);
          break;
        }
      }
    }
    // Back from the iteration space to the result's layout: drop the
    // reduced loops, then order the rest as the output map does.
    SmallVector<unsigned> outDims;
    for (AffineExpr e : outMap.getResults())
      outDims.push_back(cast<AffineDimExpr>(e).getPosition());
    SmallVector<unsigned> ascending(outDims);
    llvm::sort(ascending);
    SmallVector<int64_t> compact;
    for (unsigned d : ascending)
      compact.push_back(loops[d]);
    result = reshapeTo(rewriter, loc, result, compact);
    SmallVector<int64_t> perm;
    for (unsigned d : outDims)
      perm.push_back(llvm::find(ascending, d) - ascending.begin());
    result = transpose(rewriter, loc, result, perm);
    rewriter.replaceOp(op, castTo(rewriter, loc, result,
                                  resultType.getElementType()));
    return success();
  }

  ConversionContext &ctx;
};

/// Every other structured op (linalg.add, exp, elementwise, map, reduce,
/// broadcast, transpose, copy, ...) through its generic form.
struct GeneralizePattern : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op) ||
        isa<linalg::ConvolutionOpInterface>(op.getOperation()) ||
        linalg::isaContractionOpInterface(op))
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct SoftmaxPattern : OpRewritePattern<linalg::SoftmaxOp> {
  SoftmaxPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context), ctx(ctx) {}
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    auto type = cast<RankedTensorType>(op.getResult()[0].getType());
    if (!isa<FloatType>(type.getElementType()))
      return ctx.reasons.fail(rewriter, op, "softmax needs floats");
    rewriter.replaceOpWithNewOp<SoftmaxOp>(
        op, type, op.getInput(), rewriter.getI64IntegerAttr(op.getDimension()));
    return success();
  }
  ConversionContext &ctx;
};

/// A fill of a constant that no contraction or reduction took as its init.
struct FillPattern : OpRewritePattern<linalg::FillOp> {
  FillPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context, /*benefit=*/0), ctx(ctx) {}
  LogicalResult matchAndRewrite(linalg::FillOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr;
    if (!op.hasPureTensorSemantics() ||
        !matchPattern(op.getInputs()[0], m_Constant(&attr)))
      return ctx.reasons.fail(rewriter, op, "it must fill a constant");
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, attr));
    return success();
  }
  ConversionContext &ctx;
};

//===----------------------------------------------------------------------===//
// tensor ops
//===----------------------------------------------------------------------===//

template <typename OpTy> struct ReshapeLikePattern : OpRewritePattern<OpTy> {
  ReshapeLikePattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern<OpTy>(context), ctx(ctx) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), op->getOperand(0),
                                     type.getShape()));
    return success();
  }
  ConversionContext &ctx;
};

struct ExtractSlicePattern : OpRewritePattern<tensor::ExtractSliceOp> {
  ExtractSlicePattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context), ctx(ctx) {}
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    if (llvm::any_of(op.getStaticStrides(),
                     [](int64_t s) { return ShapedType::isDynamic(s); }))
      return ctx.reasons.fail(rewriter, op, "its strides must be constants");
    if (llvm::any_of(op.getStaticOffsets(),
                     [](int64_t o) { return ShapedType::isDynamic(o); }) ||
        llvm::any_of(op.getStaticSizes(),
                     [](int64_t s) { return ShapedType::isDynamic(s); }))
      return ctx.reasons.fail(rewriter, op,
                              "its offsets and sizes must be constants");
    Location loc = op.getLoc();
    SmallVector<int64_t> sizes(op.getStaticSizes());
    Type element = op.getType().getElementType();
    Value slice = SliceOp::create(
        rewriter, loc, RankedTensorType::get(sizes, element), op.getSource(),
        rewriter.getDenseI64ArrayAttr(op.getStaticOffsets()),
        rewriter.getDenseI64ArrayAttr(op.getStaticStrides()));
    // A rank-reducing slice drops unit dimensions.
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, slice,
                                     op.getType().getShape()));
    return success();
  }
  ConversionContext &ctx;
};

struct ConcatPattern : OpRewritePattern<tensor::ConcatOp> {
  ConcatPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context), ctx(ctx) {}
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    rewriter.replaceOpWithNewOp<ConcatOp>(
        op, op.getType(), op.getInputs(),
        rewriter.getI64IntegerAttr(op.getDim()));
    return success();
  }
  ConversionContext &ctx;
};

/// A pad that no convolution or pooling absorbed.
struct PadPattern : OpRewritePattern<tensor::PadOp> {
  PadPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern(context, /*benefit=*/0), ctx(ctx) {}
  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkStatic(op, ctx.reasons, rewriter)))
      return failure();
    // Convolutions and pooling absorb their pads: wait for them.
    if (llvm::any_of(op->getUsers(), [](Operation *user) {
          return isa<linalg::ConvolutionOpInterface>(user);
        }))
      return failure();
    Value fill = op.getConstantPaddingValue();
    Attribute attr;
    if (!fill || !matchPattern(fill, m_Constant(&attr)))
      return ctx.reasons.fail(rewriter, op, "it must pad with a constant");
    SmallVector<int64_t> low(op.getStaticLow()), high(op.getStaticHigh());
    if (llvm::any_of(llvm::concat<int64_t>(low, high), [](int64_t p) {
          return ShapedType::isDynamic(p) || p < 0;
        }))
      return ctx.reasons.fail(rewriter, op,
                              "its pads must be non-negative constants");
    rewriter.replaceOp(op, padConstant(rewriter, op.getLoc(), op.getSource(),
                                       low, high, attr));
    return success();
  }
  ConversionContext &ctx;
};

struct ConvertLinalgPass
    : crest::impl::CrestConvertLinalgPassBase<ConvertLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    auto populate = [](RewritePatternSet &patterns, ConversionContext &ctx) {
      MLIRContext *context = patterns.getContext();
      patterns.add<ContractionPattern, ConvPattern, PoolPattern,
                   GenericPattern, SoftmaxPattern, FillPattern,
                   ReshapeLikePattern<tensor::ExpandShapeOp>,
                   ReshapeLikePattern<tensor::CollapseShapeOp>,
                   ExtractSlicePattern, ConcatPattern, PadPattern>(context,
                                                                   ctx);
      patterns.add<GeneralizePattern>(context);
    };
    if (failed(runGraphConversion(getOperation(), getArgument(), precision,
                                  populate, {"linalg", "tensor"},
                                  "Crest's linalg conversion")))
      signalPassFailure();
  }
};

} // namespace
