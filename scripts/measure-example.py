#!/usr/bin/env python3
"""Measures Crest on the README's example graph (examples/transformer-block.mlir
by default), with medians over repeated runs:

  - compile time: wall time of `crest-compile GRAPH --target=CHIP -o x.crest`
    (median of --repeats runs; the first, cold run included);
  - emulated run time: `crest-run --device=emu --benchmark=N`'s median of the
    kernels' emulated wall time, and the median wall time of the whole
    crest-run process (load, upload, run, --verify);
  - kernel and launch counts (crest-run --describe);
  - the `crest-run --verify --report` table.

  scripts/measure-example.py [--build build] [--chip gfx942] [--repeats 5]

Inputs come from examples/transformer_block_inputs.py (for another graph,
give --inputs-script, a script called as SCRIPT OUT_DIR that writes one
NAME.npy per graph input).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.environ.get("CREST_BUILD_DIR",
                                                     os.path.join(ROOT, "build")))
    p.add_argument("--graph", default=os.path.join(ROOT, "examples",
                                                   "transformer-block.mlir"))
    p.add_argument("--inputs-script", default=os.path.join(
        ROOT, "examples", "transformer_block_inputs.py"))
    p.add_argument("--chip", default="gfx942")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    compile_tool = os.path.join(bin_dir, "crest-compile")
    run_tool = os.path.join(bin_dir, "crest-run")

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, args.inputs_script, tmp], check=True)
        pkg = os.path.join(tmp, "model.crest")
        compile_times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            subprocess.run([compile_tool, args.graph, f"--target={args.chip}",
                            "-o", pkg], check=True)
            compile_times.append(time.perf_counter() - t0)

        describe = subprocess.run([run_tool, pkg, "--describe"], check=True,
                                  capture_output=True, text=True).stdout
        names = re.findall(r"^  (\w+): ", describe.split("outputs (")[0],
                           re.M)
        inputs = []
        for name in names:
            inputs += ["--input", f"{name}={tmp}/{name}.npy"]
        kernels = int(re.search(r"^kernels \((\d+)\)", describe, re.M).group(1))
        launches = int(re.search(r"^launches \((\d+)\)", describe, re.M).group(1))

        report = subprocess.run([run_tool, pkg, "--device=emu", "--verify",
                                 "--report"] + inputs, check=True,
                                capture_output=True, text=True).stdout
        bench = subprocess.run([run_tool, pkg, "--device=emu",
                                f"--benchmark={args.repeats}"] + inputs,
                               check=True, capture_output=True,
                               text=True).stdout
        line = re.search(r"^benchmark: .*$", bench, re.M).group(0)
        run_walls = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            subprocess.run([run_tool, pkg, "--device=emu", "--verify"] + inputs,
                           check=True, capture_output=True)
            run_walls.append(time.perf_counter() - t0)

    ms = lambda xs: f"median {statistics.median(xs) * 1e3:.0f} ms " \
        f"(min {min(xs) * 1e3:.0f}, max {max(xs) * 1e3:.0f})"
    print(f"graph: {os.path.relpath(args.graph, ROOT)} for {args.chip}")
    print(f"compile time (crest-compile -o model.crest, {args.repeats} runs): "
          f"{ms(compile_times)}")
    print(f"emulated run time (crest-run --benchmark={args.repeats}): "
          f"{line[len('benchmark: '):]}")
    print(f"crest-run process wall time with --verify ({args.repeats} runs): "
          f"{ms(run_walls)}")
    print(f"kernels: {kernels}, launches: {launches}")
    print("crest-run --device=emu --verify --report:")
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
