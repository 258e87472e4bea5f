//===- TosaToCrest.cpp - crest-convert-tosa -------------------------------===//
//
// TOSA graphs (the TOSA 1.0 ops of MLIR 22) to crest ops on the same tensors.
// Convolutions and pooling read NHWC in TOSA and NCHW in crest: each becomes
// transpose - crest op - transpose, and the transposes then move through the
// elementwise ops between two convolutions and cancel (GraphBuilder.cpp).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include "crest/Conversion/Passes.h"
#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/ScopedPrinter.h"

#include "llvm/ADT/StringExtras.h"

namespace crest {
#define GEN_PASS_DEF_CRESTCONVERTTOSAPASS
#include "crest/Conversion/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::conversion;

namespace {

/// The base of every TOSA pattern: the op's tensors must be statically
/// shaped (crest graphs are), then `convert` rewrites it.
template <typename OpTy> struct TosaPattern : OpRewritePattern<OpTy> {
  TosaPattern(MLIRContext *context, ConversionContext &ctx)
      : OpRewritePattern<OpTy>(context), ctx(ctx) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    for (Value value :
         llvm::concat<Value>(op->getOperands(), op->getResults())) {
      if (isa<tosa::shapeType>(value.getType()))
        continue;
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !type.hasStaticShape())
        return fail(rewriter, op,
                    "Crest needs statically shaped tensors, got " +
                        llvm::to_string(value.getType()));
    }
    return convert(op, rewriter);
  }

  virtual LogicalResult convert(OpTy op, PatternRewriter &rewriter) const = 0;

  LogicalResult fail(PatternRewriter &rewriter, Operation *op,
                     const Twine &reason) const {
    return ctx.reasons.fail(rewriter, op, reason);
  }

  /// Quantised TOSA (zero points other than 0) is not supported.
  LogicalResult expectZeroPoints(PatternRewriter &rewriter, Operation *op,
                                 ValueRange zeroPoints) const {
    for (Value zp : zeroPoints)
      if (!isConstantSplat(zp, 0))
        return fail(rewriter, op,
                    "its zero points must be constant zeros (quantised TOSA "
                    "is not supported)");
    return success();
  }

  LogicalResult expectFloat(PatternRewriter &rewriter, Operation *op,
                            Value value) const {
    Type element = tensorType(value).getElementType();
    if (isa<FloatType>(element))
      return success();
    return fail(rewriter, op, "Crest supports it on floats only, got " +
                                  llvm::to_string(element));
  }

  LogicalResult expectPropagate(PatternRewriter &rewriter, Operation *op,
                                tosa::NanPropagationMode mode) const {
    if (mode == tosa::NanPropagationMode::PROPAGATE)
      return success();
    return fail(rewriter, op,
                "nan_mode = IGNORE is not supported (Crest's min, max and "
                "pooling propagate NaN)");
  }

  ConversionContext &ctx;
};

/// The values of a `tosa.const_shape` operand.
static FailureOr<SmallVector<int64_t>> getShapeValues(Value shape) {
  auto op = shape.getDefiningOp<tosa::ConstShapeOp>();
  if (!op)
    return failure();
  SmallVector<int64_t> values;
  for (const APInt &v : op.getValues().getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

static Value nchwFromNhwc(OpBuilder &b, Location loc, Value nhwc) {
  return transpose(b, loc, nhwc, kNhwcToNchw);
}

/// The NCHW type of an NHWC result type, with element `element`.
static RankedTensorType nchwType(RankedTensorType nhwc, Type element) {
  ArrayRef<int64_t> s = nhwc.getShape();
  return RankedTensorType::get({s[0], s[3], s[1], s[2]}, element);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename TosaOp, typename CrestOp, bool FloatOnly = true>
struct UnaryPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;
  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    Value x = op->getOperand(0);
    if (FloatOnly && failed(this->expectFloat(rewriter, op, x)))
      return failure();
    rewriter.replaceOpWithNewOp<CrestOp>(op, op.getType(), x);
    return success();
  }
};

/// Binary ops broadcast as NumPy does (TOSA's equal-rank broadcast of ones
/// is a case of it).
template <typename TosaOp, typename CrestOp, bool FloatOnly = false>
struct BinaryPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;
  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    if (FloatOnly && failed(this->expectFloat(rewriter, op, lhs)))
      return failure();
    if constexpr (std::is_same_v<TosaOp, tosa::MaximumOp> ||
                  std::is_same_v<TosaOp, tosa::MinimumOp>)
      if (failed(this->expectPropagate(rewriter, op, op.getNanMode())))
        return failure();
    rewriter.replaceOpWithNewOp<CrestOp>(op, op.getType(), lhs, rhs);
    return success();
  }
};

struct MulPattern : TosaPattern<tosa::MulOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::MulOp op,
                        PatternRewriter &rewriter) const override {
    if (!isConstantSplat(op.getShift(), 0))
      return fail(rewriter, op, "its shift must be a constant 0");
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), op.getInput1(),
                                       op.getInput2());
    return success();
  }
};

struct NegatePattern : TosaPattern<tosa::NegateOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::NegateOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(expectZeroPoints(rewriter, op,
                                {op.getInput1Zp(), op.getOutputZp()})) ||
        failed(expectFloat(rewriter, op, op.getInput1())))
      return failure();
    rewriter.replaceOpWithNewOp<NegOp>(op, op.getType(), op.getInput1());
    return success();
  }
};

/// reciprocal(x) = 1 / x; rsqrt(x) = 1 / sqrt(x).
template <typename TosaOp, bool Sqrt>
struct ReciprocalPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;
  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    Value x = op->getOperand(0);
    if (failed(this->expectFloat(rewriter, op, x)))
      return failure();
    Location loc = op.getLoc();
    if (Sqrt)
      x = SqrtOp::create(rewriter, loc, op.getType(), x);
    Value one = splat(rewriter, loc, tensorType(x).getElementType(), 1.0);
    rewriter.replaceOpWithNewOp<DivOp>(op, op.getType(), one, x);
    return success();
  }
};

struct ClampPattern : TosaPattern<tosa::ClampOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ClampOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(expectPropagate(rewriter, op, op.getNanMode())))
      return failure();
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type element = tensorType(x).getElementType();
    if (isa<FloatType>(element)) {
      auto bound = [&](Attribute attr) -> FloatAttr {
        double v = cast<FloatAttr>(attr).getValueAsDouble();
        // An infinite bound (or f32's largest, TOSA's "no bound") bounds
        // nothing.
        if (std::isinf(v) || std::abs(v) >= 3.4028234663852886e38)
          return {};
        return rewriter.getF32FloatAttr(float(v));
      };
      FloatAttr lo = bound(op.getMinVal()), hi = bound(op.getMaxVal());
      if (!lo && !hi) {
        rewriter.replaceOp(op, x);
        return success();
      }
      rewriter.replaceOpWithNewOp<ClipOp>(op, op.getType(), x, lo, hi);
      return success();
    }
    // Integers: max then min with the bounds.
    auto lo = cast<IntegerAttr>(op.getMinVal()).getValue().getSExtValue();
    auto hi = cast<IntegerAttr>(op.getMaxVal()).getValue().getSExtValue();
    Value low = MaxOp::create(rewriter, loc, op.getType(), x,
                              splat(rewriter, loc, element, double(lo)));
    rewriter.replaceOpWithNewOp<MinOp>(
        op, op.getType(), low, splat(rewriter, loc, element, double(hi)));
    return success();
  }
};

/// TOSA rounds a float to the nearest integer (ties to even) before it
/// saturates into an integer type; crest.cast truncates, so a crest.round
/// comes first.
struct CastPattern : TosaPattern<tosa::CastOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::CastOp op,
                        PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    Type from = tensorType(x).getElementType();
    Type to = op.getType().getElementType();
    if (to.isInteger(1))
      return fail(rewriter, op, "casts to bool are not supported");
    if (isa<FloatType>(from) && isa<IntegerType>(to))
      x = RoundOp::create(rewriter, op.getLoc(), tensorType(x), x);
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), x, to));
    return success();
  }
};

struct SelectPattern : TosaPattern<tosa::SelectOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::SelectOp op,
                        PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<SelectOp>(op, op.getType(), op.getInput1(),
                                          op.getInput2(), op.getInput3());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions and data movement
//===----------------------------------------------------------------------===//

template <typename TosaOp, typename CrestOp>
struct ReducePattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;
  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    if (failed(this->expectFloat(rewriter, op, op.getInput())))
      return failure();
    if constexpr (std::is_same_v<TosaOp, tosa::ReduceMaxOp> ||
                  std::is_same_v<TosaOp, tosa::ReduceMinOp>)
      if (failed(this->expectPropagate(rewriter, op, op.getNanMode())))
        return failure();
    rewriter.replaceOpWithNewOp<CrestOp>(
        op, op.getType(), op.getInput(),
        rewriter.getDenseI64ArrayAttr({int64_t(op.getAxis())}),
        rewriter.getUnitAttr());
    return success();
  }
};

struct ReshapePattern : TosaPattern<tosa::ReshapeOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ReshapeOp op,
                        PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), op.getInput1(),
                                     op.getType().getShape()));
    return success();
  }
};

struct TransposePattern : TosaPattern<tosa::TransposeOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::TransposeOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> perm(op.getPerms().begin(), op.getPerms().end());
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), op.getInput1(),
                                     perm));
    return success();
  }
};

struct SlicePattern : TosaPattern<tosa::SliceOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::SliceOp op,
                        PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> start = getShapeValues(op.getStart());
    if (failed(start))
      return fail(rewriter, op, "its start must be a tosa.const_shape");
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getType(), op.getInput1(),
                                         rewriter.getDenseI64ArrayAttr(*start),
                                         DenseI64ArrayAttr());
    return success();
  }
};

struct ConcatPattern : TosaPattern<tosa::ConcatOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ConcatOp op,
                        PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ConcatOp>(
        op, op.getType(), op.getInput1(),
        rewriter.getI64IntegerAttr(op.getAxis()));
    return success();
  }
};

struct PadPattern : TosaPattern<tosa::PadOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::PadOp op,
                        PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> padding = getShapeValues(op.getPadding());
    if (failed(padding))
      return fail(rewriter, op, "its padding must be a tosa.const_shape");
    Attribute fill;
    DenseElementsAttr pad;
    if (!matchPattern(op.getPadConst(), m_Constant(&pad)) ||
        pad.getNumElements() != 1)
      return fail(rewriter, op, "its pad_const must be a constant scalar");
    fill = *pad.getValues<Attribute>().begin();
    SmallVector<int64_t> low, high;
    for (size_t d = 0; d + 1 < padding->size(); d += 2) {
      low.push_back((*padding)[d]);
      high.push_back((*padding)[d + 1]);
    }
    rewriter.replaceOp(op, padConstant(rewriter, op.getLoc(), op.getInput1(),
                                       low, high, fill));
    return success();
  }
};

struct TilePattern : TosaPattern<tosa::TileOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::TileOp op,
                        PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> multiples =
        getShapeValues(op.getMultiples());
    if (failed(multiples))
      return fail(rewriter, op, "its multiples must be a tosa.const_shape");
    Value x = op.getInput1();
    for (auto [d, m] : llvm::enumerate(*multiples)) {
      if (m == 1)
        continue;
      RankedTensorType type = tensorType(x);
      SmallVector<int64_t> shape(type.getShape());
      shape[d] *= m;
      SmallVector<Value> copies(m, x);
      x = ConcatOp::create(rewriter, op.getLoc(),
                           RankedTensorType::get(shape, type.getElementType()),
                           copies, rewriter.getI64IntegerAttr(d));
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

struct ConstPattern : TosaPattern<tosa::ConstOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ConstOp op,
                        PatternRewriter &rewriter) const override {
    DenseElementsAttr dense = toDenseElements(op.getValues());
    if (!dense)
      return fail(rewriter, op,
                  "its value is neither dense elements nor a readable "
                  "dense_resource blob");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, dense);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Contractions and pooling
//===----------------------------------------------------------------------===//

struct MatMulPattern : TosaPattern<tosa::MatMulOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::MatMulOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(expectZeroPoints(rewriter, op, {op.getAZp(), op.getBZp()})))
      return failure();
    Location loc = op.getLoc();
    Value a = contractionOperand(rewriter, loc, op.getA(), ctx);
    Value b = contractionOperand(rewriter, loc, op.getB(), ctx);
    PrecisionAttr precision = contractionPrecision(a, b);
    auto type = RankedTensorType::get(op.getType().getShape(),
                                      precision.getOut());
    Value product =
        BatchMatmulOp::create(rewriter, loc, type, a, b, false, false,
                              precision, SyncAttr(), ConfigAttr());
    rewriter.replaceOp(
        op, castTo(rewriter, loc, product, op.getType().getElementType()));
    return success();
  }
};

/// conv2d and depthwise_conv2d: NHWC input, the weight already in crest's
/// F x C/groups x KH x KW, the bias added in the accumulator's type.
static Value buildConvolution(PatternRewriter &rewriter, Operation *op,
                              Value input, Value filter, Value bias,
                              ArrayRef<int64_t> tosaPad,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> dilation, int64_t groups,
                              const ConversionContext &ctx) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value x = contractionOperand(rewriter, loc,
                               nchwFromNhwc(rewriter, loc, input), ctx);
  Value w = contractionOperand(rewriter, loc, filter, ctx);
  PrecisionAttr precision = contractionPrecision(x, w);
  Type acc = precision.getOut();
  // TOSA's pad is [top, bottom, left, right]; crest's [top, left, bottom,
  // right].
  Value y = Conv2DOp::create(
      rewriter, loc, nchwType(resultType, acc), x, w,
      rewriter.getDenseI64ArrayAttr(stride),
      rewriter.getDenseI64ArrayAttr(
          {tosaPad[0], tosaPad[2], tosaPad[1], tosaPad[3]}),
      rewriter.getDenseI64ArrayAttr(dilation),
      rewriter.getI64IntegerAttr(groups), precision, SyncAttr(), ConfigAttr());
  if (!isConstantSplat(bias, 0)) {
    Value b = castTo(rewriter, loc, bias, acc);
    int64_t n = tensorType(b).getNumElements();
    b = reshapeTo(rewriter, loc, b, {1, n, 1, 1});
    y = binary<AddOp>(rewriter, loc, y, b);
  }
  y = castTo(rewriter, loc, y, resultType.getElementType());
  return transpose(rewriter, loc, y, kNchwToNhwc);
}

struct Conv2DPattern : TosaPattern<tosa::Conv2DOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::Conv2DOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(expectZeroPoints(rewriter, op,
                                {op.getInputZp(), op.getWeightZp()})))
      return failure();
    // OHWI -> OIHW.
    Value w = transpose(rewriter, op.getLoc(), op.getWeight(), kNhwcToNchw);
    rewriter.replaceOp(op, buildConvolution(rewriter, op, op.getInput(), w,
                                            op.getBias(), op.getPad(),
                                            op.getStride(), op.getDilation(),
                                            /*groups=*/1, ctx));
    return success();
  }
};

struct DepthwiseConv2DPattern : TosaPattern<tosa::DepthwiseConv2DOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::DepthwiseConv2DOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(expectZeroPoints(rewriter, op,
                                {op.getInputZp(), op.getWeightZp()})))
      return failure();
    // HWCM: output channel c * M + m reads input channel c, which is crest's
    // grouped filter [C * M, 1, KH, KW].
    Location loc = op.getLoc();
    ArrayRef<int64_t> s = tensorType(op.getWeight()).getShape();
    int64_t kh = s[0], kw = s[1], c = s[2], m = s[3];
    Value w = reshapeTo(rewriter, loc, op.getWeight(), {kh, kw, c * m});
    w = transpose(rewriter, loc, w, {2, 0, 1});
    w = reshapeTo(rewriter, loc, w, {c * m, 1, kh, kw});
    rewriter.replaceOp(op, buildConvolution(rewriter, op, op.getInput(), w,
                                            op.getBias(), op.getPad(),
                                            op.getStride(), op.getDilation(),
                                            /*groups=*/c, ctx));
    return success();
  }
};

template <typename TosaOp> struct PoolPattern : TosaPattern<TosaOp> {
  using TosaPattern<TosaOp>::TosaPattern;
  LogicalResult convert(TosaOp op, PatternRewriter &rewriter) const override {
    if (failed(this->expectFloat(rewriter, op, op.getInput())))
      return failure();
    constexpr bool isMax = std::is_same_v<TosaOp, tosa::MaxPool2dOp>;
    if constexpr (isMax) {
      if (failed(this->expectPropagate(rewriter, op, op.getNanMode())))
        return failure();
    } else {
      if (failed(this->expectZeroPoints(rewriter, op,
                                        {op.getInputZp(), op.getOutputZp()})))
        return failure();
    }
    Location loc = op.getLoc();
    ArrayRef<int64_t> pad = op.getPad();
    Value x = nchwFromNhwc(rewriter, loc, op.getInput());
    auto nhwc = cast<RankedTensorType>(op.getType());
    RankedTensorType type = nchwType(nhwc, nhwc.getElementType());
    auto kernel = rewriter.getDenseI64ArrayAttr(op.getKernel());
    auto strides = rewriter.getDenseI64ArrayAttr(op.getStride());
    auto pads = rewriter.getDenseI64ArrayAttr({pad[0], pad[2], pad[1], pad[3]});
    Value y;
    if constexpr (isMax)
      y = MaxPool2DOp::create(rewriter, loc, type, x, kernel, strides, pads,
                              UnitAttr());
    else
      // TOSA divides by the number of elements inside the input.
      y = AvgPool2DOp::create(rewriter, loc, type, x, kernel, strides, pads,
                              UnitAttr(), UnitAttr());
    rewriter.replaceOp(op, transpose(rewriter, loc, y, kNchwToNhwc));
    return success();
  }
};

struct ConvertTosaPass
    : crest::impl::CrestConvertTosaPassBase<ConvertTosaPass> {
  using Base::Base;

  void runOnOperation() override {
    auto populate = [](RewritePatternSet &patterns, ConversionContext &ctx) {
      patterns.add<
          UnaryPattern<tosa::AbsOp, AbsOp>, UnaryPattern<tosa::CeilOp, CeilOp>,
          UnaryPattern<tosa::FloorOp, FloorOp>,
          UnaryPattern<tosa::ExpOp, ExpOp>,
          UnaryPattern<tosa::LogOp, LogOp>, UnaryPattern<tosa::TanhOp, TanhOp>,
          UnaryPattern<tosa::SigmoidOp, SigmoidOp>,
          UnaryPattern<tosa::ErfOp, ErfOp>,
          BinaryPattern<tosa::AddOp, AddOp>, BinaryPattern<tosa::SubOp, SubOp>,
          BinaryPattern<tosa::MaximumOp, MaxOp>,
          BinaryPattern<tosa::MinimumOp, MinOp>,
          BinaryPattern<tosa::PowOp, PowOp, /*FloatOnly=*/true>,
          BinaryPattern<tosa::EqualOp, EqualOp>,
          BinaryPattern<tosa::GreaterOp, GreaterOp>,
          BinaryPattern<tosa::GreaterEqualOp, GreaterEqualOp>,
          BinaryPattern<tosa::LogicalAndOp, AndOp>,
          BinaryPattern<tosa::LogicalOrOp, OrOp>,
          BinaryPattern<tosa::LogicalXorOp, XorOp>, MulPattern, NegatePattern,
          ReciprocalPattern<tosa::ReciprocalOp, false>,
          ReciprocalPattern<tosa::RsqrtOp, true>, ClampPattern, CastPattern,
          SelectPattern, ReducePattern<tosa::ReduceSumOp, ReduceSumOp>,
          ReducePattern<tosa::ReduceMaxOp, ReduceMaxOp>,
          ReducePattern<tosa::ReduceMinOp, ReduceMinOp>,
          ReducePattern<tosa::ReduceProductOp, ReduceProdOp>, ReshapePattern,
          TransposePattern, SlicePattern, ConcatPattern, PadPattern,
          TilePattern,
          ConstPattern, MatMulPattern, Conv2DPattern, DepthwiseConv2DPattern,
          PoolPattern<tosa::AvgPool2dOp>, PoolPattern<tosa::MaxPool2dOp>>(
          patterns.getContext(), ctx);
      patterns.add<UnaryPattern<tosa::LogicalNotOp, NotOp, false>>(
          patterns.getContext(), ctx);
    };
    if (failed(runGraphConversion(getOperation(), getArgument(), precision,
                                  populate, {"tosa"},
                                  "Crest's TOSA conversion")))
      signalPassFailure();
  }
};

} // namespace
