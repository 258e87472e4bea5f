#!/usr/bin/env python3
"""Writes a ShuffleNet-style channel shuffle CNN as PyTorch exports it.

  channel_shuffle.py OUT_DIR

writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/{input_0,output_0}.pb
(the layout scripts/run-onnx-model.py reads). The model is

  x (2x4x10x10) -> Conv 3x3 (8 filters, pads 1) + bias -> Relu
    -> channel shuffle with 4 groups, the shape computed at run time on
       int64 tensors as torch.onnx writes `x.view(b, g, c // g, h, w)`:
         Shape -> Gather(0, 1, 2, 3) -> Div(C, 4) -> Unsqueeze -> Concat
         -> Reshape -> Transpose(0, 2, 1, 3, 4)
         -> Reshape(Concat(b, -1, h, w))
    -> grouped Conv 1x1 (2 groups, 6 filters) + bias -> y (2x6x10x10)

The grouped convolution after the shuffle reads channels of both groups of
the first convolution, so a wrong shuffle changes the result. The expected
output is an independent NumPy float64 evaluation of the same network
(direct convolution loops, the shuffle as a NumPy reshape/transpose), not
Crest's. Inputs and weights are deterministic and non-zero.

The protobuf messages are encoded by hand (onnx_writer.py).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_writer import (FLOAT, attribute_int, attribute_ints,  # noqa: E402
                         field_bytes, field_varint, node, tensor, value_info)

# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------

BATCH, CIN, H, W = 2, 4, 10, 10
C1, GROUPS, C2, CONV2_GROUPS = 8, 4, 6, 2


def weights():
    rng = np.random.default_rng(20261202)
    w1 = rng.uniform(-0.5, 0.5, (C1, CIN, 3, 3)).astype(np.float32)
    b1 = rng.uniform(-0.2, 0.2, C1).astype(np.float32)
    w2 = rng.uniform(-0.5, 0.5, (C2, C1 // CONV2_GROUPS, 1, 1)).astype(
        np.float32)
    b2 = rng.uniform(-0.2, 0.2, C2).astype(np.float32)
    x = rng.uniform(-1.0, 1.0, (BATCH, CIN, H, W)).astype(np.float32)
    return x, w1, b1, w2, b2


def model_bytes(w1, b1, w2, b2):
    scalar = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], "/conv1/Conv",
             [attribute_ints("kernel_shape", [3, 3]),
              attribute_ints("pads", [1, 1, 1, 1])]),
        node("Relu", ["c1"], ["r1"], "/relu/Relu"),
        # batchsize, num_channels, height, width = x.size()
        node("Shape", ["r1"], ["shape"], "/Shape"),
        node("Gather", ["shape", "i0"], ["b"], "/Gather",
             [attribute_int("axis", 0)]),
        node("Gather", ["shape", "i1"], ["c"], "/Gather_1",
             [attribute_int("axis", 0)]),
        node("Gather", ["shape", "i2"], ["h"], "/Gather_2",
             [attribute_int("axis", 0)]),
        node("Gather", ["shape", "i3"], ["w"], "/Gather_3",
             [attribute_int("axis", 0)]),
        # channels_per_group = num_channels // groups (int64 Div)
        node("Div", ["c", "groups"], ["cpg"], "/Div"),
        node("Unsqueeze", ["b", "axes0"], ["ub"], "/Unsqueeze"),
        node("Unsqueeze", ["cpg", "axes0"], ["ucpg"], "/Unsqueeze_1"),
        node("Unsqueeze", ["h", "axes0"], ["uh"], "/Unsqueeze_2"),
        node("Unsqueeze", ["w", "axes0"], ["uw"], "/Unsqueeze_3"),
        node("Concat", ["ub", "groups1", "ucpg", "uh", "uw"], ["shape5"],
             "/Concat", [attribute_int("axis", 0)]),
        node("Reshape", ["r1", "shape5"], ["v5"], "/Reshape"),
        node("Transpose", ["v5"], ["t5"], "/Transpose",
             [attribute_ints("perm", [0, 2, 1, 3, 4])]),
        node("Concat", ["ub", "minus1", "uh", "uw"], ["shape4"], "/Concat_1",
             [attribute_int("axis", 0)]),
        node("Reshape", ["t5", "shape4"], ["shuffled"], "/Reshape_1"),
        node("Conv", ["shuffled", "w2", "b2"], ["y"], "/conv2/Conv",
             [attribute_ints("kernel_shape", [1, 1]),
              attribute_int("group", CONV2_GROUPS)]),
    ]
    initializers = [
        tensor("w1", w1), tensor("b1", b1), tensor("w2", w2),
        tensor("b2", b2),
        tensor("i0", scalar(0)), tensor("i1", scalar(1)),
        tensor("i2", scalar(2)), tensor("i3", scalar(3)),
        tensor("groups", scalar(GROUPS)),
        tensor("groups1", np.array([GROUPS], dtype=np.int64)),
        tensor("minus1", np.array([-1], dtype=np.int64)),
        tensor("axes0", np.array([0], dtype=np.int64)),
    ]
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "channel_shuffle")
    graph += b"".join(field_bytes(5, t) for t in initializers)
    graph += field_bytes(11, value_info("x", FLOAT, [BATCH, CIN, H, W]))
    graph += field_bytes(12, value_info("y", FLOAT, [BATCH, C2, H, W]))
    opset = field_bytes(1, "") + field_varint(2, 17)
    return (field_varint(1, 8) + field_bytes(2, "channel_shuffle.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


# --------------------------------------------------------------------------
# The independent reference
# --------------------------------------------------------------------------


def conv2d(x, w, b, pad, groups):
    """Direct convolution in float64: stride 1, symmetric padding."""
    n, c, h, width = x.shape
    f, cg, kh, kw = w.shape
    fg = f // groups
    xp = np.zeros((n, c, h + 2 * pad, width + 2 * pad))
    xp[:, :, pad:pad + h, pad:pad + width] = x
    oh, ow = h + 2 * pad - kh + 1, width + 2 * pad - kw + 1
    y = np.zeros((n, f, oh, ow))
    for o in range(f):
        g = o // fg
        for ci in range(cg):
            for i in range(kh):
                for j in range(kw):
                    y[:, o] += w[o, ci, i, j] * xp[:, g * cg + ci,
                                                   i:i + oh, j:j + ow]
        y[:, o] += b[o]
    return y


def reference(x, w1, b1, w2, b2):
    r1 = np.maximum(conv2d(x.astype(np.float64), w1.astype(np.float64),
                           b1.astype(np.float64), 1, 1), 0)
    n, c, h, w = r1.shape
    # Channel k of the result is channel (k % GROUPS) * (c // GROUPS) +
    # k // GROUPS of the input.
    shuffled = r1.reshape(n, GROUPS, c // GROUPS, h, w).transpose(
        0, 2, 1, 3, 4).reshape(n, c, h, w)
    return conv2d(shuffled, w2.astype(np.float64), b2.astype(np.float64), 0,
                  CONV2_GROUPS)


def main():
    out = sys.argv[1]
    x, w1, b1, w2, b2 = weights()
    y = reference(x, w1, b1, w2, b2)
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model_bytes(w1, b1, w2, b2))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(tensor("x", x))
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(tensor("y", y.astype(np.float32)))
    # The shuffle is not the identity on this data: without it the result
    # differs by far more than the tolerances.
    unshuffled = conv2d(np.maximum(conv2d(x, w1, b1, 1, 1), 0), w2, b2, 0,
                        CONV2_GROUPS)
    print("max |y| %.3g, max |y - y_without_shuffle| %.3g" %
          (np.max(np.abs(y)), np.max(np.abs(y - unshuffled))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
