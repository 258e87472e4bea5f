//===- Fold.cpp - Constant folding at import time -------------------------===//
//
// Exporters compute shapes at run time (Shape -> Gather -> Div -> Unsqueeze
// -> Concat -> Reshape on int64 tensors); with static shapes every such
// value is a constant, so the converters fold them here: binary arithmetic
// with NumPy broadcasting (Importer::binary), comparisons, casts, and the
// element picks of Gather, Slice, Concat, Expand and Where. Integers follow
// the scalar semantics core (crest/Semantics/Scalar.h: wrap-around add,
// sub and mul, truncating division, ONNX Mod's two remainders), exactly in
// 64 bits; floats compute in double and round once to the result type.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "crest/Semantics/Scalar.h"

#include <cmath>

using namespace crest;
using namespace crest::onnx_import;

DenseElementsAttr Importer::getConstant(Value v) {
  DenseElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

SmallVector<int64_t> Importer::getInts(DenseElementsAttr attr) {
  SmallVector<int64_t> out;
  out.reserve(attr.getNumElements());
  bool isBool = attr.getElementType().isInteger(1);
  for (const APInt &v : attr.getValues<APInt>())
    out.push_back(isBool ? int64_t(v.getZExtValue()) : v.getSExtValue());
  return out;
}

DenseElementsAttr Importer::getIntsAttr(RankedTensorType type,
                                        ArrayRef<int64_t> values) {
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> bits;
  bits.reserve(values.size());
  for (int64_t v : values)
    bits.push_back(APInt(width, uint64_t(v), /*isSigned=*/true,
                         /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, bits);
}

SmallVector<int64_t> Importer::broadcastIndices(ArrayRef<int64_t> shape,
                                                ArrayRef<int64_t> in) {
  int64_t count = product(shape);
  SmallVector<int64_t> index(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, source = 0, stride = 1;
    for (int64_t d = shape.size() - 1, e = in.size() - 1; d >= 0; --d, --e) {
      int64_t coord = rest % shape[d];
      rest /= shape[d];
      if (e >= 0) {
        if (in[e] != 1)
          source += coord * stride;
        stride *= in[e];
      }
    }
    index[i] = source;
  }
  return index;
}

DenseElementsAttr Importer::pickElements(ArrayRef<DenseElementsAttr> sources,
                                         ArrayRef<int64_t> index,
                                         RankedTensorType type) {
  // Reads each picked element in place (random access into the sources),
  // so that a few elements of a large constant cost only themselves.
  SmallVector<int64_t> starts;
  int64_t total = 0;
  for (DenseElementsAttr s : sources) {
    starts.push_back(total);
    total += s.getNumElements();
  }
  auto pick = [&](auto sample) {
    using T = decltype(sample);
    SmallVector<decltype(sources[0].getValues<T>().begin())> begins;
    for (DenseElementsAttr s : sources)
      begins.push_back(s.getValues<T>().begin());
    SmallVector<T> out;
    out.reserve(index.size());
    for (int64_t i : index) {
      size_t k = llvm::upper_bound(starts, i) - starts.begin() - 1;
      out.push_back(*(begins[k] + (i - starts[k])));
    }
    return DenseElementsAttr::get(type, out);
  };
  if (auto f = dyn_cast<FloatType>(type.getElementType()))
    return pick(APFloat(f.getFloatSemantics()));
  return pick(APInt());
}

/// The scalar core's view of an integer element type.
static sem::ScalarType getIntType(Type type) {
  auto i = cast<IntegerType>(type);
  return sem::ScalarType::getInt(i.getWidth(), i.isUnsigned());
}

static StringRef getOpName(FoldOp op) {
  switch (op) {
  case FoldOp::Add:
    return "Add";
  case FoldOp::Sub:
    return "Sub";
  case FoldOp::Mul:
    return "Mul";
  case FoldOp::Div:
    return "Div";
  case FoldOp::Pow:
    return "Pow";
  case FoldOp::Max:
    return "Max";
  case FoldOp::Min:
    return "Min";
  case FoldOp::Mod:
  case FoldOp::Fmod:
    return "Mod";
  case FoldOp::Equal:
    return "Equal";
  case FoldOp::Less:
    return "Less";
  case FoldOp::LessEqual:
    return "LessOrEqual";
  case FoldOp::Greater:
    return "Greater";
  case FoldOp::GreaterEqual:
    return "GreaterOrEqual";
  case FoldOp::And:
    return "And";
  case FoldOp::Or:
    return "Or";
  case FoldOp::Xor:
    return "Xor";
  }
  return "";
}

/// The scalar core's predicate for a bool-valued FoldOp.
static std::optional<sem::ElementwiseOp> getPredicate(FoldOp op) {
  switch (op) {
  case FoldOp::Equal:
    return sem::ElementwiseOp::Equal;
  case FoldOp::Less:
    return sem::ElementwiseOp::Less;
  case FoldOp::LessEqual:
    return sem::ElementwiseOp::LessEqual;
  case FoldOp::Greater:
    return sem::ElementwiseOp::Greater;
  case FoldOp::GreaterEqual:
    return sem::ElementwiseOp::GreaterEqual;
  case FoldOp::And:
    return sem::ElementwiseOp::And;
  case FoldOp::Or:
    return sem::ElementwiseOp::Or;
  case FoldOp::Xor:
    return sem::ElementwiseOp::Xor;
  default:
    return std::nullopt;
  }
}

FailureOr<DenseElementsAttr> Importer::foldBinary(FoldOp op,
                                                  DenseElementsAttr lhs,
                                                  DenseElementsAttr rhs,
                                                  RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> li = broadcastIndices(shape, lhs.getType().getShape()),
                       ri = broadcastIndices(shape, rhs.getType().getShape());
  int64_t count = li.size();

  if (isa<FloatType>(lhs.getElementType())) {
    auto values = [](DenseElementsAttr attr) {
      SmallVector<double> out;
      for (const APFloat &v : attr.getValues<APFloat>()) {
        APFloat d = v;
        bool lost;
        d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        out.push_back(d.convertToDouble());
      }
      return out;
    };
    SmallVector<double> xs = values(lhs), ys = values(rhs);
    if (std::optional<sem::ElementwiseOp> p = getPredicate(op)) {
      SmallVector<bool> out;
      for (int64_t i = 0; i < count; ++i)
        out.push_back(sem::evaluate(*p, {xs[li[i]], ys[ri[i]]},
                                    sem::ScalarType::getInt(1)) != 0);
      return DenseElementsAttr::get(type, ArrayRef<bool>(out));
    }
    const llvm::fltSemantics &semantics =
        cast<FloatType>(type.getElementType()).getFloatSemantics();
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < count; ++i) {
      double x = xs[li[i]], y = ys[ri[i]], z = 0;
      switch (op) {
      case FoldOp::Add:
        z = x + y;
        break;
      case FoldOp::Sub:
        z = x - y;
        break;
      case FoldOp::Mul:
        z = x * y;
        break;
      case FoldOp::Div:
        z = x / y;
        break;
      case FoldOp::Pow:
        z = std::pow(x, y);
        break;
      case FoldOp::Max:
        z = std::max(x, y);
        break;
      case FoldOp::Min:
        z = std::min(x, y);
        break;
      case FoldOp::Mod:
      case FoldOp::Fmod:
        // Float Mod requires fmod = 1 (the converter checks): C's fmod.
        z = std::fmod(x, y);
        break;
      default: // the predicates, above
        break;
      }
      APFloat value(z);
      bool lost;
      value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      out.push_back(value);
    }
    return DenseElementsAttr::get(type, out);
  }

  SmallVector<int64_t> xs = getInts(lhs), ys = getInts(rhs);
  if (std::optional<sem::ElementwiseOp> p = getPredicate(op)) {
    // Exact in 64 bits; unsigned operands order as unsigned.
    bool isUnsigned = lhs.getElementType().isUnsignedInteger();
    SmallVector<bool> out;
    for (int64_t i = 0; i < count; ++i)
      out.push_back(*sem::evaluateIntPredicate(*p, xs[li[i]], ys[ri[i]],
                                               isUnsigned));
    return DenseElementsAttr::get(type, ArrayRef<bool>(out));
  }
  sem::ScalarType result = getIntType(type.getElementType());
  SmallVector<int64_t> out;
  out.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t x = xs[li[i]], y = ys[ri[i]];
    std::optional<int64_t> z;
    switch (op) {
    case FoldOp::Add:
      z = sem::evaluateInt(sem::ElementwiseOp::Add, x, y, result);
      break;
    case FoldOp::Sub:
      z = sem::evaluateInt(sem::ElementwiseOp::Sub, x, y, result);
      break;
    case FoldOp::Mul:
      z = sem::evaluateInt(sem::ElementwiseOp::Mul, x, y, result);
      break;
    case FoldOp::Div:
      z = sem::evaluateInt(sem::ElementwiseOp::Div, x, y, result);
      break;
    case FoldOp::Max:
      z = sem::evaluateInt(sem::ElementwiseOp::Max, x, y, result);
      break;
    case FoldOp::Min:
      z = sem::evaluateInt(sem::ElementwiseOp::Min, x, y, result);
      break;
    case FoldOp::Mod:
      z = sem::remInt(x, y, /*signOfDividend=*/false, result);
      break;
    case FoldOp::Fmod:
      z = sem::remInt(x, y, /*signOfDividend=*/true, result);
      break;
    default: // Pow, and the predicates above
      break;
    }
    if (!z) {
      if (y == 0)
        return error() << "integer " << getOpName(op) << " divides " << x
                       << " by zero (element " << i
                       << " of the folded result)";
      return error() << "integer " << getOpName(op) << " is not supported";
    }
    out.push_back(*z);
  }
  return getIntsAttr(type, out);
}

DenseElementsAttr Importer::foldCast(DenseElementsAttr attr, Type to) {
  Type from = attr.getElementType();
  auto type = RankedTensorType::get(attr.getType().getShape(), to);
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return {};
  if (auto f = dyn_cast<FloatType>(to)) {
    // Integer to float: round to nearest even.
    SmallVector<APFloat> out;
    for (int64_t v : getInts(attr)) {
      APFloat value(f.getFloatSemantics());
      value.convertFromAPInt(APInt(64, uint64_t(v), /*isSigned=*/true),
                             /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
      out.push_back(value);
    }
    return DenseElementsAttr::get(type, out);
  }
  sem::ScalarType target = getIntType(to);
  SmallVector<int64_t> out;
  if (isa<FloatType>(from)) {
    // Float to integer: toward zero, saturating, NaN -> 0.
    for (const APFloat &v : attr.getValues<APFloat>()) {
      APFloat d = v;
      bool lost;
      d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back(sem::castFloatToInt(d.convertToDouble(), target.intBits,
                                        target.isUnsigned));
    }
  } else {
    // Integer to integer: widening is exact, narrowing saturates.
    for (int64_t v : getInts(attr))
      out.push_back(sem::castIntToInt(v, target.intBits, target.isUnsigned));
  }
  return getIntsAttr(type, out);
}

LogicalResult Importer::expectConstantInputs(StringRef what) {
  for (auto [i, v] : llvm::enumerate(inputs))
    if (v && !getConstant(v))
      return error() << "input #" << i << " ('" << node->input(i)
                     << "') is computed at run time; " << what
                     << " folds only on constants (shape arithmetic on "
                        "static shapes), and Crest has no kernel for it";
  return success();
}
