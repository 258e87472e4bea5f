#!/usr/bin/env python3
"""Modelled latency of attention on gfx942 (the emulator's timing model,
docs/Timing.md): the fused crest.attention kernel against the same attention
written as separate ops (Q K^T, scale, softmax, cast, P V) compiled with
--fuse-attention=false, for

  decode:  batch 1, 32 query heads on 8 KV heads (grouped), head dim 128,
           one query against a KV length of 4096 (bottom_right causal);
  prefill: batch 1, 32 heads, 2048 tokens, head dim 128, causal and not.

The unfused decode graph merges the 4 query heads of a KV head into M
([8, 4, 128] x [8, 4096, 128]^T), so it reads K and V once, as the fused
kernel does; the unfused prefill graph cannot express the causal mask
without a 2048 x 2048 mask tensor, so it is run non-causal only.

The model is deterministic (no medians needed: one run is the figure). By
default every workgroup runs, so that the grid is composed from what each
executed (docs/Timing.md, "Sampling"): the causal kernel's workgroups do
unequal work. --sampled runs only the workgroups the model replays
(crest-run --timing-only: faster, but it times every workgroup like the
sampled ones). Prints one line per case and the stall breakdown of each
fused kernel.

usage: bench-attention.py [--build build] [--chip gfx942] [--sampled]
                          [--cases decode,prefill] [--fused-only]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def ttype(shape, elt="f16"):
    return "tensor<" + "x".join(map(str, shape)) + "x" + elt + ">"


def fused_graph(B, Hq, Hkv, Lq, Lkv, D, causal):
    q, k = ttype([B, Hq, Lq, D]), ttype([B, Hkv, Lkv, D])
    o = ttype([B, Hq, Lq, D])
    c = f" causal = {causal}" if causal != "none" else ""
    return (f"func.func @attn(%q: {q}, %k: {k}, %v: {k}) -> {o} {{\n"
            f"  %o = crest.attention %q, %k, %v{c}\n"
            f"    qk <lhs = f16, rhs = f16, acc = f32, out = f32>\n"
            f"    pv <lhs = f16, rhs = f16, acc = f32, out = f16>\n"
            f"    : {q}, {k}, {k} -> {o}\n"
            f"  return %o : {o}\n}}\n")


def unfused_graph(N, M, Lkv, D):
    """Attention of N batches of M query rows as separate ops."""
    q, k = ttype([N, M, D]), ttype([N, Lkv, D])
    s, sh = ttype([N, M, Lkv], "f32"), ttype([N, M, Lkv])
    o = ttype([N, M, D])
    scale = 1 / np.sqrt(D)
    return (f"func.func @attn(%q: {q}, %k: {k}, %v: {k}) -> {o} {{\n"
            f"  %s = crest.batch_matmul %q, %k transpose_rhs\n"
            f"    precision <lhs = f16, rhs = f16, acc = f32, out = f32>\n"
            f"    : {q}, {k} -> {s}\n"
            f"  %c = arith.constant dense<{scale:e}> : tensor<f32>\n"
            f"  %t = crest.mul %s, %c : {s}, tensor<f32> -> {s}\n"
            f"  %p = crest.softmax %t : {s}\n"
            f"  %ph = crest.cast %p : {s} to {sh}\n"
            f"  %o = crest.batch_matmul %ph, %v\n"
            f"    precision <lhs = f16, rhs = f16, acc = f32, out = f16>\n"
            f"    : {sh}, {k} -> {o}\n"
            f"  return %o : {o}\n}}\n")


def run(a, tmp, name, src, shapes, extra=()):
    path = f"{tmp}/{name}.mlir"
    open(path, "w").write(src)
    pkg = f"{tmp}/{name}.crest"
    subprocess.run([f"{a.build}/bin/crest-compile", path, f"--target={a.chip}",
                    "-o", pkg, *extra], check=True)
    rng = np.random.default_rng(0)
    inputs = []
    for i, shape in enumerate(shapes):
        f = f"{tmp}/{name}_{i}.npy"
        np.save(f, rng.standard_normal(shape).astype(np.float16))
        inputs.append(f"--input={f}")
    cmd = [f"{a.build}/bin/crest-run", pkg, "--device=emu", "--timing"]
    cmd += ["--timing-only"] if a.sampled else ["--no-race-check"]
    proc = subprocess.run(cmd + inputs, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stdout + proc.stderr)
    out = proc.stdout
    total = re.search(r"model '[^']*': (\d+) launch(?:es)?, ([0-9.]+) us "
                      r"modelled = ([0-9.]+) us in kernels", out)
    stalls = re.findall(r"launch \d+: (\S+),.*?\n.*?modelled time: [^\n]*\n"
                        r"\s*bound: ([^\n]*)\n.*?wave cycles \d+: ([^\n]*)",
                        out, re.S)
    return int(total.group(1)), float(total.group(2)), float(total.group(3)), \
        stalls


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    p.add_argument("--chip", default="gfx942")
    p.add_argument("--sampled", action="store_true")
    p.add_argument("--cases", default="decode,prefill")
    p.add_argument("--fused-only", action="store_true",
                   help="skip the unfused baselines")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="crest-bench-attn-")
    mode = "sampled workgroups" if a.sampled else "every workgroup"
    print(f"modelled on {a.chip} ({mode}); time = kernels + launch overheads")
    results = {}

    def report(case, launches, total, kernels, stalls):
        results[case] = total
        print(f"{case:34s} {launches:2d} launches  {total:9.2f} us "
              f"({kernels:.2f} us in kernels)")
        for kernel, bound, cycles in stalls:
            if "attention" in kernel:
                print(f"    {kernel}: bound {bound}; wave cycles: {cycles}")

    cases = a.cases.split(",")
    if "decode" in cases:
        B, Hq, Hkv, L, D = 1, 32, 8, 4096, 128
        shapes = [(B, Hq, 1, D), (B, Hkv, L, D), (B, Hkv, L, D)]
        report("decode fused", *run(a, tmp, "decode_fused",
                                    fused_graph(B, Hq, Hkv, 1, L, D,
                                                "bottom_right"), shapes))
        shapes = [(Hkv, Hq // Hkv, D), (Hkv, L, D), (Hkv, L, D)]
        if not a.fused_only:
            report("decode unfused", *run(a, tmp, "decode_unfused",
                                          unfused_graph(Hkv, Hq // Hkv, L, D),
                                          shapes, ["--fuse-attention=false"]))
    if "prefill" in cases:
        B, H, L, D = 1, 32, 2048, 128
        shapes = [(B, H, L, D)] * 3
        report("prefill fused, non-causal", *run(
            a, tmp, "prefill_fused", fused_graph(B, H, H, L, L, D, "none"),
            shapes))
        report("prefill fused, causal", *run(
            a, tmp, "prefill_causal", fused_graph(B, H, H, L, L, D,
                                                  "top_left"), shapes))
        shapes = [(H, L, D)] * 3
        if not a.fused_only:
            report("prefill unfused, non-causal", *run(
                a, tmp, "prefill_unfused", unfused_graph(H, L, L, D), shapes,
                ["--fuse-attention=false"]))
        print(f"causal / non-causal (fused): "
              f"{results['prefill fused, causal'] / results['prefill fused, non-causal']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
