#!/usr/bin/env python3
"""Writes a model of every ONNX reduction Crest imports.

  reductions.py OUT_DIR {f32,f16}

writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/{input_N,output_N}.pb
(the layout scripts/run-onnx-model.py reads), with inputs and outputs of
the given element type. Opset 13: ReduceSum's axes are an input, the other
reductions' an attribute. Inputs:

  x (2x3x4x5): uniform in [-2, 2], no zeros;
  m (4x4): row 0 all -inf, row 1 holding +inf, row 2 finite, row 3 a NaN.

Outputs, several over dimensions that are not adjacent (the importer moves
them last with a transpose first):

  y0  ReduceSum(x, axes [0, 2], keepdims)        y6  ReduceMean(x, [0, 3])
  y1  ReduceMax(x, [1, 3])                       y7  ReduceLogSumExp(m, [1])
  y2  ReduceL2(x, [-1])                          y8  ReduceMax(m, [1], keepdims)
  y3  ReduceLogSumExp(30 x, [1, 2], keepdims)    y9  ReduceSumSquare(x, [1])
  y4  ReduceProd(x, [3])                         y10 ReduceL1(x, [2, 3])
  y5  ReduceMin(x) (every axis, keepdims)        y11 ReduceLogSum(x * x, [0])

The expected outputs are NumPy float64 evaluations on the inputs as
stored (rounded to the element type), not Crest's. y3's terms reach
e^60, beyond f16 and near f32's range: only a formula that subtracts the
maximum first stays finite. y7 must be [-inf, +inf, finite, NaN] (a fully
masked row gives -inf, not NaN) and y8 propagates the NaN.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_writer import (FLOAT, FLOAT16, attribute_int,  # noqa: E402
                         attribute_ints, field_bytes, field_varint, node,
                         tensor, value_info)


def inputs(dtype):
    rng = np.random.default_rng(20261203)
    x = rng.uniform(-2.0, 2.0, (2, 3, 4, 5))
    x[np.abs(x) < 0.05] = 0.5
    m = rng.uniform(-3.0, 3.0, (4, 4))
    m[0, :] = -np.inf
    m[1, 2] = np.inf
    m[3, 1] = np.nan
    return x.astype(dtype), m.astype(dtype)


# (output, op, input, axes or None (every axis), keepdims)
REDUCTIONS = [
    ("y0", "ReduceSum", "x", [0, 2], 1),
    ("y1", "ReduceMax", "x", [1, 3], 0),
    ("y2", "ReduceL2", "x", [-1], 0),
    ("y3", "ReduceLogSumExp", "x30", [1, 2], 1),
    ("y4", "ReduceProd", "x", [3], 0),
    ("y5", "ReduceMin", "x", None, 1),
    ("y6", "ReduceMean", "x", [0, 3], 0),
    ("y7", "ReduceLogSumExp", "m", [1], 0),
    ("y8", "ReduceMax", "m", [1], 1),
    ("y9", "ReduceSumSquare", "x", [1], 0),
    ("y10", "ReduceL1", "x", [2, 3], 0),
    ("y11", "ReduceLogSum", "xx", [0], 0),
]


def lse(v, axis, keepdims):
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return np.log(np.sum(np.exp(v), axis=axis, keepdims=keepdims))


def reference(x, m):
    x, m = x.astype(np.float64), m.astype(np.float64)
    values = {"x": x, "x30": 30 * x, "m": m, "xx": x * x}
    fns = {"ReduceSum": np.sum, "ReduceMax": np.max, "ReduceMin": np.min,
           "ReduceMean": np.mean, "ReduceProd": np.prod,
           "ReduceL2": lambda v, axis, keepdims: np.sqrt(
               np.sum(v * v, axis=axis, keepdims=keepdims)),
           "ReduceL1": lambda v, axis, keepdims: np.sum(
               np.abs(v), axis=axis, keepdims=keepdims),
           "ReduceSumSquare": lambda v, axis, keepdims: np.sum(
               v * v, axis=axis, keepdims=keepdims),
           "ReduceLogSum": lambda v, axis, keepdims: np.log(
               np.sum(v, axis=axis, keepdims=keepdims)),
           "ReduceLogSumExp": lse}
    out = {}
    for name, op, src, axes, keep in REDUCTIONS:
        axis = None if axes is None else tuple(axes)
        out[name] = fns[op](values[src], axis=axis, keepdims=bool(keep))
    # exp(60) in float64 is exact enough; the LSE of row 1 (+inf) is +inf,
    # of row 0 (-inf) -inf: np.log(0) = -inf.
    return out


def model_bytes(dtype, x, m, outputs):
    elem = FLOAT16 if dtype == np.float16 else FLOAT
    nodes = [
        node("Mul", ["x", "k30"], ["x30"], "/scale/Mul"),
        node("Mul", ["x", "x"], ["xx"], "/square/Mul"),
    ]
    initializers = [tensor("k30", np.array(30, dtype)),
                    tensor("sum_axes", np.array([0, 2], np.int64))]
    for name, op, src, axes, keep in REDUCTIONS:
        attrs = [attribute_int("keepdims", keep)]
        ins = [src]
        if op == "ReduceSum":
            ins.append("sum_axes")
        elif axes is not None:
            attrs.append(attribute_ints("axes", axes))
        nodes.append(node(op, ins, [name], "/%s/%s" % (name, op), attrs))
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "reductions")
    graph += b"".join(field_bytes(5, t) for t in initializers)
    graph += field_bytes(11, value_info("x", elem, x.shape))
    graph += field_bytes(11, value_info("m", elem, m.shape))
    for name, *_ in REDUCTIONS:
        graph += field_bytes(12, value_info(name, elem, outputs[name].shape))
    opset = field_bytes(1, "") + field_varint(2, 13)
    return (field_varint(1, 8) + field_bytes(2, "reductions.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


def main():
    out, precision = sys.argv[1], sys.argv[2]
    dtype = {"f32": np.float32, "f16": np.float16}[precision]
    x, m = inputs(dtype)
    y = reference(x, m)
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model_bytes(dtype, x, m, y))
    for i, (name, value) in enumerate((("x", x), ("m", m))):
        with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
            f.write(tensor(name, value))
    for i, (name, *_) in enumerate(REDUCTIONS):
        # Two digits: the runner takes the outputs in sorted file order.
        with open(os.path.join(data, "output_%02d.pb" % i), "wb") as f:
            f.write(tensor(name, y[name].astype(dtype)))
    print("y7 %s, y8 %s, max |y3| %.3g" % (
        np.array2string(y["y7"], precision=3),
        np.array2string(y["y8"].reshape(-1), precision=3),
        np.max(np.abs(y["y3"]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
