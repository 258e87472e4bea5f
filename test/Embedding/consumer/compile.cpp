//===- compile.cpp - Crest's compiler from an installed Crest -------------===//
//
//   crest-consumer-compile GRAPH.mlir CHIP
//
// compiles the crest graph GRAPH.mlir for CHIP in process with the libraries
// of Crest::Compiler: crest-codegen-pipeline builds the gpu.module kernels,
// the serializer turns each into a linked HSA code object, and the
// code-object reader lists its kernels and their resources.
//
//===----------------------------------------------------------------------===//

#include "crest/Format/CodeObject.h"
#include "crest/InitCrest.h"
#include "crest/Pipelines/Pipelines.h"
#include "crest/Serialize/Serialize.h"
#include "crest/Target/ChipTable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: crest-consumer-compile GRAPH.mlir CHIP\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  crest::registerAllCrestDialects(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  crest::CrestCodegenOptions options;
  options.chip = argv[2];
  crest::buildCrestCodegenPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;

  crest::SerializeOptions serializeOptions;
  serializeOptions.chip = argv[2];
  for (mlir::gpu::GPUModuleOp gpuModule :
       module->getOps<mlir::gpu::GPUModuleOp>()) {
    llvm::Expected<crest::SerializedModule> serialized =
        crest::serializeGpuModule(gpuModule, serializeOptions,
                                  crest::EmitCodeObject);
    if (!serialized) {
      llvm::errs() << llvm::toString(serialized.takeError()) << "\n";
      return 1;
    }
    const std::string &bytes = serialized->codeObject;
    llvm::Expected<crest::hsa::CodeObject> codeObject =
        crest::hsa::CodeObject::load(
            llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size()),
            serialized->name);
    if (!codeObject) {
      llvm::errs() << llvm::toString(codeObject.takeError()) << "\n";
      return 1;
    }
    llvm::outs() << "gpu.module @" << serialized->name << ": a code object "
                 << "for " << codeObject->getChip().name << ", v"
                 << codeObject->getCodeObjectVersion() << "\n";
    for (const crest::hsa::Kernel &kernel : codeObject->getKernels())
      llvm::outs() << "  kernel " << kernel.name << ": " << kernel.vgprCount
                   << " VGPRs, " << kernel.agprCount << " AGPRs, "
                   << kernel.groupSegmentFixedSize << " bytes of LDS\n";
  }
  return 0;
}
