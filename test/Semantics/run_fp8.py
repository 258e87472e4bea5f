#!/usr/bin/env python3
"""fp8 codec conformance (issue 12 item 5): the four 8-bit float formats
Crest knows -- E4M3 FNUZ and E5M2 FNUZ (gfx942's), E4M3FN and E5M2 (OCP,
gfx950's) -- decoded and encoded by an independent model written here
from the formats' definitions, against:

  folding     crest-opt --canonicalize of crest.cast on constants (all
              four formats; the ONNX importer's and the op folders' path);
  device      a crest.cast kernel compiled for gfx942 and run on the
              emulator (the FNUZ formats, gfx942's fp8);
  reference   crest-run's reference evaluator (--reference-dir), same
              kernels.

Decoding: all 256 codes of each format. Encoding (f32 -> fp8, crest.cast's
rule: round to nearest even, saturate to the largest finite value,
infinities included; NaN to the format's NaN): --count random f32 values
(device and reference) drawn to cover every binade of the format, the
ties, the saturation boundary, denormals, zeros, infinities and NaNs, and
a subset of them through folding. Prints one line per check and exits 1 on
any mismatch.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

# name -> (exponent bits, mantissa bits, bias, special-value convention):
# fnuz: no infinities, no negative zero, 0x80 the only NaN;
# fn:   OCP E4M3FN, no infinities, S.1111.111 is NaN;
# ieee: OCP E5M2, IEEE-like infinities and NaNs.
FORMATS = {
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f8E4M3FN": (4, 3, 7, "fn"),
    "f8E5M2": (5, 2, 15, "ieee"),
}
DEVICE_FORMATS = ["f8E4M3FNUZ", "f8E5M2FNUZ"]


def decode(code, fmt):
    """The value of an 8-bit code (a Python float; NaN for NaNs)."""
    e, m, bias, kind = FORMATS[fmt]
    sign = code >> 7
    exp = (code >> m) & ((1 << e) - 1)
    man = code & ((1 << m) - 1)
    if kind == "fnuz" and code == 0x80:
        return float("nan")
    if kind == "fn" and exp == (1 << e) - 1 and man == (1 << m) - 1:
        return float("nan")
    if kind == "ieee" and exp == (1 << e) - 1:
        return float("nan") if man else (-1) ** sign * float("inf")
    if exp == 0:
        value = man / 2.0 ** m * 2.0 ** (1 - bias)
    else:
        value = (1 + man / 2.0 ** m) * 2.0 ** (exp - bias)
    return -value if sign else value


def table(fmt):
    """The non-negative finite codes of fmt and their values, ascending."""
    codes = [c for c in range(128) if np.isfinite(decode(c, fmt))]
    return np.array(codes), np.array([decode(c, fmt) for c in codes])


def nan_code(fmt, negative):
    kind = FORMATS[fmt][3]
    if kind == "fnuz":
        return 0x80
    sign = 0x80 if negative else 0
    return sign | (0x7f if kind == "fn" else 0x7e)


def encode(x, fmt):
    """crest.cast f32 -> fmt for float64 values x (exactly the f32 values):
    round to nearest even, saturating; returns uint8 codes."""
    codes, values = table(fmt)
    fnuz = FORMATS[fmt][3] == "fnuz"
    with np.errstate(invalid="ignore"):
        return _encode(np.asarray(x, np.float64), fmt, codes, values, fnuz)


def _encode(x, fmt, codes, values, fnuz):
    mag = np.abs(x)
    finite = np.isfinite(mag)
    clipped = np.where(finite, np.minimum(mag, values[-1]), values[-1])
    hi = np.searchsorted(values, clipped, side="left")   # values[hi] >= mag
    hi = np.minimum(hi, len(values) - 1)
    lo = np.maximum(hi - 1, 0)
    exact = values[hi] == clipped
    dlo, dhi = clipped - values[lo], values[hi] - clipped
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (codes[hi] % 2 == 0))
    code = np.where(exact | pick_hi, codes[hi], codes[lo])
    negative = np.signbit(x)
    # Negative values get the sign bit, except FNUZ's zero (it has no -0).
    signed = np.where(negative & ~(fnuz & (code == 0)), code | 0x80, code)
    nan = np.isnan(x)
    nans = np.array([nan_code(fmt, n) for n in negative[nan]], np.int64)
    signed = signed.astype(np.int64)
    signed[nan] = nans
    return signed.astype(np.uint8)


def samples(count, fmt_list):
    """Random f32 values covering every fmt's range, plus the special ones:
    exact codes, midpoints (ties) and their neighbours, the saturation
    boundary, denormals, zeros, infinities and NaNs."""
    rng = np.random.default_rng(2026)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30,
               np.float32(1e-45), -np.float32(1e-45)]
    for fmt in fmt_list:
        _, values = table(fmt)
        mids = (values[1:] + values[:-1]) / 2
        for v in np.concatenate([values, mids, [values[-1] * 1.0625,
                                                values[-1] * 1.125,
                                                values[-1] * 2]]):
            f = np.float32(v)
            special += [f, -f, np.nextafter(f, np.float32(np.inf)),
                        np.nextafter(f, np.float32(-np.inf))]
    special = np.array(special, np.float32)
    rest = count - len(special)
    # Log-uniform magnitudes from far below the smallest denormal to far
    # above the largest value, random signs; a tenth arbitrary bit patterns.
    mags = 2.0 ** rng.uniform(-30, 20, rest - rest // 10)
    signs = np.where(rng.random(len(mags)) < 0.5, -1.0, 1.0)
    bits = rng.integers(0, 2 ** 32, rest // 10, dtype=np.uint64)
    random_bits = bits.astype(np.uint32).view(np.float32)
    return np.concatenate([special, (mags * signs).astype(np.float32),
                           random_bits])


def same_codes(got, want, fmt):
    """Code equality, any NaN code matching any NaN code of fmt."""
    def is_nan(c):
        return np.array([np.isnan(decode(int(v), fmt)) for v in c])
    bad = got != want
    if bad.any():
        idx = np.nonzero(bad)[0]
        both_nan = is_nan(got[idx]) & is_nan(want[idx])
        bad[idx[both_nan]] = False
    return bad


def report(label, bad, x=None, got=None, want=None):
    if not bad.any():
        print(f"{label}: PASS")
        return True
    i = int(np.nonzero(bad)[0][0])
    detail = f" at {i}" + (f" (x = {x[i]!r})" if x is not None else "")
    if got is not None:
        detail += f": got {got[i]!r}, want {want[i]!r}"
    print(f"{label}: FAIL, {int(bad.sum())} mismatches{detail}")
    return False


def fold(args, text, dtype):
    """The folded result constant of `text`'s function, as a NumPy array of
    dtype (printed as its raw little-endian bytes)."""
    r = subprocess.run([args.crest_opt, "--canonicalize",
                        "--mlir-print-elementsattrs-with-hex-if-larger=0",
                        "-"], input=text, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("crest-opt failed:\n" + r.stderr)
    m = re.search(r'arith\.constant dense<"0x([0-9A-Fa-f]*)">', r.stdout)
    if not m:
        raise SystemExit("no folded constant in:\n" + r.stdout)
    return np.frombuffer(bytes.fromhex(m.group(1)), dtype)


def check_folding(args, x):
    ok = True
    codes = np.arange(256)
    for fmt in FORMATS:
        want = np.array([decode(c, fmt) for c in codes])
        text = (f"func.func @d() -> tensor<256xf32> {{\n"
                f"  %c = arith.constant dense<[{', '.join(hex(c) for c in codes)}]> : tensor<256x{fmt}>\n"
                f"  %0 = crest.cast %c : tensor<256x{fmt}> to tensor<256xf32>\n"
                f"  return %0 : tensor<256xf32>\n}}\n")
        got = fold(args, text, np.float32).astype(np.float64)
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
        ok &= report(f"folding decodes the 256 codes of {fmt}", bad,
                     codes, got, want)
        sub = x[:args.fold_count]
        items = ", ".join(
            hex(int(v.view(np.uint32))) for v in sub.astype(np.float32))
        n = len(sub)
        text = (f"func.func @e() -> tensor<{n}x{fmt}> {{\n"
                f"  %x = arith.constant dense<[{items}]> : tensor<{n}xf32>\n"
                f"  %0 = crest.cast %x : tensor<{n}xf32> to tensor<{n}x{fmt}>\n"
                f"  return %0 : tensor<{n}x{fmt}>\n}}\n")
        got = fold(args, text, np.uint8)
        want = encode(sub.astype(np.float64), fmt)
        ok &= report(f"folding encodes {n} f32 values to {fmt}",
                     same_codes(got, want, fmt), sub, got, want)
    return ok


def check_device(args, x):
    n = len(x)
    results = ", ".join(f"tensor<{n}x{f}>" for f in DEVICE_FORMATS)
    body = "\n".join(
        f"  %e{i} = crest.cast %x : tensor<{n}xf32> to tensor<{n}x{f}>"
        for i, f in enumerate(DEVICE_FORMATS))
    body += "\n" + "\n".join(
        f"  %d{i} = crest.cast %c{i} : tensor<256x{f}> to tensor<256xf32>"
        for i, f in enumerate(DEVICE_FORMATS))
    args_text = ", ".join([f"%x: tensor<{n}xf32>"] + [
        f"%c{i}: tensor<256x{f}>" for i, f in enumerate(DEVICE_FORMATS)])
    rets = ", ".join([f"%e{i}" for i in range(len(DEVICE_FORMATS))] +
                     [f"%d{i}" for i in range(len(DEVICE_FORMATS))])
    types = results + ", " + ", ".join(["tensor<256xf32>"] *
                                       len(DEVICE_FORMATS))
    text = (f"func.func @codecs({args_text}) -> ({types}) {{\n{body}\n"
            f"  return {rets} : {types}\n}}\n")
    src = os.path.join(args.tmp, "codecs.mlir")
    open(src, "w").write(text)
    pkg = os.path.join(args.tmp, "codecs.crest")
    subprocess.run([args.crest_compile, src, "--target=gfx942", "-o", pkg],
                   check=True)
    np.save(f"{args.tmp}/x.npy", x)
    codes = np.arange(256, dtype=np.uint8)
    cmd = [args.crest_run, pkg, "--device=emu", "--verify",
           f"--reference-dir={args.tmp}/ref", f"--input={args.tmp}/x.npy"]
    os.makedirs(f"{args.tmp}/ref", exist_ok=True)
    for i in range(len(DEVICE_FORMATS)):
        np.save(f"{args.tmp}/c{i}.npy", codes)
        cmd.append(f"--input={args.tmp}/c{i}.npy")
    outs = []
    for i in range(len(DEVICE_FORMATS)):
        outs += [f"e{i}", f"d{i}"]
    for k, name in enumerate(outs):
        out = f"{args.tmp}/out{k}.npy"
        # Poisoned: a kernel that writes nothing fails.
        if os.path.exists(out):
            os.remove(out)
        cmd.append(f"--output={out}")
    r = subprocess.run(cmd, capture_output=True, text=True)
    ok = r.returncode == 0 and "verify: PASS" in r.stdout
    print(f"crest-run --verify: {'PASS' if ok else 'FAIL'}")
    if not ok:
        print(r.stdout + r.stderr)
        return False
    nf = len(DEVICE_FORMATS)
    for i, fmt in enumerate(DEVICE_FORMATS):
        want = encode(x.astype(np.float64), fmt)
        for where, path in [("device", f"{args.tmp}/out{i}.npy"),
                            ("reference", f"{args.tmp}/ref/out{i}.npy")]:
            if not os.path.exists(path):
                path = f"{args.tmp}/ref/" + sorted(
                    os.listdir(f"{args.tmp}/ref"))[i]
            got = np.load(path).view(np.uint8).reshape(-1)
            ok &= report(f"{where} encodes {n} f32 values to {fmt}",
                         same_codes(got, want, fmt), x, got, want)
        want = np.array([decode(c, fmt) for c in range(256)])
        got = np.load(f"{args.tmp}/out{nf + i}.npy").astype(np.float64)
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
        ok &= report(f"device decodes the 256 codes of {fmt}", bad,
                     codes, got, want)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-run", required=True)
    p.add_argument("--crest-translate")
    p.add_argument("--crest-emu")
    p.add_argument("--tmp", required=True)
    p.add_argument("--count", type=int, default=10 ** 6)
    p.add_argument("--fold-count", type=int, default=4000)
    args = p.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    np.seterr(invalid="ignore")  # casts of signalling NaNs
    x = samples(args.count, list(FORMATS))
    ok = check_folding(args, x)
    ok &= check_device(args, x)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
