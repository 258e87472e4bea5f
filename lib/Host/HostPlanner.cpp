//===- HostPlanner.cpp - A lowered crest graph to a .crest package --------===//
//
// See HostPlanner.h and docs/Package.md ("How crest-compile builds a
// package").
//
//===----------------------------------------------------------------------===//

#include "crest/Host/HostPlanner.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Semantics/View.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace crest;

namespace pkg = crest::pkg;

//===----------------------------------------------------------------------===//
// Buffer planning
//===----------------------------------------------------------------------===//

std::vector<uint32_t> crest::planBuffers(ArrayRef<LiveRange> ranges,
                                         std::vector<uint64_t> &bufferSizes) {
  std::vector<size_t> order(ranges.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return std::make_pair(ranges[a].first, a) <
           std::make_pair(ranges[b].first, b);
  });
  // Per buffer: the last launch of its latest occupant. Values arrive in
  // order of their first launch, so a buffer whose latest occupant ended
  // before a value's first launch is free for the whole of its range.
  std::vector<size_t> busyUntil;
  std::vector<uint32_t> assignment(ranges.size());
  for (size_t id : order) {
    const LiveRange &range = ranges[id];
    std::optional<size_t> fit, largest;
    for (size_t b = 0; b < busyUntil.size(); ++b) {
      if (busyUntil[b] >= range.first)
        continue;
      if (bufferSizes[b] >= range.bytes &&
          (!fit || bufferSizes[b] < bufferSizes[*fit]))
        fit = b;
      if (!largest || bufferSizes[b] > bufferSizes[*largest])
        largest = b;
    }
    size_t chosen;
    if (fit) {
      chosen = *fit; // the smallest free buffer that is large enough
    } else if (largest) {
      chosen = *largest; // grow the largest free one
      bufferSizes[chosen] = range.bytes;
    } else {
      chosen = busyUntil.size();
      busyUntil.push_back(0);
      bufferSizes.push_back(range.bytes);
    }
    busyUntil[chosen] = range.last;
    assignment[id] = uint32_t(chosen);
  }
  return assignment;
}

//===----------------------------------------------------------------------===//
// Attributes and locations as JSON
//===----------------------------------------------------------------------===//

static std::string print(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

static std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A float attribute value: a JSON number, or the string "inf", "-inf" or
/// "nan" (JSON has no non-finite numbers; docs/Package.md).
static llvm::json::Value floatToJson(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

static llvm::json::Value attrToJson(Attribute attr) {
  if (isa<UnitAttr>(attr))
    return true;
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (i.getType().isInteger(1))
      return i.getValue().getBoolValue();
    if (i.getType().isUnsignedInteger())
      return i.getValue().getZExtValue();
    return i.getValue().getSExtValue();
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return floatToJson(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue();
  if (auto t = dyn_cast<TypeAttr>(attr))
    return print(t.getValue());
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<DenseI32ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<DenseBoolArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<DenseF32ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (float v : a.asArrayRef())
      array.push_back(floatToJson(v));
    return array;
  }
  if (auto a = dyn_cast<DenseF64ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (double v : a.asArrayRef())
      array.push_back(floatToJson(v));
    return array;
  }
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute element : a)
      array.push_back(attrToJson(element));
    return array;
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute named : d)
      object[named.getName().getValue()] = attrToJson(named.getValue());
    return object;
  }
  if (auto p = dyn_cast<PrecisionAttr>(attr))
    return llvm::json::Object{{"lhs", print(p.getLhs())},
                              {"rhs", print(p.getRhs())},
                              {"acc", print(p.getAcc())},
                              {"out", print(p.getOut())}};
  // Enums, #crest.sync, #crest.config and anything else: as printed.
  return print(attr);
}

static llvm::json::Object attrsToJson(Operation *op) {
  llvm::json::Object object;
  for (NamedAttribute named : op->getAttrs()) {
    // How the op was compiled, not what it computes.
    if (named.getName() == CrestDialect::getLaunchAttrName() ||
        named.getName() == CrestDialect::getTuningAttrName())
      continue;
    object[named.getName().getValue()] = attrToJson(named.getValue());
  }
  // Defaults the printed form omits, written out so that the reference
  // evaluator needs no knowledge of them.
  if (auto gather = dyn_cast<GatherOp>(op))
    object["axis"] = int64_t(gather.getAxis()); // I64Attr reads as uint64_t
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    object["causal"] = stringifyCausalMask(attention.getCausal());
    object["scale"] = attention.getEffectiveScale();
    object["has_kv_length"] = bool(attention.getKvLength());
    object["has_mask"] = bool(attention.getMask());
  }
  if (auto slice = dyn_cast<SliceOp>(op); slice && !slice.getStrides())
    object["strides"] = llvm::json::Array(
        SmallVector<int64_t>(slice.getOffsets().size(), 1));
  return object;
}

static std::string describeLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

//===----------------------------------------------------------------------===//
// Tensor types and weight bytes
//===----------------------------------------------------------------------===//

/// The package type of `type`; nullopt (no diagnostic) when it has none.
static std::optional<pkg::TensorType> getTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getRank() > pkg::kMaxRank)
    return std::nullopt;
  std::optional<pkg::ElementType> element =
      pkg::parseElementType(print(tensor.getElementType()));
  if (!element)
    return std::nullopt;
  pkg::TensorType result;
  result.element = *element;
  result.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return result;
}

/// Appends the bytes of `attr` (little-endian, splats expanded, i1 as one
/// byte per element) to `out`.
static LogicalResult appendWeightBytes(Operation *op, ElementsAttr attr,
                                       const pkg::TensorType &type,
                                       std::vector<uint8_t> &out) {
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr);
  if (!dense)
    return op->emitError() << "constant of kind " << print(attr).substr(0, 20)
                           << "... cannot become a weight; only dense "
                              "constants can";
  unsigned size = pkg::getElementTypeSize(type.element);
  uint64_t count = uint64_t(type.getNumElements());
  ArrayRef<char> raw = dense.getRawData();
  bool byteSized = dense.getElementType().getIntOrFloatBitWidth() == size * 8;
  if (byteSized && dense.isSplat() && raw.size() == size) {
    for (uint64_t i = 0; i < count; ++i)
      out.insert(out.end(), raw.begin(), raw.end());
    return success();
  }
  if (byteSized && raw.size() == count * size) {
    out.insert(out.end(), raw.begin(), raw.end());
    return success();
  }
  // Element by element (i1, and any other storage layout).
  auto putInt = [&](const APInt &value) {
    unsigned bits = value.getBitWidth();
    for (unsigned b = 0; b < size; ++b)
      out.push_back(b * 8 < bits ? uint8_t(value.extractBitsAsZExtValue(
                                       std::min(8u, bits - b * 8), b * 8))
                                 : 0);
  };
  if (isa<FloatType>(dense.getElementType())) {
    for (APFloat value : dense.getValues<APFloat>())
      putInt(value.bitcastToAPInt());
  } else if (dense.getElementType().isInteger(1)) {
    for (bool value : dense.getValues<bool>())
      out.push_back(value ? 1 : 0);
  } else {
    for (APInt value : dense.getValues<APInt>())
      putInt(value);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {
class Planner {
public:
  Planner(ModuleOp module, ArrayRef<CompiledKernelModule> compiled,
          const HostPlanOptions &options, bool referenceOnly = false)
      : module(module), compiled(compiled), options(options),
        referenceOnly(referenceOnly) {}

  FailureOr<pkg::Package> run();
  /// The value ids of the graph's SSA values (after run()).
  const DenseMap<Value, uint32_t> &getIds() const { return ids; }

private:
  FailureOr<func::FuncOp> findGraph();
  /// A new value; fails (with a diagnostic at `op`) on unsupported types
  /// and duplicate names.
  FailureOr<uint32_t> addValue(Operation *op, Type type, std::string name,
                               pkg::ValueKind kind, StringRef what);
  /// A weight holding `constant`'s bytes as `result` (the constant itself,
  /// or an aliased reshape of it: the same bytes in another shape).
  FailureOr<uint32_t> addWeight(arith::ConstantOp constant, Value result);
  /// Pads the Weights section so the next weight starts 256-byte aligned (a
  /// runtime may map the section and use the bytes in place); returns that
  /// offset.
  uint64_t alignWeights() {
    package.weights.resize((package.weights.size() + 255) / 256 * 256, 0);
    return package.weights.size();
  }
  FailureOr<uint32_t> addWeight(arith::ConstantOp constant) {
    return addWeight(constant, constant.getResult());
  }
  LogicalResult addLaunch(Operation *op, LaunchAttr launch);
  /// referenceOnly: an op's results as intermediates and its nodes, no
  /// launch.
  LogicalResult addReferenceOp(Operation *op);
  /// A reshape without a kernel: its result shows its input's bytes.
  LogicalResult addAlias(ReshapeOp op);
  /// A slice without a kernel, a contiguous window of its input: its
  /// result shows a run of its input's bytes.
  LogicalResult addWindow(SliceOp op);
  /// The value whose bytes `id` shows (itself unless an alias).
  uint32_t aliasRoot(uint32_t id) const {
    for (auto it = aliasOf.find(id); it != aliasOf.end();
         it = aliasOf.find(id))
      id = it->second;
    return id;
  }
  /// Where the bytes `id` shows start in its root's (0 unless a window).
  uint64_t aliasByteOffset(uint32_t id) const {
    uint64_t offset = 0;
    for (auto it = aliasOf.find(id); it != aliasOf.end();
         it = aliasOf.find(id)) {
      offset += windowOffset.lookup(id);
      id = it->second;
    }
    return offset;
  }
  LogicalResult addNodes(Operation *op);
  FailureOr<uint32_t> lookupKernel(Operation *op, SymbolRefAttr symbol,
                                   std::string description);
  void planIntermediateBuffers();

  ModuleOp module;
  ArrayRef<CompiledKernelModule> compiled;
  const HostPlanOptions &options;
  bool referenceOnly;
  pkg::Package package;
  DenseMap<Value, uint32_t> ids;
  llvm::StringSet<> names;
  std::map<std::pair<size_t, std::string>, uint32_t> kernelIds;
  /// Alias value -> the value it reshapes or is a window of.
  DenseMap<uint32_t, uint32_t> aliasOf;
  /// Window alias -> the byte offset of its bytes in its input's.
  DenseMap<uint32_t, uint64_t> windowOffset;
  /// Constants (and aliased reshapes of them) that become a weight only in
  /// the shape their first non-reshape user needs.
  DenseMap<Value, arith::ConstantOp> pendingWeights;
  unsigned weightCount = 0, referenceCount = 0, aliasCount = 0;
};
} // namespace

FailureOr<func::FuncOp> Planner::findGraph() {
  func::FuncOp graph;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    if (graph) {
      InFlightDiagnostic diag =
          func.emitError() << "the package holds one graph, but the module "
                              "has several public functions";
      diag.attachNote(graph.getLoc()) << "the first one";
      return failure();
    }
    graph = func;
  }
  if (!graph)
    return module.emitError()
           << "the module has no public func.func to make a package of";
  return graph;
}

FailureOr<uint32_t> Planner::addValue(Operation *op, Type type,
                                      std::string name, pkg::ValueKind kind,
                                      StringRef what) {
  std::optional<pkg::TensorType> tensorType = getTensorType(type);
  if (!tensorType)
    return op->emitError() << what << " has type " << type
                           << ", which a package cannot hold (a static "
                              "tensor of rank <= "
                           << pkg::kMaxRank << " is needed)";
  if (!names.insert(name).second)
    return op->emitError() << what << ": the name '" << name
                           << "' is already used";
  pkg::Value value;
  value.name = std::move(name);
  value.type = *tensorType;
  value.kind = kind;
  package.manifest.values.push_back(std::move(value));
  return uint32_t(package.manifest.values.size() - 1);
}

FailureOr<uint32_t> Planner::addWeight(arith::ConstantOp constant,
                                       Value result) {
  auto elements = dyn_cast<ElementsAttr>(constant.getValue());
  if (!elements)
    return constant.emitError() << "only tensor constants can become weights";
  std::string name = "weight" + std::to_string(weightCount++);
  FailureOr<uint32_t> id = addValue(constant, result.getType(), name,
                                    pkg::ValueKind::Weight, "weight");
  if (failed(id))
    return failure();
  pkg::Value &value = package.manifest.values[*id];
  std::vector<uint8_t> &weights = package.weights;
  value.weightOffset = alignWeights();
  if (failed(appendWeightBytes(constant, elements, value.type, weights)))
    return failure();
  value.weightSize = weights.size() - value.weightOffset;
  ids[result] = *id;
  return id;
}

/// Whether `op` is a reshape the host planner aliases (no kernel).
static bool isAliasedReshape(Operation *op) {
  return isa<ReshapeOp>(op) && !getLaunch(op);
}

/// Whether every user of `v` is an aliased reshape (and there is one).
static bool onlyReshaped(Value v) {
  return !v.use_empty() &&
         llvm::all_of(v.getUsers(), [](Operation *user) {
           return isAliasedReshape(user) && !user->getParentOfType<KernelOp>();
         });
}

LogicalResult Planner::addAlias(ReshapeOp op) {
  Value input = op.getInput(), result = op.getResult();
  // A reshaped constant is a weight of the new shape; the constant's own
  // shape becomes a weight only if something else reads it.
  if (auto pending = pendingWeights.find(input);
      pending != pendingWeights.end()) {
    arith::ConstantOp constant = pending->second;
    if (onlyReshaped(result)) {
      pendingWeights[result] = constant;
      return success();
    }
    return addWeight(constant, result);
  }
  auto it = ids.find(input);
  if (it == ids.end())
    return op.emitError() << "the input of this reshape is not a graph "
                             "input, a weight or the result of a launched op";
  FailureOr<uint32_t> id =
      addValue(op, result.getType(), "alias" + std::to_string(aliasCount++),
               pkg::ValueKind::Intermediate, "result");
  if (failed(id))
    return failure();
  aliasOf[*id] = it->second;
  ids[result] = *id;
  return addNodes(op);
}

LogicalResult Planner::addWindow(SliceOp op) {
  RankedTensorType in = op.getInput().getType(), out = op.getType();
  ArrayRef<int64_t> strides;
  if (std::optional<ArrayRef<int64_t>> s = op.getStrides())
    strides = *s;
  std::optional<pkg::TensorType> type = getTensorType(in);
  std::optional<int64_t> bytes;
  if (type)
    bytes = getContiguousWindowByteOffset(
        in.getShape(), out.getShape(), op.getOffsets(), strides,
        pkg::getElementTypeSize(type->element));
  if (!bytes || !isAliasableWindowOffset(*bytes))
    return op.emitError()
           << "this slice has no crest.launch and is not a contiguous window "
              "of its input starting "
           << kWindowAlignment
           << "-byte aligned; run crest-lower-ops-to-gpu, which gives it a "
              "kernel";
  auto it = ids.find(op.getInput());
  if (it == ids.end())
    return op.emitError() << "the input of this slice is not a graph input, "
                             "a weight or the result of a launched op";
  FailureOr<uint32_t> id =
      addValue(op, out, "alias" + std::to_string(aliasCount++),
               pkg::ValueKind::Intermediate, "result");
  if (failed(id))
    return failure();
  aliasOf[*id] = it->second;
  windowOffset[*id] = uint64_t(*bytes);
  ids[op.getResult()] = *id;
  return addNodes(op);
}

FailureOr<uint32_t> Planner::lookupKernel(Operation *op, SymbolRefAttr symbol,
                                          std::string description) {
  StringRef moduleName = symbol.getRootReference().getValue();
  StringRef kernelName = symbol.getLeafReference().getValue();
  for (auto [index, compiledModule] : llvm::enumerate(compiled)) {
    if (compiledModule.name != moduleName)
      continue;
    auto key = std::make_pair(index, kernelName.str());
    auto it = kernelIds.find(key);
    if (it != kernelIds.end())
      return it->second;
    pkg::Kernel kernel;
    kernel.name = kernelName.str();
    kernel.codeObject = uint32_t(index);
    kernel.op = std::move(description);
    auto info = compiledModule.kernels.find(kernelName);
    if (info == compiledModule.kernels.end())
      return op->emitError()
             << "crest.launch: kernel @" << moduleName << "::@" << kernelName
             << " is not in the code object of gpu.module @" << moduleName;
    kernel.info = info->second;
    package.manifest.kernels.push_back(std::move(kernel));
    uint32_t id = uint32_t(package.manifest.kernels.size() - 1);
    kernelIds[key] = id;
    return id;
  }
  return op->emitError() << "crest.launch: no compiled gpu.module @"
                         << moduleName << " holds kernel @" << kernelName;
}

/// "matmul+add+relu" for a crest.kernel, the op's name otherwise.
static std::string describeKernel(Operation *op) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    return op->getName().stripDialect().str();
  std::string text;
  for (Operation &inner : kernel.getBody().front().without_terminator()) {
    if (isa<arith::ConstantOp>(inner))
      continue;
    if (!text.empty())
      text += "+";
    text += inner.getName().stripDialect().str();
  }
  return text;
}

/// `sizes` as the package stores them (#crest.launch verified them).
static std::array<uint32_t, 3> getDim3(ArrayRef<int64_t> sizes) {
  return {uint32_t(sizes[0]), uint32_t(sizes[1]), uint32_t(sizes[2])};
}

LogicalResult Planner::addLaunch(Operation *op, LaunchAttr launchAttr) {
  FailureOr<uint32_t> kernel =
      lookupKernel(op, launchAttr.getKernel(), describeKernel(op));
  if (failed(kernel))
    return failure();
  pkg::Launch launch;
  launch.kernel = *kernel;
  launch.grid = getDim3(launchAttr.getGrid());
  launch.block = getDim3(launchAttr.getBlock());
  for (Value operand : op->getOperands()) {
    auto it = ids.find(operand);
    if (it == ids.end())
      return op->emitError() << "an operand of this op is not a graph input, "
                                "a weight or the result of a launched op";
    launch.args.push_back(it->second);
  }
  size_t launchIndex = package.manifest.launches.size();
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    // Intermediate for now; func.return makes outputs of the returned ones.
    FailureOr<uint32_t> id = addValue(
        op, result.getType(),
        "launch" + std::to_string(launchIndex) + ".result" + std::to_string(i),
        pkg::ValueKind::Intermediate, "result #" + std::to_string(i));
    if (failed(id))
      return failure();
    ids[result] = *id;
    launch.args.push_back(*id);
  }
  // Then the kernel's own buffers: workspaces live for this launch only;
  // semaphores are zero when the package is loaded and every launch leaves
  // them zero, so they are weights of zeros.
  std::string prefix = "launch" + std::to_string(launchIndex);
  for (auto [i, type] : llvm::enumerate(launchAttr.getWorkspaceTypes())) {
    FailureOr<uint32_t> id =
        addValue(op, type, prefix + ".workspace" + std::to_string(i),
                 pkg::ValueKind::Workspace, "workspace #" + std::to_string(i));
    if (failed(id))
      return failure();
    launch.args.push_back(*id);
  }
  for (auto [i, type] : llvm::enumerate(launchAttr.getSemaphoreTypes())) {
    FailureOr<uint32_t> id =
        addValue(op, type, prefix + ".semaphores" + std::to_string(i),
                 pkg::ValueKind::Weight, "semaphores #" + std::to_string(i));
    if (failed(id))
      return failure();
    pkg::Value &value = package.manifest.values[*id];
    value.weightOffset = alignWeights();
    value.weightSize = value.type.getByteSize();
    package.weights.resize(value.weightOffset + value.weightSize, 0);
    launch.args.push_back(*id);
  }
  package.manifest.launches.push_back(std::move(launch));
  return addNodes(op);
}

LogicalResult Planner::addReferenceOp(Operation *op) {
  for (Value operand : op->getOperands())
    if (!ids.count(operand))
      return op->emitError() << "an operand of this op is not a graph input, "
                                "a weight or the result of a crest op";
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    FailureOr<uint32_t> id =
        addValue(op, result.getType(), "value" + std::to_string(ids.size()),
                 pkg::ValueKind::Intermediate, "result #" + std::to_string(i));
    if (failed(id))
      return failure();
    ids[result] = *id;
  }
  return addNodes(op);
}

LogicalResult Planner::addNodes(Operation *op) {
  auto addNode = [&](Operation *inner, SmallVector<uint32_t> inputs,
                     SmallVector<uint32_t> outputs) {
    pkg::Node node;
    node.op = inner->getName().stripDialect().str();
    node.inputs.assign(inputs.begin(), inputs.end());
    node.outputs.assign(outputs.begin(), outputs.end());
    node.attributes = attrsToJson(inner);
    node.location = describeLocation(inner->getLoc());
    package.manifest.graph.push_back(std::move(node));
  };
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel) {
    SmallVector<uint32_t> inputs, outputs;
    for (Value v : op->getOperands())
      inputs.push_back(ids.lookup(v));
    for (Value v : op->getResults())
      outputs.push_back(ids.lookup(v));
    addNode(op, inputs, outputs);
    return success();
  }
  // Inline the body: block arguments are the kernel's inputs, yielded
  // values its results, everything else a Reference value.
  Block &body = kernel.getBody().front();
  DenseMap<Value, uint32_t> inner;
  for (auto [arg, input] : llvm::zip(body.getArguments(), kernel.getInputs()))
    inner[arg] = ids.lookup(input);
  auto yield = cast<YieldOp>(body.getTerminator());
  DenseMap<Value, uint32_t> yielded;
  for (auto [value, result] :
       llvm::zip(yield.getValues(), kernel.getResults())) {
    if (isa<BlockArgument>(value) || yielded.count(value))
      return yield.emitError()
             << "a crest.kernel result must be computed by an op of its body "
                "and yielded once (the reference graph has no copy)";
    yielded[value] = ids.lookup(result);
  }
  for (Operation &innerOp : body.without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(innerOp)) {
      if (yielded.count(constant.getResult()))
        return yield.emitError()
               << "a crest.kernel result must be computed by an op of its "
                  "body, not be a constant";
      FailureOr<uint32_t> id = addWeight(constant);
      if (failed(id))
        return failure();
      inner[constant.getResult()] = *id;
      continue;
    }
    if (!isa<CrestDialect>(innerOp.getDialect()))
      return innerOp.emitError()
             << "the reference graph holds crest ops only; this op in a "
                "crest.kernel body has no reference semantics";
    SmallVector<uint32_t> inputs, outputs;
    for (Value v : innerOp.getOperands())
      inputs.push_back(inner.lookup(v));
    for (auto [i, result] : llvm::enumerate(innerOp.getResults())) {
      auto it = yielded.find(result);
      uint32_t id;
      if (it != yielded.end()) {
        id = it->second;
      } else {
        FailureOr<uint32_t> ref =
            addValue(&innerOp, result.getType(),
                     "ref" + std::to_string(referenceCount++),
                     pkg::ValueKind::Reference, "result");
        if (failed(ref))
          return failure();
        id = *ref;
      }
      inner[result] = id;
      outputs.push_back(id);
    }
    addNode(&innerOp, inputs, outputs);
  }
  return success();
}

void Planner::planIntermediateBuffers() {
  pkg::Manifest &m = package.manifest;
  // An alias and the value it shows are one storage class, planned by
  // their root; a class holding an input, an output or a weight (at most
  // one, see run()) lives in that value's own buffer.
  DenseMap<uint32_t, uint32_t> ownedBuffer; // root -> buffer
  for (auto [id, value] : llvm::enumerate(m.values)) {
    if (value.kind == pkg::ValueKind::Reference ||
        value.kind == pkg::ValueKind::Intermediate ||
        value.kind == pkg::ValueKind::Workspace)
      continue;
    value.buffer = uint32_t(m.buffers.size());
    value.bufferOffset = aliasByteOffset(uint32_t(id));
    ownedBuffer[aliasRoot(uint32_t(id))] = *value.buffer;
    m.buffers.push_back({std::max<uint64_t>(value.type.getByteSize(), 1)});
  }
  // Live ranges of the other classes: from the launch that writes the root
  // to the last one that reads any of its aliases.
  std::vector<uint32_t> roots;
  std::vector<LiveRange> ranges;
  DenseMap<uint32_t, size_t> slot; // root -> index in ranges
  auto isTransient = [](const pkg::Value &value) {
    return value.kind == pkg::ValueKind::Intermediate ||
           value.kind == pkg::ValueKind::Workspace;
  };
  for (auto [id, value] : llvm::enumerate(m.values)) {
    if (!isTransient(value))
      continue;
    uint32_t root = aliasRoot(uint32_t(id));
    value.bufferOffset = aliasByteOffset(uint32_t(id));
    if (auto owned = ownedBuffer.find(root); owned != ownedBuffer.end()) {
      value.buffer = owned->second;
      continue;
    }
    if (slot.count(root))
      continue;
    slot[root] = ranges.size();
    roots.push_back(root);
    LiveRange range;
    // The root's bytes: its aliases show them, or windows of them.
    range.bytes = std::max<uint64_t>(m.values[root].type.getByteSize(), 1);
    range.first = m.launches.size();
    ranges.push_back(range);
  }
  for (auto [i, launch] : llvm::enumerate(m.launches)) {
    for (uint32_t id : launch.args) {
      auto it = slot.find(aliasRoot(id));
      if (it == slot.end())
        continue;
      LiveRange &range = ranges[it->second];
      range.first = std::min(range.first, size_t(i));
      range.last = std::max(range.last, size_t(i));
    }
  }
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> assignment = planBuffers(ranges, sizes);
  uint32_t base = uint32_t(m.buffers.size());
  for (uint64_t size : sizes)
    m.buffers.push_back({size});
  for (auto [id, value] : llvm::enumerate(m.values)) {
    if (!isTransient(value) || value.buffer)
      continue;
    value.buffer = base + assignment[slot.lookup(aliasRoot(uint32_t(id)))];
  }
}

FailureOr<pkg::Package> Planner::run() {
  FailureOr<func::FuncOp> graphOr = findGraph();
  if (failed(graphOr))
    return failure();
  func::FuncOp graph = *graphOr;
  pkg::Manifest &m = package.manifest;
  m.chip = options.chip;
  m.codeObjectVersion = options.codeObjectVersion;
  m.waveSize = options.waveSize;
  m.graphName = graph.getName().str();
  for (const CompiledKernelModule &compiledModule : compiled)
    package.codeObjects.push_back(compiledModule.codeObject);

  // Graph inputs.
  for (BlockArgument arg : graph.getArguments()) {
    std::string name = "input" + std::to_string(arg.getArgNumber());
    if (auto attr = graph.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                       "crest.name"))
      name = attr.getValue().str();
    FailureOr<uint32_t> id =
        addValue(graph, arg.getType(), name, pkg::ValueKind::Input,
                 "argument #" + std::to_string(arg.getArgNumber()));
    if (failed(id))
      return failure();
    ids[arg] = *id;
    m.inputs.push_back(*id);
  }

  // The body, in order.
  bool ok = true;
  func::ReturnOp ret;
  for (Operation &op : graph.getBody().front()) {
    if (auto r = dyn_cast<func::ReturnOp>(op)) {
      ret = r;
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (onlyReshaped(constant.getResult()))
        pendingWeights[constant.getResult()] = constant;
      else if (failed(addWeight(constant)))
        return failure();
      continue;
    }
    if (isAliasedReshape(&op)) {
      if (ok && failed(addAlias(cast<ReshapeOp>(op))))
        return failure();
      continue;
    }
    if (auto slice = dyn_cast<SliceOp>(op);
        slice && !referenceOnly && !getLaunch(slice)) {
      if (ok && failed(addWindow(slice)))
        return failure();
      continue;
    }
    if (!isa<CrestDialect>(op.getDialect())) {
      op.emitError() << "a package runs crest ops only; this op has no "
                        "kernel";
      ok = false;
      continue;
    }
    LaunchAttr launch = getLaunch(&op);
    if (referenceOnly) {
      if (failed(addReferenceOp(&op)))
        return failure();
      continue;
    }
    if (!launch) {
      op.emitError() << "no kernel was generated for this op";
      ok = false;
      continue;
    }
    if (!ok)
      continue; // report every op without a kernel, plan nothing more
    if (failed(addLaunch(&op, launch)))
      return failure();
  }
  if (!ok)
    return failure();
  if (graph.getBody().getBlocks().size() != 1 || !ret)
    return graph.emitError() << "the graph function must be one block "
                                "ending in func.return";

  if (referenceOnly) {
    for (Value operand : ret.getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        return ret.emitError() << "a result is not computed by the graph";
      m.outputs.push_back(it->second);
    }
    return std::move(package);
  }

  // Outputs: the returned values, which launches must compute.
  for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
    auto it = ids.find(operand);
    if (it == ids.end())
      return ret.emitError() << "result #" << i
                             << " is not computed by a "
                                "launched op";
    pkg::Value &value = m.values[it->second];
    if (value.kind == pkg::ValueKind::Input ||
        value.kind == pkg::ValueKind::Weight)
      return ret.emitError()
             << "result #" << i << " returns "
             << (value.kind == pkg::ValueKind::Input ? "graph input" : "weight")
             << " '" << value.name
             << "' unchanged; packages have no copy launch, so every "
                "result must be computed by a kernel";
    if (value.kind == pkg::ValueKind::Output)
      return ret.emitError()
             << "result #" << i << " returns '" << value.name
             << "', which is already result #"
             << llvm::find(m.outputs, it->second) - m.outputs.begin()
             << "; packages have no copy launch";
    // An alias shows another value's bytes: those of an intermediate may
    // become this result's, those of an input, a weight or another result
    // may not (crest-lower-ops-to-gpu gives such a reshape a copy kernel).
    uint32_t root = aliasRoot(it->second);
    const pkg::Value &rootValue = m.values[root];
    auto holder = llvm::find_if(
        m.outputs, [&](uint32_t out) { return aliasRoot(out) == root; });
    if (rootValue.kind != pkg::ValueKind::Intermediate ||
        holder != m.outputs.end()) {
      std::string owner =
          holder != m.outputs.end()
              ? "result #" + std::to_string(holder - m.outputs.begin())
          : rootValue.kind == pkg::ValueKind::Input
              ? "graph input '" + rootValue.name + "'"
              : "weight '" + rootValue.name + "'";
      return ret.emitError()
             << "result #" << i << " shares its bytes with " << owner
             << " through a reshape without a kernel; run "
                "crest-lower-ops-to-gpu, which gives such a reshape a copy "
                "kernel";
    }
    std::string name = "output" + std::to_string(i);
    if (auto attr = graph.getResultAttrOfType<StringAttr>(i, "crest.name"))
      name = attr.getValue().str();
    if (names.contains(name))
      return ret.emitError() << "result #" << i << ": the name '" << name
                             << "' is already used";
    names.erase(value.name);
    names.insert(name);
    value.name = name;
    value.kind = pkg::ValueKind::Output;
    m.outputs.push_back(it->second);
  }

  planIntermediateBuffers();
  if (llvm::Error error = pkg::validatePackage(package))
    return graph.emitError()
           << "internal error: the planned package does not validate: "
           << llvm::toString(std::move(error));
  return std::move(package);
}

FailureOr<pkg::Package>
crest::buildPackage(ModuleOp module, ArrayRef<CompiledKernelModule> compiled,
                    const HostPlanOptions &options) {
  return Planner(module, compiled, options).run();
}

FailureOr<pkg::Package>
crest::buildReferenceGraph(ModuleOp module, const HostPlanOptions &options,
                           DenseMap<Value, uint32_t> *ids) {
  Planner planner(module, {}, options, /*referenceOnly=*/true);
  FailureOr<pkg::Package> package = planner.run();
  if (succeeded(package) && ids)
    *ids = planner.getIds();
  return package;
}
