#!/usr/bin/env python3
"""Writes a linalg-on-tensors MLP, as torch-mlir lowers a torch.nn model,
its input and a NumPy reference.

  linalg_mlp.py OUT_DIR [--dtype f32|f16]

OUT_DIR/model.mlir:

  h = relu(x W1 + b1)        linalg.fill + linalg.matmul, a linalg.generic
                             with a broadcast bias (arith.addf, maximumf)
  c = h - mean(h, axis 1)    a reduction linalg.generic (arith.addf into a
                             zero fill), then a generic dividing by 32
  l = c W2^T + b2            linalg.matmul with transposed indexing maps
                             (torch.nn.Linear's [out, in] weight),
                             linalg.broadcast and linalg.add
  y = softmax(l, axis 1)     linalg.softmax

In f16 the weights and activations are f16 and the matmuls accumulate in
f32 outs, which torch-mlir writes as linalg.matmul of f16 operands into an
f32 fill followed by an arith.truncf generic.

OUT_DIR/test_data_set_0 holds input_0.npy and output_0.npy, the output
computed here in float64 from the same (rounded) weights, without Crest.
"""

import argparse
import os

import numpy as np


def dense(array):
    return "dense<%s>" % np.array2string(
        np.asarray(array, np.float64), separator=", ", threshold=10**9,
        floatmode="unique", max_line_width=10**9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    args = parser.parse_args()
    t = args.dtype
    np_dtype = np.float32 if t == "f32" else np.float16
    rng = np.random.default_rng(4321)

    def q(a):
        return a.astype(np_dtype).astype(np.float64)

    x = q(rng.normal(0, 1, (8, 64)))
    w1 = q(rng.normal(0, 0.2, (64, 32)))
    b1 = q(rng.normal(0, 0.1, (32,)))
    w2 = q(rng.normal(0, 0.3, (10, 32)))
    b2 = q(rng.normal(0, 0.1, (10,)))

    # The reference, rounding where the graph stores a tensor in t.
    h = q(np.maximum(q(x @ w1) + b1, 0))
    c = q(h - q(h.sum(axis=1, keepdims=True) / 32))
    logits = q(q(c @ w2.T) + b2)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)

    acc = "f32"
    mlir = """// A torch-mlir-style linalg MLP (linalg_mlp.py).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @mlp(%x: tensor<8x64xT>) -> tensor<8x10xT> {
  %w1 = arith.constant W1 : tensor<64x32xT>
  %b1 = arith.constant B1 : tensor<32xT>
  %w2 = arith.constant W2 : tensor<10x32xT>
  %b2 = arith.constant B2 : tensor<10xT>
  %zero = arith.constant 0.0 : f32
  %zt = arith.constant 0.0 : T
  %n = arith.constant 32.0 : T
  %e32 = tensor.empty() : tensor<8x32xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%x, %w1 : tensor<8x64xT>, tensor<64x32xT>) outs(%f32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e = tensor.empty() : tensor<8x32xT>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b1 : tensor<8x32xf32>, tensor<32xT>) outs(%e : tensor<8x32xT>) {
  ^bb0(%a: f32, %b: T, %o: T):
    %a1 = CAST_A
    %s = arith.addf %a1, %b : T
    %r = arith.maximumf %s, %zt : T
    linalg.yield %r : T
  } -> tensor<8x32xT>
  %es = tensor.empty() : tensor<8xT>
  %fs = linalg.fill ins(%zt : T) outs(%es : tensor<8xT>) -> tensor<8xT>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<8x32xT>) outs(%fs : tensor<8xT>) {
  ^bb0(%a: T, %acc: T):
    %s = arith.addf %a, %acc : T
    linalg.yield %s : T
  } -> tensor<8xT>
  %c = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]} ins(%h, %sum : tensor<8x32xT>, tensor<8xT>) outs(%e : tensor<8x32xT>) {
  ^bb0(%a: T, %s: T, %o: T):
    %m = arith.divf %s, %n : T
    %d = arith.subf %a, %m : T
    linalg.yield %d : T
  } -> tensor<8x32xT>
  %e10 = tensor.empty() : tensor<8x10xf32>
  %f10 = linalg.fill ins(%zero : f32) outs(%e10 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %l = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%c, %w2 : tensor<8x32xT>, tensor<10x32xT>) outs(%f10 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %et = tensor.empty() : tensor<8x10xT>
  %lt = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%l : tensor<8x10xf32>) outs(%et : tensor<8x10xT>) {
  ^bb0(%a: f32, %o: T):
    %a1 = CAST_A
    linalg.yield %a1 : T
  } -> tensor<8x10xT>
  %bb = linalg.broadcast ins(%b2 : tensor<10xT>) outs(%et : tensor<8x10xT>) dimensions = [0]
  %lb = linalg.add ins(%lt, %bb : tensor<8x10xT>, tensor<8x10xT>) outs(%et : tensor<8x10xT>) -> tensor<8x10xT>
  %y = linalg.softmax dimension(1) ins(%lb : tensor<8x10xT>) outs(%et : tensor<8x10xT>) -> tensor<8x10xT>
  return %y : tensor<8x10xT>
}
"""
    cast = "arith.truncf %a : f32 to f16" if t == "f16" else \
        "arith.addf %a, %zero : f32"
    mlir = (mlir.replace("CAST_A", cast).replace("W1", dense(w1))
            .replace("B1", dense(b1)).replace("W2", dense(w2))
            .replace("B2", dense(b2)).replace("xT>", "x%s>" % t)
            .replace(": T", ": %s" % t).replace(", T", ", %s" % t)
            .replace("T)", "%s)" % t).replace("-> T", "-> %s" % t))
    os.makedirs(os.path.join(args.out, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(args.out, "model.mlir"), "w") as f:
        f.write(mlir)
    data = os.path.join(args.out, "test_data_set_0")
    np.save(os.path.join(data, "input_0.npy"), x.astype(np_dtype))
    np.save(os.path.join(data, "output_0.npy"), y)
    print("max |y| %.3g, row sums %.6f" % (np.abs(y).max(),
                                            y.sum(axis=1).mean()))


if __name__ == "__main__":
    main()
