#!/usr/bin/env python3
"""Parallel dispatch: a launch gives the same bits, counters, race reports
and errors whatever the number of host threads (crest-emu --emu-threads).

Runs, at 1, 2 and 3 threads and at several interleavings:
- the clang-compiled gemm_f16 kernel (gemm.hip) on a 4x3 grid of
  workgroups, against the exact NumPy product (integer data);
- its racy variant, whose race reports must be the same text;
- the same kernel with an output buffer one row short, so that every
  workgroup of the last row faults: the error names the first of them in
  grid order;
- a Crest package whose kernel uses global split-K (workgroups that meet at
  an atomic semaphore in global memory), through crest-run, whose outputs
  must be the same bits and match NumPy.

Prints one line per case ("<case>: same at 1, 2, 3 threads" or a FAIL line
that says what differed) and exits 1 on any difference.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

THREADS = [1, 2, 3]


def compile_gemm(args, racy):
    co = f"{args.tmp}/gemm{'_racy' if racy else ''}.co"
    cmd = [args.clang, "-x", "hip", "--cuda-device-only",
           "--offload-arch=gfx942", "-nogpulib", "-nogpuinc", "-O3",
           "--no-gpu-bundle-output", "-mcode-object-version=5", "-c",
           os.path.join(args.src, "gemm.hip"), "-o", co]
    if racy:
        cmd.append("-DRACY")
    subprocess.run(cmd, check=True)
    return co


def emu(args, co, out_rows, threads, quantum, seed):
    """Runs the GEMM; returns (exit code, stdout without the wall time, C)."""
    m, n, k = args.m, args.n, args.k
    out = f"{args.tmp}/c.npy"
    if os.path.exists(out):
        os.remove(out)
    cmd = [args.emu, co, "--kernel=gemm_f16",
           f"--grid={(m + 63) // 64},{(n + 63) // 64}", "--block=256",
           f"--quantum={quantum}", f"--seed={seed}",
           f"--emu-threads={threads}", f"--arg=in:{args.tmp}/a.npy",
           f"--arg=in:{args.tmp}/b.npy", f"--arg=out:{out}=f32:{out_rows}x{n}",
           f"--arg=i32:{m}", f"--arg=i32:{n}", f"--arg=i32:{k}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    # Host wall time is the one thing that may differ.
    text = re.sub(r"[0-9.]+ s\b", "<time>", proc.stdout + proc.stderr)
    got = np.load(out) if proc.returncode in (0, 2) else None
    return proc.returncode, text, got


def same(name, runs, want=None):
    """runs: {threads: (code, text, array)}; all must agree (and match
    `want`)."""
    base = runs[THREADS[0]]
    for t in THREADS[1:]:
        code, text, got = runs[t]
        if code != base[0] or text != base[1]:
            print(f"{name}: FAIL: {t} threads printed\n{text}\n"
                  f"1 thread printed\n{base[1]}")
            return False
        if (got is None) != (base[2] is None) or (
                got is not None and got.tobytes() != base[2].tobytes()):
            print(f"{name}: FAIL: {t} threads wrote other bits")
            return False
    if want is not None and (base[2] is None or
                             not np.array_equal(base[2], want)):
        print(f"{name}: FAIL: the result differs from NumPy")
        return False
    print(f"{name}: same at {', '.join(map(str, THREADS))} threads")
    return True


def gemm_cases(args):
    m, n, k = args.m, args.n, args.k
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, size=(m, k)).astype(np.float32)
    b = rng.integers(-4, 5, size=(k, n)).astype(np.float32)
    np.save(f"{args.tmp}/a.npy", a.astype(np.float16))
    np.save(f"{args.tmp}/b.npy", b.astype(np.float16))
    want = a @ b
    ok = True
    co = compile_gemm(args, racy=False)
    for quantum, seed in [(64, 0), (1, 0), (5, 17), (13, 4242)]:
        runs = {t: emu(args, co, m, t, quantum, seed) for t in THREADS}
        ok &= same(f"gemm q={quantum} seed={seed}", runs, want)
    racy = compile_gemm(args, racy=True)
    runs = {t: emu(args, racy, m, t, 1, 0) for t in THREADS}
    if "race on byte" not in runs[1][1]:
        print("gemm racy: FAIL: no race reported")
        ok = False
    ok &= same("gemm racy q=1", runs)
    # One row short: the stores of the last row of workgroups fault.
    runs = {t: emu(args, co, m - 1, t, 64, 0) for t in THREADS}
    if runs[1][0] == 0 or "out-of-bounds" not in runs[1][1]:
        print("gemm short output: FAIL: no out-of-bounds error\n" + runs[1][1])
        ok = False
    else:
        print("gemm short output: " + next(
            line for line in runs[1][1].splitlines() if "out-of-bounds" in line))
    ok &= same("gemm short output", runs)
    return ok


def split_k_case(args):
    # A GEMV whose kernel adds up 4 groups of K steps through a workspace
    # and a semaphore in global memory (global_split_k = 4).
    src = f"{args.tmp}/gemv.mlir"
    open(src, "w").write("""module {
  func.func @gemv(%a: tensor<2x1024xf16>, %b: tensor<1024x1024xf16>) -> tensor<2x1024xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32> config <mma = "v_mfma_f32_16x16x16_f16", workgroup_tile = [16, 128, 32], wave_tile = [16, 128], scope = wavefront, stages = 2, split_k = 4, rhs_vector = 8, global_split_k = 4> : tensor<2x1024xf16>, tensor<1024x1024xf16> -> tensor<2x1024xf32>
    return %0 : tensor<2x1024xf32>
  }
}
""")
    pkg = f"{args.tmp}/gemv.crest"
    subprocess.run([args.compile, src, "--target=gfx942", "-o", pkg],
                   check=True)
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, size=(2, 1024)).astype(np.float32)
    b = rng.integers(-3, 4, size=(1024, 1024)).astype(np.float32)
    np.save(f"{args.tmp}/ga.npy", a.astype(np.float16))
    np.save(f"{args.tmp}/gb.npy", b.astype(np.float16))
    want = a @ b
    ok = True
    for seed in [0, 31]:
        runs = {}
        for t in THREADS:
            out = f"{args.tmp}/gy.npy"
            if os.path.exists(out):
                os.remove(out)
            proc = subprocess.run(
                [args.run, pkg, f"--input={args.tmp}/ga.npy",
                 f"--input={args.tmp}/gb.npy", f"--output={out}",
                 f"--emu-threads={t}", f"--emu-seed={seed}", "--emu-quantum=7"],
                capture_output=True, text=True)
            text = re.sub(r"[0-9.]+ (ms|s|us)\b", "<time>",
                          proc.stdout + proc.stderr)
            runs[t] = (proc.returncode, text,
                       np.load(out) if proc.returncode == 0 else None)
        ok &= same(f"global split-K seed={seed}", runs, want)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--clang", required=True)
    p.add_argument("--emu", required=True)
    p.add_argument("--compile", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--tmp", required=True)
    p.add_argument("--m", type=int, default=250)
    p.add_argument("--n", type=int, default=190)
    p.add_argument("--k", type=int, default=72)
    args = p.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    ok = gemm_cases(args)
    ok &= split_k_case(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
