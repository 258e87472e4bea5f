#!/usr/bin/env python3
"""Operand prologues end to end: graphs whose contraction operands are
computed by casts (which crest-fuse-epilogues fuses into the contraction's
operand loads) and by per-channel scale-and-shift ops (crest.kernels with
those prologues written out: the pass leaves them to kernels of their own),
compiled for one chip (explicit configurations select each load path), run
on the emulator and compared with NumPy.

Every value is a small integer or a power-of-two multiple of one, so the
prologue, the f16 rounding and the f32 sums are exact: any difference at
all is a bug. The shift of the scale-and-shift cases makes a zero input
non-zero after the prologue, so padding and the tiles' overhang past M, N
and K must be zero in the operand, not in its source.

  run_prologue.py BIN_DIR TMP_DIR [--target gfx942] [--case NAME]

prints one line per case
  <name>: <launches> launch(es) [<kernel ops>], max_abs_err E, PASS|FAIL
and exits 1 if a case fails or does not compile to one launch.
"""
import os
import subprocess
import sys

import numpy as np

from graph_cases import Cases, launched_kernels, ty
# run_conv.py (this directory): the convolution from its definition.
from run_conv import conv_ref


PREC = "precision <lhs = f16, rhs = f16, acc = f32, out = f32>"

CASES = Cases()
case = CASES.case
TARGET = ["gfx942"]


def matmul_case(m, n, k, config, lhs_cast=True, rhs_prologue=None,
                transpose_rhs=False, lhs_shift=False):
    """x (f32, cast to f16 when lhs_cast; with lhs_shift x + u per K index
    first) @ w: w is f16, or f32 with rhs_prologue "cast" or "scale-shift"
    (w * s + t per output column, then the cast)."""
    wshape = (n, k) if transpose_rhs else (k, n)
    welt = "f16" if rhs_prologue is None else "f32"
    lines = []
    args = [("x", (m, k), "f32" if lhs_cast else "f16"), ("w", wshape, welt)]
    lhs = "%x"
    if lhs_shift:
        args.append(("u", (k,), "f32"))
        lines.append(f"%xu = crest.add %x, %u : {ty((m, k), 'f32')}, "
                     f"{ty((k,), 'f32')} -> {ty((m, k), 'f32')}")
        lhs = "%xu"
    if lhs_cast:
        lines.append(f"%xh = crest.cast {lhs} : {ty((m, k), 'f32')} to "
                     f"{ty((m, k), 'f16')}")
        lhs = "%xh"
    rhs = "%w"
    cshape = (n, 1) if transpose_rhs else (n,)
    if rhs_prologue == "scale-shift":
        args += [("s", cshape, "f32"), ("t", cshape, "f32")]
        w4 = ty(wshape, "f32")
        lines.append(f"%ws = crest.mul %w, %s : {w4}, {ty(cshape, 'f32')} -> "
                     f"{w4}")
        lines.append(f"%wt = crest.add %ws, %t : {w4}, {ty(cshape, 'f32')} "
                     f"-> {w4}")
        rhs = "%wt"
    if rhs_prologue is not None:
        lines.append(f"%wh = crest.cast {rhs} : {ty(wshape, 'f32')} to "
                     f"{ty(wshape, 'f16')}")
        rhs = "%wh"
    trans = " transpose_rhs" if transpose_rhs else ""
    cfg = f" config <{config}>" if config else ""
    if TARGET[0] in ("gfx908", "gfx90a"):
        cfg = cfg.replace("_f16\"", "f16\"")  # CDNA1/2 instruction names
    lines.append(f"%y = crest.matmul {lhs}, {rhs}{trans} {PREC}{cfg} : "
                 f"{ty((m, k), 'f16')}, {ty(wshape, 'f16')} -> "
                 f"{ty((m, n), 'f32')}")

    def reference(v):
        w = v["w"].astype(np.float64)
        if rhs_prologue == "scale-shift":
            w = w * v["s"] + v["t"]
        w = w.astype(np.float16).astype(np.float64)
        if transpose_rhs:
            w = w.T
        x = v["x"] + v["u"] if lhs_shift else v["x"]
        return x.astype(np.float16).astype(np.float64) @ w

    return args, lines, ("y", (m, n)), reference


@case
def matmul_lhs_cast_lds():
    # Workgroup scope, two LDS stages; no tile divides M, N or K.
    return matmul_case(130, 77, 200, 'mma = "v_mfma_f32_32x32x8_f16", '
                       'workgroup_tile = [64, 64, 32], wave_tile = [32, 32], '
                       'scope = workgroup, stages = 2')


@case
def matmul_lhs_cast_global():
    # Wavefront scope: each lane loads its fragments from global memory.
    return matmul_case(130, 77, 200, 'mma = "v_mfma_f32_16x16x16_f16", '
                       'workgroup_tile = [32, 32, 16], wave_tile = [16, 16], '
                       'scope = wavefront, stages = 1')


@case
def matmul_rhs_transposed_cast():
    # A K-contiguous (transposed) rhs through LDS, split over two K slices.
    return matmul_case(64, 96, 136, 'mma = "v_mfma_f32_32x32x8_f16", '
                       'workgroup_tile = [32, 32, 32], wave_tile = [32, 32], '
                       'scope = wavefront, stages = 2, split_k = 2',
                       lhs_cast=False, rhs_prologue="cast",
                       transpose_rhs=True)


@case
def matmul_rhs_scale_shift():
    # A K-major rhs (transposed in registers on its way to LDS) with a
    # per-column scale and shift: K = 200 overhangs the 32-deep tile.
    return matmul_case(96, 80, 200, 'mma = "v_mfma_f32_32x32x8_f16", '
                       'workgroup_tile = [64, 64, 32], wave_tile = [32, 32], '
                       'scope = workgroup, stages = 3',
                       rhs_prologue="scale-shift")


@case
def matmul_both_shifted():
    # Both operands K-contiguous with shifts, K = 200 overhanging the tile:
    # the elements past K must be zero after the prologue on both sides
    # (t * u would otherwise enter every sum).
    return matmul_case(64, 64, 200, 'mma = "v_mfma_f32_32x32x8_f16", '
                       'workgroup_tile = [64, 64, 32], wave_tile = [32, 32], '
                       'scope = workgroup, stages = 2', lhs_shift=True,
                       rhs_prologue="scale-shift", transpose_rhs=True)


@case
def matmul_skinny():
    # M = 1: the skinny path (rhs_vector), both operands cast.
    return matmul_case(1, 256, 520, 'mma = "v_mfma_f32_16x16x16_f16", '
                       'workgroup_tile = [16, 128, 32], wave_tile = [16, 128], '
                       'scope = wavefront, stages = 2, split_k = 4, '
                       'rhs_vector = 8', rhs_prologue="cast")


@case
def batch_matmul_masked_rhs():
    # select(mask, w, 0) then the cast, on a rhs broadcast over the batch:
    # the prologue reads w (not the bool mask) as the operand, the mask per
    # element.
    b, m, n, k = 3, 40, 48, 64
    args = [("x", (b, m, k), "f16"), ("w", (1, k, n), "f32"),
            ("m", (1, k, n), "i1")]
    w3, h3 = ty((1, k, n), "f32"), ty((1, k, n), "f16")
    lines = [f"%z = arith.constant dense<0.0> : tensor<f32>",
             f"%s = crest.select %m, %w, %z : {ty((1, k, n), 'i1')}, {w3}, "
             f"tensor<f32> -> {w3}",
             f"%h = crest.cast %s : {w3} to {h3}",
             f"%y = crest.batch_matmul %x, %h {PREC} : "
             f"{ty((b, m, k), 'f16')}, {h3} -> {ty((b, m, n), 'f32')}"]

    def reference(v):
        w = np.where(v["m"] != 0, v["w"], 0.0)
        return np.einsum("bmk,kn->bmn", v["x"],
                         w[0].astype(np.float16).astype(np.float64))

    return args, lines, ("y", (b, m, n)), reference


@case
def batch_matmul_lhs_cast():
    b, m, n, k = 3, 40, 48, 64
    args = [("x", (b, m, k), "f32"), ("w", (b, k, n), "f16")]
    lines = [f"%xh = crest.cast %x : {ty((b, m, k), 'f32')} to "
             f"{ty((b, m, k), 'f16')}",
             f"%y = crest.batch_matmul %xh, %w {PREC} : "
             f"{ty((b, m, k), 'f16')}, {ty((b, k, n), 'f16')} -> "
             f"{ty((b, m, n), 'f32')}"]

    def reference(v):
        return np.einsum("bmk,bkn->bmn",
                         v["x"].astype(np.float16).astype(np.float64),
                         v["w"].astype(np.float64))

    return args, lines, ("y", (b, m, n)), reference


def conv_case(c, f, hw, kernel, stride, pad, input_prologue, filter_scale):
    """conv(prologue(x), w): input_prologue "scale-shift" (x * s[c] + t[c],
    then the cast) or "scale" (the squeeze-excite multiply, then the cast);
    with filter_scale the filter is f32, scaled per output channel and cast
    (the rhs prologue)."""
    x4 = (1, c, hw, hw)
    oh = (hw + 2 * pad - kernel) // stride + 1
    w4 = (f, c, kernel, kernel)
    y4 = (1, f, oh, oh)
    cs = (1, c, 1, 1)
    args = [("x", x4, "f32"), ("s", cs, "f32")]
    lines = [f"%xs = crest.mul %x, %s : {ty(x4, 'f32')}, {ty(cs, 'f32')} -> "
             f"{ty(x4, 'f32')}"]
    last = "%xs"
    if input_prologue == "scale-shift":
        args.append(("t", cs, "f32"))
        lines.append(f"%xt = crest.add %xs, %t : {ty(x4, 'f32')}, "
                     f"{ty(cs, 'f32')} -> {ty(x4, 'f32')}")
        last = "%xt"
    lines.append(f"%xh = crest.cast {last} : {ty(x4, 'f32')} to "
                 f"{ty(x4, 'f16')}")
    filt = "%w"
    if filter_scale:
        fs = (f, 1, 1, 1)
        args += [("w", w4, "f32"), ("g", fs, "f32")]
        lines.append(f"%wg = crest.mul %w, %g : {ty(w4, 'f32')}, "
                     f"{ty(fs, 'f32')} -> {ty(w4, 'f32')}")
        lines.append(f"%wh = crest.cast %wg : {ty(w4, 'f32')} to "
                     f"{ty(w4, 'f16')}")
        filt = "%wh"
    else:
        args.append(("w", w4, "f16"))
    strides = f" strides [{stride}, {stride}]" if stride != 1 else ""
    pads = f" pads [{pad}, {pad}, {pad}, {pad}]" if pad else ""
    lines.append(f"%y = crest.conv2d %xh, {filt}{strides}{pads} {PREC} : "
                 f"{ty(x4, 'f16')}, {ty(w4, 'f16')} -> {ty(y4, 'f32')}")

    def reference(v):
        x = v["x"] * v["s"]
        if input_prologue == "scale-shift":
            x = x + v["t"]
        w = v["w"].astype(np.float64)
        if filter_scale:
            w = w * v["g"]
        return conv_ref(x.astype(np.float16).astype(np.float64),
                        w.astype(np.float16).astype(np.float64),
                        (stride, stride), (pad,) * 4, (1, 1), 1)

    return args, lines, ("y", y4), reference


@case
def conv3x3_scale_shift():
    # The implicit-GEMM gather: stride 2, padding 1 (the padding must stay
    # zero although the shift is not).
    return conv_case(8, 16, 15, 3, 2, 1, "scale-shift", False)


@case
def conv1x1_excite():
    # The squeeze-excite multiply before a projection: a pointwise
    # convolution reads its input as a transposed C x (H * W) matrix.
    return conv_case(24, 40, 10, 1, 1, 0, "scale", False)


@case
def conv3x3_filter_scale():
    # A filter scaled per output channel: the rhs prologue's coordinates
    # come from the filter viewed as F x (C * KH * KW).
    return conv_case(8, 16, 9, 3, 1, 1, "scale", True)


def values(name, shape, elt, rng):
    """Non-zero small integers (inputs) or powers of two (scales, in
    names s and g), exact in f16 after the prologue."""
    if elt == "i1":
        return rng.random(shape) < 0.5
    if name in ("s", "g"):
        v = rng.choice([-2.0, -1.0, 0.5, 1.0, 2.0, 4.0], size=shape)
    elif name in ("t", "u"):
        v = rng.integers(1, 4, size=shape).astype(np.float64)
    else:
        v = rng.integers(-4, 5, size=shape).astype(np.float64)
        v[v == 0] = 3
    return v.astype(np.float16 if elt == "f16" else np.float32)


def run(name, target, bin_dir, tmp):
    TARGET[0] = target
    inputs, lines, (out_name, out_shape), reference = CASES.cases[name]()
    out = ty(out_shape, "f32")
    if len(inputs) == 2:
        # Casts only: crest-fuse-epilogues forms the kernel.
        arg_text = ", ".join(f"%{n}: {ty(s, e)} {{crest.name = \"{n}\"}}"
                             for n, s, e in inputs)
        body = "".join("  " + line + "\n" for line in lines)
        result = "%y"
    else:
        # Prologues that read other tensors (per-channel scales and shifts)
        # are kernels crest-fuse-epilogues does not form (slower than a
        # kernel of their own under the timing model); written out here,
        # they test the code generator.
        arg_text = ", ".join(f"%in_{n}: {ty(s, e)} {{crest.name = \"{n}\"}}"
                             for n, s, e in inputs)
        names = ", ".join(f"%in_{n}" for n, _, _ in inputs)
        types = ", ".join(ty(s, e) for _, s, e in inputs)
        block = ", ".join(f"%{n}: {ty(s, e)}" for n, s, e in inputs)
        body = (f"  %k = crest.kernel ins({names} : {types}) -> {out} {{\n"
                f"  ^bb0({block}):\n" +
                "".join("    " + line + "\n" for line in lines) +
                f"    crest.yield %y : {out}\n  }}\n")
        result = "%k"
    graph = (f"func.func @prologue({arg_text})\n"
             f"    -> ({out} {{crest.name = \"y\"}}) {{\n" + body +
             f"  return {result} : {out}\n}}\n")
    work = os.path.join(tmp, name)
    os.makedirs(work, exist_ok=True)
    source = os.path.join(work, "graph.mlir")
    with open(source, "w") as f:
        f.write(graph)
    rng = np.random.default_rng(5)
    data = {}
    command = [os.path.join(bin_dir, "crest-run"),
               os.path.join(work, "graph.crest"), "--device=emu",
               "--output", "y=" + os.path.join(work, "y.npy")]
    for n, s, e in inputs:
        data[n] = values(n, s, e, rng)
        path = os.path.join(work, n + ".npy")
        np.save(path, data[n])
        command += ["--input", f"{n}={path}"]
    subprocess.run([os.path.join(bin_dir, "crest-compile"), source,
                    "--target=" + target, "-o",
                    os.path.join(work, "graph.crest")], check=True)
    kernels = launched_kernels(bin_dir, os.path.join(work, "graph.crest"))
    subprocess.run(command, check=True, capture_output=True)
    got = np.load(os.path.join(work, "y.npy")).astype(np.float64)
    want = reference({k: v.astype(np.float64) for k, v in data.items()})
    assert np.abs(want).max() > 0
    error = float(np.abs(got - want).max()) if np.isfinite(got).all() \
        else float("inf")
    ok = error == 0 and len(kernels) == 1
    print("%s: %d launch(es) [%s], max_abs_err %g, %s" % (
        name, len(kernels), " ".join(kernels), error,
        "PASS" if ok else "FAIL"))
    return ok


if __name__ == "__main__":
    sys.exit(CASES.main(run))
