//===- OnnxFuzzer.cpp - ONNX model bytes into the importer ----------------===//
//
// Binary ModelProto bytes (or protobuf text, when the input starts with a
// letter, as the text models of the tests do) into the ONNX importer.
// Invariant: a model the importer accepts becomes a module that verifies;
// an importer that builds invalid IR would hand the compiler a broken graph.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "FuzzMlir.h"

#include "crest/Import/OnnxImport.h"

#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  crest::fuzz::getRegistry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  crest::fuzz::FuzzContext fuzz;
  crest::OnnxImportOptions options;
  options.textFormat = !bytes.empty() && isAlpha(bytes.front());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      crest::importOnnxModel(bytes, "fuzz.onnx", &fuzz.context, options);
  if (module && mlir::failed(mlir::verify(*module)))
    crest::fuzz::reportBug("the importer accepted a model and built a module "
                           "that does not verify:\n" + fuzz.diagnostics);
  return 0;
}
