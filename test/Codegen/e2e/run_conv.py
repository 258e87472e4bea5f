#!/usr/bin/env python3
"""End-to-end check of generated convolution kernels: writes a crest graph
(crest.conv2d, optionally followed by a bias add, an activation and a
residual add), compiles it with crest-compile for a chip, checks that
crest-fuse-epilogues made it one kernel, runs that kernel on crest-emu at
several wave interleavings (race detector on, the output poisoned with 0xA5
before each run) and compares with a NumPy reference written here, directly
from the definition of a grouped, strided, padded, dilated NCHW convolution
(float64 sums over the window; nothing of Crest's index arithmetic).

Each run prints one line
  <name> q=<quantum> seed=<seed>: max_abs_err=E max_err_over_bound=R races=N time=Ts PASS|FAIL
and the script exits 1 if any run fails.

Data are non-zero reals (uniform magnitude in [1/8, 1], random sign),
rounded to the operand type first; the reference uses the rounded values.

Tolerance, per output element y = act(sum_k x_k w_k + bias) + residual:
  |got - want| <= 1.5 * (K + 4) * u * S + 2^-20 * u
with u = 2^-24 (f32 unit roundoff), K the taps per output (C/groups * KH *
KW) and S = sum_k |x_k w_k| + |bias| + |residual|. The GPU accumulates in
f32 in an order of its own (MFMA's internal order, K steps, the direct
kernel's tap loop); every partial sum is rounded once, every f32 product
(f32 operands) once, so the classic recursive-summation bound is
(K + 1) * u * S; the epilogue's bias add, activation (hardswish: a
multiply, a divide, a clamp, factor at most 1.5 in its derivative) and
residual add add a few more roundings. f16 and bf16 products are exact in
f32. Any indexing error (a wrong, missing or extra tap, a wrong channel)
changes an output by a whole |x_k w_k| >= 1/64, far above the bound (about
1e-5 * S for K = 576).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

# scripts/crest_launch.py: reading the #crest.launch of printed host ops.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import launches as find_launches  # noqa: E402

ELT = {"f32": ("f32", np.float32), "f16": ("f16", np.float16),
       "bf16": ("bf16", np.uint16)}
SCHEDULES = [(1, 0), (1 << 30, 0), (3, 99), (16, 1234)]
U = 2.0 ** -24


def bf16_bits(x):
    b = x.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def rounded(x, precision):
    """x rounded to the operand type, as float64, and the array to save."""
    if precision == "bf16":
        bits = bf16_bits(x)
        return bf16_value(bits).astype(np.float64), bits
    arr = x.astype(ELT[precision][1])
    return arr.astype(np.float64), arr


def conv_ref(x, w, stride, pads, dilation, groups):
    """float64 NCHW convolution from the definition."""
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * fg:(g + 1) * fg]
        for ky in range(kh):
            for kx in range(kw):
                y0, x0 = ky * dh, kx * dw
                patch = xs[:, :, y0:y0 + sh * (oh - 1) + 1:sh,
                           x0:x0 + sw * (ow - 1) + 1:sw]
                out[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, ws[:, :, ky, kx])
    return out


def activation(name, v):
    if name == "relu":
        return np.maximum(v, 0)
    if name == "hardswish":
        return v * np.clip(v + 3, 0, 6) / 6
    if name == "clip":
        return np.clip(v, 0, 6)
    return v


def graph(a, oh, ow):
    elt = ELT[a.precision][0]
    xt = f"tensor<{a.n}x{a.c}x{a.h}x{a.w}x{elt}>"
    wt = f"tensor<{a.f}x{a.c // a.groups}x{a.kh}x{a.kw}x{elt}>"
    yt = f"tensor<{a.n}x{a.f}x{oh}x{ow}xf32>"
    bt = f"tensor<{a.f}x1x1xf32>"
    args = [f"%x: {xt}", f"%w: {wt}"]
    attrs = ""
    if a.stride != [1, 1]:
        attrs += f" strides [{a.stride[0]}, {a.stride[1]}]"
    if a.pad != [0, 0, 0, 0]:
        attrs += " pads [" + ", ".join(map(str, a.pad)) + "]"
    if a.dilation != [1, 1]:
        attrs += f" dilations [{a.dilation[0]}, {a.dilation[1]}]"
    if a.groups != 1:
        attrs += f" groups {a.groups}"
    sync = f" sync <scope = {a.scope}, stages = {a.stages}>" if a.scope else ""
    config = f" config <{a.config}>" if a.config else ""
    body = [f"  %0 = crest.conv2d %x, %w{attrs} precision <lhs = {elt}, "
            f"rhs = {elt}, acc = f32, out = f32>{sync}{config}",
            f"         : {xt}, {wt} -> {yt}"]
    last = "%0"
    if a.bias:
        args.append(f"%b: {bt}")
        body.append(f"  %1 = crest.add {last}, %b : {yt}, {bt} -> {yt}")
        last = "%1"
    if a.act == "clip":
        body.append(f"  %2 = crest.clip {last} min 0.0 max 6.0 : {yt}")
        last = "%2"
    elif a.act != "none":
        body.append(f"  %2 = crest.{a.act} {last} : {yt}")
        last = "%2"
    if a.residual:
        args.append(f"%r: {yt}")
        body.append(f"  %3 = crest.add {last}, %r : {yt}, {yt} -> {yt}")
        last = "%3"
    return (f"func.func @conv({', '.join(args)}) -> {yt} {{\n"
            + "\n".join(body) + f"\n  return {last} : {yt}\n}}\n")


def pair(text):
    return [int(v) for v in text.split(",")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    for d in ("n", "c", "h", "w", "f"):
        p.add_argument(f"--{d}", type=int, required=True)
    p.add_argument("--kernel", type=pair, default=[1, 1], help="KH,KW")
    p.add_argument("--stride", type=pair, default=[1, 1])
    p.add_argument("--pad", type=pair, default=[0, 0, 0, 0], help="t,l,b,r")
    p.add_argument("--dilation", type=pair, default=[1, 1])
    p.add_argument("--groups", type=int, default=1)
    p.add_argument("--precision", default="f32", choices=list(ELT))
    p.add_argument("--bias", action="store_true")
    p.add_argument("--act", default="none",
                   choices=["none", "relu", "hardswish", "clip"])
    p.add_argument("--residual", action="store_true")
    p.add_argument("--scope", choices=["wavefront", "workgroup"])
    p.add_argument("--stages", type=int, default=1)
    p.add_argument("--config", help="an explicit #crest.config body")
    p.add_argument("--schedules", type=int, default=3,
                   help="interleavings to run (at most %d)" % len(SCHEDULES))
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-emu", required=True)
    p.add_argument("--tmp", required=True)
    a = p.parse_args()
    a.kh, a.kw = a.kernel
    os.makedirs(a.tmp, exist_ok=True)
    tmp = a.tmp

    rng = np.random.default_rng(7)

    def data(shape):
        mag = rng.uniform(0.125, 1.0, size=shape)
        return np.where(rng.random(shape) < 0.5, -mag, mag)

    x, xs = rounded(data((a.n, a.c, a.h, a.w)), a.precision)
    w, ws = rounded(data((a.f, a.c // a.groups, a.kh, a.kw)), a.precision)
    want = conv_ref(x, w, a.stride, a.pad, a.dilation, a.groups)
    bound = conv_ref(np.abs(x), np.abs(w), a.stride, a.pad, a.dilation,
                     a.groups)
    oh, ow = want.shape[2:]
    inputs = [("x", xs), ("w", ws)]
    if a.bias:
        bias = data((a.f, 1, 1)).astype(np.float32)
        want = want + bias
        bound = bound + np.abs(bias)
        inputs.append(("b", bias))
    want = activation(a.act, want)
    if a.residual:
        res = data(want.shape).astype(np.float32)
        want = want + res
        bound = bound + np.abs(res)
        inputs.append(("r", res))
    taps = a.c // a.groups * a.kh * a.kw
    tol = 1.5 * (taps + 4) * U * bound + 2.0 ** -20 * U

    src = os.path.join(tmp, "graph.mlir")
    open(src, "w").write(graph(a, oh, ow))
    co = os.path.join(tmp, "graph.co")
    subprocess.run([a.crest_compile, src, f"--target={a.chip}",
                    "--emit=hsaco", "-o", co], check=True)
    host = subprocess.run(
        [a.crest_opt, src, f"--crest-attach-target=chip={a.chip}",
         "--crest-fuse-epilogues", "--crest-select-config",
         "--crest-lower-to-gpu"],
        check=True, capture_output=True, text=True).stdout
    launches = find_launches(host)
    if len(launches) != 1 or launches[0][2][1:] != (1, 1):
        sys.exit(f"expected the whole graph in one kernel, got {launches}")
    kernel, (gx, gy, gz), (block, _, _) = launches[0]
    for name, arr in inputs:
        np.save(f"{tmp}/{name}.npy", arr)

    shape = "x".join(map(str, want.shape))
    name = (f"conv {a.precision} {a.n}x{a.c}x{a.h}x{a.w} f={a.f} "
            f"k={a.kh}x{a.kw} s={a.stride[0]},{a.stride[1]} "
            f"p={','.join(map(str, a.pad))} g={a.groups} {a.chip}"
            f"{' +bias' if a.bias else ''}"
            f"{' +' + a.act if a.act != 'none' else ''}"
            f"{' +residual' if a.residual else ''}")
    ok = True
    for q, seed in SCHEDULES[:a.schedules]:
        cmd = [a.crest_emu, co, f"--kernel={kernel}",
               f"--grid={gx},{gy},{gz}", f"--block={block}",
               f"--quantum={q}"]
        cmd += [f"--arg=in:{tmp}/{n}.npy" for n, _ in inputs]
        cmd.append(f"--arg=out:{tmp}/y.npy=f32:{shape}")
        if seed:
            cmd.append(f"--seed={seed}")
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.monotonic() - start
        if proc.returncode not in (0, 2):
            sys.stderr.write(proc.stdout + proc.stderr)
            return 1
        races = int(re.search(r"races (\d+)", proc.stdout).group(1))
        got = np.load(f"{tmp}/y.npy").astype(np.float64).reshape(want.shape)
        err = np.abs(got - want)
        good = bool(np.all(err <= tol)) and races == 0  # NaN fails too
        ok &= good
        print(f"{name} q={q} seed={seed}: max_abs_err={float(err.max()):.3g} "
              f"max_err_over_bound={float((err / tol).max()):.3g} "
              f"races={races} time={elapsed:.2f}s {'PASS' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
