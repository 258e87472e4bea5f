//===- crest-translate.cpp - Crest's translations -------------------------===//
//
// mlir-translate with Crest's importers:
//   crest-translate --import-onnx model.onnx [--onnx-precision=f16]
//                   [--onnx-dims=batch=1] -o model.mlir
// See docs/Onnx.md.
//
// What mlirTranslateMain does for one input, with Crest's limits: the input
// is read through the bounded reader (crest/Support/Limits.h), and a write
// error on the output (/dev/full, a closed stdout) is a diagnostic instead
// of raw_fd_ostream's fatal error.
//
//===----------------------------------------------------------------------===//

#include "crest/Import/OnnxImport.h"
#include "crest/Support/Limits.h"
#include "crest/ToolVersion.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input file>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  crest::registerOnnxImportTranslation();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerTranslationCLOptions();
  cl::opt<const mlir::Translation *, false, mlir::TranslationParser>
      translation("", cl::desc("Translation to perform"), cl::Required);
  cl::ParseCommandLineOptions(argc, argv, "Crest translation tool\n");

  Expected<std::unique_ptr<MemoryBuffer>> read =
      crest::readBoundedFile(inputFilename);
  if (!read) {
    errs() << "crest-translate: error: " << toString(read.takeError())
           << "\n";
    return 1;
  }
  std::string message;
  std::unique_ptr<ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &message);
  if (!output) {
    errs() << "crest-translate: error: " << message << "\n";
    return 1;
  }

  mlir::MLIRContext context;
  auto sourceMgr = std::make_shared<SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(*read), SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  bool ok = mlir::succeeded((*translation)(sourceMgr, output->os(), &context));
  if (Error e = crest::checkOutputStream(output->os(), outputFilename)) {
    errs() << "crest-translate: error: " << toString(std::move(e)) << "\n";
    return 1;
  }
  if (!ok)
    return 1;
  output->keep();
  return crest::finishStdout("crest-translate", 0);
}
