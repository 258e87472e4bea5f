"""Compiles examples/mlp.mlir with Crest's Python package and runs it on
the emulator, checking the output against NumPy (docs/Python.md).

    PYTHONPATH=build/python python3 examples/python_mlp.py [CHIP]

The graph: y = softmax(relu(x * W1 + b1) * W2 + b2) with f16 matrix inputs
accumulating in f32. NumPy computes the same steps in float64 from the same
f16 values (the hidden layer is rounded to f16 where the graph casts it).
"""
import os
import sys

import numpy as np

import crest

chip = sys.argv[1] if len(sys.argv) > 1 else "gfx942"
graph = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlp.mlir")

package = crest.compile(graph, target=chip)
print("compiled %s for %s: %d kernels" % (os.path.basename(graph),
                                          package.chip, len(package.kernels)))
for kernel in package.kernels:
    print("  %-22s %3d VGPRs %6d bytes of LDS %3d MFMAs" % (
        kernel["kernel"], kernel["vgprs"], kernel["lds_bytes"],
        kernel["mfma"]))

rng = np.random.default_rng(2024)
inputs = {}
for index, (name, dtype, shape) in enumerate(package.inputs):
    # x of unit size, the weights and biases smaller: the logits stay O(1).
    scale = 1.0 if index == 0 else 0.1
    inputs[name] = (rng.standard_normal(shape) * scale).astype(dtype.replace(
        "f", "float"))
print("inputs:", ", ".join("%s %s%s" % (n, d, list(s))
                           for n, d, s in package.inputs))

outputs = crest.run(package, inputs, device="emu", verify=True)
[(name, y)] = outputs.items()

f = {name: value.astype(np.float64) for name, value in inputs.items()}
x, w1, b1, w2, b2 = (f[n] for n, _, _ in package.inputs)
hidden = np.maximum(x @ w1 + b1, 0).astype(np.float16).astype(np.float64)
logits = hidden @ w2 + b2
expected = np.exp(logits - logits.max(axis=1, keepdims=True))
expected /= expected.sum(axis=1, keepdims=True)

error = np.abs(y - expected).max()
print("output %s %s%s: rows sum to %.6f, largest probability %.3f" % (
    name, y.dtype, list(y.shape), y.sum(axis=1).mean(), y.max()))
print("max abs error against NumPy: %.2e" % error)
print("PASS" if error < 1e-3 else "FAIL")
sys.exit(0 if error < 1e-3 else 1)
