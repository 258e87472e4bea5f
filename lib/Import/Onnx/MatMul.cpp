//===- MatMul.cpp - ONNX MatMul converters --------------------------------===//
//
// Gemm and MatMul.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

LogicalResult Importer::importGemm() {
  // Before opset 7, C broadcasts only with broadcast = 1 (the same
  // unidirectional broadcast later opsets always apply).
  SmallVector<StringRef> supported = {"alpha", "beta", "transA", "transB"};
  if (opset < 7)
    supported.push_back("broadcast");
  if (failed(expectInputs(2, 3)) || failed(checkAttributes(supported)))
    return failure();
  bool legacyExact = opset < 7 && !intAttr("broadcast", 0);
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
    if (legacyExact && tensorType(c).getShape() != resultType.getShape())
      return error() << "C of shape "
                     << formatShape(tensorType(c).getShape()) << " is not "
                     << m << "x" << n
                     << " and broadcast = 0 (before opset 7, C broadcasts "
                        "only with broadcast = 1)";
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

void crest::onnx_import::registerMatMulConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Gemm", 1, kNewestOpset,
               [](Importer &im) { return im.importGemm(); });
  registry.add("MatMul", 1, kNewestOpset,
               [](Importer &im) { return im.importMatMul(); });
}
