// Checks libcrest-hip.so's stream capture and graphs through HIP's C API, as
// a HIP program would call them (compiled against <hip/hip_runtime_api.h>,
// linked with the library):
//
//   hip_graph_check SCALE.hsaco
//
// SCALE is test/tools/crest-run/Inputs/scale.gpu.mlir compiled for gfx942
// (out[i] = in[i] * 0.5 - 1, 4 x 256 work-items). The captured graph is
// upload, fill, scale, scale, download; run under CREST_HIP_TIMING=1 the
// modelled times of the same two kernels launched on the stream and from
// the graph are printed and compared. Each check prints "ok: ..." or
// "FAIL: ..."; the exit code is the number of failures.

#include "hip_check.h"

#include <hip/hip_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>


/// in[i] = (i % 37) - 18 + 0.25 + shift: non-zero and exact in f32 through
/// two scales.
static void fillInput(std::vector<float> &in, int shift) {
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(int(i % 37) - 18 + shift) + 0.25f;
}

/// Whether `out` is two scales of `in` everywhere (the CPU computation).
static bool twiceScaled(const std::vector<float> &in,
                        const std::vector<float> &out) {
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != (in[i] * 0.5f - 1.0f) * 0.5f - 1.0f)
      return false;
  return true;
}

static bool allBytes(const void *p, size_t bytes, uint8_t value) {
  for (size_t i = 0; i < bytes; ++i)
    if (static_cast<const uint8_t *>(p)[i] != value)
      return false;
  return true;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCALE.hsaco\n", argv[0]);
    return 100;
  }
  std::vector<char> image = readFile(argv[1]);
  expect(hipInit(0), hipSuccess, "hipInit");
  hipModule_t module = nullptr;
  hipFunction_t scale = nullptr;
  expect(hipModuleLoadData(&module, image.data()), hipSuccess,
         "hipModuleLoadData");
  expect(hipModuleGetFunction(&scale, module, "scale_f32"), hipSuccess,
         "hipModuleGetFunction");
  const size_t n = 1024, bytes = n * sizeof(float);
  void *dIn = nullptr, *dMid = nullptr, *dOut = nullptr;
  expect(hipMalloc(&dIn, bytes), hipSuccess, "hipMalloc in");
  expect(hipMalloc(&dMid, bytes), hipSuccess, "hipMalloc mid");
  expect(hipMalloc(&dOut, bytes), hipSuccess, "hipMalloc out");
  hipStream_t stream = nullptr;
  expect(hipStreamCreate(&stream), hipSuccess, "hipStreamCreate");
  std::vector<float> in(n), out(n);
  fillInput(in, 0);
  std::memset(out.data(), 0x5A, bytes); // host poison
  void *args1[] = {&dIn, &dMid};
  void *args2[] = {&dMid, &dOut};

  // -- Capture ---------------------------------------------------------------
  hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
  expect(hipStreamIsCapturing(stream, &status), hipSuccess,
         "hipStreamIsCapturing before");
  check(status == hipStreamCaptureStatusNone, "not capturing before");
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), hipSuccess,
         "hipStreamBeginCapture");
  unsigned long long id = 0;
  expect(hipStreamGetCaptureInfo(stream, &status, &id), hipSuccess,
         "hipStreamGetCaptureInfo");
  check(status == hipStreamCaptureStatusActive && id != 0,
        "capturing, with an id");
  expect(hipMemcpyHtoDAsync(dIn, in.data(), bytes, stream), hipSuccess,
         "hipMemcpyHtoDAsync (captured)");
  expect(hipMemsetAsync(dOut, 0x3C, bytes, stream), hipSuccess,
         "hipMemsetAsync (captured)");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args1,
                               nullptr),
         hipSuccess, "hipModuleLaunchKernel 1 (captured)");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args2,
                               nullptr),
         hipSuccess, "hipModuleLaunchKernel 2 (captured)");
  expect(hipMemcpyDtoHAsync(out.data(), dOut, bytes, stream), hipSuccess,
         "hipMemcpyDtoHAsync (captured)");
  // A launch whose arguments are wrong is refused at capture, as on HIP.
  void *bad[] = {&dIn, nullptr};
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, bad,
                               nullptr),
         hipErrorInvalidValue, "a bad launch during capture");
  hipGraph_t graph = nullptr;
  expect(hipStreamEndCapture(stream, &graph), hipSuccess,
         "hipStreamEndCapture");
  check(graph != nullptr, "a graph");
  size_t nodes = 0;
  expect(hipGraphGetNodes(graph, nullptr, &nodes), hipSuccess,
         "hipGraphGetNodes");
  check(nodes == 5, "5 nodes captured: " + std::to_string(nodes));
  check(allBytes(out.data(), bytes, 0x5A),
        "nothing ran during capture: host output still poison");
  std::vector<uint8_t> devOut(bytes);
  expect(hipMemcpy(devOut.data(), dOut, bytes, hipMemcpyDeviceToHost),
         hipSuccess, "hipMemcpy after capture");
  check(allBytes(devOut.data(), bytes, 0xA5),
        "nothing ran during capture: device output still hipMalloc's fill");

  // -- Misuse ----------------------------------------------------------------
  expect(hipGraphLaunch(reinterpret_cast<hipGraphExec_t>(graph), stream),
         hipErrorInvalidValue, "hipGraphLaunch of an un-instantiated graph");
  expect(hipGraphLaunch(nullptr, stream), hipErrorInvalidValue,
         "hipGraphLaunch(null)");
  hipGraph_t none = nullptr;
  expect(hipStreamEndCapture(stream, &none), hipErrorIllegalState,
         "hipStreamEndCapture on a stream that is not capturing");
  expect(hipStreamBeginCapture(nullptr, hipStreamCaptureModeGlobal),
         hipErrorStreamCaptureUnsupported, "capturing the null stream");

  // -- Instantiate and launch --------------------------------------------------
  hipGraphExec_t exec = nullptr;
  expect(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), hipSuccess,
         "hipGraphInstantiate");
  expect(hipGraphDestroy(graph), hipSuccess,
         "hipGraphDestroy (the executable graph stays)");
  expect(hipGraphDestroy(graph), hipErrorInvalidValue,
         "hipGraphDestroy twice");
  // The captured upload reads the host buffer when the graph runs.
  fillInput(in, 5);
  expect(hipGraphLaunch(exec, stream), hipSuccess, "hipGraphLaunch 1");
  expect(hipStreamSynchronize(stream), hipSuccess, "hipStreamSynchronize");
  check(twiceScaled(in, out), "launch 1: out = scale(scale(in)), in read at "
                              "launch");
  std::memset(out.data(), 0x5A, bytes);
  fillInput(in, -3);
  expect(hipGraphLaunch(exec, stream), hipSuccess, "hipGraphLaunch 2");
  expect(hipStreamSynchronize(stream), hipSuccess, "hipStreamSynchronize");
  check(twiceScaled(in, out), "launch 2 (replay, new input): correct");

  // -- Calls a capture refuses -----------------------------------------------
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), hipSuccess,
         "hipStreamBeginCapture again");
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal),
         hipErrorIllegalState, "hipStreamBeginCapture on a capturing stream");
  expect(hipMemcpy(devOut.data(), dOut, bytes, hipMemcpyDeviceToHost),
         hipErrorStreamCaptureImplicit, "a synchronous hipMemcpy during "
                                        "capture");
  expect(hipStreamIsCapturing(stream, &status), hipSuccess,
         "hipStreamIsCapturing");
  check(status == hipStreamCaptureStatusInvalidated, "capture invalidated");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args1,
                               nullptr),
         hipErrorStreamCaptureInvalidated, "a launch into it");
  graph = reinterpret_cast<hipGraph_t>(&graph);
  expect(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated,
         "hipStreamEndCapture of the invalidated capture");
  check(graph == nullptr, "no graph");
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), hipSuccess,
         "hipStreamBeginCapture (3)");
  expect(hipStreamSynchronize(stream), hipErrorStreamCaptureUnsupported,
         "hipStreamSynchronize of a capturing stream");
  expect(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated,
         "hipStreamEndCapture after it");
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeRelaxed),
         hipSuccess, "hipStreamBeginCapture relaxed");
  expect(hipMemcpy(devOut.data(), dOut, bytes, hipMemcpyDeviceToHost),
         hipSuccess, "a synchronous hipMemcpy during a relaxed capture");
  expect(hipStreamEndCapture(stream, &graph), hipSuccess,
         "hipStreamEndCapture relaxed (empty graph)");
  expect(hipGraphDestroy(graph), hipSuccess, "hipGraphDestroy (empty)");

  // -- Modelled time: stream launches against a graph ------------------------
  // The same two kernels, with events around them on the stream and inside
  // the graph. With CREST_HIP_TIMING=1 the kernels' modelled times are the
  // same, so the difference is two kernels' launch overheads minus two
  // kernels' graph launch overheads.
  hipEvent_t e0, e1, g0, g1;
  for (hipEvent_t *e : {&e0, &e1, &g0, &g1})
    expect(hipEventCreate(e), hipSuccess, "hipEventCreate");
  expect(hipEventRecord(e0, stream), hipSuccess, "hipEventRecord");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args1,
                               nullptr),
         hipSuccess, "stream launch 1");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args2,
                               nullptr),
         hipSuccess, "stream launch 2");
  expect(hipEventRecord(e1, stream), hipSuccess, "hipEventRecord");
  expect(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), hipSuccess,
         "hipStreamBeginCapture (timed)");
  expect(hipEventRecord(g0, stream), hipSuccess, "hipEventRecord (captured)");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args1,
                               nullptr),
         hipSuccess, "graph launch 1 (captured)");
  expect(hipModuleLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, stream, args2,
                               nullptr),
         hipSuccess, "graph launch 2 (captured)");
  expect(hipEventRecord(g1, stream), hipSuccess, "hipEventRecord (captured)");
  expect(hipStreamEndCapture(stream, &graph), hipSuccess,
         "hipStreamEndCapture (timed)");
  hipGraphExec_t timed = nullptr;
  expect(hipGraphInstantiate(&timed, graph, nullptr, nullptr, 0), hipSuccess,
         "hipGraphInstantiate (timed)");
  expect(hipGraphLaunch(timed, stream), hipSuccess, "hipGraphLaunch (timed)");
  expect(hipEventSynchronize(g1), hipSuccess, "hipEventSynchronize");
  float streamMs = 0, graphMs = 0;
  expect(hipEventElapsedTime(&streamMs, e0, e1), hipSuccess,
         "hipEventElapsedTime (stream)");
  expect(hipEventElapsedTime(&graphMs, g0, g1), hipSuccess,
         "hipEventElapsedTime (graph's events)");
  if (const char *t = std::getenv("CREST_HIP_TIMING"); t && *t == '1')
    std::printf("timing: stream %.4f us, graph %.4f us, difference %.4f us\n",
                streamMs * 1000.0, graphMs * 1000.0,
                (streamMs - graphMs) * 1000.0);

  // -- Clean-up ----------------------------------------------------------------
  expect(hipGraphExecDestroy(exec), hipSuccess, "hipGraphExecDestroy");
  expect(hipGraphExecDestroy(exec), hipErrorInvalidValue,
         "hipGraphExecDestroy twice");
  expect(hipGraphExecDestroy(timed), hipSuccess, "hipGraphExecDestroy timed");
  expect(hipGraphDestroy(graph), hipSuccess, "hipGraphDestroy timed");
  expect(hipStreamDestroy(stream), hipSuccess, "hipStreamDestroy");
  for (void *p : {dIn, dMid, dOut})
    expect(hipFree(p), hipSuccess, "hipFree");
  expect(hipModuleUnload(module), hipSuccess, "hipModuleUnload");
  std::printf("%d failures\n", failures);
  return failures;
}
