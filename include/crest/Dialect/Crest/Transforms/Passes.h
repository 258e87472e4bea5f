//===- Passes.h - Crest graph-level passes ----------------------*- C++ -*-===//

#ifndef CREST_DIALECT_CREST_TRANSFORMS_PASSES_H
#define CREST_DIALECT_CREST_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace crest {

#define GEN_PASS_DECL
#include "crest/Dialect/Crest/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "crest/Dialect/Crest/Transforms/Passes.h.inc"

} // namespace crest

#endif // CREST_DIALECT_CREST_TRANSFORMS_PASSES_H
