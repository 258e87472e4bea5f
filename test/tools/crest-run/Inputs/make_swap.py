"""Writes the specs of the swap packages (racy.gpu.mlir): good.json and
racy.json, an input and the expected output into OUT_DIR."""
import json
import sys

import numpy as np

out = sys.argv[1]
x = np.arange(128, dtype=np.float32) * 3 + 1
np.save(f"{out}/x.npy", x)
np.save(f"{out}/expected.npy", x[np.arange(128) ^ 64])
for name in ("good", "racy"):
    spec = {
        "chip": "gfx942", "graph_name": "swap",
        "code_objects": [f"{name}.hsaco"],
        "values": [{"name": "x", "kind": "input", "type": "f32", "shape": [128]},
                   {"name": "y", "kind": "output", "type": "f32", "shape": [128]}],
        "kernels": [{"name": "swap", "code_object": 0, "op": "swap halves"}],
        "launches": [{"kernel": 0, "grid": [1, 1, 1], "block": [128, 1, 1],
                      "args": ["x", "y"]}],
        # No crest op swaps halves; the graph is there because a package
        # needs one (these tests do not --verify).
        "graph": [{"op": "relu", "inputs": ["x"], "outputs": ["y"]}],
    }
    json.dump(spec, open(f"{out}/{name}.json", "w"))
