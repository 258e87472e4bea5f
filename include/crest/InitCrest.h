//===- InitCrest.h - Register Crest's dialects and passes -------*- C++ -*-===//
//
// Entry points for tools and other compilers that embed Crest:
//
//   mlir::DialectRegistry registry;
//   crest::registerCrestDialects(registry);   // crest only
//   crest::registerCrestPasses();             // crest-* passes
//
// `registerAllCrestDialects` also registers the upstream dialects Crest
// lowers through (func, arith, math, tensor, linalg, scf, vector, memref,
// gpu, amdgpu, rocdl, llvm, ...) and their extensions and translations.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_INITCREST_H
#define CREST_INITCREST_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace crest {

/// Registers the crest dialect.
void registerCrestDialects(mlir::DialectRegistry &registry);

/// Registers the crest dialect plus the upstream dialects, extensions and
/// LLVM IR translations of Crest's pipeline.
void registerAllCrestDialects(mlir::DialectRegistry &registry);

/// Registers Crest's passes (and pipelines) with the global registry, so
/// that `--crest-*` flags and `--pass-pipeline` names resolve.
void registerCrestPasses();

} // namespace crest

#endif // CREST_INITCREST_H
