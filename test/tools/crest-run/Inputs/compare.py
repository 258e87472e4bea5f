"""compare.py GOT.npy|GOT.pb WANT.npy [ATOL]: equality of dtype, shape and
values (exact, or within ATOL). ONNX TensorProto files are decoded with
scripts/onnxpb.py, a Python reader independent of the runtime's decoder."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                *[os.pardir] * 4, "scripts"))
from onnxpb import read_tensor  # noqa: E402


def read_pb(path):
    with open(path, "rb") as f:
        return read_tensor(f.read())[1]


got = read_pb(sys.argv[1]) if sys.argv[1].endswith(".pb") else np.load(sys.argv[1])
want = np.load(sys.argv[2])
if got.dtype != want.dtype or got.shape != want.shape:
    sys.exit(f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
atol = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
if atol and np.all(np.abs(got.astype(np.float64) - want) <= atol):
    print(f"compare: equal within {atol}")
    sys.exit(0)
if not np.array_equal(got, want):
    sys.exit(f"values differ: max abs difference {np.abs(got - want).max()}")
print("compare: equal")
