//===- CrestPlugin.cpp - Crest as a plugin for mlir-opt ---------*- C++ -*-===//
//
// libCrestPlugin.so: the crest dialect, Crest's passes and its named
// pipelines for an mlir-opt that links libMLIR.so (Debian's mlir-opt-22):
//
//   mlir-opt-22 --load-dialect-plugin=libCrestPlugin.so model.mlir \
//     --pass-pipeline='builtin.module(crest-codegen-pipeline{chip=gfx942})'
//
// --load-dialect-plugin registers the dialect (crest::registerCrestDialects,
// so every interface and extension Crest registers comes along) and the
// passes; --load-pass-plugin registers the passes only. mlir-opt loads
// plugins after it has parsed its flags, so the passes are reached through
// --pass-pipeline, not as --crest-* flags (docs/Embedding.md).
//
//===----------------------------------------------------------------------===//

#include "crest/InitCrest.h"
#include "crest/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <mutex>

/// Registers the passes once, whichever plugin entry point (or both) ran.
static void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { crest::registerCrestPasses(); });
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Crest", CREST_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            crest::registerCrestDialects(*registry);
            registerPassesOnce();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "CrestPasses", CREST_VERSION_STRING,
          [] { registerPassesOnce(); }};
}
