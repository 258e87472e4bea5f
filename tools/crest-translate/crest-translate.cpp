//===- crest-translate.cpp - Crest's translations -------------------------===//
//
// mlir-translate with Crest's importers:
//   crest-translate --import-onnx model.onnx [--onnx-precision=f16]
//                   [--onnx-dims=batch=1] -o model.mlir
// See docs/Onnx.md.
//
//===----------------------------------------------------------------------===//

#include "crest/Import/OnnxImport.h"
#include "crest/ToolVersion.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  crest::setToolVersionPrinter();
  crest::registerOnnxImportTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Crest translation tool"));
}
