//===- ConvPool.cpp - ONNX ConvPool converters ----------------------------===//
//
// Conv and the pools. 2-D ops map onto crest's 2-D ops; a 1-D op (rank-3
// X) is the 2-D op on a height of 1 between two reshapes, and the global
// pools of any spatial rank reduce a [N, C, 1, D*H*W] view.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

/// ONNX's auto_pad for a window of `kernel` taps, `dilations` apart, moved
/// by `strides` over `extent` (one entry per spatial dimension): NOTSET
/// keeps `pads` (every dimension's begin, then every dimension's end),
/// VALID clears them, SAME_* pads for an output of ceil(extent /
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
  size_t n = extent.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t out = *checkedCeilDiv(extent[i], strides[i]);
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 -
               extent[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + n] = autoPad == "SAME_UPPER" ? large : small;
  }
  return true;
}

/// A 1-D window attribute lifted to 2-D: a leading `fill` (1 for strides,
/// dilations and kernel sizes, 0 for pads) before each spatial half; pads
/// [begin, end] become [0, begin, 0, end]. 2-D values are returned as
/// they are.
static SmallVector<int64_t> liftTo2D(SmallVector<int64_t> v, unsigned spatial,
                                     int64_t fill) {
  if (spatial != 1)
    return v;
  if (v.size() == 1)
    return {fill, v[0]};
  if (v.size() == 2)
    return {fill, v[0], fill, v[1]};
  return v;
}

/// `shape` with a unit height inserted before its last dimension (a 1-D
/// window op's operand as the 2-D op's).
static SmallVector<int64_t> withUnitHeight(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> r(shape);
  r.insert(r.end() - 1, 1);
  return r;
}

/// `value` with its dimensions permuted (result dimension i is input
/// dimension perm[i]).
Value Importer::transpose(Value value, ArrayRef<int64_t> perm) {
  RankedTensorType type = tensorType(value);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return TransposeOp::create(
      builder, loc, RankedTensorType::get(shape, type.getElementType()), value,
      builder.getDenseI64ArrayAttr(perm));
}

/// `value` with `before` and `after` elements of `fill` (default zeros)
/// added around dimension `dim`.
Value Importer::padDimension(Value value, int64_t dim, int64_t before,
                             int64_t after, double fill) {
  return padDimension(value, dim, before, after,
                      builder.getFloatAttr(tensorType(value).getElementType(),
                                           fill));
}

Value Importer::padDimension(Value value, int64_t dim, int64_t before,
                             int64_t after, Attribute fill) {
  if (before == 0 && after == 0)
    return value;
  RankedTensorType type = tensorType(value);
  SmallVector<Value> parts;
  auto filler = [&](int64_t size) {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = size;
    auto t = RankedTensorType::get(shape, type.getElementType());
    return materialize(DenseElementsAttr::get(t, fill));
  };
  if (before)
    parts.push_back(filler(before));
  parts.push_back(value);
  if (after)
    parts.push_back(filler(after));
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] += before + after;
  return ConcatOp::create(builder, loc,
                          RankedTensorType::get(shape, type.getElementType()),
                          parts, builder.getI64IntegerAttr(dim));
}

/// Conv's and ConvTranspose's X and W (float, rank 3 to 5) and window
/// attributes, checked: one stride and dilation per spatial dimension (at
/// least 1), two pads, kernel_shape equal to W's, every value bounded so
/// that the size arithmetic cannot overflow.
FailureOr<Importer::ConvWindow> Importer::readConvWindow(bool transposed) {
  Value x = input(0), w = input(1);
  if (failed(expectFloat(x, "X")) || failed(expectFloat(w, "W")))
    return failure();
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  StringRef what = transposed ? "transposed convolutions" : "convolutions";
  if (xt.getRank() < 3 || xt.getRank() > 5 || wt.getRank() != xt.getRank())
    return error() << "only 1-D, 2-D and 3-D " << what
                   << " (X and W of rank 3, 4 or 5) are supported, got X "
                   << formatShape(xt.getShape()) << " and W "
                   << formatShape(wt.getShape());
  ConvWindow win;
  unsigned spatial = win.spatial = xt.getRank() - 2;
  win.strides = intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  win.dilations =
      intsAttr("dilations").value_or(SmallVector<int64_t>(spatial, 1));
  win.pads = intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  if (transposed)
    win.outputPadding =
        intsAttr("output_padding").value_or(SmallVector<int64_t>(spatial, 0));
  win.groups = intAttr("group", 1);
  if (win.strides.size() != spatial || win.dilations.size() != spatial ||
      win.pads.size() != 2 * spatial ||
      (transposed && win.outputPadding.size() != spatial)) {
    if (transposed)
      return error() << "strides, dilations, output_padding and pads must "
                        "have "
                     << spatial << ", " << spatial << ", " << spatial
                     << " and " << 2 * spatial << " entries for a " << spatial
                     << "-D transposed convolution";
    return error() << "strides, dilations and pads must have " << spatial
                   << ", " << spatial << " and " << 2 * spatial
                   << " entries for a " << spatial << "-D convolution";
  }
  if (std::optional<SmallVector<int64_t>> k = intsAttr("kernel_shape"))
    if (ArrayRef<int64_t>(*k) != wt.getShape().drop_front(2))
      return error() << "kernel_shape does not match W's "
                     << formatShape(wt.getShape());
  // Strides and dilations are divisors and factors: check them first.
  for (int64_t v : llvm::concat<int64_t>(win.strides, win.dilations))
    if (v < 1)
      return error() << "strides and dilations must be positive";
  for (int64_t v : llvm::concat<int64_t>(win.strides, win.dilations, win.pads,
                                         win.outputPadding))
    if (v > kMaxTensorElements || (transposed && v < 0))
      return transposed
                 ? error() << "strides, dilations, pads and output_padding "
                              "must be in [0, "
                           << kMaxTensorElements << "]"
                 : error() << "strides, dilations and pads must be at most "
                           << kMaxTensorElements;
  return win;
}

LogicalResult Importer::importConv() {
  if (failed(expectInputs(2, 3)) ||
      failed(checkAttributes({"auto_pad", "dilations", "group", "kernel_shape",
                              "pads", "strides"})))
    return failure();
  Value x = input(0), w = input(1), bias = input(2);
  FailureOr<ConvWindow> window = readConvWindow(/*transposed=*/false);
  if (failed(window))
    return failure();
  auto &[spatial, strides, dilations, pads, outputPadding, groups] = *window;
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  ArrayRef<int64_t> kernel = wt.getShape().drop_front(2);
  ArrayRef<int64_t> extent = xt.getShape().drop_front(2);
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  if (!applyAutoPad(autoPad, extent, strides, dilations, kernel, pads))
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
  FailureOr<Value> result =
      convolve(x, w, bias, strides, dilations, pads, groups);
  if (failed(result))
    return failure();
  return setOutput(0, *result);
}

/// ConvTranspose as the direct convolution it equals: X with stride - 1
/// zeros between its elements (a gather per spatial dimension, whose index
/// past the end reads the zeros), padded by (k - 1) d - pad_begin before and (k - 1) d -
/// pad_end + output_padding after (cropped where negative), convolved at
/// stride 1 with W flipped in every spatial dimension and its two channel
/// dimensions swapped per group: W'[g Mg + m, c, k] = W[g Cg + c, m, K - 1
/// - k]. output_shape and auto_pad SAME_* choose the pads as ONNX says.
LogicalResult Importer::importConvTranspose() {
  if (failed(expectInputs(2, 3)) ||
      failed(checkAttributes({"auto_pad", "dilations", "group", "kernel_shape",
                              "output_padding", "output_shape", "pads",
                              "strides"})))
    return failure();
  Value x = input(0), w = input(1), bias = input(2);
  FailureOr<ConvWindow> window = readConvWindow(/*transposed=*/true);
  if (failed(window))
    return failure();
  auto &[spatial, strides, dilations, pads, outputPadding, groups] = *window;
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  int64_t c = xt.getDimSize(1);
  if (groups < 1 || c % groups || wt.getDimSize(0) != c)
    return error() << "group = " << groups << " does not fit X "
                   << formatShape(xt.getShape()) << " and W "
                   << formatShape(wt.getShape())
                   << " (W is C x M/group x kernel)";
  ArrayRef<int64_t> kernel = wt.getShape().drop_front(2);
  ArrayRef<int64_t> extent = xt.getShape().drop_front(2);
  // The output of the unpadded transposed convolution, per dimension.
  SmallVector<int64_t> full;
  for (unsigned i = 0; i < spatial; ++i)
    full.push_back(strides[i] * (extent[i] - 1) + outputPadding[i] +
                   (kernel[i] - 1) * dilations[i] + 1);
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  if (!llvm::is_contained({"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"},
                          autoPad))
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  std::optional<SmallVector<int64_t>> outputShape = intsAttr("output_shape");
  if (outputShape && outputShape->size() >= spatial)
    outputShape->erase(outputShape->begin(),
                       outputShape->end() - spatial); // its spatial sizes
  else if (outputShape)
    return error() << "output_shape must have " << spatial
                   << " spatial entries, got " << outputShape->size();
  if (autoPad == "VALID")
    llvm::fill(pads, 0);
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (unsigned i = 0; i < spatial; ++i) {
      int64_t target =
          outputShape ? (*outputShape)[i] : extent[i] * strides[i];
      if (target < 1 || target > kMaxTensorElements)
        return error() << "output_shape " << target << " is out of range";
      // ONNX's formula with Python's floor division: a negative total
      // (an output larger than the full one) grows the end first.
      int64_t total = full[i] - target;
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? half : total - half;
      pads[i + spatial] = upper ? total - half : half;
    }
  }
  SmallVector<int64_t> outSizes;
  for (unsigned i = 0; i < spatial; ++i) {
    outSizes.push_back(full[i] - pads[i] - pads[i + spatial]);
    if (outSizes.back() < 1)
      return error() << "the output would be empty ("
                     << formatShape(outSizes) << " in dimension " << i + 2
                     << ")";
  }
  if (!checkedProduct(outSizes, kMaxTensorElements))
    return error() << "the output has too many elements";

  // X with the zeros of the strides, then its padding or cropping.
  Value xd = x;
  SmallVector<int64_t> convPads(2 * spatial, 0);
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t dim = i + 2, n = extent[i], s = strides[i];
    if (s > 1 && n > 1) {
      SmallVector<int64_t> indices;
      for (int64_t o = 0; o < (n - 1) * s + 1; ++o)
        indices.push_back(o % s ? n : o / s); // n: out of range, a zero
      xd = gatherConstant(xd, dim, indices);
    }
    int64_t reach = (kernel[i] - 1) * dilations[i];
    int64_t before = reach - pads[i];
    int64_t after = reach - pads[i + spatial] + outputPadding[i];
    if (before < 0 || after < 0) {
      RankedTensorType t = tensorType(xd);
      SmallVector<int64_t> shape(t.getShape()), offsets(t.getRank(), 0);
      int64_t first = std::max<int64_t>(-before, 0);
      shape[dim] -= first + std::max<int64_t>(-after, 0);
      offsets[dim] = first;
      if (shape[dim] < 1)
        return error() << "the pads crop all of dimension " << dim;
      xd = SliceOp::create(
          builder, loc, RankedTensorType::get(shape, t.getElementType()), xd,
          builder.getDenseI64ArrayAttr(offsets), DenseI64ArrayAttr());
    }
    convPads[i] = std::max<int64_t>(before, 0);
    convPads[i + spatial] = std::max<int64_t>(after, 0);
  }
  // W' = W with its channel dimensions swapped per group and its kernel
  // flipped: permuted at import time for a constant W (the usual case),
  // else by a transpose and gathers.
  int64_t mg = wt.getDimSize(1), cg = c / groups, m = mg * groups;
  Value wf;
  if (DenseElementsAttr wc = getConstant(w)) {
    SmallVector<int64_t> shape = {m, cg};
    llvm::append_range(shape, kernel);
    auto type = RankedTensorType::get(shape, wt.getElementType());
    if (wc.isSplat()) {
      wf = materialize(wc.reshape(type));
    } else {
      int64_t taps = product(kernel);
      SmallVector<int64_t> kernelStrides(spatial, 1);
      for (int i = int(spatial) - 2; i >= 0; --i)
        kernelStrides[i] = kernelStrides[i + 1] * kernel[i + 1];
      SmallVector<Attribute> values(wc.getValues<Attribute>());
      SmallVector<Attribute> permuted;
      permuted.reserve(values.size());
      for (int64_t o = 0; o < m; ++o)
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t t = 0; t < taps; ++t) {
            // The flipped tap: K - 1 - k in every spatial dimension.
            int64_t flipped = 0, rest = t;
            for (unsigned i = 0; i < spatial; ++i) {
              int64_t k = rest / kernelStrides[i];
              rest %= kernelStrides[i];
              flipped += (kernel[i] - 1 - k) * kernelStrides[i];
            }
            int64_t g = o / mg, mi = o % mg;
            permuted.push_back(
                values[((g * cg + ci) * mg + mi) * taps + flipped]);
          }
      wf = materialize(DenseElementsAttr::get(type, permuted));
    }
  }
  if (!wf) {
    SmallVector<int64_t> grouped = {groups, cg, mg};
    llvm::append_range(grouped, kernel);
    SmallVector<int64_t> perm = {0, 2, 1};
    for (unsigned i = 0; i < spatial; ++i)
      perm.push_back(3 + i);
    SmallVector<int64_t> flatShape = {m, cg};
    llvm::append_range(flatShape, kernel);
    wf = reshape(transpose(reshape(w, grouped), perm), flatShape);
    for (unsigned i = 0; i < spatial; ++i) {
      if (kernel[i] == 1)
        continue;
      SmallVector<int64_t> reversed;
      for (int64_t k = kernel[i] - 1; k >= 0; --k)
        reversed.push_back(k);
      wf = gatherConstant(wf, i + 2, reversed);
    }
  }
  SmallVector<int64_t> ones(spatial, 1);
  FailureOr<Value> result =
      convolve(xd, wf, bias, ones, dilations, convPads, groups);
  if (failed(result))
    return failure();
  return setOutput(0, *result);
}

/// The convolution of X and W (checked: rank 3 to 5, W's channels fit
/// `groups`, non-negative pads) as crest.conv2d: 1-D on a height of 1, 3-D
/// with the depth taps as channels; then the bias. In X's element type.
FailureOr<Value> Importer::convolve(Value x, Value w, Value bias,
                                    ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> dilations,
                                    ArrayRef<int64_t> pads, int64_t groups) {
  RankedTensorType xt = tensorType(x), wt = tensorType(w);
  unsigned spatial = xt.getRank() - 2;
  ArrayRef<int64_t> kernel = wt.getShape().drop_front(2);
  ArrayRef<int64_t> extent = xt.getShape().drop_front(2);
  SmallVector<int64_t> outSizes;
  for (unsigned i = 0; i < spatial; ++i) {
    outSizes.push_back((extent[i] + pads[i] + pads[i + spatial] -
                        dilations[i] * (kernel[i] - 1) - 1) /
                           strides[i] +
                       1);
    if (outSizes.back() < 1)
      return error() << "the output would be empty ("
                     << formatShape(outSizes) << " in dimension " << i + 2
                     << ")";
  }
  int64_t n = xt.getDimSize(0), m = wt.getDimSize(0);

  // The 2-D convolution that computes it. 1-D: on a height of 1. 3-D: the
  // depth taps become channels, each output depth a batch entry:
  // X'[n od, g kd cg, h, w] = Xpadded[n, g cg, od sd + kd dd, h, w] and
  // W'[m, kd cg, kh, kw] = W[m, cg, kd, kh, kw], so that each group of
  // X' channels (kd, cg) meets W's (kd, cg).
  Value x2 = x, w2 = w;
  SmallVector<int64_t> strides2(strides), dilations2(dilations), pads2(pads);
  if (spatial == 1) {
    x2 = reshape(x, withUnitHeight(xt.getShape()));
    w2 = reshape(w, withUnitHeight(wt.getShape()));
    strides2 = liftTo2D(strides2, 1, 1);
    dilations2 = liftTo2D(dilations2, 1, 1);
    pads2 = liftTo2D(pads2, 1, 0);
  } else if (spatial == 3) {
    int64_t c = xt.getDimSize(1), cg = c / groups, kd = kernel[0];
    int64_t h = extent[1], wd = extent[2], od = outSizes[0];
    Value padded = padDimension(x, 2, pads[0], pads[3]);
    SmallVector<Value> taps;
    for (int64_t k = 0; k < kd; ++k) {
      Value tap = SliceOp::create(
          builder, loc, RankedTensorType::get({n, c, od, h, wd},
                                              xt.getElementType()),
          padded,
          builder.getDenseI64ArrayAttr({0, 0, k * dilations[0], 0, 0}),
          builder.getDenseI64ArrayAttr({1, 1, strides[0], 1, 1}));
      tap = transpose(tap, {0, 2, 1, 3, 4});
      taps.push_back(reshape(tap, {n * od, groups, cg, h, wd}));
    }
    x2 = taps.front();
    if (kd > 1)
      x2 = ConcatOp::create(
          builder, loc,
          RankedTensorType::get({n * od, groups, kd * cg, h, wd},
                                xt.getElementType()),
          taps, builder.getI64IntegerAttr(2));
    x2 = reshape(x2, {n * od, c * kd, h, wd});
    w2 = reshape(transpose(w, {0, 2, 1, 3, 4}),
                 {m, kd * cg, kernel[1], kernel[2]});
    strides2 = {strides[1], strides[2]};
    dilations2 = {dilations[1], dilations[2]};
    pads2 = {pads[1], pads[2], pads[4], pads[5]};
  }
  RankedTensorType x2t = tensorType(x2);
  int64_t oh = spatial == 1 ? 1 : outSizes[spatial - 2];
  int64_t ow = outSizes.back();
  Type f32 = builder.getF32Type();
  auto resultType =
      RankedTensorType::get({x2t.getDimSize(0), m, oh, ow}, f32);
  Value result = Conv2DOp::create(
      builder, loc, resultType, convert(x2, matrixType()),
      convert(w2, matrixType()), builder.getDenseI64ArrayAttr(strides2),
      builder.getDenseI64ArrayAttr(pads2),
      builder.getDenseI64ArrayAttr(dilations2),
      builder.getI64IntegerAttr(groups), matrixPrecision(), SyncAttr(),
      ConfigAttr());
  if (spatial == 1) {
    result = reshape(result, {n, m, ow});
  } else if (spatial == 3) {
    result = reshape(result, {n, outSizes[0], m, oh, ow});
    result = transpose(result, {0, 2, 1, 3, 4});
  }
  if (bias) {
    RankedTensorType bt = tensorType(bias);
    if (bt.getRank() != 1 || bt.getDimSize(0) != m)
      return error() << "B has shape " << formatShape(bt.getShape())
                     << ", expected " << m;
    SmallVector<int64_t> biasShape(spatial + 1, 1);
    biasShape[0] = m;
    FailureOr<Value> sum =
        binary<AddOp>(result, reshape(convert(bias, f32), biasShape));
    if (failed(sum))
      return failure();
    result = *sum;
  }
  return convert(result, xt.getElementType());
}

/// Pools dimension `dim` of `x` alone: output position o reduces the
/// positions o * stride - pad0 + j * dilation (j < kernel) that lie inside
/// X and its padding (max, or the sum divided by the positions counted:
/// those inside X, or inside X and its padding with `includePad`; never
/// those past the end padding, where ceil_mode's last window can reach).
/// The result has `out` entries in `dim`. Max and sum are separable, and so
/// is the average's divisor (a window's count is the product of its
/// per-dimension counts): the other dimensions pool afterwards.
FailureOr<Value> Importer::poolDimension(Value x, unsigned dim,
                                         const PoolWindow &win, bool isMax,
                                         bool includePad) {
  RankedTensorType xt = tensorType(x);
  Type element = xt.getElementType();
  int64_t size = xt.getDimSize(dim);
  int64_t reach = (win.out - 1) * win.stride + (win.kernel - 1) * win.dilation +
                  1; // padded positions the windows read
  int64_t after = std::max(win.pad1, reach - size - win.pad0);
  Value padded = padDimension(x, dim, win.pad0, after, isMax ? -INFINITY : 0.0);
  SmallVector<int64_t> shape(xt.getShape());
  shape[dim] = win.out;
  auto tapType = RankedTensorType::get(shape, element);
  SmallVector<int64_t> offsets(xt.getRank(), 0), strides(xt.getRank(), 1);
  strides[dim] = win.stride;
  Value acc;
  for (int64_t j = 0; j < win.kernel; ++j) {
    offsets[dim] = j * win.dilation;
    Value tap = SliceOp::create(builder, loc, tapType, padded,
                                builder.getDenseI64ArrayAttr(offsets),
                                builder.getDenseI64ArrayAttr(strides));
    if (!acc)
      acc = tap;
    else if (isMax)
      acc = MaxOp::create(builder, loc, tapType, acc, tap);
    else
      acc = AddOp::create(builder, loc, tapType, acc, tap);
  }
  if (isMax)
    return acc;
  SmallVector<int64_t> countShape(xt.getRank() - dim, 1);
  countShape[0] = win.out;
  const llvm::fltSemantics &fs = cast<FloatType>(element).getFloatSemantics();
  SmallVector<APFloat> counts;
  for (int64_t o = 0; o < win.out; ++o) {
    int64_t count = 0;
    for (int64_t j = 0; j < win.kernel; ++j) {
      int64_t p = o * win.stride - win.pad0 + j * win.dilation;
      count += includePad ? p < size + win.pad1 : p >= 0 && p < size;
    }
    APFloat f = APFloat(double(count));
    bool lost;
    f.convert(fs, APFloat::rmNearestTiesToEven, &lost);
    counts.push_back(f);
  }
  return binary<DivOp>(acc, materialize(DenseElementsAttr::get(
                                RankedTensorType::get(countShape, element),
                                counts)));
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
  if (xt.getRank() < 3 || xt.getRank() > 5)
    return error() << "only 1-D, 2-D and 3-D pooling (X of rank 3, 4 or 5) "
                      "is supported, got "
                   << formatShape(xt.getShape());
  unsigned spatial = xt.getRank() - 2;
  std::optional<SmallVector<int64_t>> kernel = intsAttr("kernel_shape");
  if (!kernel || kernel->size() != spatial)
    return error() << "kernel_shape must have one entry per spatial "
                      "dimension of X "
                   << formatShape(xt.getShape()) << ", got "
                   << (kernel ? kernel->size() : 0);
  SmallVector<int64_t> strides =
      intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> pads =
      intsAttr("pads").value_or(SmallVector<int64_t>(2 * spatial, 0));
  SmallVector<int64_t> dilations =
      intsAttr("dilations").value_or(SmallVector<int64_t>(spatial, 1));
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  if (strides.size() != spatial || pads.size() != 2 * spatial ||
      dilations.size() != spatial)
    return error() << "strides, pads and dilations must have " << spatial
                   << ", " << 2 * spatial << " and " << spatial << " entries";
  // Strides and dilations are divisors and factors below: check them first.
  for (int64_t v : strides)
    if (v < 1)
      return error() << "strides must be positive";
  for (int64_t v : dilations)
    if (v < 1)
      return error() << "dilations must be positive";
  // Bounded so that the output-size arithmetic below cannot overflow.
  for (int64_t v : llvm::concat<int64_t>(*kernel, strides, pads, dilations))
    if (v > kMaxTensorElements)
      return error() << "kernel_shape, strides, pads and dilations must be "
                        "at most "
                     << kMaxTensorElements;
  ArrayRef<int64_t> extent = xt.getShape().drop_front(2);
  if (!applyAutoPad(autoPad, extent, strides, dilations, *kernel, pads))
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  bool ceil = intAttr("ceil_mode", 0);
  bool includePad = !isMax && intAttr("count_include_pad", 0);
  SmallVector<PoolWindow> windows;
  for (unsigned i = 0; i < spatial; ++i) {
    PoolWindow w{(*kernel)[i], strides[i], dilations[i], pads[i],
                 pads[i + spatial], 0};
    if (w.kernel < 1 || w.pad0 < 0 || w.pad1 < 0 || w.pad0 >= w.kernel ||
        w.pad1 >= w.kernel)
      return error() << "kernel_shape, strides and pads are inconsistent";
    int64_t span =
        extent[i] + w.pad0 + w.pad1 - ((w.kernel - 1) * w.dilation + 1);
    if (span < 0)
      return error() << "the output would be empty";
    w.out = (ceil ? (span + w.stride - 1) / w.stride : span / w.stride) + 1;
    windows.push_back(w);
  }
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1);
  Type element = xt.getElementType();

  // What the 2-D op cannot do is pooled one dimension at a time first: a
  // 3-D pool's depth and every dilated dimension. Those then have a window
  // of one for the 2-D op, on [N, C * OD, H, W] for 3-D pools and on a
  // height of 1 for 1-D ones.
  for (unsigned i = 0; i < spatial; ++i) {
    PoolWindow &w = windows[i];
    if (!(spatial == 3 && i == 0) && w.dilation == 1)
      continue;
    FailureOr<Value> pooled = poolDimension(x, i + 2, w, isMax, includePad);
    if (failed(pooled))
      return failure();
    x = *pooled;
    w = PoolWindow{1, 1, 1, 0, 0, w.out};
  }
  SmallVector<PoolWindow> windows2(windows);
  if (spatial == 1) {
    x = reshape(x, withUnitHeight(tensorType(x).getShape()));
    windows2.insert(windows2.begin(), PoolWindow{1, 1, 1, 0, 0, 1});
  } else if (spatial == 3) {
    x = reshape(x, {n, c * windows[0].out, extent[1], extent[2]});
    windows2.erase(windows2.begin());
  }
  auto attr = [&](auto field) {
    SmallVector<int64_t> v;
    for (const PoolWindow &w : windows2)
      v.push_back(field(w));
    return builder.getDenseI64ArrayAttr(v);
  };
  DenseI64ArrayAttr kernel2 = attr([](const PoolWindow &w) { return w.kernel; });
  DenseI64ArrayAttr strides2 =
      attr([](const PoolWindow &w) { return w.stride; });
  SmallVector<int64_t> pads2 = {windows2[0].pad0, windows2[1].pad0,
                                windows2[0].pad1, windows2[1].pad1};
  auto resultType = RankedTensorType::get(
      {n, tensorType(x).getDimSize(1), windows2[0].out, windows2[1].out},
      element);
  Value result;
  if (isMax)
    result = MaxPool2DOp::create(builder, loc, resultType, x, kernel2,
                                 strides2, builder.getDenseI64ArrayAttr(pads2),
                                 ceil);
  else
    result = AvgPool2DOp::create(builder, loc, resultType, x, kernel2,
                                 strides2, builder.getDenseI64ArrayAttr(pads2),
                                 ceil, includePad);
  SmallVector<int64_t> shape = {n, c};
  for (const PoolWindow &w : windows)
    shape.push_back(w.out);
  return setOutput(0, reshape(result, shape));
}

/// GlobalAveragePool and GlobalMaxPool over the spatial dimensions of a
/// rank >= 3 X: 2-D ones directly, others through a [N, C, 1, D*H*W...]
/// view; the result keeps X's rank with every spatial dimension 1.
LogicalResult Importer::importGlobalPool(bool isMax) {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({})) ||
      failed(expectFloat(input(0), "X")))
    return failure();
  Value x = input(0);
  RankedTensorType xt = tensorType(x);
  if (xt.getRank() < 3)
    return error() << "X must have a batch, a channel and at least one "
                      "spatial dimension, got "
                   << formatShape(xt.getShape());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), extent = 1;
  for (int64_t d : xt.getShape().drop_front(2))
    extent *= d; // bounded: X's element count is
  if (extent < 1)
    return error() << "X " << formatShape(xt.getShape())
                   << " has an empty spatial extent";
  if (xt.getRank() != 4)
    x = reshape(x, {n, c, 1, extent});
  ArrayRef<int64_t> view = tensorType(x).getShape();
  auto type = RankedTensorType::get({n, c, 1, 1}, xt.getElementType());
  Value result;
  if (isMax)
    result = MaxPool2DOp::create(
        builder, loc, type, x,
        builder.getDenseI64ArrayAttr({view[2], view[3]}),
        builder.getDenseI64ArrayAttr({1, 1}),
        builder.getDenseI64ArrayAttr({0, 0, 0, 0}), false);
  else
    result = GlobalAvgPool2DOp::create(builder, loc, type, x);
  if (xt.getRank() != 4) {
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[0] = n, shape[1] = c;
    result = reshape(result, shape);
  }
  return setOutput(0, result);
}

void crest::onnx_import::registerConvPoolConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Conv", 1, kNewestOpset,
               [](Importer &im) { return im.importConv(); });
  registry.add("ConvTranspose", 1, kNewestOpset,
               [](Importer &im) { return im.importConvTranspose(); });
  registry.add("MaxPool", 1, kNewestOpset,
               [](Importer &im) { return im.importPool(/*isMax=*/true); });
  registry.add("AveragePool", 1, kNewestOpset,
               [](Importer &im) { return im.importPool(/*isMax=*/false); });
  registry.add("GlobalAveragePool", 1, kNewestOpset,
               [](Importer &im) { return im.importGlobalPool(/*isMax=*/false); });
  registry.add("GlobalMaxPool", 1, kNewestOpset,
               [](Importer &im) { return im.importGlobalPool(/*isMax=*/true); });
}
