"""Writes the parts of the two-kernel test package (a crest-pack spec, the
weights, an input and NumPy's expected output) into a folder:

  launch 0: layer_0 (layer.mlir)      h = relu(x * w + b)   8x128 f32
  launch 1: scale_f32 (scale.gpu.mlir) y = h * 0.5 - 1

usage: make_layer.py OUT_DIR LAYER.hsaco SCALE.hsaco [--bad-grid]
                     [--chip=CHIP]  (the code objects' chip; gfx942)
"""
import json
import os
import sys

import numpy as np

out, layer, scale = sys.argv[1:4]
bad_grid = "--bad-grid" in sys.argv
chip = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--chip=")),
            "gfx942")
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
x = rng.integers(-3, 4, size=(8, 256)).astype(np.float16)
w = rng.integers(-3, 4, size=(256, 128)).astype(np.float16)
b = rng.integers(-8, 9, size=(128,)).astype(np.float32)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/w.npy", w)
np.save(f"{out}/b.npy", b)
np.save(f"{out}/half.npy", np.array([0.5], np.float32))
np.save(f"{out}/one.npy", np.array([1.0], np.float32))
h = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + b, 0)
np.save(f"{out}/expected.npy", (h * 0.5 - 1).astype(np.float32))
np.save(f"{out}/expected_h.npy", h.astype(np.float32))
# Wrong inputs for the error tests.
np.save(f"{out}/x_f32.npy", x.astype(np.float32))
np.save(f"{out}/x_shape.npy", np.ones((8, 255), np.float16))

f32 = lambda s: {"type": "f32", "shape": s}
spec = {
    "chip": chip, "graph_name": "layer",
    "code_objects": [layer, scale],
    "values": [
        {"name": "x", "kind": "input", "type": "f16", "shape": [8, 256]},
        {"name": "w", "kind": "weight", "type": "f16", "shape": [256, 128],
         "npy": "w.npy"},
        {"name": "b", "kind": "weight", "npy": "b.npy", **f32([128])},
        {"name": "half", "kind": "weight", "npy": "half.npy", **f32([1])},
        {"name": "one", "kind": "weight", "npy": "one.npy", **f32([1])},
        {"name": "mm", "kind": "reference", **f32([8, 128])},
        {"name": "biased", "kind": "reference", **f32([8, 128])},
        {"name": "h", "kind": "intermediate", **f32([8, 128])},
        {"name": "scaled", "kind": "reference", **f32([8, 128])},
        {"name": "y", "kind": "output", **f32([8, 128])},
    ],
    "kernels": [
        {"name": "layer_0", "code_object": 0, "op": "matmul+add+relu",
         "waves_per_simd": 6},
        {"name": "scale_f32", "code_object": 1, "op": "mul+sub",
         "waves_per_simd": 8},
    ],
    "launches": [
        {"kernel": 0, "grid": [4, 1, 1], "block": [256, 1, 1],
         "args": ["x", "w", "b", "h"]},
        # --bad-grid: a launch that leaves half of y unwritten.
        {"kernel": 1, "grid": [2 if bad_grid else 4, 1, 1],
         "block": [256, 1, 1], "args": ["h", "y"]},
    ],
    "graph": [
        {"op": "matmul", "inputs": ["x", "w"], "outputs": ["mm"],
         "attributes": {"precision": {"lhs": "f16", "rhs": "f16",
                                      "acc": "f32", "out": "f32"}},
         "location": "layer.mlir:7:12"},
        {"op": "add", "inputs": ["mm", "b"], "outputs": ["biased"]},
        {"op": "relu", "inputs": ["biased"], "outputs": ["h"]},
        {"op": "mul", "inputs": ["h", "half"], "outputs": ["scaled"]},
        {"op": "sub", "inputs": ["scaled", "one"], "outputs": ["y"]},
    ],
}
json.dump(spec, open(f"{out}/spec.json", "w"), indent=1)
