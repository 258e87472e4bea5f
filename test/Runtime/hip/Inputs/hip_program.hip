// An ordinary HIP program, compiled by clang -x hip (as hipcc does) against
// HIP's headers: kernels launched with <<<>>> and hipLaunchKernelGGL, which
// clang's host code turns into __hipRegisterFatBinary,
// __hipRegisterFunction, __hipPushCallConfiguration and hipLaunchKernel.
// It prints one PASS or FAIL line per kernel and exits with the number of
// failures.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

// __syncthreads() of Debian's HIP 5.2 headers calls a device-library
// function (__atomic_work_item_fence, in opencl.bc) that clang 22's HIP link
// does not pull in, so the program spells it with the builtins it expands to.
__device__ inline void syncThreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// Each block sums its slice in dynamic shared memory, then adds it to *sum.
__global__ void blockSum(const int *x, int n, unsigned long long *sum) {
  extern __shared__ int partial[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? x[i] : 0;
  syncThreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s)
      partial[t] += partial[t + s];
    syncThreads();
  }
  if (t == 0)
    atomicAdd(sum, (unsigned long long)partial[0]);
}

// A 2D grid: out[y][x] = x * 1000 + y, from blockIdx/blockDim/threadIdx in
// two dimensions and gridDim (the hidden arguments).
__global__ void coords(int *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[y * width + x] = x * 1000 + y + 0 * gridDim.x;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    hipError_t e_ = (call);                                                    \
    if (e_ != hipSuccess) {                                                    \
      std::printf("FAIL: %s: %s\n", #call, hipGetErrorName(e_));               \
      return 100;                                                              \
    }                                                                          \
  } while (0)

int main() {
  int failures = 0;
  hipDeviceProp_t props;
  CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("device: %s\n", props.gcnArchName);

  // saxpy over 1000 elements in blocks of 256 (a partial last block).
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 17) - 8;
    y[i] = float(i % 5) + 1;
  }
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(2.5f, dx, dy, n);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(out.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += out[i] != 2.5f * x[i] + y[i];
  std::printf("saxpy: %d of %d wrong: %s\n", wrong, n, wrong ? "FAIL" : "PASS");
  failures += wrong != 0;

  // blockSum: 5000 integers, blocks of 128, 512 bytes of dynamic LDS.
  const int m = 5000;
  std::vector<int> v(m);
  unsigned long long want = 0;
  for (int i = 0; i < m; ++i)
    want += (v[i] = (i * 7919) % 1013 + 1);
  int *dv;
  unsigned long long *dsum, got = 0;
  CHECK(hipMalloc(&dv, m * sizeof(int)));
  CHECK(hipMalloc(&dsum, sizeof(got)));
  CHECK(hipMemcpy(dv, v.data(), m * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemset(dsum, 0, sizeof(got)));
  hipLaunchKernelGGL(blockSum, dim3((m + 127) / 128), dim3(128),
                     128 * sizeof(int), nullptr, dv, m, dsum);
  CHECK(hipGetLastError());
  CHECK(hipMemcpy(&got, dsum, sizeof(got), hipMemcpyDeviceToHost));
  std::printf("blockSum: %llu, expected %llu: %s\n", got, want,
              got == want ? "PASS" : "FAIL");
  failures += got != want;

  // coords: 100 x 37 in 16 x 8 blocks, on a stream.
  const int w = 100, h = 37;
  std::vector<int> c(w * h, -1);
  int *dc;
  hipStream_t stream;
  CHECK(hipStreamCreate(&stream));
  CHECK(hipMalloc(&dc, w * h * sizeof(int)));
  coords<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8), 0, stream>>>(dc, w,
                                                                       h);
  CHECK(hipGetLastError());
  CHECK(hipStreamSynchronize(stream));
  CHECK(hipMemcpy(c.data(), dc, w * h * sizeof(int), hipMemcpyDeviceToHost));
  wrong = 0;
  for (int yy = 0; yy < h; ++yy)
    for (int xx = 0; xx < w; ++xx)
      wrong += c[yy * w + xx] != xx * 1000 + yy;
  std::printf("coords: %d of %d wrong: %s\n", wrong, w * h,
              wrong ? "FAIL" : "PASS");
  failures += wrong != 0;

  CHECK(hipStreamDestroy(stream));
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(dv));
  CHECK(hipFree(dsum));
  CHECK(hipFree(dc));
  return failures;
}
