//===- Importer.h - The ONNX importer's core --------------------*- C++ -*-===//
//
// Private to lib/Import/Onnx. The Importer reads a ModelProto (Importer.cpp:
// the model, its initializers and graph, the node loop, diagnostics) and
// hands each node to the converter the registry (Registry.h) holds for its
// op type and the model's opset. The converters are Importer members, one
// file per op family; they share the node helpers and builders below.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_IMPORT_ONNX_IMPORTER_H
#define CREST_LIB_IMPORT_ONNX_IMPORTER_H

#include "crest/Import/OnnxImport.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Support/Limits.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <numeric>

namespace crest {
namespace onnx_import {

using namespace mlir;

inline std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(llvm::map_range(shape,
                                    [](int64_t d) { return std::to_string(d); }),
                    "x");
}

/// The element count of `values`, or -1 when it overflows (so that it
/// compares unequal to every real count).
inline int64_t product(ArrayRef<int64_t> values) {
  return checkedProduct(values).value_or(-1);
}

/// The importer of one model.
class Importer {
public:
  Importer(MLIRContext *context, StringRef filename,
           const OnnxImportOptions &options)
      : context(context), builder(context), filename(filename.str()),
        options(options) {}

  OwningOpRef<ModuleOp> run(StringRef bytes);

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
  /// The node's attribute `name`, or null. An attribute of another type
  /// than `type` is an error naming the node and attribute (the converter's
  /// result is then discarded: importNode fails).
  const onnx::AttributeProto *
  attribute(StringRef name, onnx::AttributeProto::AttributeType type) const;
  int64_t intAttr(StringRef name, int64_t fallback) const;
  float floatAttr(StringRef name, float fallback) const;
  std::string stringAttr(StringRef name, StringRef fallback) const;
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;
  /// The node's `axes`: the constant input 1 (newer opsets) or the `axes`
  /// attribute (older ones); empty when neither is given.
  FailureOr<SmallVector<int64_t>> getAxes();
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

  // Converters (one family per file: Elementwise.cpp, MatMul.cpp,
  // ConvPool.cpp, DataMovement.cpp, Normalization.cpp, Reduction.cpp).
  LogicalResult importHardSigmoid();
  LogicalResult importIdentity();
  LogicalResult importBinary();
  LogicalResult importGlobalAveragePool();
  LogicalResult importTranspose();
  LogicalResult importConcat();
  LogicalResult importGather();
  LogicalResult importShape();
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

  // State.

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
  /// Set when an attribute had the wrong type (see attribute()).
  mutable bool attributeTypeError = false;
};

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

/// Replaces exact GELU written out in primitives by crest.gelu (Gelu.cpp).
void fuseGeluPatterns(Block &block);

} // namespace onnx_import
} // namespace crest

#endif // CREST_LIB_IMPORT_ONNX_IMPORTER_H
