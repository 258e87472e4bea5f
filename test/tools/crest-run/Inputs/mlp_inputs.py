"""Inputs for examples/mlp.mlir (x 8x256 f16, w1 256x128 f16, b1 128 f32,
w2 128x10 f16, b2 10 f32) and NumPy's float64 result, into OUT_DIR."""
import sys

import numpy as np

out = sys.argv[1]
r = np.random.default_rng(1)
x = (r.integers(-3, 4, (8, 256)) / 4).astype(np.float16)
w1 = (r.integers(-3, 4, (256, 128)) / 8).astype(np.float16)
b1 = (r.integers(-8, 9, (128,)) / 4).astype(np.float32)
w2 = (r.integers(-3, 4, (128, 10)) / 64).astype(np.float16)
b2 = (r.integers(-8, 9, (10,)) / 4).astype(np.float32)
for name, a in dict(x=x, w1=w1, b1=b1, w2=w2, b2=b2).items():
    np.save(f"{out}/{name}.npy", a)
h = np.maximum(x.astype(np.float64) @ w1.astype(np.float64) + b1, 0)
h = h.astype(np.float16).astype(np.float64)
logits = h @ w2.astype(np.float64) + b2
e = np.exp(logits - logits.max(axis=1, keepdims=True))
np.save(f"{out}/expected.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
