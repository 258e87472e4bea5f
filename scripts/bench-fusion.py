#!/usr/bin/env python3
"""Fusion benchmark (not a test): launches and modelled latency of the
shared models (../shared/models), and of f16 GEMMs whose lhs is cast from
f32, with operand prologues fused and, as the baseline in the same run,
with --fuse-prologues=false (models in f32 and f16), under
the emulator's timing model (docs/Timing.md; its parameters are printed by
crest-run --timing: gfx942 at its 1051 MHz modelled clock, 2.0 us launch
overhead per kernel). Modelled time is deterministic, so one run per
configuration suffices; the script runs the first one twice to check.

  scripts/bench-fusion.py [--build build] [--shared ../shared]
                          [--target gfx942] [--models mlp,tiny_encoder,...]

prints one row per model and precision, then per GEMM shape (M x K x N;
projected with --timing-only), then per row group (an RMS norm written
out, an add and a layer norm; M x N, --fuse-rows against
--fuse-rows=false):
  model precision: launches B -> A, modelled B us -> A us (kernels B -> A)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

MODELS = ["mlp", "mobilenet_v3_small", "tiny_encoder"]
GEMMS = [(128, 1024, 256), (256, 1024, 512), (512, 512, 512),
         (512, 1024, 512), (1024, 512, 256), (1024, 1024, 1024),
         (64, 4096, 1024)]

CAST_GEMM = """func.func @mm(%x: tensor<{m}x{k}xf32> {{crest.name = "x"}},
             %w: tensor<{k}x{n}xf16> {{crest.name = "w"}})
    -> (tensor<{m}x{n}xf32> {{crest.name = "y"}}) {{
  %0 = crest.cast %x : tensor<{m}x{k}xf32> to tensor<{m}x{k}xf16>
  %1 = crest.matmul %0, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16> -> tensor<{m}x{n}xf32>
  return %1 : tensor<{m}x{n}xf32>
}}
"""


# Row groups: an RMS norm written out (as exported models have it) and a
# residual add before a layer norm, with --fuse-rows (the default) and,
# as the baseline, without.
RMS_NORM = """func.func @rms(%x: tensor<{m}x{n}xf32> {{crest.name = "x"}},
             %w: tensor<{n}xf32> {{crest.name = "w"}})
    -> (tensor<{m}x{n}xf32> {{crest.name = "y"}}) {{
  %eps = arith.constant dense<1.0e-6> : tensor<{m}x1xf32>
  %one = arith.constant dense<1.0> : tensor<{m}x1xf32>
  %q = crest.mul %x, %x : tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32> -> tensor<{m}x{n}xf32>
  %m = crest.reduce_mean %q dims [1] keep_dims : tensor<{m}x{n}xf32> -> tensor<{m}x1xf32>
  %v = crest.add %m, %eps : tensor<{m}x1xf32>, tensor<{m}x1xf32> -> tensor<{m}x1xf32>
  %r = crest.sqrt %v : tensor<{m}x1xf32>
  %i = crest.div %one, %r : tensor<{m}x1xf32>, tensor<{m}x1xf32> -> tensor<{m}x1xf32>
  %y0 = crest.mul %x, %i : tensor<{m}x{n}xf32>, tensor<{m}x1xf32> -> tensor<{m}x{n}xf32>
  %y = crest.mul %y0, %w : tensor<{m}x{n}xf32>, tensor<{n}xf32> -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
"""
ADD_NORM = """func.func @addnorm(%x: tensor<{m}x{n}xf32> {{crest.name = "x"}},
             %w: tensor<{m}x{n}xf32> {{crest.name = "w"}})
    -> (tensor<{m}x{n}xf32> {{crest.name = "y"}},
        tensor<{m}x{n}xf32> {{crest.name = "s"}}) {{
  %one = arith.constant dense<1.0> : tensor<{n}xf32>
  %s = crest.add %x, %w : tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32> -> tensor<{m}x{n}xf32>
  %y = crest.layer_norm %s, %one : tensor<{m}x{n}xf32>, tensor<{n}xf32> -> tensor<{m}x{n}xf32>
  return %y, %s : tensor<{m}x{n}xf32>, tensor<{m}x{n}xf32>
}}
"""
ROWS = [("rms-norm", RMS_NORM, (1, 4096)), ("rms-norm", RMS_NORM, (128, 1024)), ("rms-norm", RMS_NORM, (1, 1024)), ("rms-norm", RMS_NORM, (512, 768)),
        ("rms-norm", RMS_NORM, (128, 4096)), ("add+layer-norm", ADD_NORM,
                                              (128, 256)),
        ("add+layer-norm", ADD_NORM, (128, 1024))]


def measure_graph(build, name, text, inputs, target, flags, tmp):
    """Compiles the graph `text` with `flags`, runs it on the emulator with
    the arrays `inputs` (name -> array) under --timing-only and returns
    (launches, modelled us, modelled us in kernels)."""
    import numpy as np
    name = os.path.join(tmp, name)
    with open(name + ".mlir", "w") as f:
        f.write(text)
    command = [os.path.join(build, "bin", "crest-run"), name + ".crest",
               "--device=emu", "--timing", "--timing-only"]
    for key, value in inputs.items():
        np.save("%s-%s.npy" % (name, key), value)
        command += ["--input", "%s=%s-%s.npy" % (key, name, key)]
    subprocess.run([os.path.join(build, "bin", "crest-compile"),
                    name + ".mlir", "--target=" + target, "-o",
                    name + ".crest"] + flags, check=True)
    out = subprocess.run(command, check=True, capture_output=True,
                         text=True).stdout
    match = SUMMARY.search(out)
    if not match:
        sys.exit("no timing summary in crest-run's output:\n" + out)
    return int(match.group(1)), float(match.group(2)), float(match.group(3))


def measure_gemm(build, shape, target, prologues, tmp):
    import numpy as np
    m, k, n = shape
    rng = np.random.default_rng(1)
    inputs = {"x": rng.standard_normal((m, k)).astype(np.float32),
              "w": rng.standard_normal((k, n)).astype(np.float16)}
    return measure_graph(
        build, "gemm-%dx%dx%d-%d" % (shape + (prologues,)),
        CAST_GEMM.format(m=m, k=k, n=n), inputs, target,
        ["--fuse-prologues=" + ("true" if prologues else "false")], tmp)


def measure_rows(build, kind, text, shape, target, rows, tmp):
    import numpy as np
    m, n = shape
    rng = np.random.default_rng(2)
    w_shape = (n,) if text is RMS_NORM else (m, n)
    inputs = {"x": rng.standard_normal((m, n)).astype(np.float32),
              "w": rng.standard_normal(w_shape).astype(np.float32)}
    return measure_graph(
        build, "%s-%dx%d-%d" % (kind, m, n, rows), text.format(m=m, n=n),
        inputs, target, ["--fuse-rows=" + ("true" if rows else "false")],
        tmp)
SUMMARY = re.compile(r"(\d+) launch(?:es)?, ([0-9.]+) us modelled = ([0-9.]+) us "
                     r"in kernels")


def measure(build, model_dir, target, precision, prologues, tmp):
    package = os.path.join(tmp, "%s-%s-%d.crest" % (
        os.path.basename(model_dir), precision, prologues))
    subprocess.run([os.path.join(build, "bin", "crest-compile"),
                    os.path.join(model_dir, "model.onnx"),
                    "--target=" + target, "--precision=" + precision,
                    "--fuse-prologues=" + ("true" if prologues else "false"),
                    "-o", package], check=True)
    data = os.path.join(model_dir, "test_data_set_0")
    command = [os.path.join(build, "bin", "crest-run"), package,
               "--device=emu", "--timing"]
    for name in sorted(os.listdir(data)):
        if name.startswith("input_"):
            command += ["--input", os.path.join(data, name)]
    out = subprocess.run(command, check=True, capture_output=True,
                         text=True).stdout
    match = SUMMARY.search(out)
    if not match:
        sys.exit("no timing summary in crest-run's output:\n" + out)
    return int(match.group(1)), float(match.group(2)), float(match.group(3))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--shared",
                        default=os.path.join(root, "..", "shared"))
    parser.add_argument("--target", default="gfx942")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--no-gemms", action="store_true",
                        help="skip the cast-operand GEMMs")
    parser.add_argument("--no-rows", action="store_true",
                        help="skip the row groups (RMS and layer norms)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        checked = False
        for model in args.models.split(","):
            model_dir = os.path.join(args.shared, "models", model)
            for precision in ("f32", "f16"):
                before = measure(args.build, model_dir, args.target,
                                 precision, False, tmp)
                after = measure(args.build, model_dir, args.target,
                                precision, True, tmp)
                if not checked:
                    again = measure(args.build, model_dir, args.target,
                                    precision, True, tmp)
                    if again != after:
                        sys.exit("modelled time is not deterministic: %s vs "
                                 "%s" % (after, again))
                    checked = True
                print("%s %s: launches %d -> %d, modelled %.1f us -> %.1f us "
                      "(kernels %.1f -> %.1f us)" % (
                          model, precision, before[0], after[0], before[1],
                          after[1], before[2], after[2]), flush=True)
        for shape in [] if args.no_gemms else GEMMS:
            before = measure_gemm(args.build, shape, args.target, False, tmp)
            after = measure_gemm(args.build, shape, args.target, True, tmp)
            print("cast+matmul %dx%dx%d: launches %d -> %d, modelled %.2f us "
                  "-> %.2f us (kernels %.2f -> %.2f us)" % (
                      shape + (before[0], after[0], before[1], after[1],
                               before[2], after[2])), flush=True)
        for kind, text, shape in [] if args.no_rows else ROWS:
            before = measure_rows(args.build, kind, text, shape, args.target,
                                  False, tmp)
            after = measure_rows(args.build, kind, text, shape, args.target,
                                 True, tmp)
            print("%s %dx%d: launches %d -> %d, modelled %.2f us -> %.2f us "
                  "(kernels %.2f -> %.2f us)" % (
                      (kind,) + shape + (before[0], after[0], before[1],
                                         after[1], before[2], after[2])),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
