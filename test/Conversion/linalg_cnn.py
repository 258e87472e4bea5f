#!/usr/bin/env python3
"""Writes a small CNN in linalg on tensors, as torch-mlir lowers
torch.nn.Conv2d and friends (NCHW), its input and a NumPy reference.

  linalg_cnn.py OUT_DIR

OUT_DIR/model.mlir:

  conv 3x3/2: tensor.pad with zeros, linalg.conv_2d_nchw_fchw accumulating
              into its bias broadcast by a linalg.generic (torch-mlir's form)
  ReLU:       arith.cmpf ugt + arith.select (torch-mlir's form)
  depthwise:  tensor.pad, linalg.depthwise_conv_2d_nchw_chw from a zero fill,
              ReLU as arith.maximumf
  max pool:   linalg.pooling_nchw_max 2x2/2 from a -inf fill
  mean:       a reduction generic over H and W into a zero fill, / 9
  linear:     linalg.matmul accumulating into its broadcast bias

OUT_DIR/test_data_set_0 holds input_0.npy and output_0.npy, the output
computed here in float64 from the same weights, without Crest.
"""

import argparse
import os

import numpy as np


def dense(array):
    return "dense<%s>" % np.array2string(
        np.asarray(array, np.float64), separator=", ", threshold=10**9,
        floatmode="unique", max_line_width=10**9)


def conv_nchw(x, w, stride, groups=1):
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    oh = (h - kh) // stride + 1
    ow = (wd - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    per = f // groups
    for o in range(f):
        g = o // per
        for i in range(oh):
            for j in range(ow):
                win = x[:, g * cg:(g + 1) * cg, i * stride:i * stride + kh,
                        j * stride:j * stride + kw]
                y[:, o, i, j] = (win * w[o]).sum(axis=(1, 2, 3))
    return y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    args = parser.parse_args()
    rng = np.random.default_rng(99)
    f32 = lambda a: a.astype(np.float32).astype(np.float64)  # noqa: E731
    x = f32(rng.normal(0, 1, (1, 3, 12, 12)))
    w1 = f32(rng.normal(0, 0.3, (8, 3, 3, 3)))
    b1 = f32(rng.normal(0, 0.1, (8,)))
    dw = f32(rng.normal(0, 0.4, (8, 3, 3)))
    fc = f32(rng.normal(0, 0.5, (8, 4)))
    fcb = f32(rng.normal(0, 0.1, (4,)))

    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h = conv_nchw(xp, w1, 2) + b1[None, :, None, None]        # 1x8x6x6
    h = np.where(h > 0, h, 0)
    hp = np.pad(h, ((0, 0), (0, 0), (1, 1), (1, 1)))
    h = conv_nchw(hp, dw[:, None], 1, groups=8)                 # 1x8x6x6
    h = np.maximum(h, 0)
    h = h.reshape(1, 8, 3, 2, 3, 2).max(axis=(3, 5))            # 1x8x3x3
    m = h.sum(axis=(2, 3)) / 9                                  # 1x8
    y = m @ fc + fcb                                            # 1x4

    mlir = """// A torch-mlir-style linalg CNN (linalg_cnn.py).
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
#nc = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @cnn(%x: tensor<1x3x12x12xf32>) -> tensor<1x4xf32> {
  %w1 = arith.constant W1 : tensor<8x3x3x3xf32>
  %b1 = arith.constant B1 : tensor<8xf32>
  %dw = arith.constant DW : tensor<8x3x3xf32>
  %fc = arith.constant FC : tensor<8x4xf32>
  %fcb = arith.constant FCB : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nine = arith.constant 9.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x12x12xf32> to tensor<1x3x14x14xf32>
  %e1 = tensor.empty() : tensor<1x8x6x6xf32>
  %bias = linalg.generic {indexing_maps = [#chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<8xf32>) outs(%e1 : tensor<1x8x6x6xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x8x6x6xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%xp, %w1 : tensor<1x3x14x14xf32>, tensor<8x3x3x3xf32>) outs(%bias : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %r1 = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x8x6x6xf32>) outs(%e1 : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %g = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %g, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  %rp = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%rp, %dw : tensor<1x8x8x8xf32>, tensor<8x3x3xf32>) outs(%f2 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %r2 = linalg.generic {indexing_maps = [#nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d : tensor<1x8x6x6xf32>) outs(%e1 : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x6x6xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<1x8x3x3xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%r2, %win : tensor<1x8x6x6xf32>, tensor<2x2xf32>) outs(%f3 : tensor<1x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %e4 = tensor.empty() : tensor<1x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x8xf32>) -> tensor<1x8xf32>
  %s = linalg.generic {indexing_maps = [#nchw, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%p : tensor<1x8x3x3xf32>) outs(%f4 : tensor<1x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1x8xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<1x8xf32>) outs(%e4 : tensor<1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.divf %a, %nine : f32
    linalg.yield %q : f32
  } -> tensor<1x8xf32>
  %e5 = tensor.empty() : tensor<1x4xf32>
  %fb = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%fcb : tensor<4xf32>) outs(%e5 : tensor<1x4xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x4xf32>
  %y = linalg.matmul ins(%mean, %fc : tensor<1x8xf32>, tensor<8x4xf32>) outs(%fb : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
"""
    mlir = (mlir.replace("W1", dense(w1)).replace("B1", dense(b1))
            .replace("DW", dense(dw)).replace("FCB", dense(fcb))
            .replace("FC ", dense(fc) + " "))
    os.makedirs(os.path.join(args.out, "test_data_set_0"), exist_ok=True)
    with open(os.path.join(args.out, "model.mlir"), "w") as f:
        f.write(mlir)
    data = os.path.join(args.out, "test_data_set_0")
    np.save(os.path.join(data, "input_0.npy"), x.astype(np.float32))
    np.save(os.path.join(data, "output_0.npy"), y)
    print("y %s" % " ".join("%.4f" % v for v in y.reshape(-1)))


if __name__ == "__main__":
    main()
