/*===- crest_runtime.h - Crest runtime C API ----------------------*- C -*-===*\
|*                                                                            *|
|* Runs a compiled .crest package from C:                                     *|
|*                                                                            *|
|*   crest_device *dev;  crest_model *model;  crest_session *s;               *|
|*   crest_device_create(CREST_DEVICE_AUTO, "gfx942", 5, NULL, &dev);         *|
|*   crest_model_load_file("model.crest", &model);                            *|
|*   crest_session_create(dev, model, &s);                                    *|
|*   crest_session_bind_input(s, "x", CREST_F32, shape, 2, data, bytes);      *|
|*   crest_session_run(s);                                                    *|
|*   crest_session_read_output(s, "y", out, out_bytes);                       *|
|*                                                                            *|
|* Every call returns a crest_status; on failure crest_last_error() gives the *|
|* message (per thread, valid until the next failing call in that thread).    *|
|* Handles are opaque; destroy them with the matching *_destroy (sessions     *|
|* before their device). See docs/Runtime.md.                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef CREST_RUNTIME_C_H
#define CREST_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The API version: major changes break source compatibility. */
#define CREST_RUNTIME_API_VERSION_MAJOR 1
#define CREST_RUNTIME_API_VERSION_MINOR 2
/* (major << 16) | minor of the library, to compare with the header's. */
uint32_t crest_api_version(void);

typedef enum crest_status {
  CREST_OK = 0,
  CREST_ERROR_INVALID_ARGUMENT = 1, /* a null handle, an unknown name, ... */
  CREST_ERROR_IO = 2,               /* a file cannot be read or written */
  CREST_ERROR_INVALID_PACKAGE = 3,  /* the package does not validate */
  CREST_ERROR_DEVICE = 4,           /* no usable device, or a device failure */
  CREST_ERROR_INPUT = 5,            /* wrong shape/type, missing input */
  CREST_ERROR_LAUNCH = 6,           /* a kernel failed */
  CREST_ERROR_RACE = 7,             /* the emulator found LDS races */
  CREST_ERROR_VERIFY = 8            /* outputs beyond the reference tolerance */
} crest_status;

/* The message of the last failing call in this thread ("" if none). */
const char *crest_last_error(void);
/* "CREST_OK", "CREST_ERROR_INPUT", ... */
const char *crest_status_name(crest_status status);

/* Element types, as the package names them. */
typedef enum crest_dtype {
  CREST_F64,
  CREST_F32,
  CREST_F16,
  CREST_BF16,
  CREST_F8E4M3FNUZ,
  CREST_F8E5M2FNUZ,
  CREST_F8E4M3FN,
  CREST_F8E5M2,
  CREST_I64,
  CREST_I32,
  CREST_I16,
  CREST_I8,
  CREST_U8,
  CREST_I1,
  /* API 1.2 */
  CREST_U16,
  CREST_U32,
  CREST_U64
} crest_dtype;
/* Bytes per element; "f32", ... */
size_t crest_dtype_size(crest_dtype dtype);
const char *crest_dtype_name(crest_dtype dtype);

typedef struct crest_device crest_device;
typedef struct crest_model crest_model;
typedef struct crest_session crest_session;

/* ---- Devices ------------------------------------------------------------ */

typedef enum crest_device_kind {
  CREST_DEVICE_AUTO = 0, /* hip if a GPU of the chip is usable, else emu */
  CREST_DEVICE_HIP = 1,
  CREST_DEVICE_EMU = 2
} crest_device_kind;

typedef struct crest_emu_options {
  int detect_races;  /* default 1 */
  uint32_t quantum;  /* default 64 */
  int has_seed;      /* default 0: round-robin */
  uint64_t seed;
} crest_emu_options;
/* The defaults. */
crest_emu_options crest_emu_options_default(void);

/* A device for code objects of `chip` (e.g. the model's, see
 * crest_model_chip) and `code_object_version`; `emu` may be NULL. An
 * emulator device runs the timing model on every launch (see
 * crest_device_set_timing and crest_session_last_run_modelled_us). */
crest_status crest_device_create(crest_device_kind kind, const char *chip,
                                 unsigned code_object_version,
                                 const crest_emu_options *emu,
                                 crest_device **out);
void crest_device_destroy(crest_device *device);
/* CREST_DEVICE_HIP or CREST_DEVICE_EMU. */
crest_device_kind crest_device_get_kind(const crest_device *device);
/* One line describing the device; with AUTO, also why it was chosen. */
const char *crest_device_describe(const crest_device *device);
/* Emulator (since 1.1): whether later launches also run the timing model,
 * which projects each kernel's time on the chip (docs/Timing.md). On by
 * default; it makes emulation slower. Enabling it on a HIP device fails with
 * CREST_ERROR_DEVICE (the GPU's own time is crest_session_last_run_seconds).
 */
crest_status crest_device_set_timing(crest_device *device, int enabled);

/* ---- Models (packages) -------------------------------------------------- */

crest_status crest_model_load_file(const char *path, crest_model **out);
crest_status crest_model_load_memory(const void *data, size_t size,
                                     crest_model **out);
void crest_model_destroy(crest_model *model);
const char *crest_model_chip(const crest_model *model);
unsigned crest_model_code_object_version(const crest_model *model);
size_t crest_model_num_inputs(const crest_model *model);
size_t crest_model_num_outputs(const crest_model *model);
/* Describes input/output `index`: name, type, rank and shape (up to 8
 * dimensions are written to `shape` if it is not NULL). */
crest_status crest_model_input(const crest_model *model, size_t index,
                               const char **name, crest_dtype *dtype,
                               size_t *rank, int64_t *shape);
crest_status crest_model_output(const crest_model *model, size_t index,
                                const char **name, crest_dtype *dtype,
                                size_t *rank, int64_t *shape);

/* ---- Sessions ------------------------------------------------------------ */

/* Allocates the model's buffers on `device`, uploads its weights and loads
 * its kernels. The session keeps its own copy of the model. */
crest_status crest_session_create(crest_device *device,
                                  const crest_model *model,
                                  crest_session **out);
void crest_session_destroy(crest_session *session);
/* Binds input `name`; dtype and shape must match the model's. */
crest_status crest_session_bind_input(crest_session *session, const char *name,
                                      crest_dtype dtype, const int64_t *shape,
                                      size_t rank, const void *data,
                                      size_t bytes);
/* Runs every kernel in order (emulator: CREST_ERROR_RACE on LDS races). */
crest_status crest_session_run(crest_session *session);
/* Copies output `name` of the last run; `bytes` must be its size. */
crest_status crest_session_read_output(crest_session *session,
                                       const char *name, void *data,
                                       size_t bytes);
/* Seconds the last run took: the host wall time of the emulation, or the GPU
 * event time. */
double crest_session_last_run_seconds(const crest_session *session);
/* Since 1.1: the timing model's time of the last run in microseconds, on the
 * model's chip: every kernel's modelled time plus its launch overhead, the
 * launches back to back (crest-run --timing prints the same total). Negative
 * when the last run has none: no run yet, a HIP device, the timing model
 * turned off, or a chip it has no parameters for (gfx908, gfx950, RDNA;
 * crest_session_report says why). */
double crest_session_last_run_modelled_us(const crest_session *session);
/* Compares every output of the last run with the host reference evaluator;
 * CREST_ERROR_VERIFY when one is beyond tolerance. The report (one line per
 * output) is valid until the next call on the session. */
crest_status crest_session_verify(crest_session *session, const char **report);
/* Per kernel: registers, LDS, occupancy, MFMA and barrier counts, and the
 * last run's time: on the emulator the modelled time and bound, the host
 * wall time and the emulator's counters, on a GPU the event time; valid
 * until the next call. */
const char *crest_session_report(crest_session *session);

#ifdef __cplusplus
}
#endif

#endif /* CREST_RUNTIME_C_H */
