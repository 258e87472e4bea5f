#!/usr/bin/env python3
"""A two-layer ONNX MLP for the fp8 precision tests, and its expected values.

  fp8_mlp.py write OUT_DIR [--sets N] [--outlier]
  fp8_mlp.py check OUT_DIR y.npy --flavour fnuz|ocp [--margin 1]

`write` writes OUT_DIR/model.onnx

    x (8x64) -> Gemm (W1 64x32, b1) -> Relu -> Gemm (W2 32x16, b2) -> y

N calibration input sets OUT_DIR/calib/set_<i>/x.npy and a holdout input
OUT_DIR/holdout/input_0.pb, all drawn from the same distribution (uniform
in [-1, 1]; with --outlier, column 5 of x is scaled to amax 1e4 and row 5
of W1 by 1e-4, an outlier feature that contributes like the others; with
--overflow, x is scaled by 1e5, beyond f16's range). It
prints the fp8 scales Crest must choose, computed here from their
definition (docs/Precision.md): the largest power of two s with
amax * s <= fp8_max * 2^-margin, amax over the calibration sets for the
activations (x, and the hidden layer h = relu(x W1 + b1) evaluated in
float64), margin 0 for the weights (amax of their values).

`check` compares Crest's output for the holdout input with an independent
NumPy model of the quantised network: every quantisation rounds x * s to
E4M3 (FNUZ: bias 8, max 240; OCP: bias 7, max 448) to nearest even,
saturating, by the encoder below (not Crest's); products are exact,
sums in float64, then float32 as the device keeps them. It prints the
max-norm relative error against that model and against the float64
network.

The protobuf messages are encoded by hand (test/Models/onnx_writer.py).
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Models"))
from onnx_writer import (FLOAT, field_bytes, field_varint, node,  # noqa: E402
                         tensor, value_info)

# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------

M, K, H, N = 8, 64, 32, 16
OUTLIER_COLUMN = 5


def parameters(outlier=False):
    rng = np.random.default_rng(20261202)
    w1 = rng.uniform(-0.3, 0.3, (K, H)).astype(np.float32)
    # Columns of amax ~0.3, 0.15, 0.075, 0.0375: per-channel scales differ.
    w1 *= (2.0 ** -(np.arange(H) % 4)).astype(np.float32)
    b1 = rng.uniform(-0.1, 0.1, H).astype(np.float32)
    w2 = rng.uniform(-0.4, 0.4, (H, N)).astype(np.float32)
    b2 = rng.uniform(-0.1, 0.1, N).astype(np.float32)
    if outlier:
        # The outlier feature's weights are small, as in models with
        # outlier activations: it contributes like any other feature.
        w1[OUTLIER_COLUMN, :] *= 1e-4
    return w1, b1, w2, b2


def draw_input(seed, outlier, overflow=False):
    x = np.random.default_rng(seed).uniform(-1, 1, (M, K)).astype(np.float32)
    if outlier:
        x[:, OUTLIER_COLUMN] *= 1e4 / np.max(np.abs(x[:, OUTLIER_COLUMN]))
    if overflow:
        x *= np.float32(1e5)  # beyond f16's 65504
    return x


def model_bytes(w1, b1, w2, b2):
    nodes = [node("Gemm", ["x", "w1", "b1"], ["g1"], "/fc1/Gemm"),
             node("Relu", ["g1"], ["h"], "/relu/Relu"),
             node("Gemm", ["h", "w2", "b2"], ["y"], "/fc2/Gemm")]
    graph = b"".join(field_bytes(1, n) for n in nodes)
    graph += field_bytes(2, "fp8_mlp")
    graph += b"".join(field_bytes(5, tensor(name, value)) for name, value in
                      [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)])
    graph += field_bytes(11, value_info("x", FLOAT, [M, K]))
    graph += field_bytes(12, value_info("y", FLOAT, [M, N]))
    opset = field_bytes(1, "") + field_varint(2, 17)
    return (field_varint(1, 8) + field_bytes(2, "fp8_mlp.py")
            + field_bytes(7, graph) + field_bytes(8, opset))


def forward(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (np.asarray(a, np.float64) for a in (x, w1, b1, w2, b2))
    h = np.maximum(x @ w1 + b1, 0)
    return h, h @ w2 + b2


# --------------------------------------------------------------------------
# E4M3, written from the formats' definitions
# --------------------------------------------------------------------------

FLAVOURS = {"fnuz": (8, 240.0), "ocp": (7, 448.0)}  # bias, largest


def round_e4m3(v, flavour):
    """v rounded to nearest even E4M3 (3 mantissa bits), saturating."""
    bias, largest = FLAVOURS[flavour]
    v = np.asarray(v, np.float64)
    a = np.abs(v)
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, 1 - bias)  # subnormals share the smallest binade's step
    step = 2.0 ** (e - 3)
    q = np.round(a / step) * step  # np.round: ties to even
    return np.sign(v) * np.minimum(q, largest)


def scale_for(amax, limit):
    s = 2.0 ** np.floor(np.log2(limit / amax))
    while amax * s > limit:
        s /= 2
    return s


def scales(calibration, flavour, margin, w1, b1, w2, b2):
    largest = FLAVOURS[flavour][1]
    amax_x = max(np.max(np.abs(x)) for x in calibration)
    amax_h = max(np.max(np.abs(forward(x, w1, b1, w2, b2)[0]))
                 for x in calibration)
    act = largest * 2.0 ** -margin
    return {"x": (amax_x, scale_for(amax_x, act)),
            "w1": (np.max(np.abs(w1)), scale_for(np.max(np.abs(w1)), largest)),
            "h": (amax_h, scale_for(amax_h, act)),
            "w2": (np.max(np.abs(w2)), scale_for(np.max(np.abs(w2)), largest))}


def quantised_forward(x, params, s, flavour):
    w1, b1, w2, b2 = params
    q = lambda v, name: round_e4m3(np.asarray(v, np.float64) * s[name][1],  # noqa
                                   flavour)
    acc = q(x, "x") @ q(w1, "w1")
    g1 = np.float32(acc) / np.float32(s["x"][1] * s["w1"][1]) + b1
    h = np.maximum(g1.astype(np.float32), 0)
    acc = q(h, "h") @ q(w2, "w2")
    return (np.float32(acc) / np.float32(s["h"][1] * s["w2"][1])
            + b2).astype(np.float32)


def read_calibration(out):
    root = os.path.join(out, "calib")
    return [np.load(os.path.join(root, d, "x.npy"))
            for d in sorted(os.listdir(root))]


def log2(v):
    return int(np.log2(v))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["write", "check"])
    parser.add_argument("out")
    parser.add_argument("output", nargs="?")
    parser.add_argument("--sets", type=int, default=4)
    parser.add_argument("--outlier", action="store_true")
    parser.add_argument("--overflow", action="store_true")
    parser.add_argument("--flavour", default="fnuz", choices=FLAVOURS)
    parser.add_argument("--margin", type=float, default=1)
    args = parser.parse_args()
    params = parameters(args.outlier)
    if args.mode == "write":
        os.makedirs(os.path.join(args.out, "holdout"), exist_ok=True)
        with open(os.path.join(args.out, "model.onnx"), "wb") as f:
            f.write(model_bytes(*params))
        for i in range(args.sets):
            d = os.path.join(args.out, "calib", "set_%d" % i)
            os.makedirs(d, exist_ok=True)
            np.save(os.path.join(d, "x.npy"),
                    draw_input(100 + i, args.outlier, args.overflow))
        with open(os.path.join(args.out, "holdout", "input_0.pb"), "wb") as f:
            f.write(tensor("x", draw_input(7, args.outlier, args.overflow)))
        s = scales(read_calibration(args.out), args.flavour, args.margin,
                   *params)
        for name in ("x", "w1", "h", "w2"):
            print("scale %s: amax %.4g -> 2^%d" % (name, s[name][0],
                                                   log2(s[name][1])))
        return 0
    s = scales(read_calibration(args.out), args.flavour, args.margin, *params)
    x = draw_input(7, args.outlier, args.overflow)
    got = np.load(args.output).astype(np.float64)
    want = quantised_forward(x, params, s, args.flavour).astype(np.float64)
    exact = forward(x, *params)[1]
    norm = lambda a, b: np.max(np.abs(a - b)) / np.max(np.abs(b))  # noqa
    print("vs quantised model: %.1e" % norm(got, want))
    print("vs float64 model: %.1e" % norm(got, exact))
    print("quantised model vs float64 model: %.1e" % norm(want, exact))
    return 0


if __name__ == "__main__":
    sys.exit(main())
