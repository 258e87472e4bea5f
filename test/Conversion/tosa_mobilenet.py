#!/usr/bin/env python3
"""Writes a MobileNet-style TOSA graph, its inputs and a NumPy reference.

  tosa_mobilenet.py OUT_DIR [--dtype f32|f16]

OUT_DIR/model.mlir is a func.func of TOSA 1.0 ops in NHWC, as a TOSA front
end (TensorFlow Lite's, torch-mlir's) writes it:

  conv 3x3/2 (TensorFlow's SAME pad) + bias, clamp [0, 6]   (ReLU6)
  depthwise 3x3 + bias, clamp [0, 6]
  conv 1x1 + bias, + residual
  depthwise 3x3/2, multiplier 2, asymmetric pad, x * sigmoid(x)   (SiLU)
  max pool 2x2 (padded), average pool 4x4 (global)
  reshape, matmul + bias, softmax written out
  (reduce_max, sub, exp, reduce_sum, reciprocal, mul)

OUT_DIR/test_data_set_0 holds input_0.npy and output_0.npy, the output
computed here in float64 from the same weights, from TOSA's definitions
(NHWC, OHWI and HWCM weights, pads [top, bottom, left, right], the average
over the unpadded elements), without Crest.
"""

import argparse
import os

import numpy as np


def fmt(array):
    flat = ", ".join("%r" % float(v) for v in array.reshape(-1))
    return "dense<[%s]>" % flat if array.size > 1 else "dense<%r>" % float(
        array.reshape(-1)[0])


class Writer:
    def __init__(self, dtype):
        self.dtype = dtype
        self.lines = []
        self.count = 0

    def ty(self, shape, dtype=None):
        return "tensor<%sx%s>" % ("x".join(str(d) for d in shape),
                                  dtype or self.dtype) if shape else \
            "tensor<%s>" % (dtype or self.dtype)

    def name(self):
        self.count += 1
        return "%%v%d" % self.count

    def const(self, array, dtype=None):
        v = self.name()
        t = self.ty(array.shape, dtype)
        body = fmt(array)
        if dtype and dtype.startswith("i"):
            body = "dense<%s>" % ", ".join(str(int(v)) for v in array.reshape(-1))
        elif body.startswith("dense<[") and array.ndim > 1:
            body = "dense<%s>" % np.array2string(
                array.astype(np.float64), separator=", ", threshold=10**9,
                floatmode="unique").replace("\n", "")
        self.lines.append('  %s = "tosa.const"() <{values = %s : %s}> : () -> %s'
                          % (v, body, t, t))
        return v, array.shape

    def shape(self, values):
        v = self.name()
        n = len(values)
        self.lines.append(
            '  %s = "tosa.const_shape"() <{values = dense<[%s]> : '
            'tensor<%dxindex>}> : () -> !tosa.shape<%d>'
            % (v, ", ".join(str(x) for x in values), n, n))
        return v

    def op(self, name, operands, out_shape, props="", types=None):
        v = self.name()
        ins = ", ".join(o[0] for o in operands)
        tys = ", ".join(types[i] if types and types[i] else self.ty(o[1])
                        for i, o in enumerate(operands))
        p = " <{%s}>" % props if props else ""
        self.lines.append('  %s = "tosa.%s"(%s)%s : (%s) -> %s'
                          % (v, name, ins, p, tys, self.ty(out_shape)))
        return v, out_shape


def pad_nhwc(x, pad, value=0.0):
    top, bottom, left, right = pad
    return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)),
                  constant_values=value)


def windows(x, kh, kw, stride, oh, ow):
    n, _, _, c = x.shape
    out = np.empty((n, oh, ow, kh, kw, c))
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = x[:, i * stride[0]:i * stride[0] + kh,
                             j * stride[1]:j * stride[1] + kw, :]
    return out


def conv_ref(x, w_ohwi, b, pad, stride):
    o, kh, kw, _ = w_ohwi.shape
    xp = pad_nhwc(x, pad)
    oh = (xp.shape[1] - kh) // stride[0] + 1
    ow = (xp.shape[2] - kw) // stride[1] + 1
    win = windows(xp, kh, kw, stride, oh, ow)
    return np.einsum("nijabc,oabc->nijo", win, w_ohwi) + b


def depthwise_ref(x, w_hwcm, b, pad, stride):
    kh, kw, c, m = w_hwcm.shape
    xp = pad_nhwc(x, pad)
    oh = (xp.shape[1] - kh) // stride[0] + 1
    ow = (xp.shape[2] - kw) // stride[1] + 1
    win = windows(xp, kh, kw, stride, oh, ow)
    y = np.einsum("nijabc,abcm->nijcm", win, w_hwcm)
    return y.reshape(y.shape[0], oh, ow, c * m) + b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    args = parser.parse_args()
    rng = np.random.default_rng(1234)
    np_dtype = np.float32 if args.dtype == "f32" else np.float16

    def q(a):
        # Weights as the graph holds them (f16 graphs round them).
        return a.astype(np_dtype).astype(np.float64)

    w = Writer(args.dtype)
    x = q(rng.normal(0, 1, (1, 16, 16, 3)))
    zero = w.const(np.zeros(1))
    shift = w.const(np.zeros(1), "i8")
    lines_in = "%x"
    xin = (lines_in, x.shape)

    def conv(inp, ref, o, k, stride, pad):
        c = ref.shape[3]
        wt = q(rng.normal(0, (2.0 / (k * k * c)) ** 0.5, (o, k, k, c)))
        bt = q(rng.normal(0, 0.1, (o,)))
        y_ref = conv_ref(ref, wt, bt, pad, stride)
        v = w.op("conv2d", [inp, w.const(wt), w.const(bt), zero, zero],
                 y_ref.shape,
                 "acc_type = f32, dilation = array<i64: 1, 1>, "
                 "pad = array<i64: %d, %d, %d, %d>, stride = array<i64: %d, %d>"
                 % (tuple(pad) + tuple(stride)))
        return v, y_ref

    def depthwise(inp, ref, m, k, stride, pad):
        c = ref.shape[3]
        wt = q(rng.normal(0, (2.0 / (k * k)) ** 0.5, (k, k, c, m)))
        bt = q(rng.normal(0, 0.1, (c * m,)))
        y_ref = depthwise_ref(ref, wt, bt, pad, stride)
        v = w.op("depthwise_conv2d",
                 [inp, w.const(wt), w.const(bt), zero, zero], y_ref.shape,
                 "acc_type = f32, dilation = array<i64: 1, 1>, "
                 "pad = array<i64: %d, %d, %d, %d>, stride = array<i64: %d, %d>"
                 % (tuple(pad) + tuple(stride)))
        return v, y_ref

    def relu6(inp, ref):
        return (w.op("clamp", [inp], ref.shape,
                     "max_val = 6.0 : %s, min_val = 0.0 : %s"
                     % (args.dtype, args.dtype)), np.clip(ref, 0, 6))

    h, r = conv(xin, x, 16, 3, (2, 2), (0, 1, 0, 1))
    h, r = relu6(h, r)
    skip, skip_ref = h, r
    h, r = depthwise(h, r, 1, 3, (1, 1), (1, 1, 1, 1))
    h, r = relu6(h, r)
    h, r = conv(h, r, 16, 1, (1, 1), (0, 0, 0, 0))
    h = w.op("add", [h, skip], r.shape)
    r = r + skip_ref
    h, r = depthwise(h, r, 2, 3, (2, 2), (0, 1, 0, 1))
    s = w.op("sigmoid", [h], r.shape)
    h = w.op("mul", [h, s, shift], r.shape,
             types=[None, None, "tensor<1xi8>"])
    r = r / (1 + np.exp(-r))
    # Max pool 2x2, stride 1, padded at the bottom and right.
    rp = pad_nhwc(r, (0, 1, 0, 1), -np.inf)
    r = windows(rp, 2, 2, (1, 1), 4, 4).max(axis=(3, 4))
    h = w.op("max_pool2d", [h], r.shape,
             "kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, "
             "stride = array<i64: 1, 1>")
    h = w.op("avg_pool2d", [h, zero, zero], (1, 1, 1, 32),
             "acc_type = f32, kernel = array<i64: 4, 4>, "
             "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>")
    r = r.mean(axis=(1, 2), keepdims=True)
    h = w.op("reshape", [h, (w.shape([1, 1, 32]), None)], (1, 1, 32),
             types=[None, "!tosa.shape<3>"])
    fc = q(rng.normal(0, 0.3, (1, 32, 10)))
    fcb = q(rng.normal(0, 0.1, (1, 1, 10)))
    h = w.op("matmul", [h, w.const(fc), zero, zero], (1, 1, 10))
    h = w.op("add", [h, w.const(fcb)], (1, 1, 10))
    r = r.reshape(1, 1, 32) @ fc + fcb
    h = w.op("reshape", [h, (w.shape([1, 10]), None)], (1, 10),
             types=[None, "!tosa.shape<2>"])
    r = r.reshape(1, 10)
    m = w.op("reduce_max", [h], (1, 1), "axis = 1 : i32")
    d = w.op("sub", [h, m], (1, 10))
    e = w.op("exp", [d], (1, 10))
    total = w.op("reduce_sum", [e], (1, 1), "axis = 1 : i32")
    inv = w.op("reciprocal", [total], (1, 1))
    y = w.op("mul", [e, inv, shift], (1, 10),
             types=[None, None, "tensor<1xi8>"])
    r = np.exp(r - r.max(axis=1, keepdims=True))
    r = r / r.sum(axis=1, keepdims=True)

    os.makedirs(os.path.join(args.out, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(args.out, "model.mlir"), "w") as f:
        f.write("// A MobileNet-style TOSA graph (tosa_mobilenet.py).\n")
        f.write("func.func @mobilenet(%%x: %s) -> %s {\n"
                % (w.ty(x.shape), w.ty((1, 10))))
        f.write("\n".join(w.lines) + "\n")
        f.write("  return %s : %s\n}\n" % (y[0], w.ty((1, 10))))
    data = os.path.join(args.out, "test_data_set_0")
    np.save(os.path.join(data, "input_0.npy"), x.astype(np_dtype))
    np.save(os.path.join(data, "output_0.npy"), r)
    print("max |y| %.3g, sum %.6f" % (np.abs(r).max(), r.sum()))


if __name__ == "__main__":
    main()
