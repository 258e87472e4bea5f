//===- Reduction.cpp - ONNX Reduction converters --------------------------===//
//
// ReduceMean.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

LogicalResult Importer::importReduceMean() {
  if (failed(expectInputs(1, 2)) ||
      failed(checkAttributes({"axes", "keepdims", "noop_with_empty_axes"})))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "data")))
    return failure();
  int64_t rank = tensorType(x).getRank();
  FailureOr<SmallVector<int64_t>> given = getAxes();
  if (failed(given))
    return failure();
  SmallVector<int64_t> axes = *given;
  if (axes.empty()) {
    if (intAttr("noop_with_empty_axes", 0))
      return setOutput(0, x);
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  bool keep = intAttr("keepdims", 1);
  SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(axis, rank);
    if (failed(a))
      return failure();
    if (llvm::is_contained(normalized, *a))
      return error() << "axis " << axis << " is repeated";
    normalized.push_back(*a);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(normalized, d))
      shape.push_back(tensorType(x).getDimSize(d));
    else if (keep)
      shape.push_back(1);
  }
  llvm::sort(normalized);
  Value result = ReduceMeanOp::create(
      builder, loc, RankedTensorType::get(shape, tensorType(x).getElementType()),
      x, builder.getDenseI64ArrayAttr(normalized), keep);
  return setOutput(0, result);
}

void crest::onnx_import::registerReductionConverters(
    OnnxConverterRegistry &registry) {
  registry.add("ReduceMean", 1, kNewestOpset,
               [](Importer &im) { return im.importReduceMean(); });
}
