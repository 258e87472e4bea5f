#!/usr/bin/env python3
"""End-to-end check of the kernels crest-lower-ops-to-gpu generates: writes a
graph with one op (or a fusable elementwise chain), compiles it with
crest-compile for a chip, runs the kernel on crest-emu at several wave
interleavings (outputs poisoned before each run, race detector on) and
compares with a NumPy reference computed here, independently of Crest.

Each run prints one line
  <name> q=<quantum> seed=<seed>: max_abs_err=E races=N PASS|FAIL
and the script exits 1 if any run fails.

Tolerances (|got - want| <= atol + rtol * |want|), per output type:
  exact ops (add, sub, mul, div, max, min, relu, neg, abs, clip, casts, max
  pooling) in f32: 0 -- one IEEE operation, correctly rounded on the GPU as
  in NumPy's float32;
  transcendental f32 ops: rtol 1e-5 (about 80 ulp): LLVM's exp and MLIR's
  polynomial tanh/erf are accurate to a few ulp, while any indexing or
  formula bug gives errors of order 1;
  f32 reductions: rtol 1e-4, atol 1e-6: sums of up to 1000 terms in a
  different order than NumPy's pairwise sum (n * eps = 1.2e-4 bound);
  f16 outputs: rtol 2e-3, atol 2e-3: two f16 roundings (2 * 2^-11) plus
  the above;
  data movement (transpose, concat, slice, gather, reshape copies) and
  integer add/sub/mul/max/min: 0, in every type;
  f64: exp and log (expanded in f64 by crest-legalize-math) rtol 1e-15
  (4.5 ulp), atol 1e-320 (results in the subnormals, a few of their ulps),
  over inputs spanning the whole range (exp from -745 to 709.8 with its
  overflow and underflow, log from 1e-310 to 1e308 with subnormals) and
  the special values; reductions, softmax, layer_norm and pooling (which
  accumulate in f64 for f64 data) rtol 1e-12, 1000 times f32's
  accumulation bound scaled to f64's epsilon.
Where the reference is infinite or NaN the result must be the same.

Unsigned types (ui8 to ui64): inputs over the whole range (half of them at
or above 2^(bits-1), where a signed operation would differ), the reference
computed exactly in Python integers or NumPy's unsigned arithmetic (add,
sub and mul wrap), compared bit for bit; casts to and from them saturate
to the target's range (NaN gives 0), as crest.cast defines.
"""
import argparse
import math
import os
import re
import subprocess
import sys

import numpy as np

# scripts/crest_launch.py: reading the #crest.launch of printed host ops.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import launches as find_launches  # noqa: E402

SCHEDULES = [(1, 0), (1 << 30, 0), (3, 99)]

NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8,
      "i64": np.int64, "bf16": np.uint16, "f64": np.float64, "i16": np.int16,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
# Integer types: (bits, unsigned).
INTS = {"i8": (8, False), "i16": (16, False), "i32": (32, False),
        "i64": (64, False), "ui8": (8, True), "ui16": (16, True),
        "ui32": (32, True), "ui64": (64, True)}
# Data movement: every output element is one input element (or a zero of an
# out-of-range gather index), so the comparison is bit-exact.
MOVE = {"transpose", "concat", "slice", "gather", "reshape"}
EXACT = {"add", "sub", "mul", "div", "max", "min", "relu", "neg", "abs",
         "clip", "cast", "max_pool2d", "floor", "ceil", "round", "reduce_max",
         "reduce_min"}
# The reductions and NumPy's (in float64 on the stored inputs).
REDUCTIONS = {"reduce_mean": np.mean, "reduce_sum": np.sum,
              "reduce_prod": np.prod, "reduce_max": np.max,
              "reduce_min": np.min}
# Rounding to integers: a third of the inputs are integers and halves, the
# ties and the values on a step.
STEPS = {"floor", "ceil", "round"}

erf = np.vectorize(math.erf)


def bf16_bits(x):
    b = x.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def unary_ref(name, x):
    x = x.astype(np.float64)
    return {
        "relu": lambda: np.maximum(x, 0),
        "neg": lambda: -x,
        "abs": lambda: np.abs(x),
        "exp": lambda: np.exp(x),
        "sqrt": lambda: np.sqrt(x),
        "tanh": lambda: np.tanh(x),
        "erf": lambda: erf(x),
        "sigmoid": lambda: 1 / (1 + np.exp(-x)),
        "gelu": lambda: 0.5 * x * (1 + erf(x / math.sqrt(2))),
        "gelu_tanh": lambda: 0.5 * x * (1 + np.tanh(
            math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
        "hardswish": lambda: x * np.clip(x + 3, 0, 6) / 6,
        "hardsigmoid": lambda: np.clip(x / 6 + 0.5, 0, 1),
        "clip": lambda: np.clip(x, -0.5, 1.25),
        "leaky_relu": lambda: np.where(x < 0, 0.1 * x, x),
        "log": lambda: np.log(x),
        "floor": lambda: np.floor(x),
        "ceil": lambda: np.ceil(x),
        "round": lambda: np.rint(x),  # ties to even
    }[name]()


def binary_ref(name, x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y,
            "max": np.maximum(x, y), "min": np.minimum(x, y)}[name]


def pool_ref(x, kind, k, s, p, ceil, count_pad):
    n, c, h, w = x.shape
    oh = out_size(h, p[0], p[2], k[0], s[0], ceil)
    ow = out_size(w, p[1], p[3], k[1], s[1], ceil)
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = h0 + k[0], w0 + k[1]
            win = x[:, :, max(h0, 0):min(h1, h), max(w0, 0):min(w1, w)]
            win = win.astype(np.float64)
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if count_pad:
                    cnt = (min(h1, h + p[2]) - h0) * (min(w1, w + p[3]) - w0)
                else:
                    cnt = win.shape[2] * win.shape[3]
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


def out_size(n, lo, hi, k, s, ceil):
    span = n + lo + hi - k
    if not ceil:
        return span // s + 1
    out = -(-span // s) + 1
    if (out - 1) * s >= n + lo:
        out -= 1
    return out


def ttype(shape, elt):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elt + ">"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    p.add_argument("--op", required=True)
    p.add_argument("--shape", required=True, help="e.g. 7x197")
    p.add_argument("--shape2", help="second operand shape (broadcast)")
    p.add_argument("--dtype", default="f32")
    p.add_argument("--to", help="cast target type")
    p.add_argument("--axis", type=int, default=-1)
    p.add_argument("--dims", default="1")
    p.add_argument("--keep-dims", action="store_true")
    p.add_argument("--no-bias", action="store_true")
    p.add_argument("--kernel", default="3,3")
    p.add_argument("--strides", default="1,1")
    p.add_argument("--pads", default="0,0,0,0")
    p.add_argument("--ceil-mode", action="store_true")
    p.add_argument("--count-include-pad", action="store_true")
    p.add_argument("--perm", help="transpose permutation, e.g. 0,2,1,3")
    p.add_argument("--shapes", help="concat input shapes, e.g. 7x3,7x5")
    p.add_argument("--offsets", help="slice offsets, e.g. 1,0")
    p.add_argument("--slice-strides", help="slice strides, e.g. 2,3")
    p.add_argument("--sizes", help="slice result shape (default: all)")
    p.add_argument("--index-dtype", default="i64", help="gather indices")
    p.add_argument("--ids", help="gather indices, comma-separated (else "
                   "random, with negative and out-of-range ones)")
    p.add_argument("--compile-flags", default="",
                   help="extra crest-compile flags, space-separated")
    p.add_argument("--expect-races", action="store_true",
                   help="pass when the race detector reports races")
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-emu", required=True)
    p.add_argument("--tmp", required=True)
    a = p.parse_args()
    # The references overflow and take logs of zeros and negatives on
    # purpose (exp and log over their whole range).
    np.seterr(all="ignore")
    os.makedirs(a.tmp, exist_ok=True)
    tmp = a.tmp
    shape = [int(d) for d in a.shape.split("x")]
    dt = a.dtype
    rng = np.random.default_rng(7)

    def data(shape, positive=False, away_from_zero=False, steps=False):
        x = rng.standard_normal(shape) * 2
        if steps:
            flat = x.reshape(-1)
            flat[::3] = rng.integers(-12, 13, flat[::3].shape) / 2
        if positive:
            x = np.abs(x) + 0.1
        if away_from_zero:
            x = np.sign(x + 1e-9) * (np.abs(x) + 0.5)
        x[x == 0] = 0.25  # non-zero data
        return x

    def store(name, x, elt):
        path = f"{tmp}/{name}.npy"
        if elt == "bf16":
            np.save(path, bf16_bits(x))
            return bf16_value(bf16_bits(x)).astype(np.float64)
        v = x.astype(NP[elt])
        np.save(path, v)
        return v.astype(np.float64)

    T = ttype(shape, dt)
    inputs = []  # (name, numpy value as float64)
    native = None  # an exact reference in the output's own NumPy type
    op = a.op
    exact = op in EXACT
    out_elt, out_shape = dt, shape
    if op in ("relu", "neg", "abs", "exp", "sqrt", "tanh", "erf", "sigmoid",
              "gelu", "gelu_tanh", "hardswish", "hardsigmoid", "clip",
              "leaky_relu", "log", "floor", "ceil", "round"):
        if dt == "f64" and op in ("exp", "log"):
            n = int(np.prod(shape))
            if op == "exp":
                v = rng.uniform(-745.2, 709.9, n)
                special = [0.0, -0.0, np.inf, -np.inf, np.nan, 709.78,
                           709.79, -745.13, -745.14, -708.5, 1e-300, 1.5]
            else:
                v = 10.0 ** rng.uniform(-310, 308, n)
                special = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0,
                           5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                           np.sqrt(2.0), np.nextafter(1.0, 2), np.nextafter(1.0, 0)]
            v[:len(special)] = special[:n]
            x = store("x", v.reshape(shape), dt)
        else:
            x = store("x", data(shape, positive=(op in ("sqrt", "log")),
                                steps=op in STEPS), dt)
        inputs = ["x"]
        attrs = {"gelu_tanh": " approximate = tanh", "clip": " min -0.5 max 1.25",
                 "hardsigmoid": " {alpha = 0.16666667 : f32}",
                 "leaky_relu": " {alpha = 0.1 : f32}"}.get(op, "")
        name = "gelu" if op == "gelu_tanh" else op
        if op == "hardsigmoid":
            body = f"%r = crest.hardsigmoid %x0 {{alpha = 0.166666672 : f32}} : {T}"
        else:
            body = f"%r = crest.{name} %x0{attrs} : {T}"
        want = unary_ref(op, x)
        if op == "hardsigmoid":
            want = np.clip(x * np.float64(np.float32(1 / 6)) + 0.5, 0, 1)
        args = [f"%x0: {T}"]
    elif op in ("add", "sub", "mul", "max", "min") and dt.startswith("ui"):
        s2 = [int(d) for d in (a.shape2 or a.shape).split("x")]
        bits = INTS[dt][0]
        xs = rng.integers(0, 2 ** bits, shape, dtype=NP[dt], endpoint=False)
        ys = rng.integers(0, 2 ** bits, s2, dtype=NP[dt], endpoint=False)
        xs.reshape(-1)[0] = 2 ** bits - 1  # the largest value too
        np.save(f"{tmp}/x.npy", xs)
        np.save(f"{tmp}/y.npy", ys)
        inputs = ["x", "y"]
        out_shape = list(np.broadcast_shapes(tuple(shape), tuple(s2)))
        T2, TO = ttype(s2, dt), ttype(out_shape, dt)
        body = f"%r = crest.{op} %x0, %x1 : {T}, {T2} -> {TO}"
        native = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                  "max": np.maximum, "min": np.minimum}[op](xs, ys)
        want = native.astype(np.float64)
        args = [f"%x0: {T}", f"%x1: {T2}"]
    elif op in ("add", "sub", "mul", "div", "max", "min"):
        s2 = [int(d) for d in (a.shape2 or a.shape).split("x")]
        x = store("x", data(shape), dt)
        y = store("y", data(s2, away_from_zero=(op == "div")), dt)
        inputs = ["x", "y"]
        out_shape = list(np.broadcast_shapes(tuple(shape), tuple(s2)))
        T2, TO = ttype(s2, dt), ttype(out_shape, dt)
        body = f"%r = crest.{op} %x0, %x1 : {T}, {T2} -> {TO}"
        want = binary_ref(op, x, y)
        args = [f"%x0: {T}", f"%x1: {T2}"]
    elif op == "chain":
        # x * sigmoid(x) + bias (broadcast along rows): one fused kernel.
        b_shape = [shape[-1]]
        x = store("x", data(shape), dt)
        bias = store("bias", data(b_shape), dt)
        inputs = ["x", "bias"]
        TB = ttype(b_shape, dt)
        body = (f"%s = crest.sigmoid %x0 : {T}\n"
                f"    %m = crest.mul %x0, %s : {T}, {T} -> {T}\n"
                f"    %r = crest.add %m, %x1 : {T}, {TB} -> {T}")
        want = x / (1 + np.exp(-x)) + bias
        args = [f"%x0: {T}", f"%x1: {TB}"]
    elif op == "cast" and (dt.startswith("ui") or (a.to or "").startswith("ui")):
        # Saturating conversions between the integer types, signed and
        # unsigned, and from floats; exact references in Python integers.
        n = int(np.prod(shape))
        if dt in INTS:
            bits, unsigned = INTS[dt]
            lo, hi = (0, 2 ** bits - 1) if unsigned else \
                (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
            src = rng.integers(lo, hi, n, dtype=NP[dt], endpoint=True)
            src[:2] = [lo, hi]
            values = [int(v) for v in src]
        else:
            src = (rng.standard_normal(n) * 2.0 ** rng.integers(0, 70, n)
                   ).astype(NP[dt])
            src[:6] = [np.nan, np.inf, -np.inf, -0.5, 255.5, 65535.9]
            values = [0 if np.isnan(v) else (int(np.trunc(v)) if np.isfinite(v)
                      else (10 ** 30 if v > 0 else -10 ** 30)) for v in src]
        np.save(f"{tmp}/x.npy", src.reshape(shape))
        inputs = ["x"]
        out_elt = a.to
        body = f"%r = crest.cast %x0 : {T} to {ttype(shape, a.to)}"
        if a.to in INTS:
            bits, unsigned = INTS[a.to]
            lo, hi = (0, 2 ** bits - 1) if unsigned else \
                (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
            native = np.array([min(max(v, lo), hi) for v in values],
                              dtype=NP[a.to]).reshape(shape)
        else:
            # Integer to float: one rounding of the exact integer (NumPy's
            # C conversion, not through float64, which would round twice).
            native = src.astype(NP[a.to]).reshape(shape)
        want = native.astype(np.float64)
        args = [f"%x0: {T}"]
    elif op == "cast":
        src = data(shape) * 40  # exercises integer saturation of i8
        if dt in ("i32", "i8"):
            src = np.clip(np.round(src), -128 if dt == "i8" else -1e6, 127)
        x = store("x", src, dt)
        inputs = ["x"]
        out_elt = a.to
        body = f"%r = crest.cast %x0 : {T} to {ttype(shape, a.to)}"
        if a.to in ("i32", "i8"):
            lo, hi = (-128, 127) if a.to == "i8" else (-2**31, 2**31 - 1)
            want = np.clip(np.trunc(x), lo, hi)
        elif a.to == "bf16":
            want = bf16_value(bf16_bits(x.astype(np.float32)))
        else:
            want = x.astype(NP[a.to]).astype(np.float64)
        args = [f"%x0: {T}"]
    elif op == "softmax":
        x = store("x", data(shape), dt)
        inputs = ["x"]
        body = f"%r = crest.softmax %x0 {{axis = {a.axis} : i64}} : {T}"
        e = np.exp(x - x.max(axis=a.axis, keepdims=True))
        want = e / e.sum(axis=a.axis, keepdims=True)
        args = [f"%x0: {T}"]
    elif op == "layer_norm":
        axis = a.axis % len(shape)
        tail = shape[axis:]
        x = store("x", data(shape) + 3, dt)
        g = store("g", data(tail), dt)
        inputs = ["x", "g"]
        TT = ttype(tail, dt)
        args = [f"%x0: {T}", f"%x1: {TT}"]
        red = tuple(range(axis, len(shape)))
        mean = x.mean(axis=red, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=red, keepdims=True)
        # The default epsilon is an f32 attribute: float(1e-5).
        want = (x - mean) / np.sqrt(var + np.float64(np.float32(1e-5))) * g
        if a.no_bias:
            body = (f"%r = crest.layer_norm %x0, %x1 {{axis = {a.axis} : i64}}"
                    f" : {T}, {TT} -> {T}")
        else:
            bias = store("b", data(tail), dt)
            inputs.append("b")
            args.append(f"%x2: {TT}")
            want = want + bias
            body = (f"%r = crest.layer_norm %x0, %x1, %x2 {{axis = {a.axis} : i64}}"
                    f" : {T}, {TT}, {TT} -> {T}")
    elif op in REDUCTIONS or op == "global_avg_pool2d":
        x = store("x", data(shape), dt)
        inputs = ["x"]
        if op in REDUCTIONS:
            dims = [int(d) for d in a.dims.split(",")]
            red = tuple(d % len(shape) for d in dims)
        else:
            red = (2, 3)
        keep = a.keep_dims or op == "global_avg_pool2d"
        want = REDUCTIONS.get(op, np.mean)(x, axis=red, keepdims=keep)
        out_shape = list(want.shape)
        TO = ttype(out_shape, dt)
        if op in REDUCTIONS:
            flag = " keep_dims" if a.keep_dims else ""
            body = f"%r = crest.{op} %x0 dims [{a.dims}]{flag} : {T} -> {TO}"
        else:
            body = f"%r = crest.global_avg_pool2d %x0 : {T} -> {TO}"
        args = [f"%x0: {T}"]
    elif op in ("max_pool2d", "avg_pool2d"):
        x = store("x", data(shape), dt)
        inputs = ["x"]
        k = [int(v) for v in a.kernel.split(",")]
        s = [int(v) for v in a.strides.split(",")]
        pads = [int(v) for v in a.pads.split(",")]
        want = pool_ref(x, op[:3], k, s, pads, a.ceil_mode, a.count_include_pad)
        out_shape = list(want.shape)
        TO = ttype(out_shape, dt)
        flags = (" ceil_mode" if a.ceil_mode else "") + (
            " count_include_pad" if a.count_include_pad and op == "avg_pool2d" else "")
        body = (f"%r = crest.{op} %x0 kernel [{a.kernel}] strides [{a.strides}] "
                f"pads [{a.pads}]{flags} : {T} -> {TO}")
        args = [f"%x0: {T}"]
    elif op == "transpose":
        perm = [int(v) for v in a.perm.split(",")]
        x = store("x", data(shape), dt)
        inputs = ["x"]
        want = np.transpose(x, perm)
        out_shape = list(want.shape)
        body = (f"%r = crest.transpose %x0 permutation [{a.perm}] : {T} -> "
                f"{ttype(out_shape, dt)}")
        args = [f"%x0: {T}"]
    elif op == "concat":
        shapes = [[int(d) for d in s.split("x")] for s in a.shapes.split(",")]
        parts = [store(f"x{i}", data(s), dt) for i, s in enumerate(shapes)]
        inputs = [f"x{i}" for i in range(len(shapes))]
        want = np.concatenate(parts, axis=a.axis)
        out_shape = list(want.shape)
        types = [ttype(s, dt) for s in shapes]
        body = (f"%r = crest.concat "
                f"{', '.join(f'%x{i}' for i in range(len(shapes)))} "
                f"axis = {a.axis} : {', '.join(types)} -> "
                f"{ttype(out_shape, dt)}")
        args = [f"%x{i}: {t}" for i, t in enumerate(types)]
    elif op == "slice":
        offs = [int(v) for v in a.offsets.split(",")]
        steps = ([int(v) for v in a.slice_strides.split(",")]
                 if a.slice_strides else [1] * len(shape))
        x = store("x", data(shape), dt)
        inputs = ["x"]
        full = [(n - 1 - o) // s + 1 for n, o, s in zip(shape, offs, steps)]
        sizes = [int(v) for v in a.sizes.split("x")] if a.sizes else full
        want = x[tuple(slice(o, o + (k - 1) * s + 1, s)
                       for o, k, s in zip(offs, sizes, steps))]
        out_shape = list(want.shape)
        strides = f" strides [{a.slice_strides}]" if a.slice_strides else ""
        body = (f"%r = crest.slice %x0 offsets [{a.offsets}]{strides} : {T} "
                f"-> {ttype(out_shape, dt)}")
        args = [f"%x0: {T}"]
    elif op == "gather":
        ishape = [int(d) for d in a.shape2.split("x")] if a.shape2 else []
        axis = a.axis % len(shape)
        n = shape[axis]
        x = store("x", data(shape), dt)
        if a.ids:
            ids = np.array([int(v) for v in a.ids.split(",")]).reshape(ishape)
        else:
            ids = rng.integers(-n, n, size=ishape)
            flat = ids.reshape(-1)
            # Negative, out-of-range on both sides, the extremes.
            extra = [-1, -n, n - 1, 0, n, -n - 1, 10 * n, -7 * n]
            flat[:min(len(extra), flat.size)] = extra[:flat.size]
        np.save(f"{tmp}/ids.npy", ids.astype(NP[a.index_dtype]))
        inputs = ["x", "ids"]
        # NumPy's take with wrapping of [-n, 0) and zeros elsewhere.
        valid = (ids >= -n) & (ids < n)
        want = np.take(x, np.where(valid, ids % n, 0), axis=axis)
        mask = valid.reshape([1] * axis + list(ids.shape) +
                             [1] * (len(shape) - axis - 1))
        want = np.where(mask, want, 0.0)
        out_shape = list(want.shape)
        TI = ttype(ishape, a.index_dtype) if ishape else \
            f"tensor<{a.index_dtype}>"
        body = (f"%r = crest.gather %x0, %x1 axis = {a.axis} : {T}, {TI} -> "
                f"{ttype(out_shape, dt)}")
        args = [f"%x0: {T}", f"%x1: {TI}"]
    elif op == "reshape":
        x = store("x", data(shape), dt)
        inputs = ["x"]
        out_shape = [int(d) for d in a.shape2.split("x")]
        want = x.reshape(out_shape)
        # A returned reshape of a graph input is the one reshape that needs
        # a kernel (a copy); any other is an alias of its input's bytes.
        body = f"%r = crest.reshape %x0 : {T} to {ttype(out_shape, dt)}"
        args = [f"%x0: {T}"]
    else:
        sys.exit(f"unknown op {op}")

    TO = ttype(out_shape, out_elt)
    src = (f"module {{\n  func.func @f({', '.join(args)}) -> {TO} {{\n"
           f"    {body}\n    return %r : {TO}\n  }}\n}}\n")
    open(f"{tmp}/graph.mlir", "w").write(src)
    co = f"{tmp}/graph.co"
    flags = a.compile_flags.split()
    subprocess.run([a.crest_compile, f"{tmp}/graph.mlir", f"--target={a.chip}",
                    "--emit=hsaco", "-o", co] + flags, check=True)
    host = subprocess.run([a.crest_compile, f"{tmp}/graph.mlir",
                           f"--target={a.chip}", "--emit=mlir"], check=True,
                          capture_output=True, text=True).stdout
    launches = find_launches(host)
    if (len(launches) != 1 or launches[0][1][1:] != (1, 1)
            or launches[0][2][1:] != (1, 1)):
        sys.exit(f"expected one launch, got {launches}")
    kernel, (grid, _, _), (block, _, _) = launches[0]

    npy_out = "u16" if out_elt == "bf16" else out_elt
    if out_elt.startswith("ui"):
        npy_out = "u" + out_elt[2:]
    if op in MOVE or dt in ("i32", "i64") and op != "cast":
        want = want.astype(NP[out_elt]).astype(np.float64)
        rtol, atol = 0.0, 0.0
    elif exact and dt == "f32" and out_elt in ("f32", "i32", "i8"):
        # One correctly rounded operation: NumPy's float32 result.
        want = want.astype(NP[out_elt]).astype(np.float64)
        rtol, atol = 0.0, 0.0
    elif out_elt in ("f16", "bf16") or dt in ("f16", "bf16"):
        rtol, atol = (2e-3, 2e-3) if out_elt != "bf16" else (8e-3, 8e-3)
        if exact and out_elt == dt:
            # One correctly rounded operation on exactly representable
            # inputs: the f16 rounding of the exact result.
            want = want.astype(NP[dt]).astype(np.float64)
            rtol = atol = 0.0
    elif dt == "f64" and op in ("exp", "log"):
        rtol, atol = 1e-15, 1e-320
    elif dt == "f64" and op in ("softmax", "layer_norm", "reduce_mean",
                                "reduce_sum", "reduce_prod",
                                "global_avg_pool2d", "avg_pool2d"):
        rtol, atol = 1e-12, 1e-14
    elif op in ("softmax", "layer_norm", "reduce_mean", "reduce_sum",
                "reduce_prod", "global_avg_pool2d", "avg_pool2d"):
        rtol, atol = 1e-4, 1e-6
    elif exact:
        rtol, atol = 0.0, 0.0
    else:
        rtol, atol = 1e-5, 1e-6
    if op in MOVE:
        pass
    elif op == "cast" and a.to == "f16" or (op == "cast" and a.to in ("f32",)):
        rtol = atol = 0.0  # a single correctly rounded conversion

    detail = {"transpose": f" perm={a.perm}", "concat": f" axis={a.axis}",
              "slice": f" offsets={a.offsets} strides={a.slice_strides}",
              "gather": f" axis={a.axis} {a.index_dtype}"}.get(op, "")
    name = (f"{op} {a.shapes or a.shape}{'/' + a.shape2 if a.shape2 else ''}"
            f"{detail} {dt}"
            f"{'->' + a.to if a.to else ''} {a.chip}")
    ok = True
    for q, seed in SCHEDULES:
        cmd = [a.crest_emu, co, f"--kernel={kernel}", f"--grid={grid}",
               f"--block={block}", f"--quantum={q}"]
        cmd += [f"--arg=in:{tmp}/{i}.npy" for i in inputs]
        cmd.append(f"--arg=out:{tmp}/out.npy={npy_out}:"
                   + "x".join(map(str, out_shape or [1])))
        if seed:
            cmd.append(f"--seed={seed}")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 2):
            sys.stderr.write(proc.stdout + proc.stderr)
            return 1
        races = int(re.search(r"races (\d+)", proc.stdout).group(1))
        got = np.load(f"{tmp}/out.npy")
        got = bf16_value(got) if out_elt == "bf16" else got
        got = got.astype(np.float64).reshape(want.shape)
        if native is not None:
            raw = np.load(f"{tmp}/out.npy").reshape(native.shape)
            good = bool(np.array_equal(raw, native)) and races == 0
            bad = int(np.count_nonzero(raw != native))
            ok &= good
            print(f"{name} q={q} seed={seed}: mismatches={bad} races={races} "
                  f"{'PASS' if good else 'FAIL'}")
            continue
        finite = np.isfinite(want)
        special_ok = bool(np.all(np.isnan(got[~finite]) == np.isnan(want[~finite]))
                          and np.all((got == want)[~finite & ~np.isnan(want)]))
        err = np.where(finite, np.abs(got - want), 0.0)
        if a.expect_races:
            good = races > 0
        else:
            good = (bool(np.all(err <= atol + rtol * np.abs(np.where(finite, want, 0))))
                    and special_ok and races == 0)
        ok &= good
        print(f"{name} q={q} seed={seed}: max_abs_err={float(err.max()):.3g} "
              f"races={races} {'PASS' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
