// Row softmax: one 256-thread workgroup per row of N floats. Each wave
// reduces with DPP row shifts, a row broadcast and ds_bpermute, then the
// four wave results meet in LDS.
#include "hip.h"

__device__ inline float waveMax(float v) {
  for (int offset = 32; offset >= 1; offset /= 2) {
    int src = (threadIdxX() % 64) ^ offset;
    float other = __builtin_bit_cast(
        float, __builtin_amdgcn_ds_bpermute(src * 4, __builtin_bit_cast(int, v)));
    v = v > other ? v : other;
  }
  return v;
}

__device__ inline float waveSum(float v) {
  // Within each row of 16 lanes with DPP, then across rows with readlane.
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(
                                     0, __builtin_bit_cast(int, v),
                                     0x111 /*row_shr:1*/, 0xf, 0xf, true));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(
                                     0, __builtin_bit_cast(int, v),
                                     0x112 /*row_shr:2*/, 0xf, 0xf, true));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(
                                     0, __builtin_bit_cast(int, v),
                                     0x114 /*row_shr:4*/, 0xf, 0xf, true));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(
                                     0, __builtin_bit_cast(int, v),
                                     0x118 /*row_shr:8*/, 0xf, 0xf, true));
  // Lane 15 of each row now holds the row's sum.
  int bits = __builtin_bit_cast(int, v);
  float total = __builtin_bit_cast(float, __builtin_amdgcn_readlane(bits, 15)) +
                __builtin_bit_cast(float, __builtin_amdgcn_readlane(bits, 31)) +
                __builtin_bit_cast(float, __builtin_amdgcn_readlane(bits, 47)) +
                __builtin_bit_cast(float, __builtin_amdgcn_readlane(bits, 63));
  return total;
}

extern "C" __global__ void softmax(const float *X, float *Y, int N) {
  __shared__ float partial[4];
  int tid = threadIdxX(), wave = tid / 64;
  const float *x = X + blockIdxX() * N;
  float *y = Y + blockIdxX() * N;

  float m = -__builtin_inff();
  for (int i = tid; i < N; i += 256)
    m = x[i] > m ? x[i] : m;
  m = waveMax(m);
  if (tid % 64 == 0)
    partial[wave] = m;
  syncthreads();
  m = partial[0];
  for (int w = 1; w < 4; ++w)
    m = partial[w] > m ? partial[w] : m;
  syncthreads();

  float s = 0;
  for (int i = tid; i < N; i += 256)
    s += __builtin_expf(x[i] - m);
  s = waveSum(s);
  if (tid % 64 == 0)
    partial[wave] = s;
  syncthreads();
  s = partial[0] + partial[1] + partial[2] + partial[3];
  for (int i = tid; i < N; i += 256)
    y[i] = __builtin_expf(x[i] - m) / s;
}
