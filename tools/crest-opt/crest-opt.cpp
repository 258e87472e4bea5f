//===- crest-opt.cpp - Crest's MLIR optimizer driver
//-------------------------===//
//
// The opt-style tool: parses MLIR with the crest dialect and every upstream
// dialect Crest lowers through, runs passes and pipelines, and prints the
// result. All MlirOptMain flags work (--pass-pipeline, --split-input-file,
// --verify-diagnostics, --mlir-print-ir-after-all, --mlir-timing, ...).
//
//===----------------------------------------------------------------------===//

#include "crest/InitCrest.h"
#include "crest/ToolVersion.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  crest::setToolVersionPrinter();
  mlir::registerAllPasses();
  crest::registerCrestPasses();

  mlir::DialectRegistry registry;
  crest::registerAllCrestDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Crest optimizer driver\n", registry));
}
