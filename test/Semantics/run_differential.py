#!/usr/bin/env python3
"""Differential test of Crest's elementwise semantics (docs/Semantics.md):
every elementwise op and cast of the dialect, on every float element type,
over special values (NaN, +-inf, +-0, denormals, overflow, fp8 saturation)
and random ones, computed three ways that must agree:

  fused       in a matmul epilogue: m = a @ b is exactly 1 everywhere
              (a = 0.5, b = 0.125, K = 16), y = x * m (= x exactly), then
              the op on y -- one kernel: matmul -> mul -> op;
  standalone  the op on x in its own elementwise kernel;
  reference   crest-run --verify's reference evaluator (written with
              --reference-dir), which takes its values from crest/Semantics.

One package per (chip, element type) holds all ops (one kernel each), run
once on the emulator. Checks per output element:
  - fused and standalone: the same bits (NaNs: both NaN);
  - device and reference: the same bits for correctly rounded ops; within
    the op's ulp bound (ULP below, the table of docs/Semantics.md) for ops
    with transcendental steps, with NaN, infinities and zeros matching
    exactly;
  - correctly rounded ops and casts also against NumPy here (float32
    arithmetic rounded once to the result type; casts by the documented
    rule), independently of Crest's code;
  - crest-run --verify passes.
Prints one line per output and "<chip> <type>: N outputs, F failed".
"""
import argparse
import math
import os
import subprocess
import sys

import numpy as np

# Binary/unary op spellings: name -> (mnemonic, attributes).
UNARY = {
    "relu": "", "neg": "", "abs": "", "sqrt": "", "exp": "", "tanh": "",
    "erf": "", "sigmoid": "", "hardswish": "",
    "hardsigmoid": " {alpha = 0.166666672 : f32}",
    "clip": " min -0.5 max 6.0", "gelu": "",
    "gelu_tanh": " approximate = tanh",
    "leaky_relu": " {alpha = 1.250000e-01 : f32}", "log": "",
    "floor": "", "ceil": "", "round": "",
}
BINARY = ["add", "sub", "mul", "div", "max", "min", "pow"]
# ulp bounds of the ops that are not correctly rounded (docs/Semantics.md),
# for f32 results; narrower results: 1.
ULP32 = {"exp": 2, "log": 2, "sigmoid": 4, "tanh": 8, "erf": 8, "gelu": 8,
         "gelu_tanh": 8, "pow": 128}
INEXACT = set(ULP32)
GELU_ABS = 2.0 ** -22

BITS = {"f32": 32, "f16": 16, "bf16": 16, "i32": 32, "i8": 8,
        "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8}
N = 48  # x is N x N: x[i][j] = V[j], z[i][j] = V[i] (every pair)
K = 16


# --- element types (independent of Crest) ---------------------------------

def bf16_round(x32):
    """float32 array -> bf16 bits, round to nearest even, NaN quiet."""
    b = np.asarray(x32, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x32, np.float32))
    return np.where(nan, ((b >> 16) | 0x40).astype(np.uint16), r)


def bf16_value(bits):
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


def round_to(x32, t):
    """Rounds float32 values once to float type t; returns float32 values."""
    with np.errstate(all="ignore"):
        if t == "f32":
            return np.asarray(x32, np.float32)
        if t == "f16":
            return np.asarray(x32, np.float32).astype(np.float16).astype(np.float32)
        if t == "bf16":
            return bf16_value(bf16_round(x32))
    raise ValueError(t)


def specials(t):
    """Special values of float type t (as float32), then random ones."""
    if t == "f32":
        tiny, dmax, big = 2.0 ** -149, 2.0 ** -126 - 2.0 ** -149, 3.4028235e38
    elif t == "f16":
        tiny, dmax, big = 2.0 ** -24, 2.0 ** -14 - 2.0 ** -24, 65504.0
    else:
        tiny, dmax, big = 2.0 ** -133, 2.0 ** -126 - 2.0 ** -133, 3.3895314e38
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, dmax, -dmax,
         2 * dmax, big, -big, 1.0, -1.0, 0.5, 3.0, -3.0, 6.0, -0.5, 2.5,
         -2.5, 1e-3, 100.0, -100.0, 10.0, 90.0, -90.0, 250.0, 500.0, -1e4,
         7.0, 2.0]
    rng = np.random.default_rng(11)
    v += list(rng.normal(0, 3, N - len(v)))
    return round_to(np.array(v, np.float32), t)


def cast_ref(x32, src, dst):
    """crest.cast by the documented rule, from float32 values of src."""
    with np.errstate(all="ignore"):
        if dst in ("i32", "i8"):
            lo, hi = (-128, 127) if dst == "i8" else (-2 ** 31, 2 ** 31 - 1)
            d = np.trunc(x32.astype(np.float64))
            d = np.where(np.isnan(d), 0, np.clip(d, lo, hi))
            return d
        if dst in ("f32", "f16", "bf16"):
            return round_to(x32, dst).astype(np.float64)
    return None  # fp8: checked against the reference only


def ordered(bits, width):
    """Maps sign-magnitude float bits to integers ordered like the values."""
    b = bits.astype(np.int64)
    sign = (b >> (width - 1)) & 1
    mag = b & ((1 << (width - 1)) - 1)
    return np.where(sign == 1, -mag, mag)


# --- files ------------------------------------------------------------------

def to_file(values32, t):
    if t == "bf16":
        return bf16_round(values32)
    if t == "f16":
        return values32.astype(np.float16)
    return values32.astype(np.float32)


def decode(arr, t):
    """An output file's array -> (float64 values, raw bits)."""
    if t == "bf16":
        bits = arr.view(np.uint16)
        return bf16_value(bits).astype(np.float64), bits.astype(np.uint64)
    if t.startswith("f8"):
        return None, arr.view(np.uint8).astype(np.uint64)
    if t in ("i32", "i8"):
        return arr.astype(np.float64), arr.astype(np.int64).astype(np.uint64) & (
            (1 << BITS[t]) - 1)
    raw = arr.view(np.uint16 if t == "f16" else np.uint32).astype(np.uint64)
    return arr.astype(np.float64), raw


def tensor(t):
    return f"tensor<{N}x{N}x{t}>"


def module(t, casts):
    T = tensor(t)
    A, B = f"tensor<{N}x{K}x{t}>", f"tensor<{K}x{N}x{t}>"
    outs = []  # (name, result type, op kind)
    body = []
    args = [f'%x: {T} {{crest.name = "x"}}', f'%z: {T} {{crest.name = "z"}}',
            f'%b: {B} {{crest.name = "b"}}']
    prec = f"precision <lhs = {t}, rhs = {t}, acc = f32, out = {t}>"
    cases = ([(op, "u") for op in UNARY] + [(op, "b") for op in BINARY] +
             [(f"cast_{d}", "c") for d in casts])
    for i, (op, kind) in enumerate(cases):
        args.append(f'%a{i}: {A} {{crest.name = "a{i}"}}')
        rt = tensor(op[5:]) if kind == "c" else T
        for where in ("s", "f"):
            src = "%x"
            if where == "f":
                body.append(f"%m{i} = crest.matmul %a{i}, %b {prec} : {A}, {B} -> {T}")
                body.append(f"%y{i} = crest.mul %x, %m{i} : {T}, {T} -> {T}")
                src = f"%y{i}"
            name = f"{where}_{op}"
            if kind == "u":
                mn = "gelu" if op == "gelu_tanh" else op
                body.append(f"%{name} = crest.{mn} {src}{UNARY[op]} : {T}")
            elif kind == "b":
                body.append(f"%{name} = crest.{op} {src}, %z : {T}, {T} -> {T}")
            else:
                body.append(f"%{name} = crest.cast {src} : {T} to {rt}")
            outs.append((name, rt, op))
    results = ", ".join(f'{rt} {{crest.name = "{n}"}}' for n, rt, _ in outs)
    text = (f"func.func @diff({', '.join(args)})\n    -> ({results}) {{\n  " +
            "\n  ".join(body) +
            f"\n  return {', '.join('%' + n for n, _, _ in outs)} : "
            f"{', '.join(rt for _, rt, _ in outs)}\n}}\n")
    return text, outs, len(cases)


def numpy_expect(op, x, z, t):
    """Correctly rounded ops and casts, from float32 values x, z of type t;
    None where NumPy is not the oracle (transcendentals, fp8 casts)."""
    f = np.float32
    with np.errstate(all="ignore"):
        def fmax(a, b):
            r = np.where(a > b, a, b)
            both0 = (a == 0) & (b == 0)
            r = np.where(both0, np.where(np.signbit(a) & np.signbit(b), f(-0.0), f(0.0)), r)
            return np.where(np.isnan(a) | np.isnan(b), f(np.nan), r).astype(f)

        def fmin(a, b):
            r = np.where(a < b, a, b)
            both0 = (a == 0) & (b == 0)
            r = np.where(both0, np.where(np.signbit(a) | np.signbit(b), f(-0.0), f(0.0)), r)
            return np.where(np.isnan(a) | np.isnan(b), f(np.nan), r).astype(f)

        if op.startswith("cast_"):
            return cast_ref(x, t, op[5:])
        r = {
            "add": lambda: x + z, "sub": lambda: x - z, "mul": lambda: x * z,
            "div": lambda: x / z, "max": lambda: fmax(x, z),
            "min": lambda: fmin(x, z), "relu": lambda: fmax(x, np.zeros_like(x)),
            "neg": lambda: -x, "abs": lambda: np.abs(x), "sqrt": lambda: np.sqrt(x),
            "clip": lambda: fmin(fmax(x, np.full_like(x, -0.5)), np.full_like(x, 6.0)),
            "hardswish": lambda: (x * fmin(fmax(x + f(3), np.zeros_like(x)),
                                           np.full_like(x, 6.0))) / f(6),
            # NaN and -0 are not below zero and pass through.
            "leaky_relu": lambda: np.where(x < 0, f(0.125) * x, x),
            # Exact in every type; np.rint rounds ties to even.
            "floor": lambda: np.floor(x), "ceil": lambda: np.ceil(x),
            "round": lambda: np.rint(x),
            "hardsigmoid": lambda: fmax(np.zeros_like(x), fmin(
                np.ones_like(x), f(0.166666672) * x + f(0.5))),
        }.get(op)
        if r is None:
            return None
        return round_to(np.asarray(r(), f), t).astype(np.float64)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    p.add_argument("--dtype", required=True, choices=["f32", "f16", "bf16"])
    p.add_argument("--tmp", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-run", required=True)
    p.add_argument("--show", type=int, default=1,
                   help="mismatches to print per output")
    p.add_argument("--crest-opt")
    p.add_argument("--crest-emu")
    a = p.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    t = a.dtype
    casts = [d for d in ("f32", "f16", "bf16", "i32", "i8") if d != t]
    if a.chip == "gfx942":  # FNUZ fp8 (gfx90a has no fp8)
        casts += ["f8E4M3FNUZ", "f8E5M2FNUZ"]
    text, outs, ncases = module(t, casts)
    src = os.path.join(a.tmp, "diff.mlir")
    open(src, "w").write(text)
    pkg = os.path.join(a.tmp, "diff.crest")
    r = subprocess.run([a.crest_compile, src, f"--target={a.chip}", "-o", pkg],
                       capture_output=True, text=True)
    if r.returncode:
        print(r.stderr)
        print(f"{a.chip} {t}: compile FAIL")
        return 1

    v = specials(t)
    x = np.tile(v, (N, 1))            # x[i][j] = v[j]
    z = np.tile(v[:, None], (1, N))   # z[i][j] = v[i]
    inputs = {"x": to_file(x, t), "z": to_file(z, t),
              "b": to_file(np.full((K, N), 0.125, np.float32), t)}
    for i in range(ncases):
        inputs[f"a{i}"] = to_file(np.full((N, K), 0.5, np.float32), t)
    cmd = [a.crest_run, pkg, "--device=emu", "--verify",
           f"--reference-dir={a.tmp}/ref"]
    os.makedirs(f"{a.tmp}/ref", exist_ok=True)
    for name, arr in inputs.items():
        np.save(f"{a.tmp}/in_{name}.npy", arr)
        cmd += ["--input", f"{name}={a.tmp}/in_{name}.npy"]
    for name, _, _ in outs:
        cmd += ["--output", f"{name}={a.tmp}/{name}.npy"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    failed = 0
    if r.returncode or "verify: PASS" not in r.stdout:
        print(r.stdout + r.stderr)
        print("crest-run --verify: FAIL")
        failed += 1

    ops = {}
    for name, rt, op in outs:
        ops.setdefault(op, []).append((name, rt))
    for op, pair in ops.items():
        (sname, rt), (fname, _) = pair
        rtype = rt.split("x")[-1].rstrip(">")
        sv, sb = decode(np.load(f"{a.tmp}/{sname}.npy"), rtype)
        fv, fb = decode(np.load(f"{a.tmp}/{fname}.npy"), rtype)
        rv, rb = decode(np.load(f"{a.tmp}/ref/{sname}.npy"), rtype)
        msgs = []
        is_float = not rtype.startswith("i")
        width = BITS[rtype]

        def nan_mask(bits):
            if not is_float:
                return np.zeros(bits.shape, bool)
            if rtype.startswith("f8"):
                return bits == 0x80
            e = {32: 8, 16: 5 if rtype == "f16" else 8}[width]
            man = width - 1 - e
            return (((bits >> man) & ((1 << e) - 1)) == (1 << e) - 1) & (
                (bits & ((1 << man) - 1)) != 0)

        def same(b1, b2):
            n1, n2 = nan_mask(b1), nan_mask(b2)
            return (n1 & n2) | (~n1 & ~n2 & (b1 == b2))

        bad = ~same(sb, fb)
        if bad.any():
            i = np.argwhere(bad)[0]
            msgs.append(f"fused != standalone at {tuple(i)} (x={x[tuple(i)]}, "
                        f"z={z[tuple(i)]}): {fb[tuple(i)]:#x} vs {sb[tuple(i)]:#x}")
        if op in INEXACT and is_float:
            bound = ULP32[op] if width == 32 else 1
            n1, n2 = nan_mask(sb), nan_mask(rb)
            d = np.abs(ordered(sb, width) - ordered(rb, width))
            # Zeros of either sign are one value; infinities must match.
            # gelu's 1 + erf (or 1 + tanh) cancels for negative x: its
            # absolute error is bounded by GELU_ABS * |x| instead.
            near = np.zeros(d.shape, bool)
            if op in ("gelu", "gelu_tanh"):
                near = np.abs(sv - rv) <= GELU_ABS * np.abs(x.astype(np.float64))
            bad = (n1 != n2) | (~n1 & ~n2 & (d > bound) & ~near)
            dmax = int(d[~n1 & ~n2 & ~near].max(initial=0))
            label = f"max {dmax} ulp (bound {bound})"
        else:
            bad = ~same(sb, rb)
            label = "bit-exact"
        for i in [tuple(j) for j in np.argwhere(bad)[:a.show]]:
            msgs.append(f"device != reference at {i} (x={x[i]}, z={z[i]}): "
                        f"{sb[i]:#x} vs {rb[i]:#x}")
        want = numpy_expect(op, x, z, t)
        if want is not None:
            got = sv
            ok = (np.isnan(want) & np.isnan(got)) | (want == got) & (
                (np.signbit(want) == np.signbit(got)) | (not is_float))
            if not ok.all():
                i = tuple(np.argwhere(~ok)[0])
                msgs.append(f"device != NumPy at {i} (x={x[i]}, z={z[i]}): "
                            f"{got[i]!r} vs {want[i]!r}")
            label += ", = NumPy"
        status = "FAIL" if msgs else "PASS"
        failed += bool(msgs)
        print(f"{a.chip} {t} {op} -> {rtype}: {label}: {status}")
        for m in msgs:
            print("  " + m)
    print(f"{a.chip} {t}: {len(ops)} ops, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
