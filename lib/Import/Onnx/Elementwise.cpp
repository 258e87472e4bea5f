//===- Elementwise.cpp - ONNX Elementwise converters ----------------------===//
//
// Elementwise ops: unary math, binary arithmetic with NumPy broadcasting
// (constant operands folded), Clip, Cast, Identity and Dropout.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"
#include "crest/Semantics/Scalar.h"

using namespace crest;
using namespace crest::onnx_import;

/// An elementwise op of one float input and no attributes.
template <typename OpTy>
static LogicalResult importUnary(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  return im.setOutput(0, OpTy::create(im.builder, im.loc,
                                      Importer::tensorType(im.input(0)),
                                      im.input(0)));
}

LogicalResult Importer::importHardSigmoid() {
  if (failed(expectInputs(1, 1)) ||
      failed(checkAttributes({"alpha", "beta"})) ||
      failed(expectFloat(input(0), "input")))
    return failure();
  float alpha = floatAttr("alpha", 0.2f), beta = floatAttr("beta", 0.5f);
  if (alpha == 0.0f || !std::isfinite(alpha) || !std::isfinite(beta))
    return error() << "alpha must be finite and non-zero, beta finite";
  return setOutput(0, HardSigmoidOp::create(
                          builder, loc, tensorType(input(0)), input(0),
                          builder.getF32FloatAttr(alpha),
                          builder.getF32FloatAttr(beta)));
}

/// Reciprocal(x) = 1 / x: one crest.div of a rank-0 one (correctly
/// rounded, the scalar core's div).
static LogicalResult importReciprocal(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  Type element = Importer::tensorType(im.input(0)).getElementType();
  Value one = im.materialize(DenseElementsAttr::get(
      RankedTensorType::get({}, element), FloatAttr::get(element, 1.0)));
  FailureOr<Value> r = im.binaryByName("Div", one, im.input(0));
  if (failed(r))
    return failure();
  return im.setOutput(0, *r);
}

namespace {
/// Builds an activation ONNX defines by a formula as that formula of crest
/// ops, each with its own semantics (docs/Semantics.md), in the input's
/// element type.
class Formula {
public:
  Formula(Importer &im, Value x)
      : im(im), element(Importer::tensorType(x).getElementType()) {}

  /// A rank-0 constant, broadcast by the binary ops.
  Value constant(double v) {
    return im.materialize(DenseElementsAttr::get(
        RankedTensorType::get({}, element), FloatAttr::get(element, v)));
  }
  template <typename OpTy> Value unary(Value x) {
    return OpTy::create(im.builder, im.loc, Importer::tensorType(x), x);
  }
  /// `op` (Add, Sub, Mul, Div, Max, Min) with ONNX broadcasting; a failure
  /// has been diagnosed.
  Value binary(StringRef op, Value a, Value b) {
    if (failed || !a || !b)
      return {};
    FailureOr<Value> r = im.binaryByName(op, a, b);
    if (::mlir::failed(r)) {
      failed = true;
      return {};
    }
    return *r;
  }
  /// alpha * (exp(min(x, 0) / scale) - 1): the negative branch of Elu,
  /// Selu and Celu, 0 for x >= 0 (and NaN for NaN, which min propagates).
  Value negativeExpBranch(Value x, double alpha, double scale = 1) {
    Value neg = binary("Min", x, constant(0));
    if (scale != 1)
      neg = binary("Div", neg, constant(scale));
    if (!neg)
      return {};
    Value em1 = binary("Sub", unary<ExpOp>(neg), constant(1));
    return alpha == 1 ? em1 : binary("Mul", constant(alpha), em1);
  }
  LogicalResult finish(Value result) {
    if (failed || !result)
      return failure();
    return im.setOutput(0, result);
  }

  bool failed = false;

private:
  Importer &im;
  Type element;
};
} // namespace

/// Elu(x) = x for x >= 0, alpha (e^x - 1) below: max(x, 0) plus the
/// negative branch. e^x - 1 is exp's result minus one, so for small
/// negative x the absolute error is about one ulp of 1 (6e-8 in f32).
static LogicalResult importElu(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({"alpha"})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  double alpha = im.floatAttr("alpha", 1.0f);
  if (!std::isfinite(alpha))
    return im.error() << "alpha must be finite";
  Value x = im.input(0);
  Formula f(im, x);
  return f.finish(f.binary("Add", f.binary("Max", x, f.constant(0)),
                           f.negativeExpBranch(x, alpha)));
}

/// Selu(x) = gamma * Elu_alpha(x), with ONNX's default alpha and gamma.
static LogicalResult importSelu(Importer &im) {
  if (failed(im.expectInputs(1, 1)) ||
      failed(im.checkAttributes({"alpha", "gamma"})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  double alpha = im.floatAttr("alpha", 1.67326319217681884765625f);
  double gamma = im.floatAttr("gamma", 1.05070102214813232421875f);
  if (!std::isfinite(alpha) || !std::isfinite(gamma))
    return im.error() << "alpha and gamma must be finite";
  Value x = im.input(0);
  Formula f(im, x);
  Value elu = f.binary("Add", f.binary("Max", x, f.constant(0)),
                       f.negativeExpBranch(x, alpha));
  return f.finish(f.binary("Mul", f.constant(gamma), elu));
}

/// Celu(x) = max(0, x) + min(0, alpha (e^(x / alpha) - 1)); the second term
/// is alpha (e^(min(x, 0) / alpha) - 1) for alpha > 0.
static LogicalResult importCelu(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({"alpha"})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  double alpha = im.floatAttr("alpha", 1.0f);
  if (!(alpha > 0) || !std::isfinite(alpha))
    return im.error() << "alpha must be positive and finite";
  Value x = im.input(0);
  Formula f(im, x);
  return f.finish(f.binary("Add", f.binary("Max", x, f.constant(0)),
                           f.negativeExpBranch(x, alpha, alpha)));
}

/// Softsign(x) = x / (1 + |x|).
static LogicalResult importSoftsign(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  Value x = im.input(0);
  Formula f(im, x);
  return f.finish(f.binary(
      "Div", x, f.binary("Add", f.constant(1), f.unary<AbsOp>(x))));
}

/// Softplus(x) = log(1 + e^x), as max(x, 0) + log(1 + e^-|x|), which does
/// not overflow for large x. Below about -16.6 (f32), 1 + e^x rounds to 1
/// and the result is 0 instead of e^x (an absolute error under 6e-8).
static LogicalResult importSoftplus(Importer &im) {
  if (failed(im.expectInputs(1, 1)) || failed(im.checkAttributes({})) ||
      failed(im.expectFloat(im.input(0), "input")))
    return failure();
  Value x = im.input(0);
  Formula f(im, x);
  Value tail = f.unary<ExpOp>(f.unary<NegOp>(f.unary<AbsOp>(x)));
  Value log1p = f.binary("Add", f.constant(1), tail);
  if (!log1p)
    return failure();
  return f.finish(f.binary("Add", f.binary("Max", x, f.constant(0)),
                           f.unary<LogOp>(log1p)));
}

/// PRelu(x, slope) = x for x >= 0, slope * x below, with the slope
/// broadcast to x: max(x, 0) + slope * min(x, 0). Each branch is exact or
/// one rounded product; a NaN input stays NaN. Before opset 7 a 1-D slope
/// of x's channel count applies per channel (axis 1), as PyTorch's exports
/// of that time use it.
static LogicalResult importPRelu(Importer &im) {
  if (failed(im.expectInputs(2, 2)) || failed(im.checkAttributes({})) ||
      failed(im.expectFloat(im.input(0), "input")) ||
      failed(im.expectFloat(im.input(1), "slope")))
    return failure();
  Value x = im.input(0), slope = im.input(1);
  ArrayRef<int64_t> xShape = Importer::tensorType(x).getShape();
  ArrayRef<int64_t> slopeShape = Importer::tensorType(slope).getShape();
  if (im.opset < 7 && xShape.size() >= 2 && slopeShape.size() == 1 &&
      slopeShape[0] == xShape[1] && slopeShape[0] != 1) {
    SmallVector<int64_t> perChannel(xShape.size() - 1, 1);
    perChannel[0] = slopeShape[0];
    slope = im.reshape(slope, perChannel);
  }
  Formula f(im, x);
  Value negative = f.binary("Mul", slope, f.binary("Min", x, f.constant(0)));
  return f.finish(f.binary("Add", f.binary("Max", x, f.constant(0)), negative));
}

LogicalResult Importer::importLeakyRelu() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({"alpha"})) ||
      failed(expectFloat(input(0), "input")))
    return failure();
  float alpha = floatAttr("alpha", 0.01f);
  if (!std::isfinite(alpha))
    return error() << "alpha must be finite";
  return setOutput(0, LeakyReluOp::create(builder, loc, tensorType(input(0)),
                                          input(0),
                                          builder.getF32FloatAttr(alpha)));
}

/// Pow with an integer base: the exponent must be a constant of
/// non-negative integral values (ONNX leaves negative ones to the
/// implementation). Square-and-multiply on the base's integer type
/// (wrapping as crest.mul does): per bit b of the exponents, result =
/// select(bit b set, result * base^(2^b), result). A constant base folds.
FailureOr<Value> Importer::integerPow(Value x, Value y) {
  DenseElementsAttr cy = getConstant(y);
  if (!cy)
    return error() << "the exponent (input #1) must be a constant for an "
                      "integer base (Pow of integers is square-and-multiply "
                      "on constant exponents)";
  SmallVector<int64_t> exponents;
  if (isa<FloatType>(cy.getElementType())) {
    for (APFloat v : cy.getValues<APFloat>()) {
      double d = v.convertToDouble();
      if (!(d >= 0) || d != std::floor(d) || d > 1e18)
        return error() << "exponent " << d
                       << " is not a non-negative integer (an integer base "
                          "takes integral exponents)";
      exponents.push_back(int64_t(d));
    }
  } else {
    exponents = getInts(cy);
  }
  for (int64_t e : exponents)
    if (e < 0)
      return error() << "exponent " << e
                     << " is negative (an integer base takes non-negative "
                        "exponents)";
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(x, y);
  if (failed(shape))
    return failure();
  Type element = tensorType(x).getElementType();
  auto type = RankedTensorType::get(*shape, element);
  SmallVector<int64_t> ei = broadcastIndices(*shape, tensorType(y).getShape());
  int64_t maxExponent = *llvm::max_element(exponents);
  unsigned bits = maxExponent ? llvm::Log2_64(maxExponent) + 1 : 0;
  if (DenseElementsAttr cx = getConstant(x);
      cx && type.getNumElements() <= kMaxFoldElements) {
    sem::ScalarType result = sem::ScalarType::getInt(
        element.getIntOrFloatBitWidth(), element.isUnsignedInteger());
    SmallVector<int64_t> xi = broadcastIndices(*shape, tensorType(x).getShape());
    SmallVector<int64_t> xs = getInts(cx), out;
    for (size_t i = 0; i < ei.size(); ++i) {
      int64_t r = 1, base = xs[xi[i]];
      for (int64_t e = exponents[ei[i]]; e; e >>= 1) {
        if (e & 1)
          r = *sem::evaluateInt(sem::ElementwiseOp::Mul, r, base, result);
        base = *sem::evaluateInt(sem::ElementwiseOp::Mul, base, base, result);
      }
      out.push_back(r);
    }
    return materialize(getIntsAttr(type, out));
  }
  Value result = materialize(
      DenseElementsAttr::get(type, builder.getIntegerAttr(element, 1)));
  Value base = x;
  auto maskType = RankedTensorType::get(tensorType(y).getShape(),
                                        builder.getI1Type());
  for (unsigned b = 0; b < bits; ++b) {
    SmallVector<bool> mask;
    for (int64_t e : exponents)
      mask.push_back((e >> b) & 1);
    if (llvm::is_contained(mask, true)) {
      FailureOr<Value> product = binary<MulOp>(result, base);
      if (failed(product))
        return failure();
      result = llvm::all_of(mask, [](bool m) { return m; })
                   ? *product
                   : Value(SelectOp::create(
                         builder, loc, type,
                         materialize(DenseElementsAttr::get(
                             maskType, ArrayRef<bool>(mask))),
                         *product, result));
    }
    if (b + 1 < bits) {
      FailureOr<Value> squared = binary<MulOp>(base, base);
      if (failed(squared))
        return failure();
      base = *squared;
    }
  }
  return result;
}

LogicalResult Importer::importBinary() {
  StringRef op = node->op_type();
  bool variadic = op == "Max" || op == "Min";
  if (failed(expectInputs(variadic ? 1 : 2, variadic ? 64 : 2)) ||
      failed(checkAttributes({})))
    return failure();
  Value result = input(0);
  for (unsigned i = 1; i < inputs.size(); ++i) {
    Value rhs = input(i);
    // Pow's exponent may have another type: bring it to the base's.
    if (op == "Pow" && isFloat(result))
      rhs = convert(rhs, tensorType(result).getElementType());
    FailureOr<Value> r = op == "Pow" && !isFloat(result)
                             ? integerPow(result, rhs)
                             : binaryByName(op, result, rhs);
    if (failed(r))
      return failure();
    result = *r;
  }
  return setOutput(0, result);
}

/// Add, Sub, Mul, Div and Pow before opset 7: B broadcasts to A only with
/// broadcast = 1, its dimensions matching A's from `axis` on (default: A's
/// trailing ones) or being 1; without it the shapes must be equal. B is
/// reshaped so that NumPy broadcasting aligns it there. (consumed_inputs,
/// opset 1's in-place hint, changes nothing.)
LogicalResult Importer::importLegacyBinary() {
  if (failed(expectInputs(2, 2)) ||
      failed(checkAttributes({"axis", "broadcast", "consumed_inputs"})))
    return failure();
  StringRef op = node->op_type();
  Value a = input(0), b = input(1);
  ArrayRef<int64_t> as = tensorType(a).getShape(), bs = tensorType(b).getShape();
  if (!intAttr("broadcast", 0)) {
    if (as != bs)
      return error() << "A " << formatShape(as) << " and B " << formatShape(bs)
                     << " differ and broadcast = 0 (before opset 7 the "
                        "shapes must be equal unless broadcast = 1)";
  } else {
    int64_t ra = as.size(), rb = bs.size();
    if (rb > ra)
      return error() << "B " << formatShape(bs)
                     << " has more dimensions than A " << formatShape(as);
    int64_t axis = ra - rb;
    if (attribute("axis", onnx::AttributeProto::INT)) {
      FailureOr<int64_t> given = normalizeAxis(intAttr("axis", 0), ra);
      if (failed(given))
        return failure();
      axis = *given;
    }
    if (axis + rb > ra)
      return error() << "B " << formatShape(bs) << " at axis " << axis
                     << " runs past A " << formatShape(as);
    for (int64_t i = 0; i < rb; ++i)
      if (bs[i] != as[axis + i] && bs[i] != 1)
        return error() << "B " << formatShape(bs) << " does not match A "
                       << formatShape(as) << " from axis " << axis;
    SmallVector<int64_t> aligned(bs);
    aligned.append(ra - axis - rb, 1);
    b = reshape(b, aligned);
  }
  if (op == "Pow" && isFloat(a))
    b = convert(b, tensorType(a).getElementType());
  FailureOr<Value> r = binaryByName(op, a, b);
  if (failed(r))
    return failure();
  return setOutput(0, *r);
}

LogicalResult Importer::importClip() {
  if (failed(expectInputs(1, 3)) || failed(checkAttributes({"min", "max"})))
    return failure();
  Value x = input(0);
  if (!isFloat(x))
    return importIntegerClip();
  std::optional<float> lo, hi;
  if (const onnx::AttributeProto *a = attribute("min", onnx::AttributeProto::FLOAT))
    lo = a->f();
  if (const onnx::AttributeProto *a = attribute("max", onnx::AttributeProto::FLOAT))
    hi = a->f();
  for (unsigned i = 1; i <= 2; ++i) {
    if (!input(i))
      continue;
    DenseElementsAttr attr;
    if (!matchPattern(input(i), m_Constant(&attr)) || attr.getNumElements() != 1 ||
        !isa<FloatType>(attr.getElementType()))
      return error() << (i == 1 ? "min" : "max")
                     << " must be a constant float scalar";
    float v = (*attr.getValues<APFloat>().begin()).convertToDouble();
    (i == 1 ? lo : hi) = v;
  }
  if (!lo && !hi)
    return setOutput(0, x);
  if (lo && hi && *lo > *hi)
    return error() << "min " << *lo << " is greater than max " << *hi;
  Value result = ClipOp::create(builder, loc, tensorType(x), x,
                                lo ? builder.getF32FloatAttr(*lo) : FloatAttr(),
                                hi ? builder.getF32FloatAttr(*hi) : FloatAttr());
  return setOutput(0, result);
}

/// Clip of an integer tensor (opset 12 on): max(x, min) then min(., max)
/// with crest's integer max and min, the bounds constant scalars of x's
/// type (an absent one is the type's own bound: no op).
LogicalResult Importer::importIntegerClip() {
  Value x = input(0);
  Type element = tensorType(x).getElementType();
  if (!isa<IntegerType>(element) || element.isInteger(1))
    return error() << "input must be a float or integer tensor, got "
                   << element;
  if (opset < 12)
    return error() << "integer inputs need opset 12 or later (Clip of "
                      "opset "
                   << opset << " takes floats)";
  std::optional<int64_t> bounds[2];
  for (unsigned i = 1; i <= 2; ++i) {
    if (!input(i))
      continue;
    DenseElementsAttr attr = getConstant(input(i));
    if (!attr || attr.getNumElements() != 1 || attr.getElementType() != element)
      return error() << (i == 1 ? "min" : "max")
                     << " must be a constant scalar of the input's type "
                     << element;
    bounds[i - 1] = getInts(attr)[0];
  }
  if (bounds[0] && bounds[1] && *bounds[0] > *bounds[1])
    return error() << "min " << *bounds[0] << " is greater than max "
                   << *bounds[1];
  Value result = x;
  for (unsigned i = 0; i < 2; ++i) {
    if (!bounds[i])
      continue;
    Value bound = input(i + 1);
    if (tensorType(bound).getRank() != 0)
      bound = reshape(bound, {});
    FailureOr<Value> r = i == 0 ? binary<MaxOp>(result, bound)
                                : binary<MinOp>(result, bound);
    if (failed(r))
      return failure();
    result = *r;
  }
  return setOutput(0, result);
}

LogicalResult Importer::importCast() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({"to", "saturate"})))
    return failure();
  FailureOr<Type> to = convertElementType(intAttr("to", 0), "the target type");
  if (failed(to))
    return failure();
  Value x = input(0);
  // Constants convert at import time with crest.cast's rules (shape
  // arithmetic casts int64 to float and back); float to float in convert().
  if (DenseElementsAttr attr = getConstant(x))
    if (DenseElementsAttr folded = foldCast(attr, *to))
      return setOutput(0, materialize(folded));
  return setOutput(0, convert(x, *to));
}

LogicalResult Importer::importIdentity() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({})))
    return failure();
  return setOutput(0, input(0));
}

/// Dropout in inference: the identity, and a mask of ones (bool from opset
/// 10, the input's type before). Training mode (is_test = 0 before opset
/// 7, a true training_mode input from 12) drops elements at random, which
/// Crest cannot reproduce, unless the ratio is 0.
LogicalResult Importer::importDropout() {
  const onnx::NodeProto &n = *node;
  if (failed(expectInputs(1, 3)) ||
      failed(checkAttributes({"seed", "ratio", "is_test"})))
    return failure();
  bool training = opset < 7 && !intAttr("is_test", 0);
  if (Value mode = input(2)) {
    DenseElementsAttr attr = getConstant(mode);
    if (!attr || attr.getNumElements() != 1 ||
        !attr.getElementType().isInteger(1))
      return error() << "training_mode must be a constant bool scalar";
    training = attr.getValues<bool>()[0];
  }
  double ratio = floatAttr("ratio", 0.5f);
  if (Value r = input(1)) {
    DenseElementsAttr attr = getConstant(r);
    if (!attr || attr.getNumElements() != 1 ||
        !isa<FloatType>(attr.getElementType()))
      return error() << "ratio must be a constant float scalar";
    ratio = (*attr.getValues<APFloat>().begin()).convertToDouble();
  }
  if (training && ratio != 0)
    return error() << "training mode with ratio " << ratio
                   << " drops elements at random, which is not supported "
                      "(inference only; a ratio of 0 is the identity)";
  Value x = input(0);
  if (failed(setOutput(0, x)))
    return failure();
  if (n.output_size() < 2 || n.output(1).empty())
    return success();
  RankedTensorType type = tensorType(x);
  Type maskElement = opset >= 10 ? builder.getI1Type() : type.getElementType();
  auto maskType = RankedTensorType::get(type.getShape(), maskElement);
  Attribute one = maskElement.isInteger(1)
                      ? Attribute(builder.getBoolAttr(true))
                      : Attribute(builder.getFloatAttr(maskElement, 1.0));
  return setOutput(1, materialize(DenseElementsAttr::get(maskType, one)));
}

void crest::onnx_import::registerElementwiseConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Relu", 1, kNewestOpset, importUnary<ReluOp>);
  registry.add("Sigmoid", 1, kNewestOpset, importUnary<SigmoidOp>);
  registry.add("Tanh", 1, kNewestOpset, importUnary<TanhOp>);
  registry.add("Erf", 1, kNewestOpset, importUnary<ErfOp>);
  registry.add("Exp", 1, kNewestOpset, importUnary<ExpOp>);
  registry.add("Sqrt", 1, kNewestOpset, importUnary<SqrtOp>);
  registry.add("Neg", 1, kNewestOpset, importUnary<NegOp>);
  registry.add("Abs", 1, kNewestOpset, importUnary<AbsOp>);
  registry.add("Log", 1, kNewestOpset, importUnary<LogOp>);
  registry.add("Floor", 1, kNewestOpset, importUnary<FloorOp>);
  registry.add("Ceil", 1, kNewestOpset, importUnary<CeilOp>);
  registry.add("Round", 11, kNewestOpset, importUnary<RoundOp>);
  registry.add("Reciprocal", 1, kNewestOpset, importReciprocal);
  registry.add("Elu", 1, kNewestOpset, importElu);
  registry.add("Selu", 1, kNewestOpset, importSelu);
  registry.add("Celu", 12, kNewestOpset, importCelu);
  registry.add("Softsign", 1, kNewestOpset, importSoftsign);
  registry.add("Softplus", 1, kNewestOpset, importSoftplus);
  registry.add("PRelu", 1, kNewestOpset, importPRelu);
  registry.add("LeakyRelu", 1, kNewestOpset,
               [](Importer &im) { return im.importLeakyRelu(); });
  registry.add("HardSwish", 1, kNewestOpset, importUnary<HardSwishOp>);
  registry.add("HardSigmoid", 1, kNewestOpset,
               [](Importer &im) { return im.importHardSigmoid(); });
  registry.add("Add", 1, 6,
               [](Importer &im) { return im.importLegacyBinary(); });
  registry.add("Add", 7, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Sub", 1, 6,
               [](Importer &im) { return im.importLegacyBinary(); });
  registry.add("Sub", 7, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Mul", 1, 6,
               [](Importer &im) { return im.importLegacyBinary(); });
  registry.add("Mul", 7, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Div", 1, 6,
               [](Importer &im) { return im.importLegacyBinary(); });
  registry.add("Div", 7, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Pow", 1, 6,
               [](Importer &im) { return im.importLegacyBinary(); });
  registry.add("Pow", 7, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Max", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Min", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Clip", 1, kNewestOpset,
               [](Importer &im) { return im.importClip(); });
  registry.add("Cast", 1, kNewestOpset,
               [](Importer &im) { return im.importCast(); });
  registry.add("Identity", 1, kNewestOpset,
               [](Importer &im) { return im.importIdentity(); });
  registry.add("Dropout", 1, kNewestOpset,
               [](Importer &im) { return im.importDropout(); });
}
