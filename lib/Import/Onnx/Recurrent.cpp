//===- Recurrent.cpp - ONNX RNN, GRU and LSTM converters ------------------===//
//
// The recurrent cells unrolled over their static sequence: per direction one
// crest.matmul of the whole input with W (every time step's input gates at
// once, on the matrix cores), then per step a crest.matmul of the hidden
// state with R and the gate arithmetic as elementwise crest ops (which the
// pipeline fuses). Everything computes in f32; the outputs take X's type.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "Registry.h"

using namespace crest;
using namespace crest::onnx_import;

namespace {

/// The f32 ops one recurrent node's cells are built from.
struct Cells {
  Importer &im;
  int64_t hidden;
  Type f32;

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, f32);
  }
  /// Rows `[offset, offset + size)` of dimension `dim` of `v`.
  Value slice(Value v, int64_t dim, int64_t offset, int64_t size) {
    RankedTensorType t = Importer::tensorType(v);
    SmallVector<int64_t> shape(t.getShape()), offsets(t.getRank(), 0);
    if (offset == 0 && shape[dim] == size)
      return v;
    shape[dim] = size;
    offsets[dim] = offset;
    return SliceOp::create(im.builder, im.loc,
                           RankedTensorType::get(shape, t.getElementType()), v,
                           im.builder.getDenseI64ArrayAttr(offsets),
                           DenseI64ArrayAttr());
  }
  /// Gate `g` (of width `hidden`) of a [batch, gates * hidden] tensor.
  Value gate(Value v, int64_t g) { return slice(v, 1, g * hidden, hidden); }
  /// lhs [rows, k] times rhs^T (rhs [n, k]), in f32.
  Value matmulT(Value lhs, Value rhs) {
    int64_t rows = Importer::tensorType(lhs).getDimSize(0);
    int64_t n = Importer::tensorType(rhs).getDimSize(0);
    return MatmulOp::create(im.builder, im.loc, type({rows, n}),
                            im.convert(lhs, im.matrixType()),
                            im.convert(rhs, im.matrixType()), false, true,
                            im.matrixPrecision(), SyncAttr(), ConfigAttr());
  }
  Value add(Value a, Value b) { return *im.binary<AddOp>(a, b); }
  Value sub(Value a, Value b) { return *im.binary<SubOp>(a, b); }
  Value mul(Value a, Value b) { return *im.binary<MulOp>(a, b); }
};

/// One of the activations ONNX's recurrent ops name, with the clip applied
/// to its input.
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

} // namespace

/// RNN (1 gate), GRU (3: z, r, h) and LSTM (4: i, o, f, c).
LogicalResult Importer::importRecurrent(unsigned gates) {
  bool isLstm = gates == 4, isGru = gates == 3;
  SmallVector<StringRef> supported = {"activation_alpha", "activation_beta",
                                      "activations",      "clip",
                                      "direction",        "hidden_size",
                                      "layout"};
  if (isLstm)
    supported.push_back("input_forget");
  if (isGru)
    supported.push_back("linear_before_reset");
  if (failed(expectInputs(3, isLstm ? 8 : 6)) ||
      failed(checkAttributes(supported)))
    return failure();
  Value x = input(0), w = input(1), r = input(2), b = input(3),
        lens = input(4), h0 = input(5);
  Value c0 = isLstm ? input(6) : Value(), peep = isLstm ? input(7) : Value();
  if (failed(expectFloat(x, "X")) || failed(expectFloat(w, "W")) ||
      failed(expectFloat(r, "R")))
    return failure();
  int64_t layout = intAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return error() << "layout = " << layout << " is not 0 or 1";
  RankedTensorType xt = tensorType(x);
  if (xt.getRank() != 3)
    return error() << "X must have rank 3, got " << formatShape(xt.getShape());
  Type f32 = builder.getF32Type();
  Value xs = convert(x, f32);
  if (layout == 1)
    xs = transpose(xs, {1, 0, 2}); // [batch, seq, input] -> [seq, batch, ..]
  int64_t seq = tensorType(xs).getDimSize(0);
  int64_t batch = tensorType(xs).getDimSize(1);
  int64_t inputSize = tensorType(xs).getDimSize(2);
  std::string direction = stringAttr("direction", "forward");
  if (!llvm::is_contained({"forward", "reverse", "bidirectional"}, direction))
    return error() << "direction = '" << direction
                   << "' is not forward, reverse or bidirectional";
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  int64_t hidden = intAttr("hidden_size", tensorType(r).getRank() == 3
                                              ? tensorType(r).getDimSize(2)
                                              : 0);
  auto expectShape = [&](Value v, StringRef name,
                         ArrayRef<int64_t> shape) -> LogicalResult {
    if (!v || tensorType(v).getShape() == shape)
      return success();
    return error() << name << " has shape "
                   << formatShape(tensorType(v).getShape()) << ", expected "
                   << formatShape(shape);
  };
  int64_t g = gates;
  SmallVector<int64_t> stateShape = layout == 0
                                        ? SmallVector<int64_t>{dirs, batch, hidden}
                                        : SmallVector<int64_t>{batch, dirs, hidden};
  if (hidden < 1 || failed(expectShape(w, "W", {dirs, g * hidden, inputSize})) ||
      failed(expectShape(r, "R", {dirs, g * hidden, hidden})) ||
      failed(expectShape(b, "B", {dirs, 2 * g * hidden})) ||
      failed(expectShape(h0, "initial_h", stateShape)) ||
      failed(expectShape(c0, "initial_c", stateShape)) ||
      failed(expectShape(peep, "P", {dirs, 3 * hidden})))
    return hidden < 1 ? error() << "hidden_size must be positive" : failure();
  if (lens) {
    DenseElementsAttr attr = getConstant(lens);
    if (!attr)
      return error() << "sequence_lens must be a constant (Crest unrolls "
                        "the static sequence)";
    for (APInt v : attr.getValues<APInt>())
      if (v.getSExtValue() != seq)
        return error() << "sequence_lens " << v.getSExtValue()
                       << " differs from the sequence length " << seq
                       << "; only full-length sequences are supported";
  }
  if (isLstm && intAttr("input_forget", 0))
    return error() << "input_forget = 1 is not supported";
  bool linearBeforeReset = isGru && intAttr("linear_before_reset", 0);

  // The activations: f (gates), g (candidate), h (LSTM's output), per
  // direction; alpha and beta for the ones that take them.
  unsigned perDir = isLstm ? 3 : isGru ? 2 : 1;
  SmallVector<Activation> acts;
  SmallVector<std::string> defaults =
      isLstm ? SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : isGru ? SmallVector<std::string>{"Sigmoid", "Tanh"}
              : SmallVector<std::string>{"Tanh"};
  if (const onnx::AttributeProto *a =
          attribute("activations", onnx::AttributeProto::STRINGS)) {
    for (const std::string &name : a->strings())
      acts.push_back({name});
  } else {
    for (int64_t d = 0; d < dirs; ++d)
      for (const std::string &name : defaults)
        acts.push_back({name});
  }
  if (int64_t(acts.size()) != perDir * dirs)
    return error() << "activations has " << acts.size() << " entries, "
                   << perDir * dirs << " expected (" << perDir
                   << " per direction)";
  if (const onnx::AttributeProto *a =
          attribute("activation_alpha", onnx::AttributeProto::FLOATS))
    for (auto [i, v] : llvm::enumerate(a->floats()))
      if (i < acts.size())
        acts[i].alpha = v;
  if (const onnx::AttributeProto *a =
          attribute("activation_beta", onnx::AttributeProto::FLOATS))
    for (auto [i, v] : llvm::enumerate(a->floats()))
      if (i < acts.size())
        acts[i].beta = v;
  for (Activation &a : acts)
    if (!llvm::is_contained({"Sigmoid", "Tanh", "Relu", "HardSigmoid",
                             "LeakyRelu"},
                            a.name))
      return error() << "activation '" << a.name
                     << "' is not supported (supported: Sigmoid, Tanh, Relu, "
                        "HardSigmoid, LeakyRelu)";
  const onnx::AttributeProto *clipAttr =
      attribute("clip", onnx::AttributeProto::FLOAT);
  std::optional<float> clip;
  if (clipAttr) {
    clip = clipAttr->f();
    if (!(*clip > 0))
      return error() << "clip = " << *clip << " must be positive";
  }

  Cells cells{*this, hidden, f32};
  // `clip` bounds the gates' pre-activations; LSTM's cell state goes into
  // h unclipped (onnxruntime's behaviour, measured: clipping it too moves
  // Y by 5 % on test/Models/recurrent.py).
  auto activate = [&](const Activation &a, Value v,
                      bool clipped = true) -> Value {
    RankedTensorType t = tensorType(v);
    if (clip && clipped)
      v = ClipOp::create(builder, loc, t, v, builder.getF32FloatAttr(-*clip),
                         builder.getF32FloatAttr(*clip));
    if (a.name == "Sigmoid")
      return SigmoidOp::create(builder, loc, t, v);
    if (a.name == "Tanh")
      return TanhOp::create(builder, loc, t, v);
    if (a.name == "Relu")
      return ReluOp::create(builder, loc, t, v);
    if (a.name == "HardSigmoid")
      return HardSigmoidOp::create(builder, loc, t, v,
                                   builder.getF32FloatAttr(a.alpha),
                                   builder.getF32FloatAttr(a.beta));
    return LeakyReluOp::create(builder, loc, t, v,
                               builder.getF32FloatAttr(a.alpha));
  };
  auto state = [&](Value v, int64_t d) -> Value {
    if (!v)
      return Value();
    Value s = convert(v, f32);
    if (layout == 1)
      s = transpose(s, {1, 0, 2});
    return reshape(cells.slice(s, 0, d, 1), {batch, hidden});
  };
  auto row = [&](Value v, int64_t d, int64_t offset, int64_t size) {
    // Entries [offset, offset + size) of row d of a [dirs, n] tensor.
    return reshape(cells.slice(cells.slice(convert(v, f32), 0, d, 1), 1,
                               offset, size),
                   {size});
  };

  SmallVector<SmallVector<Value>> outputs(seq); // per step, per direction
  SmallVector<Value> lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    ArrayRef<Activation> act = ArrayRef<Activation>(acts).slice(d * perDir,
                                                                perDir);
    Value wd = reshape(cells.slice(w, 0, d, 1), {g * hidden, inputSize});
    Value rd = reshape(cells.slice(r, 0, d, 1), {g * hidden, hidden});
    // Every step's input contribution in one GEMM, plus Wb (and Rb, except
    // GRU's candidate gate, whose Rb is applied with the reset gate).
    Value xw = cells.matmulT(reshape(xs, {seq * batch, inputSize}), wd);
    Value rb;
    if (b) {
      xw = cells.add(xw, row(b, d, 0, g * hidden));
      rb = row(b, d, g * hidden, g * hidden);
      if (!isGru) {
        xw = cells.add(xw, rb);
        rb = Value();
      }
    }
    xw = reshape(xw, {seq, batch, g * hidden});
    Value h = state(h0, d), c = state(c0, d);
    Value pi, po, pf;
    if (peep) {
      pi = row(peep, d, 0, hidden);
      po = row(peep, d, hidden, hidden);
      pf = row(peep, d, 2 * hidden, hidden);
    }
    Value zeros = materialize(DenseElementsAttr::get(
        cells.type({batch, hidden}), builder.getF32FloatAttr(0)));
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      Value xt = reshape(cells.slice(xw, 0, t, 1), {batch, g * hidden});
      // H R^T, skipped while H is the zero initial state.
      Value hr = h ? cells.matmulT(h, rd) : Value();
      auto plus = [&](Value a, Value bv) { return bv ? cells.add(a, bv) : a; };
      if (isLstm) {
        Value pre = plus(xt, hr);
        Value cPrev = c ? c : zeros;
        Value i = cells.gate(pre, 0), o = cells.gate(pre, 1),
              f = cells.gate(pre, 2), cand = cells.gate(pre, 3);
        if (pi)
          i = cells.add(i, cells.mul(pi, cPrev));
        if (pf)
          f = cells.add(f, cells.mul(pf, cPrev));
        i = activate(act[0], i);
        f = activate(act[0], f);
        cand = activate(act[1], cand);
        c = cells.add(cells.mul(f, cPrev), cells.mul(i, cand));
        if (po)
          o = cells.add(o, cells.mul(po, c));
        o = activate(act[0], o);
        h = cells.mul(o, activate(act[2], c, /*clipped=*/false));
      } else if (isGru) {
        Value hPrev = h ? h : zeros;
        Value rz = cells.slice(xt, 1, 0, 2 * hidden);
        if (hr)
          rz = cells.add(rz, cells.slice(hr, 1, 0, 2 * hidden));
        if (rb)
          rz = cells.add(rz, cells.slice(rb, 0, 0, 2 * hidden));
        Value z = activate(act[0], cells.gate(rz, 0));
        Value rg = activate(act[0], cells.gate(rz, 1));
        Value rbh = rb ? cells.slice(rb, 0, 2 * hidden, hidden) : Value();
        Value hh;
        if (linearBeforeReset) {
          // r (H Rh^T + Rbh)
          Value lin = hr ? plus(cells.gate(hr, 2), rbh) : rbh;
          hh = lin ? cells.mul(rg, lin) : Value();
        } else if (h) {
          // (r H) Rh^T + Rbh
          Value rh = cells.slice(rd, 0, 2 * hidden, hidden);
          hh = plus(cells.matmulT(cells.mul(rg, h), rh), rbh);
        } else {
          hh = rbh;
        }
        Value cand = activate(act[1], plus(cells.gate(xt, 2), hh));
        // H' = (1 - z) cand + z H = cand - z (cand - H)
        h = cells.sub(cand, cells.mul(z, cells.sub(cand, hPrev)));
      } else {
        h = activate(act[0], plus(xt, hr));
      }
      outputs[t].push_back(reshape(h, {1, 1, batch, hidden}));
    }
    lastH.push_back(reshape(h, {1, batch, hidden}));
    if (isLstm)
      lastC.push_back(reshape(c, {1, batch, hidden}));
  }
  Type element = xt.getElementType();
  auto concat = [&](ArrayRef<Value> parts, int64_t axis) -> Value {
    if (parts.size() == 1)
      return parts.front();
    SmallVector<int64_t> shape(tensorType(parts.front()).getShape());
    shape[axis] = 0;
    for (Value p : parts)
      shape[axis] += tensorType(p).getDimSize(axis);
    return ConcatOp::create(builder, loc, cells.type(shape), parts,
                            builder.getI64IntegerAttr(axis));
  };
  auto finish = [&](Value v, ArrayRef<int64_t> perm) {
    if (layout == 1)
      v = transpose(v, perm);
    return convert(v, element);
  };
  const onnx::NodeProto &n = *node;
  auto wanted = [&](int i) { return i < n.output_size() && !n.output(i).empty(); };
  if (wanted(0)) {
    SmallVector<Value> steps;
    for (SmallVector<Value> &perStep : outputs)
      steps.push_back(concat(perStep, 1));
    // [seq, dirs, batch, hidden]; layout 1: [batch, seq, dirs, hidden].
    if (failed(setOutput(0, finish(concat(steps, 0), {2, 0, 1, 3}))))
      return failure();
  }
  if (wanted(1) && failed(setOutput(1, finish(concat(lastH, 0), {1, 0, 2}))))
    return failure();
  if (isLstm && wanted(2) &&
      failed(setOutput(2, finish(concat(lastC, 0), {1, 0, 2}))))
    return failure();
  return success();
}

void crest::onnx_import::registerRecurrentConverters(
    OnnxConverterRegistry &registry) {
  registry.add("RNN", 1, kNewestOpset,
               [](Importer &im) { return im.importRecurrent(1); });
  registry.add("GRU", 1, kNewestOpset,
               [](Importer &im) { return im.importRecurrent(3); });
  registry.add("LSTM", 1, kNewestOpset,
               [](Importer &im) { return im.importRecurrent(4); });
}
