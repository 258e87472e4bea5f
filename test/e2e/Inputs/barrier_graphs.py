"""Writes into OUT_DIR the graphs of barrier-necessary.test: y =
softmax(relu(x @ w + b)), x 100x64 f16, w 64x72 f16, with the matmul in
workgroup scope at 1, 2 and 3 LDS stages (stages<S>.mlir; 4 K steps, so the
K loop is unrolled), and non-zero random inputs x.npy, w.npy, b.npy."""
import sys

import numpy as np

out = sys.argv[1]
for s in (1, 2, 3):
    open(f"{out}/stages{s}.mlir", "w").write(f"""\
func.func @layer(%x: tensor<100x64xf16> {{crest.name = "x"}},
                 %w: tensor<64x72xf16> {{crest.name = "w"}},
                 %b: tensor<72xf32> {{crest.name = "b"}})
    -> (tensor<100x72xf32> {{crest.name = "y"}}) {{
  %h = crest.matmul %x, %w precision <lhs = f16, rhs = f16, acc = f32, out = f32>
         sync <scope = workgroup, stages = {s}>
         : tensor<100x64xf16>, tensor<64x72xf16> -> tensor<100x72xf32>
  %hb = crest.add %h, %b : tensor<100x72xf32>, tensor<72xf32> -> tensor<100x72xf32>
  %a = crest.relu %hb : tensor<100x72xf32>
  %y = crest.softmax %a : tensor<100x72xf32>
  return %y : tensor<100x72xf32>
}}
""")
r = np.random.default_rng(0)


def nonzero(shape, scale):
    sign = np.where(r.integers(0, 2, shape) == 1, 1.0, -1.0)
    return r.uniform(0.25, 1.0, shape) * sign * scale


np.save(f"{out}/x.npy", nonzero((100, 64), 1.0).astype(np.float16))
np.save(f"{out}/w.npy", nonzero((64, 72), 0.125).astype(np.float16))
np.save(f"{out}/b.npy", nonzero((72,), 0.5).astype(np.float32))
