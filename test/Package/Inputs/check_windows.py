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


def x_value():
    return (((np.arange(512) * 5) % 13 - 6) / 4).reshape(4, 8, 16)


def main():
    if sys.argv[1] == "input":
        np.save(sys.argv[2], x_value().astype(np.float32))
        return 0
    x = x_value()
    w = (((np.arange(384) * 7) % 17 - 8) / 8).reshape(16, 24)
    m = x.reshape(32, 16) @ w
    want = {
        "a2": m[8:12] + m[8:12],
        "gn": -x[2],
        "b": m[:, 4:8],
        "e": x.reshape(512)[1:9],
        "h": m[20:21],
    }
    ok = True
    for name, path in zip(("a2", "gn", "b", "e", "h"), sys.argv[2:7]):
        got = np.load(path).astype(np.float64)
        good = got.shape == want[name].shape and np.array_equal(got, want[name])
        ok &= good
        print("%s shape %s: %s" % (name, got.shape,
                                   "equal" if good else "DIFFERENT"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
