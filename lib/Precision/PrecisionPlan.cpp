//===- PrecisionPlan.cpp - Per-contraction precision plans ----------------===//
//
// See crest/Precision/PrecisionPlan.h and docs/Precision.md.
//
//===----------------------------------------------------------------------===//

#include "crest/Precision/PrecisionPlan.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Host/HostPlanner.h"
#include "crest/Semantics/Scalar.h"
#include "crest/Target/ChipTable.h"
#include "crest/runtime/Reference.h"
#include "crest/runtime/Runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>

using namespace mlir;
using namespace crest;

ArrayRef<std::pair<StringRef, StringRef>> crest::getReasonCodes() {
  static const std::pair<StringRef, StringRef> codes[] = {
      {"fp8_requested", "fp8 as --precision=fp8 asks: every operand has a "
                        "scale"},
      {"uncalibrated", "an activation operand has no calibration data, so no "
                       "fp8 scale: f16"},
      {"gemv_no_gain", "M or N is 1: a matrix-vector product gains nothing "
                       "from fp8 (a 16-row tile wastes 15/16): f16"},
      {"no_matrix_kernel", "a grouped or depthwise convolution runs as a "
                           "direct kernel, not on the matrix cores: f16"},
      {"f16_overflow", "an operand's amax exceeds f16's largest finite "
                       "value 65504: f32"},
      {"pinned", "the precision the --precision-plan file pins"},
      {"fp8_within_budget", "--precision=auto: fp8 keeps the outputs' loss "
                            "under the budget on the calibration and "
                            "holdout inputs"},
      {"fp8_loss_over_budget", "--precision=auto: with this contraction in "
                               "fp8 the outputs' loss would exceed the "
                               "budget: f16"},
  };
  return codes;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string describeOp(Operation *op) {
  std::string name;
  op->getLoc()->walk([&](Location loc) {
    if (auto n = dyn_cast<NameLoc>(loc)) {
      name = n.getName().str();
      return WalkResult::interrupt();
    }
    if (auto file = dyn_cast<FileLineColLoc>(loc)) {
      name = (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
              Twine(file.getLine()) + ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name.empty() ? op->getName().stripDialect().str() : name;
}

/// The largest power of two s with amax * s <= limit (amax > 0).
static double powerOfTwoScale(double amax, double limit) {
  int e = int(std::floor(std::log2(limit / amax)));
  double s = std::ldexp(1.0, e);
  while (amax * s > limit)
    s /= 2;
  return s;
}

static FloatType getFp8Type(MLIRContext *ctx, Fp8Flavour flavour) {
  if (flavour == Fp8Flavour::FNUZ)
    return Float8E4M3FNUZType::get(ctx);
  return Float8E4M3FNType::get(ctx);
}

//===----------------------------------------------------------------------===//
// Calibration
//===----------------------------------------------------------------------===//

namespace {
/// One set of graph inputs, in the graph's order.
using InputSet = std::vector<rt::HostTensor>;
} // namespace

/// The graph's input names (crest.name), else "input<i>".
static SmallVector<std::string> getInputNames(func::FuncOp graph) {
  SmallVector<std::string> names;
  for (BlockArgument arg : graph.getArguments()) {
    std::string name = "input" + std::to_string(arg.getArgNumber());
    if (auto attr = graph.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                       "crest.name"))
      name = attr.getValue().str();
    names.push_back(name);
  }
  return names;
}

/// Reads the input sets of `dir`; errors are diagnostics at `graph`.
static FailureOr<std::vector<InputSet>>
readCalibration(func::FuncOp graph, const pkg::Package &reference,
                StringRef dir, StringRef flag = "--calibration") {
  std::error_code ec;
  if (!llvm::sys::fs::is_directory(dir))
    return graph.emitError() << flag << ": '" << dir
                             << "' is not a directory";
  SmallVector<std::string> setDirs;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      setDirs.push_back(it->path());
  llvm::sort(setDirs);
  if (setDirs.empty())
    setDirs.push_back(dir.str());
  SmallVector<std::string> names = getInputNames(graph);
  std::vector<InputSet> sets, holdoutSets;
  std::vector<double> f32HoldoutOutputs;
  for (const std::string &setDir : setDirs) {
    InputSet set;
    for (auto [i, name] : llvm::enumerate(names)) {
      const pkg::Value &value =
          reference.manifest.values[reference.manifest.inputs[i]];
      std::string found;
      for (std::string stem : {name, "input_" + std::to_string(i)})
        for (StringRef ext : {".npy", ".pb"}) {
          SmallString<256> path(setDir);
          llvm::sys::path::append(path, stem + ext.str());
          if (found.empty() && llvm::sys::fs::exists(path))
            found = path.str().str();
        }
      if (found.empty())
        return graph.emitError()
               << flag << ": input set '" << setDir
               << "' has no file for graph input '" << name << "' (" << name
               << ".npy, " << name << ".pb, input_" << i << ".npy or input_"
               << i << ".pb)";
      llvm::Expected<rt::HostTensor> tensor =
          rt::readTensorFile(found, value.type.element);
      if (!tensor)
        return graph.emitError() << flag << ": " << found << ": "
                                 << llvm::toString(tensor.takeError());
      if (!(tensor->type == value.type))
        return graph.emitError()
               << flag << ": " << found << " holds "
               << tensor->type.describe() << ", graph input '" << name
               << "' is " << value.type.describe();
      set.push_back(std::move(*tensor));
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {
struct Contraction {
  Operation *op;
  OpPlan plan;
  /// The value that holds the contraction's (dequantised) result.
  Value result;
  /// Its f32 values over the calibration sets, concatenated.
  std::vector<double> f32Values;
  /// Per output channel weight scales (perChannelWeights), else empty.
  std::vector<double> channelScales;
};

class Planner {
public:
  Planner(ModuleOp module, const ChipInfo &chip,
          const PrecisionRequest &request)
      : module(module), chip(chip), request(request),
        builder(module.getContext()) {}

  FailureOr<PrecisionPlan> run();

private:
  LogicalResult readPins(func::FuncOp graph);
  /// The outputs of the graph with contraction i at precisions[i] against
  /// the f32 graph's, over `inputs` (whose f32 outputs are `want`).
  FailureOr<OutputError> evaluate(ArrayRef<std::string> precisions,
                                  ArrayRef<InputSet> inputs,
                                  ArrayRef<double> want);
  LogicalResult planAuto(func::FuncOp graph);
  double matrixCycles(const Contraction &c, StringRef precision) const;
  LogicalResult calibrate(func::FuncOp graph);
  LogicalResult measureErrors(func::FuncOp graph);
  void decide(Contraction &c);
  void planOperand(Contraction &c, bool isLhs);
  LogicalResult apply(Contraction &c);
  Value quantise(Operation *op, Value v, double scale,
                 ArrayRef<double> channelScales, int64_t channelDim);
  Value toF16(Operation *op, Value v);

  ModuleOp module;
  const ChipInfo &chip;
  const PrecisionRequest &request;
  OpBuilder builder;
  PrecisionPlan plan;
  FloatType fp8;
  std::vector<Contraction> contractions;
  /// Activations' amax over the calibration inputs, by SSA value.
  DenseMap<Value, double> amax;
  /// ... and the values themselves (for clipped/flushed fractions).
  DenseMap<Value, std::vector<double>> samples;
  std::vector<InputSet> sets, holdoutSets;
  std::vector<double> f32HoldoutOutputs;
  /// The f32 graph's outputs over the calibration sets, concatenated.
  std::vector<double> f32Outputs;
  /// Casts already built: (value, scale) -> quantised value.
  std::map<std::pair<void *, double>, Value> quantised;
  DenseMap<Value, Value> halves;
  /// --precision-plan: op name -> pinned precision.
  llvm::StringMap<std::string> pins;
  LogicalResult pinError = success();
};
} // namespace

static bool isConstant(Value v) {
  return matchPattern(v, m_Constant());
}

static DenseElementsAttr getConstant(Value v) {
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

LogicalResult Planner::readPins(func::FuncOp graph) {
  if (request.planPath.empty())
    return success();
  auto fail = [&](const Twine &message) {
    return graph.emitError() << "--precision-plan: " << request.planPath
                             << ": " << message;
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(request.planPath);
  if (!file)
    return fail("cannot read it: " + file.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return fail(llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  const llvm::json::Array *ops = object ? object->getArray("ops") : nullptr;
  if (!ops)
    return fail("expected an object with an \"ops\" array");
  llvm::StringSet<> names;
  for (const Contraction &c : contractions)
    names.insert(c.plan.name);
  for (auto [i, entry] : llvm::enumerate(*ops)) {
    const llvm::json::Object *op = entry.getAsObject();
    std::optional<StringRef> name = op ? op->getString("name") : std::nullopt;
    if (!name)
      return fail("ops[" + Twine(i) + "] has no \"name\"");
    const llvm::json::Value *pin = op->get("pin");
    if (!pin)
      continue;
    std::optional<StringRef> precision = pin->getAsString();
    if (!precision || !llvm::is_contained({"fp8", "f16", "f32"}, *precision))
      return fail("ops[" + Twine(i) + "] ('" + *name +
                  "'): \"pin\" must be \"fp8\", \"f16\" or \"f32\"");
    if (!names.contains(*name))
      return fail("ops[" + Twine(i) + "] pins '" + *name +
                  "', which is no contraction of the graph");
    pins[*name] = precision->str();
  }
  return success();
}

LogicalResult Planner::calibrate(func::FuncOp graph) {
  if (request.calibrationDir.empty())
    return success();
  HostPlanOptions options;
  options.chip = chip.name.str();
  DenseMap<Value, uint32_t> ids;
  FailureOr<pkg::Package> reference =
      buildReferenceGraph(module, options, &ids);
  if (failed(reference))
    return failure();
  FailureOr<std::vector<InputSet>> read =
      readCalibration(graph, *reference, request.calibrationDir);
  if (failed(read))
    return failure();
  sets = std::move(*read);
  plan.calibrationSets = sets.size();
  if (!request.holdoutDir.empty()) {
    FailureOr<std::vector<InputSet>> holdout =
        readCalibration(graph, *reference, request.holdoutDir, "--holdout");
    if (failed(holdout))
      return failure();
    holdoutSets = std::move(*holdout);
    plan.holdoutSets = holdoutSets.size();
    for (const InputSet &set : holdoutSets) {
      llvm::Expected<std::vector<rt::RefTensor>> values =
          rt::evaluateReference(*reference, set);
      if (!values)
        return graph.emitError() << "--holdout: the reference evaluation "
                                    "failed: "
                                 << llvm::toString(values.takeError());
      for (uint32_t id : reference->manifest.outputs) {
        const std::vector<double> &v = (*values)[id].values;
        f32HoldoutOutputs.insert(f32HoldoutOutputs.end(), v.begin(), v.end());
      }
    }
  }
  // The activations to calibrate: the contractions' non-constant operands.
  SmallVector<Value> wanted;
  for (Contraction &c : contractions)
    for (Value v : {c.op->getOperand(0), c.op->getOperand(1)})
      if (!isConstant(v) && ids.count(v))
        wanted.push_back(v);
  for (const InputSet &set : sets) {
    llvm::Expected<std::vector<rt::RefTensor>> values =
        rt::evaluateReference(*reference, set);
    if (!values)
      return graph.emitError() << "--calibration: the reference evaluation "
                                  "failed: "
                               << llvm::toString(values.takeError());
    for (Contraction &c : contractions) {
      const std::vector<double> &v =
          (*values)[ids.lookup(c.op->getResult(0))].values;
      c.f32Values.insert(c.f32Values.end(), v.begin(), v.end());
    }
    for (uint32_t id : reference->manifest.outputs) {
      const std::vector<double> &v = (*values)[id].values;
      f32Outputs.insert(f32Outputs.end(), v.begin(), v.end());
    }
    for (Value v : wanted) {
      const std::vector<double> &vals = (*values)[ids.lookup(v)].values;
      double m = 0;
      for (double x : vals)
        if (std::isfinite(x))
          m = std::max(m, std::fabs(x));
      double &slot = amax[v];
      slot = std::max(slot, m);
      std::vector<double> &kept = samples[v];
      kept.insert(kept.end(), vals.begin(), vals.end());
    }
  }
  return success();
}

/// Fractions of `values` that saturate, and of the nonzero ones that
/// flush to zero, once multiplied by `scale` and rounded to `fp8`.
static void measure(ArrayRef<double> values, double scale,
                    ArrayRef<double> channelScales, int64_t channelStride,
                    int64_t channels, FloatType fp8, double fp8Max,
                    OperandPlan &out) {
  sem::ScalarType type = sem::ScalarType::getFloat(fp8.getFloatSemantics());
  uint64_t clipped = 0, flushed = 0, nonzero = 0;
  double noise = 0, signal = 0;
  for (auto [i, x] : llvm::enumerate(values)) {
    if (!std::isfinite(x))
      continue;
    double s = scale;
    if (!channelScales.empty())
      s = channelScales[(int64_t(i) / channelStride) % channels];
    double y = x * s;
    double q = sem::castTo(y, type);
    if (std::fabs(y) > fp8Max)
      ++clipped;
    if (x != 0) {
      ++nonzero;
      if (q == 0)
        ++flushed;
    }
    noise += (q / s - x) * (q / s - x);
    signal += x * x;
  }
  out.error = signal > 0 ? std::sqrt(noise / signal) : 0;
  out.clipped = values.empty() ? 0 : double(clipped) / values.size();
  out.flushed = nonzero ? double(flushed) / nonzero : 0;
}

static std::vector<double> getValues(DenseElementsAttr attr) {
  std::vector<double> out;
  out.reserve(attr.getNumElements());
  for (APFloat v : attr.getValues<APFloat>()) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v.convertToDouble());
  }
  return out;
}

/// The output-channel layout of a weight operand: (dimension, channels,
/// stride in elements), or nullopt when per-channel scales do not apply.
static std::optional<std::tuple<int64_t, int64_t, int64_t>>
getChannelLayout(Operation *op, bool isLhs) {
  if (isLhs)
    return std::nullopt;
  auto type = cast<RankedTensorType>(op->getOperand(1).getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t dim;
  if (isa<Conv2DOp>(op))
    dim = 0;
  else if (auto mm = dyn_cast<MatmulOp>(op))
    dim = mm.getTransposeRhs() ? 0 : 1;
  else
    return std::nullopt;
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
    stride *= shape[d];
  return std::make_tuple(dim, shape[dim], stride);
}

void Planner::planOperand(Contraction &c, bool isLhs) {
  Value v = c.op->getOperand(isLhs ? 0 : 1);
  OperandPlan &out = isLhs ? c.plan.lhs : c.plan.rhs;
  double limit = plan.fp8Max;
  if (DenseElementsAttr attr = getConstant(v)) {
    out.isWeight = true;
    std::vector<double> vals = getValues(attr);
    double m = 0;
    for (double x : vals)
      if (std::isfinite(x))
        m = std::max(m, std::fabs(x));
    out.amax = m;
    if (!fp8 || m == 0)
      return;
    out.scale = powerOfTwoScale(m, limit);
    auto layout = getChannelLayout(c.op, isLhs);
    if (request.perChannelWeights && layout) {
      auto [dim, channels, stride] = *layout;
      std::vector<double> channelAmax(channels, 0);
      for (auto [i, x] : llvm::enumerate(vals))
        if (std::isfinite(x)) {
          double &slot = channelAmax[(int64_t(i) / stride) % channels];
          slot = std::max(slot, std::fabs(x));
        }
      c.channelScales.clear();
      for (double a : channelAmax)
        c.channelScales.push_back(a > 0 ? powerOfTwoScale(a, limit)
                                        : out.scale);
      out.minChannelScale =
          *std::min_element(c.channelScales.begin(), c.channelScales.end());
      out.maxChannelScale =
          *std::max_element(c.channelScales.begin(), c.channelScales.end());
      measure(vals, 0, c.channelScales, stride, channels, fp8, limit, out);
      return;
    }
    measure(vals, out.scale, {}, 1, 1, fp8, limit, out);
    return;
  }
  auto it = amax.find(v);
  if (it == amax.end())
    return;
  out.amax = it->second;
  if (!fp8 || it->second == 0)
    return;
  out.scale = powerOfTwoScale(it->second,
                              limit * std::exp2(-request.marginBits));
  measure(samples[v], out.scale, {}, 1, 1, fp8, limit, out);
}

void Planner::decide(Contraction &c) {
  OpPlan &p = c.plan;
  planOperand(c, /*isLhs=*/true);
  planOperand(c, /*isLhs=*/false);
  auto use = [&](StringRef precision, StringRef reason) {
    p.precision = precision.str();
    p.reason = reason.str();
    if (precision != "fp8") {
      // Only fp8 operands are scaled.
      for (OperandPlan *o : {&p.lhs, &p.rhs}) {
        o->scale = o->minChannelScale = o->maxChannelScale = 0;
        o->clipped = o->flushed = 0;
      }
      c.channelScales.clear();
    }
    if (precision == "fp8")
      p.operandType = plan.fp8Type;
    else
      p.operandType = precision.str();
  };
  double biggest = std::max(p.lhs.amax.value_or(0), p.rhs.amax.value_or(0));
  auto fallback = [&](StringRef reason) {
    if (biggest > 65504)
      use("f32", "f16_overflow");
    else
      use("f16", reason);
  };
  auto pin = pins.find(p.name);
  if (pin != pins.end() && pin->second != "fp8")
    return use(pin->second, "pinned");
  if (pin != pins.end()) {
    // fp8 needs every scale: fail closed.
    if (p.lhs.scale > 0 && p.rhs.scale > 0)
      return use("fp8", "pinned");
    pinError = c.op->emitError()
               << "--precision-plan pins '" << p.name
               << "' to fp8, but an operand has no fp8 scale (an activation "
                  "without calibration data, or all zeros)";
    return use("f16", "uncalibrated");
  }
  auto conv = dyn_cast<Conv2DOp>(c.op);
  if (conv && conv.getGroups() != 1)
    return fallback("no_matrix_kernel");
  if (p.gemm[1] == 1 || p.gemm[2] == 1)
    return fallback("gemv_no_gain");
  if (!p.lhs.amax || !p.rhs.amax)
    return fallback("uncalibrated");
  if (p.lhs.amax == 0 || p.rhs.amax == 0)
    return fallback("uncalibrated");
  use("fp8", "fp8_requested");
}

Value Planner::toF16(Operation *op, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Type f16 = builder.getF16Type();
  auto resultType = RankedTensorType::get(type.getShape(), f16);
  if (DenseElementsAttr attr = getConstant(v)) {
    builder.setInsertionPoint(op);
    DenseElementsAttr converted =
        castFloatElements(attr, cast<FloatType>(f16));
    return arith::ConstantOp::create(builder, op->getLoc(), converted);
  }
  if (Value slot = halves.lookup(v))
    return slot;
  Value result;
  // Through reshapes, so that the cast joins the producer's epilogue (the
  // importer's casts come before MatMul's flattening too).
  if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    Value inner = toF16(op, reshape.getInput());
    builder.setInsertionPointAfterValue(inner);
    result = ReshapeOp::create(builder, reshape.getLoc(), resultType, inner);
  } else {
    builder.setInsertionPointAfterValue(v);
    result = CastOp::create(builder, v.getLoc(), resultType, v);
  }
  halves[v] = result;
  return result;
}

Value Planner::quantise(Operation *op, Value v, double scale,
                        ArrayRef<double> channelScales, int64_t channelStride) {
  auto type = cast<RankedTensorType>(v.getType());
  auto resultType = RankedTensorType::get(type.getShape(), fp8);
  const llvm::fltSemantics &f8 = fp8.getFloatSemantics();
  if (DenseElementsAttr attr = getConstant(v)) {
    builder.setInsertionPoint(op);
    int64_t channels = channelScales.size();
    std::vector<APFloat> out;
    out.reserve(attr.getNumElements());
    int64_t i = 0;
    for (APFloat x : attr.getValues<APFloat>()) {
      double s = channels ? channelScales[(i / channelStride) % channels]
                          : scale;
      ++i;
      // x * s in f32 (exact: s is a power of two), then crest.cast's rule.
      APFloat scaled = x;
      scaled.multiply(APFloat(float(s)), APFloat::rmNearestTiesToEven);
      out.push_back(sem::castFloat(scaled, f8));
    }
    return arith::ConstantOp::create(builder, op->getLoc(),
                                     DenseElementsAttr::get(resultType, out));
  }
  Value &slot = quantised[{v.getAsOpaquePointer(), scale}];
  if (slot)
    return slot;
  // Through reshapes, so that the quantisation joins the producer's
  // epilogue.
  if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    Value inner = quantise(op, reshape.getInput(), scale, {}, 1);
    builder.setInsertionPointAfterValue(inner);
    Value result =
        ReshapeOp::create(builder, reshape.getLoc(), resultType, inner);
    quantised[{v.getAsOpaquePointer(), scale}] = result;
    return result;
  }
  {
    builder.setInsertionPointAfterValue(v);
    Location loc = v.getLoc();
    auto scalarType = RankedTensorType::get({}, type.getElementType());
    Value s = arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(scalarType, builder.getF32FloatAttr(scale)));
    Value scaled = MulOp::create(builder, loc, type, v, s);
    slot = CastOp::create(builder, loc, resultType, scaled);
  }
  return slot;
}

LogicalResult Planner::apply(Contraction &c) {
  const OpPlan &p = c.plan;
  if (p.precision == "f32")
    return success();
  Operation *op = c.op;
  MLIRContext *ctx = module.getContext();
  Type f32 = builder.getF32Type();
  if (p.precision == "f16") {
    Value lhs = toF16(op, op->getOperand(0));
    Value rhs = toF16(op, op->getOperand(1));
    op->setOperand(0, lhs);
    op->setOperand(1, rhs);
    Type f16 = builder.getF16Type();
    op->setAttr("precision", PrecisionAttr::get(ctx, f16, f16, f32, f32));
    return success();
  }
  int64_t stride = 1;
  if (auto layout = getChannelLayout(op, false))
    stride = std::get<2>(*layout);
  Value lhs = quantise(op, op->getOperand(0), p.lhs.scale, {}, 1);
  Value rhs = quantise(op, op->getOperand(1), p.rhs.scale, c.channelScales,
                       stride);
  op->setOperand(0, lhs);
  op->setOperand(1, rhs);
  op->setAttr("precision", PrecisionAttr::get(ctx, fp8, fp8, f32, f32));
  // y = contraction * 1 / (s_lhs s_rhs): exact, the scales being powers of
  // two; per output channel, a channel-shaped factor.
  Value result = op->getResult(0);
  auto resultType = cast<RankedTensorType>(result.getType());
  builder.setInsertionPointAfter(op);
  Value factor;
  if (c.channelScales.empty()) {
    auto scalarType = RankedTensorType::get({}, f32);
    factor = arith::ConstantOp::create(
        builder, op->getLoc(),
        DenseElementsAttr::get(scalarType, builder.getF32FloatAttr(float(
                                               1.0 / (p.lhs.scale *
                                                      p.rhs.scale)))));
  } else {
    SmallVector<int64_t> shape;
    int64_t channels = c.channelScales.size();
    if (isa<Conv2DOp>(op))
      shape = {channels, 1, 1};
    else
      shape = {channels};
    SmallVector<float> values;
    for (double s : c.channelScales)
      values.push_back(float(1.0 / (p.lhs.scale * s)));
    factor = arith::ConstantOp::create(
        builder, op->getLoc(),
        DenseElementsAttr::get(RankedTensorType::get(shape, f32),
                               ArrayRef<float>(values)));
  }
  auto mul = MulOp::create(builder, op->getLoc(), resultType, result, factor);
  result.replaceAllUsesExcept(mul.getResult(), mul);
  c.result = mul.getResult();
  return success();
}

static OutputError compare(ArrayRef<double> got, ArrayRef<double> want) {
  double dd = 0, ww = 0, gg = 0, gw = 0, maxD = 0, maxW = 0;
  for (auto [g, w] : llvm::zip(got, want)) {
    double d = g - w;
    dd += d * d;
    ww += w * w;
    gg += g * g;
    gw += g * w;
    maxD = std::max(maxD, std::fabs(d));
    maxW = std::max(maxW, std::fabs(w));
  }
  OutputError e;
  e.relL2 = ww > 0 ? std::sqrt(dd / ww) : (dd > 0 ? INFINITY : 0);
  e.cosine = gg > 0 && ww > 0 ? gw / std::sqrt(gg * ww) : (dd > 0 ? 0 : 1);
  e.maxRel = maxW > 0 ? maxD / maxW : (maxD > 0 ? INFINITY : 0);
  return e;
}

LogicalResult Planner::measureErrors(func::FuncOp graph) {
  if (sets.empty())
    return success();
  HostPlanOptions options;
  options.chip = chip.name.str();
  DenseMap<Value, uint32_t> ids;
  FailureOr<pkg::Package> reference =
      buildReferenceGraph(module, options, &ids);
  if (failed(reference))
    return failure();
  std::vector<std::vector<double>> got(contractions.size());
  std::vector<double> outputs;
  for (const InputSet &set : sets) {
    llvm::Expected<std::vector<rt::RefTensor>> values =
        rt::evaluateReference(*reference, set);
    if (!values)
      return graph.emitError() << "the reference evaluation of the planned "
                                  "graph failed: "
                               << llvm::toString(values.takeError());
    for (auto [i, c] : llvm::enumerate(contractions)) {
      const std::vector<double> &v = (*values)[ids.lookup(c.result)].values;
      got[i].insert(got[i].end(), v.begin(), v.end());
    }
    for (uint32_t id : reference->manifest.outputs) {
      const std::vector<double> &v = (*values)[id].values;
      outputs.insert(outputs.end(), v.begin(), v.end());
    }
  }
  for (auto [i, c] : llvm::enumerate(contractions)) {
    OutputError e = compare(got[i], c.f32Values);
    double noise = 0, signal = 0;
    for (auto [g, w] : llvm::zip(got[i], c.f32Values)) {
      noise += (g - w) * (g - w);
      signal += w * w;
    }
    c.plan.sqnr = noise > 0 ? 10 * std::log10(signal / noise) : INFINITY;
    c.plan.cosine = e.cosine;
    c.plan.maxRelError = e.maxRel;
  }
  plan.outputs = compare(outputs, f32Outputs);
  return success();
}

FailureOr<OutputError> Planner::evaluate(ArrayRef<std::string> precisions,
                                        ArrayRef<InputSet> inputs,
                                        ArrayRef<double> want) {
  OwningOpRef<ModuleOp> clone(module.clone());
  SmallVector<Operation *> ops;
  clone->walk([&](ContractionOpInterface op) { ops.push_back(op); });
  std::map<std::pair<void *, double>, Value> savedQuantised;
  DenseMap<Value, Value> savedHalves;
  std::swap(savedQuantised, quantised);
  std::swap(savedHalves, halves);
  LogicalResult applied = success();
  for (auto [i, c] : llvm::enumerate(contractions)) {
    Contraction copy = c;
    copy.op = ops[i];
    copy.plan.precision = precisions[i];
    if (failed(apply(copy)))
      applied = failure();
  }
  std::swap(savedQuantised, quantised);
  std::swap(savedHalves, halves);
  if (failed(applied))
    return failure();
  HostPlanOptions options;
  options.chip = chip.name.str();
  FailureOr<pkg::Package> reference = buildReferenceGraph(*clone, options);
  if (failed(reference))
    return failure();
  std::vector<double> got;
  for (const InputSet &set : inputs) {
    llvm::Expected<std::vector<rt::RefTensor>> values =
        rt::evaluateReference(*reference, set);
    if (!values)
      return module.emitError() << "the reference evaluation of a candidate "
                                   "plan failed: "
                                << llvm::toString(values.takeError());
    for (uint32_t id : reference->manifest.outputs)
      got.insert(got.end(), (*values)[id].values.begin(),
                 (*values)[id].values.end());
  }
  return compare(got, want);
}

/// Best matrix-instruction throughput (ops per cycle) of `kind` on `chip`.
static double getOpsPerCycle(const ChipInfo &chip, ScalarKind kind) {
  double best = 0;
  for (const MmaInstruction *mma : chip.findMma(kind, kind, ScalarKind::F32))
    if (mma->kind == MmaKind::MFMA && mma->cycles)
      best = std::max(best, double(mma->getOps()) / mma->cycles);
  return best;
}

double Planner::matrixCycles(const Contraction &c, StringRef precision) const {
  ScalarKind kind = precision == "fp8"
                        ? (chip.fp8 == Fp8Flavour::FNUZ ? ScalarKind::F8E4M3FNUZ
                                                        : ScalarKind::F8E4M3FN)
                    : precision == "f16"  ? ScalarKind::F16
                    : precision == "bf16" ? ScalarKind::BF16
                                          : ScalarKind::F32;
  double opsPerCycle = getOpsPerCycle(chip, kind);
  if (opsPerCycle == 0)
    return 0;
  const SmallVector<int64_t, 4> &g = c.plan.gemm;
  return 2.0 * g[0] * g[1] * g[2] * g[3] / opsPerCycle;
}

/// The precision a contraction falls back to from fp8: f16, or f32 when an
/// operand's amax exceeds f16's range.
static std::string fallbackPrecision(const OpPlan &p) {
  double biggest = std::max(p.lhs.amax.value_or(0), p.rhs.amax.value_or(0));
  return biggest > 65504 ? "f32" : "f16";
}

LogicalResult Planner::planAuto(func::FuncOp graph) {
  plan.budget = request.budget;
  // The candidates: what --precision=fp8 would quantise. Everything else
  // keeps its fallback and reason.
  SmallVector<size_t> candidates;
  std::vector<std::string> precisions;
  for (auto [i, c] : llvm::enumerate(contractions)) {
    precisions.push_back(c.plan.precision);
    if (c.plan.precision == "fp8" && c.plan.reason == "fp8_requested") {
      candidates.push_back(i);
      precisions.back() = fallbackPrecision(c.plan);
    }
  }
  // Each candidate alone in fp8 on the first calibration set: its share of
  // the loss. Ranked by matrix-core cycles saved per loss added (ties by
  // graph order): deterministic.
  if (!sets.empty()) {
    size_t perSet = f32Outputs.size() / sets.size();
    ArrayRef<double> firstOutputs = ArrayRef<double>(f32Outputs).take_front(
        perSet);
    for (size_t i : candidates) {
      std::vector<std::string> probe = precisions;
      probe[i] = "fp8";
      FailureOr<OutputError> e =
          evaluate(probe, ArrayRef<InputSet>(sets).take_front(1),
                   firstOutputs);
      if (failed(e))
        return failure();
      contractions[i].plan.fp8AloneLoss = e->relL2;
    }
  }
  auto gain = [&](size_t i) {
    const Contraction &c = contractions[i];
    double saved = matrixCycles(c, "f16") - matrixCycles(c, "fp8");
    return saved / (c.plan.fp8AloneLoss.value_or(0) + 1e-12);
  };
  llvm::stable_sort(candidates,
                    [&](size_t a, size_t b) { return gain(a) > gain(b); });
  // A contraction that alone exceeds the budget is in no plan that meets it
  // (the loss only grows as contractions join): it goes last, never in a
  // prefix.
  size_t feasible = std::stable_partition(candidates.begin(), candidates.end(), [&](size_t i) {
                      return contractions[i].plan.fp8AloneLoss.value_or(0) <
                             request.budget;
                    }) -
                    candidates.begin();
  // Fail closed on an empty calibration: no candidate can have a scale.
  auto withPrefix = [&](size_t k) {
    std::vector<std::string> p = precisions;
    for (size_t j = 0; j < k; ++j)
      p[candidates[j]] = "fp8";
    return p;
  };
  std::map<size_t, OutputError> calibrationLoss, holdoutLoss;
  auto lossOn = [&](size_t k, bool holdout) -> FailureOr<double> {
    auto &cache = holdout ? holdoutLoss : calibrationLoss;
    auto it = cache.find(k);
    if (it == cache.end()) {
      FailureOr<OutputError> e =
          holdout ? evaluate(withPrefix(k), holdoutSets, f32HoldoutOutputs)
                  : evaluate(withPrefix(k), sets, f32Outputs);
      if (failed(e))
        return failure();
      it = cache.emplace(k, *e).first;
    }
    return it->second.relL2;
  };
  auto meets = [&](size_t k) -> FailureOr<bool> {
    FailureOr<double> l = lossOn(k, false);
    if (failed(l))
      return failure();
    if (!(*l < request.budget))
      return false;
    if (holdoutSets.empty())
      return true;
    FailureOr<double> h = lossOn(k, true);
    if (failed(h))
      return failure();
    return *h < request.budget;
  };
  // The largest prefix of the ranking that meets the budget, by bisection
  // (the loss grows along the ranking): about log2(n) + 2 evaluations.
  size_t k = 0;
  if (!sets.empty()) {
    FailureOr<bool> base = meets(0);
    if (failed(base))
      return failure();
    if (!*base) {
      plan.budgetMissed = true;
    } else {
      FailureOr<bool> all = feasible ? meets(feasible) : FailureOr<bool>(false);
      if (failed(all))
        return failure();
      if (*all) {
        k = feasible;
      } else {
        size_t lo = 0, hi = feasible;
        while (hi - lo > 1) {
          size_t mid = (lo + hi) / 2;
          FailureOr<bool> ok = meets(mid);
          if (failed(ok))
            return failure();
          (*ok ? lo : hi) = mid;
        }
        k = lo;
      }
    }
  }
  for (auto [rank, i] : llvm::enumerate(candidates)) {
    OpPlan &p = contractions[i].plan;
    if (rank < k) {
      p.reason = "fp8_within_budget";
      continue;
    }
    p.precision = p.operandType = fallbackPrecision(p);
    p.reason = p.precision == "f16" ? "fp8_loss_over_budget" : "f16_overflow";
    for (OperandPlan *o : {&p.lhs, &p.rhs})
      o->scale = o->minChannelScale = o->maxChannelScale = 0;
    contractions[i].channelScales.clear();
  }
  if (!holdoutSets.empty())
    if (FailureOr<double> h = lossOn(k, true); succeeded(h))
      plan.holdout = holdoutLoss[k];
  return success();
}

FailureOr<PrecisionPlan> Planner::run() {
  func::FuncOp graph;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal()) {
      graph = func;
      break;
    }
  if (!graph)
    return module.emitError()
           << "the module has no public func.func to plan precisions for";
  plan.chip = chip.name.str();
  plan.mode = request.mode;
  plan.marginBits = request.marginBits;
  plan.perChannelWeights = request.perChannelWeights;

  graph.walk([&](ContractionOpInterface op) {
    Contraction c;
    c.op = op.getOperation();
    c.plan.name = describeOp(c.op);
    c.plan.op = c.op->getName().stripDialect().str();
    c.plan.gemm = op.getGemmShape();
    contractions.push_back(std::move(c));
  });

  // The chip's fp8: E4M3 in its flavour, or a diagnostic naming the chips
  // that have one.
  bool hasFp8 = false;
  if (chip.fp8 != Fp8Flavour::None) {
    ScalarKind kind = chip.fp8 == Fp8Flavour::FNUZ ? ScalarKind::F8E4M3FNUZ
                                                   : ScalarKind::F8E4M3FN;
    hasFp8 = !chip.findMma(kind, kind, ScalarKind::F32).empty();
  }
  if (!hasFp8) {
    SmallVector<std::string> have;
    for (const ChipInfo &other : getAllChips()) {
      if (other.fp8 == Fp8Flavour::None)
        continue;
      ScalarKind kind = other.fp8 == Fp8Flavour::FNUZ ? ScalarKind::F8E4M3FNUZ
                                                      : ScalarKind::F8E4M3FN;
      for (const MmaInstruction *mma :
           other.findMma(kind, kind, ScalarKind::F32))
        if (mma->kind == MmaKind::MFMA) {
          have.push_back((other.name + " (" +
                          getFp8FlavourName(other.fp8) + ")")
                             .str());
          break;
        }
    }
    Location loc = contractions.empty() ? graph.getLoc()
                                        : contractions.front().op->getLoc();
    return emitError(loc) << "--precision=" << request.mode << ": "
                          << chip.name
                          << " has no fp8 matrix instructions; chips with "
                             "fp8 MFMA instructions: "
                          << llvm::join(have, ", ");
  }
  fp8 = getFp8Type(module.getContext(), chip.fp8);
  {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << fp8;
    plan.fp8Type = name;
  }
  plan.fp8Max = sem::getLargest(fp8.getFloatSemantics());

  // Contractions must read f32 (the planner chooses their types).
  for (Contraction &c : contractions) {
    auto prec = cast<ContractionOpInterface>(c.op).getPrecision();
    if (!prec.getLhs().isF32() || !prec.getRhs().isF32() ||
        !cast<RankedTensorType>(c.op->getOperand(0).getType())
             .getElementType()
             .isF32() ||
        !cast<RankedTensorType>(c.op->getOperand(1).getType())
             .getElementType()
             .isF32())
      return c.op->emitError()
             << "the precision planner chooses the operand types of "
                "contractions that read f32; this one reads "
             << prec.getLhs() << " x " << prec.getRhs();
  }

  if (failed(readPins(graph)) || failed(calibrate(graph)))
    return failure();
  for (Contraction &c : contractions)
    decide(c);
  if (failed(pinError))
    return failure();
  if (request.mode == "auto" && failed(planAuto(graph)))
    return failure();
  for (Contraction &c : contractions) {
    plan.matrixCycles += matrixCycles(c, c.plan.precision);
    plan.f16MatrixCycles += matrixCycles(c, "f16");
    c.plan.fp8Cycles = matrixCycles(c, "fp8");
    c.plan.f16Cycles = matrixCycles(c, "f16");
    c.plan.f32Cycles = matrixCycles(c, "f32");
  }
  for (Contraction &c : contractions) {
    c.result = c.op->getResult(0);
    if (failed(apply(c)))
      return failure();
  }
  // The f32 weights the rewrite replaced would still become package
  // weights.
  SmallVector<Operation *> dead;
  graph.walk([&](arith::ConstantOp constant) {
    if (constant->use_empty())
      dead.push_back(constant);
  });
  for (Operation *op : dead)
    op->erase();
  if (failed(measureErrors(graph)))
    return failure();
  for (Contraction &c : contractions)
    plan.ops.push_back(c.plan);
  return plan;
}

FailureOr<PrecisionPlan>
crest::planPrecision(ModuleOp module, const ChipInfo &chip,
                     const PrecisionRequest &request) {
  return Planner(module, chip, request).run();
}

//===----------------------------------------------------------------------===//
// The plan as data
//===----------------------------------------------------------------------===//

static llvm::json::Value operandToJson(const OperandPlan &o) {
  llvm::json::Object object{{"kind", o.isWeight ? "weight" : "activation"}};
  if (o.amax)
    object["amax"] = *o.amax;
  else
    object["amax"] = nullptr;
  if (o.scale > 0) {
    object["scale"] = o.scale;
    object["error"] = o.error;
    object["clipped"] = o.clipped;
    object["flushed"] = o.flushed;
  }
  if (o.maxChannelScale > 0) {
    object["min_channel_scale"] = o.minChannelScale;
    object["max_channel_scale"] = o.maxChannelScale;
  }
  return object;
}

llvm::json::Value PrecisionPlan::toJson() const {
  llvm::json::Array array;
  for (const OpPlan &op : ops) {
    llvm::json::Array gemm;
    for (int64_t d : op.gemm)
      gemm.push_back(d);
    array.push_back(llvm::json::Object{{"name", op.name},
                                       {"op", op.op},
                                       {"gemm", std::move(gemm)},
                                       {"precision", op.precision},
                                       {"type", op.operandType},
                                       {"reason", op.reason},
                                       {"lhs", operandToJson(op.lhs)},
                                       {"rhs", operandToJson(op.rhs)}});
    if (op.reason == "pinned")
      array.back().getAsObject()->insert({"pin", op.precision});
    if (op.fp8AloneLoss)
      array.back().getAsObject()->insert({"fp8_alone_rel_l2",
                                          *op.fp8AloneLoss});
    array.back().getAsObject()->insert(
        {"cycles", llvm::json::Object{{"fp8", op.fp8Cycles},
                                      {"f16", op.f16Cycles},
                                      {"f32", op.f32Cycles}}});
    if (op.sqnr) {
      llvm::json::Object &entry = *array.back().getAsObject();
      // JSON has no infinity: an exact result has SQNR null.
      entry["sqnr_db"] = std::isfinite(*op.sqnr) ? llvm::json::Value(*op.sqnr)
                                                 : llvm::json::Value(nullptr);
      entry["cosine"] = *op.cosine;
      entry["max_rel_error"] = *op.maxRelError;
    }
  }
  llvm::json::Object object{{"version", 1},
                            {"chip", chip},
                            {"mode", mode},
                            {"fp8_type", fp8Type},
                            {"fp8_max", fp8Max},
                            {"margin_bits", marginBits},
                            {"per_channel_weights", perChannelWeights},
                            {"calibration_sets", int64_t(calibrationSets)},
                            {"summary", summary()},
                            {"ops", std::move(array)}};
  object["matrix_cycles"] = matrixCycles;
  object["f16_matrix_cycles"] = f16MatrixCycles;
  if (mode == "auto") {
    object["budget"] = budget;
    object["budget_missed"] = budgetMissed;
    object["holdout_sets"] = int64_t(holdoutSets);
  }
  if (holdout)
    object["holdout"] = llvm::json::Object{{"rel_l2", holdout->relL2},
                                           {"cosine", holdout->cosine},
                                           {"max_rel_error", holdout->maxRel}};
  if (outputs)
    object["outputs"] = llvm::json::Object{{"rel_l2", outputs->relL2},
                                           {"cosine", outputs->cosine},
                                           {"max_rel_error", outputs->maxRel}};
  return object;
}

std::string PrecisionPlan::summary() const {
  unsigned fp8 = 0, f16 = 0, f32 = 0;
  for (const OpPlan &op : ops) {
    fp8 += op.precision == "fp8";
    f16 += op.precision == "f16";
    f32 += op.precision == "f32";
  }
  std::string text = llvm::formatv("{0}/{1} contractions fp8, {2} f16, {3} f32",
                                   fp8, ops.size(), f16, f32)
                         .str();
  if (outputs)
    text += llvm::formatv("; outputs vs f32 on {0} calibration set(s): "
                          "rel L2 {1:e2}, cosine {2:f6}, max-norm rel "
                          "error {3:e2}",
                          calibrationSets, outputs->relL2, outputs->cosine,
                          outputs->maxRel)
                .str();
  if (holdout)
    text += llvm::formatv("; holdout ({0} set(s)): rel L2 {1:e2}, cosine "
                          "{2:f6}",
                          holdoutSets, holdout->relL2, holdout->cosine)
                .str();
  if (mode == "auto") {
    char number[32];
    std::snprintf(number, sizeof(number), "%g", budget);
    text += std::string("; budget rel L2 < ") + number +
            (budgetMissed ? " NOT MET (f16 baseline)" : "");
  }
  if (f16MatrixCycles > 0)
    text += llvm::formatv("; matrix-core cycles {0:f0} vs {1:f0} all f16 "
                          "({2:f2}x)",
                          matrixCycles, f16MatrixCycles,
                          f16MatrixCycles / std::max(matrixCycles, 1.0))
                .str();
  return text;
}

void crest::printPlan(llvm::raw_ostream &os, const PrecisionPlan &plan) {
  llvm::consumeError(rt::printPrecisionPlan(os, plan.toJson()));
}
