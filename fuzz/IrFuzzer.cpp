//===- IrFuzzer.cpp - crest IR text into the parser and verifier ----------===//
//
// MLIR text through what crest-opt and crest-compile do first: the nesting
// pre-scan (upstream's parser recurses per level), then parsing with every
// dialect Crest registers, which verifies. Invariant: an accepted module
// prints into text that parses and verifies again (the custom assembly
// formats of Crest's ops and attributes round-trip).
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "crest/InitCrest.h"
#include "crest/Support/Limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

static mlir::DialectRegistry *registry;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registry = new mlir::DialectRegistry();
  crest::registerAllCrestDialects(*registry);
  return 0;
}

static mlir::OwningOpRef<mlir::ModuleOp> parse(StringRef text,
                                               mlir::MLIRContext &context) {
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"),
                               SMLoc());
  return mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr,
                                               mlir::ParserConfig(&context));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef text(reinterpret_cast<const char *>(data), size);
  if (Error error = crest::checkMlirNesting(text, "fuzz.mlir")) {
    consumeError(std::move(error));
    return 0;
  }
  // A context per input: a crash must not depend on the inputs before it.
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler collect(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(text, context);
  if (!module)
    return 0;
  std::string printed;
  raw_string_ostream os(printed);
  module->print(os);
  diagnostics.clear();
  if (!parse(printed, context))
    crest::fuzz::reportBug("an accepted module does not parse once printed:\n" +
                           diagnostics + "--- printed:\n" + printed);
  return 0;
}
