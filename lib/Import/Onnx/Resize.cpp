//===- Resize.cpp - ONNX Resize and Upsample converters -------------------===//
//
// Resize (opset 10 on; nearest, linear and cubic modes) and Upsample (7 to
// 9; nearest and linear). All are separable: each resized dimension is one
// step of its own, whose source positions and weights are known at compile
// time (shapes are static), so a step is a crest.gather of constant indices
// (nearest) or two or four gathers blended by constant weights (linear,
// cubic), the interpolation ONNX defines, one dimension after the other.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

#include <cmath>

using namespace crest;
using namespace crest::onnx_import;

namespace {
/// How output coordinates map to input ones, and how nearest rounds.
struct ResizeRule {
  std::string mode = "nearest";
  double cubicA = -0.75;        ///< cubic_coeff_a
  bool excludeOutside = false; ///< cubic: drop (and renormalize) taps outside X
  std::string transform = "half_pixel";
  std::string nearest = "round_prefer_floor";
};
} // namespace

/// The input coordinate output position `o` of a dimension of `n` samples
/// resized with scale `s` samples (ONNX's coordinate_transformation_mode).
/// The resized length these formulas use is n * s, unrounded (for
/// align_corners, 4 samples at scale 0.6: 2 outputs, 3 / (2.4 - 1) apart).
static double sourceCoordinate(const ResizeRule &rule, int64_t o, int64_t n,
                               double s) {
  double resized = double(n) * s;
  if (rule.transform == "half_pixel")
    return (o + 0.5) / s - 0.5;
  if (rule.transform == "pytorch_half_pixel")
    return resized > 1 ? (o + 0.5) / s - 0.5 : 0.0;
  if (rule.transform == "align_corners")
    return resized == 1 ? 0.0 : double(o) * double(n - 1) / (resized - 1);
  if (rule.transform == "tf_half_pixel_for_nearest")
    return (o + 0.5) / s;
  return o / s; // asymmetric
}

/// The input index nearest `x` (ONNX's nearest_mode), clamped into [0, n).
static int64_t nearestIndex(const ResizeRule &rule, double x, int64_t n) {
  double i;
  if (rule.nearest == "floor")
    i = std::floor(x);
  else if (rule.nearest == "ceil")
    i = std::ceil(x);
  else if (rule.nearest == "round_prefer_ceil")
    i = std::floor(x + 0.5);
  else // round_prefer_floor: halves go down
    i = std::ceil(x - 0.5);
  return std::clamp<int64_t>(int64_t(i), 0, n - 1);
}

/// Resizes `x` to `sizes` with per-dimension `scales` (the factors the
/// coordinates use), one dimension at a time.
static FailureOr<Value> resize(Importer &im, Value x,
                               ArrayRef<int64_t> sizes, ArrayRef<double> scales,
                               const ResizeRule &rule) {
  Value result = x;
  Type element = Importer::tensorType(x).getElementType();
  Type i64 = im.builder.getI64Type();
  int64_t rank = sizes.size();
  for (int64_t d = 0; d < rank; ++d) {
    ArrayRef<int64_t> shape = Importer::tensorType(result).getShape();
    int64_t n = shape[d], m = sizes[d];
    if (n == m && scales[d] == 1.0)
      continue;
    SmallVector<int64_t> outShape(shape);
    outShape[d] = m;
    auto outType = RankedTensorType::get(outShape, element);
    auto indexType = RankedTensorType::get({m}, i64);
    auto gather = [&](ArrayRef<int64_t> index) -> Value {
      return GatherOp::create(
          im.builder, im.loc, outType, result,
          im.materialize(Importer::getIntsAttr(indexType, index)),
          im.builder.getI64IntegerAttr(d));
    };
    if (rule.mode == "nearest") {
      SmallVector<int64_t> index;
      for (int64_t o = 0; o < m; ++o)
        index.push_back(
            nearestIndex(rule, sourceCoordinate(rule, o, n, scales[d]), n));
      result = gather(index);
      continue;
    }
    // linear: y = (1 - t) x[i0] + t x[i0 + 1], i0 = floor(c), t = c - i0;
    // cubic: the four taps i0 - 1 ... i0 + 2 with Keys' weights of t for
    // coefficient A. Taps are clamped into X (ONNX pads with edge values);
    // with exclude_outside a cubic tap outside X gets weight 0 and the
    // others are renormalized.
    bool cubic = rule.mode == "cubic";
    unsigned taps = cubic ? 4 : 2;
    SmallVector<SmallVector<int64_t>> index(taps);
    SmallVector<SmallVector<APFloat>> weight(taps);
    const llvm::fltSemantics &fs = cast<FloatType>(element).getFloatSemantics();
    auto toElement = [&](double v) {
      APFloat f = APFloat(v);
      bool lost;
      f.convert(fs, APFloat::rmNearestTiesToEven, &lost);
      return f;
    };
    double a = rule.cubicA;
    auto keys = [&](double d) { // Keys' kernel at distance |d|
      d = std::fabs(d);
      if (d <= 1)
        return ((a + 2) * d - (a + 3)) * d * d + 1;
      if (d < 2)
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
      return 0.0;
    };
    for (int64_t o = 0; o < m; ++o) {
      double c = sourceCoordinate(rule, o, n, scales[d]);
      if (!cubic)
        c = std::clamp(c, 0.0, double(n - 1));
      int64_t i0 = int64_t(std::floor(c));
      double t = c - double(i0);
      SmallVector<double> w;
      SmallVector<int64_t> at;
      if (cubic) {
        for (int k = -1; k <= 2; ++k) {
          at.push_back(i0 + k);
          w.push_back(keys(t - k));
        }
        if (rule.excludeOutside) {
          double sum = 0;
          for (unsigned k = 0; k < 4; ++k) {
            if (at[k] < 0 || at[k] >= n)
              w[k] = 0;
            sum += w[k];
          }
          for (double &v : w)
            v /= sum;
        }
      } else {
        at = {i0, i0 + 1};
        w = {1.0 - t, t};
      }
      for (unsigned k = 0; k < taps; ++k) {
        index[k].push_back(std::clamp<int64_t>(at[k], 0, n - 1));
        weight[k].push_back(toElement(w[k]));
      }
    }
    // The weights vary along d and broadcast over the later dimensions.
    SmallVector<int64_t> weightShape(rank - d, 1);
    weightShape[0] = m;
    auto weightType = RankedTensorType::get(weightShape, element);
    Value sum;
    for (unsigned k = 0; k < taps; ++k) {
      FailureOr<Value> term = im.binary<MulOp>(
          gather(index[k]),
          im.materialize(DenseElementsAttr::get(weightType, weight[k])));
      if (failed(term))
        return failure();
      if (!sum) {
        sum = *term;
        continue;
      }
      FailureOr<Value> next = im.binary<AddOp>(sum, *term);
      if (failed(next))
        return failure();
      sum = *next;
    }
    result = sum;
  }
  return result;
}

/// The node's constant float vector `what` (scales), or failure.
static FailureOr<SmallVector<double>> constantFloats(Importer &im, Value v,
                                                     StringRef what) {
  DenseElementsAttr attr = Importer::getConstant(v);
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return im.error() << what << " must be a constant float tensor";
  SmallVector<double> out;
  for (const APFloat &f : attr.getValues<APFloat>())
    out.push_back(f.convertToDouble());
  return out;
}

/// Output sizes and scales from either, checked against X's rank.
static LogicalResult resolveSizes(Importer &im, ArrayRef<int64_t> in,
                                  std::optional<SmallVector<double>> scales,
                                  std::optional<SmallVector<int64_t>> sizes,
                                  SmallVector<int64_t> &outSizes,
                                  SmallVector<double> &outScales) {
  size_t rank = in.size();
  if (sizes) {
    if (sizes->size() != rank)
      return im.error() << "sizes has " << sizes->size()
                        << " entries for a rank-" << rank << " input";
    for (size_t d = 0; d < rank; ++d) {
      if ((*sizes)[d] < 1 || (*sizes)[d] > kMaxTensorElements)
        return im.error() << "sizes must be between 1 and "
                          << kMaxTensorElements << ", got " << (*sizes)[d];
      outSizes.push_back((*sizes)[d]);
      outScales.push_back(double((*sizes)[d]) / double(in[d]));
    }
    return success();
  }
  if (!scales || scales->size() != rank)
    return im.error() << "scales must have one entry per dimension of X ("
                      << rank << "), got " << (scales ? scales->size() : 0);
  for (size_t d = 0; d < rank; ++d) {
    double s = (*scales)[d];
    // floor(n * s) as ONNX computes the output size, bounded first.
    if (!(s > 0) || !std::isfinite(s) ||
        double(in[d]) * s > double(kMaxTensorElements))
      return im.error() << "scale " << s << " of dimension " << d
                        << " must be positive and keep the size at most "
                        << kMaxTensorElements;
    int64_t m = int64_t(std::floor(double(in[d]) * s));
    if (m < 1)
      return im.error() << "scale " << s << " makes dimension " << d
                        << " of size " << in[d] << " empty";
    outSizes.push_back(m);
    outScales.push_back(s);
  }
  return success();
}

static LogicalResult checkMode(Importer &im, const ResizeRule &rule,
                               bool cubicAllowed) {
  if (rule.mode != "nearest" && rule.mode != "linear" &&
      !(cubicAllowed && rule.mode == "cubic"))
    return im.error() << "mode = '" << rule.mode
                      << "' is not supported (supported: nearest, linear"
                      << (cubicAllowed ? ", cubic)" : ")");
  return success();
}

/// Sets the node's output to X resized by `scales` or to `sizes`.
static LogicalResult resizeOutput(Importer &im, Value x,
                                  std::optional<SmallVector<double>> scales,
                                  std::optional<SmallVector<int64_t>> sizes,
                                  const ResizeRule &rule) {
  SmallVector<int64_t> outSizes;
  SmallVector<double> outScales;
  if (failed(resolveSizes(im, Importer::tensorType(x).getShape(), scales,
                          sizes, outSizes, outScales)))
    return failure();
  FailureOr<Value> r = resize(im, x, outSizes, outScales, rule);
  if (failed(r))
    return failure();
  return im.setOutput(0, *r);
}

/// The float input X and the mode of `rule`, checked.
static LogicalResult readModeAndInput(Importer &im, ResizeRule &rule,
                                      bool cubicAllowed) {
  if (failed(im.expectFloat(im.input(0), "X")))
    return failure();
  rule.mode = im.stringAttr("mode", "nearest");
  return checkMode(im, rule, cubicAllowed);
}

/// Resize, opsets 10 (X, scales; asymmetric, nearest rounds down) and 11 on
/// (X, roi, scales, sizes).
static LogicalResult importResize(Importer &im) {
  int64_t opset = im.opset;
  if (failed(opset < 11 ? im.expectInputs(2, 2) : im.expectInputs(1, 4)) ||
      failed(im.checkAttributes({"antialias", "axes",
                                 "coordinate_transformation_mode",
                                 "cubic_coeff_a", "exclude_outside",
                                 "extrapolation_value",
                                 "keep_aspect_ratio_policy", "mode",
                                 "nearest_mode"})))
    return failure();
  Value x = im.input(0);
  ResizeRule rule;
  if (failed(readModeAndInput(im, rule, /*cubicAllowed=*/opset >= 11)))
    return failure();
  rule.cubicA = im.floatAttr("cubic_coeff_a", -0.75f);
  rule.excludeOutside = im.intAttr("exclude_outside", 0);
  if (!std::isfinite(rule.cubicA))
    return im.error() << "cubic_coeff_a must be finite";
  if (opset < 11) {
    rule.transform = "asymmetric";
    rule.nearest = "floor";
  } else {
    rule.transform =
        im.stringAttr("coordinate_transformation_mode", "half_pixel");
    rule.nearest = im.stringAttr("nearest_mode", "round_prefer_floor");
  }
  static constexpr StringLiteral kTransforms[] = {
      "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
      "tf_half_pixel_for_nearest"};
  if (!llvm::is_contained(kTransforms, rule.transform))
    return im.error() << "coordinate_transformation_mode = '"
                      << rule.transform
                      << "' is not supported (supported: half_pixel, "
                         "pytorch_half_pixel, align_corners, asymmetric, "
                         "tf_half_pixel_for_nearest)";
  static constexpr StringLiteral kNearest[] = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(kNearest, rule.nearest))
    return im.error() << "nearest_mode = '" << rule.nearest
                      << "' is not supported (supported: round_prefer_floor, "
                         "round_prefer_ceil, floor, ceil)";
  if (im.intAttr("antialias", 0))
    return im.error() << "antialias = 1 is not supported";
  if (im.stringAttr("keep_aspect_ratio_policy", "stretch") != "stretch")
    return im.error() << "keep_aspect_ratio_policy other than 'stretch' is "
                         "not supported";
  ArrayRef<int64_t> in = Importer::tensorType(x).getShape();
  int64_t rank = in.size();
  // Opset 18's axes: the scales or sizes given are those of these axes.
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> a = im.intsAttr("axes")) {
    for (int64_t axis : *a) {
      FailureOr<int64_t> n = im.normalizeAxis(axis, rank);
      if (failed(n))
        return failure();
      if (llvm::is_contained(axes, *n))
        return im.error() << "axis " << axis << " is listed twice";
      axes.push_back(*n);
    }
  }
  Value scalesIn = opset < 11 ? im.input(1) : im.input(2);
  Value sizesIn = opset < 11 ? Value() : im.input(3);
  std::optional<SmallVector<double>> scales;
  std::optional<SmallVector<int64_t>> sizes;
  if (sizesIn && Importer::tensorType(sizesIn).getNumElements() > 0) {
    FailureOr<SmallVector<int64_t>> v = im.getConstantInts(sizesIn, "sizes");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (scalesIn && Importer::tensorType(scalesIn).getNumElements() > 0) {
    FailureOr<SmallVector<double>> v = constantFloats(im, scalesIn, "scales");
    if (failed(v))
      return failure();
    scales = *v;
  } else {
    return im.error() << "one of scales and sizes must be given";
  }
  if (!axes.empty()) {
    size_t given = sizes ? sizes->size() : scales->size();
    if (given != axes.size())
      return im.error() << "axes has " << axes.size() << " entries but "
                        << (sizes ? "sizes" : "scales") << " " << given;
    SmallVector<int64_t> fullSizes(in);
    SmallVector<double> fullScales(rank, 1.0);
    for (size_t i = 0; i < axes.size(); ++i) {
      if (sizes)
        fullSizes[axes[i]] = (*sizes)[i];
      else
        fullScales[axes[i]] = (*scales)[i];
    }
    if (sizes)
      sizes = fullSizes;
    else
      scales = fullScales;
  }
  return resizeOutput(im, x, scales, sizes, rule);
}

/// Upsample, opsets 7 (scales attribute) to 9 (scales input): asymmetric
/// coordinates, nearest rounds down.
static LogicalResult importUpsample(Importer &im) {
  int64_t opset = im.opset;
  if (failed(im.expectInputs(1, opset < 9 ? 1 : 2)) ||
      failed(im.checkAttributes(
          opset < 9 ? ArrayRef<StringRef>{"mode", "scales"}
                    : ArrayRef<StringRef>{"mode"})))
    return failure();
  Value x = im.input(0);
  ResizeRule rule;
  rule.transform = "asymmetric";
  rule.nearest = "floor";
  if (failed(readModeAndInput(im, rule, /*cubicAllowed=*/false)))
    return failure();
  std::optional<SmallVector<double>> scales;
  if (opset < 9) {
    const onnx::AttributeProto *a =
        im.attribute("scales", onnx::AttributeProto::FLOATS);
    if (!a)
      return im.error() << "the scales attribute is required";
    scales.emplace(a->floats().begin(), a->floats().end());
  } else {
    if (!im.input(1))
      return im.error() << "the scales input is required";
    FailureOr<SmallVector<double>> v = constantFloats(im, im.input(1), "scales");
    if (failed(v))
      return failure();
    scales = *v;
  }
  return resizeOutput(im, x, scales, std::nullopt, rule);
}

void crest::onnx_import::registerResizeConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Resize", 10, kNewestOpset, importResize);
  registry.add("Upsample", 7, 9, importUpsample);
}
