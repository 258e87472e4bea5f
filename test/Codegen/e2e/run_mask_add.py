#!/usr/bin/env python3
"""Attention with an additive 0 / -inf mask written out (Where(mask, 0,
-inf) added to the scaled scores, as ONNX exports write it), compiled fused
(crest-fuse-attention turns the mask into crest.attention's bool mask) and
unfused (--fuse-attention=false), run on the emulator and compared with a
NumPy float64 evaluation of the graph as written.

  run_mask_add.py BIN_DIR TMP_DIR [--target gfx942]
"""
import argparse
import os
import subprocess
import sys

import numpy as np

GRAPH = """
func.func @masked(%q: tensor<4x16x64xf16> {crest.name = "q"},
                  %k: tensor<4x64x64xf16> {crest.name = "k"},
                  %v: tensor<4x64x64xf16> {crest.name = "v"},
                  %m: tensor<1x64xi1> {crest.name = "m"})
    -> (tensor<4x16x64xf32> {crest.name = "o"}) {
  %s = crest.batch_matmul %q, %k transpose_rhs precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x16x64xf16>, tensor<4x64x64xf16> -> tensor<4x16x64xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = crest.div %s, %c : tensor<4x16x64xf32>, tensor<f32> -> tensor<4x16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = crest.select %m, %zero, %ninf : tensor<1x64xi1>, tensor<f32>, tensor<f32> -> tensor<1x64xf32>
  %a = crest.add %d, %bias : tensor<4x16x64xf32>, tensor<1x64xf32> -> tensor<4x16x64xf32>
  %p = crest.softmax %a : tensor<4x16x64xf32>
  %ph = crest.cast %p : tensor<4x16x64xf32> to tensor<4x16x64xf16>
  %o = crest.batch_matmul %ph, %v precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         : tensor<4x16x64xf16>, tensor<4x64x64xf16> -> tensor<4x16x64xf32>
  return %o : tensor<4x16x64xf32>
}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("tmp")
    parser.add_argument("--target", default="gfx942")
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    rng = np.random.default_rng(11)
    q = rng.normal(0, 1, (4, 16, 64)).astype(np.float16)
    k = rng.normal(0, 1, (4, 64, 64)).astype(np.float16)
    v = rng.normal(0, 1, (4, 64, 64)).astype(np.float16)
    m = rng.random((1, 64)) < 0.6
    m[0, 0] = True
    inputs = {"q": q, "k": k, "v": v, "m": m}
    for name, array in inputs.items():
        np.save(os.path.join(args.tmp, name + ".npy"), array)
    graph = os.path.join(args.tmp, "masked.mlir")
    with open(graph, "w") as f:
        f.write(GRAPH)

    # The graph as written, in float64 (P rounded to f16 as the cast does).
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64))
    s = s / 8 + np.where(m, 0.0, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    p = (e / e.sum(axis=-1, keepdims=True)).astype(np.float16)
    want = np.einsum("hqk,hkd->hqd", p.astype(np.float64), v.astype(np.float64))

    status = 0
    for fused in (True, False):
        package = os.path.join(args.tmp, "fused.crest" if fused else
                               "unfused.crest")
        out = os.path.join(args.tmp, "o-%d.npy" % fused)
        subprocess.run([os.path.join(args.bin, "crest-compile"), graph,
                        "--target=" + args.target, "-o", package] +
                       ([] if fused else ["--fuse-attention=false"]),
                       check=True)
        describe = subprocess.run(
            [os.path.join(args.bin, "crest-run"), package, "--describe"],
            capture_output=True, text=True, check=True).stdout
        kernels = [line.split()[0] for line in describe.splitlines()
                   if line.startswith("  ") and "[" in line
                   and "code object" in line]
        command = [os.path.join(args.bin, "crest-run"), package,
                   "--device=emu", "--output", out]
        for name in inputs:
            command += ["--input", "%s=%s" % (
                name, os.path.join(args.tmp, name + ".npy"))]
        subprocess.run(command, check=True, capture_output=True)
        got = np.load(out).astype(np.float64)
        error = np.linalg.norm(got - want) / np.linalg.norm(want)
        ok = bool(np.isfinite(got).all() and error < 1e-3)
        status |= 0 if ok else 1
        print("%s: %d kernels (%s), rel_l2 %.2e, %s" % (
            "fused" if fused else "unfused", len(kernels),
            " ".join(kernels), error, "PASS" if ok else "FAIL"))
    return status


if __name__ == "__main__":
    sys.exit(main())
