//===- Scalar.cpp - Scalar semantics of Crest's elementwise ops -----------===//
//
// See Scalar.h for the rules.
//
//===----------------------------------------------------------------------===//

#include "crest/Semantics/Scalar.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;
using namespace crest;
using namespace crest::sem;

unsigned ScalarType::getBitWidth() const {
  return flt ? APFloat::getSizeInBits(*flt) : intBits;
}

ScalarType sem::getComputeType(ScalarType result) {
  if (!result.isFloat())
    return result;
  if (result.flt == &APFloat::IEEEdouble())
    return result;
  return ScalarType::getF32();
}

const fltSemantics *sem::getSemantics(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F64:
    return &APFloat::IEEEdouble();
  case ScalarKind::F32:
  case ScalarKind::XF32:
    return &APFloat::IEEEsingle();
  case ScalarKind::F16:
    return &APFloat::IEEEhalf();
  case ScalarKind::BF16:
    return &APFloat::BFloat();
  case ScalarKind::F8E4M3FNUZ:
    return &APFloat::Float8E4M3FNUZ();
  case ScalarKind::F8E5M2FNUZ:
    return &APFloat::Float8E5M2FNUZ();
  case ScalarKind::F8E4M3FN:
    return &APFloat::Float8E4M3FN();
  case ScalarKind::F8E5M2:
    return &APFloat::Float8E5M2();
  case ScalarKind::I32:
  case ScalarKind::I8:
    return nullptr;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

static double toDouble(const APFloat &f) {
  APFloat d = f;
  bool lost;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return d.convertToDouble();
}

double sem::getLargest(const fltSemantics &sem) {
  return toDouble(APFloat::getLargest(sem));
}

double sem::getSmallestNormal(const fltSemantics &sem) {
  return toDouble(APFloat::getSmallestNormalized(sem));
}

static bool isFp8(const fltSemantics &sem) {
  return APFloat::getSizeInBits(sem) == 8;
}

APFloat sem::castFloat(const APFloat &x, const fltSemantics &to) {
  if (x.isNaN())
    return APFloat::getQNaN(to, x.isNegative());
  APFloat v = x;
  bool lost;
  if (isFp8(to)) {
    // Saturate: clamp to +-largest (infinities included) before rounding.
    APFloat largest = APFloat::getLargest(to);
    largest.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
    APFloat negLargest = -largest;
    if (v.compare(largest) == APFloat::cmpGreaterThan)
      v = largest;
    else if (v.compare(negLargest) == APFloat::cmpLessThan)
      v = negLargest;
  }
  v.convert(to, APFloat::rmNearestTiesToEven, &lost);
  return v;
}

int64_t sem::getIntMin(unsigned bits, bool isUnsigned) {
  if (isUnsigned || bits == 1)
    return 0;
  return bits >= 64 ? std::numeric_limits<int64_t>::min()
                    : -(int64_t(1) << (bits - 1));
}

int64_t sem::getIntMax(unsigned bits, bool isUnsigned) {
  if (bits == 1)
    return 1;
  if (isUnsigned)
    return bits >= 63 ? std::numeric_limits<int64_t>::max()
                      : (int64_t(1) << bits) - 1;
  return bits >= 64 ? std::numeric_limits<int64_t>::max()
                    : (int64_t(1) << (bits - 1)) - 1;
}

int64_t sem::castFloatToInt(double x, unsigned bits, bool isUnsigned) {
  if (std::isnan(x))
    return 0;
  if (bits == 1) // i1: NumPy's bool
    return x != 0;
  double t = std::trunc(x);
  int64_t lo = getIntMin(bits, isUnsigned), hi = getIntMax(bits, isUnsigned);
  // double(hi) may round up to 2^(bits-1); compare against the first value
  // out of range instead.
  if (t <= double(lo))
    return lo;
  if (t >= std::ldexp(1.0, isUnsigned ? bits : bits - 1))
    return hi;
  return int64_t(t);
}

int64_t sem::castIntToInt(int64_t x, unsigned bits, bool isUnsigned) {
  if (bits == 1)
    return x != 0;
  return std::clamp(x, getIntMin(bits, isUnsigned), getIntMax(bits, isUnsigned));
}

int64_t sem::wrapInt(int64_t x, unsigned bits, bool isUnsigned) {
  if (bits >= 64)
    return x;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(x) & mask;
  if (!isUnsigned && (u >> (bits - 1)) & 1)
    u |= ~mask;
  return int64_t(u);
}

double sem::castTo(double x, ScalarType to) {
  if (to.isInteger())
    return double(castFloatToInt(x, to.intBits, to.isUnsigned));
  if (to.flt == &APFloat::IEEEdouble())
    return x;
  return toDouble(castFloat(APFloat(x), *to.flt));
}

bool sem::isDenormal(double x, const fltSemantics &sem) {
  return x != 0 && std::isfinite(x) && std::fabs(x) < getSmallestNormal(sem);
}

double sem::flushDenormal(double x, const fltSemantics &sem) {
  return isDenormal(x, sem) ? std::copysign(0.0, x) : x;
}

bool sem::mmaFlushesDenormals(const ChipInfo &chip, ScalarKind lhs) {
  return chip.mmaFlushesHalfDenormals &&
         (lhs == ScalarKind::F16 || lhs == ScalarKind::BF16);
}

//===----------------------------------------------------------------------===//
// fp8 codecs
//===----------------------------------------------------------------------===//

double sem::decodeFp8(uint8_t bits, const fltSemantics &sem) {
  APFloat f(sem, APInt(8, bits));
  if (f.isNaN())
    return std::copysign(std::numeric_limits<double>::quiet_NaN(),
                         f.isNegative() ? -1.0 : 1.0);
  return toDouble(f);
}

uint8_t sem::encodeFp8(double x, const fltSemantics &sem, bool saturate) {
  bool fnuz = &sem == &APFloat::Float8E4M3FNUZ() ||
              &sem == &APFloat::Float8E5M2FNUZ();
  if (std::isnan(x)) {
    if (fnuz)
      return 0x80;
    uint8_t sign = std::signbit(x) ? 0x80 : 0;
    return &sem == &APFloat::Float8E5M2() ? uint8_t(sign | 0x7e)
                                          : uint8_t(sign | 0x7f);
  }
  APFloat v = saturate ? castFloat(APFloat(x), sem) : APFloat(x);
  if (!saturate) {
    bool lost;
    // Round to nearest even; APFloat overflows to NaN where the format has
    // no infinity, to infinity otherwise, as the hardware does.
    v.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    if (v.isNaN())
      return encodeFp8(v.isNegative() ? -NAN : NAN, sem, saturate);
  }
  return uint8_t(v.bitcastToAPInt().getZExtValue());
}

uint64_t sem::encodeBits(double x, ScalarType type) {
  if (type.isInteger())
    return uint64_t(int64_t(x)) &
           (type.intBits >= 64 ? ~uint64_t(0)
                               : (uint64_t(1) << type.intBits) - 1);
  if (type.isFp8())
    return encodeFp8(x, *type.flt, /*saturate=*/true);
  if (type.flt == &APFloat::IEEEdouble())
    return llvm::bit_cast<uint64_t>(x);
  if (type.flt == &APFloat::IEEEsingle())
    return llvm::bit_cast<uint32_t>(float(x));
  APFloat f(x);
  bool lost;
  f.convert(*type.flt, APFloat::rmNearestTiesToEven, &lost);
  return f.bitcastToAPInt().getZExtValue();
}

double sem::decodeBits(uint64_t bits, ScalarType type) {
  if (type.isInteger()) {
    if (type.isUnsigned || type.intBits == 1)
      return double(bits);
    return double(wrapInt(int64_t(bits), type.intBits));
  }
  if (type.flt == &APFloat::IEEEdouble())
    return llvm::bit_cast<double>(bits);
  if (type.flt == &APFloat::IEEEsingle())
    return llvm::bit_cast<float>(uint32_t(bits));
  if (type.isFp8())
    return decodeFp8(uint8_t(bits), *type.flt);
  APFloat f(*type.flt, APInt(type.getBitWidth(), bits));
  if (f.isNaN())
    return std::copysign(std::numeric_limits<double>::quiet_NaN(),
                         f.isNegative() ? -1.0 : 1.0);
  return toDouble(f);
}

//===----------------------------------------------------------------------===//
// Elementwise operations
//===----------------------------------------------------------------------===//

StringRef sem::getElementwiseOpName(ElementwiseOp op) {
  switch (op) {
  case ElementwiseOp::Add:
    return "add";
  case ElementwiseOp::Sub:
    return "sub";
  case ElementwiseOp::Mul:
    return "mul";
  case ElementwiseOp::Div:
    return "div";
  case ElementwiseOp::Max:
    return "max";
  case ElementwiseOp::Min:
    return "min";
  case ElementwiseOp::Pow:
    return "pow";
  case ElementwiseOp::Relu:
    return "relu";
  case ElementwiseOp::Neg:
    return "neg";
  case ElementwiseOp::Abs:
    return "abs";
  case ElementwiseOp::Exp:
    return "exp";
  case ElementwiseOp::Sqrt:
    return "sqrt";
  case ElementwiseOp::Tanh:
    return "tanh";
  case ElementwiseOp::Erf:
    return "erf";
  case ElementwiseOp::Sigmoid:
    return "sigmoid";
  case ElementwiseOp::HardSigmoid:
    return "hardsigmoid";
  case ElementwiseOp::HardSwish:
    return "hardswish";
  case ElementwiseOp::LeakyRelu:
    return "leaky_relu";
  case ElementwiseOp::Log:
    return "log";
  case ElementwiseOp::Floor:
    return "floor";
  case ElementwiseOp::Ceil:
    return "ceil";
  case ElementwiseOp::Round:
    return "round";
  case ElementwiseOp::Clip:
    return "clip";
  case ElementwiseOp::Gelu:
  case ElementwiseOp::GeluTanh:
    return "gelu";
  case ElementwiseOp::Cast:
    return "cast";
  case ElementwiseOp::Equal:
    return "equal";
  case ElementwiseOp::Less:
    return "less";
  case ElementwiseOp::LessEqual:
    return "less_equal";
  case ElementwiseOp::Greater:
    return "greater";
  case ElementwiseOp::GreaterEqual:
    return "greater_equal";
  case ElementwiseOp::And:
    return "and";
  case ElementwiseOp::Or:
    return "or";
  case ElementwiseOp::Xor:
    return "xor";
  case ElementwiseOp::Not:
    return "not";
  case ElementwiseOp::Select:
    return "select";
  }
  return "";
}

std::optional<ElementwiseOp> sem::lookupElementwiseOp(StringRef name,
                                                      bool tanhApproximation) {
  if (name == "gelu")
    return tanhApproximation ? ElementwiseOp::GeluTanh : ElementwiseOp::Gelu;
  return StringSwitch<std::optional<ElementwiseOp>>(name)
      .Case("add", ElementwiseOp::Add)
      .Case("sub", ElementwiseOp::Sub)
      .Case("mul", ElementwiseOp::Mul)
      .Case("div", ElementwiseOp::Div)
      .Case("max", ElementwiseOp::Max)
      .Case("min", ElementwiseOp::Min)
      .Case("pow", ElementwiseOp::Pow)
      .Case("relu", ElementwiseOp::Relu)
      .Case("neg", ElementwiseOp::Neg)
      .Case("abs", ElementwiseOp::Abs)
      .Case("exp", ElementwiseOp::Exp)
      .Case("sqrt", ElementwiseOp::Sqrt)
      .Case("tanh", ElementwiseOp::Tanh)
      .Case("erf", ElementwiseOp::Erf)
      .Case("sigmoid", ElementwiseOp::Sigmoid)
      .Case("hardsigmoid", ElementwiseOp::HardSigmoid)
      .Case("hardswish", ElementwiseOp::HardSwish)
      .Case("leaky_relu", ElementwiseOp::LeakyRelu)
      .Case("log", ElementwiseOp::Log)
      .Case("floor", ElementwiseOp::Floor)
      .Case("ceil", ElementwiseOp::Ceil)
      .Case("round", ElementwiseOp::Round)
      .Case("clip", ElementwiseOp::Clip)
      .Case("cast", ElementwiseOp::Cast)
      .Case("equal", ElementwiseOp::Equal)
      .Case("less", ElementwiseOp::Less)
      .Case("less_equal", ElementwiseOp::LessEqual)
      .Case("greater", ElementwiseOp::Greater)
      .Case("greater_equal", ElementwiseOp::GreaterEqual)
      .Case("and", ElementwiseOp::And)
      .Case("or", ElementwiseOp::Or)
      .Case("xor", ElementwiseOp::Xor)
      .Case("not", ElementwiseOp::Not)
      .Case("select", ElementwiseOp::Select)
      .Default(std::nullopt);
}

unsigned sem::getNumOperands(ElementwiseOp op) {
  switch (op) {
  case ElementwiseOp::Add:
  case ElementwiseOp::Sub:
  case ElementwiseOp::Mul:
  case ElementwiseOp::Div:
  case ElementwiseOp::Max:
  case ElementwiseOp::Min:
  case ElementwiseOp::Pow:
  case ElementwiseOp::Equal:
  case ElementwiseOp::Less:
  case ElementwiseOp::LessEqual:
  case ElementwiseOp::Greater:
  case ElementwiseOp::GreaterEqual:
  case ElementwiseOp::And:
  case ElementwiseOp::Or:
  case ElementwiseOp::Xor:
    return 2;
  case ElementwiseOp::Select:
    return 3;
  default:
    return 1;
  }
}

bool sem::isCorrectlyRounded(ElementwiseOp op) {
  switch (op) {
  case ElementwiseOp::Pow:
  case ElementwiseOp::Exp:
  case ElementwiseOp::Log:
  case ElementwiseOp::Tanh:
  case ElementwiseOp::Erf:
  case ElementwiseOp::Sigmoid:
  case ElementwiseOp::Gelu:
  case ElementwiseOp::GeluTanh:
    return false;
  default:
    return true;
  }
}

unsigned sem::getUlpBound(ElementwiseOp op, ScalarType result) {
  if (isCorrectlyRounded(op))
    return 0;
  // Narrow results: the f32 error is far below their ulp, so only a value
  // next to a rounding boundary can land one ulp away.
  if (result.isFloat() && result.getBitWidth() < 32)
    return 1;
  switch (op) {
  case ElementwiseOp::Exp:
  case ElementwiseOp::Log:
    return 2;
  case ElementwiseOp::Sigmoid:
    return 4;
  case ElementwiseOp::Tanh:
  case ElementwiseOp::Erf:
  case ElementwiseOp::Gelu:
  case ElementwiseOp::GeluTanh:
    return 8;
  case ElementwiseOp::Pow:
    // exp2(y log2 |x|) in f32: the rounding of the product is magnified by
    // |y log2 |x||, at most ~150 before the result overflows or underflows.
    return 128;
  default:
    return 0;
  }
}

namespace {
/// max/min with NaN propagation and -0 < +0 (arith.maximumf/minimumf).
double maximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<double>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
double minimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<double>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
/// x rounded to an integral value in `mode` (signed zeros, infinities and
/// NaN as IEEE 754's roundToIntegral).
double roundToIntegral(double x, llvm::RoundingMode mode) {
  APFloat f(x);
  f.roundToIntegral(mode);
  return f.convertToDouble();
}
} // namespace

std::optional<int64_t> sem::divInt(int64_t x, int64_t y, ScalarType result) {
  if (y == 0)
    return std::nullopt;
  // INT64_MIN / -1 overflows in C++; its wrapped quotient is INT64_MIN.
  if (y == -1)
    return wrapInt(int64_t(0 - uint64_t(x)), result.intBits, result.isUnsigned);
  return wrapInt(x / y, result.intBits, result.isUnsigned);
}

std::optional<int64_t> sem::remInt(int64_t x, int64_t y, bool signOfDividend,
                                   ScalarType result) {
  if (y == 0)
    return std::nullopt;
  // C++'s % truncates: the remainder has the dividend's sign (and
  // INT64_MIN % -1, which overflows in C++, is 0).
  int64_t r = y == -1 ? 0 : x % y;
  if (!signOfDividend && r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return wrapInt(r, result.intBits, result.isUnsigned);
}

std::optional<int64_t> sem::evaluateInt(ElementwiseOp op, int64_t x,
                                        int64_t y, ScalarType result) {
  int64_t r;
  switch (op) {
  case ElementwiseOp::Add:
    r = int64_t(uint64_t(x) + uint64_t(y));
    break;
  case ElementwiseOp::Sub:
    r = int64_t(uint64_t(x) - uint64_t(y));
    break;
  case ElementwiseOp::Mul:
    r = int64_t(uint64_t(x) * uint64_t(y));
    break;
  case ElementwiseOp::Div:
    return divInt(x, y, result);
  case ElementwiseOp::Max:
    r = result.isUnsigned ? int64_t(std::max(uint64_t(x), uint64_t(y)))
                          : std::max(x, y);
    break;
  case ElementwiseOp::Min:
    r = result.isUnsigned ? int64_t(std::min(uint64_t(x), uint64_t(y)))
                          : std::min(x, y);
    break;
  default:
    return std::nullopt;
  }
  return wrapInt(r, result.intBits, result.isUnsigned);
}

/// The two-operand predicates on values of one ordered type (doubles, or
/// exact integers); nullopt for the other ops.
template <typename T>
static std::optional<bool> predicate(ElementwiseOp op, T x, T y) {
  switch (op) {
  case ElementwiseOp::Equal:
    return x == y;
  case ElementwiseOp::Less:
    return x < y;
  case ElementwiseOp::LessEqual:
    return x <= y;
  case ElementwiseOp::Greater:
    return x > y;
  case ElementwiseOp::GreaterEqual:
    return x >= y;
  case ElementwiseOp::And:
    return x != 0 && y != 0;
  case ElementwiseOp::Or:
    return x != 0 || y != 0;
  case ElementwiseOp::Xor:
    return (x != 0) != (y != 0);
  default:
    return std::nullopt;
  }
}

std::optional<bool> sem::evaluateIntPredicate(ElementwiseOp op, int64_t x,
                                              int64_t y, bool isUnsigned) {
  return isUnsigned ? predicate<uint64_t>(op, x, y) : predicate(op, x, y);
}

double sem::evaluate(ElementwiseOp op, ArrayRef<double> operands,
                     ScalarType result, const OpParams &params) {
  double x = operands.empty() ? 0 : operands[0];
  double y = operands.size() > 1 ? operands[1] : 0;
  // The operands are exact values of their (common) type: the relations
  // need no rounding, and NaN compares false.
  if (std::optional<bool> p = predicate(op, x, y))
    return *p;
  switch (op) {
  case ElementwiseOp::Cast:
    return castTo(x, result);
  case ElementwiseOp::Not:
    return x == 0;
  case ElementwiseOp::Select:
    return castTo(x != 0 ? y : operands[2], result);
  default:
    break;
  }

  if (result.isInteger()) {
    if (std::optional<int64_t> r =
            evaluateInt(op, int64_t(x), int64_t(y), result))
      return double(*r);
    // The dialect allows only the ops above on integers (and a zero
    // divisor has no integer result).
    return castTo(evaluate(op, operands, ScalarType::getF64(), params),
                  result);
  }

  // Each step rounds to the compute type, in the kernels' order.
  ScalarType compute = getComputeType(result);
  auto rc = [&](double v) { return castTo(v, compute); };
  auto cst = [&](double v) { return rc(v); };
  x = rc(x), y = rc(y);
  double r = 0;
  switch (op) {
  case ElementwiseOp::Add:
    r = rc(x + y);
    break;
  case ElementwiseOp::Sub:
    r = rc(x - y);
    break;
  case ElementwiseOp::Mul:
    r = rc(x * y);
    break;
  case ElementwiseOp::Div:
    r = rc(x / y);
    break;
  case ElementwiseOp::Max:
    r = maximum(x, y);
    break;
  case ElementwiseOp::Min:
    r = minimum(x, y);
    break;
  case ElementwiseOp::Pow:
    r = rc(std::pow(x, y));
    break;
  case ElementwiseOp::Relu:
    r = maximum(x, 0.0);
    break;
  case ElementwiseOp::Neg:
    r = -x;
    break;
  case ElementwiseOp::Abs:
    r = std::fabs(x);
    break;
  case ElementwiseOp::Exp:
    r = rc(std::exp(x));
    break;
  case ElementwiseOp::Sqrt:
    r = rc(std::sqrt(x));
    break;
  case ElementwiseOp::Tanh:
    r = rc(std::tanh(x));
    break;
  case ElementwiseOp::Erf:
    r = rc(std::erf(x));
    break;
  case ElementwiseOp::Sigmoid:
    r = rc(1.0 / rc(1.0 + rc(std::exp(-x))));
    break;
  case ElementwiseOp::HardSigmoid: {
    double v = rc(rc(cst(params.alpha) * x) + cst(params.beta));
    r = maximum(0.0, minimum(1.0, v));
    break;
  }
  case ElementwiseOp::HardSwish: {
    double v = rc(x + 3.0);
    v = maximum(0.0, minimum(6.0, v));
    r = rc(rc(x * v) / 6.0);
    break;
  }
  case ElementwiseOp::LeakyRelu:
    // NaN is not below zero and passes through, as does -0.
    r = x < 0 ? rc(cst(params.alpha) * x) : x;
    break;
  case ElementwiseOp::Log:
    r = rc(std::log(x));
    break;
  // Exact: the integral double of a narrower float's value is a value of
  // that type too. APFloat, not the host's rounding mode, decides ties.
  case ElementwiseOp::Floor:
    r = roundToIntegral(x, llvm::RoundingMode::TowardNegative);
    break;
  case ElementwiseOp::Ceil:
    r = roundToIntegral(x, llvm::RoundingMode::TowardPositive);
    break;
  case ElementwiseOp::Round:
    r = roundToIntegral(x, llvm::RoundingMode::NearestTiesToEven);
    break;
  case ElementwiseOp::Clip:
    // An absent (infinite) bound changes nothing: max(x, -inf) = x.
    r = minimum(maximum(x, cst(params.lo)), cst(params.hi));
    break;
  case ElementwiseOp::Gelu: {
    double half = rc(0.5 * x);
    double inner = rc(std::erf(rc(cst(0.7071067811865476) * x)));
    r = rc(half * rc(1.0 + inner));
    break;
  }
  case ElementwiseOp::GeluTanh: {
    double half = rc(0.5 * x);
    double x3 = rc(x * rc(x * x));
    double u = rc(x + rc(cst(0.044715) * x3));
    double inner = rc(std::tanh(rc(cst(0.7978845608028654) * u)));
    r = rc(half * rc(1.0 + inner));
    break;
  }
  case ElementwiseOp::Cast:
  case ElementwiseOp::Equal:
  case ElementwiseOp::Less:
  case ElementwiseOp::LessEqual:
  case ElementwiseOp::Greater:
  case ElementwiseOp::GreaterEqual:
  case ElementwiseOp::And:
  case ElementwiseOp::Or:
  case ElementwiseOp::Xor:
  case ElementwiseOp::Not:
  case ElementwiseOp::Select:
    break; // evaluated above
  }
  return castTo(r, result);
}

APFloat sem::evaluate(ElementwiseOp op, ArrayRef<APFloat> operands,
                      const fltSemantics &result, const OpParams &params) {
  SmallVector<double, 2> values;
  for (const APFloat &a : operands)
    values.push_back(a.isNaN() ? (a.isNegative() ? -NAN : NAN) : toDouble(a));
  double r = evaluate(op, values, ScalarType::getFloat(result), params);
  return castFloat(APFloat(r), result);
}
