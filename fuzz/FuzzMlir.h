//===- FuzzMlir.h - The MLIR context of the IR and ONNX targets -*- C++ -*-===//
//
// The registry of every dialect Crest registers (built once) and a fresh
// context per input, without threads and with diagnostics collected rather
// than printed: a crash must not depend on the inputs run before it.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_FUZZ_FUZZMLIR_H
#define CREST_FUZZ_FUZZMLIR_H

#include "crest/InitCrest.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>

namespace crest::fuzz {

inline const mlir::DialectRegistry &getRegistry() {
  static const mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    crest::registerAllCrestDialects(*r);
    return r;
  }();
  return *registry;
}

/// A context for one input; its diagnostics go to `diagnostics`.
struct FuzzContext {
  mlir::MLIRContext context{getRegistry(),
                            mlir::MLIRContext::Threading::DISABLED};
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler{&context, [this](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  }};
};

} // namespace crest::fuzz

#endif // CREST_FUZZ_FUZZMLIR_H
