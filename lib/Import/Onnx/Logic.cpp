//===- Logic.cpp - ONNX comparison, logical and Where converters ----------===//
//
// Equal, Less, LessOrEqual, Greater, GreaterOrEqual, And, Or, Xor, Not and
// Where. On constant inputs (shape arithmetic) they fold at import time
// (Fold.cpp); on values computed at run time they are crest's comparison,
// logical and select ops, elementwise kernels.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

/// A comparison (`isLogical`: a logical op on bools) of inputs 0 and 1.
template <typename OpTy>
static LogicalResult importPredicate(Importer &im, FoldOp fold,
                                     bool isLogical) {
  if (failed(im.expectInputs(2, 2)) || failed(im.checkAttributes({})))
    return failure();
  Value x = im.input(0), y = im.input(1);
  Type xe = Importer::tensorType(x).getElementType(),
       ye = Importer::tensorType(y).getElementType();
  if (xe != ye)
    return im.error() << "the inputs have different element types (" << xe
                      << " and " << ye << ")";
  if (isLogical && !xe.isInteger(1))
    return im.error() << "the inputs must be bool tensors, got " << xe;
  FailureOr<SmallVector<int64_t>> shape = im.broadcastShape(x, y);
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, im.builder.getI1Type());
  DenseElementsAttr cx = Importer::getConstant(x),
                    cy = Importer::getConstant(y);
  if (cx && cy && product(*shape) <= Importer::kMaxFoldElements) {
    FailureOr<DenseElementsAttr> folded = im.foldBinary(fold, cx, cy, type);
    if (failed(folded))
      return failure();
    return im.setOutput(0, im.materialize(*folded));
  }
  return im.setOutput(0, OpTy::create(im.builder, im.loc, type, x, y));
}

LogicalResult Importer::importNot() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({})))
    return failure();
  Value x = input(0);
  RankedTensorType type = tensorType(x);
  if (!type.getElementType().isInteger(1))
    return error() << "the input must be a bool tensor, got "
                   << type.getElementType();
  if (DenseElementsAttr c = getConstant(x)) {
    SmallVector<bool> out;
    for (int64_t v : getInts(c))
      out.push_back(!v);
    return setOutput(0, materialize(DenseElementsAttr::get(
                            type, ArrayRef<bool>(out))));
  }
  return setOutput(0, NotOp::create(builder, loc, type, x));
}

LogicalResult Importer::importWhere() {
  if (failed(expectInputs(3, 3)) || failed(checkAttributes({})))
    return failure();
  Value cond = input(0), x = input(1), y = input(2);
  if (!tensorType(cond).getElementType().isInteger(1))
    return error() << "the condition (input #0) must be a bool tensor, got "
                   << tensorType(cond).getElementType();
  Type xe = tensorType(x).getElementType(), ye = tensorType(y).getElementType();
  if (xe != ye)
    return error() << "X and Y have different element types (" << xe
                   << " and " << ye << ")";
  FailureOr<SmallVector<int64_t>> xy = broadcastShape(x, y);
  if (failed(xy))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShape(tensorType(cond).getShape(), *xy);
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, xe);
  DenseElementsAttr cc = getConstant(cond), cx = getConstant(x),
                    cy = getConstant(y);
  if (!cc || !cx || !cy || product(*shape) > kMaxFoldElements)
    return setOutput(0, SelectOp::create(builder, loc, type, cond, x, y));
  // Folded: element i of the result is X's or, past X's elements, Y's.
  SmallVector<int64_t> c = getInts(cc);
  SmallVector<int64_t> ci = broadcastIndices(*shape, tensorType(cond).getShape()),
                       xi = broadcastIndices(*shape, tensorType(x).getShape()),
                       yi = broadcastIndices(*shape, tensorType(y).getShape());
  int64_t xCount = tensorType(x).getNumElements();
  SmallVector<int64_t> index(ci.size());
  for (size_t i = 0; i < ci.size(); ++i)
    index[i] = c[ci[i]] ? xi[i] : xCount + yi[i];
  return setOutput(0, materialize(pickElements({cx, cy}, index, type)));
}

void crest::onnx_import::registerLogicConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Equal", 1, kNewestOpset, [](Importer &im) {
    return importPredicate<EqualOp>(im, FoldOp::Equal, false);
  });
  registry.add("Less", 7, kNewestOpset, [](Importer &im) {
    return importPredicate<LessOp>(im, FoldOp::Less, false);
  });
  registry.add("LessOrEqual", 12, kNewestOpset, [](Importer &im) {
    return importPredicate<LessEqualOp>(im, FoldOp::LessEqual, false);
  });
  registry.add("Greater", 7, kNewestOpset, [](Importer &im) {
    return importPredicate<GreaterOp>(im, FoldOp::Greater, false);
  });
  registry.add("GreaterOrEqual", 12, kNewestOpset, [](Importer &im) {
    return importPredicate<GreaterEqualOp>(im, FoldOp::GreaterEqual, false);
  });
  registry.add("And", 7, kNewestOpset, [](Importer &im) {
    return importPredicate<AndOp>(im, FoldOp::And, true);
  });
  registry.add("Or", 7, kNewestOpset, [](Importer &im) {
    return importPredicate<OrOp>(im, FoldOp::Or, true);
  });
  registry.add("Xor", 7, kNewestOpset, [](Importer &im) {
    return importPredicate<XorOp>(im, FoldOp::Xor, true);
  });
  registry.add("Not", 1, kNewestOpset,
               [](Importer &im) { return im.importNot(); });
  registry.add("Where", 9, kNewestOpset,
               [](Importer &im) { return im.importWhere(); });
}
