//===- Importer.cpp - ONNX models to crest graphs -------------------------===//
//
// Parses the ModelProto with libprotobuf (Debian's libonnx-dev classes; the
// ONNX checker is not used, so models of any IR version load), then walks
// the graph's nodes in order, building one crest op (or a few) per node and
// checking every shape on the way. Constant inputs (initializers, Constant
// nodes and what is folded from them) are tracked so that shape operands
// (Reshape's shape, Slice's starts, ...) can be read at import time.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

#include "crest/Import/OnnxImport.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace crest;
using namespace crest::onnx_import;

std::optional<MatrixPrecision> crest::parseMatrixPrecision(StringRef text) {
  return llvm::StringSwitch<std::optional<MatrixPrecision>>(text)
      .Case("f32", MatrixPrecision::F32)
      .Case("f16", MatrixPrecision::F16)
      .Case("bf16", MatrixPrecision::BF16)
      .Default(std::nullopt);
}

bool crest::parseDimBindings(StringRef text, llvm::StringMap<int64_t> &out) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    int64_t size;
    if (name.trim().empty() || value.trim().getAsInteger(10, size) || size < 1)
      return false;
    out[name.trim()] = size;
  }
  return true;
}


//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

FailureOr<Type> Importer::convertElementType(int32_t onnxType, StringRef what) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    return Type(builder.getF32Type());
  case onnx::TensorProto::FLOAT16:
    return Type(builder.getF16Type());
  case onnx::TensorProto::BFLOAT16:
    return Type(builder.getBF16Type());
  case onnx::TensorProto::DOUBLE:
    return Type(builder.getF64Type());
  case onnx::TensorProto::INT64:
    return Type(builder.getI64Type());
  case onnx::TensorProto::INT32:
    return Type(builder.getI32Type());
  case onnx::TensorProto::INT16:
    return Type(builder.getI16Type());
  case onnx::TensorProto::INT8:
    return Type(builder.getI8Type());
  case onnx::TensorProto::UINT64:
    return Type(builder.getIntegerType(64, /*isSigned=*/false));
  case onnx::TensorProto::UINT32:
    return Type(builder.getIntegerType(32, /*isSigned=*/false));
  case onnx::TensorProto::UINT16:
    return Type(builder.getIntegerType(16, /*isSigned=*/false));
  case onnx::TensorProto::UINT8:
    return Type(builder.getIntegerType(8, /*isSigned=*/false));
  case onnx::TensorProto::BOOL:
    return Type(builder.getI1Type());
  default:
    break;
  }
  std::string name = onnx::TensorProto_DataType_IsValid(onnxType)
                         ? onnx::TensorProto_DataType_Name(onnxType)
                         : "#" + std::to_string(onnxType);
  mlir::emitError(loc) << nodePrefix << what << " has element type " << name
                       << ", which Crest does not support (supported: FLOAT, "
                          "FLOAT16, BFLOAT16, DOUBLE, INT64, INT32, INT16, "
                          "INT8, UINT64, UINT32, UINT16, UINT8, BOOL)";
  return failure();
}

FailureOr<DenseElementsAttr>
Importer::convertTensor(const onnx::TensorProto &tensor, StringRef what) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return mlir::emitError(loc)
           << nodePrefix << what
           << " stores its data in an external file; Crest reads "
              "self-contained models only";
  if (tensor.has_segment())
    return mlir::emitError(loc) << nodePrefix << what << " is segmented";
  SmallVector<int64_t> shape;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return mlir::emitError(loc)
             << nodePrefix << what << " has negative dimension " << dim;
    shape.push_back(dim);
  }
  if (shape.size() > 8)
    return mlir::emitError(loc)
           << nodePrefix << what << " has rank " << shape.size()
           << "; Crest supports tensors of rank 8 or less";
  FailureOr<Type> element = convertElementType(tensor.data_type(), what);
  if (failed(element))
    return failure();
  std::optional<int64_t> elements =
      checkedProduct(shape, kMaxTensorElements);
  if (!elements)
    return mlir::emitError(loc)
           << nodePrefix << what << " has too many elements ("
           << formatShape(shape) << "; the limit is " << kMaxTensorElements
           << ")";
  int64_t count = *elements;
  auto type = RankedTensorType::get(shape, *element);
  unsigned bits = element->getIntOrFloatBitWidth();
  size_t elementBytes = bits == 1 ? 1 : bits / 8;

  auto mismatch = [&](size_t have) {
    return mlir::emitError(loc)
           << nodePrefix << what << " holds " << have << " values but its shape "
           << formatShape(shape) << " needs " << count;
  };

  // Bytes in little-endian order, one element after the other.
  std::vector<char> bytes;
  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != size_t(count) * elementBytes)
      return mlir::emitError(loc)
             << nodePrefix << what << " has " << raw.size()
             << " bytes of raw data but its shape " << formatShape(shape)
             << " of " << onnx::TensorProto_DataType_Name(tensor.data_type())
             << " needs " << size_t(count) * elementBytes;
    bytes.assign(raw.begin(), raw.end());
  } else {
    auto append = [&](auto value, size_t size) {
      char buffer[8];
      std::memcpy(buffer, &value, sizeof(value));
      bytes.insert(bytes.end(), buffer, buffer + size);
    };
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (tensor.float_data_size() != count)
        return mismatch(tensor.float_data_size());
      for (float v : tensor.float_data())
        append(v, 4);
      break;
    case onnx::TensorProto::DOUBLE:
      if (tensor.double_data_size() != count)
        return mismatch(tensor.double_data_size());
      for (double v : tensor.double_data())
        append(v, 8);
      break;
    case onnx::TensorProto::INT64:
      if (tensor.int64_data_size() != count)
        return mismatch(tensor.int64_data_size());
      for (int64_t v : tensor.int64_data())
        append(v, 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      if (tensor.uint64_data_size() != count)
        return mismatch(tensor.uint64_data_size());
      for (uint64_t v : tensor.uint64_data())
        append(v, elementBytes);
      break;
    default:
      // int32_data holds INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16
      // and BFLOAT16 (the latter two as their 16-bit patterns).
      if (tensor.int32_data_size() != count)
        return mismatch(tensor.int32_data_size());
      for (int32_t v : tensor.int32_data())
        append(v, elementBytes);
      break;
    }
  }
  if (bits == 1) {
    SmallVector<bool> flags;
    for (char c : bytes)
      flags.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(flags));
  }
  if (count == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>());
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, bytes, detectedSplat))
    return mlir::emitError(loc) << nodePrefix << what << " has malformed data";
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

Value Importer::materialize(DenseElementsAttr value) {
  return arith::ConstantOp::create(builder, loc, value);
}

FailureOr<SmallVector<int64_t>> Importer::getConstantInts(Value value,
                                                          StringRef what) {
  DenseElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !isa<IntegerType>(attr.getElementType()))
    return error() << what
                   << " must be a constant integer tensor (an initializer, a "
                      "Constant node or shape arithmetic on them and on "
                      "static shapes); Crest compiles static shapes only";
  SmallVector<int64_t> result;
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

//===----------------------------------------------------------------------===//
// Node helpers
//===----------------------------------------------------------------------===//

LogicalResult Importer::expectInputs(unsigned min, unsigned max) {
  unsigned given = inputs.size();
  // Trailing optional inputs may be given as empty names.
  while (given > min && !inputs[given - 1])
    --given;
  if (given < min || given > max)
    return error() << "expects " << (min == max ? "" : "between ")
                   << (min == max ? std::to_string(min)
                                  : std::to_string(min) + " and " +
                                        std::to_string(max))
                   << " inputs, got " << node->input_size();
  for (unsigned i = 0; i < min; ++i)
    if (!inputs[i])
      return error() << "input #" << i << " is required";
  return success();
}

/// The type an attribute declares, or, for models that leave it UNDEFINED
/// (written before the field existed), the type its one set field implies.
static onnx::AttributeProto::AttributeType
getAttributeType(const onnx::AttributeProto &attr) {
  if (attr.type() != onnx::AttributeProto::UNDEFINED)
    return attr.type();
  if (attr.has_i())
    return onnx::AttributeProto::INT;
  if (attr.has_f())
    return onnx::AttributeProto::FLOAT;
  if (attr.has_s())
    return onnx::AttributeProto::STRING;
  if (attr.has_t())
    return onnx::AttributeProto::TENSOR;
  if (attr.ints_size())
    return onnx::AttributeProto::INTS;
  if (attr.floats_size())
    return onnx::AttributeProto::FLOATS;
  if (attr.strings_size())
    return onnx::AttributeProto::STRINGS;
  return onnx::AttributeProto::UNDEFINED;
}

static std::string getAttributeTypeName(onnx::AttributeProto::AttributeType t) {
  return onnx::AttributeProto_AttributeType_IsValid(t)
             ? onnx::AttributeProto_AttributeType_Name(t)
             : "#" + std::to_string(int(t));
}

const onnx::AttributeProto *
Importer::attribute(StringRef name,
                    onnx::AttributeProto::AttributeType type) const {
  for (const onnx::AttributeProto &attr : node->attribute()) {
    if (attr.name() != name)
      continue;
    onnx::AttributeProto::AttributeType given = getAttributeType(attr);
    if (given == type)
      return &attr;
    mlir::emitError(loc) << nodePrefix << "attribute '" << name
                         << "' must be " << getAttributeTypeName(type)
                         << ", got " << getAttributeTypeName(given);
    attributeTypeError = true;
    return nullptr;
  }
  return nullptr;
}

int64_t Importer::intAttr(StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *attr =
      attribute(name, onnx::AttributeProto::INT);
  return attr ? attr->i() : fallback;
}

float Importer::floatAttr(StringRef name, float fallback) const {
  const onnx::AttributeProto *attr =
      attribute(name, onnx::AttributeProto::FLOAT);
  return attr ? attr->f() : fallback;
}

std::string Importer::stringAttr(StringRef name, StringRef fallback) const {
  const onnx::AttributeProto *attr =
      attribute(name, onnx::AttributeProto::STRING);
  return attr ? attr->s() : fallback.str();
}

std::optional<SmallVector<int64_t>>
Importer::intsAttr(StringRef name) const {
  const onnx::AttributeProto *attr =
      attribute(name, onnx::AttributeProto::INTS);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

FailureOr<SmallVector<int64_t>> Importer::getAxes() {
  if (input(1))
    return getConstantInts(input(1), "axes");
  if (std::optional<SmallVector<int64_t>> attr = intsAttr("axes"))
    return *attr;
  return SmallVector<int64_t>();
}

LogicalResult Importer::checkAttributes(ArrayRef<StringRef> supported) {
  for (const onnx::AttributeProto &attr : node->attribute())
    if (!llvm::is_contained(supported, attr.name()))
      return error() << "attribute '" << attr.name()
                     << "' is not supported (supported: "
                     << (supported.empty() ? std::string("none")
                                           : llvm::join(supported, ", "))
                     << ")";
  return success();
}

FailureOr<int64_t> Importer::normalizeAxis(int64_t axis, int64_t rank) {
  // [-rank, rank - 1]: a rank-0 tensor has no axis (Slice, Squeeze, Concat,
  // Gather, Softmax, ... index the dimensions with it).
  if (axis < -rank || axis >= rank)
    return error() << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult Importer::expectFloat(Value v, StringRef what) {
  if (!isFloat(v))
    return error() << what << " must be a float tensor, got "
                   << tensorType(v).getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Value Importer::convert(Value value, Type element) {
  RankedTensorType type = tensorType(value);
  if (type.getElementType() == element)
    return value;
  auto resultType = RankedTensorType::get(type.getShape(), element);
  // Fold conversions of float constants (weights) at import time.
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)) &&
      isa<FloatType>(type.getElementType()) && isa<FloatType>(element))
    return materialize(castFloatElements(attr, cast<FloatType>(element)));
  return CastOp::create(builder, loc, resultType, value);
}

Value Importer::reshape(Value value, ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return materialize(attr.reshape(resultType));
  // Reshapes of reshapes (MatMul's flattening after a Reshape node) fold.
  if (auto inner = value.getDefiningOp<ReshapeOp>()) {
    value = inner.getInput();
    if (tensorType(value) == resultType)
      return value;
  }
  return ReshapeOp::create(builder, loc, resultType, value);
}

Type Importer::matrixType() {
  switch (options.precision) {
  case MatrixPrecision::F16:
    return builder.getF16Type();
  case MatrixPrecision::BF16:
    return builder.getBF16Type();
  case MatrixPrecision::F32:
    break;
  }
  return builder.getF32Type();
}

PrecisionAttr Importer::matrixPrecision() {
  Type in = matrixType(), f32 = builder.getF32Type();
  return PrecisionAttr::get(context, in, in, f32, f32);
}

FailureOr<SmallVector<int64_t>> Importer::broadcastShape(Value lhs,
                                                         Value rhs) {
  return broadcastShape(tensorType(lhs).getShape(),
                        tensorType(rhs).getShape());
}

FailureOr<SmallVector<int64_t>>
Importer::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return error() << "shapes " << formatShape(a) << " and "
                     << formatShape(b) << " do not broadcast";
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

FailureOr<Value> Importer::binaryByName(StringRef op, Value lhs, Value rhs) {
  // Integer Div folds (truncating, Semantics.md) on constants; crest.div
  // and crest.pow take floats.
  if (op == "Div" && !isFloat(lhs) && !isFloat(rhs)) {
    if (failed(expectConstantInputs("integer Div")))
      return failure();
    FailureOr<SmallVector<int64_t>> shape = broadcastShape(lhs, rhs);
    if (failed(shape))
      return failure();
    if (product(*shape) > kMaxFoldElements)
      return error() << "the integer Div's result ("
                     << formatShape(*shape)
                     << ") is too large to fold at import time";
  } else if ((op == "Div" || op == "Pow") &&
             (failed(expectFloat(lhs, "input #0")) ||
              failed(expectFloat(rhs, "input #1")))) {
    return failure();
  }
  if (op == "Add")
    return binary<AddOp>(lhs, rhs);
  if (op == "Sub")
    return binary<SubOp>(lhs, rhs);
  if (op == "Mul")
    return binary<MulOp>(lhs, rhs);
  if (op == "Div")
    return binary<DivOp>(lhs, rhs);
  if (op == "Pow")
    return binary<PowOp>(lhs, rhs);
  if (op == "Max")
    return binary<MaxOp>(lhs, rhs);
  return binary<MinOp>(lhs, rhs);
}

LogicalResult Importer::setOutput(unsigned i, Value value) {
  if (i >= unsigned(node->output_size()))
    return success();
  const std::string &name = node->output(i);
  if (name.empty())
    return success();
  if (values.count(name))
    return error() << "output '" << name
                   << "' is already defined (ONNX graphs are in SSA form)";
  values[name] = value;
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//
















//===----------------------------------------------------------------------===//
// Nodes and the graph
//===----------------------------------------------------------------------===//

LogicalResult Importer::importNode(const onnx::NodeProto &n) {
  StringRef op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    return error() << "operators of domain '" << n.domain()
                   << "' are not supported (only the default ONNX domain)";
  inputs.clear();
  for (const std::string &name : n.input()) {
    if (name.empty()) {
      inputs.push_back(Value());
      continue;
    }
    auto it = values.find(name);
    if (it == values.end())
      return error() << "input '" << name
                     << "' is not defined before this node (not a graph "
                        "input, initializer or earlier node's output)";
    inputs.push_back(it->second);
  }

  // The converter registered for this op type and opset.
  const OnnxConverterRegistry &registry = OnnxConverterRegistry::get();
  if (const OnnxConverter *converter = registry.lookup(op, opset)) {
    attributeTypeError = false;
    LogicalResult result = converter->convert(*this);
    // An attribute of the wrong type was reported; what the converter
    // built from its fallback is not the model.
    return failure(failed(result) || attributeTypeError);
  }
  if (SmallVector<const OnnxConverter *> versions = registry.lookup(op);
      !versions.empty()) {
    InFlightDiagnostic diag = error() << "operator '" << op
                                      << "' is supported in opsets ";
    llvm::interleave(
        versions, diag,
        [&](const OnnxConverter *c) {
          diag << c->minOpset << "-" << c->maxOpset;
        },
        ", ");
    return diag << ", not in the model's opset " << opset;
  }
  return error() << "operator '" << op
                 << "' is not supported; supported operators: "
                 << llvm::join(registry.getOpTypes(), ", ");
}

LogicalResult Importer::importGraph(const onnx::GraphProto &graph) {
  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  loc = fileLoc;
  // Initializers.
  llvm::StringSet<llvm::MallocAllocator> initialized;
  SmallVector<std::pair<std::string, DenseElementsAttr>> constants;
  for (const onnx::TensorProto &init : graph.initializer()) {
    nodePrefix = "";
    FailureOr<DenseElementsAttr> value =
        convertTensor(init, "initializer '" + init.name() + "'");
    if (failed(value))
      return failure();
    initialized.insert(init.name());
    constants.push_back({init.name(), *value});
  }
  if (graph.sparse_initializer_size())
    return modelError() << "sparse initializers are not supported";

  // Graph inputs: those without an initializer are the function's arguments.
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (initialized.contains(info.name()))
      continue;
    std::string what = "graph input '" + info.name() + "'";
    if (auto bound = options.constantInputs.find(info.name());
        bound != options.constantInputs.end()) {
      onnx::TensorProto tensor;
      if (!tensor.ParseFromString(bound->second))
        return modelError() << "the value bound to " << what
                            << " is not a serialized TensorProto";
      nodePrefix = "";
      FailureOr<DenseElementsAttr> value =
          convertTensor(tensor, "the value bound to " + what);
      if (failed(value))
        return failure();
      // The value must be one the model declares for the input: its
      // element type and the dimensions the model gives.
      if (info.type().has_tensor_type()) {
        const onnx::TypeProto_Tensor &declared = info.type().tensor_type();
        if (declared.elem_type() != 0 &&
            declared.elem_type() != tensor.data_type())
          return modelError()
                 << "the value bound to " << what << " has element type "
                 << value->getElementType() << " (ONNX type "
                 << tensor.data_type() << "); the model declares ONNX type "
                 << declared.elem_type();
        ArrayRef<int64_t> shape = value->getType().getShape();
        if (declared.has_shape()) {
          bool matches = declared.shape().dim_size() == int64_t(shape.size());
          for (auto [i, dim] : llvm::enumerate(declared.shape().dim()))
            if (matches && dim.has_dim_value() && dim.dim_value() > 0)
              matches = dim.dim_value() == shape[i];
          if (!matches)
            return modelError() << "the value bound to " << what
                                << " has shape [" << formatShape(shape)
                                << "], which the model's declaration of the "
                                   "input does not allow";
        }
      }
      constants.push_back({info.name(), *value});
      continue;
    }
    if (!info.type().has_tensor_type())
      return modelError() << what << " is not a tensor";
    const onnx::TypeProto_Tensor &tensor = info.type().tensor_type();
    nodePrefix = "";
    FailureOr<Type> element = convertElementType(tensor.elem_type(), what);
    if (failed(element))
      return failure();
    if (!tensor.has_shape())
      return modelError() << what << " has no shape; Crest needs static shapes";
    SmallVector<int64_t> shape;
    for (auto [i, dim] : llvm::enumerate(tensor.shape().dim())) {
      if (dim.has_dim_value() && dim.dim_value() > 0) {
        shape.push_back(dim.dim_value());
        continue;
      }
      std::string param = dim.has_dim_param() ? dim.dim_param() : "";
      auto bound = options.dimBindings.find(param);
      if (!param.empty() && bound != options.dimBindings.end()) {
        shape.push_back(bound->second);
        continue;
      }
      InFlightDiagnostic diag = modelError()
                                << what << " dimension " << i << " is ";
      if (param.empty())
        diag << "unknown";
      else
        diag << "symbolic ('" << param << "')";
      diag << "; bind it with --onnx-dims="
           << (param.empty() ? std::string("<name>") : param)
           << "=<size> (Crest compiles static shapes)";
      if (param.empty())
        diag << " after naming it in the model, or export the model with "
                "static shapes";
      return diag;
    }
    if (!checkedProduct(shape, kMaxTensorElements))
      return modelError() << what << " has too many elements ("
                          << formatShape(shape) << "; the limit is "
                          << kMaxTensorElements << ")";
    argTypes.push_back(RankedTensorType::get(shape, *element));
    argNames.push_back(info.name());
  }

  // Output types are known only after the nodes: build the body first.
  std::string funcName = graph.name().empty() ? "main" : graph.name();
  for (char &c : funcName)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  auto func = func::FuncOp::create(
      builder, fileLoc, funcName, builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = entry->getArgument(i);
    func.setArgAttr(i, "crest.name", builder.getStringAttr(name));
  }
  for (auto &[name, value] : constants)
    values[name] = materialize(value);

  for (auto [index, n] : llvm::enumerate(graph.node())) {
    node = &n;
    std::string label = n.name().empty()
                            ? n.op_type() + "#" + std::to_string(index)
                            : n.name();
    // ONNX files have no lines: the location is the file, named after the
    // node, and messages say which node (by graph position and name).
    loc = NameLoc::get(builder.getStringAttr(label), fileLoc);
    nodePrefix = "node #" + std::to_string(index) + " '" + label + "' (" +
                 n.op_type() + "): ";
    if (failed(importNode(n))) {
      (void)func->erase();
      return failure();
    }
  }
  node = nullptr;
  nodePrefix = "";
  loc = fileLoc;

  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const onnx::ValueInfoProto &info : graph.output()) {
    auto it = values.find(info.name());
    if (it == values.end()) {
      (void)func->erase();
      return modelError() << "graph output '" << info.name()
                          << "' is not produced by any node";
    }
    Value v = it->second;
    // A declared element type and static shape must agree with inference.
    if (info.type().has_tensor_type()) {
      const onnx::TypeProto_Tensor &tensor = info.type().tensor_type();
      RankedTensorType inferred = tensorType(v);
      if (tensor.elem_type() != onnx::TensorProto::UNDEFINED) {
        FailureOr<Type> declared = convertElementType(
            tensor.elem_type(), "graph output '" + info.name() + "'");
        if (failed(declared) || *declared != inferred.getElementType()) {
          (void)func->erase();
          if (failed(declared))
            return failure();
          return modelError()
                 << "graph output '" << info.name() << "' is declared "
                 << onnx::TensorProto_DataType_Name(tensor.elem_type())
                 << " but the graph computes " << inferred.getElementType();
        }
      }
      if (tensor.has_shape()) {
        bool mismatch = tensor.shape().dim_size() != inferred.getRank();
        for (int d = 0; !mismatch && d < tensor.shape().dim_size(); ++d)
          if (tensor.shape().dim(d).has_dim_value() &&
              tensor.shape().dim(d).dim_value() != inferred.getDimSize(d))
            mismatch = true;
        if (mismatch) {
          (void)func->erase();
          return modelError() << "graph output '" << info.name()
                              << "' is declared with another shape than the "
                                 "inferred "
                              << formatShape(inferred.getShape());
        }
      }
    }
    // A graph output must be bytes a kernel writes: an output that is a
    // graph input, a constant or another output (Identity, Dropout) is
    // returned through a same-shape crest.reshape, which the planner turns
    // into a copy.
    if (isa<BlockArgument>(v) || v.getDefiningOp<arith::ConstantOp>() ||
        llvm::is_contained(results, v))
      v = ReshapeOp::create(builder, fileLoc, v.getType(), v);
    results.push_back(v);
    resultTypes.push_back(v.getType());
  }
  func::ReturnOp::create(builder, fileLoc, results);
  // One crest.gelu for exact GELU written out in primitives; this also
  // drops constants nothing reads any more (folded away, unused
  // initializers).
  onnx_import::fuseGeluPatterns(*entry);
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  for (auto [i, info] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "crest.name", builder.getStringAttr(info.name()));
  return success();
}

OwningOpRef<ModuleOp> Importer::run(StringRef bytes) {
  context->loadDialect<CrestDialect, arith::ArithDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (options.textFormat) {
    // Parse errors are reported by protobuf's own error collector on
    // stderr; the diagnostic below says what failed.
    if (!google::protobuf::TextFormat::ParseFromString(bytes.str(), &model)) {
      modelError() << "not a valid ONNX model in protobuf text format";
      return nullptr;
    }
  } else if (bytes.size() > size_t(INT32_MAX) ||
             !model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    modelError() << "not a valid ONNX model (the protobuf does not parse; "
                    "the file may be truncated or not an .onnx file)";
    return nullptr;
  }
  if (!model.has_graph()) {
    modelError() << "the model has no graph";
    return nullptr;
  }
  // The default domain's opset decides each operator's semantics (Softmax's
  // axis, ReduceMean's axes, ...): a model must import it, as ONNX
  // requires, and it must be one Crest can interpret.
  std::optional<int64_t> imported;
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      imported = set.version();
  if (!imported) {
    modelError() << "the model imports no opset of the default ONNX domain "
                    "(opset_import with domain '' or 'ai.onnx'); its "
                    "operators' semantics depend on it";
    return nullptr;
  }
  opset = *imported;
  if (opset < 1 || opset > kNewestOpset + kNewerOpsetMargin) {
    modelError() << "the model's opset " << opset
                 << " is not an ONNX opset Crest can interpret (1 to "
                 << kNewestOpset << "; up to " << kNewestOpset + kNewerOpsetMargin
                 << " import with a warning)";
    return nullptr;
  }
  // A newer opset than the converters were written for: its changes to the
  // supported operators so far only add element types, so the newest
  // converters apply; say so once, since a later change may not be.
  if (opset > kNewestOpset) {
    emitWarning(FileLineColLoc::get(context, filename, 0, 0))
        << "the model's opset " << opset << " is newer than " << kNewestOpset
        << ", the newest the ONNX importer knows; its operators are "
           "converted with opset "
        << kNewestOpset << " semantics";
    opset = kNewestOpset;
  }
  for (const onnx::FunctionProto &function : model.functions()) {
    modelError() << "model-local functions are not supported ('"
                 << function.name() << "')";
    return nullptr;
  }

  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(context, filename, 0, 0));
  builder.setInsertionPointToEnd(module->getBody());
  if (failed(importGraph(model.graph())))
    return nullptr;
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> crest::importOnnxModel(StringRef bytes,
                                             StringRef filename,
                                             MLIRContext *context,
                                             const OnnxImportOptions &options) {
  return Importer(context, filename, options).run(bytes);
}

static void registerOnnxTranslation(StringRef name, StringRef description,
                                    bool textFormat);

void crest::registerOnnxImportTranslation() {
  registerOnnxTranslation("import-onnx",
                          "Import an ONNX model (.onnx) as a crest graph",
                          /*textFormat=*/false);
  registerOnnxTranslation("import-onnx-text",
                          "Import an ONNX model in protobuf text format",
                          /*textFormat=*/true);
}

static void registerOnnxTranslation(StringRef name, StringRef description,
                                    bool textFormat) {
  static llvm::cl::opt<std::string> precision(
      "onnx-precision",
      llvm::cl::desc("Element type of Conv/Gemm/MatMul inputs: f32, f16 or "
                     "bf16"),
      llvm::cl::init("f32"));
  static llvm::cl::list<std::string> bindInputs(
      "onnx-bind-input",
      llvm::cl::desc("Compile a graph input as a constant: name=tensor.pb "
                     "(a serialized TensorProto); repeatable"));
  static llvm::cl::opt<std::string> dims(
      "onnx-dims",
      llvm::cl::desc("Sizes of symbolic input dimensions: name=size,..."),
      llvm::cl::init(""));
  TranslateToMLIRRegistration registration(
      name, description,
      [textFormat](llvm::SourceMgr &sourceMgr,
                   MLIRContext *context) -> OwningOpRef<Operation *> {
        OnnxImportOptions options;
        options.textFormat = textFormat;
        std::optional<MatrixPrecision> p = parseMatrixPrecision(precision);
        if (!p) {
          mlir::emitError(UnknownLoc::get(context))
              << "--onnx-precision must be f32, f16 or bf16, got '"
              << precision << "'";
          return nullptr;
        }
        options.precision = *p;
        if (!parseDimBindings(dims, options.dimBindings)) {
          mlir::emitError(UnknownLoc::get(context))
              << "--onnx-dims expects name=size[,name=size...] with "
                 "positive sizes, got '"
              << dims << "'";
          return nullptr;
        }
        for (const std::string &binding : bindInputs) {
          auto [name, path] = StringRef(binding).split('=');
          llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
              llvm::MemoryBuffer::getFile(path);
          if (name.empty() || path.empty() || !file) {
            mlir::emitError(UnknownLoc::get(context))
                << "--onnx-bind-input expects name=file.pb with a readable "
                   "file, got '"
                << binding << "'";
            return nullptr;
          }
          options.constantInputs[name] = (*file)->getBuffer().str();
        }
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OwningOpRef<ModuleOp> module =
            importOnnxModel(buffer->getBuffer(), buffer->getBufferIdentifier(),
                            context, options);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        registry.insert<CrestDialect, arith::ArithDialect,
                        func::FuncDialect>();
      });
}
