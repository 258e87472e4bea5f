#!/usr/bin/env python3
"""Runs the peer Triton GEMM code objects (../shared/peers, see its README)
on crest-emu, with kernel arguments preloaded into SGPRs (as current firmware
does) and through the kernels' compatibility prologue, at several wave
interleavings, and compares C bit for bit with NumPy's A @ B.

  run_peers.py --emu CREST_EMU --peers DIR --tmp DIR [--kernel NAME]

A and B hold small multiples of 0.5, so every product and partial sum is
exact in the kernels' f32 accumulators and C (f16) must equal the f16
rounding of the exact product. C has a row stride of N + 8: the 8 padding
columns of each row, like every element, start as a NaN bit pattern, so an
element the kernel fails to write or a masked one it writes shows.

Prints one line per run, "<kernel> <M>x<N>x<K> q=Q seed=S preload=on|off:
wrong=W unwritten=U padding_written=P edge=HEX/HEX races=R PASS|FAIL", and
a line per kernel comparing the instruction counts of the two paths; exits
1 if anything fails.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

# file, the compatibility prologue's length in instructions (its s_loads,
# s_waitcnt and s_branch; the s_nop padding is branched over), and the
# shapes M x N x K to run: K a multiple of BLOCK_K (an odd and an even
# number of iterations of the two-stage loop), M and N not multiples of the
# 128 x 128 tile (a 2 x 2 grid, and a 1 x 2 grid with M below one tile).
KERNELS = {
    "gfx942": ("matmul_evenk_f16_gfx942_128x128x64_w4_s2_mi16.hsaco", 5,
               [(200, 136, 256), (72, 200, 192)]),
    "gfx90a": ("matmul_evenk_f16_gfx90a_128x128x32_w4_s2_mi32.hsaco", 4,
               [(200, 136, 96), (72, 200, 128)]),
}
BLOCK_M = BLOCK_N = 128
WAVES = 4
# (quantum, seed): coarse and finest round-robin, and a seeded random order.
SCHEDULES = [(64, 0), (1, 0), (16, 1234)]
POISON = np.uint16(0x7E5A)  # a quiet NaN no conversion produces
PAD = 8


def run_emu(args, co, grid, kargs, quantum, seed, preload):
    cmd = [args.emu, co, "--kernel=matmul_evenk", f"--grid={grid}",
           f"--block={64 * WAVES}", "--dynamic-lds=65536",
           f"--quantum={quantum}", f"--kernarg-preload={preload}"]
    if seed:
        cmd.append(f"--seed={seed}")
    cmd += [f"--arg={a}" for a in kargs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 2):
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"crest-emu failed with exit code {proc.returncode}")
    races, instructions = 0, None
    for line in proc.stdout.splitlines():
        words = line.split()
        if words[:1] == ["races"]:
            races = int(words[1])
        if words[:2] == ["wave", "instructions"]:
            instructions = int(words[2])
    return races, instructions


def run_kernel(args, chip, co, prologue, M, N, K):
    tmp = os.path.join(args.tmp, f"{chip}-{M}x{N}x{K}")
    os.makedirs(tmp, exist_ok=True)

    rng = np.random.default_rng(2024)
    a2 = rng.integers(-4, 5, size=(M, K))  # twice the values
    b2 = rng.integers(-4, 5, size=(K, N))
    # A positive last row of A and last column of B: the corner element of
    # the edge tiles, printed on its own, is not 0.
    a2[M - 1] = rng.integers(1, 5, size=K)
    b2[:, N - 1] = rng.integers(1, 5, size=K)
    a = (a2 * 0.5).astype(np.float16)
    b = (b2 * 0.5).astype(np.float16)
    # The exact product (integers / 4), rounded once to f16.
    want = ((a2 @ b2) / 4.0).astype(np.float16)
    np.save(f"{tmp}/a.npy", a)
    np.save(f"{tmp}/b.npy", b)
    np.save(f"{tmp}/c0.npy", np.full((M, N + PAD), POISON).view(np.float16))
    np.save(f"{tmp}/scratch.npy", np.zeros(64, np.uint32))

    grid = -(-M // BLOCK_M) * -(-N // BLOCK_N)
    kargs = [f"in:{tmp}/a.npy", f"in:{tmp}/b.npy",
             f"inout:{tmp}/c0.npy:{tmp}/c.npy",
             f"i32:{M}", f"i32:{N}", f"i32:{K}",
             f"i32:{K}", "i32:1",        # stride_am, stride_ak
             f"i32:{N}", "i32:1",        # stride_bk, stride_bn
             f"i32:{N + PAD}", "i32:1",  # stride_cm, stride_cn
             f"in:{tmp}/scratch.npy", f"in:{tmp}/scratch.npy"]
    want_bits = want.view(np.uint16)
    ok = True
    counts = {}
    for q, s in SCHEDULES:
        for preload in ("on", "off"):
            races, counts[(q, s, preload)] = run_emu(args, co, grid, kargs,
                                                     q, s, preload)
            c = np.load(f"{tmp}/c.npy").view(np.uint16)
            got, pad = c[:, :N], c[:, N:]
            unwritten = int(np.count_nonzero(got == POISON))
            wrong = int(np.count_nonzero(got != want_bits)) - unwritten
            pad_written = int(np.count_nonzero(pad != POISON))
            # The last element of both edge tiles: row M - 1 and column
            # N - 1 sit inside the second tile in each dimension.
            edge = f"{got[M - 1, N - 1]:04x}/{want_bits[M - 1, N - 1]:04x}"
            run_ok = (wrong == 0 and unwritten == 0 and pad_written == 0
                      and races == 0)
            ok &= run_ok
            print(f"{chip} {M}x{N}x{K} q={q} seed={s} preload={preload}: "
                  f"wrong={wrong} unwritten={unwritten} "
                  f"padding_written={pad_written} edge={edge} races={races} "
                  f"{'PASS' if run_ok else 'FAIL'}")
    # Preloading starts every wave past the prologue; the prologue path runs
    # it once per wave. Same schedule, same instructions otherwise.
    q, s = SCHEDULES[0]
    skipped = counts[(q, s, "off")] - counts[(q, s, "on")]
    expected = grid * WAVES * prologue
    skip_ok = skipped == expected
    ok &= skip_ok
    print(f"{chip} {M}x{N}x{K} prologue: {skipped} more wave instructions "
          f"without preloading, expected {expected} "
          f"{'PASS' if skip_ok else 'FAIL'}")
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--emu", required=True)
    p.add_argument("--peers", required=True)
    p.add_argument("--tmp", required=True)
    p.add_argument("--kernel", choices=sorted(KERNELS), action="append")
    args = p.parse_args()
    if not os.path.isdir(args.peers):
        print(f"SKIP: {args.peers} does not exist")
        return 0
    ok = True
    for chip in args.kernel or sorted(KERNELS):
        name, prologue, shapes = KERNELS[chip]
        co = os.path.join(args.peers, name)
        if not os.path.isfile(co):
            raise SystemExit(f"{co} is missing")
        for M, N, K in shapes:
            ok &= run_kernel(args, chip, co, prologue, M, N, K)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
