//===- ShapeArithmetic.cpp - ONNX shape arithmetic converters -------------===//
//
// The ops exporters use on int64 shape tensors besides those of the other
// families (Shape, Gather, Slice, Concat, Unsqueeze, Squeeze, Add, Sub,
// Mul, Div, Cast, which fold there; Equal and Where fold in Logic.cpp):
// Mod, ConstantOfShape, Range and Expand. With static shapes their inputs
// are constants and they fold at import time (Fold.cpp); Crest has no
// kernels for them, so a value computed at run time is an error naming the
// node, except Expand, which broadcasts with a multiply by ones (floats) or
// a select (integers and bools).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

/// Checks that two inputs have one element type.
static LogicalResult expectSameElementType(Importer &im, Value a, Value b,
                                           StringRef what) {
  Type at = Importer::tensorType(a).getElementType(),
       bt = Importer::tensorType(b).getElementType();
  if (at != bt)
    return im.error() << what << " have different element types (" << at
                      << " and " << bt << ")";
  return success();
}

/// A result of `shape` must have elements, and at most the fold limit.
static LogicalResult checkFoldedShape(Importer &im, ArrayRef<int64_t> shape) {
  int64_t count = product(shape);
  if (count == 0)
    return im.error() << "the result (" << formatShape(shape)
                      << ") is empty; Crest does not support empty tensors";
  if (count < 0 || count > Importer::kMaxFoldElements)
    return im.error() << "the result (" << formatShape(shape)
                      << ") has more than " << Importer::kMaxFoldElements
                      << " elements, too many to fold at import time";
  return success();
}

LogicalResult Importer::importMod() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({"fmod"})) ||
      failed(expectSameElementType(*this, input(0), input(1), "the inputs")))
    return failure();
  int64_t fmod = intAttr("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return error() << "fmod must be 0 or 1, got " << fmod;
  if (isFloat(input(0)) && fmod != 1)
    return error() << "fmod must be 1 for float inputs (ONNX requires it)";
  if (failed(expectConstantInputs("Mod")))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(input(0), input(1));
  if (failed(shape) || failed(checkFoldedShape(*this, *shape)))
    return failure();
  auto type =
      RankedTensorType::get(*shape, tensorType(input(0)).getElementType());
  FailureOr<DenseElementsAttr> folded =
      foldBinary(fmod ? FoldOp::Fmod : FoldOp::Mod, getConstant(input(0)),
                 getConstant(input(1)), type);
  if (failed(folded))
    return failure();
  return setOutput(0, materialize(*folded));
}

LogicalResult Importer::importConstantOfShape() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({"value"})))
    return failure();
  if (tensorType(input(0)).getRank() != 1)
    return error() << "the shape (input #0) must be a 1-D tensor, got "
                   << formatShape(tensorType(input(0)).getShape());
  FailureOr<SmallVector<int64_t>> shape = getConstantInts(input(0), "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return error() << "shape " << formatShape(*shape)
                     << " has a negative dimension";
  if (shape->size() > 8)
    return error() << "shape " << formatShape(*shape)
                   << " has rank " << shape->size()
                   << "; Crest supports tensors of rank 8 or less";
  std::optional<int64_t> count = checkedProduct(*shape, kMaxTensorElements);
  if (!count)
    return error() << "shape " << formatShape(*shape)
                   << " has too many elements (the limit is "
                   << kMaxTensorElements << ")";
  if (*count == 0)
    return error() << "shape " << formatShape(*shape)
                   << " is empty; Crest does not support empty tensors";
  DenseElementsAttr value;
  if (const onnx::AttributeProto *attr =
          attribute("value", onnx::AttributeProto::TENSOR)) {
    FailureOr<DenseElementsAttr> t = convertTensor(attr->t(), "value");
    if (failed(t))
      return failure();
    if (t->getNumElements() != 1)
      return error() << "value must hold one element, got "
                     << t->getNumElements();
    value = *t;
  } else if (attributeTypeError) {
    return failure();
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, builder.getF32Type()), 0.0f);
  }
  auto type = RankedTensorType::get(*shape, value.getElementType());
  // A splat: any size costs one element.
  return setOutput(
      0, materialize(DenseElementsAttr::get(
             type, *value.getValues<Attribute>().begin())));
}

LogicalResult Importer::importRange() {
  if (failed(expectInputs(3, 3)) || failed(checkAttributes({})))
    return failure();
  static const char *const kNames[] = {"start", "limit", "delta"};
  for (unsigned i = 0; i < 3; ++i)
    if (tensorType(input(i)).getRank() != 0 &&
        tensorType(input(i)).getNumElements() != 1)
      return error() << kNames[i] << " (input #" << i
                     << ") must be a scalar, got "
                     << formatShape(tensorType(input(i)).getShape());
  if (failed(expectSameElementType(*this, input(0), input(1),
                                   "start and limit")) ||
      failed(expectSameElementType(*this, input(0), input(2),
                                   "start and delta")) ||
      failed(expectConstantInputs("Range")))
    return failure();
  Type element = tensorType(input(0)).getElementType();
  // count = max(ceil((limit - start) / delta), 0); element i is
  // start + i * delta.
  int64_t count;
  DenseElementsAttr attr;
  if (auto f = dyn_cast<FloatType>(element)) {
    auto scalar = [&](unsigned i) {
      APFloat v = *getConstant(input(i)).getValues<APFloat>().begin();
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return v.convertToDouble();
    };
    double start = scalar(0), limit = scalar(1), delta = scalar(2);
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) ||
        !std::isfinite(delta))
      return error() << "start, limit and delta must be finite and delta "
                        "non-zero";
    double n = std::max(std::ceil((limit - start) / delta), 0.0);
    if (n > double(kMaxFoldElements))
      return error() << "the range has " << n << " elements, more than "
                     << kMaxFoldElements << " to fold at import time";
    count = int64_t(n);
    if (count == 0)
      return error() << "the range [" << start << ", " << limit << ") step "
                     << delta
                     << " is empty; Crest does not support empty tensors";
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < count; ++i) {
      APFloat v(start + double(i) * delta);
      bool lost;
      v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    attr = DenseElementsAttr::get(RankedTensorType::get({count}, element),
                                  values);
  } else {
    int64_t start = getInts(getConstant(input(0)))[0],
            limit = getInts(getConstant(input(1)))[0],
            delta = getInts(getConstant(input(2)))[0];
    if (delta == 0)
      return error() << "delta must not be 0";
    // Exact in 128 bits: limit - start may overflow 64.
    __int128 span = __int128(limit) - start, step = delta;
    __int128 n = span / step;
    if (n * step != span && (span < 0) == (step < 0))
      ++n; // the quotient truncated toward zero: round up when positive
    if (n <= 0)
      return error() << "the range [" << start << ", " << limit << ") step "
                     << delta
                     << " is empty; Crest does not support empty tensors";
    if (n > kMaxFoldElements)
      return error() << "the range [" << start << ", " << limit << ") step "
                     << delta << " has more than " << kMaxFoldElements
                     << " elements, too many to fold at import time";
    count = int64_t(n);
    SmallVector<int64_t> values;
    for (int64_t i = 0; i < count; ++i)
      values.push_back(int64_t(start + __int128(i) * delta));
    attr = getIntsAttr(RankedTensorType::get({count}, element), values);
  }
  return setOutput(0, materialize(attr));
}

LogicalResult Importer::importExpand() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({})))
    return failure();
  Value x = input(0);
  if (tensorType(input(1)).getRank() != 1)
    return error() << "the shape (input #1) must be a 1-D tensor, got "
                   << formatShape(tensorType(input(1)).getShape());
  FailureOr<SmallVector<int64_t>> given = getConstantInts(input(1), "shape");
  if (failed(given))
    return failure();
  for (int64_t d : *given)
    if (d < 0)
      return error() << "shape " << formatShape(*given)
                     << " has a negative dimension";
  // Bidirectional broadcasting: a 1 in `shape` keeps X's dimension.
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShape(tensorType(x).getShape(), *given);
  if (failed(shape))
    return failure();
  if (shape->size() > 8)
    return error() << "the result has rank " << shape->size()
                   << "; Crest supports tensors of rank 8 or less";
  if (product(*shape) == 0)
    return error() << "the result (" << formatShape(*shape)
                   << ") is empty; Crest does not support empty tensors";
  Type element = tensorType(x).getElementType();
  auto type = RankedTensorType::get(*shape, element);
  if (DenseElementsAttr attr = getConstant(x)) {
    if (failed(checkFoldedShape(*this, *shape)))
      return failure();
    return setOutput(
        0, materialize(pickElements(
               {attr}, broadcastIndices(*shape, tensorType(x).getShape()),
               type)));
  }
  if (type == tensorType(x))
    return setOutput(0, x);
  // A float tensor computed at run time broadcasts through a multiply by
  // ones, which is exact (x * 1 = x for every x, -0 and NaN included); an
  // integer or bool one through a select of x with a true condition of
  // the given shape.
  if (!checkedProduct(*shape, kMaxTensorElements))
    return error() << "the result (" << formatShape(*shape)
                   << ") has too many elements (the limit is "
                   << kMaxTensorElements << ")";
  if (!isFloat(x)) {
    Value always = materialize(DenseElementsAttr::get(
        RankedTensorType::get(*given, builder.getI1Type()), true));
    return setOutput(0, SelectOp::create(builder, loc, type, always, x, x));
  }
  auto f = cast<FloatType>(element);
  Value ones = materialize(DenseElementsAttr::get(
      RankedTensorType::get(*given, element),
      APFloat::getOne(f.getFloatSemantics())));
  FailureOr<Value> result = binary<MulOp>(x, ones);
  if (failed(result))
    return failure();
  return setOutput(0, *result);
}

void crest::onnx_import::registerShapeArithmeticConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Mod", 10, kNewestOpset,
               [](Importer &im) { return im.importMod(); });
  registry.add("ConstantOfShape", 9, kNewestOpset,
               [](Importer &im) { return im.importConstantOfShape(); });
  registry.add("Range", 11, kNewestOpset,
               [](Importer &im) { return im.importRange(); });
  registry.add("Expand", 8, kNewestOpset,
               [](Importer &im) { return im.importExpand(); });
}
