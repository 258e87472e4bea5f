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


def x_value():
    return (((np.arange(256) * 5) % 13 - 6) / 4).reshape(2, 8, 16)


def main():
    if sys.argv[1] == "input":
        np.save(sys.argv[2], x_value().astype(np.float32))
        return 0
    x = x_value()
    w = (((np.arange(384) * 7) % 17 - 8) / 8).reshape(16, 24)
    m = x.reshape(16, 16) @ w
    want = {
        "y": -(m.T[1::2, 3:16]).reshape(156),
        "z": (m + m).reshape(4, 4, 24),
        "xflat": x.reshape(256),
    }
    ok = True
    for name, path in zip(("y", "z", "xflat"), sys.argv[2:5]):
        got = np.load(path).astype(np.float64)
        good = got.shape == want[name].shape and np.array_equal(got, want[name])
        ok &= good
        print("%s shape %s: %s" % (name, got.shape,
                                   "equal" if good else "DIFFERENT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
