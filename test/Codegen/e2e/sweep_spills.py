#!/usr/bin/env python3
"""Compiles the default configuration of a matmul for every M, N, K in
{1, 7, 64, 197, 1000, 4096} (216 kernels in one module) and checks from
crest-compile's report that none uses scratch or spills registers."""
import argparse
import itertools
import subprocess
import sys

SIZES = [1, 7, 64, 197, 1000, 4096]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--chip", required=True)
    p.add_argument("--precision", required=True)
    p.add_argument("--crest-compile", required=True)
    p.add_argument("--crest-opt")
    p.add_argument("--crest-emu")
    p.add_argument("--tmp", required=True)
    args = p.parse_args()
    t = args.precision
    funcs = []
    for i, (m, n, k) in enumerate(itertools.product(SIZES, repeat=3)):
        funcs.append(
            f"  func.func @mm_{m}x{n}x{k}(%a: tensor<{m}x{k}x{t}>, %b: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}xf32> {{\n"
            f"    %0 = crest.matmul %a, %b precision <lhs = {t}, rhs = {t}, acc = f32, out = f32>\n"
            f"           : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}> -> tensor<{m}x{n}xf32>\n"
            f"    return %0 : tensor<{m}x{n}xf32>\n  }}")
    src = f"{args.tmp}.mlir"
    open(src, "w").write("module {\n" + "\n".join(funcs) + "\n}\n")
    out = subprocess.run([args.crest_compile, src, f"--target={args.chip}",
                          "--emit=hsaco", "-o", f"{args.tmp}.co", "--report"],
                         check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    header = next(l for l in lines if l.startswith("kernel"))
    cols = header.split()
    rows = [dict(zip(cols, l.split())) for l in lines
            if l.startswith("mm_")]
    bad = [r for r in rows if r["scratch"] != "0" or r["vgpr-spill"] != "0"
           or r["sgpr-spill"] != "0"]
    for r in bad:
        print(f"SPILL {r['kernel']}: scratch={r['scratch']} "
              f"vgpr-spill={r['vgpr-spill']} sgpr-spill={r['sgpr-spill']}")
    print(f"{args.chip} {t}: {len(rows)} kernels, {len(bad)} with scratch or "
          f"spills, max VGPRs {max(int(r['vgpr']) + int(r['agpr']) for r in rows)}")
    return 1 if bad or len(rows) != 216 else 0


if __name__ == "__main__":
    sys.exit(main())
