"""foreign-llvm.test: loads the LLVMs named by --preload=PATH first."""
import ctypes
import os
import sys

import numpy as np

for arg in sys.argv[1:]:
    path = arg[len("--preload="):]
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    print("loaded", os.path.basename(path))

import crest  # noqa: E402

graph = """
func.func @scale(%x: tensor<64x64xf32> {crest.name = "x"},
                 %w: tensor<64x64xf32> {crest.name = "w"})
    -> (tensor<64x64xf32> {crest.name = "y"}) {
  %0 = crest.matmul %x, %w precision <lhs = f32, rhs = f32, acc = f32, out = f32>
         : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
"""
package = crest.compile(graph, target="gfx942")
# Multiples of 1/4 up to 2: the products and sums are exact in f32.
x = (np.arange(64 * 64).reshape(64, 64) % 9 - 4).astype(np.float32) / 4
w = (np.arange(64 * 64).reshape(64, 64).T % 7 - 3).astype(np.float32) / 2
y = crest.run(package, {"x": x, "w": w}, device="emu")["y"]
print("max abs error", np.abs(y - x.astype(np.float64) @ w).max())
