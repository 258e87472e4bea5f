/* compile_and_run.c - compiles a graph with the compiler's C API
 * (crest_compiler.h, libCrestCompiler.so) and runs the package with the
 * runtime's C API (crest_runtime.h) on the emulator.
 *
 *   crest-example-compile-and-run [CHIP]      (default gfx942)
 *
 * The graph is one f32 layer, y = relu(x * w + b) with x 16x32, w 32x16 and
 * b 16, written below as MLIR text. The inputs are small multiples of 1/8,
 * so every product and sum is exact in f32 and the output must equal the
 * layer computed here on the host exactly. Prints the versions, the
 * report, the device and the comparison; exit code 0 when the output
 * matches, 1 otherwise.
 */
#include "crest_compiler.h"
#include "crest_runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 16, K = 32, N = 16 };

static const char *kGraph =
    "func.func @layer(%x: tensor<16x32xf32> {crest.name = \"x\"},\n"
    "                 %w: tensor<32x16xf32> {crest.name = \"w\"},\n"
    "                 %b: tensor<16xf32> {crest.name = \"b\"})\n"
    "    -> (tensor<16x16xf32> {crest.name = \"y\"}) {\n"
    "  %0 = crest.matmul %x, %w precision <lhs = f32, rhs = f32, acc = f32,"
    " out = f32>\n"
    "         : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>\n"
    "  %1 = crest.add %0, %b : tensor<16x16xf32>, tensor<16xf32>"
    " -> tensor<16x16xf32>\n"
    "  %2 = crest.relu %1 : tensor<16x16xf32>\n"
    "  return %2 : tensor<16x16xf32>\n"
    "}\n";

/* Prints each diagnostic as the compiler reports it. */
static void on_diagnostic(crest_compiler_severity severity, const char *message,
                          const char *location, void *user_data) {
  static const char *names[] = {"error", "warning", "note", "remark"};
  (void)user_data;
  fprintf(stderr, "diagnostic: %s%s%s: %s\n", location, *location ? ": " : "",
          names[severity], message);
}

static int runtime_failed(crest_status status, const char *what) {
  if (status == CREST_OK)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", what, crest_status_name(status),
          crest_last_error());
  return 1;
}

int main(int argc, char **argv) {
  const char *chip = argc > 1 ? argv[1] : "gfx942";
  uint32_t version = crest_compiler_api_version();
  /* A library of the same major version and at least this minor version
   * has every function this program calls. */
  if ((version >> 16) != CREST_COMPILER_API_VERSION_MAJOR ||
      (version & 0xffff) < CREST_COMPILER_API_VERSION_MINOR) {
    fprintf(stderr, "libCrestCompiler.so has API %u.%u, built against %d.%d\n",
            version >> 16, version & 0xffff, CREST_COMPILER_API_VERSION_MAJOR,
            CREST_COMPILER_API_VERSION_MINOR);
    return 1;
  }
  printf("compiler: Crest %s, C API %u.%u, ABI %u\n",
         crest_compiler_version_string(), version >> 16, version & 0xffff,
         crest_compiler_abi_version());

  /* Compile: a session with options, the graph's text, the package. */
  crest_compiler_session *session = NULL;
  crest_compiler_output *output = NULL;
  crest_compiler_error *error = crest_compiler_session_create(&session);
  if (!error) {
    crest_compiler_session_set_diagnostic_callback(session, on_diagnostic,
                                                   NULL);
    error = crest_compiler_session_set_option(session, "target", chip);
  }
  if (!error)
    error = crest_compiler_session_set_option(session, "report", "1");
  if (!error)
    error = crest_compiler_compile(session, CREST_COMPILER_INPUT_MLIR, kGraph,
                                   strlen(kGraph), "layer.mlir", &output);
  crest_compiler_session_destroy(session);
  if (error) {
    fprintf(stderr, "compile failed: %s\n", crest_compiler_error_message(error));
    crest_compiler_error_destroy(error);
    return 1;
  }
  size_t package_size = 0;
  const void *package = crest_compiler_output_data(output, &package_size);
  printf("package: %zu bytes for %s\n", package_size,
         crest_compiler_output_chip(output));
  fputs(crest_compiler_output_report(output), stdout);

  /* Run: the package on the emulator. */
  crest_model *model = NULL;
  crest_device *device = NULL;
  crest_session *run = NULL;
  int rc = runtime_failed(crest_model_load_memory(package, package_size, &model),
                          "load");
  crest_compiler_output_destroy(output);
  if (rc)
    return 1;
  if (runtime_failed(crest_device_create(CREST_DEVICE_EMU,
                                         crest_model_chip(model),
                                         crest_model_code_object_version(model),
                                         NULL, &device),
                     "device") ||
      runtime_failed(crest_session_create(device, model, &run), "session"))
    return 1;
  printf("device: %s\n", crest_device_describe(device));

  static float x[M * K], w[K * N], b[N], y[M * N], expected[M * N];
  for (int i = 0; i < M * K; ++i)
    x[i] = (float)((i * 7) % 13 - 6) / 8.0f;
  for (int i = 0; i < K * N; ++i)
    w[i] = (float)((i * 5) % 11 - 5) / 8.0f;
  for (int i = 0; i < N; ++i)
    b[i] = (float)(i % 5 - 2) / 4.0f;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = b[j];
      for (int l = 0; l < K; ++l)
        sum += x[i * K + l] * w[l * N + j];
      expected[i * N + j] = sum > 0.0f ? sum : 0.0f;
    }
  /* Poison the output: a kernel that wrote nothing cannot pass. */
  for (int i = 0; i < M * N; ++i)
    y[i] = NAN;

  int64_t x_shape[] = {M, K}, w_shape[] = {K, N}, b_shape[] = {N};
  if (runtime_failed(crest_session_bind_input(run, "x", CREST_F32, x_shape, 2,
                                              x, sizeof x),
                     "bind x") ||
      runtime_failed(crest_session_bind_input(run, "w", CREST_F32, w_shape, 2,
                                              w, sizeof w),
                     "bind w") ||
      runtime_failed(crest_session_bind_input(run, "b", CREST_F32, b_shape, 1,
                                              b, sizeof b),
                     "bind b") ||
      runtime_failed(crest_session_run(run), "run") ||
      runtime_failed(crest_session_read_output(run, "y", y, sizeof y), "read"))
    return 1;

  double max_error = 0;
  int positive = 0;
  for (int i = 0; i < M * N; ++i) {
    double e = fabs((double)y[i] - (double)expected[i]);
    if (!(e <= max_error)) /* NaN counts */
      max_error = isnan(e) ? INFINITY : e;
    positive += expected[i] > 0;
  }
  printf("y[0][0..3] = %g %g %g %g (host: %g %g %g %g)\n", y[0], y[1], y[2],
         y[3], expected[0], expected[1], expected[2], expected[3]);
  printf("%d of %d outputs positive; max abs error against the host: %g\n",
         positive, M * N, max_error);
  rc = max_error == 0 ? 0 : 1;
  puts(rc ? "FAIL" : "PASS");

  crest_session_destroy(run);
  crest_device_destroy(device);
  crest_model_destroy(model);
  return rc;
}
