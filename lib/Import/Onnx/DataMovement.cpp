//===- DataMovement.cpp - ONNX DataMovement converters --------------------===//
//
// Shapes and data movement: Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Concat, Split, Slice, Gather, and the constants Shape and Constant.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

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
      std::optional<int64_t> next = checkedMul(known, dim);
      if (!next)
        return error() << "shape " << formatShape(*given)
                       << " has too many elements";
      known = *next;
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
    FailureOr<SmallVector<int64_t>> given = getAxes();
    if (failed(given))
      return failure();
    SmallVector<int64_t> axes = *given;
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

LogicalResult Importer::importTranspose() {
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

LogicalResult Importer::importConcat() {
  if (failed(expectInputs(1, 1024)) || failed(checkAttributes({"axis"})))
    return failure();
  RankedTensorType first = tensorType(input(0));
  if (first.getRank() == 0)
    return error() << "inputs must have rank 1 or more, got a scalar";
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
  // Constants (the pieces of a shape) concatenate at import time.
  if (llvm::all_of(inputs, [](Value v) { return bool(getConstant(v)); }) &&
      product(shape) <= kMaxFoldElements) {
    int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
    int64_t outer = product(ArrayRef<int64_t>(shape).take_front(*axis));
    SmallVector<DenseElementsAttr> sources;
    SmallVector<int64_t> index;
    for (int64_t o = 0; o < outer; ++o) {
      int64_t offset = 0;
      for (Value v : inputs) {
        int64_t size = tensorType(v).getDimSize(*axis) * inner;
        for (int64_t j = 0; j < size; ++j)
          index.push_back(offset + o * size + j);
        offset += tensorType(v).getNumElements();
      }
    }
    for (Value v : inputs)
      sources.push_back(getConstant(v));
    return setOutput(0, materialize(pickElements(sources, index, type)));
  }
  return setOutput(0, ConcatOp::create(builder, loc, type, inputs,
                                       builder.getI64IntegerAttr(*axis)));
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
  if (outputs == 0)
    return error() << "has no outputs";
  SmallVector<int64_t> sizes;
  if (input(1)) {
    FailureOr<SmallVector<int64_t>> v = getConstantInts(input(1), "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (std::optional<SmallVector<int64_t>> a = intsAttr("split")) {
    sizes = *a;
  } else {
    // Equal parts: num_outputs (opset 18) must name the outputs there are.
    int64_t parts = intAttr("num_outputs", outputs);
    if (parts < 1 || parts != outputs)
      return error() << "num_outputs is " << parts << " but the node has "
                     << outputs << " outputs (at least 1 is needed)";
    if (parts > in[*axis])
      return error() << "cannot split dimension " << *axis << " of size "
                     << in[*axis] << " into " << parts << " parts";
    int64_t each = *checkedCeilDiv(in[*axis], parts);
    for (int64_t i = 0, left = in[*axis]; i < parts; ++i, left -= each)
      sizes.push_back(std::min(each, left));
  }
  if (int64_t(sizes.size()) != outputs)
    return error() << "split has " << sizes.size() << " parts for " << outputs
                   << " outputs";
  std::optional<int64_t> total = 0;
  for (int64_t s : sizes)
    total = s > 0 && total ? checkedAdd(*total, s) : std::nullopt;
  if (total != in[*axis])
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
  SmallVector<bool> sliced(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    if (sliced[*axis])
      return error() << "axis " << axes[i] << " is sliced twice";
    sliced[*axis] = true;
    int64_t dim = in[*axis], step = steps[i];
    if (step == 0)
      return error() << "step 0 of axis " << *axis << " is not allowed";
    // A step past the dimension takes one element, as a step of `dim` does.
    step = std::clamp<int64_t>(step, -dim, dim);
    // ONNX's clamping: negative indices count from the end (INT64_MAX and
    // INT64_MIN, "to the end", stay beyond it); a positive step clamps
    // start and end to [0, dim], a negative one start to [0, dim - 1] and
    // end to [-1, dim - 1].
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, lo, hi);
    };
    int64_t start, end, size;
    if (step > 0) {
      start = clampIndex(starts[i], 0, dim);
      end = clampIndex(ends[i], 0, dim);
      size = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = clampIndex(starts[i], 0, dim - 1);
      end = clampIndex(ends[i], -1, dim - 1);
      size = start > end ? (start - end - 1) / -step + 1 : 0;
    }
    if (size == 0)
      return error() << "the slice of axis " << *axis
                     << " is empty; Crest does not support empty tensors";
    offsets[*axis] = start;
    strides[*axis] = step;
    shape[*axis] = size;
  }
  auto resultType =
      RankedTensorType::get(shape, tensorType(x).getElementType());
  // A constant (a shape, a weight) slices at import time, in any direction.
  if (DenseElementsAttr attr = getConstant(x);
      attr && product(shape) <= kMaxFoldElements) {
    SmallVector<int64_t> index(product(shape));
    for (int64_t i = 0, e = index.size(); i < e; ++i) {
      int64_t rest = i, source = 0, stride = 1;
      for (int64_t d = rank - 1; d >= 0; --d) {
        source += (offsets[d] + rest % shape[d] * strides[d]) * stride;
        rest /= shape[d];
        stride *= in[d];
      }
      index[i] = source;
    }
    return setOutput(0, materialize(pickElements({attr}, index, resultType)));
  }
  // A negative step reads the same elements as the positive one from the
  // last of them, in reverse: slice forward, then reverse those axes with
  // a gather of constant indices size-1 ... 0.
  SmallVector<int64_t> reversed;
  for (int64_t d = 0; d < rank; ++d) {
    if (strides[d] > 0)
      continue;
    offsets[d] += (shape[d] - 1) * strides[d];
    strides[d] = -strides[d];
    reversed.push_back(d);
  }
  bool unitStrides = llvm::all_of(strides, [](int64_t s) { return s == 1; });
  Value result = SliceOp::create(
      builder, loc, resultType, x, builder.getDenseI64ArrayAttr(offsets),
      unitStrides ? DenseI64ArrayAttr()
                  : builder.getDenseI64ArrayAttr(strides));
  for (int64_t d : reversed) {
    SmallVector<int64_t> backwards;
    for (int64_t i = shape[d] - 1; i >= 0; --i)
      backwards.push_back(i);
    auto indexType = RankedTensorType::get({shape[d]}, builder.getI64Type());
    result = GatherOp::create(builder, loc, resultType, result,
                              materialize(getIntsAttr(indexType, backwards)),
                              builder.getI64IntegerAttr(d));
  }
  return setOutput(0, result);
}

LogicalResult Importer::importGather() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({"axis"})))
    return failure();
  Value data = input(0), indices = input(1);
  RankedTensorType dt = tensorType(data), it = tensorType(indices);
  if (!it.getElementType().isInteger(32) &&
      !it.getElementType().isInteger(64))
    return error() << "indices must be int32 or int64";
  if (dt.getRank() == 0)
    return error() << "data must have rank 1 or more, got a scalar";
  FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", 0), dt.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(dt.getShape().take_front(*axis));
  llvm::append_range(shape, it.getShape());
  llvm::append_range(shape, dt.getShape().drop_front(*axis + 1));
  auto type = RankedTensorType::get(shape, dt.getElementType());
  // Constant indices must be in [-size, size) (ONNX: out of range is an
  // error); with constant data too (Shape -> Gather) the gather folds.
  if (DenseElementsAttr idx = getConstant(indices)) {
    int64_t size = dt.getDimSize(*axis);
    SmallVector<int64_t> positions = getInts(idx);
    for (auto [j, v] : llvm::enumerate(positions)) {
      if (v < -size || v >= size)
        return error() << "index " << v << " (element " << j
                       << " of the indices) is out of range for axis "
                       << *axis << " of size " << size;
      if (v < 0)
        v += size;
    }
    if (DenseElementsAttr attr = getConstant(data);
        attr && product(shape) <= kMaxFoldElements) {
      int64_t outer = product(dt.getShape().take_front(*axis));
      int64_t inner = product(dt.getShape().drop_front(*axis + 1));
      SmallVector<int64_t> index;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t p : positions)
          for (int64_t k = 0; k < inner; ++k)
            index.push_back((o * size + p) * inner + k);
      return setOutput(0, materialize(pickElements({attr}, index, type)));
    }
  }
  return setOutput(0, GatherOp::create(builder, loc, type, data, indices,
                                       builder.getI64IntegerAttr(*axis)));
}

LogicalResult Importer::importShape() {
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

LogicalResult Importer::importConstant() {
  if (failed(expectInputs(0, 0)))
    return failure();
  if (node->attribute_size() != 1)
    return error() << "must have exactly one attribute";
  const onnx::AttributeProto &attr = node->attribute(0);
  // Each value_* attribute has one type; look it up through attribute() so
  // that a wrong type is the same error as everywhere else.
  static const std::pair<StringRef, onnx::AttributeProto::AttributeType>
      kValueTypes[] = {{"value", onnx::AttributeProto::TENSOR},
                       {"value_float", onnx::AttributeProto::FLOAT},
                       {"value_int", onnx::AttributeProto::INT},
                       {"value_floats", onnx::AttributeProto::FLOATS},
                       {"value_ints", onnx::AttributeProto::INTS}};
  for (auto [name, type] : kValueTypes)
    if (attr.name() == name && !attribute(name, type))
      return failure();
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

/// `value` gathered along `dim` at constant `indices` (an index past the
/// end reads zeros).
Value Importer::gatherConstant(Value value, int64_t dim,
                               ArrayRef<int64_t> indices) {
  RankedTensorType type = tensorType(value);
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = indices.size();
  auto indexType =
      RankedTensorType::get({int64_t(indices.size())}, builder.getI64Type());
  return GatherOp::create(builder, loc,
                          RankedTensorType::get(shape, type.getElementType()),
                          value, materialize(getIntsAttr(indexType, indices)),
                          builder.getI64IntegerAttr(dim));
}

/// Pad: per padded dimension, a slice for negative pads and a concat with
/// constants (constant mode), or a gather of the edge, reflected or wrapped
/// indices (edge, reflect, wrap).
LogicalResult Importer::importPad() {
  if (failed(expectInputs(1, 4)) ||
      failed(checkAttributes({"mode", "pads", "paddings", "value"})))
    return failure();
  Value x = input(0);
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads;
  if (input(1)) {
    FailureOr<SmallVector<int64_t>> given = getConstantInts(input(1), "pads");
    if (failed(given))
      return failure();
    pads = *given;
  } else if (auto attr = intsAttr(opset < 2 ? "paddings" : "pads")) {
    pads = *attr;
  } else {
    return error() << "pads are missing";
  }
  SmallVector<int64_t> axes;
  if (input(3)) {
    FailureOr<SmallVector<int64_t>> given = getConstantInts(input(3), "axes");
    if (failed(given))
      return failure();
    for (int64_t axis : *given) {
      FailureOr<int64_t> a = normalizeAxis(axis, rank);
      if (failed(a))
        return failure();
      if (llvm::is_contained(axes, *a))
        return error() << "axis " << axis << " is repeated";
      axes.push_back(*a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size())
    return error() << "pads must have 2 entries per padded axis ("
                   << 2 * axes.size() << "), got " << pads.size();
  std::string mode = stringAttr("mode", "constant");
  if (!llvm::is_contained({"constant", "reflect", "edge", "wrap"}, mode))
    return error() << "mode = '" << mode
                   << "' is not supported (supported: constant, reflect, "
                      "edge, wrap)";
  Type element = type.getElementType();
  Attribute fill;
  if (Value v = input(2)) {
    DenseElementsAttr attr = getConstant(v);
    if (!attr || attr.getNumElements() != 1)
      return error() << "constant_value must be a constant scalar";
    if (attr.getElementType() != element)
      return error() << "constant_value has element type "
                     << attr.getElementType() << ", the data "
                     << element;
    fill = *attr.getValues<Attribute>().begin();
  } else if (isa<FloatType>(element)) {
    fill = builder.getFloatAttr(element, floatAttr("value", 0.0f));
  } else if (element.isInteger(1)) {
    fill = builder.getBoolAttr(floatAttr("value", 0.0f) != 0);
  } else {
    fill = builder.getIntegerAttr(element, int64_t(floatAttr("value", 0.0f)));
  }
  Value result = x;
  for (auto [i, d] : llvm::enumerate(axes)) {
    int64_t before = pads[i], after = pads[i + axes.size()];
    int64_t n = type.getDimSize(d);
    std::optional<int64_t> size = checkedAdd(n, before);
    if (size)
      size = checkedAdd(*size, after);
    if (!size)
      return error() << "pads " << before << " and " << after
                     << " of axis " << d << " overflow";
    if (*size <= 0)
      return error() << "the padded axis " << d
                     << " is empty; Crest does not support empty tensors";
    if (before == 0 && after == 0)
      continue;
    SmallVector<int64_t> shape(tensorType(result).getShape());
    shape[d] = *size;
    if (!checkedProduct(shape, kMaxTensorElements))
      return error() << "the padded tensor has too many elements ("
                     << formatShape(shape) << "; the limit is "
                     << kMaxTensorElements << ")";
    SmallVector<int64_t> indices;
    for (int64_t o = 0; mode != "constant" && o < *size; ++o) {
      int64_t j = o - before; // the source index, perhaps outside [0, n)
      if (mode == "edge") {
        indices.push_back(std::clamp<int64_t>(j, 0, n - 1));
      } else if (mode == "wrap") {
        indices.push_back((j % n + n) % n);
      } else {
        // Reflection without repeating the edge, period 2 (n - 1).
        int64_t period = 2 * (n - 1);
        int64_t m = period ? (j % period + period) % period : 0;
        indices.push_back(m < n ? m : period - m);
      }
    }
    if (mode != "constant") {
      result = gatherConstant(result, d, indices);
      continue;
    }
    // Constant: the elements kept (a slice when a pad is negative), then
    // the fill around them.
    int64_t first = std::max<int64_t>(-before, 0);
    int64_t last = n - std::max<int64_t>(-after, 0); // exclusive
    if (first > 0 || last < n) {
      SmallVector<int64_t> kept(tensorType(result).getShape());
      SmallVector<int64_t> offsets(rank, 0);
      kept[d] = std::max<int64_t>(last - first, 0);
      offsets[d] = first;
      if (kept[d] == 0) {
        // Everything cropped: the result is all fill.
        result = materialize(DenseElementsAttr::get(
            RankedTensorType::get(shape, element), fill));
        continue;
      }
      result = SliceOp::create(builder, loc,
                               RankedTensorType::get(kept, element), result,
                               builder.getDenseI64ArrayAttr(offsets),
                               DenseI64ArrayAttr());
    }
    result = padDimension(result, d, std::max<int64_t>(before, 0),
                          std::max<int64_t>(after, 0), fill);
  }
  return setOutput(0, result);
}

/// Tile (opset 6 on): per repeated dimension, a gather of the indices
/// 0..n-1 repeated.
LogicalResult Importer::importTile() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({})))
    return failure();
  Value x = input(0);
  RankedTensorType type = tensorType(x);
  FailureOr<SmallVector<int64_t>> repeats =
      getConstantInts(input(1), "repeats");
  if (failed(repeats))
    return failure();
  if (int64_t(repeats->size()) != type.getRank())
    return error() << "repeats must have one entry per dimension of the "
                      "input ("
                   << type.getRank() << "), got " << repeats->size();
  Value result = x;
  for (auto [d, r] : llvm::enumerate(*repeats)) {
    int64_t n = type.getDimSize(d);
    if (r <= 0)
      return error() << "repeats[" << d << "] = " << r
                     << " is not positive; Crest does not support empty "
                        "tensors";
    std::optional<int64_t> size = checkedMul(n, r);
    if (!size)
      return error() << "repeats[" << d << "] = " << r << " overflows";
    if (r == 1)
      continue;
    SmallVector<int64_t> shape(tensorType(result).getShape());
    shape[d] = *size;
    if (!checkedProduct(shape, kMaxTensorElements))
      return error() << "the tiled tensor has too many elements ("
                     << formatShape(shape) << "; the limit is "
                     << kMaxTensorElements << ")";
    SmallVector<int64_t> indices;
    for (int64_t o = 0; o < *size; ++o)
      indices.push_back(o % n);
    result = gatherConstant(result, d, indices);
  }
  return setOutput(0, result);
}

/// GatherElements (opset 11 on): element p of the result is data at p with
/// its `axis` coordinate replaced by indices[p] (negative counts from the
/// end). One crest.gather of the flattened data at the flat offsets
/// indices[p] * stride(axis) + base(p), where base(p) is p's offset without
/// the axis coordinate: computed at import time for constant indices, else
/// by integer kernels (an out-of-range index reads zeros, as crest.gather).
LogicalResult Importer::importGatherElements() {
  if (failed(expectInputs(2, 2)) || failed(checkAttributes({"axis"})))
    return failure();
  Value data = input(0), idx = input(1);
  RankedTensorType dt = tensorType(data), it = tensorType(idx);
  if (!it.getElementType().isSignlessInteger(64) &&
      !it.getElementType().isSignlessInteger(32))
    return error() << "indices must be int32 or int64, got "
                   << it.getElementType();
  if (dt.getRank() != it.getRank() || dt.getRank() == 0)
    return error() << "data " << formatShape(dt.getShape()) << " and indices "
                   << formatShape(it.getShape())
                   << " must have one rank, at least 1";
  FailureOr<int64_t> axis = normalizeAxis(intAttr("axis", 0), dt.getRank());
  if (failed(axis))
    return failure();
  for (int64_t d = 0; d < dt.getRank(); ++d)
    if (d != *axis && it.getDimSize(d) > dt.getDimSize(d))
      return error() << "indices " << formatShape(it.getShape())
                     << " exceed data " << formatShape(dt.getShape())
                     << " in dimension " << d;
  int64_t n = dt.getDimSize(*axis);
  SmallVector<int64_t> dataStrides(dt.getRank(), 1);
  for (int64_t d = dt.getRank() - 2; d >= 0; --d)
    dataStrides[d] = dataStrides[d + 1] * dt.getDimSize(d + 1);
  int64_t count = it.getNumElements();
  // base(p) for every p of the index shape.
  SmallVector<int64_t> base(count);
  for (int64_t p = 0; p < count; ++p) {
    int64_t rest = p, offset = 0;
    for (int64_t d = it.getRank() - 1; d >= 0; --d) {
      int64_t c = rest % it.getDimSize(d);
      rest /= it.getDimSize(d);
      if (d != *axis)
        offset += c * dataStrides[d];
    }
    base[p] = offset;
  }
  auto i64 = builder.getI64Type();
  auto flatIndexType = RankedTensorType::get(it.getShape(), i64);
  Value flatIndex;
  if (DenseElementsAttr c = getConstant(idx)) {
    SmallVector<int64_t> offsets;
    for (auto [p, v] : llvm::enumerate(getInts(c))) {
      if (v < -n || v >= n)
        return error() << "index " << v << " is out of range for axis "
                       << *axis << " of size " << n;
      offsets.push_back((v < 0 ? v + n : v) * dataStrides[*axis] + base[p]);
    }
    flatIndex = materialize(getIntsAttr(flatIndexType, offsets));
  } else {
    // Negative indices wrap: v + n where v < 0; then v * stride + base.
    Value v = convert(idx, i64);
    auto scalar = [&](int64_t x) {
      return materialize(getIntsAttr(RankedTensorType::get({}, i64), {x}));
    };
    auto boolType = RankedTensorType::get(it.getShape(), builder.getI1Type());
    Value negative = LessOp::create(builder, loc, boolType, v, scalar(0));
    FailureOr<Value> wrapped = binary<AddOp>(v, scalar(n));
    if (failed(wrapped))
      return failure();
    v = SelectOp::create(builder, loc, flatIndexType, negative, *wrapped, v);
    FailureOr<Value> scaled = binary<MulOp>(v, scalar(dataStrides[*axis]));
    if (failed(scaled))
      return failure();
    FailureOr<Value> offsets =
        binary<AddOp>(*scaled, materialize(getIntsAttr(flatIndexType, base)));
    if (failed(offsets))
      return failure();
    flatIndex = *offsets;
  }
  Value flat = reshape(data, {dt.getNumElements()});
  return setOutput(0, GatherOp::create(
                          builder, loc,
                          RankedTensorType::get(it.getShape(), dt.getElementType()),
                          flat, flatIndex, builder.getI64IntegerAttr(0)));
}

/// CumSum (opset 11 on) along a constant axis as a log-step prefix sum:
/// y += y shifted by 1, 2, 4, ... elements (a slice and a concat of zeros
/// each), in the element type's own arithmetic; exclusive shifts by one
/// first, reverse runs on the axis reversed (gathers).
LogicalResult Importer::importCumSum() {
  if (failed(expectInputs(2, 2)) ||
      failed(checkAttributes({"exclusive", "reverse"})))
    return failure();
  Value x = input(0);
  RankedTensorType type = tensorType(x);
  Type element = type.getElementType();
  if (element.isInteger(1))
    return error() << "x must be a number tensor, got 'i1'";
  FailureOr<SmallVector<int64_t>> axisValue = getConstantInts(input(1), "axis");
  if (failed(axisValue))
    return failure();
  if (axisValue->size() != 1)
    return error() << "axis must be a scalar, got " << axisValue->size()
                   << " values";
  FailureOr<int64_t> axis = normalizeAxis(axisValue->front(), type.getRank());
  if (failed(axis))
    return failure();
  int64_t d = *axis, n = type.getDimSize(d);
  Attribute zero = isa<FloatType>(element)
                       ? Attribute(builder.getFloatAttr(element, 0))
                       : Attribute(builder.getIntegerAttr(element, 0));
  // `v` moved k places along the axis, zeros in front.
  auto shifted = [&](Value v, int64_t k) -> Value {
    if (k >= n)
      return materialize(DenseElementsAttr::get(type, zero));
    SmallVector<int64_t> kept(type.getShape());
    kept[d] = n - k;
    Value head = SliceOp::create(builder, loc,
                                 RankedTensorType::get(kept, element), v,
                                 builder.getDenseI64ArrayAttr(
                                     SmallVector<int64_t>(type.getRank(), 0)),
                                 DenseI64ArrayAttr());
    return padDimension(head, d, k, 0, zero);
  };
  SmallVector<int64_t> reversed;
  for (int64_t i = n - 1; i >= 0; --i)
    reversed.push_back(i);
  bool reverse = intAttr("reverse", 0) && n > 1;
  Value y = reverse ? gatherConstant(x, d, reversed) : x;
  if (intAttr("exclusive", 0))
    y = shifted(y, 1);
  for (int64_t k = 1; k < n; k *= 2) {
    FailureOr<Value> sum = binary<AddOp>(y, shifted(y, k));
    if (failed(sum))
      return failure();
    y = *sum;
  }
  if (reverse)
    y = gatherConstant(y, d, reversed);
  return setOutput(0, y);
}

void crest::onnx_import::registerDataMovementConverters(
    OnnxConverterRegistry &registry) {
  registry.add("Reshape", 1, kNewestOpset,
               [](Importer &im) { return im.importReshapeLike(); });
  registry.add("Flatten", 1, kNewestOpset,
               [](Importer &im) { return im.importReshapeLike(); });
  registry.add("Squeeze", 1, kNewestOpset,
               [](Importer &im) { return im.importReshapeLike(); });
  registry.add("Unsqueeze", 1, kNewestOpset,
               [](Importer &im) { return im.importReshapeLike(); });
  registry.add("Transpose", 1, kNewestOpset,
               [](Importer &im) { return im.importTranspose(); });
  registry.add("Concat", 1, kNewestOpset,
               [](Importer &im) { return im.importConcat(); });
  registry.add("Split", 1, kNewestOpset,
               [](Importer &im) { return im.importSplit(); });
  registry.add("Slice", 1, kNewestOpset,
               [](Importer &im) { return im.importSlice(); });
  registry.add("Gather", 1, kNewestOpset,
               [](Importer &im) { return im.importGather(); });
  registry.add("Pad", 1, kNewestOpset,
               [](Importer &im) { return im.importPad(); });
  registry.add("Tile", 6, kNewestOpset,
               [](Importer &im) { return im.importTile(); });
  registry.add("CumSum", 11, kNewestOpset,
               [](Importer &im) { return im.importCumSum(); });
  registry.add("GatherElements", 11, kNewestOpset,
               [](Importer &im) { return im.importGatherElements(); });
  registry.add("Shape", 1, kNewestOpset,
               [](Importer &im) { return im.importShape(); });
  registry.add("Constant", 1, kNewestOpset,
               [](Importer &im) { return im.importConstant(); });
}
