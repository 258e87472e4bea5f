#!/usr/bin/env python3
"""Writes the three reproducers of issue 11 (docs/Semantics.md) into DIR and,
with --check, checks a run's outputs against NumPy (independently of Crest).

  f16-to-bf16  y = cast_bf16(matmul(a, b) out = f16): the fused epilogue used
               to emit arith.truncf f16 -> bf16 and fail to compile.
  nan-to-i32   y = cast_i32(matmul(a, b) out = f32) with a NaN in a: the NaN
               row's elements convert to exactly 0 (the rule: NaN -> 0),
               the others truncate toward zero.
  denormals    a 33x130 . 130x77 f16 matmul (a ~ N(0, 1), b ~ N(0, 0.1))
               whose b has f16 subnormals in the k where row 0 of a is 8:
               gfx90a's f16 MFMAs flush them, gfx942's keep them.
"""
import argparse
import sys

import numpy as np


def graphs():
    return {
        "f16-to-bf16": """func.func @m(%a: tensor<40x24xf16> {crest.name = "a"}, %b: tensor<24x56xf16> {crest.name = "b"})
    -> (tensor<40x56xbf16> {crest.name = "y"}) {
  %m = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
         : tensor<40x24xf16>, tensor<24x56xf16> -> tensor<40x56xf16>
  %y = crest.cast %m : tensor<40x56xf16> to tensor<40x56xbf16>
  return %y : tensor<40x56xbf16>
}
""",
        "nan-to-i32": """func.func @m(%a: tensor<32x16xf32> {crest.name = "a"}, %b: tensor<16x32xf32> {crest.name = "b"})
    -> (tensor<32x32xi32> {crest.name = "y"}) {
  %m = crest.matmul %a, %b precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<32x16xf32>, tensor<16x32xf32> -> tensor<32x32xf32>
  %y = crest.cast %m : tensor<32x32xf32> to tensor<32x32xi32>
  return %y : tensor<32x32xi32>
}
""",
        "denormals": """func.func @m(%a: tensor<33x130xf16> {crest.name = "a"}, %b: tensor<130x77xf16> {crest.name = "b"})
    -> (tensor<33x77xf32> {crest.name = "y"}) {
  %y = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<33x130xf16>, tensor<130x77xf16> -> tensor<33x77xf32>
  return %y : tensor<33x77xf32>
}
""",
    }


def inputs(name):
    rng = np.random.default_rng(5)
    if name == "f16-to-bf16":
        a = rng.normal(0, 1, (40, 24)).astype(np.float16)
        b = rng.normal(0, 1, (24, 56)).astype(np.float16)
    elif name == "nan-to-i32":
        a = rng.normal(0, 30, (32, 16)).astype(np.float32)
        a[3, 5] = np.nan
        a[7, 0] = 3e9  # row 7 saturates
        b = rng.normal(0, 1, (16, 32)).astype(np.float32)
    else:
        a = rng.normal(0, 1, (33, 130)).astype(np.float16)
        b = rng.normal(0, 0.1, (130, 77)).astype(np.float16)
        a[0, :20] = 8.0
        b[:20, :] = np.float16(4.5e-5) * np.sign(rng.normal(size=(20, 77)))
        assert np.all(np.abs(b[:20].astype(np.float32)) < 2.0 ** -14)
    return a, b


def expected(name, a, b, chip):
    with np.errstate(all="ignore"):
        if name == "f16-to-bf16":
            m = (a.astype(np.float64) @ b.astype(np.float64))
            m16 = m.astype(np.float32).astype(np.float16).astype(np.float32)
            bits = m16.view(np.uint32).astype(np.uint64)
            bf = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
            return m, bf
        if name == "nan-to-i32":
            m = a.astype(np.float64) @ b.astype(np.float64)
            y = np.where(np.isnan(m), 0, np.clip(np.trunc(m), -2**31, 2**31 - 1))
            return m, y
        af, bf = a.astype(np.float64), b.astype(np.float64)
        if chip == "gfx90a":
            af = np.where(np.abs(af) < 2.0 ** -14, 0.0, af)
            bf = np.where(np.abs(bf) < 2.0 ** -14, 0.0, bf)
        return None, af @ bf


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--check", metavar="NAME")
    p.add_argument("--chip")
    a = p.parse_args()
    if not a.check:
        for name, text in graphs().items():
            open(f"{a.dir}/{name}.mlir", "w").write(text)
            x, y = inputs(name)
            np.save(f"{a.dir}/{name}-a.npy", x)
            np.save(f"{a.dir}/{name}-b.npy", y)
        return 0
    name = a.check
    x, y = inputs(name)
    m, want = expected(name, x, y, a.chip)
    got = np.load(f"{a.dir}/{name}-{a.chip}-y.npy")
    if name == "f16-to-bf16":
        # Rounding twice (f32 -> f16 -> bf16, as the graph says) may differ
        # from NumPy's float64 sum only where the f32 accumulation does: allow
        # one bf16 ulp, and require most elements to be equal.
        d = np.abs(got.astype(np.int64) - want.astype(np.int64))
        ok = d.max() <= 1 and (d == 0).mean() > 0.9
        print(f"{name} {a.chip}: max {d.max()} bf16 ulp, "
              f"{(d == 0).mean():.3f} equal: {'PASS' if ok else 'FAIL'}")
    elif name == "nan-to-i32":
        nan_rows = np.isnan(m).any(axis=1)
        # Elsewhere: within the f32 accumulation's error (K u |a| |b|, + 1
        # for the truncation), and exactly saturated well beyond the range.
        with np.errstate(all="ignore"):
            bound = 16 * 2.0 ** -24 * (np.abs(x.astype(np.float64)) @
                                       np.abs(y.astype(np.float64))) + 1
        fin = ~nan_rows[:, None] & np.ones_like(m, bool)
        beyond = fin & (np.abs(m) > 1.01 * 2 ** 31)
        ok = (nan_rows.sum() == 1 and np.all(got[nan_rows] == 0) and
              beyond.sum() > 0 and
              np.all(got[beyond] == np.where(m[beyond] > 0, 2**31 - 1, -2**31)) and
              np.all(np.abs(got.astype(np.float64) - want)[fin] <= bound[fin]))
        print(f"{name} {a.chip}: NaN row -> 0, {beyond.sum()} saturated: "
              f"{'PASS' if ok else 'FAIL'}")
    else:
        other = expected(name, x, y, "gfx942" if a.chip == "gfx90a" else "gfx90a")[1]
        err = np.abs(got - want).max()
        gap = np.abs(other - want).max()
        # The chip's rule explains the result 100x better than the other
        # chip's: the test sees which denormal rule the device applied.
        ok = err < 1e-5 and gap > 100 * max(err, 1e-7)
        print(f"{name} {a.chip}: max error {err:.2e} against this chip's "
              f"denormal rule, {gap:.2e} between the rules: "
              f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
