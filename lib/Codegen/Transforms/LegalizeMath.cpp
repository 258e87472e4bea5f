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

/// log10(x) = log(x) * (1 / ln 10), with log on f32 native.
struct Log10AsLog : OpRewritePattern<math::Log10Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log10Op op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "computed in f32 first");
    Location loc = op.getLoc();
    Value log = math::LogOp::create(rewriter, loc, op.getOperand());
    Value scale =
        createFloatConstant(rewriter, loc, op.getType(), 1.0 / std::log(10.0));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, log, scale);
    return success();
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
                 RoundViaTrunc<math::FloorOp, false>, Log10AsLog>(context);
    // arith.ceildivsi/ceildivui/floordivsi have no LLVM lowering either.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
