"""write_pb.py IN.npy OUT.pb [NAME] [--packed-floats]: writes an ONNX
TensorProto by hand (raw_data, or float_data packed with
--packed-floats)."""
import struct
import sys

import numpy as np

TYPES = {np.dtype(np.float32): 1, np.dtype(np.float16): 10,
         np.dtype(np.float64): 11, np.dtype(np.int32): 6}


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


a = np.load(sys.argv[1])
name = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else ""
b = b"".join(varint(1 << 3) + varint(d) for d in a.shape)
b += varint(2 << 3) + varint(TYPES[a.dtype])
if name:
    b += varint((8 << 3) | 2) + varint(len(name)) + name.encode()
if "--packed-floats" in sys.argv:
    payload = a.astype("<f4").tobytes()
    b += varint((4 << 3) | 2) + varint(len(payload)) + payload
else:
    raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
    b += varint((9 << 3) | 2) + varint(len(raw)) + raw
open(sys.argv[2], "wb").write(b)
