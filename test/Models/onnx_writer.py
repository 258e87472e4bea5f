"""ONNX protobuf messages encoded by hand, for the test models that write
their own .onnx files (the onnx Python package is not installed on the
build machine): only the fields those models use are written. Field
numbers are onnx.proto's.
"""

import numpy as np


def varint(value):
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


FLOAT, INT64, FLOAT16 = 1, 7, 10


def tensor(name, array):
    """TensorProto: dims 1, data_type 2, name 8, raw_data 9."""
    array = np.asarray(array)
    data_type = {np.dtype(np.float32): FLOAT,
                 np.dtype(np.float16): FLOAT16,
                 np.dtype(np.int64): INT64}[array.dtype]
    out = b"".join(field_varint(1, d) for d in array.shape)
    out += field_varint(2, data_type) + field_bytes(8, name)
    out += field_bytes(9, array.astype(array.dtype.newbyteorder("<")).tobytes())
    return out


def attribute_int(name, value):
    """AttributeProto: name 1, i 3, type 20 (INT = 2)."""
    return field_bytes(1, name) + field_varint(3, value) + field_varint(20, 2)


def attribute_ints(name, values):
    """AttributeProto: ints 8, type 20 (INTS = 7)."""
    return (field_bytes(1, name) + b"".join(field_varint(8, v) for v in values)
            + field_varint(20, 7))


def attribute_float(name, value):
    """AttributeProto: f 2 (fixed32), type 20 (FLOAT = 1)."""
    import struct
    return (field_bytes(1, name) + varint(2 << 3 | 5)
            + struct.pack("<f", value) + field_varint(20, 1))


def attribute_string(name, value):
    """AttributeProto: s 4, type 20 (STRING = 3)."""
    return field_bytes(1, name) + field_bytes(4, value) + field_varint(20, 3)


def node(op_type, inputs, outputs, name, attributes=()):
    """NodeProto: input 1, output 2, name 3, op_type 4, attribute 5."""
    out = b"".join(field_bytes(1, i) for i in inputs)
    out += b"".join(field_bytes(2, o) for o in outputs)
    out += field_bytes(3, name) + field_bytes(4, op_type)
    out += b"".join(field_bytes(5, a) for a in attributes)
    return out


def value_info(name, elem_type, shape):
    """ValueInfoProto: name 1, type 2 (TypeProto.tensor_type 1: elem_type 1,
    shape 2 (dim 1: dim_value 1))."""
    dims = b"".join(field_bytes(1, field_varint(1, d)) for d in shape)
    tensor_type = field_varint(1, elem_type) + field_bytes(2, dims)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def write_test_case(out, model, inputs, outputs):
    """Writes OUT/model.onnx and OUT/test_data_set_0/{input_N,output_N}.pb,
    the layout scripts/run-onnx-model.py reads: `inputs` and `outputs` are
    (name, array) lists in the graph's order. Output files are numbered
    with two digits when there are more than ten (the runner takes them in
    sorted file order)."""
    import os
    data = os.path.join(out, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model)
    for i, (name, value) in enumerate(inputs):
        with open(os.path.join(data, "input_%d.pb" % i), "wb") as f:
            f.write(tensor(name, value))
    pattern = "output_%02d.pb" if len(outputs) > 10 else "output_%d.pb"
    for i, (name, value) in enumerate(outputs):
        with open(os.path.join(data, pattern % i), "wb") as f:
            f.write(tensor(name, value))
