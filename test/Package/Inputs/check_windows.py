#!/usr/bin/env python3
"""NumPy side of test/Package/windows.test, written from the graph's
definition in Inputs/windows.mlir (no Crest code):

  check_windows.py input X.npy        writes the input x
  check_windows.py check A2.npy GN.npy B.npy E.npy H.npy
                                      compares the outputs, bit-exact (every
                                      value is a multiple of 1/32, far from
                                      f32's rounding)
"""
import sys

import numpy as np

from bitexact import run


def x_value():
    return (((np.arange(512) * 5) % 13 - 6) / 4).reshape(4, 8, 16)


def outputs(x):
    w = (((np.arange(384) * 7) % 17 - 8) / 8).reshape(16, 24)
    m = x.reshape(32, 16) @ w
    want = {
        "a2": m[8:12] + m[8:12],
        "gn": -x[2],
        "b": m[:, 4:8],
        "e": x.reshape(512)[1:9],
        "h": m[20:21],
    }
    return want


if __name__ == "__main__":
    sys.exit(run(sys.argv, x_value(), outputs))
