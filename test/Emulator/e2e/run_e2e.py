#!/usr/bin/env python3
"""End-to-end emulator tests: compile a HIP-like kernel with clang-22 for a
chip, run it on crest-emu at several wave interleavings, and compare with a
NumPy reference computed here.

  run_e2e.py --kernel gemm_f16 --chip gfx942 --clang CLANG --emu CREST_EMU \
             --src DIR --tmp DIR

Prints one line per run, "<kernel> <chip> <schedule>: max_abs_err=E
max_rel_err=R races=N PASS|FAIL", and exits 1 if any run fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

# (quantum, seed): fine and coarse round-robin, and seeded random orders.
SCHEDULES = [(1, 0), (7, 0), (64, 0), (1 << 30, 0), (16, 1234), (3, 99)]


def compile_kernel(args, source, defines, out):
    cmd = [args.clang, "-x", "hip", "--cuda-device-only",
           f"--offload-arch={args.chip}", "-nogpulib", "-nogpuinc", "-O3",
           "--no-gpu-bundle-output", "-mcode-object-version=5",
           "-c", os.path.join(args.src, source), "-o", out] + defines
    subprocess.run(cmd, check=True)


def run_emu(args, co, kernel, grid, block, kargs, quantum, seed):
    cmd = [args.emu, co, f"--kernel={kernel}", f"--grid={grid}",
           f"--block={block}", f"--quantum={quantum}"]
    if seed:
        cmd.append(f"--seed={seed}")
    cmd += [f"--arg={a}" for a in kargs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 2):
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"crest-emu failed with exit code {proc.returncode}")
    races = 0
    for line in proc.stdout.splitlines():
        if line.strip().startswith("races "):
            races = int(line.split()[1])
        if "race on byte" in line and args.show_races:
            print(line.strip())
    return races


def check(name, schedule, got, want, atol, rtol, races, expect_races):
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    max_abs = float(err.max()) if err.size else 0.0
    denom = np.maximum(np.abs(want.astype(np.float64)), 1e-30)
    max_rel = float((err / denom).max()) if err.size else 0.0
    ok = bool(np.all(err <= atol + rtol * np.abs(want))) and np.all(
        np.isfinite(got))
    # A racy kernel's values depend on the interleaving: only the report
    # of the race is checked.
    ok = (races > 0) if expect_races else (ok and races == 0)
    print(f"{name} {schedule}: max_abs_err={max_abs:.3g} "
          f"max_rel_err={max_rel:.3g} races={races} "
          f"{'PASS' if ok else 'FAIL'}")
    return ok


def to_bf16_bits(x):
    """Rounds float32 values to bf16 (nearest even) and returns the bits."""
    b = x.astype(np.float32).view(np.uint32)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def gemm(args, bf16, racy=False):
    M, N, K = args.m, args.n, args.k
    rng = np.random.default_rng(7)
    # Small integers: every product and sum is exact in f32, so any error
    # at all is a bug (layout, lane mapping, barrier, edge handling).
    a = rng.integers(-4, 5, size=(M, K)).astype(np.float32)
    b = rng.integers(-4, 5, size=(K, N)).astype(np.float32)
    want = a @ b
    tmp = args.tmp
    if bf16:
        np.save(f"{tmp}/a.npy", to_bf16_bits(a))
        np.save(f"{tmp}/b.npy", to_bf16_bits(b))
        kernel, defines = "gemm_bf16", ["-DBF16"]
    else:
        np.save(f"{tmp}/a.npy", a.astype(np.float16))
        np.save(f"{tmp}/b.npy", b.astype(np.float16))
        kernel, defines = "gemm_f16", []
    if racy:
        defines.append("-DRACY")
    co = f"{tmp}/{kernel}-{args.chip}.co"
    compile_kernel(args, "gemm.hip", defines, co)
    grid = f"{(M + 63) // 64},{(N + 63) // 64}"
    ok = True
    schedules = SCHEDULES[:2] if racy else SCHEDULES
    for q, s in schedules:
        out = f"{tmp}/c.npy"
        races = run_emu(args, co, kernel, grid, 256,
                        [f"in:{tmp}/a.npy", f"in:{tmp}/b.npy",
                         f"out:{out}=f32:{M}x{N}", f"i32:{M}", f"i32:{N}",
                         f"i32:{K}"], q, s)
        got = np.load(out)
        name = f"{kernel}{'_racy' if racy else ''} {args.chip} {M}x{N}x{K}"
        ok &= check(name, f"q={q} seed={s}", got, want, 0.0, 0.0, races,
                    expect_races=racy)
    return ok


def softmax(args):
    rows, n = 3, 1000
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((rows, n)) * 4).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.save(f"{args.tmp}/x.npy", x)
    co = f"{args.tmp}/softmax-{args.chip}.co"
    compile_kernel(args, "softmax.hip", [], co)
    ok = True
    for q, s in SCHEDULES:
        races = run_emu(args, co, "softmax", rows, 256,
                        [f"in:{args.tmp}/x.npy",
                         f"out:{args.tmp}/y.npy=f32:{rows}x{n}",
                         f"i32:{n}"], q, s)
        got = np.load(f"{args.tmp}/y.npy")
        # exp in the emulator is correctly rounded; the sums differ from
        # NumPy's in order only.
        ok &= check(f"softmax {args.chip} {rows}x{n}", f"q={q} seed={s}",
                    got, want, 1e-7, 1e-5, races, expect_races=False)
    return ok


def gelu(args):
    n = 5000
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(n) * 3).astype(np.float16)
    xd = x.astype(np.float64)
    want = 0.5 * xd * (1 + np.tanh(0.7978845608 * (xd + 0.044715 * xd ** 3)))
    np.save(f"{args.tmp}/x.npy", x)
    co = f"{args.tmp}/gelu-{args.chip}.co"
    compile_kernel(args, "gelu.hip", [], co)
    ok = True
    for q, s in SCHEDULES[:3]:
        races = run_emu(args, co, "gelu", 4, 256,
                        [f"in:{args.tmp}/x.npy",
                         f"out:{args.tmp}/y.npy=f32:{n}", f"i32:{n}"], q, s)
        got = np.load(f"{args.tmp}/y.npy")
        ok &= check(f"gelu {args.chip} {n}", f"q={q} seed={s}", got, want,
                    1e-6, 1e-5, races, expect_races=False)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernel", required=True,
                   choices=["gemm_f16", "gemm_bf16", "gemm_racy", "softmax",
                            "gelu"])
    p.add_argument("--chip", required=True)
    p.add_argument("--clang", required=True)
    p.add_argument("--emu", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--tmp", required=True)
    p.add_argument("--m", type=int, default=100)
    p.add_argument("--n", type=int, default=72)
    p.add_argument("--k", type=int, default=40)
    p.add_argument("--show-races", action="store_true")
    args = p.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    if args.kernel == "gemm_f16":
        ok = gemm(args, bf16=False)
    elif args.kernel == "gemm_bf16":
        ok = gemm(args, bf16=True)
    elif args.kernel == "gemm_racy":
        ok = gemm(args, bf16=False, racy=True)
    elif args.kernel == "softmax":
        ok = softmax(args)
    else:
        ok = gelu(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
