#!/usr/bin/env python3
"""Writes a small detection / segmentation head: an FPN-style top-down path
with a transposed convolution and both Resize modes, concatenated with the
input and classified per pixel.

  detector_head.py OUT_DIR

writes OUT_DIR/model.onnx and OUT_DIR/test_data_set_0/{input_0,output_0}.pb
(the layout scripts/run-onnx-model.py reads). Opset 13:

  x (2x8x8x8) -> Conv 3x3 stride 2 pads 1 (16) + bias -> Relu -> c (2x16x4x4)
  c -> ConvTranspose 3x3 stride 2 pads 1 output_padding 1 group 2 (8)
       + bias                                            -> u (2x8x8x8)
  c -> Resize nearest x2 (asymmetric, floor)             -> n (2x16x8x8)
  c -> Resize linear to 8x8 (half_pixel)                 -> l (2x16x8x8)
  Concat(x, u, n, l) on the channels                     -> (2x48x8x8)
  -> Conv 1x1 (6: 2 classes and 4 box offsets) + bias    -> y (2x6x8x8)

The expected output is an independent NumPy float64 evaluation: direct
convolution loops, the transposed convolution by its definition (each input
element scatters W times it into the output at i * stride - pad + k *
dilation; output_padding extends the end), and the two resizes by their
coordinate formulas; not Crest's lowering (which rewrites ConvTranspose as
a convolution of the zero-interleaved input with the flipped kernel).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_writer import (FLOAT, INT64, attribute_int,  # noqa: E402
                         attribute_ints, attribute_string, field_bytes,
                         field_varint, node, tensor, value_info,
                         write_test_case)

N, C, H = 2, 8, 8
C1, GROUPS, CT, OUT = 16, 2, 8, 6


def weights():
    rng = np.random.default_rng(20261203)
    u = lambda lo, hi, shape: rng.uniform(lo, hi, shape).astype(np.float32)  # noqa: E731
    return {
        "x": u(-1.0, 1.0, (N, C, H, H)),
        "w1": u(-0.3, 0.3, (C1, C, 3, 3)), "b1": u(-0.2, 0.2, C1),
        # ConvTranspose weights: C x M/group x kH x kW.
        "wt": u(-0.4, 0.4, (C1, CT // GROUPS, 3, 3)), "bt": u(-0.2, 0.2, CT),
        "wh": u(-0.3, 0.3, (OUT, C + CT + 2 * C1, 1, 1)),
        "bh": u(-0.1, 0.1, OUT),
    }


def model_bytes(p):
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c0"], "/down/Conv",
             [attribute_ints("kernel_shape", [3, 3]),
              attribute_ints("strides", [2, 2]),
              attribute_ints("pads", [1, 1, 1, 1])]),
        node("Relu", ["c0"], ["c"], "/down/Relu"),
        node("ConvTranspose", ["c", "wt", "bt"], ["u"], "/up/ConvTranspose",
             [attribute_ints("kernel_shape", [3, 3]),
              attribute_ints("strides", [2, 2]),
              attribute_ints("pads", [1, 1, 1, 1]),
              attribute_ints("output_padding", [1, 1]),
              attribute_int("group", GROUPS)]),
        node("Resize", ["c", "", "scales"], ["n"], "/nearest/Resize",
             [attribute_string("mode", "nearest"),
              attribute_string("coordinate_transformation_mode", "asymmetric"),
              attribute_string("nearest_mode", "floor")]),
        node("Resize", ["c", "", "", "sizes"], ["l"], "/linear/Resize",
             [attribute_string("mode", "linear"),
              attribute_string("coordinate_transformation_mode",
                               "half_pixel")]),
        node("Concat", ["x", "u", "n", "l"], ["cat"], "/Concat",
             [attribute_int("axis", 1)]),
        node("Conv", ["cat", "wh", "bh"], ["y"], "/head/Conv",
             [attribute_ints("kernel_shape", [1, 1])]),
    ]
    initializers = [tensor(k, v) for k, v in p.items() if k != "x"]
    initializers.append(tensor("scales", np.array([1, 1, 2, 2], np.float32)))
    initializers.append(tensor("sizes", np.array([N, C1, H, H], np.int64)))
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "detector_head")
    graph += b"".join(field_bytes(5, t) for t in initializers)
    graph += field_bytes(11, value_info("x", FLOAT, [N, C, H, H]))
    graph += field_bytes(12, value_info("y", FLOAT, [N, OUT, H, H]))
    opset = field_bytes(1, "") + field_varint(2, 13)
    assert INT64  # sizes are int64 (tensor() picks the type from NumPy)
    return (field_varint(1, 8) + field_bytes(2, "detector_head.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


# --------------------------------------------------------------------------
# The independent reference (float64)
# --------------------------------------------------------------------------

def conv2d(x, w, b, stride=1, pad=0):
    n, c, h, wd = x.shape
    f, _, k, _ = w.shape
    xp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad))
    xp[:, :, pad:pad + h, pad:pad + wd] = x
    oh = (h + 2 * pad - k) // stride + 1
    ow = (wd + 2 * pad - k) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(k):
        for j in range(k):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return y + b[None, :, None, None]


def conv_transpose2d(x, w, b, stride, pad, output_padding, groups,
                     flip=True):
    """The definition: x[n, g Cg + c, i, j] adds W[g Cg + c, m, kh, kw] x to
    y[n, g Mg + m, i s - pad + kh, j s - pad + kw]. (flip=False applies
    the kernel mirrored: what a lowering that forgot to flip would do.)"""
    n, c, h, wd = x.shape
    _, mg, k, _ = w.shape
    cg = c // groups
    full = (h - 1) * stride + k + output_padding
    y = np.zeros((n, mg * groups, full, full))
    if not flip:
        w = w[:, :, ::-1, ::-1]
    for g in range(groups):
        for ci in range(cg):
            for m in range(mg):
                for kh in range(k):
                    for kw in range(k):
                        y[:, g * mg + m, kh:kh + stride * h:stride,
                          kw:kw + stride * wd:stride] += (
                              w[g * cg + ci, m, kh, kw] * x[:, g * cg + ci])
    out = full - 2 * pad
    return y[:, :, pad:pad + out, pad:pad + out] + b[None, :, None, None]


def resize_nearest_floor(x, scale):
    idx = np.floor(np.arange(x.shape[2] * scale) / scale).astype(int)
    return x[:, :, idx][:, :, :, idx]


def resize_linear_half_pixel(x, size):
    n = x.shape[2]
    src = np.clip((np.arange(size) + 0.5) * n / size - 0.5, 0, n - 1)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    t = src - lo
    rows = x[:, :, lo] * (1 - t)[None, None, :, None] + \
        x[:, :, hi] * t[None, None, :, None]
    return rows[:, :, :, lo] * (1 - t) + rows[:, :, :, hi] * t


def reference(p, flip=True):
    q = {k: v.astype(np.float64) for k, v in p.items()}
    c = np.maximum(conv2d(q["x"], q["w1"], q["b1"], stride=2, pad=1), 0)
    u = conv_transpose2d(c, q["wt"], q["bt"], 2, 1, 1, GROUPS, flip)
    nearest = resize_nearest_floor(c, 2)
    linear = resize_linear_half_pixel(c, H)
    cat = np.concatenate([q["x"], u, nearest, linear], axis=1)
    return conv2d(cat, q["wh"], q["bh"])


def main():
    out = sys.argv[1]
    p = weights()
    y = reference(p)
    assert y.shape == (N, OUT, H, H)
    write_test_case(out, model_bytes(p), [("x", p["x"])],
                    [("y", y.astype(np.float32))])
    # The kernel flip matters: unflipped, the output moves by far more than
    # the tolerances.
    print("max |y| %.3g, max |y - y_unflipped| %.3g" %
          (np.max(np.abs(y)), np.max(np.abs(y - reference(p, flip=False)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
