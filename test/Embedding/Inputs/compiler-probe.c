/* compiler-probe.c - drives libCrestCompiler.so through dlopen, for the
 * tests of the compiler's C API (test/Embedding/compiler-api.test).
 *
 *   compiler-probe [--preload=LIB]... LIBCRESTCOMPILER version
 *   compiler-probe [--preload=LIB]... LIBCRESTCOMPILER compile mlir|onnx
 *                  INPUT|- OUT [name=value]...
 *
 * --preload loads LIB with RTLD_GLOBAL first (e.g. another LLVM). `compile`
 * sets each name=value option and compiles INPUT (`-` compiles the empty
 * input) into OUT. Prints each diagnostic the callback receives ("diag
 * SEVERITY [LOCATION] MESSAGE") and, on failure, the error's message and
 * location, and after a compile the LLVM libraries mapped into the process;
 * exit code 1 on failure.
 */
#include "crest_compiler.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every function of crest_compiler.h the probe resolves with dlsym. */
#define COMPILER_APIS(X)                                                       \
  X(api_version)                                                               \
  X(abi_version)                                                               \
  X(version)                                                                   \
  X(version_string)                                                            \
  X(error_message)                                                             \
  X(error_location)                                                            \
  X(error_destroy)                                                             \
  X(session_create)                                                            \
  X(session_destroy)                                                           \
  X(session_set_option)                                                        \
  X(session_set_diagnostic_callback)                                           \
  X(compile)                                                                   \
  X(output_data)                                                               \
  X(output_report)                                                             \
  X(output_report_json)                                                        \
  X(output_destroy)

#define API(name) static __typeof__(&crest_compiler_##name) p_##name;
COMPILER_APIS(API)
#undef API

static void on_diagnostic(crest_compiler_severity severity, const char *message,
                          const char *location, void *user_data) {
  static const char *names[] = {"error", "warning", "note", "remark"};
  ++*(int *)user_data;
  printf("diag %s [%s] %s\n", names[severity], location, message);
}

static int failed(crest_compiler_error *error) {
  if (!error)
    return 0;
  printf("error message: %s\n", p_error_message(error));
  printf("error location: [%s]\n", p_error_location(error));
  p_error_destroy(error);
  return 1;
}

/* Prints each LLVM library mapped into the process, once. */
static void print_llvms(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[4096], seen[4096] = "";
  while (maps && fgets(line, sizeof line, maps)) {
    char *name = strstr(line, "libLLVM");
    if (!name)
      continue;
    name[strcspn(name, "\n")] = '\0';
    if (strstr(seen, name))
      continue;
    strncat(seen, name, sizeof seen - strlen(seen) - 2);
    strcat(seen, " ");
    printf("mapped %s\n", name);
  }
  if (maps)
    fclose(maps);
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  int arg = 1;
  for (; arg < argc && !strncmp(argv[arg], "--preload=", 10); ++arg) {
    if (!dlopen(argv[arg] + 10, RTLD_NOW | RTLD_GLOBAL)) {
      fprintf(stderr, "cannot preload: %s\n", dlerror());
      return 1;
    }
    printf("preloaded %s\n", argv[arg] + 10);
  }
  if (argc - arg < 2) {
    fprintf(stderr, "usage: see compiler-probe.c\n");
    return 1;
  }
  void *lib = dlopen(argv[arg], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot load: %s\n", dlerror());
    return 1;
  }
#define API(name)                                                              \
  if (!(*(void **)&p_##name = dlsym(lib, "crest_compiler_" #name))) {          \
    fprintf(stderr, "missing crest_compiler_" #name "\n");                     \
    return 1;                                                                  \
  }
  COMPILER_APIS(API)
#undef API
  const char *command = argv[arg + 1];
  arg += 2;

  if (!strcmp(command, "version")) {
    unsigned major, minor, patch;
    uint32_t api = p_api_version();
    p_version(&major, &minor, &patch);
    printf("api %u.%u (header %d.%d), abi %u (header %d)\n", api >> 16,
           api & 0xffff, CREST_COMPILER_API_VERSION_MAJOR,
           CREST_COMPILER_API_VERSION_MINOR, p_abi_version(),
           CREST_COMPILER_ABI_VERSION);
    printf("crest %u.%u.%u \"%s\"\n", major, minor, patch, p_version_string());
    return 0;
  }
  if (strcmp(command, "compile") || argc - arg < 3) {
    fprintf(stderr, "usage: see compiler-probe.c\n");
    return 1;
  }
  crest_compiler_input kind = !strcmp(argv[arg], "onnx")
                                  ? CREST_COMPILER_INPUT_ONNX
                                  : CREST_COMPILER_INPUT_MLIR;
  const char *input = argv[arg + 1], *output = argv[arg + 2];
  size_t size = 0;
  void *data = strcmp(input, "-") ? read_file(input, &size) : NULL;
  if (strcmp(input, "-") && !data) {
    fprintf(stderr, "cannot read %s\n", input);
    return 1;
  }
  crest_compiler_session *session;
  if (failed(p_session_create(&session)))
    return 1;
  int diagnostics = 0;
  p_session_set_diagnostic_callback(session, on_diagnostic, &diagnostics);
  for (int i = arg + 3; i < argc; ++i) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return 1;
    *eq = '\0';
    if (failed(p_session_set_option(session, argv[i], eq + 1)))
      return 1;
  }
  crest_compiler_output *out;
  crest_compiler_error *error =
      p_compile(session, kind, data, size, strcmp(input, "-") ? input : NULL,
                &out);
  printf("%d diagnostics\n", diagnostics);
  p_session_destroy(session);
  free(data);
  if (failed(error))
    return 1;
  size_t bytes;
  const void *result = p_output_data(out, &bytes);
  FILE *f = fopen(output, "wb");
  if (!f || fwrite(result, 1, bytes, f) != bytes || fclose(f))
    return 1;
  printf("wrote %zu bytes\n", bytes);
  fputs(p_output_report(out), stdout);
  printf("json %s\n", p_output_report_json(out));
  print_llvms();
  p_output_destroy(out);
  return 0;
}
