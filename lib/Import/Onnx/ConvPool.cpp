//===- ConvPool.cpp - ONNX ConvPool converters ----------------------------===//
//
// Conv and the 2-D pools.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

/// ONNX's auto_pad for a 2-D window of `kernel` taps, `dilations` apart,
/// moved by `strides` over `extent`: NOTSET keeps `pads` (top, left, bottom,
/// right), VALID clears them, SAME_* pads for an output of ceil(extent /
/// stride), split evenly with the odd element at the end (UPPER) or the
/// beginning (LOWER). False for any other value. Strides must be positive
/// and every size bounded (the callers check both first).
static bool applyAutoPad(StringRef autoPad, ArrayRef<int64_t> extent,
                         ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                         ArrayRef<int64_t> kernel,
                         MutableArrayRef<int64_t> pads) {
  if (autoPad == "NOTSET")
    return true;
  if (autoPad == "VALID") {
    llvm::fill(pads, 0);
    return true;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return false;
  for (int i = 0; i < 2; ++i) {
    int64_t out = *checkedCeilDiv(extent[i], strides[i]);
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 -
               extent[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return true;
}

LogicalResult Importer::importConv() {
  if (failed(expectInputs(2, 3)) ||
      failed(checkAttributes({"auto_pad", "dilations", "group", "kernel_shape",
                              "pads", "strides"})))
    return failure();
  Value x = input(0), w = input(1), bias = input(2);
  if (failed(expectFloat(x, "X")) || failed(expectFloat(w, "W")))
    return failure();
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  if (xt.getRank() != 4 || wt.getRank() != 4)
    return error() << "only 2-D convolutions (rank-4 X and W) are supported, "
                      "got X "
                   << formatShape(xt.getShape()) << " and W "
                   << formatShape(wt.getShape());
  SmallVector<int64_t> strides = intsAttr("strides").value_or(
      SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> dilations = intsAttr("dilations").value_or(
      SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads = intsAttr("pads").value_or(
      SmallVector<int64_t>{0, 0, 0, 0});
  int64_t groups = intAttr("group", 1);
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    return error() << "strides, dilations and pads must have 2, 2 and 4 "
                      "entries for a 2-D convolution";
  if (std::optional<SmallVector<int64_t>> kernel = intsAttr("kernel_shape"))
    if (*kernel != SmallVector<int64_t>{wt.getDimSize(2), wt.getDimSize(3)})
      return error() << "kernel_shape does not match W's "
                     << formatShape(wt.getShape());
  // Strides and dilations are divisors and factors below: check them first.
  for (int64_t v : llvm::concat<int64_t>(strides, dilations))
    if (v < 1)
      return error() << "strides and dilations must be positive";
  // Bounded so that the output-size arithmetic below cannot overflow.
  for (int64_t v : llvm::concat<int64_t>(strides, dilations, pads))
    if (v > kMaxTensorElements)
      return error() << "strides, dilations and pads must be at most "
                     << kMaxTensorElements;
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t h = xt.getDimSize(2), wdt = xt.getDimSize(3);
  if (!applyAutoPad(autoPad, {h, wdt}, strides, dilations, {kh, kw}, pads))
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  for (int64_t v : pads)
    if (v < 0)
      return error() << "pads must not be negative";
  if (groups < 1 || xt.getDimSize(1) % groups || wt.getDimSize(0) % groups ||
      xt.getDimSize(1) / groups != wt.getDimSize(1))
    return error() << "group = " << groups << " does not fit X "
                   << formatShape(xt.getShape()) << " and W "
                   << formatShape(wt.getShape());
  int64_t oh = (h + pads[0] + pads[2] - dilations[0] * (kh - 1) - 1) /
                   strides[0] +
               1;
  int64_t ow = (wdt + pads[1] + pads[3] - dilations[1] * (kw - 1) - 1) /
                   strides[1] +
               1;
  if (oh < 1 || ow < 1)
    return error() << "the output would be empty (" << oh << "x" << ow << ")";
  Type f32 = builder.getF32Type();
  auto resultType = RankedTensorType::get(
      {xt.getDimSize(0), wt.getDimSize(0), oh, ow}, f32);
  Value result = Conv2DOp::create(
      builder, loc, resultType, convert(x, matrixType()), convert(w, matrixType()),
      builder.getDenseI64ArrayAttr(strides), builder.getDenseI64ArrayAttr(pads),
      builder.getDenseI64ArrayAttr(dilations),
      builder.getI64IntegerAttr(groups), matrixPrecision(), SyncAttr(),
      ConfigAttr());
  if (bias) {
    RankedTensorType bt = tensorType(bias);
    if (bt.getRank() != 1 || bt.getDimSize(0) != wt.getDimSize(0))
      return error() << "B has shape " << formatShape(bt.getShape())
                     << ", expected " << wt.getDimSize(0);
    Value b3 = reshape(convert(bias, f32), {wt.getDimSize(0), 1, 1});
    FailureOr<Value> sum = binary<AddOp>(result, b3);
    if (failed(sum))
      return failure();
    result = *sum;
  }
  return setOutput(0, convert(result, xt.getElementType()));
}

LogicalResult Importer::importPool(bool isMax) {
  if (failed(expectInputs(1, 1)))
    return failure();
  if (isMax && node->output_size() > 1 && !node->output(1).empty())
    return error() << "the Indices output is not supported";
  SmallVector<StringRef> supported = {"auto_pad", "ceil_mode", "kernel_shape",
                                      "pads", "strides"};
  supported.push_back(isMax ? "dilations" : "count_include_pad");
  if (isMax)
    supported.push_back("storage_order");
  if (failed(checkAttributes(supported)))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "X")))
    return failure();
  RankedTensorType xt = tensorType(x);
  if (xt.getRank() != 4)
    return error() << "only 2-D pooling (rank-4 X) is supported, got "
                   << formatShape(xt.getShape());
  std::optional<SmallVector<int64_t>> kernel = intsAttr("kernel_shape");
  if (!kernel || kernel->size() != 2)
    return error() << "kernel_shape must have 2 entries";
  SmallVector<int64_t> strides =
      intsAttr("strides").value_or(SmallVector<int64_t>{1, 1});
  SmallVector<int64_t> pads =
      intsAttr("pads").value_or(SmallVector<int64_t>{0, 0, 0, 0});
  if (std::optional<SmallVector<int64_t>> dil = intsAttr("dilations"))
    if (llvm::any_of(*dil, [](int64_t d) { return d != 1; }))
      return error() << "dilations other than 1 are not supported";
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  if (strides.size() != 2 || pads.size() != 4)
    return error() << "strides and pads must have 2 and 4 entries";
  // Strides are divisors below: check them first.
  if (strides[0] < 1 || strides[1] < 1)
    return error() << "strides must be positive";
  // Bounded so that the output-size arithmetic below cannot overflow.
  for (int64_t v : llvm::concat<int64_t>(*kernel, strides, pads))
    if (v > kMaxTensorElements)
      return error() << "kernel_shape, strides and pads must be at most "
                     << kMaxTensorElements;
  if (!applyAutoPad(autoPad, {xt.getDimSize(2), xt.getDimSize(3)}, strides,
                    {1, 1}, *kernel, pads))
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  bool ceil = intAttr("ceil_mode", 0);
  auto outSize = [&](int64_t in, int64_t k, int64_t s, int64_t p) {
    int64_t span = in + p - k;
    return (ceil ? (span + s - 1) / s : span / s) + 1;
  };
  for (int i = 0; i < 2; ++i)
    if ((*kernel)[i] < 1 || strides[i] < 1 || pads[i] < 0 || pads[i + 2] < 0 ||
        pads[i] >= (*kernel)[i] || pads[i + 2] >= (*kernel)[i])
      return error() << "kernel_shape, strides and pads are inconsistent";
  int64_t oh = outSize(xt.getDimSize(2), (*kernel)[0], strides[0],
                       pads[0] + pads[2]);
  int64_t ow = outSize(xt.getDimSize(3), (*kernel)[1], strides[1],
                       pads[1] + pads[3]);
  if (oh < 1 || ow < 1)
    return error() << "the output would be empty";
  auto resultType = RankedTensorType::get(
      {xt.getDimSize(0), xt.getDimSize(1), oh, ow}, xt.getElementType());
  Value result;
  if (isMax)
    result = MaxPool2DOp::create(builder, loc, resultType, x,
                                 builder.getDenseI64ArrayAttr(*kernel),
                                 builder.getDenseI64ArrayAttr(strides),
                                 builder.getDenseI64ArrayAttr(pads), ceil);
  else
    result = AvgPool2DOp::create(
        builder, loc, resultType, x, builder.getDenseI64ArrayAttr(*kernel),
        builder.getDenseI64ArrayAttr(strides),
        builder.getDenseI64ArrayAttr(pads), ceil,
        bool(intAttr("count_include_pad", 0)));
  return setOutput(0, result);
}

LogicalResult Importer::importGlobalAveragePool() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({})) ||
      failed(expectFloat(input(0), "X")))
    return failure();
  RankedTensorType xt = tensorType(input(0));
  if (xt.getRank() != 4)
    return error() << "only rank-4 (NCHW) inputs are supported, got "
                   << formatShape(xt.getShape());
  auto type = RankedTensorType::get(
      {xt.getDimSize(0), xt.getDimSize(1), 1, 1}, xt.getElementType());
  return setOutput(0,
                   GlobalAvgPool2DOp::create(builder, loc, type, input(0)));
}

void crest::onnx_import::registerConvPoolConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Conv", 1, kNewestOpset,
               [](Importer &im) { return im.importConv(); });
  registry.add("MaxPool", 1, kNewestOpset,
               [](Importer &im) { return im.importPool(/*isMax=*/true); });
  registry.add("AveragePool", 1, kNewestOpset,
               [](Importer &im) { return im.importPool(/*isMax=*/false); });
  registry.add("GlobalAveragePool", 1, kNewestOpset,
               [](Importer &im) { return im.importGlobalAveragePool(); });
}
