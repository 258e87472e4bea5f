#!/usr/bin/env python3
"""Emulator benchmark: the time to emulate a 1024x1024x1024 f16 GEMM kernel
(test/Emulator/e2e/gemm.hip, 32x32x8 MFMAs, LDS double buffering, compiled
by clang-22 for gfx942) and the wave instructions emulated per second.

Runs each configuration --repeat times and prints the median and the spread;
the race detector off is the baseline against which its cost is shown, and
one host thread the baseline of parallel dispatch (--emu-threads; every
run's output must be the exact product, whatever the thread count). Not a
test: it prints numbers.

  scripts/bench-emulator.py [--build build] [--size 1024] [--repeat 3]
                            [--threads 1,2]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--chip", default="gfx942")
    p.add_argument("--threads", default="1,2",
                   help="host thread counts to compare (first: baseline)")
    args = p.parse_args()
    emu = os.path.join(args.build, "bin", "crest-emu")
    src = os.path.join(root, "test", "Emulator", "e2e")
    n = args.size
    with tempfile.TemporaryDirectory() as tmp:
        co = os.path.join(tmp, "gemm.co")
        subprocess.run(["/usr/lib/llvm-22/bin/clang++", "-x", "hip",
                        "--cuda-device-only", f"--offload-arch={args.chip}",
                        "-nogpulib", "-nogpuinc", "-O3",
                        "--no-gpu-bundle-output", "-mcode-object-version=5",
                        "-c", os.path.join(src, "gemm.hip"), "-o", co],
                       check=True)
        rng = np.random.default_rng(0)
        a = rng.integers(-2, 3, size=(n, n)).astype(np.float16)
        b = rng.integers(-2, 3, size=(n, n)).astype(np.float16)
        np.save(f"{tmp}/a.npy", a)
        np.save(f"{tmp}/b.npy", b)
        want = a.astype(np.float32) @ b.astype(np.float32)
        print(f"{n}x{n}x{n} f16 GEMM on {args.chip}: grid {n // 64}x{n // 64}"
              f", 256 work-items, {args.repeat} runs each")
        threads = [int(t) for t in args.threads.split(",")]
        configs = [(f"race detector off, {t} thread{'s' if t > 1 else ''}",
                    ["--no-race-check", f"--emu-threads={t}"], t)
                   for t in threads]
        configs += [(f"race detector on, {t} thread{'s' if t > 1 else ''}",
                     [f"--emu-threads={t}"], t) for t in threads]
        medians = {}
        for label, extra, t in configs:
            times, instrs = [], 0
            for _ in range(args.repeat):
                out = subprocess.run(
                    [emu, co, "--kernel=gemm_f16", f"--grid={n // 64},{n // 64}",
                     "--block=256", "--quantum=64", f"--arg=in:{tmp}/a.npy",
                     f"--arg=in:{tmp}/b.npy", f"--arg=out:{tmp}/c.npy=f32:{n}x{n}",
                     f"--arg=i32:{n}", f"--arg=i32:{n}", f"--arg=i32:{n}"] + extra,
                    check=True, capture_output=True, text=True).stdout
                times.append(float(re.search(r", ([0-9.]+) s\n", out).group(1)))
                instrs = int(re.search(r"wave instructions (\d+)", out).group(1))
                got = np.load(f"{tmp}/c.npy")
                if not np.array_equal(got, want):
                    print("  WRONG RESULT", file=sys.stderr)
                    return 1
            med = statistics.median(times)
            race = "on" if "--no-race-check" not in extra else "off"
            medians[(race, t)] = med
            speedup = ""
            if t != threads[0]:
                speedup = (f", {medians[(race, threads[0])] / med:.2f}x "
                           f"{threads[0]} thread")
            print(f"  {label}: median {med:.2f} s (min {min(times):.2f}, max "
                  f"{max(times):.2f}), {instrs} wave instructions, "
                  f"{instrs / med / 1e6:.2f} M wave-instructions/s{speedup}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
