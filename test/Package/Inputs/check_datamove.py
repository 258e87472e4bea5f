#!/usr/bin/env python3
"""NumPy side of test/Package/datamove.test, written from the graph's
definition in Inputs/datamove.mlir (no Crest code):

  check_datamove.py input X.npy          writes the input x
  check_datamove.py check Y.npy Z.npy XFLAT.npy
                                         compares the outputs, bit-exact
                                         (every value is a multiple of 1/32
                                         far from f32's rounding)
"""
import sys

import numpy as np

from bitexact import run


def x_value():
    return (((np.arange(256) * 5) % 13 - 6) / 4).reshape(2, 8, 16)


def outputs(x):
    w = (((np.arange(384) * 7) % 17 - 8) / 8).reshape(16, 24)
    m = x.reshape(16, 16) @ w
    want = {
        "y": -(m.T[1::2, 3:16]).reshape(156),
        "z": (m + m).reshape(4, 4, 24),
        "xflat": x.reshape(256),
    }
    return want


if __name__ == "__main__":
    sys.exit(run(sys.argv, x_value(), outputs))
