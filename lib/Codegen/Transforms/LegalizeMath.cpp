//===- LegalizeMath.cpp - Math without the ROCm device libraries ----------===//
//
// Which math ops need rewriting follows from convert-gpu-to-rocdl in MLIR
// 22: it turns most math ops into __ocml_* calls and keeps LLVM intrinsics
// only for exp/log on f32, sqrt, fma, fabs, copysign, trunc, round,
// roundeven and the bit-counting ops (configureGpuToROCDLConversionLegality
// makes llvm.floor, llvm.ceil, llvm.exp2, llvm.log2, llvm.sin, ... illegal).
//
//===----------------------------------------------------------------------===//

#include "crest/Codegen/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace crest {
#define GEN_PASS_DEF_CRESTLEGALIZEMATHPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;

namespace {

/// Ops replaced by MLIR's polynomial approximations (f32; narrower types
/// compute in f32).
constexpr StringLiteral kApproximated[] = {
    "math.tanh",  "math.erf",   "math.erfc", "math.atan", "math.atan2",
    "math.asin",  "math.acos",  "math.sin",  "math.cos",  "math.log2",
    "math.log1p", "math.expm1", "math.cbrt",
};

/// Ops replaced by MLIR's expansions (any float type).
constexpr StringRef kExpanded[] = {
    "sinh", "cosh", "tan",   "asinh", "acosh", "atanh",
    "exp2", "powf", "fpowi", "rsqrt", "clampf",
};

/// Ops whose f16/bf16 forms become __ocml_*_f16 calls but whose f32 forms
/// the backend implements: compute them in f32.
constexpr StringLiteral kComputedInF32[] = {"math.exp", "math.log",
                                            "math.log10"};

/// Creates a splat-or-scalar float constant of `type`.
static Value createFloatConstant(OpBuilder &builder, Location loc, Type type,
                                 double value) {
  auto element = cast<FloatType>(getElementTypeOrSelf(type));
  auto attr = builder.getFloatAttr(element, value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(builder, loc,
                                     DenseElementsAttr::get(shaped, attr));
  return arith::ConstantOp::create(builder, loc, attr);
}

/// ceil and floor from trunc (which stays an LLVM intrinsic, v_trunc_*):
/// ceil(x) = x > trunc(x) ? trunc(x) + 1 : trunc(x), and floor with x <
/// trunc(x) and - 1. Exact for every input: trunc keeps the sign of zero
/// (ceil(-0.5) = trunc(-0.5) = -0, floor(+0.5) = +0), and infinities, NaN
/// and integers (every float from 2^mantissa on) are their own trunc, for
/// which the comparison is false. (MLIR's ceil expansion adds a selected
/// 0 or 1 and so turns -0 into +0; floor as -ceil(-x) then +0 into -0.)
template <typename OpTy, bool isCeil>
struct RoundViaTrunc : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value t = math::TruncOp::create(rewriter, loc, x);
    Value beyond = arith::CmpFOp::create(
        rewriter, loc,
        isCeil ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, t);
    Value one = createFloatConstant(rewriter, loc, op.getType(), 1.0);
    Value stepped =
        isCeil ? Value(arith::AddFOp::create(rewriter, loc, t, one))
               : Value(arith::SubFOp::create(rewriter, loc, t, one));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, beyond, stepped, t);
    return success();
  }
};

/// log10(x) = log(x) * (1 / ln 10), with log on f32 native and on f64
/// expanded (LogF64).
struct Log10AsLog : OpRewritePattern<math::Log10Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log10Op op,
                                PatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    if (!element.isF32() && !element.isF64())
      return rewriter.notifyMatchFailure(op, "computed in f32 first");
    Location loc = op.getLoc();
    Value log = math::LogOp::create(rewriter, loc, op.getOperand());
    Value scale =
        createFloatConstant(rewriter, loc, op.getType(), 1.0 / std::log(10.0));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, log, scale);
    return success();
  }
};

/// A splat-or-scalar integer constant of `type` (an integer or a shaped
/// integer type).
static Value createIntConstant(OpBuilder &builder, Location loc, Type type,
                               int64_t value) {
  auto attr = builder.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(builder, loc,
                                     DenseElementsAttr::get(shaped, attr));
  return arith::ConstantOp::create(builder, loc, attr);
}

/// `type` (f64 or a shaped f64) with `width`-bit integer elements.
static Type withInt(Type type, unsigned width) {
  auto element = IntegerType::get(type.getContext(), width);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

/// Builds the f64 arithmetic of the expansions below.
struct F64Builder {
  PatternRewriter &b;
  Location loc;
  Type type, intType;

  Value f(double v) { return createFloatConstant(b, loc, type, v); }
  Value i(int64_t v) { return createIntConstant(b, loc, intType, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value bits(Value x) { return arith::BitcastOp::create(b, loc, intType, x); }
  Value fromBits(Value x) { return arith::BitcastOp::create(b, loc, type, x); }
  /// The polynomial sum of coefficients[k] x^k by Horner's rule with fma.
  Value horner(Value x, ArrayRef<double> coefficients) {
    Value p = f(coefficients.back());
    for (double c : llvm::reverse(coefficients.drop_back()))
      p = fma(p, x, f(c));
    return p;
  }
  /// The exponents converted through i32, which v_cvt_i32_f64 and
  /// v_cvt_f64_i32 convert in one instruction (i64 would take a sequence).
  Value toInt(Value x) {
    Value k = arith::FPToSIOp::create(b, loc, withInt(type, 32), x);
    return arith::ExtSIOp::create(b, loc, intType, k);
  }
  Value toFloat(Value k) {
    Value k32 = arith::TruncIOp::create(b, loc, withInt(type, 32), k);
    return arith::SIToFPOp::create(b, loc, type, k32);
  }
  /// 2^k for integer k in [-1022, 1023] (an i64 value): its bits.
  Value pow2(Value k) {
    Value biased = arith::AddIOp::create(b, loc, k, i(1023));
    return fromBits(arith::ShLIOp::create(b, loc, biased, i(52)));
  }
};

/// Cody and Waite's split of ln 2: kLn2Hi has 32 trailing zero bits, so
/// k * kLn2Hi is exact for every exponent k of a double.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

/// The shape of the f64 expansions below: f64 (or shaped f64) only, the
/// result of `Derived::expand` on the operand.
template <typename OpTy, typename Derived>
struct F64Expansion : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF64())
      return rewriter.notifyMatchFailure(op, "not f64");
    F64Builder b{rewriter, op.getLoc(), type, withInt(type, 64)};
    rewriter.replaceOp(op, Derived::expand(b, op.getOperand()));
    return success();
  }
};

/// exp on f64, which the backend has no instruction for (it would be
/// __ocml_exp_f64). With k = round(x / ln 2) and r = x - k ln 2 (|r| <=
/// ln 2 / 2, reduced in two fma steps), exp(x) = 2^k exp(r); exp(r) is its
/// Taylor polynomial of degree 13, whose truncation error r^14 / 14! <=
/// 5e-18 is below half an ulp. 2^k is applied as two powers of two (k in
/// [-1076, 1024] reaches the subnormals and the top exponent, which one
/// biased exponent cannot). x > 709.78... is +inf, x < -745.13... is +0
/// (the results round to them), NaN is NaN.
struct ExpF64 : F64Expansion<math::ExpOp, ExpF64> {
  using F64Expansion::F64Expansion;

  static Value expand(F64Builder &b, Value x) {
    PatternRewriter &rewriter = b.b;
    Location loc = b.loc;
    // Clamped, so that k stays in range; NaN is selected at the end.
    Value xc = arith::MinimumFOp::create(
        rewriter, loc, arith::MaximumFOp::create(rewriter, loc, x, b.f(-746)),
        b.f(710));
    // Round to nearest with the 1.5 * 2^52 shifter (|x / ln 2| < 2^51).
    constexpr double kShifter = 6755399441055744.0;
    Value kf =
        b.sub(b.fma(xc, b.f(1.4426950408889634), b.f(kShifter)), b.f(kShifter));
    Value r = b.fma(kf, b.f(-kLn2Hi), xc);
    r = b.fma(kf, b.f(-kLn2Lo), r);
    SmallVector<double> taylor;
    double term = 1;
    for (int n = 0; n <= 13; ++n) {
      taylor.push_back(term);
      term /= n + 1;
    }
    Value p = b.horner(r, taylor);
    Value k = b.toInt(kf);
    Value k1 = arith::ShRSIOp::create(rewriter, loc, k, b.i(1));
    Value k2 = arith::SubIOp::create(rewriter, loc, k, k1);
    Value result = b.mul(b.mul(p, b.pow2(k1)), b.pow2(k2));
    using P = arith::CmpFPredicate;
    result = b.select(b.cmp(P::OGT, x, b.f(7.09782712893383973096e+02)),
                      b.f(INFINITY), result);
    result = b.select(b.cmp(P::OLT, x, b.f(-7.45133219101941108420e+02)),
                      b.f(0), result);
    result = b.select(b.cmp(P::UNO, x, x), x, result);
    return result;
  }
};

/// log on f64 (else __ocml_log_f64). x = 2^e m with m in [sqrt(1/2),
/// sqrt(2)) (subnormals scaled by 2^54 first); log(m) = 2 atanh(s) with s =
/// (m - 1) / (m + 1), |s| <= 0.1716, as 2 s (1 + s^2/3 + ... + s^22/23),
/// whose truncation error s^24 / 25 < 1e-19 is below half an ulp; then
/// log(x) = e ln 2 + log(m) with ln 2 split. log(+0) = log(-0) = -inf, a
/// negative x is NaN, +inf is +inf and NaN is NaN.
struct LogF64 : F64Expansion<math::LogOp, LogF64> {
  using F64Expansion::F64Expansion;

  static Value expand(F64Builder &b, Value x) {
    PatternRewriter &rewriter = b.b;
    Location loc = b.loc;
    using P = arith::CmpFPredicate;
    Value tiny = b.cmp(P::OLT, x, b.f(0x1p-1022));
    Value xs = b.select(tiny, b.mul(x, b.f(0x1p54)), x);
    Value bits = b.bits(xs);
    Value biased = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, b.i(52)),
        b.i(0x7ff));
    Value e = arith::SubIOp::create(
        rewriter, loc, biased,
        arith::SelectOp::create(rewriter, loc, tiny, b.i(1023 + 54),
                                b.i(1023)));
    // The mantissa with the exponent of 1: m in [1, 2).
    Value m = b.fromBits(arith::OrIOp::create(
        rewriter, loc,
        arith::AndIOp::create(rewriter, loc, bits, b.i(0x000fffffffffffffLL)),
        b.i(0x3ff0000000000000LL)));
    Value big = b.cmp(P::OGT, m, b.f(1.4142135623730951));
    m = b.select(big, b.mul(m, b.f(0.5)), m);
    e = arith::SelectOp::create(
        rewriter, loc, big, arith::AddIOp::create(rewriter, loc, e, b.i(1)),
        e);
    Value f = b.sub(m, b.f(1));
    Value s = arith::DivFOp::create(rewriter, loc, f, b.add(m, b.f(1)));
    SmallVector<double> atanh;
    for (int n = 0; n <= 11; ++n)
      atanh.push_back(1.0 / (2 * n + 1));
    Value logm = b.mul(b.mul(b.f(2), s), b.horner(b.mul(s, s), atanh));
    Value ef = b.toFloat(e);
    Value result = b.fma(ef, b.f(kLn2Hi), b.fma(ef, b.f(kLn2Lo), logm));
    result = b.select(b.cmp(P::OEQ, x, b.f(INFINITY)), x, result);
    result = b.select(b.cmp(P::OLT, x, b.f(0)), b.f(NAN), result);
    result = b.select(b.cmp(P::OEQ, x, b.f(0)), b.f(-INFINITY), result);
    result = b.select(b.cmp(P::UNO, x, x), x, result);
    return result;
  }
};

struct LegalizeMathPass
    : crest::impl::CrestLegalizeMathPassBase<LegalizeMathPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    auto approximated = [](StringRef name) {
      return llvm::is_contained(kApproximated, name);
    };
    auto computedInF32 = [&](StringRef name) {
      return approximated(name) || llvm::is_contained(kComputedInF32, name);
    };
    populateMathF32ExpansionPatterns(patterns, computedInF32);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    math::populateExpansionPatterns(patterns, kExpanded);
    patterns.add<RoundViaTrunc<math::CeilOp, true>,
                 RoundViaTrunc<math::FloorOp, false>, Log10AsLog, ExpF64,
                 LogF64>(context);
    // arith.ceildivsi/ceildivui/floordivsi have no LLVM lowering either.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
