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

/// Binary ops the importer folds on constants (Fold.cpp).
enum class FoldOp {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  Mod,
  Fmod,
  // Bool results:
  Equal,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  And, // the logical ones on bools
  Or,
  Xor,
};

template <typename OpTy> constexpr FoldOp getFoldOp() {
  if constexpr (std::is_same_v<OpTy, AddOp>)
    return FoldOp::Add;
  else if constexpr (std::is_same_v<OpTy, SubOp>)
    return FoldOp::Sub;
  else if constexpr (std::is_same_v<OpTy, MulOp>)
    return FoldOp::Mul;
  else if constexpr (std::is_same_v<OpTy, DivOp>)
    return FoldOp::Div;
  else if constexpr (std::is_same_v<OpTy, PowOp>)
    return FoldOp::Pow;
  else if constexpr (std::is_same_v<OpTy, MaxOp>)
    return FoldOp::Max;
  else
    return FoldOp::Min;
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

  // Constant folding (Fold.cpp): shape arithmetic (Shape -> Gather -> Div
  // -> Concat -> Reshape, as exporters write it) and data movement on
  // constants evaluate at import time; integers with crest/Semantics'
  // rules (sem::evaluateInt, divInt, remInt).

  /// Results of at most this many elements fold.
  static constexpr int64_t kMaxFoldElements = 1 << 20;
  /// The constant `v` holds, or null.
  static DenseElementsAttr getConstant(Value v);
  /// The elements of an integer constant, sign-extended (i1 as 0 and 1).
  static SmallVector<int64_t> getInts(DenseElementsAttr attr);
  /// An integer constant of `type` holding `values` (truncated to width).
  static DenseElementsAttr getIntsAttr(RankedTensorType type,
                                       ArrayRef<int64_t> values);
  /// For each element of a tensor of `shape`, the element an operand of
  /// shape `in` broadcast to it (NumPy rules) reads.
  static SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> shape,
                                               ArrayRef<int64_t> in);
  /// A constant of `type` whose element i is element index[i] of the
  /// concatenation of `sources` (each of `type`'s element type).
  static DenseElementsAttr pickElements(ArrayRef<DenseElementsAttr> sources,
                                        ArrayRef<int64_t> index,
                                        RankedTensorType type);
  /// `op` on two constants, broadcast to `type` (the result type; i1 for
  /// Equal). Floats compute in double and round once to the result type;
  /// integers follow crest/Semantics. A zero integer divisor is an error.
  FailureOr<DenseElementsAttr> foldBinary(FoldOp op, DenseElementsAttr lhs,
                                          DenseElementsAttr rhs,
                                          RankedTensorType type);
  /// A constant converted to `to` with crest.cast's rules (Semantics.md),
  /// or null for float-to-float (convert() folds those).
  static DenseElementsAttr foldCast(DenseElementsAttr attr, Type to);
  /// Fails, naming the first input that is not a constant, when one is not:
  /// `what` says what the node folds only on constants.
  LogicalResult expectConstantInputs(StringRef what);

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
  /// A Reduce* node's reduced dimensions of `x`, normalized and sorted
  /// (every dimension when `axes` is empty); empty with `noop` set when
  /// noop_with_empty_axes makes the node an identity (Reduction.cpp).
  FailureOr<SmallVector<int64_t>> getReducedDims(Value x, bool &noop);
  /// The crest reduction `OpTy` of `x` over `dims` (normalized, sorted,
  /// distinct), moving them last first where they are not consecutive, a
  /// reshape where they are all of size 1.
  template <typename OpTy>
  Value reduce(Value x, ArrayRef<int64_t> dims, bool keep);
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
  Value transpose(Value value, ArrayRef<int64_t> perm);
  Value padDimension(Value value, int64_t dim, int64_t before, int64_t after,
                     double fill = 0.0);
  /// `value` gathered along `dim` at constant `indices` (DataMovement.cpp).
  Value gatherConstant(Value value, int64_t dim, ArrayRef<int64_t> indices);
  /// The same with `fill` an element attribute of `value`'s type.
  Value padDimension(Value value, int64_t dim, int64_t before, int64_t after,
                     Attribute fill);
  /// One dimension of a pooling window (ConvPool.cpp).
  struct PoolWindow {
    int64_t kernel, stride, dilation, pad0, pad1, out;
  };
  FailureOr<Value> poolDimension(Value x, unsigned dim, const PoolWindow &win,
                                 bool isMax, bool includePad);
  Type matrixType();
  PrecisionAttr matrixPrecision();
  FailureOr<SmallVector<int64_t>> broadcastShape(Value lhs, Value rhs);
  FailureOr<SmallVector<int64_t>> broadcastShape(ArrayRef<int64_t> a,
                                                 ArrayRef<int64_t> b);
  template <typename OpTy> FailureOr<Value> binary(Value lhs, Value rhs);
  FailureOr<Value> binaryByName(StringRef op, Value lhs, Value rhs);

  // Converters (one family per file: Elementwise.cpp, MatMul.cpp,
  // ConvPool.cpp, DataMovement.cpp, Normalization.cpp, Reduction.cpp).
  LogicalResult importHardSigmoid();
  LogicalResult importLeakyRelu();
  LogicalResult importIdentity();
  LogicalResult importDropout();
  LogicalResult importBinary();
  FailureOr<Value> integerPow(Value x, Value y);
  LogicalResult importLegacyBinary();
  LogicalResult importGlobalPool(bool isMax);
  LogicalResult importTranspose();
  LogicalResult importConcat();
  LogicalResult importGather();
  LogicalResult importPad();
  LogicalResult importTile();
  LogicalResult importCumSum();
  LogicalResult importGatherElements();
  LogicalResult importShape();
  LogicalResult importGemm();
  LogicalResult importMatMul();
  LogicalResult importConv();
  LogicalResult importConvTranspose();
  /// Conv's and ConvTranspose's checked window attributes (ConvPool.cpp).
  struct ConvWindow {
    unsigned spatial;
    SmallVector<int64_t> strides, dilations, pads, outputPadding;
    int64_t groups;
  };
  FailureOr<ConvWindow> readConvWindow(bool transposed);
  /// RNN (`gates` 1), GRU (3) and LSTM (4), unrolled (Recurrent.cpp).
  LogicalResult importRecurrent(unsigned gates);
  /// The convolution of checked X and W (ConvPool.cpp).
  FailureOr<Value> convolve(Value x, Value w, Value bias,
                            ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> dilations,
                            ArrayRef<int64_t> pads, int64_t groups);
  LogicalResult importPool(bool isMax);
  LogicalResult importReshapeLike();
  LogicalResult importSlice();
  LogicalResult importSplit();
  LogicalResult importSoftmax();
  LogicalResult importLayerNorm();
  LogicalResult importBatchNorm();
  LogicalResult importInstanceNorm();
  LogicalResult importClip();
  LogicalResult importIntegerClip();
  LogicalResult importCast();
  LogicalResult importConstant();
  // Shape arithmetic (ShapeArithmetic.cpp); these fold on constants only.
  LogicalResult importMod();
  LogicalResult importNot();
  LogicalResult importWhere();
  LogicalResult importConstantOfShape();
  LogicalResult importRange();
  LogicalResult importExpand();

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
  // scaling written as Pow(64, 0.5), integer shape arithmetic) folds here
  // (Fold.cpp), up to a size limit.
  DenseElementsAttr l = getConstant(lhs), r = getConstant(rhs);
  if (l && r && type.getNumElements() <= kMaxFoldElements) {
    FailureOr<DenseElementsAttr> folded =
        foldBinary(getFoldOp<OpTy>(), l, r, type);
    if (failed(folded))
      return failure();
    return materialize(*folded);
  }
  return OpTy::create(builder, loc, type, lhs, rhs).getResult();
}

/// Replaces exact GELU written out in primitives by crest.gelu (Gelu.cpp).
void fuseGeluPatterns(Block &block);

} // namespace onnx_import
} // namespace crest

#endif // CREST_LIB_IMPORT_ONNX_IMPORTER_H
