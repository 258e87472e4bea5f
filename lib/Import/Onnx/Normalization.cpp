//===- Normalization.cpp - ONNX Normalization converters ------------------===//
//
// Softmax, LayerNormalization, BatchNormalization and
// InstanceNormalization.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

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
  // Training mode (opset 14 on) normalizes with the batch's statistics
  // and outputs the running mean and variance they update; older opsets'
  // training outputs (is_test = 0, the saved statistics) are not supported.
  bool training = opset >= 14 && intAttr("training_mode", 0);
  if (!training)
    for (int i = 1; i < node->output_size(); ++i)
      if (!node->output(i).empty())
        return error() << "the running mean and variance outputs are only "
                          "computed in training mode (training_mode = 1, "
                          "opset 14 on)";
  if (training && node->output_size() > 3)
    return error() << "training mode has 3 outputs (Y, running_mean, "
                      "running_var), got "
                   << node->output_size();
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
  Value mean = params[2], var = params[3], deviation;
  if (training) {
    // The statistics over every dimension but the channels (the
    // population variance, as ONNX's reference).
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < xt.getRank(); ++d)
      if (d != 1)
        dims.push_back(d);
    Value batchMean = reduce<ReduceMeanOp>(x, dims, /*keep=*/true);
    FailureOr<Value> centered = binary<SubOp>(x, batchMean);
    if (failed(centered))
      return failure();
    deviation = *centered;
    FailureOr<Value> squared = binary<MulOp>(deviation, deviation);
    if (failed(squared))
      return failure();
    Value batchVar = reduce<ReduceMeanOp>(*squared, dims, /*keep=*/true);
    // running = input * momentum + batch * (1 - momentum).
    float momentum = floatAttr("momentum", 0.9f);
    for (auto [position, batch, given] :
         {std::tuple{1, batchMean, 3}, std::tuple{2, batchVar, 4}}) {
      if (position >= node->output_size() || node->output(position).empty())
        continue;
      Value flatBatch = reshape(batch, {channels});
      RankedTensorType givenType = tensorType(input(given));
      Value running = convert(input(given), element);
      FailureOr<Value> kept = binary<MulOp>(running, scalar(momentum));
      FailureOr<Value> added =
          failed(kept) ? kept : binary<MulOp>(flatBatch, scalar(1 - momentum));
      if (failed(added))
        return failure();
      FailureOr<Value> updated = binary<AddOp>(*kept, *added);
      if (failed(updated) ||
          failed(setOutput(position,
                           convert(*updated, givenType.getElementType()))))
        return failure();
    }
    mean = batchMean;
    var = batchVar;
  }
  FailureOr<Value> shifted =
      binary<AddOp>(var, scalar(floatAttr("epsilon", 1e-5f)));
  if (failed(shifted))
    return failure();
  FailureOr<Value> invStd = binary<PowOp>(*shifted, scalar(-0.5));
  if (failed(invStd))
    return failure();
  FailureOr<Value> factor = binary<MulOp>(params[0], *invStd);
  if (failed(factor))
    return failure();
  FailureOr<Value> centered =
      deviation ? FailureOr<Value>(deviation) : binary<SubOp>(x, mean);
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

/// InstanceNormalization: each (n, c) plane normalized over its spatial
/// dimensions, then the per-channel scale and bias. crest.layer_norm from
/// axis 2 with a scale of ones normalizes; a broadcast multiply and add
/// apply the channel's parameters.
LogicalResult Importer::importInstanceNorm() {
  if (failed(expectInputs(3, 3)) ||
      failed(checkAttributes({"epsilon", "consumed_inputs"})))
    return failure();
  Value x = input(0), scale = input(1), bias = input(2);
  if (failed(expectFloat(x, "input")) || failed(expectFloat(scale, "scale")) ||
      failed(expectFloat(bias, "B")))
    return failure();
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  if (rank < 3)
    return error() << "input must have rank 3 or more (N x C x D1 ...), got "
                   << rank;
  int64_t channels = type.getDimSize(1);
  for (auto [name, v] : {std::pair{"scale", scale}, std::pair{"B", bias}})
    if (tensorType(v).getShape() != ArrayRef<int64_t>{channels})
      return error() << name << " must have shape " << channels
                     << " (the channels), got "
                     << formatShape(tensorType(v).getShape());
  float epsilon = floatAttr("epsilon", 1e-5f);
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    return error() << "epsilon = " << epsilon << " must be positive and finite";
  Type element = type.getElementType();
  auto spatial = type.getShape().drop_front(2);
  Value ones = materialize(DenseElementsAttr::get(
      RankedTensorType::get(spatial, element), builder.getFloatAttr(element, 1)));
  Value normalized = LayerNormOp::create(
      builder, loc, type, x, ones, Value(), builder.getI64IntegerAttr(2),
      builder.getF32FloatAttr(epsilon));
  SmallVector<int64_t> perChannel(rank - 1, 1);
  perChannel[0] = channels;
  FailureOr<Value> scaled =
      binary<MulOp>(normalized, reshape(convert(scale, element), perChannel));
  if (failed(scaled))
    return failure();
  FailureOr<Value> result =
      binary<AddOp>(*scaled, reshape(convert(bias, element), perChannel));
  if (failed(result))
    return failure();
  return setOutput(0, *result);
}

void crest::onnx_import::registerNormalizationConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Softmax", 1, kNewestOpset,
               [](Importer &im) { return im.importSoftmax(); });
  registry.add("LayerNormalization", 1, kNewestOpset,
               [](Importer &im) { return im.importLayerNorm(); });
  registry.add("BatchNormalization", 1, kNewestOpset,
               [](Importer &im) { return im.importBatchNorm(); });
  registry.add("InstanceNormalization", 1, kNewestOpset,
               [](Importer &im) { return im.importInstanceNorm(); });
}
