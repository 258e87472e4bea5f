#!/usr/bin/env python3
"""Timing-model benchmark (not a test): Crest's f16 GEMMs and the Triton
code objects of ../shared/peers side by side under the emulator's timing
model (docs/Timing.md), on gfx942 and gfx90a, in one invocation.

For each chip and shape it prints the modelled time in microseconds (the
kernel alone, without the launch overhead), TFLOP/s, the share of the
chip's f16 matrix peak at its peak clock, MFMA utilisation, the bound and
the three largest stalls, and the ratio Crest / Triton (above 1: Crest is
faster). Modelled time is deterministic: one run per kernel suffices (the
script checks this with a second run of the first kernel). Large grids are
projected with --timing-only (the model's sample of workgroups; see the
report's "sampling" line). Host wall time is printed as such.

  scripts/bench-timing.py [--build build] [--shared ../shared]
                          [--chips gfx942,gfx90a] [--quick]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crest_launch import buffer_args, compile_hsaco, launch_of  # noqa: E402

SHAPES = [(1024, 1024, 1024), (4096, 4096, 4096), (8192, 8192, 8192),
          (1, 4096, 4096), (16, 4096, 4096), (128, 4096, 4096)]
QUICK_SHAPES = [(1024, 1024, 1024), (16, 4096, 4096)]

# The Triton peers (../shared/peers/README.md): chip -> (file, BLOCK_M,
# BLOCK_N, BLOCK_K, waves).
PEERS = {
    "gfx942": ("matmul_evenk_f16_gfx942_128x128x64_w4_s2_mi16.hsaco", 128,
               128, 64, 4),
    "gfx90a": ("matmul_evenk_f16_gfx90a_128x128x32_w4_s2_mi32.hsaco", 128,
               128, 32, 4),
}


def graph(m, n, k):
    return f"""module {{
  func.func @gemm(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16> {{
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f16>
           : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16> -> tensor<{m}x{n}xf16>
    return %0 : tensor<{m}x{n}xf16>
  }}
}}
"""


def parse_timing(text):
    out = {}
    m = re.search(r"modelled time: (\d+) cycles = ([\d.]+) us at ([\d.]+) MHz",
                  text)
    if not m:
        raise SystemExit("no timing in crest-emu output:\n" + text)
    out["cycles"], out["us"], out["mhz"] = int(m[1]), float(m[2]), float(m[3])
    m = re.search(r"bound: ([\w ]+) \(", text)
    out["bound"] = m[1] if m else "?"
    m = re.search(r"utilisation ([\d.]+)%", text)
    out["mfma"] = float(m[1]) / 100 if m else 0.0
    m = re.search(r"wave cycles \d+: (.*)", text)
    stalls = []
    if m:
        for part in m[1].split(", "):
            name, pct = part.rsplit(" ", 1)
            if name != "issuing":
                stalls.append((float(pct.rstrip("%")), name))
    stalls.sort(reverse=True)
    out["stalls"] = ", ".join(f"{n} {p:.0f}%" for p, n in stalls[:3])
    m = re.search(r"sampling: (\d+) of (\d+) workgroups", text)
    out["sampled"] = f"{m[1]}/{m[2]}" if m else "all"
    return out


def run_emu(emu, co, kernel, grid, block, args, extra):
    cmd = [emu, co, f"--kernel={kernel}", f"--grid={grid}", f"--block={block}",
           "--no-race-check", "--timing", "--timing-only"] + extra
    cmd += [f"--arg={a}" for a in args]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"crest-emu failed ({proc.returncode}):\n"
                         + proc.stdout + proc.stderr)
    result = parse_timing(proc.stdout)
    result["wall"] = wall
    return result


def inputs(tmp, m, n, k):
    rng = np.random.default_rng(1)
    a = (rng.integers(-2, 3, size=(m, k)) * 0.5).astype(np.float16)
    b = (rng.integers(-2, 3, size=(k, n)) * 0.5).astype(np.float16)
    np.save(f"{tmp}/a.npy", a)
    np.save(f"{tmp}/b.npy", b)


def crest_gemm(build, tmp, chip, m, n, k):
    src = f"{tmp}/gemm.mlir"
    open(src, "w").write(graph(m, n, k))
    co = f"{tmp}/crest-{chip}.co"
    compile_hsaco(f"{build}/bin/crest-compile", src, chip, co)
    block, grid, kernel, config, buffers = launch_of(
        f"{build}/bin/crest-opt", src, chip, want_config=True,
        want_buffers=True)
    # A split-K kernel's workspace and semaphores follow the output.
    scratch = [a.removeprefix("--arg=") for a in buffer_args(buffers, tmp, np)]
    return run_emu(f"{build}/bin/crest-emu", co, kernel, grid, block,
                   [f"in:{tmp}/a.npy", f"in:{tmp}/b.npy",
                    f"out:{tmp}/c.npy=f16:{m}x{n}"] + scratch, []), config


def triton_gemm(build, shared, tmp, chip, m, n, k):
    name, bm, bn, bk, waves = PEERS[chip]
    co = os.path.join(shared, "peers", name)
    if not os.path.exists(co) or k % bk:
        return None
    np.save(f"{tmp}/scratch.npy", np.zeros(64, np.float32))
    grid = -(-m // bm) * -(-n // bn)
    args = [f"in:{tmp}/a.npy", f"in:{tmp}/b.npy",
            f"out:{tmp}/c.npy=f16:{m}x{n}", f"i32:{m}", f"i32:{n}",
            f"i32:{k}", f"i32:{k}", "i32:1", f"i32:{n}", "i32:1",
            f"i32:{n}", "i32:1", f"in:{tmp}/scratch.npy",
            f"in:{tmp}/scratch.npy"]
    return run_emu(f"{build}/bin/crest-emu", co, "matmul_evenk", str(grid),
                   64 * waves, args, ["--dynamic-lds=65536"])


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--shared", default=os.path.join(root, "..", "shared"))
    p.add_argument("--chips", default="gfx942,gfx90a")
    p.add_argument("--quick", action="store_true",
                   help="two small shapes only")
    args = p.parse_args()
    # f16 dense matrix peak at the peak clock (TFLOP/s): 2048 FLOP/clk/CU x
    # 304 CUs x 2.1 GHz on gfx942, 1024 x 110 x 1.7 GHz on a gfx90a GCD
    # (the chip table's MFMA rates and TimingParams).
    peaks = {"gfx942": 2048 * 304 * 2.1e9 / 1e12,
             "gfx90a": 1024 * 110 * 1.7e9 / 1e12}
    shapes = QUICK_SHAPES if args.quick else SHAPES
    print("Model: docs/Timing.md; kernel time without launch overhead; "
          "% of peak is against the f16 matrix peak at the peak clock.")
    print(f"{'chip':7} {'M x N x K':>16} {'kernel':7} {'us':>10} "
          f"{'TFLOP/s':>8} {'%peak':>6} {'MFMA':>6} {'bound':>15}  "
          f"{'top stalls':42} {'sampled':>9} {'host s':>7} {'Crest/Triton':>12}")
    checked = False
    for chip in args.chips.split(","):
        for (m, n, k) in shapes:
            with tempfile.TemporaryDirectory() as tmp:
                inputs(tmp, m, n, k)
                crest, config = crest_gemm(args.build, tmp, chip, m, n, k)
                if not checked:
                    again, _ = crest_gemm(args.build, tmp, chip, m, n, k)
                    if again["cycles"] != crest["cycles"]:
                        raise SystemExit("modelled time differs between two "
                                         "runs of the same kernel")
                    checked = True
                triton = triton_gemm(args.build, args.shared, tmp, chip, m, n,
                                     k)
            flops = 2.0 * m * n * k
            for label, r in (("crest", crest), ("triton", triton)):
                if r is None:
                    continue
                tflops = flops / (r["us"] * 1e-6) / 1e12
                ratio = ""
                if label == "crest" and triton:
                    ratio = f"{triton['us'] / crest['us']:.2f}x"
                print(f"{chip:7} {f'{m}x{n}x{k}':>16} {label:7} "
                      f"{r['us']:10.2f} {tflops:8.1f} "
                      f"{100 * tflops / peaks[chip]:5.1f}% "
                      f"{100 * r['mfma']:5.1f}% {r['bound']:>15}  "
                      f"{r['stalls']:42} {r['sampled']:>9} "
                      f"{r['wall']:7.1f} {ratio:>12}")
            print(f"{'':7} {'':16} crest config: {config}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
