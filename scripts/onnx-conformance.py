#!/usr/bin/env python3
"""ONNX conformance runner: Debian's libonnx-testdata node tests on Crest.

For every test directory whose model uses only one operator that Crest's
importer registers (a "dedicated" test of that operator; the list comes from
crest-translate), compiles model.onnx with
crest-compile, runs it with crest-run (on the emulator unless --device says
otherwise) on the test's input_N.pb files and compares every output with its
output_N.pb. Each directory ends in exactly one of three states, printed
with the reason:

  pass         every output matches within the tolerance
  fail         compiled but produced a wrong result, or crashed, or timed out
  unsupported  crest-compile rejected the model with a diagnostic (an
               attribute, type or rank Crest does not support)

Shape operands the tests give as graph inputs are bound at compile time
(--onnx-bind-input) when crest-compile says they must be constants; the
inputs of an op Crest folds on constants only (integer Div, Mod, Range,
...: "is computed at run time") are all bound, and a pass then says
"folded at compile time".
  deviation    a mismatch in a test whose data disagrees with the ONNX
               specification Crest follows (KNOWN_DEVIATIONS, with reasons)

Nothing is skipped silently: the summary counts every directory selected.
Exit status 1 when any test fails.

The .onnx and .pb files are read here with a small protobuf wire-format
reader (independent of Crest's importer) to select the tests and decode the
expected outputs.

  scripts/onnx-conformance.py --build build [--ops Gemm,Relu] [--jobs 2]
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxpb import INTEGER_TYPES, model_inputs, model_op_types, read_tensor  # noqa: E402

TESTDATA = "/usr/share/libonnx-testdata/data"
GROUPS = ("node", "pytorch-converted", "pytorch-operator", "simple")

# A model with an operator no importer knows: crest-translate's error lists
# the registry's operators (lib/Import/Onnx/Registry.h), the ones the runner
# covers.
PROBE_MODEL = """opset_import { version: 17 }
graph {
  name: "probe"
  node { op_type: "NoSuchOperator" input: "x" output: "y" }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } } } } }
  output { name: "y" }
}
"""


def registered_ops(build):
    """The ONNX operators Crest imports, from its registry."""
    translate = os.path.join(build, "bin", "crest-translate")
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "probe.pbtxt")
        with open(model, "w") as f:
            f.write(PROBE_MODEL)
        result = subprocess.run([translate, "--import-onnx-text", model],
                                capture_output=True, text=True)
    match = re.search(r"supported operators: (.*)", result.stderr)
    if not match:
        raise SystemExit("onnx-conformance: %s did not list the supported "
                         "operators: %s" % (translate, result.stderr.strip()))
    return [op.strip() for op in match.group(1).split(",")]


# Tests whose data disagrees with the ONNX specification Crest follows. They
# still run; a mismatch is reported as DEVIATION with this reason (and a
# pass as PASS), never silently dropped.
KNOWN_DEVIATIONS = {
    "node/test_cast_FLOAT_to_BFLOAT16":
        "ONNX 1.12's expected bf16 bits truncate the f32 input; crest.cast "
        "rounds to nearest even (its documented semantics, and what the "
        "chips' conversion instructions do)",
    "node/test_castlike_FLOAT_to_BFLOAT16_expanded":
        "the test's input_1 ('like') has shape [1] but the model declares "
        "[3, 4]; Crest checks input shapes against the model",
    "node/test_castlike_BFLOAT16_to_FLOAT_expanded":
        "the test's input_1 ('like') has shape [1] but the model declares "
        "[3, 4]; Crest checks input shapes against the model",
}

# --------------------------------------------------------------------------
# Running one test
# --------------------------------------------------------------------------


def select_tests(ops):
    """(op, directory) for every dedicated test of one of `ops`."""
    selected = []
    for group in GROUPS:
        root = os.path.join(TESTDATA, group)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            model = os.path.join(path, "model.onnx")
            if not os.path.isfile(model):
                continue
            try:
                with open(model, "rb") as f:
                    types = set(model_op_types(f.read()))
            except ValueError:
                continue
            if len(types) == 1 and next(iter(types)) in ops:
                selected.append((next(iter(types)), path))
    return selected


def run_test(args, op, path):
    """Returns (state, reason)."""
    data_dir = os.path.join(path, "test_data_set_0")
    with open(os.path.join(path, "model.onnx"), "rb") as f:
        model = f.read()
    inputs = model_inputs(model)
    input_files = sorted(
        (f for f in os.listdir(data_dir) if f.startswith("input_")),
        key=lambda f: int(f[6:-3]))
    output_files = sorted(
        (f for f in os.listdir(data_dir) if f.startswith("output_")),
        key=lambda f: int(f[7:-3]))
    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "model.crest")
        compile_cmd = [args.crest_compile, os.path.join(path, "model.onnx"),
                       "--target=" + args.target, "-o", package]

        def compile_with(extra):
            return subprocess.run(compile_cmd + extra, capture_output=True,
                                  text=True, timeout=args.timeout)

        result = compile_with([])
        bound = set()
        if result.returncode != 0 and (
                "must be a constant" in result.stderr
                or ("is unknown; bind it" in result.stderr
                    and any(elem in INTEGER_TYPES for _, elem in inputs))):
            # Shape operands given as graph inputs: bind the test's integer
            # inputs at compile time (see docs/Onnx.md).
            # Integer inputs are shapes, axes or sizes; Clip's bounds,
            # Resize's and Upsample's roi and scales, Pad's constant_value,
            # Dropout's ratio and training_mode and an integer Pow's
            # exponent are their inputs after the first.
            extra = []
            for position, ((name, elem), file) in enumerate(
                    zip(inputs, input_files)):
                # (Pow's integer base stays an input: only its exponent
                # must be constant.)
                if (elem in INTEGER_TYPES and op != "Pow") or (
                        op in ("Clip", "Resize", "Upsample", "Dropout", "Pad",
                               "Pow")
                        and position > 0):
                    extra.append("--onnx-bind-input=%s=%s" %
                                 (name, os.path.join(data_dir, file)))
                    bound.add(name)
            result = compile_with(extra)
        folded = False
        if result.returncode != 0 and "is computed at run time" in result.stderr:
            # An op Crest folds on constants only (integer Div, Mod, Range,
            # ...): bind every input, so that the test checks
            # the folded result (reported as such).
            extra = ["--onnx-bind-input=%s=%s" %
                     (name, os.path.join(data_dir, file))
                     for (name, _), file in zip(inputs, input_files)]
            bound = {name for name, _ in inputs}
            folded = True
            result = compile_with(extra)
        if result.returncode != 0:
            message = (result.stderr.strip().splitlines() or ["no message"])[-1]
            if result.returncode == 1 and "error:" in result.stderr:
                return "unsupported", message
            return "fail", "crest-compile exited %d: %s" % (result.returncode,
                                                             message)
        run_cmd = [args.crest_run, package, "--device=" + args.device]
        for (name, _), file in zip(inputs, input_files):
            if name not in bound:
                run_cmd += ["--input", "%s=%s" % (name,
                                                  os.path.join(data_dir, file))]
        expected = []
        for index, file in enumerate(output_files):
            with open(os.path.join(data_dir, file), "rb") as f:
                name, array = read_tensor(f.read())
            out = os.path.join(tmp, "out%d.npy" % index)
            # Outputs by position: output_N.pb is the graph's N-th output
            # (older test data leaves the TensorProto's name empty).
            run_cmd += ["--output", out]
            expected.append((name, array, out))
        try:
            result = subprocess.run(run_cmd, capture_output=True, text=True,
                                    timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return "fail", "crest-run timed out"
        if result.returncode != 0:
            message = (result.stderr.strip().splitlines() or ["no message"])[-1]
            return "fail", "crest-run exited %d: %s" % (result.returncode,
                                                         message)
        worst = ""
        for name, want, out in expected:
            got = np.load(out)
            if got.shape != want.shape:
                return "fail", "output %s has shape %s, expected %s" % (
                    name, got.shape, want.shape)
            if want.dtype.kind in "iub":
                if not np.array_equal(got.astype(want.dtype), want):
                    return "fail", "output %s differs" % name
                worst = worst or "exact (%s)" % want.dtype
                continue
            want64, got64 = want.astype(np.float64), got.astype(np.float64)
            if not np.array_equal(np.isnan(want64), np.isnan(got64)):
                return "fail", "output %s: NaNs differ" % name
            mask = ~np.isnan(want64)
            err = np.abs(got64 - want64)[mask]
            bound_err = args.atol + args.rtol * np.abs(want64)[mask]
            if err.size and np.any(err > bound_err):
                index = int(np.argmax(err - bound_err))
                return "fail", ("output %s: |error| %.3g > %.3g (value %.6g)"
                                % (name, err[index], bound_err[index],
                                   want64[mask][index]))
            if err.size:
                worst = "max |error| %.3g" % err.max()
        if folded:
            worst = ("folded at compile time, every input bound; " +
                     worst).rstrip("; ")
        return "pass", worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build",
                        help="Crest build directory (for bin/crest-compile "
                             "and bin/crest-run)")
    parser.add_argument("--ops", default="",
                        help="comma-separated ONNX operators (default: every "
                        "operator the importer registers)")
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--device", default="emu")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true",
                        help="only list the selected tests")
    args = parser.parse_args()
    args.crest_compile = os.path.join(args.build, "bin", "crest-compile")
    args.crest_run = os.path.join(args.build, "bin", "crest-run")

    if not os.path.isdir(TESTDATA):
        print("onnx-conformance: %s is missing (Debian package "
              "libonnx-testdata)" % TESTDATA, file=sys.stderr)
        return 2
    supported = registered_ops(args.build)
    ops = [op for op in args.ops.split(",") if op] or supported
    unknown = [op for op in ops if op not in supported]
    if unknown:
        print("onnx-conformance: unknown operators: %s" % ", ".join(unknown),
              file=sys.stderr)
        return 2
    tests = select_tests(set(ops))
    if args.list:
        for op, path in tests:
            print("%-20s %s" % (op, os.path.relpath(path, TESTDATA)))
        return 0

    counts = {"pass": 0, "fail": 0, "unsupported": 0, "deviation": 0}
    per_op = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(op, path, pool.submit(run_test, args, op, path))
                   for op, path in tests]
        for op, path, future in futures:
            try:
                state, reason = future.result()
            except Exception as error:  # noqa: BLE001 - reported as a failure
                state, reason = "fail", "runner error: %s" % error
            relative = os.path.relpath(path, TESTDATA)
            if state == "fail" and relative in KNOWN_DEVIATIONS:
                state, reason = "deviation", "%s (%s)" % (
                    KNOWN_DEVIATIONS[relative], reason)
            counts[state] += 1
            per_op.setdefault(op, {"pass": 0, "fail": 0, "unsupported": 0,
                                   "deviation": 0})
            per_op[op][state] += 1
            print("%-11s %-45s %s" % (state.upper(),
                                      os.path.relpath(path, TESTDATA), reason),
                  flush=True)
    print()
    for op in sorted(per_op):
        c = per_op[op]
        print("%-20s %3d pass %3d fail %3d unsupported %3d deviation" %
              (op, c["pass"], c["fail"], c["unsupported"], c["deviation"]))
    print("\n%d tests: %d passed, %d failed, %d unsupported, %d known "
          "deviations" % (len(tests), counts["pass"], counts["fail"],
                          counts["unsupported"], counts["deviation"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
