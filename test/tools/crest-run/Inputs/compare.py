"""compare.py GOT.npy|GOT.pb WANT.npy [ATOL]: equality of dtype, shape and
values (exact, or within ATOL). ONNX TensorProto files are decoded here by hand (independently of
the runtime's decoder): dims (1), data_type (2), raw_data (9)."""
import sys

import numpy as np

ONNX_TYPES = {1: np.float32, 10: np.float16, 11: np.float64, 6: np.int32}


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def read_pb(path):
    b = open(path, "rb").read()
    i, dims, dtype, raw = 0, [], None, None
    while i < len(b):
        key, i = varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
            if field == 1:
                dims.append(v)
            elif field == 2:
                dtype = v
        elif wire == 2:
            n, i = varint(b, i)
            if field == 9:
                raw = b[i:i + n]
            i += n
        else:
            sys.exit(f"unexpected wire type {wire}")
    return np.frombuffer(raw, ONNX_TYPES[dtype]).reshape(dims)


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
