"""A small reader of ONNX protobuf files (ModelProto, TensorProto).

Independent of Crest's C++ importer and runtime, so tests and scripts can
check them against it: it selects conformance tests by their operators and
decodes expected outputs. Only the fields those uses need are decoded.
"""

import struct

import numpy as np

def _varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def fields(data):
    """Yields (field number, wire type, value) of one message."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield number, wire, value


def model_op_types(model_bytes):
    """The op_type of every node of a ModelProto's main graph."""
    ops = []
    for number, _, graph in fields(model_bytes):
        if number != 7:  # ModelProto.graph
            continue
        for gnum, _, node in fields(graph):
            if gnum != 1:  # GraphProto.node
                continue
            for nnum, _, value in fields(node):
                if nnum == 4:  # NodeProto.op_type
                    ops.append(value.decode())
    return ops


def model_inputs(model_bytes):
    """(name, elem_type) of the graph inputs without an initializer."""
    inputs, initializers = [], set()
    for number, _, graph in fields(model_bytes):
        if number != 7:
            continue
        for gnum, _, value in fields(graph):
            if gnum == 5:  # initializer
                for tnum, _, tv in fields(value):
                    if tnum == 8:
                        initializers.add(tv.decode())
            elif gnum == 11:  # input (ValueInfoProto)
                name, elem = "", 0
                for vnum, _, vv in fields(value):
                    if vnum == 1:
                        name = vv.decode()
                    elif vnum == 2:  # TypeProto
                        for tnum, _, tv in fields(vv):
                            if tnum == 1:  # tensor_type
                                for xnum, _, xv in fields(tv):
                                    if xnum == 1:
                                        elem = xv
                inputs.append((name, elem))
    return [(n, e) for n, e in inputs if n not in initializers]


# TensorProto.DataType -> numpy dtype.
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
          6: np.int32,
          7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
          12: np.uint32, 13: np.uint64}
INTEGER_TYPES = {2, 3, 4, 5, 6, 7, 12, 13}


def read_tensor(data):
    """Decodes a serialized TensorProto into (name, numpy array)."""
    dims, dtype, name, raw = [], 1, "", None
    floats, int32s, int64s, doubles, uint64s = [], [], [], [], []

    def packed(value, wire, fmt, size, out):
        if wire == 2:
            if fmt == "varint":
                pos = 0
                while pos < len(value):
                    v, pos = _varint(value, pos)
                    out.append(v)
            else:
                out.extend(struct.unpack("<%d%s" % (len(value) // size, fmt),
                                         value))
        elif fmt == "varint":
            out.append(value)
        else:
            out.extend(struct.unpack("<" + fmt, value))

    for number, wire, value in fields(data):
        if number == 1:
            packed(value, wire, "varint", 0, dims)
        elif number == 2:
            dtype = value
        elif number == 4:
            packed(value, wire, "f", 4, floats)
        elif number == 5:
            packed(value, wire, "varint", 0, int32s)
        elif number == 7:
            packed(value, wire, "varint", 0, int64s)
        elif number == 8:
            name = value.decode()
        elif number == 9:
            raw = value
        elif number == 10:
            packed(value, wire, "d", 8, doubles)
        elif number == 11:
            packed(value, wire, "varint", 0, uint64s)
    if dtype == 16:  # BFLOAT16: widen the 16-bit patterns to float32
        bits = (np.frombuffer(raw, "<u2") if raw is not None
                else np.array(int32s, np.uint32).astype(np.uint16))
        return name, (bits.astype(np.uint32) << 16).view(np.float32).reshape(dims)
    if dtype not in DTYPES:
        raise ValueError("unsupported TensorProto data type %d" % dtype)
    np_type = np.dtype(DTYPES[dtype]).newbyteorder("<")
    if raw is not None:
        array = np.frombuffer(raw, np_type)
    elif dtype == 1:
        array = np.array(floats, np.float32)
    elif dtype == 11:
        array = np.array(doubles, np.float64)
    elif dtype == 7:
        array = np.array([v - (1 << 64) if v >= 1 << 63 else v
                          for v in int64s], np.int64)
    elif dtype == 10:
        array = np.array(int32s, np.uint16).view(np.float16)
    elif dtype in (12, 13):  # UINT32, UINT64: uint64_data
        array = np.array(uint64s, np.uint64).astype(np_type)
    else:
        array = np.array([v - (1 << 64) if v >= 1 << 63 else v
                          for v in int32s]).astype(np_type)
    return name, array.reshape(dims)
