#!/usr/bin/env python3
"""Compiles a model with Crest, runs it and compares with its test data.

  scripts/run-onnx-model.py MODEL_DIR --target gfx942 --precision f32 \\
      --tolerance 1e-3 [--build build] [--seeds 0,7] [--compile-arg=ARG...]

MODEL_DIR has the ONNX backend-test layout (model.onnx and
test_data_set_0/{input_N.pb,output_N.pb}), or model.mlir (a crest, TOSA or
linalg graph) in place of model.onnx and .npy files in place of the .pb
ones. The model is compiled with
crest-compile to a package and run with crest-run on the emulator (race
detector on) once per interleaving (--seeds: 0 is the default round-robin
scheduler, other values draw the wave order and quanta from that seed).
Each output is compared with output_N.pb, decoded independently of Crest
(scripts/onnxpb.py), by its max-norm relative error over the finite
reference elements

    max |y - y_ref| / max |y_ref|

which must not exceed --tolerance; infinite and NaN reference elements must
be reproduced exactly. Prints one line per run with the error,
compile time, emulated run time and the number of kernels launched; exits 1
on a mismatch, a race or a tool error.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxpb import read_tensor  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--build", default="build")
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--precision", default="f32")
    parser.add_argument("--tolerance", type=float, required=True)
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--quantum", type=int, default=64)
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="an extra crest-compile argument (repeatable; "
                             "e.g. --compile-arg=--calibration=DIR)")
    args = parser.parse_args()

    bin_dir = os.path.join(args.build, "bin")
    data_dir = os.path.join(args.model_dir, "test_data_set_0")
    inputs = sorted(f for f in os.listdir(data_dir) if f.startswith("input_"))
    outputs = sorted(f for f in os.listdir(data_dir)
                     if f.startswith("output_"))
    name = os.path.basename(os.path.normpath(args.model_dir))
    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "model.crest")
        start = time.perf_counter()
        model = os.path.join(args.model_dir, "model.onnx")
        if not os.path.exists(model):
            model = os.path.join(args.model_dir, "model.mlir")
        result = subprocess.run(
            [os.path.join(bin_dir, "crest-compile"), model,
             "--target=" + args.target, "--precision=" + args.precision,
             "-o", package] + args.compile_arg, capture_output=True,
            text=True)
        compile_seconds = time.perf_counter() - start
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            print("%s: crest-compile failed (exit %d)" %
                  (name, result.returncode))
            return 1
        describe = subprocess.run(
            [os.path.join(bin_dir, "crest-run"), package, "--describe"],
            capture_output=True, text=True)
        launches = next((int(line.split("(")[1].split(")")[0])
                         for line in describe.stdout.splitlines()
                         if line.startswith("launches (")), -1)

        status = 0
        for seed in [int(s) for s in args.seeds.split(",")]:
            command = [os.path.join(bin_dir, "crest-run"), package,
                       "--device=emu", "--emu-quantum=%d" % args.quantum]
            if seed:
                command.append("--emu-seed=%d" % seed)
            for f in inputs:
                command += ["--input", os.path.join(data_dir, f)]
            expected = []
            for index, f in enumerate(outputs):
                if f.endswith(".npy"):
                    array = np.load(os.path.join(data_dir, f))
                else:
                    with open(os.path.join(data_dir, f), "rb") as handle:
                        _, array = read_tensor(handle.read())
                path = os.path.join(tmp, "out%d.npy" % index)
                command += ["--output", path]
                expected.append((f, array, path))
            start = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True)
            run_seconds = time.perf_counter() - start
            if run.returncode != 0:
                sys.stderr.write(run.stderr)
                print("%s: crest-run failed (exit %d%s)" %
                      (name, run.returncode,
                       ", races" if run.returncode == 2 else ""))
                return 1
            for f, want, path in expected:
                got = np.load(path).astype(np.float64)
                want = want.astype(np.float64)
                if got.shape != want.shape:
                    print("%s: %s has shape %s, expected %s" %
                          (name, f, got.shape, want.shape))
                    return 1
                # Infinities and NaNs must be reproduced exactly; the error
                # is measured over the finite reference elements.
                finite = np.isfinite(want)
                special = bool(np.array_equal(got[~finite], want[~finite],
                                              equal_nan=True))
                scale = np.max(np.abs(want[finite]), initial=0)
                error = np.max(np.abs(got[finite] - want[finite]),
                               initial=0) / (scale or 1)
                ok = bool(special and np.isfinite(error)
                          and error <= args.tolerance)
                status |= 0 if ok else 1
                print(json.dumps({
                    "model": name, "target": args.target,
                    "precision": args.precision, "seed": seed,
                    "output": f, "max_rel_error": float(error),
                    "tolerance": args.tolerance, "ok": ok,
                    "compile_s": round(compile_seconds, 3),
                    "run_s": round(run_seconds, 3),
                    "launches": launches}))
    return status


if __name__ == "__main__":
    sys.exit(main())
