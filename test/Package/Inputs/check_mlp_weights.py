"""Checks the weights of Inputs/mlp.mlir's package against the constants as
the comment of mlp.mlir defines them (computed here, not read from the
compiler): w1 = 0.5, b1[k] = k - 4, w2[i][j] = (4 i + j - 20) / 8,
w3 = 0.25, w4 = -1. Weights are numbered in the order of the constants."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import inspect_package  # noqa: E402

with open(sys.argv[1], "rb") as f:
    pkg = inspect_package.read_container(f.read())

i, j = np.meshgrid(np.arange(16), np.arange(4), indexing="ij")
expected = {
    "weight0": np.full((16, 16), 0.5, np.float32),
    "weight1": np.arange(16, dtype=np.float32) - 4,
    "weight2": ((4 * i + j - 20) / 8).astype(np.float32),
    "weight3": np.full((4, 32), 0.25, np.float32),
    "weight4": np.full((32, 16), -1.0, np.float32),
}
for name, want in expected.items():
    got = inspect_package.weight(pkg, name)
    if got.dtype != np.float32 or got.shape != want.shape or \
            not np.array_equal(got, want):
        print("%s: got %s %s\n%s\nwant\n%s" % (name, got.dtype, got.shape,
                                               got, want))
        sys.exit(1)
    # Each weight starts 256-byte aligned in the weights section.
    value = [v for v in pkg["manifest"]["values"] if v["name"] == name][0]
    assert value["weight_offset"] % 256 == 0, value
print("weights ok: %d" % len(expected))
