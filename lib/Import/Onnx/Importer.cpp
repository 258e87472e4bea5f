//===- OnnxImport.cpp - ONNX models to crest graphs -----------------------===//
//
// Parses the ModelProto with libprotobuf (Debian's libonnx-dev classes; the
// ONNX checker is not used, so models of any IR version load), then walks
// the graph's nodes in order, building one crest op (or a few) per node and
// checking every shape on the way. Constant inputs (initializers, Constant
// nodes and what is folded from them) are tracked so that shape operands
// (Reshape's shape, Slice's starts, ...) can be read at import time.
//
//===----------------------------------------------------------------------===//

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

namespace {

std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(llvm::map_range(shape,
                                    [](int64_t d) { return std::to_string(d); }),
                    "x");
}

int64_t product(ArrayRef<int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// The importer of one model.
class Importer {
public:
  Importer(MLIRContext *context, StringRef filename,
           const OnnxImportOptions &options)
      : context(context), builder(context), filename(filename.str()),
        options(options) {}

  OwningOpRef<ModuleOp> run(StringRef bytes);

private:
  // Diagnostics.
  InFlightDiagnostic error() {
    return mlir::emitError(loc) << nodePrefix;
  }
  InFlightDiagnostic modelError() {
    return mlir::emitError(FileLineColLoc::get(context, filename, 0, 0));
  }

  // Types and constants.
  FailureOr<Type> convertElementType(int32_t onnxType, StringRef what);
  FailureOr<DenseElementsAttr> convertTensor(const onnx::TensorProto &tensor,
                                             StringRef what);
  Value materialize(DenseElementsAttr value);
  FailureOr<SmallVector<int64_t>> getConstantInts(Value value,
                                                  StringRef what);

  // Graph.
  LogicalResult importGraph(const onnx::GraphProto &graph);
  LogicalResult importNode(const onnx::NodeProto &node);

  // Node helpers.
  Value input(unsigned i) const {
    return i < inputs.size() ? inputs[i] : Value();
  }
  LogicalResult expectInputs(unsigned min, unsigned max);
  const onnx::AttributeProto *attribute(StringRef name) const;
  int64_t intAttr(StringRef name, int64_t fallback) const;
  float floatAttr(StringRef name, float fallback) const;
  std::string stringAttr(StringRef name, StringRef fallback) const;
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;
  LogicalResult checkAttributes(ArrayRef<StringRef> supported);
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  static RankedTensorType tensorType(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  static bool isFloat(Value v) {
    return isa<FloatType>(tensorType(v).getElementType());
  }
  LogicalResult expectFloat(Value v, StringRef what);

  // Builders.
  Value convert(Value value, Type element);
  Value reshape(Value value, ArrayRef<int64_t> shape);
  Type matrixType();
  PrecisionAttr matrixPrecision();
  FailureOr<SmallVector<int64_t>> broadcastShape(Value lhs, Value rhs);
  template <typename OpTy> FailureOr<Value> binary(Value lhs, Value rhs);
  FailureOr<Value> binaryByName(StringRef op, Value lhs, Value rhs);

  // Ops.
  LogicalResult importGemm();
  LogicalResult importMatMul();
  LogicalResult importConv();
  LogicalResult importPool(bool isMax);
  LogicalResult importReduceMean();
  LogicalResult importReshapeLike();
  LogicalResult importSlice();
  LogicalResult importSplit();
  LogicalResult importSoftmax();
  LogicalResult importLayerNorm();
  LogicalResult importBatchNorm();
  LogicalResult importClip();
  LogicalResult importCast();
  LogicalResult importConstant();

  LogicalResult setOutput(unsigned i, Value value);

  MLIRContext *context;
  OpBuilder builder;
  std::string filename;
  const OnnxImportOptions &options;
  int64_t opset = 17;

  llvm::StringMap<Value> values;
  // The node being imported.
  const onnx::NodeProto *node = nullptr;
  Location loc = UnknownLoc::get(context);
  std::string nodePrefix;
  SmallVector<Value> inputs;
};

} // namespace

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
                          "INT8, BOOL)";
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
  // Guard the element count against overflow before multiplying.
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > (int64_t(1) << 40) / dim)
      return mlir::emitError(loc)
             << nodePrefix << what << " has too many elements ("
             << formatShape(shape) << ")";
    count *= dim;
  }
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
    default:
      // int32_data holds INT32, INT16, INT8, BOOL, FLOAT16 and BFLOAT16
      // (the latter two as their 16-bit patterns).
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
                   << " must be a constant integer tensor (an initializer or a "
                      "Constant node); Crest compiles static shapes only";
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

const onnx::AttributeProto *Importer::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node->attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t Importer::intAttr(StringRef name, int64_t fallback) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->i() : fallback;
}

float Importer::floatAttr(StringRef name, float fallback) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->f() : fallback;
}

std::string Importer::stringAttr(StringRef name, StringRef fallback) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->s() : fallback.str();
}

std::optional<SmallVector<int64_t>>
Importer::intsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
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
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
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
      isa<FloatType>(type.getElementType()) && isa<FloatType>(element)) {
    const llvm::fltSemantics &semantics =
        cast<FloatType>(element).getFloatSemantics();
    DenseElementsAttr converted =
        attr.mapValues(element, [&](const APFloat &v) {
          APFloat copy = v;
          bool lost;
          copy.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
          return copy.bitcastToAPInt();
        });
    return materialize(converted);
  }
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
  ArrayRef<int64_t> a = tensorType(lhs).getShape(),
                    b = tensorType(rhs).getShape();
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

template <typename OpTy>
FailureOr<Value> Importer::binary(Value lhs, Value rhs) {
  Type lt = tensorType(lhs).getElementType(),
       rt = tensorType(rhs).getElementType();
  if (lt != rt)
    return error() << "operand element types " << lt << " and " << rt
                   << " differ";
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(lhs, rhs);
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, lt);
  // Arithmetic on constants (scaled biases, the sqrt(d) of attention
  // scaling written as Pow(64, 0.5), ...) is folded here in double
  // precision and rounded once to the element type, up to a size limit.
  DenseElementsAttr l, r;
  if (isa<FloatType>(lt) && type.getNumElements() <= (1 << 20) &&
      matchPattern(lhs, m_Constant(&l)) && matchPattern(rhs, m_Constant(&r))) {
    auto values = [](DenseElementsAttr attr) {
      SmallVector<double> out;
      for (const APFloat &v : attr.getValues<APFloat>())
        out.push_back(v.convertToDouble());
      return out;
    };
    SmallVector<double> xs = values(l), ys = values(r);
    ArrayRef<int64_t> shape = type.getShape();
    // Index of result element `i` in an operand of shape `in` (broadcast).
    auto sourceIndex = [&](int64_t i, ArrayRef<int64_t> in) {
      int64_t index = 0, stride = 1;
      for (int64_t d = shape.size() - 1, e = in.size() - 1; d >= 0; --d, --e) {
        int64_t coord = i % shape[d];
        i /= shape[d];
        if (e >= 0) {
          if (in[e] != 1)
            index += coord * stride;
          stride *= in[e];
        }
      }
      return index;
    };
    const llvm::fltSemantics &semantics =
        cast<FloatType>(lt).getFloatSemantics();
    SmallVector<APFloat> results;
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
      double x = xs[sourceIndex(i, l.getType().getShape())];
      double y = ys[sourceIndex(i, r.getType().getShape())];
      double z;
      if constexpr (std::is_same_v<OpTy, AddOp>) z = x + y;
      else if constexpr (std::is_same_v<OpTy, SubOp>) z = x - y;
      else if constexpr (std::is_same_v<OpTy, MulOp>) z = x * y;
      else if constexpr (std::is_same_v<OpTy, DivOp>) z = x / y;
      else if constexpr (std::is_same_v<OpTy, PowOp>) z = std::pow(x, y);
      else if constexpr (std::is_same_v<OpTy, MaxOp>) z = std::max(x, y);
      else z = std::min(x, y);
      APFloat value(z);
      bool lost;
      value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      results.push_back(value);
    }
    return materialize(DenseElementsAttr::get(type, results));
  }
  return OpTy::create(builder, loc, type, lhs, rhs).getResult();
}

FailureOr<Value> Importer::binaryByName(StringRef op, Value lhs, Value rhs) {
  if ((op == "Div" || op == "Pow") &&
      (failed(expectFloat(lhs, "input #0")) ||
       failed(expectFloat(rhs, "input #1"))))
    return failure();
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

LogicalResult Importer::importGemm() {
  if (failed(expectInputs(2, 3)) ||
      failed(checkAttributes({"alpha", "beta", "transA", "transB"})))
    return failure();
  Value a = input(0), b = input(1), c = input(2);
  if (failed(expectFloat(a, "A")) || failed(expectFloat(b, "B")))
    return failure();
  bool transA = intAttr("transA", 0), transB = intAttr("transB", 0);
  float alpha = floatAttr("alpha", 1.0f), beta = floatAttr("beta", 1.0f);
  RankedTensorType at = tensorType(a), bt = tensorType(b);
  if (at.getRank() != 2 || bt.getRank() != 2)
    return error() << "A and B must be rank 2, got " << formatShape(at.getShape())
                   << " and " << formatShape(bt.getShape());
  int64_t m = at.getDimSize(transA ? 1 : 0), k = at.getDimSize(transA ? 0 : 1);
  int64_t kb = bt.getDimSize(transB ? 1 : 0), n = bt.getDimSize(transB ? 0 : 1);
  if (k != kb)
    return error() << "A" << (transA ? "^T" : "") << " is " << m << "x" << k
                   << " but B" << (transB ? "^T" : "") << " is " << kb << "x"
                   << n;
  Type f32 = builder.getF32Type();
  auto resultType = RankedTensorType::get({m, n}, f32);
  Value result = MatmulOp::create(
      builder, loc, resultType, convert(a, matrixType()), convert(b, matrixType()),
      transA, transB, matrixPrecision(), SyncAttr(), ConfigAttr());
  auto scale = [&](Value v, float factor) -> FailureOr<Value> {
    if (factor == 1.0f)
      return v;
    auto splat = DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                        builder.getF32FloatAttr(factor));
    return binary<MulOp>(v, materialize(splat));
  };
  FailureOr<Value> scaled = scale(result, alpha);
  if (failed(scaled))
    return failure();
  result = *scaled;
  if (c && beta != 0.0f) {
    Value bias = convert(c, f32);
    FailureOr<Value> scaledBias = scale(bias, beta);
    if (failed(scaledBias))
      return failure();
    FailureOr<SmallVector<int64_t>> shape = broadcastShape(result, *scaledBias);
    if (failed(shape))
      return failure();
    if (ArrayRef<int64_t>(*shape) != resultType.getShape())
      return error() << "C of shape "
                     << formatShape(tensorType(c).getShape())
                     << " does not broadcast to the " << m << "x" << n
                     << " result";
    FailureOr<Value> sum = binary<AddOp>(result, *scaledBias);
    if (failed(sum))
      return failure();
    result = *sum;
  }
  return setOutput(0, result);
}

LogicalResult Importer::importMatMul() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({})))
    return failure();
  Value a = input(0), b = input(1);
  if (failed(expectFloat(a, "input #0")) || failed(expectFloat(b, "input #1")))
    return failure();
  ArrayRef<int64_t> as = tensorType(a).getShape(), bs = tensorType(b).getShape();
  if (as.size() < 2 || bs.size() < 2)
    return error() << "operands of rank 1 are not supported (got "
                   << formatShape(as) << " and " << formatShape(bs) << ")";
  int64_t m = as[as.size() - 2], k = as.back();
  int64_t kb = bs[bs.size() - 2], n = bs.back();
  if (k != kb)
    return error() << "inner dimensions differ: " << formatShape(as) << " x "
                   << formatShape(bs);
  ArrayRef<int64_t> aBatch = as.drop_back(2), bBatch = bs.drop_back(2);
  Type f32 = builder.getF32Type();
  Value lhs = convert(a, matrixType()), rhs = convert(b, matrixType());
  SmallVector<int64_t> resultShape;
  Value result;
  if (product(bBatch) == 1) {
    // [..., M, K] x [K, N]: one GEMM over all rows.
    resultShape.assign(aBatch.begin(), aBatch.end());
    int64_t rows = product(aBatch) * m;
    Value flat = reshape(lhs, {rows, k});
    Value rhs2 = reshape(rhs, {k, n});
    result = MatmulOp::create(builder, loc,
                              RankedTensorType::get({rows, n}, f32), flat, rhs2,
                              false, false, matrixPrecision(), SyncAttr(),
                              ConfigAttr());
    if (bBatch.size() > aBatch.size())
      resultShape.assign(bBatch.begin(), bBatch.end());
  } else {
    // Batch dimensions must match exactly (after dropping leading ones).
    SmallVector<int64_t> ab(aBatch), bb(bBatch);
    while (ab.size() < bb.size())
      ab.insert(ab.begin(), 1);
    while (bb.size() < ab.size())
      bb.insert(bb.begin(), 1);
    if (ab != bb && product(aBatch) != 1)
      return error() << "batch dimensions " << formatShape(aBatch) << " and "
                     << formatShape(bBatch)
                     << " differ; only equal batches or a batch of one "
                        "broadcast";
    resultShape = product(aBatch) == 1 ? bb : ab;
    int64_t batch = product(resultShape);
    Value lhs3 = reshape(lhs, {product(aBatch), m, k});
    Value rhs3 = reshape(rhs, {product(bBatch), k, n});
    result = BatchMatmulOp::create(
        builder, loc, RankedTensorType::get({batch, m, n}, f32), lhs3, rhs3,
        false, false, matrixPrecision(), SyncAttr(), ConfigAttr());
  }
  resultShape.push_back(m);
  resultShape.push_back(n);
  result = reshape(result, resultShape);
  // The ONNX result has the operands' element type.
  return setOutput(0, convert(result, tensorType(a).getElementType()));
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
  std::string autoPad = stringAttr("auto_pad", "NOTSET");
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t h = xt.getDimSize(2), wdt = xt.getDimSize(3);
  if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    int64_t extent[2] = {h, wdt}, kernel[2] = {kh, kw};
    for (int i = 0; i < 2; ++i) {
      int64_t out = (extent[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * strides[i] + dilations[i] * (kernel[i] - 1) + 1 -
                 extent[i]);
      int64_t small = total / 2, large = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : large;
      pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  }
  for (int64_t v : llvm::concat<int64_t>(strides, dilations))
    if (v < 1)
      return error() << "strides and dilations must be positive";
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
  if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Output ceil(in / stride); the padding that needs, split evenly with
    // the odd element at the end (UPPER) or the beginning (LOWER).
    for (int i = 0; i < 2; ++i) {
      int64_t in = xt.getDimSize(2 + i);
      int64_t out = (in + strides[i] - 1) / strides[i];
      int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[i] + (*kernel)[i] - in);
      int64_t small = total / 2, large = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : large;
      pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
    }
  } else if (autoPad != "NOTSET") {
    return error() << "auto_pad = '" << autoPad
                   << "' is not supported (supported: NOTSET, VALID, "
                      "SAME_UPPER, SAME_LOWER)";
  }
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

LogicalResult Importer::importReduceMean() {
  if (failed(expectInputs(1, 2)) ||
      failed(checkAttributes({"axes", "keepdims", "noop_with_empty_axes"})))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "data")))
    return failure();
  int64_t rank = tensorType(x).getRank();
  SmallVector<int64_t> axes;
  if (input(1)) {
    FailureOr<SmallVector<int64_t>> given = getConstantInts(input(1), "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else if (std::optional<SmallVector<int64_t>> attr = intsAttr("axes")) {
    axes = *attr;
  }
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

LogicalResult Importer::importReshapeLike() {
  StringRef op = node->op_type();
  Value x = input(0);
  if (!x)
    return error() << "input #0 is required";
  ArrayRef<int64_t> in = tensorType(x).getShape();
  int64_t rank = in.size();
  SmallVector<int64_t> shape;
  if (op == "Reshape") {
    if (failed(expectInputs(2, 2)) || failed(checkAttributes({"allowzero"})))
      return failure();
    FailureOr<SmallVector<int64_t>> given = getConstantInts(input(1), "shape");
    if (failed(given))
      return failure();
    bool allowZero = intAttr("allowzero", 0);
    int64_t inferred = -1, known = 1;
    for (auto [i, dim] : llvm::enumerate(*given)) {
      if (dim == 0 && !allowZero) {
        if (int64_t(i) >= rank)
          return error() << "shape entry " << i
                         << " is 0 (copy) but the input has rank " << rank;
        dim = in[i];
      }
      if (dim == -1) {
        if (inferred >= 0)
          return error() << "shape has more than one -1";
        inferred = i;
        shape.push_back(1);
        continue;
      }
      if (dim < 0)
        return error() << "shape entry " << i << " is " << dim;
      shape.push_back(dim);
      known *= dim;
    }
    if (inferred >= 0) {
      if (known == 0 || product(in) % known)
        return error() << "cannot infer the -1 in shape: "
                       << product(in) << " elements are not a multiple of "
                       << known;
      shape[inferred] = product(in) / known;
    }
  } else if (op == "Flatten") {
    if (failed(expectInputs(1, 1)) || failed(checkAttributes({"axis"})))
      return failure();
    int64_t axis = intAttr("axis", 1);
    if (axis < -rank || axis > rank)
      return error() << "axis " << axis << " is out of range for rank " << rank;
    if (axis < 0)
      axis += rank;
    shape = {product(in.take_front(axis)), product(in.drop_front(axis))};
  } else {
    // Squeeze / Unsqueeze: axes from the attribute (opset < 13) or input.
    if (failed(expectInputs(1, 2)) || failed(checkAttributes({"axes"})))
      return failure();
    SmallVector<int64_t> axes;
    if (input(1)) {
      FailureOr<SmallVector<int64_t>> given = getConstantInts(input(1), "axes");
      if (failed(given))
        return failure();
      axes = *given;
    } else if (std::optional<SmallVector<int64_t>> attr = intsAttr("axes")) {
      axes = *attr;
    }
    if (op == "Squeeze") {
      SmallVector<int64_t> normalized;
      for (int64_t a : axes) {
        FailureOr<int64_t> n = normalizeAxis(a, rank);
        if (failed(n))
          return failure();
        if (in[*n] != 1)
          return error() << "cannot squeeze dimension " << *n << " of size "
                         << in[*n];
        normalized.push_back(*n);
      }
      for (int64_t d = 0; d < rank; ++d)
        if (axes.empty() ? in[d] != 1 : !llvm::is_contained(normalized, d))
          shape.push_back(in[d]);
    } else {
      int64_t outRank = rank + axes.size();
      SmallVector<int64_t> normalized;
      for (int64_t a : axes) {
        if (a < -outRank || a >= outRank)
          return error() << "axis " << a << " is out of range for rank "
                         << outRank;
        int64_t n = a < 0 ? a + outRank : a;
        if (llvm::is_contained(normalized, n))
          return error() << "axis " << a << " is repeated";
        normalized.push_back(n);
      }
      unsigned next = 0;
      for (int64_t d = 0; d < outRank; ++d)
        shape.push_back(llvm::is_contained(normalized, d) ? 1 : in[next++]);
    }
  }
  if (product(shape) != product(in))
    return error() << "cannot reshape " << formatShape(in) << " to "
                   << formatShape(shape);
  return setOutput(0, reshape(x, shape));
}

LogicalResult Importer::importSlice() {
  if (failed(expectInputs(1, 5)) ||
      failed(checkAttributes({"axes", "ends", "starts"})))
    return failure();
  Value x = input(0);
  ArrayRef<int64_t> in = tensorType(x).getShape();
  int64_t rank = in.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  auto read = [&](unsigned index, StringRef name,
                  SmallVector<int64_t> &out) -> LogicalResult {
    if (input(index)) {
      FailureOr<SmallVector<int64_t>> v = getConstantInts(input(index), name);
      if (failed(v))
        return failure();
      out = *v;
    } else if (std::optional<SmallVector<int64_t>> a = intsAttr(name)) {
      out = *a;
    }
    return success();
  };
  if (failed(read(1, "starts", starts)) || failed(read(2, "ends", ends)) ||
      failed(read(3, "axes", axes)) || failed(read(4, "steps", steps)))
    return failure();
  if (starts.size() != ends.size())
    return error() << "starts and ends have different lengths";
  if (axes.empty())
    for (int64_t d = 0; d < int64_t(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return error() << "starts, ends, axes and steps have different lengths";
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1), shape(in);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = in[*axis], step = steps[i];
    if (step <= 0)
      return error() << "step " << step
                     << " is not supported; Crest slices with positive steps";
    auto clampIndex = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t start = clampIndex(starts[i]), end = clampIndex(ends[i]);
    int64_t size = end > start ? (end - start + step - 1) / step : 0;
    if (size == 0)
      return error() << "the slice of axis " << *axis
                     << " is empty; Crest does not support empty tensors";
    offsets[*axis] = start;
    strides[*axis] = step;
    shape[*axis] = size;
  }
  auto resultType =
      RankedTensorType::get(shape, tensorType(x).getElementType());
  bool unitStrides = llvm::all_of(strides, [](int64_t s) { return s == 1; });
  Value result = SliceOp::create(
      builder, loc, resultType, x, builder.getDenseI64ArrayAttr(offsets),
      unitStrides ? DenseI64ArrayAttr()
                  : builder.getDenseI64ArrayAttr(strides));
  return setOutput(0, result);
}

LogicalResult Importer::importSplit() {
  if (failed(expectInputs(1, 2)) ||
      failed(checkAttributes({"axis", "split", "num_outputs"})))
    return failure();
  Value x = input(0);
  ArrayRef<int64_t> in = tensorType(x).getShape();
  FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", 0), in.size());
  if (failed(axis))
    return failure();
  int64_t outputs = node->output_size();
  SmallVector<int64_t> sizes;
  if (input(1)) {
    FailureOr<SmallVector<int64_t>> v = getConstantInts(input(1), "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (std::optional<SmallVector<int64_t>> a = intsAttr("split")) {
    sizes = *a;
  } else {
    int64_t parts = intAttr("num_outputs", outputs);
    int64_t each = (in[*axis] + parts - 1) / parts;
    for (int64_t i = 0, left = in[*axis]; i < parts; ++i, left -= each)
      sizes.push_back(std::min(each, left));
  }
  if (int64_t(sizes.size()) != outputs)
    return error() << "split has " << sizes.size() << " parts for " << outputs
                   << " outputs";
  if (llvm::any_of(sizes, [](int64_t s) { return s <= 0; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != in[*axis])
    return error() << "split sizes do not add up to " << in[*axis]
                   << " or are not positive";
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> offsets(in.size(), 0), shape(in);
    offsets[*axis] = offset;
    shape[*axis] = size;
    offset += size;
    Value part = SliceOp::create(
        builder, loc, RankedTensorType::get(shape, tensorType(x).getElementType()),
        x, builder.getDenseI64ArrayAttr(offsets), DenseI64ArrayAttr());
    if (failed(setOutput(i, part)))
      return failure();
  }
  return success();
}

LogicalResult Importer::importSoftmax() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({"axis"})))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "input")))
    return failure();
  ArrayRef<int64_t> in = tensorType(x).getShape();
  int64_t rank = in.size();
  FailureOr<int64_t> axis =
      normalizeAxis(intAttr("axis", opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  if (opset >= 13 || *axis == rank - 1) {
    Value result = SoftmaxOp::create(builder, loc, tensorType(x), x,
                                     builder.getI64IntegerAttr(*axis));
    return setOutput(0, result);
  }
  // Before opset 13 the input is flattened to 2-D at `axis`.
  SmallVector<int64_t> flat = {product(in.take_front(*axis)),
                               product(in.drop_front(*axis))};
  Value flattened = reshape(x, flat);
  Value result = SoftmaxOp::create(builder, loc, tensorType(flattened),
                                   flattened, builder.getI64IntegerAttr(1));
  return setOutput(0, reshape(result, in));
}

LogicalResult Importer::importLayerNorm() {
  if (failed(expectInputs(2, 3)) ||
      failed(checkAttributes({"axis", "epsilon", "stash_type"})))
    return failure();
  if (intAttr("stash_type", 1) != 1)
    return error() << "stash_type must be 1 (float32 statistics)";
  Value x = input(0), scale = input(1), bias = input(2);
  if (failed(expectFloat(x, "X")))
    return failure();
  int64_t rank = tensorType(x).getRank();
  FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = tensorType(x).getShape().drop_front(*axis);
  Type element = tensorType(x).getElementType();
  auto fit = [&](Value v, StringRef name) -> FailureOr<Value> {
    ArrayRef<int64_t> shape = tensorType(v).getShape();
    FailureOr<SmallVector<int64_t>> b = broadcastShape(v, x);
    if (failed(b))
      return failure();
    if (product(shape) != product(normalized) &&
        product(shape) != 1)
      return error() << name << " of shape " << formatShape(shape)
                     << " does not match the normalized dimensions "
                     << formatShape(normalized);
    if (product(shape) == 1 && product(normalized) != 1) {
      // A scalar scale or bias: expand it.
      DenseElementsAttr attr;
      if (!matchPattern(v, m_Constant(&attr)))
        return error() << name << " must have the normalized shape "
                       << formatShape(normalized);
      return materialize(DenseElementsAttr::get(
          RankedTensorType::get(normalized, attr.getElementType()),
          attr.getSplatValue<Attribute>()));
    }
    return reshape(convert(v, element), normalized);
  };
  FailureOr<Value> s = fit(scale, "Scale");
  if (failed(s))
    return failure();
  Value b;
  if (bias) {
    FailureOr<Value> fitted = fit(bias, "B");
    if (failed(fitted))
      return failure();
    b = *fitted;
  }
  float epsilon = floatAttr("epsilon", 1e-5f);
  Value result = LayerNormOp::create(
      builder, loc, tensorType(x), x, *s, b, builder.getI64IntegerAttr(*axis),
      builder.getF32FloatAttr(epsilon));
  if (failed(setOutput(0, result)))
    return failure();
  // The optional Mean and InvStdDev outputs (shape X.shape[:axis] + ones):
  // mean = reduce_mean(x), inv_std = (reduce_mean((x - mean)^2) + eps)^-0.5.
  bool wantStats = false;
  for (int i = 1; i < node->output_size(); ++i)
    wantStats |= !node->output(i).empty();
  if (!wantStats)
    return success();
  SmallVector<int64_t> dims, statShape(tensorType(x).getShape());
  for (int64_t d = *axis; d < rank; ++d) {
    dims.push_back(d);
    statShape[d] = 1;
  }
  auto statType = RankedTensorType::get(statShape, element);
  auto scalar = [&](double v) {
    return materialize(DenseElementsAttr::get(
        RankedTensorType::get({}, element),
        builder.getFloatAttr(element, v)));
  };
  Value mean = ReduceMeanOp::create(builder, loc, statType, x,
                                    builder.getDenseI64ArrayAttr(dims), true);
  FailureOr<Value> centered = binary<SubOp>(x, mean);
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = binary<MulOp>(*centered, *centered);
  if (failed(squared))
    return failure();
  Value variance = ReduceMeanOp::create(
      builder, loc, statType, *squared, builder.getDenseI64ArrayAttr(dims),
      true);
  FailureOr<Value> shifted = binary<AddOp>(variance, scalar(epsilon));
  if (failed(shifted))
    return failure();
  FailureOr<Value> invStd = binary<PowOp>(*shifted, scalar(-0.5));
  if (failed(invStd) || failed(setOutput(1, mean)))
    return failure();
  return setOutput(2, *invStd);
}

LogicalResult Importer::importBatchNorm() {
  if (failed(expectInputs(5, 5)) ||
      failed(checkAttributes(
          {"epsilon", "momentum", "training_mode", "spatial", "is_test"})))
    return failure();
  if (intAttr("training_mode", 0))
    return error() << "training_mode = 1 is not supported (inference only)";
  for (int i = 1; i < node->output_size(); ++i)
    if (!node->output(i).empty())
      return error() << "the running mean and variance outputs are not "
                        "supported (inference only)";
  Value x = input(0);
  if (failed(expectFloat(x, "X")))
    return failure();
  RankedTensorType xt = tensorType(x);
  if (xt.getRank() < 2)
    return error() << "X must have rank 2 or more, got rank " << xt.getRank();
  int64_t channels = xt.getDimSize(1);
  // Per-channel parameters broadcast as [C, 1, ..., 1].
  SmallVector<int64_t> paramShape(xt.getRank() - 1, 1);
  paramShape[0] = channels;
  SmallVector<Value> params;
  for (unsigned i = 1; i < 5; ++i) {
    RankedTensorType t = tensorType(input(i));
    if (t.getRank() != 1 || t.getDimSize(0) != channels)
      return error() << "input #" << i << " has shape "
                     << formatShape(t.getShape()) << ", expected " << channels;
    params.push_back(
        reshape(convert(input(i), xt.getElementType()), paramShape));
  }
  // y = (x - mean) * (scale * (var + eps)^-0.5) + bias; on constant
  // parameters the factor folds at import time.
  Type element = xt.getElementType();
  auto scalar = [&](double v) {
    return materialize(DenseElementsAttr::get(
        RankedTensorType::get({}, element), builder.getFloatAttr(element, v)));
  };
  FailureOr<Value> shifted =
      binary<AddOp>(params[3], scalar(floatAttr("epsilon", 1e-5f)));
  if (failed(shifted))
    return failure();
  FailureOr<Value> invStd = binary<PowOp>(*shifted, scalar(-0.5));
  if (failed(invStd))
    return failure();
  FailureOr<Value> factor = binary<MulOp>(params[0], *invStd);
  if (failed(factor))
    return failure();
  FailureOr<Value> centered = binary<SubOp>(x, params[2]);
  if (failed(centered))
    return failure();
  FailureOr<Value> scaled = binary<MulOp>(*centered, *factor);
  if (failed(scaled))
    return failure();
  FailureOr<Value> result = binary<AddOp>(*scaled, params[1]);
  if (failed(result))
    return failure();
  return setOutput(0, *result);
}

LogicalResult Importer::importClip() {
  if (failed(expectInputs(1, 3)) || failed(checkAttributes({"min", "max"})))
    return failure();
  Value x = input(0);
  if (failed(expectFloat(x, "input")))
    return failure();
  std::optional<float> lo, hi;
  if (const onnx::AttributeProto *a = attribute("min"))
    lo = a->f();
  if (const onnx::AttributeProto *a = attribute("max"))
    hi = a->f();
  for (unsigned i = 1; i <= 2; ++i) {
    if (!input(i))
      continue;
    DenseElementsAttr attr;
    if (!matchPattern(input(i), m_Constant(&attr)) || attr.getNumElements() != 1 ||
        !isa<FloatType>(attr.getElementType()))
      return error() << (i == 1 ? "min" : "max")
                     << " must be a constant float scalar";
    float v = (*attr.getValues<APFloat>().begin()).convertToDouble();
    (i == 1 ? lo : hi) = v;
  }
  if (!lo && !hi)
    return setOutput(0, x);
  if (lo && hi && *lo > *hi)
    return error() << "min " << *lo << " is greater than max " << *hi;
  Value result = ClipOp::create(builder, loc, tensorType(x), x,
                                lo ? builder.getF32FloatAttr(*lo) : FloatAttr(),
                                hi ? builder.getF32FloatAttr(*hi) : FloatAttr());
  return setOutput(0, result);
}

LogicalResult Importer::importCast() {
  if (failed(expectInputs(1, 1)) || failed(checkAttributes({"to", "saturate"})))
    return failure();
  FailureOr<Type> to = convertElementType(intAttr("to", 0), "the target type");
  if (failed(to))
    return failure();
  Value x = input(0);
  DenseElementsAttr attr;
  if (matchPattern(x, m_Constant(&attr)) &&
      isa<IntegerType>(attr.getElementType()) && isa<IntegerType>(*to)) {
    unsigned width = to->getIntOrFloatBitWidth();
    return setOutput(0, materialize(attr.mapValues(*to, [&](const APInt &v) {
                       return v.sextOrTrunc(width);
                     })));
  }
  return setOutput(0, convert(x, *to));
}

LogicalResult Importer::importConstant() {
  if (failed(expectInputs(0, 0)))
    return failure();
  if (node->attribute_size() != 1)
    return error() << "must have exactly one attribute";
  const onnx::AttributeProto &attr = node->attribute(0);
  Type f32 = builder.getF32Type(), i64 = builder.getI64Type();
  DenseElementsAttr value;
  if (attr.name() == "value") {
    FailureOr<DenseElementsAttr> t = convertTensor(attr.t(), "value");
    if (failed(t))
      return failure();
    value = *t;
  } else if (attr.name() == "value_float") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                   builder.getF32FloatAttr(attr.f()));
  } else if (attr.name() == "value_int") {
    value = DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                   builder.getI64IntegerAttr(attr.i()));
  } else if (attr.name() == "value_floats") {
    SmallVector<float> v(attr.floats().begin(), attr.floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, f32), ArrayRef<float>(v));
  } else if (attr.name() == "value_ints") {
    SmallVector<int64_t> v(attr.ints().begin(), attr.ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, i64), ArrayRef<int64_t>(v));
  } else {
    return error() << "attribute '" << attr.name()
                   << "' is not supported (supported: value, value_float, "
                      "value_int, value_floats, value_ints)";
  }
  return setOutput(0, materialize(value));
}

//===----------------------------------------------------------------------===//
// Graph rewrites
//===----------------------------------------------------------------------===//

/// The value of a splat float constant, if `v` is one.
static std::optional<double> getSplatFloat(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

static bool isNear(std::optional<double> value, double expected) {
  return value && std::fabs(*value - expected) <= 1e-5 * std::fabs(expected);
}

/// The factors of a product: `v` itself, or, when it is a crest.mul whose
/// result only feeds the product, the factors of its operands.
static void collectFactors(Value v, bool isRoot, SmallVectorImpl<Value> &out) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && (isRoot || v.hasOneUse()) &&
      mul.getLhs().getType() == mul.getType() &&
      mul.getRhs().getType() == mul.getType()) {
    collectFactors(mul.getLhs(), false, out);
    collectFactors(mul.getRhs(), false, out);
    return;
  }
  // Broadcast scalar factors (the 0.5) keep their own type.
  if (mul && (isRoot || v.hasOneUse()) && getSplatFloat(mul.getRhs())) {
    collectFactors(mul.getLhs(), false, out);
    out.push_back(mul.getRhs());
    return;
  }
  out.push_back(v);
}

/// Whether `v` is erf(x / sqrt(2)) + 1 (or erf(x * 1/sqrt(2)) + 1, in
/// either operand order) for this `x`.
static bool isErfTerm(Value v, Value x) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return false;
  Value erfValue = add.getLhs(), one = add.getRhs();
  if (!erfValue.getDefiningOp<ErfOp>())
    std::swap(erfValue, one);
  auto erf = erfValue.getDefiningOp<ErfOp>();
  if (!erf || !isNear(getSplatFloat(one), 1.0))
    return false;
  Value scaled = erf.getInput();
  if (auto div = scaled.getDefiningOp<DivOp>())
    return div.getLhs() == x && isNear(getSplatFloat(div.getRhs()), M_SQRT2);
  if (auto mul = scaled.getDefiningOp<MulOp>())
    return (mul.getLhs() == x &&
            isNear(getSplatFloat(mul.getRhs()), M_SQRT1_2)) ||
           (mul.getRhs() == x && isNear(getSplatFloat(mul.getLhs()), M_SQRT1_2));
  return false;
}

/// Replaces exact GELU written out in primitives, as exporters before
/// opset 20 write it -- x * 0.5 * (1 + erf(x / sqrt(2))) in any order of
/// the products -- by one crest.gelu, then drops the dead primitives.
static void fuseGeluPatterns(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    auto root = dyn_cast<MulOp>(&op);
    if (!root || root->use_empty())
      continue;
    SmallVector<Value> factors;
    collectFactors(root.getResult(), /*isRoot=*/true, factors);
    if (factors.size() != 3)
      continue;
    for (unsigned half = 0; half < 3; ++half) {
      if (!isNear(getSplatFloat(factors[half]), 0.5))
        continue;
      Value a = factors[(half + 1) % 3], b = factors[(half + 2) % 3];
      Value x = isErfTerm(b, a) ? a : isErfTerm(a, b) ? b : Value();
      if (!x || x.getType() != root.getType())
        continue;
      OpBuilder builder(root);
      auto gelu = GeluOp::create(builder, root.getLoc(), x,
                                 GeluApproximationAttr::get(
                                     root.getContext(),
                                     GeluApproximation::None));
      root.getResult().replaceAllUsesWith(gelu.getResult());
      break;
    }
  }
  // The primitives of a replaced pattern (all pure) are now unused.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() && !op.hasTrait<mlir::OpTrait::IsTerminator>() &&
        isPure(&op))
      op.erase();
}

//===----------------------------------------------------------------------===//
// Nodes and the graph
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kSupportedOps[] = {
    "Abs",       "Add",
    "AveragePool", "BatchNormalization",
    "Cast",
    "Clip",      "Concat",
    "Constant",  "Conv",
    "Div",       "Dropout",
    "Erf",       "Exp",
    "Flatten",   "Gather",
    "Gemm",      "GlobalAveragePool",
    "HardSigmoid", "HardSwish",
    "Identity",  "LayerNormalization",
    "MatMul",    "Max",
    "MaxPool",   "Min",
    "Mul",       "Neg",
    "Pow",       "ReduceMean",
    "Relu",      "Reshape",
    "Shape",     "Sigmoid",
    "Slice",     "Softmax",
    "Split",     "Sqrt",
    "Squeeze",   "Sub",
    "Tanh",      "Transpose",
    "Unsqueeze",
};

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

  // Elementwise unary ops.
  auto unary = [&](auto tag) -> LogicalResult {
    using OpTy = decltype(tag);
    if (failed(expectInputs(1, 1)) || failed(checkAttributes({})) ||
        failed(expectFloat(input(0), "input")))
      return failure();
    return setOutput(0, OpTy::create(builder, loc, tensorType(input(0)),
                                     input(0)));
  };
  if (op == "Relu")
    return unary(ReluOp());
  if (op == "Sigmoid")
    return unary(SigmoidOp());
  if (op == "Tanh")
    return unary(TanhOp());
  if (op == "Erf")
    return unary(ErfOp());
  if (op == "Exp")
    return unary(ExpOp());
  if (op == "Sqrt")
    return unary(SqrtOp());
  if (op == "Neg")
    return unary(NegOp());
  if (op == "Abs")
    return unary(AbsOp());
  if (op == "HardSwish")
    return unary(HardSwishOp());
  if (op == "HardSigmoid") {
    if (failed(expectInputs(1, 1)) ||
        failed(checkAttributes({"alpha", "beta"})) ||
        failed(expectFloat(input(0), "input")))
      return failure();
    float alpha = floatAttr("alpha", 0.2f), beta = floatAttr("beta", 0.5f);
    if (alpha == 0.0f || !std::isfinite(alpha) || !std::isfinite(beta))
      return error() << "alpha must be finite and non-zero, beta finite";
    return setOutput(0, HardSigmoidOp::create(
                            builder, loc, tensorType(input(0)), input(0),
                            builder.getF32FloatAttr(alpha),
                            builder.getF32FloatAttr(beta)));
  }
  if (op == "Identity" || op == "Dropout") {
    if (failed(expectInputs(1, op == "Dropout" ? 3 : 1)))
      return failure();
    if (op == "Dropout") {
      if (failed(checkAttributes({"seed", "ratio"})))
        return failure();
      if (n.output_size() > 1 && !n.output(1).empty())
        return error() << "the mask output is not supported (inference only)";
      if (Value training = input(2)) {
        DenseElementsAttr attr;
        if (!matchPattern(training, m_Constant(&attr)) ||
            attr.getValues<bool>()[0])
          return error() << "training_mode must be a constant false";
      }
    }
    return setOutput(0, input(0));
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "Pow" || op == "Max" || op == "Min") {
    bool variadic = op == "Max" || op == "Min";
    if (failed(expectInputs(variadic ? 1 : 2, variadic ? 64 : 2)) ||
        failed(checkAttributes({})))
      return failure();
    Value result = input(0);
    for (unsigned i = 1; i < inputs.size(); ++i) {
      Value rhs = input(i);
      // Pow's exponent may have another type: bring it to the base's.
      if (op == "Pow" && isFloat(result))
        rhs = convert(rhs, tensorType(result).getElementType());
      FailureOr<Value> r = binaryByName(op, result, rhs);
      if (failed(r))
        return failure();
      result = *r;
    }
    return setOutput(0, result);
  }
  if (op == "Gemm")
    return importGemm();
  if (op == "MatMul")
    return importMatMul();
  if (op == "Conv")
    return importConv();
  if (op == "MaxPool" || op == "AveragePool")
    return importPool(op == "MaxPool");
  if (op == "GlobalAveragePool") {
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
  if (op == "ReduceMean")
    return importReduceMean();
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" ||
      op == "Unsqueeze")
    return importReshapeLike();
  if (op == "Transpose") {
    if (failed(expectInputs(1, 1)) || failed(checkAttributes({"perm"})))
      return failure();
    ArrayRef<int64_t> in = tensorType(input(0)).getShape();
    SmallVector<int64_t> perm;
    if (std::optional<SmallVector<int64_t>> p = intsAttr("perm"))
      perm = *p;
    else
      for (int64_t d = in.size() - 1; d >= 0; --d)
        perm.push_back(d);
    SmallVector<int64_t> shape;
    SmallVector<bool> seen(in.size(), false);
    for (int64_t d : perm) {
      if (d < 0 || d >= int64_t(in.size()) || seen[d] ||
          perm.size() != in.size())
        return error() << "perm is not a permutation of the input's "
                       << in.size() << " dimensions";
      seen[d] = true;
      shape.push_back(in[d]);
    }
    auto type = RankedTensorType::get(shape, tensorType(input(0)).getElementType());
    return setOutput(0, TransposeOp::create(builder, loc, type, input(0),
                                            builder.getDenseI64ArrayAttr(perm)));
  }
  if (op == "Concat") {
    if (failed(expectInputs(1, 1024)) || failed(checkAttributes({"axis"})))
      return failure();
    RankedTensorType first = tensorType(input(0));
    FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", 0), first.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> shape(first.getShape());
    shape[*axis] = 0;
    for (Value v : inputs) {
      RankedTensorType t = tensorType(v);
      if (t.getRank() != first.getRank() ||
          t.getElementType() != first.getElementType())
        return error() << "inputs differ in rank or element type";
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (d != *axis && t.getDimSize(d) != first.getDimSize(d))
          return error() << "inputs differ in dimension " << d;
      shape[*axis] += t.getDimSize(*axis);
    }
    if (inputs.size() == 1)
      return setOutput(0, input(0));
    auto type = RankedTensorType::get(shape, first.getElementType());
    return setOutput(0, ConcatOp::create(builder, loc, type, inputs,
                                         builder.getI64IntegerAttr(*axis)));
  }
  if (op == "Split")
    return importSplit();
  if (op == "Slice")
    return importSlice();
  if (op == "Gather") {
    if (failed(expectInputs(2, 2)) || failed(checkAttributes({"axis"})))
      return failure();
    Value data = input(0), indices = input(1);
    RankedTensorType dt = tensorType(data), it = tensorType(indices);
    if (!it.getElementType().isInteger(32) &&
        !it.getElementType().isInteger(64))
      return error() << "indices must be int32 or int64";
    FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", 0), dt.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> shape(dt.getShape().take_front(*axis));
    llvm::append_range(shape, it.getShape());
    llvm::append_range(shape, dt.getShape().drop_front(*axis + 1));
    auto type = RankedTensorType::get(shape, dt.getElementType());
    return setOutput(0, GatherOp::create(builder, loc, type, data, indices,
                                         builder.getI64IntegerAttr(*axis)));
  }
  if (op == "BatchNormalization")
    return importBatchNorm();
  if (op == "Softmax")
    return importSoftmax();
  if (op == "LayerNormalization")
    return importLayerNorm();
  if (op == "Clip")
    return importClip();
  if (op == "Cast")
    return importCast();
  if (op == "Constant")
    return importConstant();
  if (op == "Shape") {
    if (failed(expectInputs(1, 1)) || failed(checkAttributes({"start", "end"})))
      return failure();
    ArrayRef<int64_t> in = tensorType(input(0)).getShape();
    int64_t rank = in.size();
    int64_t start = intAttr("start", 0), end = intAttr("end", rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    SmallVector<int64_t> dims(in.begin() + start,
                              in.begin() + std::max(start, end));
    auto type = RankedTensorType::get({int64_t(dims.size())},
                                      builder.getI64Type());
    return setOutput(0, materialize(DenseElementsAttr::get(
                            type, ArrayRef<int64_t>(dims))));
  }
  return error() << "operator '" << op
                 << "' is not supported; supported operators: "
                 << llvm::join(ArrayRef<StringLiteral>(kSupportedOps), ", ");
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
  fuseGeluPatterns(*entry);
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
  opset = 0;
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  if (opset == 0)
    opset = 1;
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
