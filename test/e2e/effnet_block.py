#!/usr/bin/env python3
"""An EfficientNet-B0-style MBConv block, end to end: writes the crest graph
(f32 or f16 matrix operands), deterministic non-zero inputs and a NumPy
float64 reference written here from the definitions (nothing of Crest's),
then compares crest-run's output with it.

  e = silu(conv1x1(x, We) + be)                     expand 16 -> 64
  d = silu(depthwise3x3(e, Wd) + bd)                groups 64, pad 1
  s = sigmoid(fc2(silu(fc1(pool(d)) + b1)) + b2)    squeeze-and-excitation
  y = conv1x1(d * s, Wp) + bp + x                   project 64 -> 16, residual

with silu(v) = v * sigmoid(v) written as the two ops (the value feeds both),
pool the global average, fc1: 64 -> 16 and fc2: 16 -> 64 matmuls, and the
per-channel multiply d * s broadcasting s (1x64x1x1) over the 14x14 pixels.
With --precision f16 every contraction operand is cast to f16 (weights are
f16 inputs) and accumulates in f32; the reference rounds the same values to
f16 at the same points.

  effnet_block.py graph --precision P OUT.mlir
  effnet_block.py inputs --precision P DIR      (DIR/<name>.npy)
  effnet_block.py check --precision P DIR OUT.npy TOL
prints "effnet block P: max rel error E (tolerance T) PASS|FAIL" (max-norm
relative error: max |got - want| / max |want|) and exits 1 on FAIL.
"""
import os
import sys

import numpy as np

C, CE, CR, H, W = 16, 64, 16, 14, 14


def names(p):
    t = "f16" if p == "f16" else "f32"
    return [("x", (1, C, H, W), "f32"), ("we", (CE, C, 1, 1), t),
            ("be", (CE, 1, 1), "f32"), ("wd", (CE, 1, 3, 3), t),
            ("bd", (CE, 1, 1), "f32"), ("w1", (CE, CR), t),
            ("b1", (CR,), "f32"), ("w2", (CR, CE), t), ("b2", (CE,), "f32"),
            ("wp", (C, CE, 1, 1), t), ("bp", (C, 1, 1), "f32")]


def ty(shape, elt):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elt + ">"


def graph(p):
    t = "f16" if p == "f16" else "f32"
    prec = f"precision <lhs = {t}, rhs = {t}, acc = f32, out = f32>"
    args = ",\n    ".join(f"%{n}: {ty(s, e)} {{crest.name = \"{n}\"}}"
                          for n, s, e in names(p))
    x4, e4 = ty((1, C, H, W), "f32"), ty((1, CE, H, W), "f32")
    lines = []

    def op(text):
        lines.append("  " + text)

    def cast(v, shape):
        """v as a contraction operand."""
        if t == "f32":
            return v
        op(f"{v}_h = crest.cast {v} : {ty(shape, 'f32')} to {ty(shape, t)}")
        return v + "_h"

    x = cast("%x", (1, C, H, W))
    op(f"%e0 = crest.conv2d {x}, %we {prec} : {ty((1, C, H, W), t)}, "
       f"{ty((CE, C, 1, 1), t)} -> {e4}")
    op(f"%e1 = crest.add %e0, %be : {e4}, {ty((CE, 1, 1), 'f32')} -> {e4}")
    op(f"%e2 = crest.sigmoid %e1 : {e4}")
    op(f"%e = crest.mul %e1, %e2 : {e4}, {e4} -> {e4}")
    e = cast("%e", (1, CE, H, W))
    op(f"%d0 = crest.conv2d {e}, %wd pads [1, 1, 1, 1] groups {CE} {prec} : "
       f"{ty((1, CE, H, W), t)}, {ty((CE, 1, 3, 3), t)} -> {e4}")
    op(f"%d1 = crest.add %d0, %bd : {e4}, {ty((CE, 1, 1), 'f32')} -> {e4}")
    op(f"%d2 = crest.sigmoid %d1 : {e4}")
    op(f"%d = crest.mul %d1, %d2 : {e4}, {e4} -> {e4}")
    p4, p2 = ty((1, CE, 1, 1), "f32"), ty((1, CE), "f32")
    r2 = ty((1, CR), "f32")
    op(f"%q0 = crest.global_avg_pool2d %d : {e4} -> {p4}")
    op(f"%q = crest.reshape %q0 : {p4} to {p2}")
    q = cast("%q", (1, CE))
    op(f"%f0 = crest.matmul {q}, %w1 {prec} : {ty((1, CE), t)}, "
       f"{ty((CE, CR), t)} -> {r2}")
    op(f"%f1 = crest.add %f0, %b1 : {r2}, {ty((CR,), 'f32')} -> {r2}")
    op(f"%f2 = crest.sigmoid %f1 : {r2}")
    op(f"%f = crest.mul %f1, %f2 : {r2}, {r2} -> {r2}")
    f = cast("%f", (1, CR))
    op(f"%g0 = crest.matmul {f}, %w2 {prec} : {ty((1, CR), t)}, "
       f"{ty((CR, CE), t)} -> {p2}")
    op(f"%g1 = crest.add %g0, %b2 : {p2}, {ty((CE,), 'f32')} -> {p2}")
    op(f"%g2 = crest.sigmoid %g1 : {p2}")
    op(f"%g = crest.reshape %g2 : {p2} to {p4}")
    op(f"%s = crest.mul %d, %g : {e4}, {p4} -> {e4}")
    s = cast("%s", (1, CE, H, W))
    op(f"%y0 = crest.conv2d {s}, %wp {prec} : {ty((1, CE, H, W), t)}, "
       f"{ty((C, CE, 1, 1), t)} -> {x4}")
    op(f"%y1 = crest.add %y0, %bp : {x4}, {ty((C, 1, 1), 'f32')} -> {x4}")
    op(f"%y = crest.add %y1, %x : {x4}, {x4} -> {x4}")
    op(f"return %y : {x4}")
    return (f"// An EfficientNet-B0-style MBConv block ({p} matrix operands);"
            f" written by effnet_block.py.\n"
            f"func.func @mbconv(\n    {args})\n    -> ({x4} {{crest.name = "
            f"\"y\"}}) {{\n" + "\n".join(lines) + "\n}\n")


def inputs(p):
    rng = np.random.default_rng(2024)
    out = {}
    for n, shape, elt in names(p):
        fan = int(np.prod(shape[1:])) if n.startswith("w") else 1
        if n in ("w1", "w2"):
            fan = shape[0]
        mag = rng.uniform(0.25, 1.0, size=shape) / np.sqrt(fan)
        v = np.where(rng.random(shape) < 0.5, -mag, mag)
        if n.startswith("b"):
            v = v * 0.5
        out[n] = v.astype(np.float16 if elt == "f16" else np.float32)
    return out


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def reference(p, a):
    """float64 evaluation; `r` rounds a contraction operand like the cast."""
    def r(v):
        return v.astype(np.float16).astype(np.float64) if p == "f16" else v
    g = {k: v.astype(np.float64) for k, v in a.items()}
    x = g["x"]
    e1 = np.einsum("nchw,fc->nfhw", r(x), g["we"][:, :, 0, 0]) + g["be"]
    e = e1 * sigmoid(e1)
    ep = np.pad(r(e), ((0, 0), (0, 0), (1, 1), (1, 1)))
    d1 = np.zeros_like(e)
    for ky in range(3):
        for kx in range(3):
            d1 += ep[:, :, ky:ky + H, kx:kx + W] * \
                g["wd"][:, 0, ky, kx][None, :, None, None]
    d1 += g["bd"]
    d = d1 * sigmoid(d1)
    q = d.mean(axis=(2, 3))
    f1 = r(q) @ g["w1"] + g["b1"]
    f = f1 * sigmoid(f1)
    s = sigmoid(r(f) @ g["w2"] + g["b2"])
    scaled = d * s[:, :, None, None]
    y = np.einsum("nchw,fc->nfhw", r(scaled), g["wp"][:, :, 0, 0])
    return y + g["bp"] + x


def main():
    cmd, p = sys.argv[1], sys.argv[3]
    assert sys.argv[2] == "--precision" and p in ("f32", "f16")
    if cmd == "graph":
        open(sys.argv[4], "w").write(graph(p))
        return 0
    if cmd == "inputs":
        os.makedirs(sys.argv[4], exist_ok=True)
        for n, v in inputs(p).items():
            assert np.all(v != 0)
            np.save(os.path.join(sys.argv[4], n + ".npy"), v)
        return 0
    got = np.load(sys.argv[5]).astype(np.float64)
    tol = float(sys.argv[6])
    want = reference(p, inputs(p))
    err = (float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
           if got.shape == want.shape else float("inf"))
    ok = bool(np.isfinite(err) and err <= tol)
    print(f"effnet block {p}: max rel error {err:.3g} (tolerance {tol}) "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
