// GELU (tanh form) on f16 input, f32 output, with a grid-stride loop:
// y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// tanh(u) = 1 - 2 / (exp(2u) + 1).
#include "hip.h"

extern "C" __global__ void gelu(const _Float16 *X, float *Y, int n) {
  int stride = 256 * __builtin_amdgcn_grid_size_x() / 256;
  for (int i = blockIdxX() * 256 + threadIdxX(); i < n; i += stride) {
    float x = X[i];
    float u = 0.7978845608f * (x + 0.044715f * x * x * x);
    float t = 1.0f - 2.0f / (__builtin_expf(2.0f * u) + 1.0f);
    Y[i] = 0.5f * x * (1.0f + t);
  }
}
