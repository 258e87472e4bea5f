#!/usr/bin/env python3
"""Inputs for examples/transformer-block.mlir, deterministic and non-zero:
  transformer_block_inputs.py OUT_DIR [--expected]
writes OUT_DIR/<name>.npy for every graph input (fp16 weights scaled by
1/sqrt(fan-in), fp32 layer-norm scales around 1 and small biases), and with
--expected also OUT_DIR/expected.npy: the block evaluated by NumPy in
float64 with the fp16 roundings of the graph's casts."""
import sys

import numpy as np

L, D, H, DH, F = 64, 128, 4, 32, 512


def inputs():
    r = np.random.default_rng(2024)

    def nz(shape, scale):  # magnitudes in [0.25, 1] * scale, random signs
        sign = np.where(r.integers(0, 2, shape) == 1, 1.0, -1.0)
        return r.uniform(0.25, 1.0, shape) * sign * scale

    return {
        "x": nz((1, L, D), 1.0).astype(np.float32),
        "wq": (nz((H, D, DH), D ** -0.5) / np.sqrt(DH)).astype(np.float16),
        "wk": nz((H, D, DH), D ** -0.5).astype(np.float16),
        "wv": nz((H, D, DH), D ** -0.5).astype(np.float16),
        "wo": nz((H, DH, D), DH ** -0.5).astype(np.float16),
        "ln1_scale": (1 + nz((D,), 0.2)).astype(np.float32),
        "ln1_bias": nz((D,), 0.1).astype(np.float32),
        "w1": nz((1, D, F), D ** -0.5).astype(np.float16),
        "b1": nz((F,), 0.1).astype(np.float32),
        "w2": nz((1, F, D), F ** -0.5).astype(np.float16),
        "b2": nz((D,), 0.1).astype(np.float32),
        "ln2_scale": (1 + nz((D,), 0.2)).astype(np.float32),
        "ln2_bias": nz((D,), 0.1).astype(np.float32),
    }


def expected(a):
    from math import erf
    f = {k: v.astype(np.float64) for k, v in a.items()}
    h16 = lambda t: t.astype(np.float16).astype(np.float64)

    def ln(t, g, b):
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + 1e-5) * g + b

    xh = h16(f["x"])
    q, k, v = (h16(xh @ f[w]) for w in ("wq", "wk", "wv"))
    s = q @ np.swapaxes(k, 1, 2)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = h16(p / p.sum(-1, keepdims=True))
    o = h16(p @ v)
    att = (o @ f["wo"]).mean(0, keepdims=True)
    n1 = ln(f["x"] + att, f["ln1_scale"], f["ln1_bias"])
    z = h16(n1) @ f["w1"] + f["b1"]
    g = h16(0.5 * z * (1 + np.vectorize(erf)(z / np.sqrt(2))))
    h2 = g @ f["w2"] + f["b2"] + n1
    return ln(h2, f["ln2_scale"], f["ln2_bias"])


if __name__ == "__main__":
    out = sys.argv[1]
    a = inputs()
    for name, arr in a.items():
        np.save(f"{out}/{name}.npy", arr)
    if "--expected" in sys.argv:
        np.save(f"{out}/expected.npy", expected(a).astype(np.float32))
