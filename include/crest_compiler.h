/*===- crest_compiler.h - Crest compiler C API --------------------*- C -*-===*\
|*                                                                            *|
|* Compiles a crest graph (MLIR text or bytecode) or an ONNX model into the   *|
|* bytes crest-compile writes (a .crest package by default), in process,      *|
|* through libCrestCompiler.so:                                               *|
|*                                                                            *|
|*   crest_compiler_session *s;  crest_compiler_output *out;                  *|
|*   crest_compiler_error *e = crest_compiler_session_create(&s);             *|
|*   if (!e) e = crest_compiler_session_set_option(s, "target", "gfx942");    *|
|*   if (!e) e = crest_compiler_compile(s, CREST_COMPILER_INPUT_MLIR,         *|
|*                                      text, strlen(text), "m.mlir", &out);  *|
|*   if (e) { puts(crest_compiler_error_message(e));                         *|
|*            crest_compiler_error_destroy(e); }                              *|
|*   ... crest_compiler_output_data(out, &size) is the package: give it to    *|
|*   crest_model_load_memory (crest_runtime.h) ...                            *|
|*                                                                            *|
|* Every call that can fail returns NULL on success or an error the caller   *|
|* destroys; nothing aborts the process. Diagnostics (severity, message,     *|
|* location) also go to the session's callback as they happen. A session     *|
|* is used by one thread at a time; sessions in several threads may compile  *|
|* at once, and the library runs their compiles one after another. See       *|
|* docs/Embedding.md for what the version numbers promise.                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef CREST_COMPILER_C_H
#define CREST_COMPILER_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(CREST_COMPILER_BUILDING_LIBRARY)
#define CREST_COMPILER_API __attribute__((visibility("default")))
#else
#define CREST_COMPILER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ----------------------------------------------------------- */

/* The ABI version: libCrestCompiler.so.<ABI>. It changes only when a
 * program built against this header could break against the new library
 * (a function removed or changed, an enumerator renumbered). */
#define CREST_COMPILER_ABI_VERSION 1
/* The API version: within one major version, minor versions only add
 * functions, options and enumerators. */
#define CREST_COMPILER_API_VERSION_MAJOR 1
#define CREST_COMPILER_API_VERSION_MINOR 0

/* (major << 16) | minor of the library, to compare with the header's. */
CREST_COMPILER_API uint32_t crest_compiler_api_version(void);
/* CREST_COMPILER_ABI_VERSION of the library. */
CREST_COMPILER_API uint32_t crest_compiler_abi_version(void);
/* Crest's release (crest/Version.h), e.g. 0, 1, 0 and "0.1.0"; any pointer
 * may be NULL. */
CREST_COMPILER_API void crest_compiler_version(unsigned *major,
                                               unsigned *minor,
                                               unsigned *patch);
CREST_COMPILER_API const char *crest_compiler_version_string(void);

/* ---- Errors --------------------------------------------------------------- */

typedef struct crest_compiler_error crest_compiler_error;
/* The message: every error diagnostic of the failed call, one per line,
 * each after its location when it has one ("m.mlir:3:5: error: ..."). */
CREST_COMPILER_API const char *
crest_compiler_error_message(const crest_compiler_error *error);
/* The location of the first error diagnostic ("" if it has none). */
CREST_COMPILER_API const char *
crest_compiler_error_location(const crest_compiler_error *error);
/* NULL is fine. */
CREST_COMPILER_API void crest_compiler_error_destroy(crest_compiler_error *error);

/* ---- Sessions ------------------------------------------------------------- */

typedef struct crest_compiler_session crest_compiler_session;

CREST_COMPILER_API crest_compiler_error *
crest_compiler_session_create(crest_compiler_session **out);
CREST_COMPILER_API void
crest_compiler_session_destroy(crest_compiler_session *session);

/* Sets an option by name; the value is text, as crest-compile's flag of the
 * same name takes it (an unknown name or a bad value is an error):
 *
 *   target               the chip, e.g. "gfx942" (default: the graph's
 *                        #crest.target); checked when compiling
 *   emit                 "package" (default), "hsaco" (one gpu.module),
 *                        "mlir", "llvm" or "asm"
 *   precision            ONNX, TOSA and linalg: "f32" (ONNX's default),
 *                        "f16", "bf16", "fp8" or "auto" (docs/Precision.md,
 *                        docs/FrontEnds.md)
 *   onnx-dims            ONNX: "name=size[,name=size...]"
 *   code-object-version  "4", "5" (default) or "6"
 *   opt-level            "0" to "3" (default)
 *   wave-size            "32" or "64" (default: the chip's)
 *   report               "1": build the resource report, "0" (default)
 *   fuse-attention       "1" (default): attention written as ops becomes
 *                        one kernel; "0" keeps the ops (docs/Attention.md)
 *   fuse-prologues       "1" (default): casts and per-channel scales of a
 *                        contraction's operands fuse into its loads, and
 *                        the ops computing a layer norm's, softmax's or
 *                        reduction's input into its row loads; "0" keeps
 *                        them as kernels (docs/Codegen.md)
 *   fuse-rows            "1" (default): the elementwise ops around a layer
 *                        norm, softmax or reduction fuse into its kernel;
 *                        "0" keeps them as kernels (docs/Codegen.md)
 *   calibration          precision fp8/auto: the calibration input sets'
 *                        directory
 *   fp8-margin           precision fp8/auto: activation margin in bits,
 *                        0 to 16 (default "1")
 *   fp8-per-channel      "1": per output channel weight scales; "0" (default)
 *   precision-plan       precision fp8/auto: a plan.json whose pins hold
 *   precision-budget     precision auto: the loss budget, in (0, 1)
 *                        (default "0.01")
 *   holdout              precision auto: the holdout input sets' directory
 */
CREST_COMPILER_API crest_compiler_error *
crest_compiler_session_set_option(crest_compiler_session *session,
                                  const char *name, const char *value);

typedef enum crest_compiler_severity {
  CREST_COMPILER_SEVERITY_ERROR = 0,
  CREST_COMPILER_SEVERITY_WARNING = 1,
  CREST_COMPILER_SEVERITY_NOTE = 2,
  CREST_COMPILER_SEVERITY_REMARK = 3
} crest_compiler_severity;

/* Receives each diagnostic of a compile as it is reported: its severity,
 * message and location ("file:line:col", "model.onnx: node 'n'" or "");
 * the strings are valid during the call only. */
typedef void (*crest_compiler_diagnostic_callback)(
    crest_compiler_severity severity, const char *message,
    const char *location, void *user_data);
/* NULL turns the callback off (errors still come back as values). */
CREST_COMPILER_API void crest_compiler_session_set_diagnostic_callback(
    crest_compiler_session *session,
    crest_compiler_diagnostic_callback callback, void *user_data);

/* ---- Compiling ------------------------------------------------------------ */

typedef enum crest_compiler_input {
  CREST_COMPILER_INPUT_MLIR = 0, /* MLIR text or bytecode */
  CREST_COMPILER_INPUT_ONNX = 1  /* an ONNX ModelProto (the .onnx bytes) */
} crest_compiler_input;

typedef struct crest_compiler_output crest_compiler_output;

/* Compiles `size` bytes at `data` (copied; `name`, which may be NULL, names
 * the input in locations) with the session's options into *out. */
CREST_COMPILER_API crest_compiler_error *
crest_compiler_compile(crest_compiler_session *session,
                       crest_compiler_input kind, const void *data,
                       size_t size, const char *name,
                       crest_compiler_output **out);
/* Reads and compiles a file; ".onnx" files are ONNX, others MLIR. */
CREST_COMPILER_API crest_compiler_error *
crest_compiler_compile_file(crest_compiler_session *session, const char *path,
                            crest_compiler_output **out);

/* The output's bytes: what crest-compile writes for the session's emit
 * option. Valid until the output is destroyed. */
CREST_COMPILER_API const void *
crest_compiler_output_data(const crest_compiler_output *output, size_t *size);
/* The chip compiled for ("gfx942"). */
CREST_COMPILER_API const char *
crest_compiler_output_chip(const crest_compiler_output *output);
/* With the "report" option: the table `crest-compile --report` prints;
 * "" otherwise. */
CREST_COMPILER_API const char *
crest_compiler_output_report(const crest_compiler_output *output);
/* The same report as JSON: {"chip": ..., "wave_size": ...,
 * "code_object_version": ..., "kernels": [{"module", "kernel", "vgprs",
 * "agprs", "sgprs", "vgpr_spills", "sgpr_spills", "lds_bytes",
 * "scratch_bytes", "waves_per_simd", "mfma", "barriers"}, ...]}; kernels
 * is empty without the "report" option unless emit is "package". */
CREST_COMPILER_API const char *
crest_compiler_output_report_json(const crest_compiler_output *output);
CREST_COMPILER_API void
crest_compiler_output_destroy(crest_compiler_output *output);

#ifdef __cplusplus
}
#endif

#endif /* CREST_COMPILER_C_H */
