/* run_model.c - runs a .crest package through the C API (crest_runtime.h).
 *
 *   crest-example-run-model MODEL.crest IN_0.bin ... -o OUT_0.bin ...
 *       [--device=auto|hip|emu] [--no-timing]
 *
 * Each input file holds the raw little-endian elements of one graph input,
 * in the graph's order (e.g. numpy's a.tofile()); each output is written the
 * same way. The program prints the device, the model's signature, the
 * verification against the host reference, the per-kernel report and, on
 * the emulator, the timing model's time of the run (--no-timing turns the
 * model off). Exit codes: 0 success, 1 an error, 2 LDS races, 3 outputs
 * beyond tolerance.
 */
#include "crest_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(crest_status status, const char *what) {
  if (status == CREST_OK)
    return 0;
  fprintf(stderr, "run_model: %s: %s: %s\n", what, crest_status_name(status),
          crest_last_error());
  return status == CREST_ERROR_RACE ? 2 : status == CREST_ERROR_VERIFY ? 3 : 1;
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  const char *inputs[16], *outputs[16];
  int numInputs = 0, numOutputs = 0, rc = 0, timing = 1;
  crest_device_kind kind = CREST_DEVICE_AUTO;
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.crest IN.bin... -o OUT.bin...\n", argv[0]);
    return 1;
  }
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc && numOutputs < 16)
      outputs[numOutputs++] = argv[++i];
    else if (!strcmp(argv[i], "--device=emu"))
      kind = CREST_DEVICE_EMU;
    else if (!strcmp(argv[i], "--device=hip"))
      kind = CREST_DEVICE_HIP;
    else if (!strcmp(argv[i], "--no-timing"))
      timing = 0;
    else if (numInputs < 16)
      inputs[numInputs++] = argv[i];
  }
  if (crest_api_version() >> 16 != CREST_RUNTIME_API_VERSION_MAJOR) {
    fprintf(stderr, "run_model: runtime API version mismatch\n");
    return 1;
  }

  crest_model *model = NULL;
  crest_device *device = NULL;
  crest_session *session = NULL;
  if ((rc = check(crest_model_load_file(argv[1], &model), "loading the model")))
    return rc;
  crest_emu_options emu = crest_emu_options_default();
  if ((rc = check(crest_device_create(kind, crest_model_chip(model),
                                      crest_model_code_object_version(model),
                                      &emu, &device),
                  "creating the device")))
    goto done;
  printf("device: %s\n", crest_device_describe(device));
  if (crest_device_get_kind(device) == CREST_DEVICE_EMU &&
      (rc = check(crest_device_set_timing(device, timing), "setting timing")))
    goto done;
  if ((rc = check(crest_session_create(device, model, &session),
                  "creating the session")))
    goto done;

  if ((size_t)numInputs != crest_model_num_inputs(model)) {
    fprintf(stderr, "run_model: the model has %zu inputs, %d given\n",
            crest_model_num_inputs(model), numInputs);
    rc = 1;
    goto done;
  }
  for (int i = 0; i < numInputs; ++i) {
    const char *name;
    crest_dtype dtype;
    size_t rank, size = 0;
    int64_t shape[8];
    crest_model_input(model, (size_t)i, &name, &dtype, &rank, shape);
    printf("input %s: %s[", name, crest_dtype_name(dtype));
    for (size_t d = 0; d < rank; ++d)
      printf(d ? ", %lld" : "%lld", (long long)shape[d]);
    printf("] from %s\n", inputs[i]);
    void *data = read_file(inputs[i], &size);
    if (!data) {
      fprintf(stderr, "run_model: cannot read %s\n", inputs[i]);
      rc = 1;
      goto done;
    }
    rc = check(crest_session_bind_input(session, name, dtype, shape, rank,
                                        data, size),
               "binding an input");
    free(data);
    if (rc)
      goto done;
  }

  if ((rc = check(crest_session_run(session), "running")))
    goto done;
  for (int i = 0; i < numOutputs && (size_t)i < crest_model_num_outputs(model);
       ++i) {
    const char *name;
    crest_dtype dtype;
    size_t rank, count = 1;
    int64_t shape[8];
    crest_model_output(model, (size_t)i, &name, &dtype, &rank, shape);
    for (size_t d = 0; d < rank; ++d)
      count *= (size_t)shape[d];
    size_t bytes = count * crest_dtype_size(dtype);
    void *data = malloc(bytes ? bytes : 1);
    rc = check(crest_session_read_output(session, name, data, bytes),
               "reading an output");
    if (!rc) {
      FILE *f = fopen(outputs[i], "wb");
      if (!f || fwrite(data, 1, bytes, f) != bytes) {
        fprintf(stderr, "run_model: cannot write %s\n", outputs[i]);
        rc = 1;
      }
      if (f)
        fclose(f);
    }
    free(data);
    if (rc)
      goto done;
  }

  const char *report = NULL;
  rc = check(crest_session_verify(session, &report), "verifying");
  if (report)
    printf("%s", report);
  printf("%s", crest_session_report(session));
  double modelled = crest_session_last_run_modelled_us(session);
  if (modelled >= 0)
    printf("modelled time of the run: %.2f us\n", modelled);
  else
    printf("modelled time of the run: none\n");

done:
  crest_session_destroy(session);
  crest_device_destroy(device);
  crest_model_destroy(model);
  return rc;
}
