// C[M,N] = A[M,K] * B[K,N] with 32x32x8 MFMAs: 256 threads (4 waves) per
// 64x64 output tile, each wave a 32x32 quarter. A and B tiles of K depth 16
// are double-buffered in LDS with one barrier per K step. Any M, N, K (the
// edges are zero-filled). Compiled as f16 (default) or bf16 (-DBF16).
#include "hip.h"

#ifdef BF16
typedef unsigned short elem_t; // bf16 bits
typedef short4 frag_t;
#define MFMA(a, b, c) __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0)
#define KERNEL gemm_bf16
#else
typedef _Float16 elem_t;
typedef half4 frag_t;
#define MFMA(a, b, c) __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0)
#define KERNEL gemm_f16
#endif

constexpr int TM = 64, TN = 64, TK = 16, PAD = 4;

extern "C" __global__ void KERNEL(const elem_t *A, const elem_t *B, float *C,
                                  int M, int N, int K) {
  __shared__ elem_t sA[2][TM][TK + PAD];
  __shared__ elem_t sB[2][TK][TN + PAD];
  int tid = threadIdxX();
  int wave = tid / 64, lane = tid % 64;
  int bm = blockIdxX() * TM, bn = blockIdxY() * TN;
  int wm = (wave / 2) * 32, wn = (wave % 2) * 32;

  auto load = [&](int buf, int k0) {
    int row = tid / 4, kk = (tid % 4) * 4;
    for (int e = 0; e < 4; ++e) {
      int gm = bm + row, gk = k0 + kk + e;
      sA[buf][row][kk + e] = (gm < M && gk < K) ? A[gm * K + gk] : elem_t(0);
    }
    int kr = tid / 16, cc = (tid % 16) * 4;
    for (int e = 0; e < 4; ++e) {
      int gk = k0 + kr, gn = bn + cc + e;
      sB[buf][kr][cc + e] = (gk < K && gn < N) ? B[gk * N + gn] : elem_t(0);
    }
  };

  float16v acc = {};
  int steps = (K + TK - 1) / TK;
  load(0, 0);
  syncthreads();
  for (int t = 0; t < steps; ++t) {
    int cur = t & 1;
    if (t + 1 < steps)
      load(cur ^ 1, (t + 1) * TK);
    for (int ks = 0; ks < TK; ks += 8) {
      frag_t a, b;
      for (int e = 0; e < 4; ++e) {
        a[e] = sA[cur][wm + lane % 32][ks + (lane / 32) * 4 + e];
        b[e] = sB[cur][ks + (lane / 32) * 4 + e][wn + lane % 32];
      }
      acc = MFMA(a, b, acc);
    }
#ifndef RACY // the planted bug: the next step overwrites a tile still read
    syncthreads();
#endif
  }
  for (int r = 0; r < 16; ++r) {
    int i = bm + wm + 8 * (r / 4) + 4 * (lane / 32) + r % 4;
    int j = bn + wn + lane % 32;
    if (i < M && j < N)
      C[i * N + j] = acc[r];
  }
}
