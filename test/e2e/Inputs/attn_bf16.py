"""Writes into OUT_DIR a small attention graph with three bf16 inputs
(attn.mlir: s = q @ k^T, o = cast(softmax(s)) @ v, batch_matmul), its inputs
(q.npy, k.npy, v.npy: bf16 bit patterns as uint16, non-zero) and wrong ones:
q_f16.npy (the same bits as float16), q_i16.npy (as int16), q_f32.npy (the
values as float32), q_rank.npy (flattened), q_trunc.npy (cut short)."""
import sys

import numpy as np

out = sys.argv[1]
B, M, K, N, D = 2, 7, 40, 33, 9
open(f"{out}/attn.mlir", "w").write(f"""\
func.func @attn(%q: tensor<{B}x{M}x{K}xbf16> {{crest.name = "q"}},
                %k: tensor<{B}x{N}x{K}xbf16> {{crest.name = "k"}},
                %v: tensor<{B}x{N}x{D}xbf16> {{crest.name = "v"}})
    -> (tensor<{B}x{M}x{N}xf32> {{crest.name = "s"}}, tensor<{B}x{M}x{D}xf32> {{crest.name = "o"}}) {{
  %s = crest.batch_matmul %q, %k transpose_rhs
         precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         sync <scope = workgroup, stages = 2>
         : tensor<{B}x{M}x{K}xbf16>, tensor<{B}x{N}x{K}xbf16> -> tensor<{B}x{M}x{N}xf32>
  %p = crest.softmax %s : tensor<{B}x{M}x{N}xf32>
  %pc = crest.cast %p : tensor<{B}x{M}x{N}xf32> to tensor<{B}x{M}x{N}xbf16>
  %o = crest.batch_matmul %pc, %v precision <lhs = bf16, rhs = bf16, acc = f32, out = f32>
         sync <scope = wavefront>
         : tensor<{B}x{M}x{N}xbf16>, tensor<{B}x{N}x{D}xbf16> -> tensor<{B}x{M}x{D}xf32>
  return %s, %o : tensor<{B}x{M}x{N}xf32>, tensor<{B}x{M}x{D}xf32>
}}
""")
r = np.random.default_rng(2)


def bf16(shape, scale):
    x = r.uniform(0.25, 1.0, shape) * np.where(r.integers(0, 2, shape), 1, -1) * scale
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


q = bf16((B, M, K), K ** -0.25)
np.save(f"{out}/q.npy", q)
np.save(f"{out}/k.npy", bf16((B, N, K), K ** -0.25))
np.save(f"{out}/v.npy", bf16((B, N, D), 1.0))
np.save(f"{out}/q_f16.npy", q.view(np.float16))
np.save(f"{out}/q_i16.npy", q.view(np.int16))
np.save(f"{out}/q_f32.npy", (q.astype(np.uint32) << 16).view(np.float32))
np.save(f"{out}/q_rank.npy", q.reshape(B * M, K))
data = open(f"{out}/q.npy", "rb").read()
open(f"{out}/q_trunc.npy", "wb").write(data[:len(data) - 10])
