//===- FuseAttention.cpp - Q K^T, softmax and P V into crest.attention ----===//
//
// A rewrite pattern rooted at the P V product of scaled dot-product
// attention written as separate ops -- the crest graph form
// (examples/transformer-block.mlir) and what the ONNX importer makes of
// MatMul -> Div/Mul -> Softmax -> MatMul with the transposes and reshapes
// exporters put around them:
//
//   %s = crest.batch_matmul %q, %k transpose_rhs  (or %kt: K^T as a tensor)
//   [%s = crest.div %s, <splat c>  |  crest.mul %s, <splat c>]
//   [%s = crest.add %s, %m]           (before or after the scale; %m a
//                                      0 / -inf mask: a constant, or
//                                      crest.select of 0 and -inf)
//   %p = crest.softmax %s             (the last axis, f32)
//   [%p = crest.cast %p to f16/bf16/fp8]
//   %o = crest.batch_matmul %p, %v
//
// with reshapes that only add or drop leading unit dimensions anywhere
// between them, every intermediate used once. It becomes one
// crest.attention over [1, B, L, D] views of Q, K and V (the batch of the
// products is the heads), scale c (or 1 / c), with the precisions of the
// two products: P rounded to the cast's type. When K arrives transposed
// (K^T = transpose(x, perm), as ONNX exports it), the transpose is
// rewritten to produce K itself (the permutation's last two entries
// swapped) instead of adding a second one.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace crest {
#define GEN_PASS_DEF_CRESTFUSEATTENTIONPASS
#include "crest/Dialect/Crest/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {

ArrayRef<int64_t> dropLeadingOnes(ArrayRef<int64_t> shape) {
  while (!shape.empty() && shape.front() == 1)
    shape = shape.drop_front();
  return shape;
}

/// `v` without reshapes that only add or drop leading unit dimensions (each
/// used once).
Value peelUnitReshapes(Value v) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    if (!reshape->hasOneUse() ||
        dropLeadingOnes(reshape.getInput().getType().getShape()) !=
            dropLeadingOnes(reshape.getType().getShape()))
      break;
    v = reshape.getInput();
  }
  return v;
}

/// The value of a splat float constant.
std::optional<double> getSplatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// `v` in `shape` (same elements in row-major order), through one reshape
/// of the value the reshapes before `v` started from.
Value reshapeTo(PatternRewriter &rewriter, Location loc, Value v,
                ArrayRef<int64_t> shape) {
  while (auto reshape = v.getDefiningOp<ReshapeOp>())
    v = reshape.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return ReshapeOp::create(rewriter, loc,
                           RankedTensorType::get(shape, type.getElementType()),
                           v);
}

/// Where an additive mask of 0 and -inf comes from: a select of 0 and -inf
/// by a bool tensor (ONNX's Where, TOSA's select), or a constant. Found
/// before anything is rewritten; materialize() builds the i1 mask
/// (true: the pair is kept) crest.attention takes.
struct MaskSource {
  Value condition;       // select(condition, 0, -inf), or -inf and 0
  bool negated = false;  //   with negated set
  DenseElementsAttr constant;

  static std::optional<MaskSource> match(Value m) {
    constexpr double kNegInf = -std::numeric_limits<double>::infinity();
    if (auto select = m.getDefiningOp<SelectOp>()) {
      std::optional<double> t = getSplatValue(select.getTrueValue());
      std::optional<double> f = getSplatValue(select.getFalseValue());
      if (t && f && *t == 0 && *f == kNegInf)
        return MaskSource{select.getCondition(), false, {}};
      if (t && f && *t == kNegInf && *f == 0)
        return MaskSource{select.getCondition(), true, {}};
      return std::nullopt;
    }
    DenseElementsAttr attr;
    if (!matchPattern(m, m_Constant(&attr)) ||
        !isa<FloatType>(attr.getElementType()))
      return std::nullopt;
    for (const APFloat &v : attr.getValues<APFloat>())
      if (!v.isZero() && !(v.isInfinity() && v.isNegative()))
        return std::nullopt;
    return MaskSource{Value(), false, attr};
  }

  ArrayRef<int64_t> getShape() const {
    return condition
               ? cast<RankedTensorType>(condition.getType()).getShape()
               : constant.getType().getShape();
  }

  Value materialize(PatternRewriter &rewriter, Location loc) const {
    Value mask;
    if (condition) {
      mask = condition;
      if (negated)
        mask = NotOp::create(rewriter, loc, condition.getType(), condition);
    } else {
      SmallVector<bool> keep;
      for (const APFloat &v : constant.getValues<APFloat>())
        keep.push_back(v.isZero());
      auto type = RankedTensorType::get(constant.getType().getShape(),
                                        rewriter.getI1Type());
      mask = arith::ConstantOp::create(rewriter, loc,
                                       DenseElementsAttr::get(type, keep));
    }
    // At most [B, Hq, Lq, Lkv]: leading unit dimensions go.
    ArrayRef<int64_t> shape = getShape();
    ArrayRef<int64_t> kept = dropLeadingOnes(shape);
    if (shape.size() > 4)
      mask = ReshapeOp::create(
          rewriter, loc, RankedTensorType::get(kept, rewriter.getI1Type()),
          mask);
    return mask;
  }
};

struct FuseAttentionPattern : OpRewritePattern<BatchMatmulOp> {
  FuseAttentionPattern(MLIRContext *context, bool remarks)
      : OpRewritePattern(context), remarks(remarks) {}

  LogicalResult matchAndRewrite(BatchMatmulOp pv,
                                PatternRewriter &rewriter) const override {
    if (pv.getTransposeLhs() || pv.getTransposeRhs())
      return rewriter.notifyMatchFailure(pv, "transposed P or V");
    // P, possibly rounded by a cast.
    Value p = peelUnitReshapes(pv.getLhs());
    Type pType = getElementTypeOrSelf(p.getType());
    if (auto cast = p.getDefiningOp<CastOp>()) {
      if (!cast->hasOneUse() ||
          !isa<FloatType>(getElementTypeOrSelf(cast.getInput().getType())))
        return failure();
      p = peelUnitReshapes(cast.getInput());
    }
    auto softmax = p.getDefiningOp<SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse())
      return rewriter.notifyMatchFailure(pv, "lhs is not a softmax");
    int64_t rank = softmax.getType().getRank();
    int64_t axis = int64_t(softmax.getAxis());
    if (axis != -1 && axis != rank - 1)
      return rewriter.notifyMatchFailure(pv, "softmax not over the keys");
    if (!softmax.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(pv, "scores are not f32");
    // An additive 0 / -inf mask, after the scale or (below) before it.
    Value s = peelUnitReshapes(softmax.getInput());
    std::optional<MaskSource> mask;
    auto takeMask = [&]() {
      auto add = s.getDefiningOp<AddOp>();
      if (mask || !add || !add->hasOneUse())
        return;
      for (auto [x, m] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
        // The scores side has the sum's shape; the mask broadcasts to it.
        if (x.getType() != add.getType())
          continue;
        if (std::optional<MaskSource> source = MaskSource::match(m);
            source && dropLeadingOnes(source->getShape()).size() <= 4) {
          mask = source;
          s = peelUnitReshapes(x);
          return;
        }
      }
    };
    takeMask();
    // The scale.
    double scale = 1.0;
    Operation *scaleOp = nullptr;
    if (auto divOp = s.getDefiningOp<DivOp>()) {
      if (std::optional<double> c = getSplatValue(divOp.getRhs());
          c && *c > 0 && std::isfinite(1.0 / *c)) {
        scale = 1.0 / *c;
        scaleOp = divOp;
        s = divOp.getLhs();
      }
    } else if (auto mulOp = s.getDefiningOp<MulOp>()) {
      for (auto [x, y] : {std::pair(mulOp.getLhs(), mulOp.getRhs()),
                          std::pair(mulOp.getRhs(), mulOp.getLhs())})
        if (std::optional<double> c = getSplatValue(y); c && *c > 0) {
          scale = *c;
          scaleOp = mulOp;
          s = x;
          break;
        }
    }
    if (scaleOp) {
      if (!scaleOp->hasOneUse() ||
          getElementTypeOrSelf(scaleOp->getOperand(0).getType()) !=
              getElementTypeOrSelf(scaleOp->getResult(0).getType()))
        return failure();
      s = peelUnitReshapes(s);
      takeMask();
    }
    auto qk = s.getDefiningOp<BatchMatmulOp>();
    if (!qk || !qk->hasOneUse() || qk.getTransposeLhs())
      return rewriter.notifyMatchFailure(pv, "no Q K^T product");
    PrecisionAttr qkPrec = qk.getPrecision(), pvPrec = pv.getPrecision();
    if (!qkPrec.getAcc().isF32() || !qkPrec.getOut().isF32() ||
        !pvPrec.getAcc().isF32() || pvPrec.getLhs() != pType)
      return rewriter.notifyMatchFailure(pv, "precisions do not fit");

    auto qType = cast<RankedTensorType>(qk.getLhs().getType());
    auto vType = cast<RankedTensorType>(pv.getRhs().getType());
    auto kRaw = cast<RankedTensorType>(qk.getRhs().getType());
    int64_t heads = qType.getDimSize(0), lq = qType.getDimSize(1),
            d = qType.getDimSize(2);
    int64_t lkv = vType.getDimSize(1), dv = vType.getDimSize(2);
    SmallVector<int64_t> kShape = qk.getTransposeRhs()
                                      ? SmallVector<int64_t>{heads, lkv, d}
                                      : SmallVector<int64_t>{heads, d, lkv};
    if (kRaw.getShape() != ArrayRef<int64_t>(kShape) ||
        vType.getDimSize(0) != heads)
      return rewriter.notifyMatchFailure(pv, "batches or lengths differ");

    Location loc = pv.getLoc();
    Value q4 = reshapeTo(rewriter, loc, qk.getLhs(), {1, heads, lq, d});
    Value k4;
    // K^T as transpose(x), possibly cast (to the product's operand type)
    // after the transpose and its unit reshapes.
    Value kT = peelUnitReshapes(qk.getRhs());
    CastOp kCast = kT.getDefiningOp<CastOp>();
    if (kCast && kCast->hasOneUse())
      kT = peelUnitReshapes(kCast.getInput());
    else
      kCast = {};
    if (qk.getTransposeRhs()) {
      k4 = reshapeTo(rewriter, loc, qk.getRhs(), {1, heads, lkv, d});
    } else if (auto t = kT.getDefiningOp<TransposeOp>();
               t && t->hasOneUse() &&
               dropLeadingOnes(t.getType().getShape()) ==
                   dropLeadingOnes(kShape)) {
      // K^T = transpose(x, perm): K = transpose(x, perm with its last two
      // entries swapped), then the cast if there was one.
      SmallVector<int64_t> perm(t.getPermutation());
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
      SmallVector<int64_t> shape(t.getType().getShape());
      std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
      Value k = TransposeOp::create(
          rewriter, t.getLoc(),
          RankedTensorType::get(shape, t.getType().getElementType()),
          t.getInput(), rewriter.getDenseI64ArrayAttr(perm));
      if (kCast)
        k = CastOp::create(rewriter, kCast.getLoc(),
                           RankedTensorType::get(shape, kRaw.getElementType()),
                           k);
      k4 = reshapeTo(rewriter, loc, k, {1, heads, lkv, d});
    } else {
      Value k = TransposeOp::create(
          rewriter, loc,
          RankedTensorType::get({heads, lkv, d}, kRaw.getElementType()),
          qk.getRhs(), rewriter.getDenseI64ArrayAttr({0, 2, 1}));
      k4 = reshapeTo(rewriter, loc, k, {1, heads, lkv, d});
    }
    Value v4 = reshapeTo(rewriter, loc, pv.getRhs(), {1, heads, lkv, dv});
    Type outElt = pv.getType().getElementType();
    auto outType = RankedTensorType::get({1, heads, lq, dv}, outElt);
    MLIRContext *ctx = rewriter.getContext();
    auto qkAttr = PrecisionAttr::get(ctx, qType.getElementType(),
                                     kRaw.getElementType(), qkPrec.getAcc(),
                                     qkPrec.getOut());
    auto pvAttr = PrecisionAttr::get(ctx, pType, vType.getElementType(),
                                     pvPrec.getAcc(), pvPrec.getOut());
    auto attention = AttentionOp::create(
        rewriter, loc, outType, /*lse=*/Type(), q4, k4, v4,
        /*kv_length=*/Value(),
        /*mask=*/mask ? mask->materialize(rewriter, loc) : Value(),
        rewriter.getF32FloatAttr(float(scale)), CausalMask::None,
        /*window=*/IntegerAttr(), qkAttr, pvAttr);
    if (remarks)
      emitRemark(loc) << "attention: Q K^T of " << heads << " heads (" << lq
                      << " queries x " << lkv << " keys, head dim " << d
                      << ")" << (scaleOp ? ", the scale" : "")
                      << (mask ? ", the 0 / -inf mask" : "")
                      << ", softmax"
                      << (pType != softmax.getType().getElementType()
                              ? ", the cast of P to " + print(pType)
                              : std::string())
                      << " and P V fused into one crest.attention (scale "
                      << scale << ")";
    rewriter.replaceOp(pv, reshapeTo(rewriter, loc, attention.getResult(),
                                     pv.getType().getShape()));
    return success();
  }

  bool remarks;
};

struct FuseAttentionPass
    : crest::impl::CrestFuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext(), remarks);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
