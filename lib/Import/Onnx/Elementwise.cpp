//===- Elementwise.cpp - ONNX Elementwise converters ----------------------===//
//
// Elementwise ops: unary math, binary arithmetic with NumPy broadcasting
// (constant operands folded), Clip, Cast, Identity and Dropout.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

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
    FailureOr<Value> r = binaryByName(op, result, rhs);
    if (failed(r))
      return failure();
    result = *r;
  }
  return setOutput(0, result);
}

LogicalResult Importer::importClip() {
  if (failed(expectInputs(1, 3)) || failed(checkAttributes({"min", "max"})))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "input")))
    return failure();
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
  StringRef op = node->op_type();
  const onnx::NodeProto &n = *node;
  if (failed(expectInputs(1, op == "Dropout" ? 3 : 1)))
    return failure();
  if (op == "Dropout") {
    if (failed(checkAttributes({"seed", "ratio"})))
      return failure();
    if (n.output_size() > 1 && !n.output(1).empty())
      return error() << "the mask output is not supported (inference only)";
    if (Value training = input(2)) {
      DenseElementsAttr attr;
      if (!matchPattern(training, m_Constant(&attr)) ||
          attr.getValues<bool>()[0])
        return error() << "training_mode must be a constant false";
    }
  }
  return setOutput(0, input(0));
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
  registry.add("Reciprocal", 1, kNewestOpset, importReciprocal);
  registry.add("LeakyRelu", 1, kNewestOpset,
               [](Importer &im) { return im.importLeakyRelu(); });
  registry.add("HardSwish", 1, kNewestOpset, importUnary<HardSwishOp>);
  registry.add("HardSigmoid", 1, kNewestOpset,
               [](Importer &im) { return im.importHardSigmoid(); });
  registry.add("Add", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Sub", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Mul", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Div", 1, kNewestOpset,
               [](Importer &im) { return im.importBinary(); });
  registry.add("Pow", 1, kNewestOpset,
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
               [](Importer &im) { return im.importIdentity(); });
}
