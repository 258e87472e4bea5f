#!/usr/bin/env python3
"""Projects a large f16 GEMM that Crest compiles with crest-emu --timing
--timing-only, and checks that the projection is fast enough to use (at most
--limit seconds of host time for the emulator run) and consistent: the grid
is sampled, the modelled FLOP rate is positive and below the chip's f16
matrix peak, and MFMA utilisation agrees with it.

  project_gemm.py --size 4096 --chip gfx942 --limit 60 --tmp DIR --tools...
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

# scripts/crest_launch.py: compiling one kernel and reading its launch.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import buffer_args, compile_hsaco, launch_of  # noqa: E402

# f16 dense matrix peak, FLOP per cycle per CU, and the model's CU count
# and effective clock are read from the report itself; the peak per CU per
# cycle is the chip table's (2 x 32 x 32 x 8 / cycles x 4 SIMDs).
PEAK_PER_CU_CYCLE = {"gfx942": 2048, "gfx90a": 1024}
CUS = {"gfx942": 304, "gfx90a": 110}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--chip", required=True)
    p.add_argument("--limit", type=float, required=True)
    p.add_argument("--tmp", required=True)
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-emu", required=True)
    args, _ = p.parse_known_args()
    os.makedirs(args.tmp, exist_ok=True)
    n = args.size
    src = os.path.join(args.tmp, "gemm.mlir")
    open(src, "w").write(f"""module {{
  func.func @gemm(%a: tensor<{n}x{n}xf16>, %b: tensor<{n}x{n}xf16>) -> tensor<{n}x{n}xf16> {{
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<{n}x{n}xf16>, tensor<{n}x{n}xf16> -> tensor<{n}x{n}xf16>
    return %0 : tensor<{n}x{n}xf16>
  }}
}}
""")
    co = os.path.join(args.tmp, "gemm.co")
    compile_hsaco(args.crest_compile, src, args.chip, co)
    block, grid, kernel, _, buffers = launch_of(args.crest_opt, src, args.chip,
                                                want_buffers=True)
    rng = np.random.default_rng(7)
    for name in ("a", "b"):
        np.save(os.path.join(args.tmp, f"{name}.npy"),
                (rng.integers(-2, 3, size=(n, n)) * 0.5).astype(np.float16))
    t0 = time.perf_counter()
    out = subprocess.run(
        [args.crest_emu, co, f"--kernel={kernel}", f"--grid={grid}",
         f"--block={block}", "--no-race-check", "--timing", "--timing-only",
         f"--arg=in:{args.tmp}/a.npy", f"--arg=in:{args.tmp}/b.npy",
         f"--arg=out:{args.tmp}/c.npy=f16:{n}x{n}"]
        + buffer_args(buffers, args.tmp, np),
        check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - t0
    us = float(re.search(r"= ([\d.]+) us at", out).group(1))
    mhz = float(re.search(r"us at ([\d.]+) MHz", out).group(1))
    util = float(re.search(r"utilisation ([\d.]+)%", out).group(1)) / 100
    sampled = re.search(r"sampling: (\d+) of (\d+) workgroups", out)
    tflops = 2.0 * n ** 3 / (us * 1e-6) / 1e12
    peak = PEAK_PER_CU_CYCLE[args.chip] * CUS[args.chip] * mhz * 1e6 / 1e12
    ok = seconds <= args.limit and sampled is not None
    ok &= 0 < tflops < peak
    # MFMA-only work: utilisation x peak at the model's clock is the rate.
    ok &= abs(util * peak - tflops) <= 0.02 * peak
    print(f"{n}^3 f16 {args.chip}: projected {us:.1f} us ({tflops:.1f} "
          f"TFLOP/s of {peak:.0f} at {mhz:.0f} MHz, MFMA {100 * util:.1f}%) "
          f"in {seconds:.1f} s of host time, sampled "
          f"{sampled.group(1) if sampled else '?'} of "
          f"{sampled.group(2) if sampled else '?'} workgroups: "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
