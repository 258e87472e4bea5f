//===- Serialize.cpp - gpu.module to HSA code object ----------------------===//

#include "crest/Serialize/Serialize.h"

#include "crest/Codegen/Transforms/TargetChecks.h"
#include "crest/Target/ChipTable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>
#include <optional>

using namespace crest;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

char DiagnosticsError::ID = 0;

void DiagnosticsError::log(llvm::raw_ostream &os) const { os << text; }

std::error_code DiagnosticsError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

bool crest::isSupportedCodeObjectVersion(unsigned version) {
  return version >= 4 && version <= 6;
}

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The AMDGPU target triple of every Crest code object.
static constexpr StringRef kTriple = "amdgcn-amd-amdhsa";

//===----------------------------------------------------------------------===//
// MLIR side: chip, checks, translation
//===----------------------------------------------------------------------===//

/// Runs `fn`, which reports failures as MLIR diagnostics, and turns those
/// diagnostics into a DiagnosticsError formatted like mlir-opt's (the
/// handler reads the source file for the snippet when it can).
static Error collectDiagnostics(mlir::MLIRContext *context,
                                llvm::function_ref<mlir::LogicalResult()> fn) {
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::LogicalResult result = mlir::success();
  {
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, context, os);
    result = fn();
  }
  if (mlir::succeeded(result))
    return Error::success();
  if (text.empty())
    text = "error: serialization failed\n";
  return llvm::make_error<DiagnosticsError>(std::move(text));
}

/// The chip named by the options and/or the module's #rocdl.target.
static Expected<const ChipInfo *> resolveChip(mlir::gpu::GPUModuleOp module,
                                              StringRef requested) {
  std::string fromTarget;
  if (mlir::ArrayAttr targets = module.getTargetsAttr()) {
    for (mlir::Attribute target : targets) {
      auto rocdl = llvm::dyn_cast<mlir::ROCDL::ROCDLTargetAttr>(target);
      if (!rocdl)
        continue;
      if (!fromTarget.empty() && fromTarget != rocdl.getChip())
        return makeError("gpu.module @" + module.getName() +
                         " has #rocdl.target attributes for several chips (" +
                         fromTarget + ", " + rocdl.getChip() +
                         "); name the chip to compile for");
      fromTarget = rocdl.getChip().str();
    }
  }
  StringRef name = requested.empty() ? StringRef(fromTarget) : requested;
  if (name.empty())
    return makeError("no target chip for gpu.module @" + module.getName() +
                     ": pass one (e.g. --target=gfx942) or attach a "
                     "#rocdl.target");
  if (!fromTarget.empty() && fromTarget != name)
    return makeError("gpu.module @" + module.getName() + " targets " +
                     fromTarget + " (#rocdl.target) but is compiled for " +
                     name);
  const ChipInfo *chip = lookupChip(name);
  if (!chip)
    return makeError("unknown chip '" + name +
                     "'; known chips: " + getKnownChipNames());
  return chip;
}

static void registerTranslations(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
  context.appendDialectRegistry(registry);
}

//===----------------------------------------------------------------------===//
// LLVM side: optimization and code generation
//===----------------------------------------------------------------------===//

namespace {

/// Collects the LLVM context's diagnostics instead of printing them (and,
/// for errors, exiting: LLVMContext's default handler calls exit(1)).
struct CollectingDiagnosticHandler : llvm::DiagnosticHandler {
  std::vector<std::string> errors, warnings;

  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error &&
        info.getSeverity() != llvm::DS_Warning)
      return true; // remarks and notes
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    // Backend diagnostics without a debug location print a dummy one.
    if (StringRef(text).starts_with("<unknown>:0:0: "))
      text.erase(0, strlen("<unknown>:0:0: "));
    (info.getSeverity() == llvm::DS_Error ? errors : warnings)
        .push_back(std::move(text));
    return true;
  }
};

} // namespace

static void initializeAMDGPUTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    // Inline assembly (e.g. amdgpu.lds_barrier on gfx908 and gfx90a) is
    // parsed when an object file is written.
    LLVMInitializeAMDGPUAsmParser();
  });
}

static llvm::CodeGenOptLevel getCodeGenOptLevel(unsigned level) {
  switch (level) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

static llvm::OptimizationLevel getOptimizationLevel(unsigned level) {
  switch (level) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

/// LLVM's default module pipeline at `level`, with the AMDGPU target's
/// own passes (PassBuilder asks the TargetMachine to register them).
static void optimize(llvm::Module &module, llvm::TargetMachine &targetMachine,
                     unsigned level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&targetMachine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel optLevel = getOptimizationLevel(level);
  llvm::ModulePassManager pipeline =
      optLevel == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(optLevel)
          : builder.buildPerModuleDefaultPipeline(optLevel);
  pipeline.run(module, mam);
}

static Expected<std::string> emit(llvm::Module &module,
                                  llvm::TargetMachine &targetMachine,
                                  llvm::CodeGenFileType type) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if (targetMachine.addPassesToEmitFile(passes, os, nullptr, type))
    return makeError("the AMDGPU target cannot emit this file type");
  passes.run(module);
  return std::string(buffer.str());
}

namespace {

/// One LLVM compilation: the context, module and target machine, which are
/// leaked rather than destroyed after a backend crash.
struct LLVMCompilation {
  std::unique_ptr<llvm::LLVMContext> context =
      std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> targetMachine;
  CollectingDiagnosticHandler *diagnostics = nullptr;

  void leak() {
    (void)module.release();
    (void)targetMachine.release();
    (void)context.release();
  }
};

/// What the fatal-error handler saw, for the error message.
struct FatalErrorState {
  std::string reason;
};

} // namespace

/// Called by report_fatal_error inside the crash-recovery region: records
/// the reason and jumps out of the region (so neither abort() nor exit()
/// runs).
static void recordFatalError(void *userData, const char *reason,
                             bool /*genCrashDiag*/) {
  static_cast<FatalErrorState *>(userData)->reason = reason;
  if (llvm::CrashRecoveryContext *crc =
          llvm::CrashRecoveryContext::GetCurrent())
    crc->HandleExit(1);
}

/// Serializes code generation: the fatal-error handler and crash recovery
/// are process-wide.
static std::mutex &getBackendMutex() {
  static std::mutex mutex;
  return mutex;
}

/// Optimizes `compilation.module` and generates the requested outputs.
static Error runBackend(LLVMCompilation &compilation,
                        const SerializeOptions &options, unsigned outputs,
                        SerializedModule &result) {
  llvm::Module &module = *compilation.module;
  llvm::TargetMachine &targetMachine = *compilation.targetMachine;
  optimize(module, targetMachine, options.optLevel);
  if (!compilation.diagnostics->errors.empty())
    return Error::success();
  if (outputs & EmitLLVMIR) {
    llvm::raw_string_ostream os(result.llvmIR);
    module.print(os, nullptr);
  }
  bool wantAsm = outputs & EmitAssembly, wantObject = outputs & EmitCodeObject;
  if (wantAsm) {
    // Code generation rewrites the module, so the assembly comes from a
    // copy when the object is needed too.
    std::unique_ptr<llvm::Module> copy;
    if (wantObject)
      copy = llvm::CloneModule(module);
    Expected<std::string> assembly = emit(copy ? *copy : module, targetMachine,
                                          llvm::CodeGenFileType::AssemblyFile);
    if (!assembly)
      return assembly.takeError();
    result.assembly = std::move(*assembly);
  }
  if (wantObject && compilation.diagnostics->errors.empty()) {
    Expected<std::string> object =
        emit(module, targetMachine, llvm::CodeGenFileType::ObjectFile);
    if (!object)
      return object.takeError();
    result.codeObject = std::move(*object); // relocatable; linked below
  }
  return Error::success();
}

Expected<SerializedModule>
crest::serializeGpuModule(mlir::gpu::GPUModuleOp module,
                          const SerializeOptions &options, unsigned outputs) {
  SerializedModule result;
  result.name = module.getName().str();
  if (!isSupportedCodeObjectVersion(options.codeObjectVersion))
    return makeError("unsupported code object version " +
                     llvm::Twine(options.codeObjectVersion) +
                     "; expected 4, 5 or 6");

  Expected<const ChipInfo *> chipOrErr = resolveChip(module, options.chip);
  if (!chipOrErr)
    return chipOrErr.takeError();
  const ChipInfo &chip = **chipOrErr;
  result.chip = chip.name.str();
  result.waveSize = resolveWaveSize(chip, options.waveSize);
  if (!result.waveSize)
    return makeError(chip.name + " does not support wave" +
                     llvm::Twine(options.waveSize));

  mlir::MLIRContext *context = module.getContext();
  if (options.verifyTarget) {
    if (Error error = collectDiagnostics(context, [&] {
          bool ok =
              mlir::succeeded(verifyMatrixOps(module, chip, result.waveSize));
          ok &= mlir::succeeded(verifyNoExternalCalls(module));
          return mlir::success(ok);
        }))
      return std::move(error);
  }

  // Translate to LLVM IR.
  LLVMCompilation compilation;
  auto *diagnostics = new CollectingDiagnosticHandler();
  compilation.diagnostics = diagnostics;
  compilation.context->setDiagnosticHandler(
      std::unique_ptr<llvm::DiagnosticHandler>(diagnostics));
  registerTranslations(*context);
  if (Error error = collectDiagnostics(context, [&] {
        compilation.module = mlir::translateModuleToLLVMIR(
            module, *compilation.context, module.getName());
        return mlir::success(compilation.module != nullptr);
      }))
    return std::move(error);

  initializeAMDGPUTarget();
  llvm::Triple triple(kTriple);
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return makeError("the AMDGPU LLVM target is not available: " + lookupError);
  // Wave64 on a chip that defaults to wave32 is a subtarget feature; the
  // chip table already rejected wave sizes the chip does not have.
  std::string features = result.waveSize == 64 && chip.defaultWaveSize != 64
                             ? "+wavefrontsize64"
                             : "";
  // LLVM 22 selects fptrunc(fmul) as v_fma_mix{lo,hi} with a +0 addend,
  // which turns a -0 product into +0 (llvm-project#214544, fixed after 22):
  // crest's cast rules keep the sign of zero (docs/Semantics.md), so the
  // CDNA chips go without the mix instructions (as IREE does, iree#18746;
  // on RDNA the feature cannot be turned off without an ISel failure).
  if (chip.architecture.starts_with("CDNA"))
    features += features.empty() ? "-fma-mix-insts" : ",-fma-mix-insts";
  llvm::TargetOptions targetOptions;
  targetOptions.MCOptions.AsmVerbose = true;
  compilation.targetMachine.reset(target->createTargetMachine(
      triple, chip.name, features, targetOptions, llvm::Reloc::PIC_,
      std::nullopt, getCodeGenOptLevel(options.optLevel)));
  if (!compilation.targetMachine)
    return makeError("cannot create an AMDGPU target machine for " + chip.name);
  llvm::Module &llvmModule = *compilation.module;
  llvmModule.setTargetTriple(triple);
  llvmModule.setDataLayout(compilation.targetMachine->createDataLayout());
  llvmModule.setModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                           options.codeObjectVersion * 100);

  // Optimize and generate code, recovering from backend aborts.
  std::optional<Error> backendError;
  {
    std::lock_guard<std::mutex> lock(getBackendMutex());
    if (!options.recoverFromBackendCrash) {
      backendError.emplace(runBackend(compilation, options, outputs, result));
    } else {
      FatalErrorState fatal;
      llvm::CrashRecoveryContext::Enable();
      llvm::install_fatal_error_handler(recordFatalError, &fatal);
      llvm::CrashRecoveryContext crashRecovery;
      bool completed = crashRecovery.RunSafely([&] {
        backendError.emplace(runBackend(compilation, options, outputs, result));
      });
      llvm::remove_fatal_error_handler();
      llvm::CrashRecoveryContext::Disable();
      if (!completed) {
        if (backendError)
          llvm::consumeError(std::move(*backendError));
        compilation.leak();
        std::string reason = fatal.reason.empty()
                                 ? "the process received a fatal signal"
                                 : "LLVM ERROR: " + fatal.reason;
        return makeError(
            "the LLVM AMDGPU backend failed on gpu.module @" + result.name +
            " for " + chip.name + " (" + reason +
            "); Crest's chip-table checks should have rejected this input: "
            "please report it");
      }
    }
  }
  if (*backendError)
    return std::move(*backendError);
  result.warnings = diagnostics->warnings;
  if (!diagnostics->errors.empty()) {
    std::string message = "the LLVM AMDGPU backend rejected gpu.module @" +
                          result.name + " for " + chip.name.str() + ":";
    for (const std::string &error : diagnostics->errors)
      message += "\n  " + error;
    return makeError(message);
  }

  if ((outputs & EmitCodeObject) && options.link) {
    Expected<std::string> linked = linkCodeObject(result.codeObject);
    if (!linked)
      return linked.takeError();
    result.codeObject = std::move(*linked);
  }
  return result;
}
