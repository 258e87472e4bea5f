//===- ElementwiseEmitter.cpp - Crest elementwise ops on scalars/vectors --===//

#include "ElementwiseEmitter.h"

#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Semantics/Scalar.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace crest;

Type codegen::withElementType(Type like, Type elt) {
  if (auto vec = dyn_cast<VectorType>(like))
    return VectorType::get(vec.getShape(), elt);
  return elt;
}

Type codegen::signless(Type type) {
  auto vec = dyn_cast<VectorType>(type);
  auto i = dyn_cast<IntegerType>(vec ? vec.getElementType() : type);
  if (!i || i.isSignless())
    return type;
  auto s = IntegerType::get(type.getContext(), i.getWidth());
  return vec ? Type(VectorType::get(vec.getShape(), s)) : Type(s);
}

/// An integer constant of `type` (signless) holding the low `bits` of v.
static Value intConstant(OpBuilder &b, Location loc, Type type, APInt v) {
  auto elt = cast<IntegerType>(getElementTypeOrSelf(type));
  auto attr = b.getIntegerAttr(elt, v.zextOrTrunc(elt.getWidth()));
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// Integer to integer with saturation to the target's range, signedness
/// on both sides.
static Value convertInt(OpBuilder &b, Location loc, Value v, bool fromUnsigned,
                        Type toType, bool toUnsigned) {
  Type fromType = v.getType();
  unsigned fb = getElementTypeOrSelf(fromType).getIntOrFloatBitWidth();
  unsigned tb = getElementTypeOrSelf(toType).getIntOrFloatBitWidth();
  if (fb == 1)
    return fb == tb ? v : arith::ExtUIOp::create(b, loc, toType, v).getResult();
  // Clamp in the source type to the part of the target's range it holds.
  APInt lo = fromUnsigned ? APInt::getMinValue(fb) : APInt::getSignedMinValue(fb);
  APInt hi = fromUnsigned ? APInt::getMaxValue(fb) : APInt::getSignedMaxValue(fb);
  APInt toLo = toUnsigned ? APInt::getMinValue(tb) : APInt::getSignedMinValue(tb);
  APInt toHi = toUnsigned ? APInt::getMaxValue(tb) : APInt::getSignedMaxValue(tb);
  // Compare the bounds as 66-bit signed numbers, where every bound fits.
  auto wide = [](const APInt &x, bool isUnsigned) {
    return isUnsigned ? x.zext(66) : x.sext(66);
  };
  Value c = v;
  if (wide(toLo, toUnsigned).sgt(wide(lo, fromUnsigned))) {
    Value bound = intConstant(b, loc, fromType, wide(toLo, toUnsigned).trunc(fb));
    c = fromUnsigned ? arith::MaxUIOp::create(b, loc, c, bound).getResult()
                     : arith::MaxSIOp::create(b, loc, c, bound).getResult();
  }
  if (wide(toHi, toUnsigned).slt(wide(hi, fromUnsigned))) {
    Value bound = intConstant(b, loc, fromType, wide(toHi, toUnsigned).trunc(fb));
    c = fromUnsigned ? arith::MinUIOp::create(b, loc, c, bound).getResult()
                     : arith::MinSIOp::create(b, loc, c, bound).getResult();
  }
  if (tb < fb)
    return arith::TruncIOp::create(b, loc, toType, c);
  if (tb > fb)
    return fromUnsigned ? arith::ExtUIOp::create(b, loc, toType, c).getResult()
                        : arith::ExtSIOp::create(b, loc, toType, c).getResult();
  return c;
}

Value codegen::constant(OpBuilder &b, Location loc, Type type, double value) {
  type = signless(type);
  Type elt = getElementTypeOrSelf(type);
  TypedAttr scalar;
  if (isa<FloatType>(elt))
    scalar = b.getFloatAttr(elt, value);
  else
    scalar = b.getIntegerAttr(elt, int64_t(value));
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

Value codegen::convertElements(OpBuilder &b, Location loc, Value v, Type to,
                               bool fromUnsigned) {
  bool toUnsigned = to.isUnsignedInteger();
  to = signless(to);
  Type fromType = v.getType();
  Type from = getElementTypeOrSelf(fromType);
  if (from == to && (fromUnsigned == toUnsigned || !isa<IntegerType>(to)))
    return v;
  Type toType = withElementType(fromType, to);
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return convertInt(b, loc, v, fromUnsigned, toType, toUnsigned);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  unsigned fromBits = from.getIntOrFloatBitWidth();
  unsigned toBits = to.getIntOrFloatBitWidth();
  if (fromFloat && toFloat) {
    if (toBits == 8) {
      // fp8 saturates (crest/Semantics/Scalar.h): clamp to +-largest, in
      // f32 so that the bound is exact, then round. NaN stays NaN (the
      // clamps propagate it); infinities clamp too.
      if (fromBits < 32) {
        fromType = withElementType(fromType, b.getF32Type());
        v = arith::ExtFOp::create(b, loc, fromType, v);
      }
      double largest = sem::getLargest(cast<FloatType>(to).getFloatSemantics());
      Value c = arith::MinimumFOp::create(b, loc, v,
                                          constant(b, loc, fromType, largest));
      c = arith::MaximumFOp::create(b, loc, c,
                                    constant(b, loc, fromType, -largest));
      return arith::TruncFOp::create(b, loc, toType, c);
    }
    if (fromBits < toBits)
      return arith::ExtFOp::create(b, loc, toType, v);
    if (fromBits > toBits)
      return arith::TruncFOp::create(b, loc, toType, v);
    // f16 <-> bf16: exact through f32, then one rounding.
    Value wide = arith::ExtFOp::create(
        b, loc, withElementType(fromType, b.getF32Type()), v);
    return arith::TruncFOp::create(b, loc, toType, wide);
  }
  if (!fromFloat && toFloat)
    return fromUnsigned || fromBits == 1
               ? arith::UIToFPOp::create(b, loc, toType, v).getResult()
               : arith::SIToFPOp::create(b, loc, toType, v).getResult();
  if (fromFloat) {
    // Truncate toward zero and saturate, in f32 (or f64) so that the
    // integer bounds are representable.
    if (fromBits < 32) {
      fromType = withElementType(fromType, b.getF32Type());
      v = arith::ExtFOp::create(b, loc, fromType, v);
    }
    // (Unsigned targets: [0, 2^bits - 1].)
    double lo = toUnsigned ? 0.0 : -std::ldexp(1.0, toBits - 1);
    // The first value out of range.
    double limit = std::ldexp(1.0, toUnsigned ? toBits : toBits - 1);
    // The largest float below `limit`: limit - 1 when exact (i8, and any
    // f64 up to 53 bits), else the float just below limit.
    bool isF64 = getElementTypeOrSelf(fromType).isF64();
    double hiSafe = (toUnsigned ? toBits : toBits - 1) < (isF64 ? 53u : 24u)
                        ? limit - 1
                        : isF64 ? std::nextafter(limit, 0.0)
                                : double(std::nextafter(float(limit), 0.0f));
    Value c = arith::MaximumFOp::create(b, loc, v, constant(b, loc, fromType, lo));
    c = arith::MinimumFOp::create(b, loc, c, constant(b, loc, fromType, hiSafe));
    Value r = toUnsigned
                  ? arith::FPToUIOp::create(b, loc, toType, c).getResult()
                  : arith::FPToSIOp::create(b, loc, toType, c).getResult();
    Value tooBig = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v,
                                         constant(b, loc, fromType, limit));
    // The target's largest value, all ones below the sign bit (or all
    // ones), exact in any width.
    APInt largest = toUnsigned ? APInt::getMaxValue(toBits)
                               : APInt::getSignedMaxValue(toBits);
    r = arith::SelectOp::create(b, loc, tooBig,
                                intConstant(b, loc, toType, largest), r);
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    return arith::SelectOp::create(b, loc, isNan, constant(b, loc, toType, 0),
                                   r);
  }
  llvm_unreachable("integer conversions are handled above");
}

FailureOr<Value> codegen::emitElementwise(OpBuilder &b, Operation *op,
                                          ArrayRef<Value> operands,
                                          Type resultElt) {
  Location loc = op->getLoc();
  auto isUnsigned = [&](unsigned i) {
    return getElementTypeOrSelf(op->getOperand(i).getType())
        .isUnsignedInteger();
  };
  if (auto cast = dyn_cast<CastOp>(op))
    return convertElements(b, loc, operands[0], resultElt, isUnsigned(0));
  // Unsigned operands and results are signless values here; the ops below
  // that depend on the sign (max, min, conversions) take it from the types.
  bool resultUnsigned = resultElt.isUnsignedInteger();

  // Comparisons (on the operands' own type: every relation is exact),
  // logic on i1 and select.
  if (isa<EqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp>(op)) {
    Value x = operands[0], y = operands[1];
    if (isa<FloatType>(getElementTypeOrSelf(x.getType()))) {
      using P = arith::CmpFPredicate;
      // Ordered: false when either side is NaN.
      P p = isa<EqualOp>(op)       ? P::OEQ
            : isa<LessOp>(op)      ? P::OLT
            : isa<LessEqualOp>(op) ? P::OLE
            : isa<GreaterOp>(op)   ? P::OGT
                                   : P::OGE;
      return arith::CmpFOp::create(b, loc, p, x, y).getResult();
    }
    using P = arith::CmpIPredicate;
    bool u = isUnsigned(0);
    P p = isa<EqualOp>(op)       ? P::eq
          : isa<LessOp>(op)      ? (u ? P::ult : P::slt)
          : isa<LessEqualOp>(op) ? (u ? P::ule : P::sle)
          : isa<GreaterOp>(op)   ? (u ? P::ugt : P::sgt)
                                 : (u ? P::uge : P::sge);
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  }
  if (isa<AndOp>(op))
    return arith::AndIOp::create(b, loc, operands[0], operands[1]).getResult();
  if (isa<OrOp>(op))
    return arith::OrIOp::create(b, loc, operands[0], operands[1]).getResult();
  if (isa<XorOp>(op))
    return arith::XOrIOp::create(b, loc, operands[0], operands[1]).getResult();
  if (isa<NotOp>(op))
    return arith::XOrIOp::create(
               b, loc, operands[0],
               constant(b, loc, operands[0].getType(), 1.0))
        .getResult();
  if (isa<SelectOp>(op))
    return arith::SelectOp::create(b, loc, operands[0], operands[1],
                                   operands[2])
        .getResult();

  // Narrow floats compute in f32 and round once at the end.
  Type like = operands[0].getType();
  Type computeElt = resultElt;
  if (isa<FloatType>(resultElt) && resultElt.getIntOrFloatBitWidth() < 32)
    computeElt = b.getF32Type();
  Type type = withElementType(like, signless(computeElt));
  SmallVector<Value> args;
  for (auto [i, operand] : llvm::enumerate(operands))
    args.push_back(convertElements(b, loc, operand, computeElt, isUnsigned(i)));
  Value x = args[0];
  Value y = args.size() > 1 ? args[1] : Value();
  bool isFloat = isa<FloatType>(computeElt);
  auto cst = [&](double v) { return constant(b, loc, type, v); };

  Value r;
  if (isa<AddOp>(op))
    r = isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                : arith::AddIOp::create(b, loc, x, y).getResult();
  else if (isa<SubOp>(op))
    r = isFloat ? arith::SubFOp::create(b, loc, x, y).getResult()
                : arith::SubIOp::create(b, loc, x, y).getResult();
  else if (isa<MulOp>(op))
    r = isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                : arith::MulIOp::create(b, loc, x, y).getResult();
  else if (isa<DivOp>(op))
    r = arith::DivFOp::create(b, loc, x, y);
  else if (isa<MaxOp>(op))
    r = isFloat          ? arith::MaximumFOp::create(b, loc, x, y).getResult()
        : resultUnsigned ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                         : arith::MaxSIOp::create(b, loc, x, y).getResult();
  else if (isa<MinOp>(op))
    r = isFloat          ? arith::MinimumFOp::create(b, loc, x, y).getResult()
        : resultUnsigned ? arith::MinUIOp::create(b, loc, x, y).getResult()
                         : arith::MinSIOp::create(b, loc, x, y).getResult();
  else if (isa<PowOp>(op)) {
    // MLIR's powf expansion (exp2(y log2 |x|) with sign fix-ups) misses
    // C99's special cases, which the scalar core (std::pow) has: pow(x, 0)
    // = pow(1, y) = 1 even for NaN, pow(x, 1) = x, and for y = +-inf: 1
    // when |x| = 1, else +inf or +0 by whether |x| > 1 and y > 0 agree.
    using P = arith::CmpFPredicate;
    auto cmp = [&](P p, Value l, Value rr) -> Value {
      return arith::CmpFOp::create(b, loc, p, l, rr);
    };
    Value inf = cst(INFINITY), one = cst(1.0), zero = cst(0.0);
    Value absX = math::AbsFOp::create(b, loc, x);
    Value absY = math::AbsFOp::create(b, loc, y);
    // A negative base: |x|^y, negated for odd integer y (copysign keeps
    // -0 and -inf right), NaN for a finite base and a non-integer y. (The
    // expansion tests integrality through an integer conversion that fails
    // for |y| >= 2^31.) Integers of 2^24 and beyond are all even in f32.
    r = math::PowFOp::create(b, loc, absX, y);
    Value isInt = cmp(P::OEQ, math::TruncOp::create(b, loc, y), y);
    Value halfY = arith::MulFOp::create(b, loc, y, cst(0.5));
    Value isOdd = arith::AndIOp::create(
        b, loc, isInt,
        cmp(P::ONE, math::TruncOp::create(b, loc, halfY), halfY));
    r = arith::SelectOp::create(b, loc, isOdd,
                                math::CopySignOp::create(b, loc, r, x), r);
    Value finiteNegative = arith::AndIOp::create(
        b, loc, cmp(P::OLT, x, zero), cmp(P::ONE, absX, inf));
    Value invalid = arith::AndIOp::create(
        b, loc, finiteNegative,
        cmp(P::UNE, math::TruncOp::create(b, loc, y), y));
    r = arith::SelectOp::create(b, loc, invalid, cst(NAN), r);
    Value grows = arith::XOrIOp::create(b, loc, cmp(P::OLT, absX, one),
                                        cmp(P::OGT, y, zero));
    Value infResult = arith::SelectOp::create(
        b, loc, cmp(P::OEQ, absX, one), one,
        arith::SelectOp::create(b, loc, grows, inf, zero));
    Value yInf = arith::AndIOp::create(b, loc, cmp(P::OEQ, absY, inf),
                                       cmp(P::ORD, x, x));
    r = arith::SelectOp::create(b, loc, yInf, infResult, r);
    r = arith::SelectOp::create(b, loc, cmp(P::OEQ, y, one), x, r);
    Value isOne = arith::OrIOp::create(b, loc, cmp(P::OEQ, y, zero),
                                       cmp(P::OEQ, x, one));
    r = arith::SelectOp::create(b, loc, isOne, one, r);
  }
  else if (isa<ReluOp>(op))
    r = arith::MaximumFOp::create(b, loc, x, cst(0.0));
  else if (isa<NegOp>(op))
    r = arith::NegFOp::create(b, loc, x);
  else if (isa<AbsOp>(op))
    r = math::AbsFOp::create(b, loc, x);
  else if (isa<LogOp>(op))
    r = math::LogOp::create(b, loc, x);
  else if (isa<FloorOp>(op))
    r = math::FloorOp::create(b, loc, x);
  else if (isa<CeilOp>(op))
    r = math::CeilOp::create(b, loc, x);
  else if (isa<RoundOp>(op))
    r = math::RoundEvenOp::create(b, loc, x);
  else if (auto lr = dyn_cast<LeakyReluOp>(op)) {
    // olt is false for NaN, which passes through (crest/Semantics).
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      cst(0.0));
    r = arith::SelectOp::create(
        b, loc, neg,
        arith::MulFOp::create(b, loc, cst(lr.getAlpha().convertToDouble()),
                              x),
        x);
  } else if (isa<ExpOp>(op))
    r = math::ExpOp::create(b, loc, x);
  else if (isa<SqrtOp>(op))
    r = math::SqrtOp::create(b, loc, x);
  else if (isa<TanhOp>(op))
    r = math::TanhOp::create(b, loc, x);
  else if (isa<ErfOp>(op))
    r = math::ErfOp::create(b, loc, x);
  else if (isa<SigmoidOp>(op))
    r = arith::DivFOp::create(
        b, loc, cst(1.0),
        arith::AddFOp::create(
            b, loc, cst(1.0),
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x))));
  else if (auto hs = dyn_cast<HardSigmoidOp>(op)) {
    Value v = arith::AddFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, cst(hs.getAlpha().convertToDouble()), x),
        cst(hs.getBeta().convertToDouble()));
    r = arith::MaximumFOp::create(
        b, loc, cst(0.0), arith::MinimumFOp::create(b, loc, cst(1.0), v));
  } else if (isa<HardSwishOp>(op)) {
    Value v = arith::AddFOp::create(b, loc, x, cst(3.0));
    v = arith::MaximumFOp::create(
        b, loc, cst(0.0), arith::MinimumFOp::create(b, loc, cst(6.0), v));
    r = arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, x, v),
                              cst(6.0));
  } else if (auto clip = dyn_cast<ClipOp>(op)) {
    r = x;
    if (auto lo = clip.getMin())
      r = arith::MaximumFOp::create(b, loc, r, cst(lo->convertToDouble()));
    if (auto hi = clip.getMax())
      r = arith::MinimumFOp::create(b, loc, r, cst(hi->convertToDouble()));
  } else if (auto gelu = dyn_cast<GeluOp>(op)) {
    Value half = arith::MulFOp::create(b, loc, cst(0.5), x);
    Value inner;
    if (gelu.getApproximate() == GeluApproximation::Tanh) {
      Value x3 = arith::MulFOp::create(b, loc, x,
                                       arith::MulFOp::create(b, loc, x, x));
      Value u = arith::AddFOp::create(
          b, loc, x, arith::MulFOp::create(b, loc, cst(0.044715), x3));
      inner = math::TanhOp::create(
          b, loc, arith::MulFOp::create(b, loc, cst(0.7978845608028654), u));
    } else {
      inner = math::ErfOp::create(
          b, loc, arith::MulFOp::create(b, loc, cst(0.7071067811865476), x));
    }
    r = arith::MulFOp::create(b, loc, half,
                              arith::AddFOp::create(b, loc, cst(1.0), inner));
  } else {
    return op->emitOpError() << "has no elementwise kernel lowering";
  }
  return convertElements(b, loc, r, resultElt, resultUnsigned);
}
