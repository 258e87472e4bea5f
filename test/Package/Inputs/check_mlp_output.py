"""Writes x.npy (mode "input") or checks y.npy against NumPy (mode "check")
for Inputs/mlp.mlir, with the weights as its comment defines them."""
import sys

import numpy as np

mode, path = sys.argv[1], sys.argv[2]
x = np.arange(128, dtype=np.float32).reshape(8, 16) / 64 - 1
if mode == "input":
    np.save(path, x)
    sys.exit(0)
i, j = np.meshgrid(np.arange(16), np.arange(4), indexing="ij")
t0 = np.maximum(x.astype(np.float64) @ np.full((16, 16), 0.5) +
                (np.arange(16) - 4.0), 0)
t1 = t0 @ ((4 * i + j - 20) / 8)
t2 = t1 @ np.full((4, 32), 0.25)
y = t2 @ np.full((32, 16), -1.0)
got = np.load(path)
err = np.abs(got - y).max() / np.abs(y).max()
print("shape %s, max relative error %.1e" % (got.shape, err))
sys.exit(0 if got.shape == (8, 16) and err < 1e-5 else 1)
