#!/usr/bin/env python3
"""Writes a small 1-D convolutional keyword-spotting network.

  keyword_spotting.py OUT_DIR

writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/{input_0,output_0}.pb
(the layout scripts/run-onnx-model.py reads). The model, in the shape of
the depthwise-separable 1-D CNNs of keyword spotting (TC-ResNet, DS-CNN),
reads 10 MFCC coefficients over 49 frames:

  x (2x10x49) -> Conv1d k5 stride 2 pads 2 (16 filters) + bias -> Relu
    -> MaxPool1d k3 stride 2 pads 1                     (2x16x13)
    -> depthwise Conv1d k3 dilation 2 pads 2 + bias -> Relu
    -> pointwise Conv1d k1 (8 filters) + bias -> Relu    (2x8x13)
    -> GlobalAveragePool -> Flatten -> Gemm (4 keywords) -> y (2x4)

The expected output is an independent NumPy float64 evaluation (direct
convolution and pooling loops), not Crest's. Inputs and weights are
deterministic and non-zero. The protobuf messages are encoded by hand
(onnx_writer.py).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_writer import (FLOAT, attribute_int, attribute_ints,  # noqa: E402
                         field_bytes, field_varint, node, tensor, value_info,
                         write_test_case)

BATCH, MFCC, FRAMES = 2, 10, 49
C1, C2, KEYWORDS = 16, 8, 4


def weights():
    rng = np.random.default_rng(20261203)
    u = lambda lo, hi, shape: rng.uniform(lo, hi, shape).astype(np.float32)  # noqa: E731
    return {
        "x": u(-1.0, 1.0, (BATCH, MFCC, FRAMES)),
        "w1": u(-0.4, 0.4, (C1, MFCC, 5)), "b1": u(-0.2, 0.2, C1),
        "wd": u(-0.6, 0.6, (C1, 1, 3)), "bd": u(-0.2, 0.2, C1),
        "wp": u(-0.5, 0.5, (C2, C1, 1)), "bp": u(-0.2, 0.2, C2),
        "wf": u(-0.8, 0.8, (KEYWORDS, C2)), "bf": u(-0.1, 0.1, KEYWORDS),
    }


def model_bytes(p):
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], "/conv1/Conv",
             [attribute_ints("kernel_shape", [5]),
              attribute_ints("strides", [2]), attribute_ints("pads", [2, 2])]),
        node("Relu", ["c1"], ["r1"], "/relu1/Relu"),
        node("MaxPool", ["r1"], ["m1"], "/pool/MaxPool",
             [attribute_ints("kernel_shape", [3]),
              attribute_ints("strides", [2]), attribute_ints("pads", [1, 1])]),
        node("Conv", ["m1", "wd", "bd"], ["c2"], "/dw/Conv",
             [attribute_ints("kernel_shape", [3]),
              attribute_ints("dilations", [2]), attribute_ints("pads", [2, 2]),
              attribute_int("group", C1)]),
        node("Relu", ["c2"], ["r2"], "/relu2/Relu"),
        node("Conv", ["r2", "wp", "bp"], ["c3"], "/pw/Conv",
             [attribute_ints("kernel_shape", [1])]),
        node("Relu", ["c3"], ["r3"], "/relu3/Relu"),
        node("GlobalAveragePool", ["r3"], ["g"], "/gap/GlobalAveragePool"),
        node("Flatten", ["g"], ["f"], "/Flatten"),
        node("Gemm", ["f", "wf", "bf"], ["y"], "/fc/Gemm",
             [attribute_int("transB", 1)]),
    ]
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "keyword_spotting")
    graph += b"".join(field_bytes(5, tensor(k, v)) for k, v in p.items()
                      if k != "x")
    graph += field_bytes(11, value_info("x", FLOAT, [BATCH, MFCC, FRAMES]))
    graph += field_bytes(12, value_info("y", FLOAT, [BATCH, KEYWORDS]))
    opset = field_bytes(1, "") + field_varint(2, 17)
    return (field_varint(1, 8) + field_bytes(2, "keyword_spotting.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


# --------------------------------------------------------------------------
# The independent reference (float64 loops)
# --------------------------------------------------------------------------

def conv1d(x, w, b, stride=1, pad=0, dilation=1, groups=1):
    n, c, length = x.shape
    f, cg, k = w.shape
    fg = f // groups
    xp = np.zeros((n, c, length + 2 * pad))
    xp[:, :, pad:pad + length] = x
    out = (length + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    y = np.zeros((n, f, out))
    for o in range(f):
        g = o // fg
        for ci in range(cg):
            for j in range(k):
                taps = xp[:, g * cg + ci, j * dilation:][:, ::stride][:, :out]
                y[:, o] += w[o, ci, j] * taps
        y[:, o] += b[o]
    return y


def maxpool1d(x, k, stride, pad):
    n, c, length = x.shape
    out = (length + 2 * pad - k) // stride + 1
    y = np.full((n, c, out), -np.inf)
    for o in range(out):
        for j in range(k):
            i = o * stride - pad + j
            if 0 <= i < length:
                y[:, :, o] = np.maximum(y[:, :, o], x[:, :, i])
    return y


def reference(p, dilation=2):
    q = {k: v.astype(np.float64) for k, v in p.items()}
    r1 = np.maximum(conv1d(q["x"], q["w1"], q["b1"], stride=2, pad=2), 0)
    m1 = maxpool1d(r1, 3, 2, 1)
    r2 = np.maximum(conv1d(m1, q["wd"], q["bd"], pad=dilation,
                           dilation=dilation, groups=C1), 0)
    r3 = np.maximum(conv1d(r2, q["wp"], q["bp"]), 0)
    return r3.mean(axis=2) @ q["wf"].T + q["bf"]


def main():
    out = sys.argv[1]
    p = weights()
    y = reference(p)
    write_test_case(out, model_bytes(p), [("x", p["x"])],
                    [("y", y.astype(np.float32))])
    # The dilation matters: undilated, the output differs by far more than
    # the tolerances.
    print("max |y| %.3g, max |y - y_undilated| %.3g" %
          (np.max(np.abs(y)), np.max(np.abs(y - reference(p, dilation=1)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
