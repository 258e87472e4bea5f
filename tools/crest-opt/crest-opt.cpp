//===- crest-opt.cpp - Crest's MLIR optimizer driver
//-------------------------===//
//
// The opt-style tool: parses MLIR with the crest dialect and every upstream
// dialect Crest lowers through, runs passes and pipelines, and prints the
// result. All MlirOptMain flags work (--pass-pipeline, --split-input-file,
// --verify-diagnostics, --mlir-print-ir-after-all, --mlir-timing, ...).
// Before MLIR's recursive parser sees the input, its nesting is checked
// against Crest's limit (crest/Support/Limits.h), so that deeply nested
// text is an error instead of a stack overflow.
//
//===----------------------------------------------------------------------===//

#include "crest/InitCrest.h"
#include "crest/Support/Limits.h"
#include "crest/ToolVersion.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  mlir::registerAllPasses();
  crest::registerCrestPasses();

  mlir::DialectRegistry registry;
  crest::registerAllCrestDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Crest optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // What MlirOptMain(argc, argv, ...) does, with the nesting check between
  // reading the input and parsing it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
      crest::readBoundedFile(inputFilename);
  if (!read) {
    llvm::errs() << "crest-opt: error: " << llvm::toString(read.takeError())
                 << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input = std::move(*read);
  if (llvm::Error e = crest::checkMlirNesting(input->getBuffer(),
                                              input->getBufferIdentifier())) {
    llvm::errs() << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &message);
  if (!output) {
    llvm::errs() << message << "\n";
    return 1;
  }
  bool ok = mlir::succeeded(
      mlir::MlirOptMain(output->os(), std::move(input), registry, config));
  // A write error (/dev/full, a closed stdout) is a diagnostic, not
  // raw_fd_ostream's fatal error when the stream is destroyed.
  if (llvm::Error e = crest::checkOutputStream(output->os(), outputFilename)) {
    llvm::errs() << "crest-opt: error: " << llvm::toString(std::move(e))
                 << "\n";
    return 1;
  }
  if (!ok)
    return 1;
  output->keep();
  return crest::finishStdout("crest-opt", 0);
}
