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

#include "FuzzMlir.h"

#include "crest/Support/Limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  crest::fuzz::getRegistry();
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
  crest::fuzz::FuzzContext fuzz;
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(text, fuzz.context);
  if (!module)
    return 0;
  std::string printed;
  raw_string_ostream os(printed);
  module->print(os);
  fuzz.diagnostics.clear();
  if (!parse(printed, fuzz.context))
    crest::fuzz::reportBug("an accepted module does not parse once printed:\n" +
                           fuzz.diagnostics + "--- printed:\n" + printed);
  return 0;
}
