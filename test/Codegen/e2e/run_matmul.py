#!/usr/bin/env python3
"""End-to-end check of generated kernels: writes a crest graph (a matmul
with an optional bias + activation epilogue), compiles it with crest-compile
for a chip, runs the code object on crest-emu at several wave interleavings
and compares with a NumPy reference.

Each run prints one line
  <name> q=<quantum> seed=<seed>: max_abs_err=E max_rel_err=R races=N PASS|FAIL
and the script exits 1 if any run fails. Data are small integers (exact in
every precision, so any error at all is a bug) unless --random is given.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

# scripts/crest_launch.py: compiling one kernel and reading its launch.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from crest_launch import buffer_args, launch_of  # noqa: E402

PRECISIONS = {
    # name: (operand numpy dtype, crest element type, accumulator / output
    # element type)
    "f32": (np.float32, "f32", "f32"),
    "f16": (np.float16, "f16", "f32"),
    "bf16": (np.uint16, "bf16", "f32"),
    "tf32": (np.float32, "f32", "f32"),
    "i8": (np.int8, "i8", "i32"),
    # fp8 operands are passed as their bit patterns (uint8).
    "fp8": (np.uint8, "f8E4M3FNUZ", "f32"),
    "fp8ocp": (np.uint8, "f8E4M3FN", "f32"),
}
# Exponent bias of the E4M3 encodings: FNUZ (gfx942) and OCP (gfx950).
FP8_BIAS = {"fp8": 8, "fp8ocp": 7}

SCHEDULES = [(1, 0), (7, 0), (1 << 30, 0), (16, 1234), (3, 99)]


def bf16_bits(x):
    b = x.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def fp8_bits(x, bias):
    """E4M3 bit patterns of values that are exact in it (normal numbers or
    zero), independent of the emulator's conversion routines."""
    out = np.zeros(x.shape, dtype=np.uint8)
    for index, v in np.ndenumerate(x):
        if v == 0:
            continue
        a = abs(float(v))
        e = int(np.floor(np.log2(a)))
        mant = a / 2.0**e - 1.0
        assert mant * 8 == int(mant * 8) and 1 <= e + bias <= 15, v
        out[index] = (0x80 if v < 0 else 0) | ((e + bias) << 3) | int(mant * 8)
    return out


def graph(args):
    m, n, k = args.m, args.n, args.k
    _, elt, acc = PRECISIONS[args.precision]
    lhs = f"tensor<{m}x{k}x{elt}>"
    rhs = f"tensor<{n}x{k}x{elt}>" if args.transpose_rhs else f"tensor<{k}x{n}x{elt}>"
    out = f"tensor<{m}x{n}x{acc}>"
    bias = f"tensor<{n}x{acc}>"
    prec = "tf32" if args.precision == "tf32" else elt
    sync = f" sync <scope = {args.scope}, stages = {args.stages}>" if args.scope else ""
    config = f" config <{args.config}>" if args.config else ""
    trans = " transpose_rhs" if args.transpose_rhs else ""
    body = [f"      %0 = crest.matmul %x, %y{trans} precision <lhs = {prec}, rhs = {prec}, acc = {acc}, out = {acc}>{sync}{config}",
            f"             : {lhs}, {rhs} -> {out}"]
    result = "%0"
    if args.epilogue:
        body += [f"      %1 = crest.add %0, %z : {out}, {bias} -> {out}"]
        result = "%1"
        if args.epilogue != "bias":
            body += [f"      %2 = crest.{args.epilogue} %1 : {out}"]
            result = "%2"
    return f"""module {{
  func.func @mm(%a: {lhs}, %b: {rhs}, %bias: {bias}) -> {out} {{
    %r = crest.kernel ins(%a, %b, %bias : {lhs}, {rhs}, {bias}) -> {out} {{
    ^bb0(%x: {lhs}, %y: {rhs}, %z: {bias}):
{chr(10).join(body)}
      crest.yield {result} : {out}
    }}
    return %r : {out}
  }}
}}
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    p.add_argument("--m", type=int, required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--precision", default="f16", choices=list(PRECISIONS))
    p.add_argument("--scope", choices=["wavefront", "workgroup"])
    p.add_argument("--stages", type=int, default=1)
    p.add_argument("--transpose-rhs", action="store_true")
    p.add_argument("--epilogue",
                   choices=["bias", "relu", "sigmoid", "gelu", "hardswish"])
    p.add_argument("--config", help="an explicit #crest.config body")
    p.add_argument("--compile-flags", default="")
    p.add_argument("--expect-races", action="store_true")
    p.add_argument("--crest-opt", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-emu", required=True)
    p.add_argument("--tmp", required=True)
    args = p.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    tmp = args.tmp
    m, n, k = args.m, args.n, args.k

    src = os.path.join(tmp, "graph.mlir")
    open(src, "w").write(graph(args))
    co = os.path.join(tmp, "graph.co")
    subprocess.run([args.crest_compile, src, f"--target={args.chip}",
                    "--emit=hsaco", "-o", co] + args.compile_flags.split(),
                   check=True)
    # The launch geometry the codegen chose, from the annotated host op.
    block, grid, kernel, _, buffers = launch_of(args.crest_opt, src, args.chip,
                                                want_buffers=True)

    rng = np.random.default_rng(3)
    # i8 spans its whole range (signedness matters); the float types get
    # small integers, exact in every one of them (fp8 included).
    lo, hi = (-128, 128) if args.precision == "i8" else (-3, 4)
    a = rng.integers(lo, hi, size=(m, k)).astype(np.float32)
    b = rng.integers(lo, hi, size=(k, n)).astype(np.float32)
    bias = rng.integers(-8, 9, size=(n,)).astype(np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64))
    if args.epilogue:
        z = want + bias
        want = {"bias": lambda v: v, "relu": lambda v: np.maximum(v, 0),
                "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
                "gelu": lambda v: 0.5 * v * (1 + np.vectorize(__import__("math").erf)(v / np.sqrt(2))),
                "hardswish": lambda v: v * np.clip(v + 3, 0, 6) / 6}[args.epilogue](z)
    bm = b.T.copy() if args.transpose_rhs else b
    dtype = PRECISIONS[args.precision][0]
    if args.precision == "bf16":
        np.save(f"{tmp}/a.npy", bf16_bits(a))
        np.save(f"{tmp}/b.npy", bf16_bits(bm))
    elif args.precision in FP8_BIAS:
        np.save(f"{tmp}/a.npy", fp8_bits(a, FP8_BIAS[args.precision]))
        np.save(f"{tmp}/b.npy", fp8_bits(bm, FP8_BIAS[args.precision]))
    else:
        np.save(f"{tmp}/a.npy", a.astype(dtype))
        np.save(f"{tmp}/b.npy", bm.astype(dtype))
    out_type = PRECISIONS[args.precision][2]
    np.save(f"{tmp}/bias.npy", bias.astype(np.int32 if out_type == "i32"
                                           else np.float32))
    # Transcendental epilogues go through polynomial approximations.
    # Exact data stay exact through ReLU; hardswish divides by 6 in f32 and
    # the transcendental epilogues use polynomial approximations.
    tol = {None: 0.0, "bias": 0.0, "relu": 0.0,
           "hardswish": 2e-7}.get(args.epilogue, 2e-6)

    name = (f"{args.precision} {m}x{n}x{k} {args.chip} "
            f"{args.scope or 'auto'}/{args.stages}"
            f"{' +' + args.epilogue if args.epilogue else ''}")
    ok = True
    for q, s in SCHEDULES:
        cmd = [args.crest_emu, co, f"--kernel={kernel}",
               f"--grid={grid}", f"--block={block}",
               f"--quantum={q}", f"--arg=in:{tmp}/a.npy",
               f"--arg=in:{tmp}/b.npy", f"--arg=in:{tmp}/bias.npy",
               f"--arg=out:{tmp}/c.npy={out_type}:{m}x{n}"]
        # A split-K kernel's workspace (NaN) and semaphores (zero).
        cmd += buffer_args(buffers, tmp, np)
        if s:
            cmd.append(f"--seed={s}")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 2):
            sys.stderr.write(proc.stdout + proc.stderr)
            return 1
        races = int(re.search(r"races (\d+)", proc.stdout).group(1))
        for line in proc.stdout.splitlines():
            if "race on byte" in line:
                print(line.strip())
                break
        got = np.load(f"{tmp}/c.npy").astype(np.float64)
        err = np.abs(got - want)
        max_abs = float(err.max())
        max_rel = float((err / np.maximum(np.abs(want), 1e-30)).max())
        good = bool(np.all(err <= tol * np.maximum(1, np.abs(want))))
        # Every semaphore back at zero, ready for the next launch.
        for i in range(len(buffers[1])):
            left = np.load(f"{tmp}/semaphores{i}.out.npy")
            if np.any(left != 0):
                print(f"semaphores{i} not reset: {np.count_nonzero(left)} "
                      f"of {left.size} nonzero")
                good = False
        good = (races > 0) if args.expect_races else (good and races == 0)
        ok &= good
        print(f"{name} q={q} seed={s}: max_abs_err={max_abs:.3g} "
              f"max_rel_err={max_rel:.3g} races={races} "
              f"{'PASS' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
