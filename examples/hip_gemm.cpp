//===- hip_gemm.cpp - A HIP program running a Crest-compiled kernel -------===//
//
// Loads the code object crest-compile makes of examples/gemm-f16.gpu.mlir
// (C[64x64] f32 = A[64x4096] f16 * B[4096x64] f16, one workgroup of 256
// work-items) with hipModuleLoadData, runs it with hipModuleLaunchKernel
// (kernelParams, then the `extra` argument buffer), copies C back with
// hipMemcpy and compares it with a CPU computation. It is an ordinary HIP
// program: it compiles against <hip/hip_runtime_api.h> and runs on an AMD
// GPU with libamdhip64, or without one on Crest's emulator by linking (or
// LD_PRELOADing) libcrest-hip.so instead (docs/Hip.md):
//
//   crest-compile examples/gemm-f16.gpu.mlir --target=gfx942 -o gemm.hsaco
//   crest-example-hip-gemm gemm.hsaco
//
// The inputs are small integers, so every product and sum is exact in f32
// and the GPU's result must equal the CPU's bit for bit.
//
//===----------------------------------------------------------------------===//

#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    hipError_t e_ = (call);                                                    \
    if (e_ != hipSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,  \
                   hipGetErrorName(e_), hipGetErrorString(e_));                \
      return 1;                                                                \
    }                                                                          \
  } while (0)

namespace {
constexpr int M = 64, N = 64, K = 4096;

/// IEEE binary16 bits of a small integer (|v| < 2048), exactly.
uint16_t toHalf(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = unsigned(v < 0 ? -v : v);
  int exponent = 31 - __builtin_clz(a);
  unsigned mantissa = (a << (10 - exponent)) & 0x3ff;
  return uint16_t(sign | ((exponent + 15) << 10) | mantissa);
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s GEMM.hsaco\n", argv[0]);
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> image(std::istreambuf_iterator<char>(file), {});
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }

  // A[m][k] = (m + 3k) % 7 - 3, B[k][n] = (2k + n) % 5 - 2: never all zero.
  std::vector<uint16_t> a(M * K), b(K * N);
  std::vector<int> ai(M * K), bi(K * N);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      a[m * K + k] = toHalf(ai[m * K + k] = (m + 3 * k) % 7 - 3);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      b[k * N + n] = toHalf(bi[k * N + n] = (2 * k + n) % 5 - 2);
  std::vector<float> expected(M * N, 0.0f);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      long sum = 0;
      for (int k = 0; k < K; ++k)
        sum += long(ai[m * K + k]) * bi[k * N + n];
      expected[m * N + n] = float(sum);
    }

  hipDeviceProp_t props;
  CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("device: %s (%s)\n", props.name, props.gcnArchName);

  void *dA, *dB, *dC;
  CHECK(hipMalloc(&dA, a.size() * 2));
  CHECK(hipMalloc(&dB, b.size() * 2));
  CHECK(hipMalloc(&dC, M * N * 4));
  CHECK(hipMemcpy(dA, a.data(), a.size() * 2, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dB, b.data(), b.size() * 2, hipMemcpyHostToDevice));

  hipModule_t module;
  hipFunction_t gemm;
  CHECK(hipModuleLoadData(&module, image.data()));
  CHECK(hipModuleGetFunction(&gemm, module, "gemm_f16"));

  int failures = 0;
  for (int form = 0; form < 2; ++form) {
    // Poison C so that elements the kernel does not write show.
    CHECK(hipMemset(dC, 0xA5, M * N * 4));
    if (form == 0) {
      void *params[] = {&dA, &dB, &dC};
      CHECK(hipModuleLaunchKernel(gemm, 1, 1, 1, 256, 1, 1, 0, nullptr, params,
                                  nullptr));
    } else {
      void *args[] = {dA, dB, dC};
      size_t size = sizeof(args);
      void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, args,
                       HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                       HIP_LAUNCH_PARAM_END};
      CHECK(hipModuleLaunchKernel(gemm, 1, 1, 1, 256, 1, 1, 0, nullptr,
                                  nullptr, extra));
    }
    CHECK(hipDeviceSynchronize());
    std::vector<float> c(M * N);
    CHECK(hipMemcpy(c.data(), dC, c.size() * 4, hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < M * N; ++i)
      if (std::memcmp(&c[i], &expected[i], 4) != 0 && wrong++ < 3)
        std::printf("C[%d][%d] = %g, expected %g\n", i / N, i % N, c[i],
                    expected[i]);
    std::printf("%s: C[0][0] = %g, C[63][63] = %g: %d of %d elements wrong: "
                "%s\n",
                form == 0 ? "kernelParams" : "extra", c[0], c[M * N - 1],
                wrong, M * N, wrong ? "FAIL" : "PASS");
    failures += wrong != 0;
  }

  CHECK(hipModuleUnload(module));
  CHECK(hipFree(dA));
  CHECK(hipFree(dB));
  CHECK(hipFree(dC));
  return failures ? 1 : 0;
}
