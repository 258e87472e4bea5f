//===- Passes.h - Front-end dialects to crest graphs ------------*- C++ -*-===//
//
// The conversions of other front ends' MLIR (TOSA, linalg on tensors) into
// crest graphs. See docs/Compiling.md ("TOSA and linalg input").
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CONVERSION_PASSES_H
#define CREST_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace crest {

#define GEN_PASS_DECL
#include "crest/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "crest/Conversion/Passes.h.inc"

/// Whether `module` holds ops of a dialect the conversions take (tosa,
/// linalg, tensor), that is, whether it needs them before crest's pipeline.
bool hasFrontEndOps(mlir::ModuleOp module);

/// Adds the conversions of TOSA and linalg to crest to `pm`, with the
/// contraction precision `precision` ("" keeps the element types).
void buildFrontEndConversionPipeline(mlir::OpPassManager &pm,
                                     llvm::StringRef precision);

} // namespace crest

#endif // CREST_CONVERSION_PASSES_H
