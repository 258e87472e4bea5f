//===- Reference.cpp - Host reference evaluator
//----------------------------===//
//
// See Reference.h for the semantics and the tolerance formulas.
//
//===----------------------------------------------------------------------===//

#include "crest/runtime/Reference.h"

#include "crest/Semantics/Scalar.h"
#include "crest/Target/ChipTable.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;
using crest::pkg::ElementType;

namespace crest::rt {

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message.str());
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

static const fltSemantics *getSemantics(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return &APFloat::IEEEdouble();
  case ElementType::F32:
    return &APFloat::IEEEsingle();
  case ElementType::F16:
    return &APFloat::IEEEhalf();
  case ElementType::BF16:
    return &APFloat::BFloat();
  case ElementType::F8E4M3FNUZ:
    return &APFloat::Float8E4M3FNUZ();
  case ElementType::F8E5M2FNUZ:
    return &APFloat::Float8E5M2FNUZ();
  case ElementType::F8E4M3FN:
    return &APFloat::Float8E4M3FN();
  case ElementType::F8E5M2:
    return &APFloat::Float8E5M2();
  default:
    return nullptr;
  }
}

static uint64_t loadBits(const uint8_t *p, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

std::vector<double> decodeElements(ElementType type, ArrayRef<uint8_t> data) {
  unsigned size = pkg::getElementTypeSize(type);
  size_t n = data.size() / size;
  std::vector<double> out(n);
  const fltSemantics *sem = getSemantics(type);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = loadBits(data.data() + i * size, size);
    switch (type) {
    case ElementType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      out[i] = d;
      break;
    }
    case ElementType::F32: {
      uint32_t b = uint32_t(bits);
      float f;
      std::memcpy(&f, &b, 4);
      out[i] = f;
      break;
    }
    case ElementType::I64:
      out[i] = double(int64_t(bits));
      break;
    case ElementType::I32:
      out[i] = double(int32_t(bits));
      break;
    case ElementType::I16:
      out[i] = double(int16_t(bits));
      break;
    case ElementType::I8:
      out[i] = double(int8_t(bits));
      break;
    case ElementType::U8:
      out[i] = double(uint8_t(bits));
      break;
    case ElementType::U16:
      out[i] = double(uint16_t(bits));
      break;
    case ElementType::U32:
      out[i] = double(uint32_t(bits));
      break;
    case ElementType::U64:
      out[i] = double(uint64_t(bits));
      break;
    case ElementType::I1:
      out[i] = bits ? 1.0 : 0.0;
      break;
    default: {
      APFloat f(*sem, APInt(size * 8, bits));
      bool lost;
      f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out[i] = f.convertToDouble();
      break;
    }
    }
  }
  return out;
}

sem::ScalarType getScalarType(ElementType type) {
  if (const fltSemantics *sem = getSemantics(type))
    return sem::ScalarType::getFloat(*sem);
  switch (type) {
  case ElementType::I64:
    return sem::ScalarType::getInt(64);
  case ElementType::I32:
    return sem::ScalarType::getInt(32);
  case ElementType::I16:
    return sem::ScalarType::getInt(16);
  case ElementType::I8:
    return sem::ScalarType::getInt(8);
  case ElementType::U8:
    return sem::ScalarType::getInt(8, /*isUnsigned=*/true);
  case ElementType::U16:
    return sem::ScalarType::getInt(16, /*isUnsigned=*/true);
  case ElementType::U32:
    return sem::ScalarType::getInt(32, /*isUnsigned=*/true);
  case ElementType::U64:
    return sem::ScalarType::getInt(64, /*isUnsigned=*/true);
  default:
    return sem::ScalarType::getInt(1);
  }
}

double roundToType(double value, ElementType type) {
  return sem::castTo(value, getScalarType(type));
}

std::optional<double> getUnitRoundoff(StringRef name) {
  if (name == "f64")
    return std::ldexp(1.0, -53);
  if (name == "f32")
    return std::ldexp(1.0, -24);
  if (name == "xf32" || name == "tf32" || name == "f16")
    return std::ldexp(1.0, -11);
  if (name == "bf16")
    return std::ldexp(1.0, -8);
  if (name.starts_with("f8E4M3"))
    return std::ldexp(1.0, -4);
  if (name.starts_with("f8E5M2"))
    return std::ldexp(1.0, -3);
  if (name.starts_with("i") || name.starts_with("ui") || name.starts_with("si"))
    return 0.0;
  return std::nullopt;
}

double getUnitRoundoff(ElementType type) {
  return getUnitRoundoff(pkg::getElementTypeName(type)).value_or(0.0);
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

namespace {

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

class Evaluator {
public:
  Evaluator(const pkg::Package &package) : package(package) {
    values.resize(package.manifest.values.size());
    defined.assign(values.size(), false);
  }

  Error setInput(uint32_t id, const HostTensor &tensor) {
    const pkg::Value &v = package.manifest.values[id];
    if (!(tensor.type == v.type))
      return makeError("input '" + v.name + "': expected " + v.type.describe() +
                       ", given " + tensor.type.describe());
    define(id, decodeElements(v.type.element, tensor.data),
           std::vector<double>(v.type.getNumElements(), 0.0));
    return Error::success();
  }

  Error run() {
    const pkg::Manifest &m = package.manifest;
    for (const pkg::Value &v : m.values) {
      if (v.kind != pkg::ValueKind::Weight)
        continue;
      uint32_t id = &v - m.values.data();
      ArrayRef<uint8_t> bytes = ArrayRef<uint8_t>(package.weights)
                                    .slice(v.weightOffset, v.weightSize);
      define(id, decodeElements(v.type.element, bytes),
             std::vector<double>(v.type.getNumElements(), 0.0));
    }
    for (size_t i = 0; i < m.graph.size(); ++i) {
      const pkg::Node &node = m.graph[i];
      if (Error e = evaluate(node)) {
        std::string where = node.location.empty() ? "" : node.location + ": ";
        return makeError(formatv("reference graph node {0} ({1}{2}): {3}", i,
                                 where, node.op, toString(std::move(e))));
      }
    }
    return Error::success();
  }

  std::vector<RefTensor> takeValues() { return std::move(values); }

private:
  void define(uint32_t id, std::vector<double> vals, std::vector<double> tol) {
    values[id].type = package.manifest.values[id].type;
    values[id].values = std::move(vals);
    values[id].tolerance = std::move(tol);
    defined[id] = true;
  }

  const pkg::TensorType &typeOf(uint32_t id) const {
    return package.manifest.values[id].type;
  }

  Expected<const RefTensor *> operand(const pkg::Node &node, unsigned i) {
    if (i >= node.inputs.size())
      return makeError(formatv("expects at least {0} operands, has {1}", i + 1,
                               node.inputs.size()));
    uint32_t id = node.inputs[i];
    if (!defined[id])
      return makeError("operand '" + package.manifest.values[id].name +
                       "' is neither an input, a weight nor computed "
                       "before");
    return &values[id];
  }

  /// Rounds `v` to the result's type and defines the result.
  Error finish(const pkg::Node &node, std::vector<double> v,
               std::vector<double> t, unsigned result = 0) {
    if (result >= node.outputs.size())
      return makeError("has no result");
    uint32_t id = node.outputs[result];
    const pkg::TensorType &type = typeOf(id);
    if (int64_t(v.size()) != type.getNumElements())
      return makeError(formatv("computes {0} elements, its result {1} has "
                               "{2}",
                               v.size(), type.describe(),
                               type.getNumElements()));
    double u = getUnitRoundoff(type.element);
    bool isFloat = pkg::isFloatType(type.element);
    for (size_t i = 0; i < v.size(); ++i) {
      double exact = v[i];
      v[i] = roundToType(exact, type.element);
      if (isFloat) {
        if (t[i] > 0)
          t[i] += 2 * u * std::fabs(v[i]);
        continue;
      }
      // Integers: every value within exact +- t converts (monotonically)
      // into [cast(exact - t), cast(exact + t)]. NaN converts to exactly 0
      // whatever its (NaN) tolerance.
      if (std::isnan(exact) || !(t[i] > 0)) {
        t[i] = 0;
        continue;
      }
      double lo = roundToType(exact - t[i], type.element);
      double hi = roundToType(exact + t[i], type.element);
      t[i] = std::max(hi - v[i], v[i] - lo);
    }
    define(id, std::move(v), std::move(t));
    return Error::success();
  }

  /// The compute precision of kernels producing `type`.
  double computeRoundoff(uint32_t resultId) const {
    return typeOf(resultId).element == ElementType::F64 ? std::ldexp(1.0, -53)
                                                        : std::ldexp(1.0, -24);
  }

  bool flag(const pkg::Node &node, StringRef name) const {
    if (const json::Value *v = node.attributes.get(name)) {
      if (std::optional<bool> b = v->getAsBoolean())
        return *b;
      return true; // a unit attribute present with another spelling
    }
    return false;
  }
  int64_t integer(const pkg::Node &node, StringRef name, int64_t def) const {
    if (std::optional<int64_t> v = node.attributes.getInteger(name))
      return *v;
    return def;
  }
  /// A float attribute: a number, or "inf", "-inf" or "nan" (written as
  /// strings, since JSON has no non-finite numbers).
  std::optional<double> number(const pkg::Node &node, StringRef name) const {
    if (std::optional<StringRef> s = node.attributes.getString(name)) {
      if (*s == "inf")
        return INFINITY;
      if (*s == "-inf")
        return -INFINITY;
      if (*s == "nan")
        return NAN;
      return std::nullopt;
    }
    return node.attributes.getNumber(name);
  }
  Expected<std::vector<int64_t>> array(const pkg::Node &node, StringRef name,
                                       std::vector<int64_t> def) const {
    const json::Array *a = node.attributes.getArray(name);
    if (!a)
      return def;
    std::vector<int64_t> out;
    for (const json::Value &v : *a) {
      std::optional<int64_t> i = v.getAsInteger();
      if (!i)
        return makeError("attribute '" + name + "' is not an integer array");
      out.push_back(*i);
    }
    return out;
  }

  /// The precision's type names (lhs, rhs, acc, out).
  Expected<std::array<std::string, 4>>
  precision(const pkg::Node &node, StringRef attr = "precision") const {
    std::array<std::string, 4> names;
    static const char *keys[] = {"lhs", "rhs", "acc", "out"};
    if (const json::Object *p = node.attributes.getObject(attr)) {
      for (int i = 0; i < 4; ++i) {
        std::optional<StringRef> s = p->getString(keys[i]);
        if (!s)
          return makeError(std::string("precision has no '") + keys[i] + "'");
        names[i] = s->str();
      }
    } else if (std::optional<StringRef> s = node.attributes.getString(attr)) {
      // "#crest.precision<lhs = f16, rhs = f16, acc = f32, out = f32>"
      for (int i = 0; i < 4; ++i) {
        size_t at = s->find((std::string(keys[i]) + " = "));
        if (at == StringRef::npos)
          return makeError("cannot read precision '" + *s + "'");
        StringRef rest = s->drop_front(at + strlen(keys[i]) + 3);
        names[i] = rest.take_until([](char c) {
                         return c == ',' || c == '>' || c == ' ';
                       })
                       .str();
      }
    } else {
      return makeError("no '" + attr + "' attribute");
    }
    for (const std::string &n : names)
      if (!getUnitRoundoff(n))
        return makeError("unknown type '" + n + "' in precision");
    return names;
  }

  Error evaluate(const pkg::Node &node);
  Error contraction(const pkg::Node &node);
  Error conv2d(const pkg::Node &node);
  Error unary(const pkg::Node &node);
  Error binary(const pkg::Node &node);
  Error softmax(const pkg::Node &node);
  Error attention(const pkg::Node &node);
  Error layerNorm(const pkg::Node &node);
  Error pool(const pkg::Node &node);
  Error reduction(const pkg::Node &node, std::vector<int64_t> dims);
  Error dataMovement(const pkg::Node &node);
  /// Defines the result as a copy of elements of the operands: result
  /// element i is `operands[sources[i].first]` element `sources[i].second`,
  /// or an exact zero where `first` is negative. Exact: no rounding.
  Error gatherElements(const pkg::Node &node,
                       ArrayRef<const RefTensor *> operands,
                       ArrayRef<std::pair<int, int64_t>> sources);

  const pkg::Package &package;
  std::vector<RefTensor> values;
  std::vector<bool> defined;
};

Error Evaluator::evaluate(const pkg::Node &node) {
  StringRef op = node.op;
  if (op == "attention")
    return attention(node);
  if (node.outputs.size() != 1)
    return makeError(
        formatv("has {0} results, expected 1", node.outputs.size()));
  if (op == "matmul" || op == "batch_matmul")
    return contraction(node);
  if (op == "conv2d")
    return conv2d(node);
  if (is_contained({"relu", "sigmoid", "tanh", "erf", "exp", "sqrt", "neg",
                    "abs", "hardswish", "gelu", "hardsigmoid", "clip", "cast",
                    "leaky_relu", "log", "floor", "ceil", "round", "not"},
                   op))
    return unary(node);
  if (is_contained({"add", "sub", "mul", "div", "max", "min", "pow", "equal",
                    "less", "less_equal", "greater", "greater_equal", "and",
                    "or", "xor", "select"},
                   op))
    return binary(node);
  if (op == "softmax")
    return softmax(node);
  if (op == "layer_norm")
    return layerNorm(node);
  if (op == "max_pool2d" || op == "avg_pool2d" || op == "global_avg_pool2d")
    return pool(node);
  if (is_contained({"reduce_mean", "reduce_sum", "reduce_prod", "reduce_max",
                    "reduce_min"},
                   op)) {
    Expected<std::vector<int64_t>> dims = array(node, "dims", {});
    if (!dims)
      return dims.takeError();
    return reduction(node, *dims);
  }
  if (is_contained({"reshape", "transpose", "concat", "slice", "gather"}, op))
    return dataMovement(node);
  return makeError("the reference evaluator does not know op '" + op + "'");
}

/// The chip-table kind of a precision's operand type name, for the f16 and
/// bf16 forms whose denormal behaviour the chip table records.
static std::optional<ScalarKind> getMmaOperandKind(StringRef name) {
  if (name == "f16")
    return ScalarKind::F16;
  if (name == "bf16")
    return ScalarKind::BF16;
  return std::nullopt;
}

Error Evaluator::contraction(const pkg::Node &node) {
  Expected<const RefTensor *> a = operand(node, 0), b = operand(node, 1);
  if (!a)
    return a.takeError();
  if (!b)
    return b.takeError();
  Expected<std::array<std::string, 4>> prec = precision(node);
  if (!prec)
    return prec.takeError();
  bool batched = node.op == "batch_matmul";
  unsigned rank = batched ? 3 : 2;
  const std::vector<int64_t> &as = (*a)->type.shape, &bs = (*b)->type.shape;
  if (as.size() != rank || bs.size() != rank)
    return makeError(formatv("operands must have rank {0}", rank));
  bool ta = flag(node, "transpose_lhs"), tb = flag(node, "transpose_rhs");
  int64_t M = ta ? as[rank - 1] : as[rank - 2];
  int64_t K = ta ? as[rank - 2] : as[rank - 1];
  int64_t Kb = tb ? bs[rank - 1] : bs[rank - 2];
  int64_t N = tb ? bs[rank - 2] : bs[rank - 1];
  int64_t BA = batched ? as[0] : 1, BB = batched ? bs[0] : 1;
  if (K != Kb)
    return makeError(formatv("K of lhs ({0}) and rhs ({1}) differ", K, Kb));
  if (BA != BB && BA != 1 && BB != 1)
    return makeError("batch sizes do not broadcast");
  int64_t B = std::max(BA, BB);
  double uLhs = *getUnitRoundoff((*prec)[0]),
         uRhs = *getUnitRoundoff((*prec)[1]);
  double uAcc = *getUnitRoundoff((*prec)[2]);
  // Operands stored wider than the precision's operand type are rounded to
  // it on the device (xf32).
  double roundA = getUnitRoundoff((*a)->type.element) < uLhs ? uLhs : 0;
  double roundB = getUnitRoundoff((*b)->type.element) < uRhs ? uRhs : 0;
  std::vector<double> out(B * M * N), tol(B * M * N);
  const std::vector<double> &at = (*a)->tolerance, &bt = (*b)->tolerance;
  // Matrix instructions that the chip table says flush subnormal A/B
  // inputs (gfx90a's f16 and bf16 MFMAs) read zeros for them; their D
  // outputs flush too, each partial sum by less than the smallest f32
  // normal, once per instruction along K (at most K of them).
  std::vector<double> av = (*a)->values, bv = (*b)->values;
  double flushSlack = 0;
  if (std::optional<ScalarKind> lhsKind = getMmaOperandKind((*prec)[0]))
    if (const ChipInfo *chip = lookupChip(package.manifest.chip);
        chip && sem::mmaFlushesDenormals(*chip, *lhsKind)) {
      const fltSemantics &lhsSem = *sem::getSemantics(*lhsKind);
      const fltSemantics &rhsSem = *sem::getSemantics(
          getMmaOperandKind((*prec)[1]).value_or(*lhsKind));
      for (double &x : av)
        x = sem::flushDenormal(x, lhsSem);
      for (double &y : bv)
        y = sem::flushDenormal(y, rhsSem);
      flushSlack = double(K) * std::ldexp(1.0, -126);
    }
  for (int64_t bi = 0; bi < B; ++bi) {
    int64_t aBase = (BA == 1 ? 0 : bi) * M * K;
    int64_t bBase = (BB == 1 ? 0 : bi) * K * N;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double sum = 0, absSum = 0, prop = 0;
        for (int64_t k = 0; k < K; ++k) {
          int64_t ai = aBase + (ta ? k * M + i : i * K + k);
          int64_t bj = bBase + (tb ? j * K + k : k * N + j);
          double x = av[ai], y = bv[bj];
          sum += x * y;
          absSum += std::fabs(x * y);
          prop +=
              std::fabs(x) * bt[bj] + std::fabs(y) * at[ai] + at[ai] * bt[bj];
        }
        out[(bi * M + i) * N + j] = sum;
        tol[(bi * M + i) * N + j] =
            prop + (roundA + roundB + double(K) * uAcc) * absSum +
            (absSum > 0 ? flushSlack : 0);
      }
  }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::conv2d(const pkg::Node &node) {
  Expected<const RefTensor *> x = operand(node, 0), w = operand(node, 1);
  if (!x)
    return x.takeError();
  if (!w)
    return w.takeError();
  Expected<std::array<std::string, 4>> prec = precision(node);
  if (!prec)
    return prec.takeError();
  Expected<std::vector<int64_t>> strides = array(node, "strides", {1, 1});
  Expected<std::vector<int64_t>> pads = array(node, "pads", {0, 0, 0, 0});
  Expected<std::vector<int64_t>> dil = array(node, "dilations", {1, 1});
  if (!strides || !pads || !dil) {
    consumeError(strides.takeError());
    consumeError(pads.takeError());
    consumeError(dil.takeError());
    return makeError("bad strides, pads or dilations");
  }
  int64_t groups = integer(node, "groups", 1);
  const std::vector<int64_t> &xs = (*x)->type.shape, &ws = (*w)->type.shape;
  const std::vector<int64_t> &ys = typeOf(node.outputs[0]).shape;
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4 ||
      strides->size() != 2 || pads->size() != 4 || dil->size() != 2 ||
      groups < 1)
    return makeError("bad conv2d shapes or attributes");
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3];
  int64_t F = ws[0], CG = ws[1], KH = ws[2], KW = ws[3];
  int64_t OH = ys[2], OW = ys[3];
  if (C % groups || F % groups || CG != C / groups || ys[0] != N || ys[1] != F)
    return makeError("inconsistent conv2d shapes");
  double uAcc = *getUnitRoundoff((*prec)[2]);
  int64_t FG = F / groups, K = CG * KH * KW;
  std::vector<double> out(N * F * OH * OW), tol(out.size());
  const std::vector<double> &xv = (*x)->values, &xt = (*x)->tolerance;
  const std::vector<double> &wv = (*w)->values, &wt = (*w)->tolerance;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f) {
      int64_t g = f / FG;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = 0, absSum = 0, prop = 0;
          for (int64_t c = 0; c < CG; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = oh * (*strides)[0] - (*pads)[0] + kh * (*dil)[0];
                int64_t iw = ow * (*strides)[1] - (*pads)[1] + kw * (*dil)[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                int64_t xi = ((n * C + g * CG + c) * H + ih) * W + iw;
                int64_t wi = ((f * CG + c) * KH + kh) * KW + kw;
                sum += xv[xi] * wv[wi];
                absSum += std::fabs(xv[xi] * wv[wi]);
                prop += std::fabs(xv[xi]) * wt[wi] +
                        std::fabs(wv[wi]) * xt[xi] + xt[xi] * wt[wi];
              }
          int64_t o = ((n * F + f) * OH + oh) * OW + ow;
          out[o] = sum;
          tol[o] = prop + double(K) * uAcc * absSum;
        }
    }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::unary(const pkg::Node &node) {
  Expected<const RefTensor *> in = operand(node, 0);
  if (!in)
    return in.takeError();
  StringRef op = node.op;
  const std::vector<double> &xv = (*in)->values, &xt = (*in)->tolerance;
  size_t n = xv.size();
  std::vector<double> out(n), tol(n);
  double uc = computeRoundoff(node.outputs[0]);
  double alpha =
      number(node, "alpha").value_or(op == "leaky_relu" ? 0.01 : 0.2);
  double beta = number(node, "beta").value_or(0.5);
  double lo = number(node, "min").value_or(-INFINITY);
  double hi = number(node, "max").value_or(INFINITY);
  // The manifest spells the enum as its value (1) or its name ("tanh").
  const json::Value *approximate = node.attributes.get("approximate");
  bool tanhGelu = approximate && (approximate->getAsString() == "tanh" ||
                                  approximate->getAsInteger() == 1);
  // The value is the scalar core's (crest/Semantics, the rules the kernels
  // implement); the tolerance below bounds the kernels' deviation from it.
  std::optional<sem::ElementwiseOp> eop = sem::lookupElementwiseOp(op, tanhGelu);
  if (!eop)
    return makeError("is not an elementwise op");
  sem::ScalarType resultType = getScalarType(typeOf(node.outputs[0]).element);
  sem::OpParams params;
  params.alpha = alpha, params.beta = beta, params.lo = lo, params.hi = hi;
  for (size_t i = 0; i < n; ++i) {
    double x = xv[i], t = xt[i], lip = 1, impl = 0;
    double y = sem::evaluate(*eop, {x}, resultType, params);
    bool transcendental = true;
    if (op == "relu" || op == "neg" || op == "abs" || op == "cast" ||
        op == "clip" || op == "not") {
      transcendental = false;
    } else if (op == "leaky_relu") {
      lip = std::max(1.0, std::fabs(alpha));
      impl = 4 * uc * std::fabs(y);
      transcendental = false;
    } else if (op == "log") {
      lip = x - t > 0 ? 1 / (x - t) : INFINITY;
    } else if (op == "floor" || op == "ceil" || op == "round") {
      // Exact, monotonic step functions: an input anywhere in x +- t lands
      // between the results at the interval's ends.
      lip = 0;
      if (t > 0)
        impl = std::max(sem::evaluate(*eop, {x + t}, resultType) - y,
                        y - sem::evaluate(*eop, {x - t}, resultType));
      transcendental = false;
    } else if (op == "hardsigmoid") {
      lip = std::fabs(alpha);
      impl = 4 * uc * (std::fabs(y) + std::fabs(alpha * x));
      transcendental = false;
    } else if (op == "sigmoid") {
      lip = 0.25;
    } else if (op == "erf") {
      lip = 2 / std::sqrt(M_PI);
    } else if (op == "exp") {
      lip = std::exp(x + t);
    } else if (op == "sqrt") {
      lip = x - t > 0 ? 0.5 / std::sqrt(x - t) : 0;
      if (!(x - t > 0))
        t = std::sqrt(t), lip = 1; // |sqrt(a) - sqrt(b)| <= sqrt(|a - b|)
      // Correctly rounded on the device: exact inputs give the same bits.
      transcendental = false;
    } else if (op == "gelu") {
      lip = 1.13;
    } else if (op == "hardswish") {
      lip = 1.5;
      impl = 4 * uc * (std::fabs(y) + std::fabs(x));
      transcendental = false;
    }
    if (transcendental)
      impl = 8 * uc * (std::fabs(y) + std::fabs(x));
    out[i] = y;
    tol[i] = lip * t + impl;
  }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::binary(const pkg::Node &node) {
  // Two operands, or three for select.
  SmallVector<const RefTensor *, 3> args;
  for (unsigned k = 0; k < node.inputs.size(); ++k) {
    Expected<const RefTensor *> t = operand(node, k);
    if (!t)
      return t.takeError();
    args.push_back(*t);
  }
  if (args.size() < 2)
    return makeError("expects two or three operands");
  const RefTensor *const *a = &args[0], *const *b = &args[1];
  const std::vector<int64_t> &ys = typeOf(node.outputs[0]).shape;
  unsigned rank = ys.size();
  // NumPy broadcasting: align at the trailing dimension; size-1 dimensions
  // (and missing leading ones) have stride 0.
  auto broadcastStrides =
      [&](const std::vector<int64_t> &shape) -> Expected<std::vector<int64_t>> {
    if (shape.size() > rank)
      return makeError("operand rank exceeds the result's");
    std::vector<int64_t> own = stridesOf(shape), out(rank, 0);
    for (unsigned i = 0; i < shape.size(); ++i) {
      unsigned d = rank - shape.size() + i;
      if (shape[i] == ys[d])
        out[d] = own[i];
      else if (shape[i] != 1)
        return makeError("operand shape does not broadcast to the result");
    }
    return out;
  };
  Expected<std::vector<int64_t>> sa = broadcastStrides((*a)->type.shape);
  if (!sa)
    return sa.takeError();
  Expected<std::vector<int64_t>> sb = broadcastStrides((*b)->type.shape);
  if (!sb)
    return sb.takeError();
  std::vector<int64_t> scZero(rank, 0);
  Expected<std::vector<int64_t>> sc =
      args.size() > 2 ? broadcastStrides(args[2]->type.shape)
                      : Expected<std::vector<int64_t>>(scZero);
  if (!sc)
    return sc.takeError();
  int64_t n = numElements(ys);
  std::vector<int64_t> ysStrides = stridesOf(ys);
  std::vector<double> out(n), tol(n);
  StringRef op = node.op;
  double uc = computeRoundoff(node.outputs[0]);
  std::optional<sem::ElementwiseOp> eop = sem::lookupElementwiseOp(op);
  if (!eop)
    return makeError("is not an elementwise op");
  sem::ScalarType resultType = getScalarType(typeOf(node.outputs[0]).element);
  if (sem::getNumOperands(*eop) != args.size())
    return makeError(formatv("has {0} operands, expected {1}", args.size(),
                             sem::getNumOperands(*eop)));
  bool isCompare = is_contained(
      {"equal", "less", "less_equal", "greater", "greater_equal"}, op);
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = 0, ib = 0, ic = 0, rem = i;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t idx = rem / ysStrides[d];
      rem %= ysStrides[d];
      ia += idx * (*sa)[d];
      ib += idx * (*sb)[d];
      ic += idx * (*sc)[d];
    }
    double x = (*a)->values[ia], y = (*b)->values[ib];
    double tx = (*a)->tolerance[ia], ty = (*b)->tolerance[ib];
    double z = args.size() > 2 ? args[2]->values[ic] : 0;
    double tz = args.size() > 2 ? args[2]->tolerance[ic] : 0;
    double r = sem::evaluate(*eop, {x, y, z}, resultType), t = 0;
    if (isCompare) {
      // Decided only where the operands lie farther apart than their
      // tolerances; else either answer (a tolerance of 1 on 0/1).
      t = (tx || ty) && std::fabs(x - y) <= tx + ty ? 1 : 0;
    } else if (op == "and" || op == "or" || op == "xor") {
      t = (tx || ty) ? 1 : 0;
    } else if (op == "select") {
      // An undecided condition allows either value.
      t = tx ? std::max(std::fabs(y - z) + std::max(ty, tz), 0.0)
             : (x != 0 ? ty : tz);
    } else if (op == "add")
      t = tx + ty;
    else if (op == "sub")
      t = tx + ty;
    else if (op == "mul")
      t = std::fabs(x) * ty + std::fabs(y) * tx + tx * ty;
    else if (op == "max")
      t = std::max(tx, ty);
    else if (op == "min")
      t = std::max(tx, ty);
    else if (op == "div") {
      // Correctly rounded on the device: no rounding term of its own.
      double denom = std::fabs(y) - ty;
      t = (tx || ty) ? (denom > 0 ? (tx + std::fabs(r) * ty) / denom : INFINITY)
                     : 0;
    } else if (op == "pow") {
      t = std::fabs(y * std::pow(x, y - 1)) * tx +
          std::fabs(r * std::log(std::fabs(x))) * ty +
          // exp2(y log2 |x|) on the device: the product's rounding is
          // magnified by |y log2 |x|| (docs/Semantics.md).
          (2 * std::fabs(y * std::log2(std::fabs(x))) + 8) * uc * std::fabs(r);
      if (std::isnan(t))
        t = 0;
    }
    out[i] = r;
    tol[i] = t;
  }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::softmax(const pkg::Node &node) {
  Expected<const RefTensor *> in = operand(node, 0);
  if (!in)
    return in.takeError();
  const std::vector<int64_t> &shape = (*in)->type.shape;
  int64_t rank = shape.size();
  int64_t axis = integer(node, "axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return makeError(formatv("axis {0} out of range", axis));
  int64_t len = shape[axis], inner = stridesOf(shape)[axis];
  int64_t outer = numElements(shape) / (len * inner);
  const std::vector<double> &xv = (*in)->values, &xt = (*in)->tolerance;
  std::vector<double> out(xv.size()), tol(xv.size());
  double uc = computeRoundoff(node.outputs[0]);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in2 = 0; in2 < inner; ++in2) {
      int64_t base = o * len * inner + in2;
      double mx = -INFINITY, maxTol = 0, sum = 0;
      for (int64_t k = 0; k < len; ++k) {
        mx = std::max(mx, xv[base + k * inner]);
        maxTol = std::max(maxTol, xt[base + k * inner]);
      }
      for (int64_t k = 0; k < len; ++k)
        sum += std::exp(xv[base + k * inner] - mx);
      for (int64_t k = 0; k < len; ++k) {
        double y = std::exp(xv[base + k * inner] - mx) / sum;
        out[base + k * inner] = y;
        tol[base + k * inner] = y * (2 * maxTol + double(len + 10) * uc);
      }
    }
  return finish(node, std::move(out), std::move(tol));
}

// softmax(scale * Q K^T + mask) V with crest.attention's masks (see its
// description in CrestOps.td), in double. A row without a visible key is 0
// (lse -inf). The tolerance bounds what the kernel may differ by: P rounded
// to the pv lhs type (relative u_P, or half its smallest subnormal below
// that range, relative to the row sum), the f32 scores (D terms) and the
// f32 softmax state and output sums (one rounding per key), and the
// inputs' own tolerances through the scores and V.
Error Evaluator::attention(const pkg::Node &node) {
  Expected<const RefTensor *> qT = operand(node, 0), kT = operand(node, 1),
                              vT = operand(node, 2);
  if (!qT)
    return qT.takeError();
  if (!kT)
    return kT.takeError();
  if (!vT)
    return vT.takeError();
  bool hasLength = flag(node, "has_kv_length"), hasMask = flag(node, "has_mask");
  unsigned next = 3;
  const RefTensor *lengthT = nullptr, *maskT = nullptr;
  if (hasLength) {
    Expected<const RefTensor *> t = operand(node, next++);
    if (!t)
      return t.takeError();
    lengthT = *t;
  }
  if (hasMask) {
    Expected<const RefTensor *> t = operand(node, next++);
    if (!t)
      return t.takeError();
    maskT = *t;
  }
  Expected<std::array<std::string, 4>> pv = precision(node, "pv");
  if (!pv)
    return pv.takeError();
  const std::vector<int64_t> &qs = (*qT)->type.shape, &ks = (*kT)->type.shape,
                             &vs = (*vT)->type.shape;
  if (qs.size() != 4 || ks.size() != 4 || vs.size() != 4)
    return makeError("query, key and value must have rank 4");
  int64_t B = qs[0], Hq = qs[1], Lq = qs[2], D = qs[3];
  int64_t Hkv = ks[1], Lkv = ks[2], Dv = vs[3];
  if (ks[0] != B || vs[0] != B || ks[3] != D || vs[1] != Hkv ||
      vs[2] != Lkv || Hkv == 0 || Hq % Hkv != 0)
    return makeError("query, key and value shapes do not match");
  if (lengthT && lengthT->type.shape != std::vector<int64_t>{B})
    return makeError("kv_length must be [batch]");
  std::vector<int64_t> maskShape, maskStrides;
  if (maskT) {
    maskShape = maskT->type.shape;
    if (maskShape.size() > 4)
      return makeError("mask has rank above 4");
    maskShape.insert(maskShape.begin(), 4 - maskShape.size(), 1);
    int64_t full[] = {B, Hq, Lq, Lkv};
    for (int i = 0; i < 4; ++i)
      if (maskShape[i] != 1 && maskShape[i] != full[i])
        return makeError("mask does not broadcast to the scores");
    maskStrides = stridesOf(maskShape);
  }
  std::optional<std::string> causal;
  if (std::optional<StringRef> c = node.attributes.getString("causal"))
    causal = c->str();
  if (causal && *causal != "none" && *causal != "top_left" &&
      *causal != "bottom_right")
    return makeError("unknown causal mode '" + *causal + "'");
  bool isCausal = causal && *causal != "none";
  bool bottomRight = causal && *causal == "bottom_right";
  int64_t window = integer(node, "window", 0);
  std::optional<double> scaleAttr = number(node, "scale");
  double scale = scaleAttr ? *scaleAttr : 1.0 / std::sqrt(double(D));

  std::optional<ElementType> pType = pkg::parseElementType((*pv)[0]);
  if (!pType || !getSemantics(*pType))
    return makeError("pv lhs '" + (*pv)[0] + "' is not a float type");
  const fltSemantics &pSem = *getSemantics(*pType);
  double uP = *getUnitRoundoff((*pv)[0]);
  double halfSubnormal =
      std::ldexp(1.0, APFloat::semanticsMinExponent(pSem) -
                          int(APFloat::semanticsPrecision(pSem)));
  double u32 = std::ldexp(1.0, -24);

  const std::vector<double> &qv = (*qT)->values, &kv = (*kT)->values,
                            &vv = (*vT)->values;
  const std::vector<double> &qt = (*qT)->tolerance, &kt = (*kT)->tolerance,
                            &vt = (*vT)->tolerance;
  std::vector<double> out(B * Hq * Lq * Dv), tol(out.size());
  std::vector<double> lse(B * Hq * Lq), lseTol(lse.size());
  std::vector<double> s(Lkv), st(Lkv), p(Lkv);
  std::vector<char> seen(Lkv);
  for (int64_t b = 0; b < B; ++b) {
    int64_t L = Lkv;
    if (lengthT)
      L = std::clamp<int64_t>(int64_t(lengthT->values[b]), 0, Lkv);
    for (int64_t h = 0; h < Hq; ++h) {
      int64_t hk = h / (Hq / Hkv);
      for (int64_t q = 0; q < Lq; ++q) {
        int64_t diag = bottomRight ? q + L - Lq : q;
        double m = -INFINITY, maxScoreTol = 0, maxScoreErr = 0;
        for (int64_t k = 0; k < Lkv; ++k) {
          bool ok = k < L;
          if (isCausal)
            ok = ok && k <= diag && (window <= 0 || k > diag - window);
          if (ok && maskT) {
            int64_t coords[] = {b, h, q, k}, at = 0;
            for (int i = 0; i < 4; ++i)
              at += (maskShape[i] == 1 ? 0 : coords[i]) * maskStrides[i];
            ok = maskT->values[at] != 0;
          }
          seen[k] = ok;
          if (!ok)
            continue;
          double dot = 0, absDot = 0, prop = 0;
          for (int64_t d = 0; d < D; ++d) {
            int64_t qi = ((b * Hq + h) * Lq + q) * D + d;
            int64_t ki = ((b * Hkv + hk) * Lkv + k) * D + d;
            dot += qv[qi] * kv[ki];
            absDot += std::fabs(qv[qi] * kv[ki]);
            prop += std::fabs(qv[qi]) * kt[ki] + std::fabs(kv[ki]) * qt[qi] +
                    qt[qi] * kt[ki];
          }
          s[k] = scale * dot;
          st[k] = scale * prop;
          m = std::max(m, s[k]);
          maxScoreTol = std::max(maxScoreTol, st[k]);
          maxScoreErr = std::max(maxScoreErr, scale * double(D + 2) * u32 *
                                                  absDot);
        }
        int64_t row = (b * Hq + h) * Lq + q;
        if (m == -INFINITY) {
          for (int64_t e = 0; e < Dv; ++e)
            out[row * Dv + e] = 0, tol[row * Dv + e] = 0;
          lse[row] = -INFINITY;
          lseTol[row] = 0;
          continue;
        }
        double z = 0, maxArgErr = 0;
        int64_t visible = 0;
        for (int64_t k = 0; k < Lkv; ++k) {
          if (!seen[k])
            continue;
          p[k] = std::exp(s[k] - m);
          z += p[k];
          ++visible;
          // exp2 of the f32 argument (s - m) * log2(e): a few ulp of it.
          maxArgErr = std::max(maxArgErr, (std::fabs(s[k] - m) + 1) * 4 * u32);
        }
        // Relative error of each probability: the scores' own errors (twice:
        // the score and the maximum), exp2, the state's f32 roundings.
        double rel = 2 * (maxScoreErr + maxScoreTol) + maxArgErr +
                     double(visible + 16) * u32;
        for (int64_t e = 0; e < Dv; ++e) {
          double sum = 0, absSum = 0, vTol = 0, absV = 0;
          for (int64_t k = 0; k < Lkv; ++k) {
            if (!seen[k])
              continue;
            int64_t vi = ((b * Hkv + hk) * Lkv + k) * Dv + e;
            double pk = p[k] / z;
            sum += pk * vv[vi];
            absSum += pk * std::fabs(vv[vi]);
            vTol += pk * vt[vi];
            absV += std::fabs(vv[vi]);
          }
          out[row * Dv + e] = sum;
          tol[row * Dv + e] = absSum * (uP + 2 * rel) + vTol +
                              halfSubnormal / z * absV +
                              double(visible + 2) * u32 * absSum;
        }
        lse[row] = m + std::log(z);
        lseTol[row] = maxScoreErr + maxScoreTol + rel + 4 * u32 * std::fabs(lse[row]);
      }
    }
  }
  if (node.outputs.size() == 2) {
    const pkg::TensorType &lseType = typeOf(node.outputs[1]);
    if (lseType.getNumElements() != int64_t(lse.size()))
      return makeError("lse must be [batch, query heads, query length]");
    define(node.outputs[1], std::move(lse), std::move(lseTol));
  } else if (node.outputs.size() != 1) {
    return makeError(formatv("has {0} results, expected 1 or 2",
                             node.outputs.size()));
  }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::layerNorm(const pkg::Node &node) {
  Expected<const RefTensor *> in = operand(node, 0), sc = operand(node, 1);
  if (!in)
    return in.takeError();
  if (!sc)
    return sc.takeError();
  const RefTensor *bias = nullptr;
  if (node.inputs.size() > 2) {
    Expected<const RefTensor *> b = operand(node, 2);
    if (!b)
      return b.takeError();
    bias = *b;
  }
  const std::vector<int64_t> &shape = (*in)->type.shape;
  int64_t rank = shape.size();
  int64_t axis = integer(node, "axis", -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return makeError(formatv("axis {0} out of range", axis));
  double eps = number(node, "epsilon").value_or(1e-5);
  int64_t len = 1;
  for (int64_t d = axis; d < rank; ++d)
    len *= shape[d];
  if (int64_t((*sc)->values.size()) != len ||
      (bias && int64_t(bias->values.size()) != len))
    return makeError("scale/bias do not match the normalized dimensions");
  int64_t rows = numElements(shape) / len;
  const std::vector<double> &xv = (*in)->values, &xt = (*in)->tolerance;
  std::vector<double> out(xv.size()), tol(xv.size());
  double uc = computeRoundoff(node.outputs[0]);
  for (int64_t r = 0; r < rows; ++r) {
    const double *x = &xv[r * len];
    double mean = 0, var = 0, maxTol = 0;
    for (int64_t k = 0; k < len; ++k)
      mean += x[k], maxTol = std::max(maxTol, xt[r * len + k]);
    mean /= len;
    for (int64_t k = 0; k < len; ++k)
      var += (x[k] - mean) * (x[k] - mean);
    var /= len;
    double sigma = std::sqrt(var + eps);
    for (int64_t k = 0; k < len; ++k) {
      double xhat = (x[k] - mean) / sigma;
      double g = (*sc)->values[k], tg = (*sc)->tolerance[k];
      double b = bias ? bias->values[k] : 0, tb = bias ? bias->tolerance[k] : 0;
      out[r * len + k] = xhat * g + b;
      tol[r * len + k] = std::fabs(g) * (2 + std::fabs(xhat)) * maxTol / sigma +
                         std::fabs(xhat) * tg + tb +
                         double(len + 10) * uc * std::fabs(g) *
                             (1 + std::fabs(xhat)) *
                             (1 + mean * mean / (sigma * sigma)) +
                         4 * uc * std::fabs(b);
    }
  }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::pool(const pkg::Node &node) {
  Expected<const RefTensor *> in = operand(node, 0);
  if (!in)
    return in.takeError();
  const std::vector<int64_t> &xs = (*in)->type.shape;
  const std::vector<int64_t> &ys = typeOf(node.outputs[0]).shape;
  if (xs.size() != 4 || ys.size() != 4)
    return makeError("pooling takes and returns NCHW tensors");
  bool global = node.op == "global_avg_pool2d";
  bool isMax = node.op == "max_pool2d";
  Expected<std::vector<int64_t>> kernel = array(
      node, "kernel",
      global ? std::vector<int64_t>{xs[2], xs[3]} : std::vector<int64_t>{});
  Expected<std::vector<int64_t>> strides = array(node, "strides", {1, 1});
  Expected<std::vector<int64_t>> pads = array(node, "pads", {0, 0, 0, 0});
  if (!kernel || !strides || !pads) {
    consumeError(kernel.takeError());
    consumeError(strides.takeError());
    consumeError(pads.takeError());
    return makeError("bad kernel, strides or pads");
  }
  if (kernel->size() != 2 || strides->size() != 2 || pads->size() != 4)
    return makeError("bad kernel, strides or pads");
  bool includePad = flag(node, "count_include_pad");
  int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OH = ys[2], OW = ys[3];
  if (ys[0] != N || ys[1] != C)
    return makeError("pooling changes N or C");
  const std::vector<double> &xv = (*in)->values, &xt = (*in)->tolerance;
  std::vector<double> out(N * C * OH * OW), tol(out.size());
  double uc = computeRoundoff(node.outputs[0]);
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = isMax ? -INFINITY : 0, absAcc = 0, t = 0;
        int64_t count = 0, padded = 0;
        for (int64_t kh = 0; kh < (*kernel)[0]; ++kh)
          for (int64_t kw = 0; kw < (*kernel)[1]; ++kw) {
            int64_t ih = oh * (*strides)[0] - (*pads)[0] + kh;
            int64_t iw = ow * (*strides)[1] - (*pads)[1] + kw;
            if (ih < 0 || iw < 0 || ih >= H + (*pads)[2] ||
                iw >= W + (*pads)[3])
              continue; // past the padded input (ceil_mode windows)
            if (ih >= H || iw >= W) {
              ++padded;
              continue;
            }
            double v = xv[(nc * H + ih) * W + iw];
            double vt = xt[(nc * H + ih) * W + iw];
            if (isMax) {
              acc = std::max(acc, v), t = std::max(t, vt);
            } else {
              acc += v, absAcc += std::fabs(v), t += vt;
            }
            ++count;
          }
        // Padding before the input (ih < 0) also counts with
        // count_include_pad.
        if (!isMax && includePad) {
          int64_t total = 0;
          for (int64_t kh = 0; kh < (*kernel)[0]; ++kh)
            for (int64_t kw = 0; kw < (*kernel)[1]; ++kw) {
              int64_t ih = oh * (*strides)[0] - (*pads)[0] + kh;
              int64_t iw = ow * (*strides)[1] - (*pads)[1] + kw;
              if (ih < H + (*pads)[2] && iw < W + (*pads)[3])
                ++total;
            }
          padded = total - count;
        }
        int64_t o = (nc * OH + oh) * OW + ow;
        if (isMax) {
          out[o] = acc;
          tol[o] = t;
        } else {
          int64_t div = count + (includePad ? padded : 0);
          if (div == 0)
            return makeError("an empty pooling window");
          out[o] = acc / div;
          tol[o] = t / div + double(count + 2) * uc * absAcc / div;
        }
      }
  return finish(node, std::move(out), std::move(tol));
}

Error Evaluator::reduction(const pkg::Node &node, std::vector<int64_t> dims) {
  Expected<const RefTensor *> in = operand(node, 0);
  if (!in)
    return in.takeError();
  const std::vector<int64_t> &xs = (*in)->type.shape;
  int64_t rank = xs.size();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : dims) {
    if (d < 0)
      d += rank;
    if (d < 0 || d >= rank)
      return makeError(formatv("dimension {0} out of range", d));
    reduced[d] = true;
  }
  // Output index: the kept dimensions in order.
  std::vector<int64_t> keptShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d])
      keptShape.push_back(xs[d]);
  int64_t outCount = numElements(keptShape);
  if (outCount != typeOf(node.outputs[0]).getNumElements())
    return makeError("result shape does not match the reduction");
  StringRef op = node.op;
  bool isMax = op == "reduce_max", isMin = op == "reduce_min";
  bool isProd = op == "reduce_prod", isMean = op == "reduce_mean";
  double inf = std::numeric_limits<double>::infinity();
  double init = isProd ? 1.0 : isMax ? -inf : isMin ? inf : 0.0;
  // acc: the exact reduction; mag: the same over |x| + t(x) for products
  // (sum |x| otherwise); t: the largest t(x) for max/min, sum t(x) for
  // sums.
  std::vector<double> acc(outCount, init), mag(outCount, isProd ? 1.0 : 0.0),
      t(outCount, 0);
  std::vector<int64_t> keptStrides = stridesOf(keptShape);
  int64_t n = numElements(xs), count = n / std::max<int64_t>(outCount, 1);
  std::vector<int64_t> xStrides = stridesOf(xs);
  const std::vector<double> &xv = (*in)->values, &xt = (*in)->tolerance;
  sem::ScalarType f64 = sem::ScalarType::getFloat(APFloat::IEEEdouble());
  for (int64_t i = 0; i < n; ++i) {
    int64_t o = 0, k = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t idx = i / xStrides[d] % xs[d];
      if (!reduced[d])
        o += idx * keptStrides[k++];
    }
    if (isMax || isMin) {
      // crest.max/min's rules: NaN propagates, -0 < +0.
      acc[o] = sem::evaluate(isMax ? sem::ElementwiseOp::Max
                                   : sem::ElementwiseOp::Min,
                             {acc[o], xv[i]}, f64);
      t[o] = std::max(t[o], xt[i]);
    } else if (isProd) {
      acc[o] *= xv[i];
      mag[o] *= std::fabs(xv[i]) + xt[i];
    } else {
      acc[o] += xv[i], mag[o] += std::fabs(xv[i]), t[o] += xt[i];
    }
  }
  double uc = computeRoundoff(node.outputs[0]);
  for (int64_t o = 0; o < outCount; ++o) {
    if (isMax || isMin)
      continue; // exact
    if (isProd) {
      // |prod (x + e) - prod x| <= prod (|x| + t) - prod |x|, and count - 1
      // roundings of partial products no larger than prod (|x| + t).
      t[o] = mag[o] - std::fabs(acc[o]) + double(count + 1) * uc * mag[o];
    } else if (isMean) {
      acc[o] /= count;
      t[o] = t[o] / count + double(count + 2) * uc * mag[o] / count;
    } else {
      t[o] += double(count + 1) * uc * mag[o];
    }
  }
  return finish(node, std::move(acc), std::move(t));
}

Error Evaluator::gatherElements(const pkg::Node &node,
                               ArrayRef<const RefTensor *> operands,
                               ArrayRef<std::pair<int, int64_t>> sources) {
  uint32_t id = node.outputs[0];
  const pkg::TensorType &type = typeOf(id);
  if (int64_t(sources.size()) != type.getNumElements())
    return makeError(formatv("computes {0} elements, its result {1} has {2}",
                             sources.size(), type.describe(),
                             type.getNumElements()));
  for (const RefTensor *t : operands)
    if (t->type.element != type.element)
      return makeError("moves " + t->type.describe() + " elements into " +
                       type.describe());
  std::vector<double> v(sources.size(), 0.0), t(sources.size(), 0.0);
  for (auto [i, source] : llvm::enumerate(sources)) {
    if (source.first < 0)
      continue;
    const RefTensor &from = *operands[source.first];
    if (source.second < 0 || source.second >= int64_t(from.values.size()))
      return makeError("reads outside its input");
    v[i] = from.values[source.second];
    t[i] = from.tolerance[source.second];
  }
  define(id, std::move(v), std::move(t));
  return Error::success();
}

Error Evaluator::dataMovement(const pkg::Node &node) {
  StringRef op = node.op;
  std::vector<const RefTensor *> in;
  for (unsigned i = 0; i < node.inputs.size(); ++i) {
    Expected<const RefTensor *> t = operand(node, i);
    if (!t)
      return t.takeError();
    in.push_back(*t);
  }
  if (in.empty() || (op != "concat" && in.size() != (op == "gather" ? 2 : 1)))
    return makeError(formatv("has {0} operands", in.size()));
  const std::vector<int64_t> &ys = typeOf(node.outputs[0]).shape;
  int64_t n = numElements(ys), rank = ys.size();
  std::vector<int64_t> yStrides = stridesOf(ys);
  auto coord = [&](int64_t i, int64_t d) { return i / yStrides[d] % ys[d]; };
  auto normalize = [&](int64_t axis, int64_t r) -> Expected<int64_t> {
    if (axis < -r || axis >= r)
      return makeError(formatv("axis {0} out of range for rank {1}", axis, r));
    return axis < 0 ? axis + r : axis;
  };
  std::vector<std::pair<int, int64_t>> sources(n);
  const std::vector<int64_t> &xs = in[0]->type.shape;
  std::vector<int64_t> xStrides = stridesOf(xs);

  if (op == "reshape") {
    if (n != int64_t(in[0]->values.size()))
      return makeError("changes the number of elements");
    for (int64_t i = 0; i < n; ++i)
      sources[i] = {0, i};
  } else if (op == "transpose") {
    Expected<std::vector<int64_t>> perm = array(node, "permutation", {});
    if (!perm)
      return perm.takeError();
    std::vector<bool> seen(xs.size());
    if (int64_t(perm->size()) != rank || xs.size() != ys.size())
      return makeError("permutation does not match the ranks");
    for (size_t d = 0; d < perm->size(); ++d) {
      int64_t p = (*perm)[d];
      if (p < 0 || p >= rank || seen[p] || xs[p] != ys[d])
        return makeError("bad permutation");
      seen[p] = true;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += coord(i, d) * xStrides[(*perm)[d]];
      sources[i] = {0, off};
    }
  } else if (op == "slice") {
    Expected<std::vector<int64_t>> offsets = array(node, "offsets", {});
    if (!offsets)
      return offsets.takeError();
    Expected<std::vector<int64_t>> steps =
        array(node, "strides", std::vector<int64_t>(xs.size(), 1));
    if (!steps)
      return steps.takeError();
    if (offsets->size() != xs.size() || steps->size() != xs.size() ||
        ys.size() != xs.size())
      return makeError("offsets and strides do not match the rank");
    for (int64_t d = 0; d < rank; ++d)
      if ((*steps)[d] < 1 || (*offsets)[d] < 0 ||
          (ys[d] > 0 && (*offsets)[d] + (ys[d] - 1) * (*steps)[d] >= xs[d]))
        return makeError(formatv("the window of dimension {0} does not fit", d));
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += ((*offsets)[d] + coord(i, d) * (*steps)[d]) * xStrides[d];
      sources[i] = {0, off};
    }
  } else if (op == "concat") {
    Expected<int64_t> axis = normalize(integer(node, "axis", 0), rank);
    if (!axis)
      return axis.takeError();
    // The input and position along the axis of each output position.
    std::vector<std::pair<int, int64_t>> along;
    for (auto [k, t] : llvm::enumerate(in)) {
      if (t->type.shape.size() != ys.size())
        return makeError("inputs and result differ in rank");
      for (int64_t d = 0; d < rank; ++d)
        if (d != *axis && t->type.shape[d] != ys[d])
          return makeError("inputs differ outside the axis");
      for (int64_t j = 0; j < t->type.shape[*axis]; ++j)
        along.push_back({int(k), j});
    }
    if (int64_t(along.size()) != ys[*axis])
      return makeError("the inputs do not add up to the result");
    for (int64_t i = 0; i < n; ++i) {
      auto [k, j] = along[coord(i, *axis)];
      std::vector<int64_t> ks = stridesOf(in[k]->type.shape);
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += (d == *axis ? j : coord(i, d)) * ks[d];
      sources[i] = {k, off};
    }
  } else { // gather
    Expected<int64_t> axis =
        normalize(integer(node, "axis", 0), int64_t(xs.size()));
    if (!axis)
      return axis.takeError();
    if (pkg::isFloatType(in[1]->type.element))
      return makeError("indices must be integers");
    const std::vector<int64_t> &is = in[1]->type.shape;
    int64_t count = numElements(is), extent = xs[*axis];
    int64_t inner = numElements(ArrayRef<int64_t>(xs).drop_front(*axis + 1));
    std::vector<int64_t> expected(xs.begin(), xs.begin() + *axis);
    expected.insert(expected.end(), is.begin(), is.end());
    expected.insert(expected.end(), xs.begin() + *axis + 1, xs.end());
    if (expected != ys)
      return makeError("result shape does not match data and indices");
    for (int64_t i = 0; i < n; ++i) {
      int64_t r = i % inner, j = i / inner % count;
      int64_t outer = i / (inner * count);
      // Negative indices count from the end; out of range gives zero.
      double index = in[1]->values[j];
      if (index < 0)
        index += double(extent);
      if (index < 0 || index >= double(extent)) {
        sources[i] = {-1, 0};
        continue;
      }
      sources[i] = {0, (outer * extent + int64_t(index)) * inner + r};
    }
    in.resize(1); // the indices are not moved
  }
  return gatherElements(node, in, sources);
}

} // namespace

double getToleranceCap(const pkg::Manifest &manifest) {
  double u = 0;
  for (const pkg::Value &value : manifest.values)
    if (pkg::isFloatType(value.type.element))
      u = std::max(u, getUnitRoundoff(value.type.element));
  for (const pkg::Node &node : manifest.graph)
    if (const json::Object *precision =
            node.attributes.getObject("precision"))
      for (StringRef key : {"lhs", "rhs", "acc", "out"})
        if (std::optional<StringRef> name = precision->getString(key))
          if (std::optional<double> r = getUnitRoundoff(*name))
            u = std::max(u, *r);
  if (u == 0)
    return 0;
  if (u <= 0x1p-24)
    return 1e-3;
  if (u <= 0x1p-11)
    return 3e-2;
  if (u <= 0x1p-8)
    return 6e-2;
  return 0.25;
}

void capTolerance(RefTensor &tensor, double cap) {
  if (cap <= 0 || !pkg::isFloatType(tensor.type.element))
    return;
  double scale = 0;
  for (double v : tensor.values)
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  for (double &t : tensor.tolerance)
    t = std::min(t, cap * scale);
}

Expected<std::vector<RefTensor>>
evaluateReference(const pkg::Package &package, ArrayRef<HostTensor> inputs) {
  const pkg::Manifest &m = package.manifest;
  if (m.graph.empty())
    return makeError("the package has no reference graph");
  if (inputs.size() != m.inputs.size())
    return makeError(formatv("the graph has {0} inputs, {1} given",
                             m.inputs.size(), inputs.size()));
  Evaluator evaluator(package);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Error e = evaluator.setInput(m.inputs[i], inputs[i]))
      return std::move(e);
  if (Error e = evaluator.run())
    return std::move(e);
  std::vector<RefTensor> values = evaluator.takeValues();
  double cap = getToleranceCap(m);
  for (uint32_t id : m.outputs)
    capTolerance(values[id], cap);
  return values;
}

HostTensor encodeReference(const RefTensor &tensor) {
  HostTensor out;
  out.type = tensor.type;
  unsigned size = pkg::getElementTypeSize(tensor.type.element);
  sem::ScalarType type = getScalarType(tensor.type.element);
  out.data.resize(tensor.values.size() * size);
  for (size_t i = 0; i < tensor.values.size(); ++i) {
    uint64_t bits = sem::encodeBits(tensor.values[i], type);
    for (unsigned byte = 0; byte < size; ++byte)
      out.data[i * size + byte] = uint8_t(bits >> (8 * byte));
  }
  return out;
}

Comparison compareTensor(StringRef name, const RefTensor &want,
                         const HostTensor &got) {
  Comparison c;
  c.name = name.str();
  c.type = got.type;
  std::vector<double> g = decodeElements(got.type.element, got.data);
  if (g.size() != want.values.size() || !(got.type == want.type)) {
    c.failures = std::max<uint64_t>(1, g.size());
    c.maxAbsError = INFINITY;
    return c;
  }
  double worstRatio = -1;
  bool worstIsBad = false;
  for (size_t i = 0; i < g.size(); ++i) {
    double w = want.values[i], t = want.tolerance[i];
    c.maxTolerance = std::max(c.maxTolerance, t);
    double err;
    if (std::isnan(w) || std::isnan(g[i]))
      err = std::isnan(w) && std::isnan(g[i]) ? 0 : INFINITY;
    else if (std::isinf(w) || std::isinf(g[i]))
      err = w == g[i] ? 0 : INFINITY;
    else
      err = std::fabs(g[i] - w);
    c.maxAbsError = std::max(c.maxAbsError, err);
    if (w != 0 && !std::isnan(w))
      c.maxRelError = std::max(c.maxRelError, err / std::fabs(w));
    // An exact match passes whatever the tolerance (NaN for a NaN, say).
    bool bad = err != 0 && !(err <= t);
    if (bad)
      ++c.failures;
    double ratio = err == 0 ? 0 : (t > 0 ? err / t : INFINITY);
    bool better = bad ? (!worstIsBad || ratio > worstRatio)
                      : (!worstIsBad && ratio > worstRatio);
    if (better) {
      worstRatio = ratio, worstIsBad = bad;
      c.worst = i, c.worstGot = g[i], c.worstWant = w, c.worstTolerance = t;
    }
  }
  return c;
}

void printComparison(raw_ostream &os, const Comparison &c) {
  os << formatv("output '{0}' {1}: max abs error {2:e2}, max rel error "
                "{3:e2}, tolerance {4:e2}: {5}\n",
                c.name, c.type.describe(), c.maxAbsError, c.maxRelError,
                c.maxTolerance, c.passed() ? "PASS" : "FAIL");
  if (!c.passed() && c.worst >= 0) {
    // The multi-index of the worst element.
    std::vector<int64_t> idx(c.type.shape.size());
    int64_t rem = c.worst;
    for (int d = int(idx.size()) - 1; d >= 0; --d) {
      idx[d] = c.type.shape[d] ? rem % c.type.shape[d] : 0;
      rem = c.type.shape[d] ? rem / c.type.shape[d] : 0;
    }
    SmallVector<std::string> parts;
    for (int64_t i : idx)
      parts.push_back(std::to_string(i));
    os << formatv("  {0} of {1} elements beyond tolerance; worst [{2}]: got "
                  "{3}, want {4} +- {5:e2}\n",
                  c.failures, c.type.getNumElements(), join(parts, ", "),
                  std::isnan(c.worstGot)
                      ? std::string("NaN (outputs are poisoned with NaN "
                                    "before a run: never written?)")
                      : formatv("{0}", format("%.9g", c.worstGot)).str(),
                  format("%.9g", c.worstWant), c.worstTolerance);
  }
}

} // namespace crest::rt
