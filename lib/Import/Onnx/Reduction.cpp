//===- Reduction.cpp - ONNX Reduction converters --------------------------===//
//
// ReduceMean, ReduceSum, ReduceProd, ReduceMax, ReduceMin, and the ones
// written with them: ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
// ReduceLogSumExp.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

#include "llvm/ADT/APFloat.h"

using namespace crest;
using namespace crest::onnx_import;

template <typename OpTy>
Value Importer::reduce(Value x, ArrayRef<int64_t> dims, bool keep) {
  RankedTensorType type = tensorType(x);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<bool> reduced(rank, false);
  for (int64_t d : dims)
    reduced[d] = true;
  SmallVector<int64_t> resultShape, kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      resultShape.push_back(shape[d]);
      kept.push_back(d);
    } else if (keep) {
      resultShape.push_back(1);
    }
  }
  // Reducing only size-1 dimensions changes no value.
  SmallVector<int64_t> real;
  for (int64_t d : dims)
    if (shape[d] != 1)
      real.push_back(d);
  if (real.empty())
    return reshape(x, resultShape);
  auto resultType = RankedTensorType::get(resultShape, type.getElementType());
  // The kernels reduce consecutive dimensions (size-1 ones aside); others
  // move the reduced dimensions last first.
  llvm::sort(real);
  bool consecutive = true;
  for (int64_t d = real.front(); d <= real.back(); ++d)
    consecutive &= reduced[d] || shape[d] == 1;
  if (consecutive)
    return OpTy::create(builder, loc, resultType, x,
                        builder.getDenseI64ArrayAttr(dims), keep);
  SmallVector<int64_t> perm(kept), tail;
  for (int64_t d : dims)
    perm.push_back(d);
  for (int64_t i = kept.size(); i < rank; ++i)
    tail.push_back(i);
  Value moved = transpose(x, perm);
  SmallVector<int64_t> keptShape;
  for (int64_t d : kept)
    keptShape.push_back(shape[d]);
  Value r = OpTy::create(
      builder, loc, RankedTensorType::get(keptShape, type.getElementType()),
      moved, builder.getDenseI64ArrayAttr(tail), false);
  return reshape(r, resultShape);
}

namespace {
/// How each ONNX reduction is written: an elementwise step before the
/// reduction (`pre`), the crest reduction, and one after (`post`).
enum class Reduction {
  Mean,
  Sum,
  Prod,
  Max,
  Min,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};
} // namespace

/// The reduced dimensions of the node's `axes` (input 1 or attribute),
/// sorted; empty (with `noop` set) for an identity.
FailureOr<SmallVector<int64_t>> Importer::getReducedDims(Value x, bool &noop) {
  int64_t rank = tensorType(x).getRank();
  FailureOr<SmallVector<int64_t>> given = getAxes();
  if (failed(given))
    return failure();
  noop = false;
  SmallVector<int64_t> normalized;
  if (given->empty()) {
    if (intAttr("noop_with_empty_axes", 0)) {
      noop = true;
      return normalized;
    }
    for (int64_t d = 0; d < rank; ++d)
      normalized.push_back(d);
    return normalized;
  }
  for (int64_t axis : *given) {
    FailureOr<int64_t> a = normalizeAxis(axis, rank);
    if (failed(a))
      return failure();
    if (llvm::is_contained(normalized, *a))
      return error() << "axis " << axis << " is repeated";
    normalized.push_back(*a);
  }
  llvm::sort(normalized);
  return normalized;
}

static LogicalResult importReduction(Importer &im, Reduction kind) {
  if (failed(im.expectInputs(1, 2)) ||
      failed(im.checkAttributes({"axes", "keepdims", "noop_with_empty_axes"})))
    return failure();
  Value x = im.input(0);
  if (failed(im.expectFloat(x, "data")))
    return failure();
  bool noop = false;
  FailureOr<SmallVector<int64_t>> dims = im.getReducedDims(x, noop);
  if (failed(dims))
    return failure();
  // The specification: with noop_with_empty_axes and no axes, the output
  // is the input.
  if (noop)
    return im.setOutput(0, x);
  bool keep = im.intAttr("keepdims", 1);
  OpBuilder &b = im.builder;
  Location loc = im.loc;
  RankedTensorType type = Importer::tensorType(x);
  auto square = [&](Value v) { return MulOp::create(b, loc, type, v, v); };
  Value result;
  switch (kind) {
  case Reduction::Mean:
    result = im.reduce<ReduceMeanOp>(x, *dims, keep);
    break;
  case Reduction::Sum:
    result = im.reduce<ReduceSumOp>(x, *dims, keep);
    break;
  case Reduction::Prod:
    result = im.reduce<ReduceProdOp>(x, *dims, keep);
    break;
  case Reduction::Max:
    result = im.reduce<ReduceMaxOp>(x, *dims, keep);
    break;
  case Reduction::Min:
    result = im.reduce<ReduceMinOp>(x, *dims, keep);
    break;
  case Reduction::L1:
    result = im.reduce<ReduceSumOp>(AbsOp::create(b, loc, type, x), *dims,
                                    keep);
    break;
  case Reduction::L2: {
    Value s = im.reduce<ReduceSumOp>(square(x), *dims, keep);
    result = SqrtOp::create(b, loc, Importer::tensorType(s), s);
    break;
  }
  case Reduction::SumSquare:
    result = im.reduce<ReduceSumOp>(square(x), *dims, keep);
    break;
  case Reduction::LogSum: {
    Value s = im.reduce<ReduceSumOp>(x, *dims, keep);
    result = LogOp::create(b, loc, Importer::tensorType(s), s);
    break;
  }
  case Reduction::LogSumExp: {
    // m + log(sum(exp(x - m))) with m the maximum, clamped to the type's
    // finite range: a set of -inf (a fully masked row) gives
    // log(0) + m = -inf, one with +inf gives +inf, as the plain formula
    // does, and no finite set overflows.
    Value m = im.reduce<ReduceMaxOp>(x, *dims, /*keep=*/true);
    // (crest.max and crest.min with constants of the element type: a
    // crest.clip bound is an f32, which cannot hold f64's range.)
    RankedTensorType mType = Importer::tensorType(m);
    const llvm::fltSemantics &sem =
        cast<FloatType>(type.getElementType()).getFloatSemantics();
    auto bound = [&](bool negative) {
      return im.materialize(DenseElementsAttr::get(
          mType, llvm::APFloat::getLargest(sem, negative)));
    };
    FailureOr<Value> above = im.binary<MaxOp>(m, bound(true));
    if (failed(above))
      return failure();
    FailureOr<Value> clamped = im.binary<MinOp>(*above, bound(false));
    if (failed(clamped))
      return failure();
    m = *clamped;
    FailureOr<Value> shifted = im.binary<SubOp>(x, m);
    if (failed(shifted))
      return failure();
    Value e = ExpOp::create(b, loc, type, *shifted);
    Value s = im.reduce<ReduceSumOp>(e, *dims, /*keep=*/true);
    Value l = LogOp::create(b, loc, Importer::tensorType(s), s);
    FailureOr<Value> sum = im.binary<AddOp>(l, m);
    if (failed(sum))
      return failure();
    result = *sum;
    if (!keep) {
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (!llvm::is_contained(*dims, d))
          shape.push_back(type.getDimSize(d));
      result = im.reshape(result, shape);
    }
    break;
  }
  }
  return im.setOutput(0, result);
}

namespace {
/// The arithmetic ArgMax, ArgMin and TopK share: x in a type whose
/// comparisons are exact (integers above 16 bits in f64, others in f32),
/// and the index of the extreme along the axis.
struct Extremes {
  Importer &im;
  int64_t axis, n;
  Value x;          // converted
  Value iota, none; // f32 indices along the axis; n or -1
  bool isMax, last;

  Extremes(Importer &im, Value input, int64_t axis, bool isMax, bool last)
      : im(im), axis(axis), isMax(isMax), last(last) {
    OpBuilder &b = im.builder;
    RankedTensorType type = Importer::tensorType(input);
    Type element = type.getElementType();
    n = type.getDimSize(axis);
    x = isa<FloatType>(element)
            ? input
            : im.convert(input, element.getIntOrFloatBitWidth() > 16
                                    ? b.getF64Type()
                                    : b.getF32Type());
    SmallVector<int64_t> indexShape(type.getRank(), 1);
    indexShape[axis] = n;
    SmallVector<float> indices;
    for (int64_t i = 0; i < n; ++i)
      indices.push_back(float(i));
    Type f32 = b.getF32Type();
    iota = im.materialize(DenseElementsAttr::get(
        RankedTensorType::get(indexShape, f32), ArrayRef<float>(indices)));
    none = im.materialize(DenseElementsAttr::get(
        RankedTensorType::get({}, f32), b.getF32FloatAttr(last ? -1.0f : n)));
  }
  RankedTensorType boolType() const {
    return RankedTensorType::get(Importer::tensorType(x).getShape(),
                                 im.builder.getI1Type());
  }
  /// The extreme of `v` along the axis (kept as size 1).
  Value extreme(Value v) {
    return isMax ? im.reduce<ReduceMaxOp>(v, {axis}, /*keep=*/true)
                 : im.reduce<ReduceMinOp>(v, {axis}, /*keep=*/true);
  }
  /// The first (last) index, in f32, where `v` equals `m` or is NaN (a NaN
  /// is the extreme: max and min propagate it), outside `taken` if given.
  Value index(Value v, Value m, Value taken, bool keep) {
    OpBuilder &b = im.builder;
    Location loc = im.loc;
    RankedTensorType bt = boolType();
    Value match = OrOp::create(
        b, loc, bt, EqualOp::create(b, loc, bt, v, m),
        NotOp::create(b, loc, bt, EqualOp::create(b, loc, bt, v, v)));
    if (taken)
      match = AndOp::create(b, loc, bt, match, NotOp::create(b, loc, bt, taken));
    auto f32Type =
        RankedTensorType::get(bt.getShape(), im.builder.getF32Type());
    Value picked = SelectOp::create(b, loc, f32Type, match, iota, none);
    return last ? im.reduce<ReduceMaxOp>(picked, {axis}, keep)
                : im.reduce<ReduceMinOp>(picked, {axis}, keep);
  }
};
} // namespace

/// The axis of ArgMax, ArgMin or TopK, checked: x a number tensor whose
/// axis has at most 2^24 elements (the indices are held in f32).
static FailureOr<int64_t> getExtremeAxis(Importer &im, Value x,
                                         int64_t axisValue) {
  RankedTensorType type = Importer::tensorType(x);
  if (type.getElementType().isInteger(1))
    return im.error() << "the input must be a number tensor, got 'i1'";
  FailureOr<int64_t> axis = im.normalizeAxis(axisValue, type.getRank());
  if (failed(axis))
    return failure();
  if (type.getDimSize(*axis) > (int64_t(1) << 24))
    return im.error() << "the axis has " << type.getDimSize(*axis)
                      << " elements; indices go up to 2^24";
  return *axis;
}

/// ArgMax and ArgMin along `axis`: the extreme m = reduce_max/min(x), then
/// the first (or, with select_last_index, the last) index where x equals m
/// or, when m is NaN (max and min propagate it), where x is NaN, as
/// NumPy's argmax: reduce_min (reduce_max) of select(match, index, n (or
/// -1)) over indices held in f32 (exact below 2^24). Integers above 16
/// bits compare in f64 (exact below 2^53). The result is int64.
static LogicalResult importArgReduction(Importer &im, bool isMax) {
  if (failed(im.expectInputs(1, 1)) ||
      failed(im.checkAttributes({"axis", "keepdims", "select_last_index"})))
    return failure();
  FailureOr<int64_t> axis =
      getExtremeAxis(im, im.input(0), im.intAttr("axis", 0));
  if (failed(axis))
    return failure();
  bool keep = im.intAttr("keepdims", 1);
  Extremes e(im, im.input(0), *axis, isMax, im.intAttr("select_last_index", 0));
  Value index = e.index(e.x, e.extreme(e.x), Value(), keep);
  return im.setOutput(0, im.convert(index, im.builder.getI64Type()));
}

/// TopK with a constant k (opset 1: the attribute; 10 on: input 1): k
/// rounds of the extreme of what is left, its first index (ties go to the
/// lower index, as ONNX specifies), and that position marked taken (its
/// value replaced by -inf or +inf so that it no longer wins). Values and
/// indices come out sorted (sorted = 0 allows any order); unrolled, so k is
/// at most 64.
static LogicalResult importTopK(Importer &im) {
  if (failed(im.expectInputs(1, 2)) ||
      failed(im.checkAttributes({"axis", "k", "largest", "sorted"})))
    return failure();
  Value x = im.input(0);
  FailureOr<int64_t> axis = getExtremeAxis(im, x, im.intAttr("axis", -1));
  if (failed(axis))
    return failure();
  int64_t k;
  if (im.opset < 10) {
    k = im.intAttr("k", -1);
  } else {
    FailureOr<SmallVector<int64_t>> given = im.getConstantInts(im.input(1), "K");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return im.error() << "K must hold one value, got " << given->size();
    k = given->front();
  }
  RankedTensorType type = Importer::tensorType(x);
  int64_t n = type.getDimSize(*axis);
  if (k < 1 || k > n)
    return im.error() << "k = " << k << " is not in [1, " << n << "]";
  if (k > 64)
    return im.error() << "k = " << k
                      << " is not supported (TopK is unrolled: k <= 64)";
  bool largest = im.intAttr("largest", 1);
  OpBuilder &b = im.builder;
  Location loc = im.loc;
  Extremes e(im, x, *axis, largest, /*last=*/false);
  RankedTensorType xt = Importer::tensorType(e.x);
  Value remaining = e.x, taken;
  Value beaten = im.materialize(DenseElementsAttr::get(
      RankedTensorType::get({}, xt.getElementType()),
      b.getFloatAttr(xt.getElementType(), largest ? -INFINITY : INFINITY)));
  SmallVector<Value> values, indices;
  for (int64_t r = 0; r < k; ++r) {
    Value m = e.extreme(remaining);
    Value index = e.index(remaining, m, taken, /*keep=*/true);
    values.push_back(m);
    indices.push_back(index);
    if (r + 1 == k)
      break;
    // Mark the position taken.
    Value here = EqualOp::create(b, loc, e.boolType(), e.iota, index);
    taken = taken ? OrOp::create(b, loc, e.boolType(), taken, here)
                  : here;
    remaining = SelectOp::create(b, loc, xt, here, beaten, remaining);
  }
  auto concat = [&](ArrayRef<Value> parts) -> Value {
    if (parts.size() == 1)
      return parts.front();
    RankedTensorType t = Importer::tensorType(parts.front());
    SmallVector<int64_t> shape(t.getShape());
    shape[*axis] = parts.size();
    return ConcatOp::create(b, loc,
                            RankedTensorType::get(shape, t.getElementType()),
                            parts, b.getI64IntegerAttr(*axis));
  };
  if (failed(im.setOutput(0, im.convert(concat(values), type.getElementType()))))
    return failure();
  return im.setOutput(1, im.convert(concat(indices), b.getI64Type()));
}

template <Reduction kind> static LogicalResult importReductionOf(Importer &im) {
  return importReduction(im, kind);
}

// The reductions other families write with.
template Value Importer::reduce<ReduceMeanOp>(Value, ArrayRef<int64_t>, bool);
template Value Importer::reduce<ReduceSumOp>(Value, ArrayRef<int64_t>, bool);

void crest::onnx_import::registerReductionConverters(
    OnnxConverterRegistry &registry) {
  // `axes` is an attribute before opset 18 (ReduceSum: 13) and an
  // optional input from then on; getAxes reads either.
  using R = Reduction;
  registry.add("ReduceMean", 1, kNewestOpset, importReductionOf<R::Mean>);
  registry.add("ReduceSum", 1, kNewestOpset, importReductionOf<R::Sum>);
  registry.add("ReduceProd", 1, kNewestOpset, importReductionOf<R::Prod>);
  registry.add("ReduceMax", 1, kNewestOpset, importReductionOf<R::Max>);
  registry.add("ReduceMin", 1, kNewestOpset, importReductionOf<R::Min>);
  registry.add("ReduceL1", 1, kNewestOpset, importReductionOf<R::L1>);
  registry.add("ReduceL2", 1, kNewestOpset, importReductionOf<R::L2>);
  registry.add("ReduceSumSquare", 1, kNewestOpset,
               importReductionOf<R::SumSquare>);
  registry.add("ReduceLogSum", 1, kNewestOpset, importReductionOf<R::LogSum>);
  registry.add("ReduceLogSumExp", 1, kNewestOpset,
               importReductionOf<R::LogSumExp>);
  registry.add("ArgMax", 1, kNewestOpset, [](Importer &im) {
    return importArgReduction(im, /*isMax=*/true);
  });
  registry.add("ArgMin", 1, kNewestOpset, [](Importer &im) {
    return importArgReduction(im, /*isMax=*/false);
  });
  registry.add("TopK", 1, kNewestOpset, importTopK);
}
