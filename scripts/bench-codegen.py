#!/usr/bin/env python3
"""Codegen benchmark (not a test): for a 4096x4096x4096 f16 -> f32 matmul
with the default configuration, compiles the kernel for gfx942 and gfx90a,
extracts the steady-state K loop from the assembly, and reports under
llvm-mca-22 (single-wave model) the MFMA share: the cycles the MFMA unit
(HWXDL) is busy per iteration over the iteration's total cycles. Also the
compile time per kernel (median of 5) and the register report.

  scripts/bench-codegen.py [--build build] [--size 4096]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def loop_body(asm):
    """The instructions of the innermost loop containing the most MFMAs:
    the block from a label to the backward branch that targets it."""
    lines = asm.splitlines()
    labels = {}
    best = None
    for i, line in enumerate(lines):
        m = re.match(r"^(\.LBB\S+):", line)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"s_cbranch_\w+\s+(\.LBB\S+)", line)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)] + 1:i]
            mfmas = sum("v_mfma" in l for l in body)
            if best is None or mfmas > best[0]:
                best = (mfmas, body)
    if best is None:
        return None
    out = []
    for l in best[1]:
        s = l.split(";")[0].strip()
        if not s or s.startswith(".") or s.endswith(":") or "s_cbranch" in s \
                or s.startswith("s_branch"):
            continue
        out.append(s)
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--size", type=int, default=4096)
    args = p.parse_args()
    compile_ = os.path.join(args.build, "bin", "crest-compile")
    n = args.size
    graph = f"""module {{
  func.func @gemm(%a: tensor<{n}x{n}xf16>, %b: tensor<{n}x{n}xf16>) -> tensor<{n}x{n}xf32> {{
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<{n}x{n}xf16>, tensor<{n}x{n}xf16> -> tensor<{n}x{n}xf32>
    return %0 : tensor<{n}x{n}xf32>
  }}
}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "gemm.mlir")
        open(src, "w").write(graph)
        for chip in ["gfx942", "gfx90a"]:
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                subprocess.run([compile_, src, f"--target={chip}",
                                "--emit=hsaco", "-o", f"{tmp}/k.co"],
                               check=True)
                times.append(time.perf_counter() - t0)
            report = subprocess.run(
                [compile_, src, f"--target={chip}", "--emit=hsaco", "-o",
                 f"{tmp}/k.co", "--report"], check=True, capture_output=True,
                text=True).stdout
            asm = subprocess.run([compile_, src, f"--target={chip}",
                                  "--emit=asm", "-o", "-"], check=True,
                                 capture_output=True, text=True).stdout
            body = loop_body(asm)
            print(f"== {n}x{n}x{n} f16 on {chip}: compile median "
                  f"{statistics.median(times):.3f} s (min {min(times):.3f}, "
                  f"max {max(times):.3f}, 5 runs, whole crest-compile process)")
            for line in report.splitlines()[1:]:
                print("   " + line)
            if not body:
                print("   no K loop found in the assembly")
                continue
            loop = os.path.join(tmp, "loop.s")
            open(loop, "w").write("\n".join(body) + "\n")
            try:
                mca = subprocess.run(
                    ["/usr/lib/llvm-22/bin/llvm-mca", "-mtriple=amdgcn-amd-amdhsa",
                     f"-mcpu={chip}", "-iterations=100", "-resource-pressure",
                     loop], capture_output=True, text=True, timeout=60).stdout
            except subprocess.TimeoutExpired:
                print("   llvm-mca did not finish in 60 s: not modelled")
                continue
            cycles = int(re.search(r"Total Cycles:\s+(\d+)", mca).group(1))
            iters = int(re.search(r"Iterations:\s+(\d+)", mca).group(1))
            # Resource pressure per iteration: the header names the resources.
            header = next(l for l in mca.splitlines()
                          if l.startswith("[0]") or "HWXDL" in l)
            res = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n",
                            mca)
            names = re.findall(r"\[(\d+)\]\s*-\s*(\w+)", mca)
            index = {name: int(i) for i, name in names}
            values = res.group(2).split()
            xdl = float(values[index["HWXDL"]]) if "HWXDL" in index else 0.0
            per_iter = cycles / iters
            mfmas = sum("v_mfma" in l for l in body)
            print(f"   K loop: {len(body)} instructions, {mfmas} MFMAs, "
                  f"{per_iter:.1f} cycles per iteration, MFMA unit busy "
                  f"{xdl:.1f} -> MFMA share {100 * xdl / per_iter:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
