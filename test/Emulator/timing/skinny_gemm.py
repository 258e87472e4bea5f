#!/usr/bin/env python3
"""The skinny-GEMM roofline under the timing model: Crest compiles
M x N x K f16 GEMMs (f32 accumulation, f16 out) with its default heuristic,
crest-emu --timing-only projects them on the chip, and the times are
checked against the roofline built from the chip table's figures
(crest-chips --timing: the f16 matrix peak at the effective clock, HBM
bandwidth, the L1 bytes per cycle per CU).

For an M x N x K f16 GEMM, bytes = 2 (MK + KN + MN) and FLOPs = 2 MNK, so
with N = K the intensity is about M FLOP per byte; the ridge is peak /
bandwidth (123.5 on gfx942). Checks, each printed with its figures:

  floor     every point takes at least 0.95 x max(bytes / bandwidth,
            FLOPs / peak): the model never beats the roofline.
  flat      well below the ridge (intensity <= ridge / 4) the times differ
            by at most 1.75x (the goal is 1.3x: every row adds partial sums
            to add up in LDS and in the split-K workspace, and at M = 16
            the 64 KiB of LDS partial sums halve the waves per compute unit;
            measured 1.65x), and every point is reported bandwidth- or
            memory-latency-bound and takes at most 3.5x its bandwidth floor.
  split     M = 1 takes at most 2x its bandwidth floor: the K loop is split
            across workgroups until the grid fills the chip (without that,
            one row of N / 128 workgroups streams B through 32 of the 304
            CUs' texture paths, 3.9x the floor).
  bend      from the ridge on the time never falls as M grows, and between
            successive points it grows at least half as fast as the FLOPs
            (and at most 1.5x as fast).

  skinny_gemm.py --chip gfx942 --n 4096 --k 4096 --m 1,2,... --tmp DIR --tools
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import buffer_args, compile_hsaco, launch_of  # noqa: E402


def chip_figures(crest_chips, chip):
    out = subprocess.run([crest_chips, "--timing", f"--chip={chip}"],
                         check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.e+]+)", out)}


def gemm(m, n, k):
    return f"""module {{
  func.func @gemm(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16> {{
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16> -> tensor<{m}x{n}xf16>
    return %0 : tensor<{m}x{n}xf16>
  }}
}}
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--m", required=True, help="comma-separated M values")
    p.add_argument("--tmp", required=True)
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-emu", required=True)
    p.add_argument("--crest-chips", required=True)
    args, _ = p.parse_known_args()
    os.makedirs(args.tmp, exist_ok=True)
    fig = chip_figures(args.crest_chips, args.chip)
    peak = fig["f16_peak_tflops"] * 1e12
    bandwidth = fig["hbm_gbps"] * 1e9
    ridge = peak / bandwidth
    clock = fig["effective_mhz"] * 1e6
    n, k = args.n, args.k
    rng = np.random.default_rng(5)
    np.save(f"{args.tmp}/b.npy",
            (rng.integers(-2, 3, size=(k, n)) * 0.5).astype(np.float16))
    print(f"{args.chip}: peak {peak / 1e12:.1f} TFLOP/s, {bandwidth / 1e12:.2f}"
          f" TB/s, ridge {ridge:.1f} FLOP/byte")
    points = []
    t0 = time.perf_counter()
    for m in map(int, args.m.split(",")):
        src = f"{args.tmp}/gemm{m}.mlir"
        open(src, "w").write(gemm(m, n, k))
        co = f"{args.tmp}/gemm{m}.co"
        compile_hsaco(args.crest_compile, src, args.chip, co)
        block, grid, kernel, _, buffers = launch_of(
            args.crest_opt, src, args.chip, want_buffers=True)
        np.save(f"{args.tmp}/a.npy",
                (rng.integers(-2, 3, size=(m, k)) * 0.5).astype(np.float16))
        out = subprocess.run(
            [args.crest_emu, co, f"--kernel={kernel}", f"--grid={grid}",
             f"--block={block}", "--no-race-check", "--timing",
             "--timing-only", f"--arg=in:{args.tmp}/a.npy",
             f"--arg=in:{args.tmp}/b.npy",
             f"--arg=out:{args.tmp}/c.npy=f16:{m}x{n}"]
            + buffer_args(buffers, args.tmp, np),
            check=True, capture_output=True, text=True).stdout
        us = float(re.search(r"= ([\d.]+) us at", out).group(1))
        bound = re.search(r"bound: ([\w ]+) \(", out).group(1)
        gx, gy, gz = map(int, grid.split(","))
        nbytes = 2.0 * (m * k + k * n + m * n)
        flops = 2.0 * m * n * k
        floor_bw = nbytes / bandwidth * 1e6
        floor_mfma = flops / peak * 1e6
        points.append(dict(m=m, us=us, bound=bound, bytes=nbytes,
                           flops=flops, intensity=flops / nbytes,
                           floor_bw=floor_bw, floor_mfma=floor_mfma,
                           grid=grid))
        print(f"M={m:<5} {us:9.2f} us  bound {bound:15} intensity "
              f"{flops / nbytes:6.1f}  floor {max(floor_bw, floor_mfma):7.2f}"
              f" us ({us / max(floor_bw, floor_mfma):.2f}x)  grid {grid}")
    ok = True

    def check(name, good, detail):
        nonlocal ok
        ok &= good
        print(f"{name}: {detail}: {'PASS' if good else 'FAIL'}")

    for pt in points:
        floor = max(pt["floor_bw"], pt["floor_mfma"])
        check(f"floor M={pt['m']}", pt["us"] >= 0.95 * floor,
              f"{pt['us']:.2f} us >= 0.95 x {floor:.2f} us")
    flat = [pt for pt in points if pt["intensity"] <= ridge / 4]
    times = [pt["us"] for pt in flat]
    check("flat", len(flat) >= 2 and max(times) / min(times) <= 1.75,
          f"M={flat[0]['m']}..{flat[-1]['m']} max/min "
          f"{max(times) / min(times):.2f} <= 1.75")
    for pt in flat:
        check(f"memory-bound M={pt['m']}",
              pt["bound"] in ("bandwidth", "memory latency")
              and pt["us"] <= 3.5 * pt["floor_bw"],
              f"bound {pt['bound']}, {pt['us'] / pt['floor_bw']:.2f}x the "
              f"bandwidth floor (<= 3.5)")
    first = points[0]
    check(f"split M={first['m']}", first["us"] <= 2 * first["floor_bw"],
          f"{first['us']:.2f} us, {first['us'] / first['floor_bw']:.2f}x the "
          f"bandwidth floor (<= 2), grid {first['grid']}")
    above = [pt for pt in points if pt["intensity"] >= ridge]
    for a, b in zip(above, above[1:]):
        growth, work = b["us"] / a["us"], b["flops"] / a["flops"]
        check(f"bend M={a['m']}->{b['m']}",
              0.5 * work <= growth <= 1.5 * work,
              f"time x{growth:.2f} for FLOPs x{work:.2f}")
    if len(above) < 2:
        check("bend", False, "fewer than two points past the ridge")
    print(f"{len(points)} GEMMs in {time.perf_counter() - t0:.0f} s: "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
