//===- Passes.h - Passes of Crest's GPU lowering pipeline -------*- C++ -*-===//

#ifndef CREST_PIPELINES_PASSES_H
#define CREST_PIPELINES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace crest {

#define GEN_PASS_DECL
#include "crest/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "crest/Pipelines/Passes.h.inc"

} // namespace crest

#endif // CREST_PIPELINES_PASSES_H
