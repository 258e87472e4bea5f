// Checks libcrest-hip.so through HIP's C API, as a HIP program would call
// it (compiled against <hip/hip_runtime_api.h>, linked with the library):
//
//   hip_api_check SCALE.hsaco HIDDEN.hsaco OTHER_CHIP.hsaco
//
// SCALE is test/tools/crest-run/Inputs/scale.gpu.mlir compiled by
// crest-compile for gfx942 (out[i] = in[i] * 0.5 - 1, 4 x 256 work-items),
// HIDDEN is Inputs/hidden_args.hip compiled by clang (it dumps its hidden
// arguments), OTHER_CHIP the scale kernel for gfx90a. Each check prints
// "ok: ..." or "FAIL: ..."; the exit code is the number of failures.

#include "hip_check.h"

#include <hip/hip_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>


/// in[i] = (i % 37) - 18 + 0.25: non-zero, exact in f32 after * 0.5 - 1.
static std::vector<float> scaleInput() {
  std::vector<float> in(1024);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(int(i % 37) - 18) + 0.25f;
  return in;
}

/// Whether `out` is in * 0.5 - 1 everywhere (the CPU computation).
static bool scaleCorrect(const std::vector<float> &in,
                         const std::vector<float> &out) {
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != in[i] * 0.5f - 1.0f)
      return false;
  return true;
}

static bool allPoison(const std::vector<float> &out) {
  for (float v : out) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (bits != 0xA5A5A5A5u)
      return false;
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s SCALE.hsaco HIDDEN.hsaco OTHER.hsaco\n",
                 argv[0]);
    return 100;
  }
  std::vector<char> scaleImage = readFile(argv[1]);
  std::vector<char> hiddenImage = readFile(argv[2]);
  std::vector<char> otherImage = readFile(argv[3]);

  // -- Devices ---------------------------------------------------------------
  expect(hipInit(0), hipSuccess, "hipInit");
  int count = 0;
  expect(hipGetDeviceCount(&count), hipSuccess, "hipGetDeviceCount");
  check(count == 1, "one device, got " + std::to_string(count));
  hipDeviceProp_t props;
  std::memset(&props, 0x5a, sizeof(props));
  expect(hipGetDeviceProperties(&props, 0), hipSuccess,
         "hipGetDeviceProperties");
  check(std::string(props.gcnArchName) == "gfx942:sramecc+:xnack-",
        std::string("gcnArchName ") + props.gcnArchName);
  check(props.warpSize == 64 && props.maxThreadsPerBlock == 1024 &&
            props.major == 9 && props.minor == 4 &&
            props.sharedMemPerBlock == 65536,
        "warpSize " + std::to_string(props.warpSize) + ", compute " +
            std::to_string(props.major) + "." + std::to_string(props.minor) +
            ", LDS " + std::to_string(props.sharedMemPerBlock));
  int value = 0;
  expect(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, 0),
         hipSuccess, "hipDeviceGetAttribute(WarpSize)");
  check(value == 64, "warp size attribute " + std::to_string(value));
  expect(hipDeviceGetAttribute(&value, hipDeviceAttributeMaxBlockDimY, 0),
         hipSuccess, "hipDeviceGetAttribute(MaxBlockDimY)");
  check(value == 1024, "max block dim y " + std::to_string(value));
  expect(hipSetDevice(1), hipErrorInvalidDevice, "hipSetDevice(1)");
  expect(hipGetDeviceProperties(&props, 3), hipErrorInvalidDevice,
         "hipGetDeviceProperties(device 3)");

  // -- Errors ----------------------------------------------------------------
  check(std::string(hipGetErrorName(hipErrorInvalidValue)) ==
            "hipErrorInvalidValue",
        "hipGetErrorName(hipErrorInvalidValue)");
  check(std::string(hipGetErrorString(hipErrorInvalidValue)) ==
            "invalid argument",
        "hipGetErrorString(hipErrorInvalidValue)");
  (void)hipGetLastError();
  expect(hipSetDevice(7), hipErrorInvalidDevice, "hipSetDevice(7)");
  expect(hipPeekAtLastError(), hipErrorInvalidDevice,
         "hipPeekAtLastError keeps the error");
  expect(hipGetLastError(), hipErrorInvalidDevice,
         "hipGetLastError returns it");
  expect(hipGetLastError(), hipSuccess, "and resets it");

  // -- Memory ----------------------------------------------------------------
  std::vector<float> in = scaleInput(), out(1024), back(1024);
  const size_t bytes = in.size() * sizeof(float);
  void *dIn = nullptr, *dOut = nullptr, *dTmp = nullptr;
  expect(hipMalloc(&dIn, bytes), hipSuccess, "hipMalloc in");
  expect(hipMalloc(&dOut, bytes), hipSuccess, "hipMalloc out");
  expect(hipMalloc(&dTmp, bytes), hipSuccess, "hipMalloc tmp");
  expect(hipMemcpy(dIn, in.data(), bytes, hipMemcpyHostToDevice), hipSuccess,
         "hipMemcpy H2D");
  expect(hipMemcpyDtoD(dTmp, dIn, bytes), hipSuccess, "hipMemcpyDtoD");
  expect(hipMemcpy(back.data(), dTmp, bytes, hipMemcpyDefault), hipSuccess,
         "hipMemcpy default (D2H)");
  check(back == in, "H2D, D2D, D2H round trip");
  expect(hipMemset(dTmp, 0x3c, 8), hipSuccess, "hipMemset");
  expect(hipMemcpyDtoH(back.data(), dTmp, 8), hipSuccess, "hipMemcpyDtoH");
  uint32_t word;
  std::memcpy(&word, back.data(), 4);
  check(word == 0x3c3c3c3cu, "hipMemset bytes");
  expect(hipMemsetD32(dTmp, 0x12345678, 2), hipSuccess, "hipMemsetD32");
  expect(hipMemcpyDtoH(back.data(), dTmp, 8), hipSuccess, "hipMemcpyDtoH");
  std::memcpy(&word, back.data() + 1, 4);
  check(word == 0x12345678u, "hipMemsetD32 words");
  expect(hipMemcpy(dTmp, in.data(), bytes + 4, hipMemcpyHostToDevice),
         hipErrorInvalidValue, "hipMemcpy 4 bytes past the allocation");
  expect(hipMemcpy(in.data(), back.data(), 16, hipMemcpyDeviceToHost),
         hipErrorInvalidValue, "hipMemcpy D2H from a host pointer");
  expect(hipMemcpy(dTmp, in.data(), 16, hipMemcpyKind(17)),
         hipErrorInvalidMemcpyDirection, "hipMemcpy kind 17");
  expect(hipFree(static_cast<char *>(dTmp) + 4), hipErrorInvalidValue,
         "hipFree inside an allocation");
  expect(hipFree(dTmp), hipSuccess, "hipFree");
  expect(hipFree(dTmp), hipErrorInvalidValue, "hipFree twice");
  expect(hipFree(nullptr), hipSuccess, "hipFree(nullptr)");

  // -- Modules ---------------------------------------------------------------
  hipModule_t module = nullptr, other = nullptr;
  const char garbage[128] = "not a code object";
  expect(hipModuleLoadData(&other, garbage), hipErrorInvalidImage,
         "hipModuleLoadData of garbage");
  expect(hipModuleLoadData(&other, otherImage.data()), hipErrorNoBinaryForGpu,
         "hipModuleLoadData of gfx90a code on a gfx942");
  expect(hipModuleLoadData(&module, scaleImage.data()), hipSuccess,
         "hipModuleLoadData scale");
  hipFunction_t scale = nullptr, missing = nullptr;
  expect(hipModuleGetFunction(&missing, module, "nope"), hipErrorNotFound,
         "hipModuleGetFunction of a missing kernel");
  expect(hipModuleGetFunction(&scale, module, "scale_f32"), hipSuccess,
         "hipModuleGetFunction scale_f32");

  // -- Launches: kernelParams ------------------------------------------------
  auto poison = [&] {
    (void)hipMemset(dOut, 0xA5, bytes);
    out.assign(out.size(), 0.0f);
  };
  auto readOut = [&] {
    (void)hipMemcpy(out.data(), dOut, bytes, hipMemcpyDeviceToHost);
  };
  poison();
  void *params[] = {&dIn, &dOut};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, params,
                               nullptr),
         hipSuccess, "launch with kernelParams");
  readOut();
  check(scaleCorrect(in, out), "kernelParams: out = in * 0.5 - 1");

  // -- Launches: extra -------------------------------------------------------
  poison();
  struct {
    void *in, *out;
  } packed = {dIn, dOut};
  size_t size = sizeof(packed);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed,
                   HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, nullptr,
                               extra),
         hipSuccess, "launch with extra (16 bytes)");
  readOut();
  check(scaleCorrect(in, out), "extra: out = in * 0.5 - 1");

  // -- Wrong layouts are refused before the kernel runs ----------------------
  // Pointers packed as 4 bytes each: 8 bytes for 16 bytes of arguments.
  poison();
  uint32_t narrow[2] = {uint32_t(uintptr_t(dIn)), uint32_t(uintptr_t(dOut))};
  size = sizeof(narrow);
  void *narrowExtra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, narrow,
                         HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         HIP_LAUNCH_PARAM_END};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, nullptr,
                               narrowExtra),
         hipErrorInvalidValue, "launch with an 8-byte buffer");
  // The same 4-byte pointers in a buffer of the right size.
  uint32_t narrow16[4] = {narrow[0], narrow[1], 0, 0};
  size = sizeof(narrow16);
  void *narrow16Extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, narrow16,
                           HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                           HIP_LAUNCH_PARAM_END};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, nullptr,
                               narrow16Extra),
         hipErrorInvalidValue, "launch with 4-byte pointers in 16 bytes");
  // A buffer that runs into the hidden arguments.
  uint64_t wide[4] = {uint64_t(uintptr_t(dIn)), uint64_t(uintptr_t(dOut)), 0,
                      0};
  size = sizeof(wide);
  void *wideExtra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, wide,
                       HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                       HIP_LAUNCH_PARAM_END};
  hipError_t wideError = hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0,
                                               nullptr, nullptr, wideExtra);
  // (scale_f32 has no hidden arguments when its segment is 16 bytes; then
  // 32 bytes overrun the segment itself.)
  expect(wideError, hipErrorInvalidValue, "launch with a 32-byte buffer");
  void *badKeys[] = {HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_BUFFER_POINTER, wide,
                     HIP_LAUNCH_PARAM_END};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, nullptr,
                               badKeys),
         hipErrorInvalidValue, "extra with its keys out of order");
  readOut();
  check(allPoison(out), "no refused launch ran: out still holds the poison");
  // Swapped arguments are a valid layout: only the numbers show it.
  void *swapped[] = {&dOut, &dIn};
  poison();
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, swapped,
                               nullptr),
         hipSuccess, "launch with in and out swapped");
  readOut();
  check(!scaleCorrect(in, out), "swapped arguments give a wrong result");
  expect(hipMemcpy(dIn, in.data(), bytes, hipMemcpyHostToDevice), hipSuccess,
         "restore in");

  // -- Other misuse ----------------------------------------------------------
  expect(hipModuleLaunchKernel(scale, 0, 1, 1, 256, 1, 1, 0, nullptr, params,
                               nullptr),
         hipErrorInvalidValue, "grid of 0 workgroups");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 2048, 1, 1, 0, nullptr, params,
                               nullptr),
         hipErrorInvalidValue, "block of 2048");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, nullptr,
                               nullptr),
         hipErrorInvalidValue, "no arguments for a kernel that takes two");
  expect(hipModuleLaunchKernel(nullptr, 4, 1, 1, 256, 1, 1, 0, nullptr,
                               params, nullptr),
         hipErrorInvalidResourceHandle, "null function");
  // An out-of-bounds access is a launch failure, not a crash.
  void *shortOut = nullptr;
  (void)hipMalloc(&shortOut, 512);
  void *oobParams[] = {&dIn, &shortOut};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr,
                               oobParams, nullptr),
         hipErrorLaunchFailure, "a kernel writing past a 512-byte buffer");
  (void)hipFree(shortOut);

  // -- Streams and events ----------------------------------------------------
  hipStream_t stream = nullptr, dead = nullptr;
  hipEvent_t start = nullptr, stop = nullptr, unrecorded = nullptr;
  expect(hipStreamCreate(&stream), hipSuccess, "hipStreamCreate");
  expect(hipEventCreate(&start), hipSuccess, "hipEventCreate start");
  expect(hipEventCreate(&stop), hipSuccess, "hipEventCreate stop");
  expect(hipEventCreate(&unrecorded), hipSuccess, "hipEventCreate");
  poison();
  expect(hipMemcpyHtoDAsync(dIn, in.data(), bytes, stream), hipSuccess,
         "hipMemcpyHtoDAsync");
  expect(hipEventRecord(start, stream), hipSuccess, "hipEventRecord start");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, params,
                               nullptr),
         hipSuccess, "launch on a stream");
  expect(hipEventRecord(stop, stream), hipSuccess, "hipEventRecord stop");
  expect(hipMemcpyDtoHAsync(out.data(), dOut, bytes, stream), hipSuccess,
         "hipMemcpyDtoHAsync");
  expect(hipStreamSynchronize(stream), hipSuccess, "hipStreamSynchronize");
  check(scaleCorrect(in, out), "stream: out = in * 0.5 - 1");
  expect(hipEventSynchronize(stop), hipSuccess, "hipEventSynchronize");
  float ms = -1;
  expect(hipEventElapsedTime(&ms, start, stop), hipSuccess,
         "hipEventElapsedTime");
  check(ms > 0 && ms < 10000, "elapsed time is positive");
  std::printf("elapsed: %.6f ms\n", ms);
  expect(hipEventElapsedTime(&ms, start, unrecorded),
         hipErrorInvalidResourceHandle, "elapsed time to an unrecorded event");
  expect(hipStreamCreate(&dead), hipSuccess, "hipStreamCreate");
  expect(hipStreamDestroy(dead), hipSuccess, "hipStreamDestroy");
  expect(hipStreamSynchronize(dead), hipErrorInvalidResourceHandle,
         "hipStreamSynchronize of a destroyed stream");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, dead, params,
                               nullptr),
         hipErrorInvalidResourceHandle, "launch on a destroyed stream");
  expect(hipDeviceSynchronize(), hipSuccess, "hipDeviceSynchronize");

  // -- Hidden arguments ------------------------------------------------------
  hipModule_t hiddenModule = nullptr;
  hipFunction_t dump = nullptr;
  expect(hipModuleLoadData(&hiddenModule, hiddenImage.data()), hipSuccess,
         "hipModuleLoadData hidden_args");
  expect(hipModuleGetFunction(&dump, hiddenModule, "dump_kernargs"),
         hipSuccess, "hipModuleGetFunction dump_kernargs");
  void *dDump = nullptr;
  (void)hipMalloc(&dDump, 67 * 4);
  int arg = -7;
  short small = short(0xBEEF);
  for (int form = 0; form < 2; ++form) {
    (void)hipMemset(dDump, 0xA5, 67 * 4);
    (void)hipMemset(static_cast<char *>(dDump) + 66 * 4, 0, 4);
    hipError_t e;
    if (form == 0) {
      void *dumpParams[] = {&dDump, &arg, &small};
      e = hipModuleLaunchKernel(dump, 3, 2, 1, 64, 2, 1, 512, nullptr,
                                dumpParams, nullptr);
    } else {
      // The argument struct a HIP program packs: 14 bytes, padded to 16.
      struct {
        void *out;
        int value;
        short small;
      } args = {dDump, arg, small};
      size_t argsSize = sizeof(args);
      void *dumpExtra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                           HIP_LAUNCH_PARAM_BUFFER_SIZE, &argsSize,
                           HIP_LAUNCH_PARAM_END};
      e = hipModuleLaunchKernel(dump, 3, 2, 1, 64, 2, 1, 512, nullptr, nullptr,
                                dumpExtra);
    }
    const char *how = form == 0 ? "kernelParams" : "extra";
    expect(e, hipSuccess, std::string("dump_kernargs with ") + how);
    uint32_t d[67];
    (void)hipMemcpy(d, dDump, sizeof(d), hipMemcpyDeviceToHost);
    auto u16 = [&](unsigned offset) {
      return (d[offset / 4] >> (8 * (offset % 4))) & 0xffffu;
    };
    auto u64 = [&](unsigned offset) {
      return uint64_t(d[offset / 4]) | uint64_t(d[offset / 4 + 1]) << 32;
    };
    // Offsets in the hidden block of code object v5 (AMDGPUUsage; the lit
    // test checks them against the kernel's metadata).
    std::printf("%s: block_count %u %u %u group_size %u %u %u remainder "
                "%u %u %u global_offset %llu %llu %llu grid_dims %u "
                "value %d small %x items %u\n",
                how, d[0], d[1], d[2], u16(12), u16(14), u16(16), u16(18),
                u16(20), u16(22), (unsigned long long)u64(40),
                (unsigned long long)u64(48), (unsigned long long)u64(56),
                u16(64), int(d[64]), d[65], d[66]);
    check(d[0] == 3 && d[1] == 2 && d[2] == 1, std::string(how) +
                                                  ": hidden_block_count");
    check(u16(12) == 64 && u16(14) == 2 && u16(16) == 1,
          std::string(how) + ": hidden_group_size");
    check(u16(18) == 0 && u16(20) == 0 && u16(22) == 0,
          std::string(how) + ": hidden_remainder");
    check(u64(40) == 0 && u64(48) == 0 && u64(56) == 0,
          std::string(how) + ": hidden_global_offset");
    check(u16(64) == 3, std::string(how) + ": hidden_grid_dims");
    check(int(d[64]) == -7 && d[65] == 0xBEEF,
          std::string(how) + ": the value arguments");
    check(d[66] == 3 * 2 * 64 * 2, std::string(how) + ": every work-item ran");
  }
  (void)hipFree(dDump);

  expect(hipModuleUnload(module), hipSuccess, "hipModuleUnload");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, nullptr, params,
                               nullptr),
         hipErrorInvalidResourceHandle,
         "launch of an unloaded module's kernel");
  expect(hipModuleUnload(module), hipErrorInvalidResourceHandle,
         "hipModuleUnload twice");
  (void)hipModuleUnload(hiddenModule);
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  (void)hipEventDestroy(unrecorded);
  (void)hipStreamDestroy(stream);
  (void)hipFree(dIn);
  (void)hipFree(dOut);
  std::printf("%d failures\n", failures);
  return failures;
}
