#!/usr/bin/env python3
"""Writes calibration input sets near a model's test input.

  perturb_inputs.py DATA_DIR OUT_DIR [--sets 4] [--sigma 0.1]

DATA_DIR holds input_<i>.pb (ONNX TensorProto); OUT_DIR/set_<k>/
input_<i>.npy gets, for a float input, x * (1 + sigma * n1) + sigma *
std(x) * n2 with n1, n2 standard normal (seed k), and for an integer input
(token ids) a random permutation of its elements: inputs of the same kind as the test input but not
equal to it, so that a plan calibrated on them is checked on the test
input as a holdout. The .pb reader is scripts/onnxpb.py (not Crest's).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
from onnxpb import read_tensor  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--sets", type=int, default=4)
    parser.add_argument("--sigma", type=float, default=0.1)
    args = parser.parse_args()
    inputs = sorted(f for f in os.listdir(args.data_dir)
                    if f.startswith("input_") and f.endswith(".pb"))
    for k in range(args.sets):
        rng = np.random.default_rng(1000 + k)
        out = os.path.join(args.out_dir, "set_%d" % k)
        os.makedirs(out, exist_ok=True)
        for f in inputs:
            with open(os.path.join(args.data_dir, f), "rb") as handle:
                _, x = read_tensor(handle.read())
            if np.issubdtype(x.dtype, np.integer):
                y = rng.permutation(x.reshape(-1)).reshape(x.shape)
            else:
                x64 = x.astype(np.float64)
                y = (x64 * (1 + args.sigma * rng.standard_normal(x.shape))
                     + args.sigma * np.std(x64)
                     * rng.standard_normal(x.shape)).astype(x.dtype)
            np.save(os.path.join(out, f[:-3] + ".npy"), y)
    print("%d calibration sets of %d input(s)" % (args.sets, len(inputs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
