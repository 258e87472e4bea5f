/* capi.c - the compiler's C API from an installed Crest (Crest::CompilerC,
 * libCrestCompiler.so) with the runtime's (Crest::RuntimeCShared,
 * libCrestRuntimeC.so), in C.
 *
 *   crest-consumer-capi GRAPH.mlir CHIP
 *
 * compiles GRAPH.mlir for CHIP into a package and loads it with the
 * runtime, printing the versions and the package's signature.
 */
#include "crest_compiler.h"
#include "crest_runtime.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: crest-consumer-capi GRAPH.mlir CHIP\n");
    return 1;
  }
  printf("libCrestCompiler %s, C API %u.%u\n", crest_compiler_version_string(),
         crest_compiler_api_version() >> 16,
         crest_compiler_api_version() & 0xffff);
  crest_compiler_session *session;
  crest_compiler_output *output = NULL;
  crest_compiler_error *error = crest_compiler_session_create(&session);
  if (!error)
    error = crest_compiler_session_set_option(session, "target", argv[2]);
  if (!error)
    error = crest_compiler_compile_file(session, argv[1], &output);
  crest_compiler_session_destroy(session);
  if (error) {
    fprintf(stderr, "%s\n", crest_compiler_error_message(error));
    crest_compiler_error_destroy(error);
    return 1;
  }
  size_t size;
  const void *data = crest_compiler_output_data(output, &size);
  crest_model *model;
  if (crest_model_load_memory(data, size, &model) != CREST_OK) {
    fprintf(stderr, "%s\n", crest_last_error());
    return 1;
  }
  printf("package for %s: %zu inputs, %zu outputs\n", crest_model_chip(model),
         crest_model_num_inputs(model), crest_model_num_outputs(model));
  crest_model_destroy(model);
  crest_compiler_output_destroy(output);
  return 0;
}
