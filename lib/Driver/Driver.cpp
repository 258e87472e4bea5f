//===- Driver.cpp - Crest's compile path ----------------------------------===//
//
// See crest/Driver/Driver.h.
//
//===----------------------------------------------------------------------===//

#include "crest/Driver/Driver.h"

#include "crest/Conversion/Passes.h"
#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Host/HostPlanner.h"
#include "crest/Import/OnnxImport.h"
#include "crest/Pipelines/Pipelines.h"
#include "crest/Precision/PrecisionPlan.h"
#include "crest/Support/Limits.h"
#include "crest/Target/ChipTable.h"
#include "crest/Tune/EmulatorMeasurer.h"
#include "crest/Tune/TuningReport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using namespace crest;

namespace {
/// Reports to the caller's handler.
class Reporter {
public:
  explicit Reporter(const DriverMessageHandler &handler) : handler(handler) {}

  mlir::LogicalResult fail(const Twine &message) {
    report(DriverMessage::Kind::Driver, mlir::DiagnosticSeverity::Error,
           message.str());
    return mlir::failure();
  }
  /// An error of the Serialize library.
  mlir::LogicalResult fail(Error error) {
    handleAllErrors(
        std::move(error),
        [&](const DiagnosticsError &diagnostics) {
          report(DriverMessage::Kind::Formatted,
                 mlir::DiagnosticSeverity::Error, diagnostics.getText().str());
        },
        [&](const ErrorInfoBase &other) { (void)fail(other.message()); });
    return mlir::failure();
  }
  void warn(const Twine &message) {
    report(DriverMessage::Kind::Driver, mlir::DiagnosticSeverity::Warning,
           message.str());
  }
  void report(DriverMessage::Kind kind, mlir::DiagnosticSeverity severity,
              std::string message, std::string location = "") {
    if (handler)
      handler({kind, severity, std::move(location), std::move(message)});
  }

private:
  const DriverMessageHandler &handler;
};
} // namespace

/// Crest's tensor-size limit (kMaxTensorElements) on every tensor the graph
/// names, before anything expands one: a splat constant of 2^36 elements
/// would otherwise become 256 GiB of package weights.
static LogicalResult checkTensorSizes(mlir::ModuleOp module) {
  auto check = [](mlir::Type type, mlir::Location loc) -> LogicalResult {
    auto tensor = dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        checkedProduct(tensor.getShape(), kMaxTensorElements))
      return success();
    return mlir::emitError(loc)
           << tensor << " has more than " << kMaxTensorElements
           << " elements (Crest's tensor-size limit)";
  };
  mlir::WalkResult result = module.walk<mlir::WalkOrder::PreOrder>(
      [&](mlir::Operation *op) {
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (failed(check(arg.getType(), arg.getLoc())))
            return mlir::WalkResult::interrupt();
    for (mlir::Type type : op->getResultTypes())
      if (failed(check(type, op->getLoc())))
        return mlir::WalkResult::interrupt();
    return mlir::WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Plans the host code into package bytes.
static FailureOr<std::vector<uint8_t>>
buildPackageBytes(mlir::ModuleOp module, ArrayRef<SerializedModule> serialized,
                  ArrayRef<KernelReport> reports, StringRef chip,
                  unsigned codeObjectVersion, unsigned waveSize,
                  const std::optional<json::Value> &precisionPlan,
                  Reporter &reporter) {
  // The modelled times of the tuned kernels.
  StringMap<double> modelled;
  for (const TuningRow &row : collectTuningRows(module))
    if (row.record)
      modelled[row.kernel] = row.record->getChosen().microseconds;
  SmallVector<CompiledKernelModule> compiled;
  for (const SerializedModule &result : serialized) {
    CompiledKernelModule &entry = compiled.emplace_back();
    entry.name = result.name;
    entry.codeObject = result.codeObject;
    for (const KernelReport &row : reports) {
      if (row.module != result.name)
        continue;
      pkg::KernelInfo &info = entry.kernels[row.resources.name];
      info.vgprs = row.resources.vgprCount;
      info.agprs = row.resources.agprCount;
      info.sgprs = row.resources.sgprCount;
      info.vgprSpills = row.resources.vgprSpillCount;
      info.sgprSpills = row.resources.sgprSpillCount;
      info.ldsBytes = row.resources.groupSegmentFixedSize;
      info.scratchBytes = row.resources.privateSegmentFixedSize;
      info.wavesPerSimd = row.occupancy.wavesPerSimd;
      info.mfmaCount = row.counts.matrix;
      info.barrierCount = row.counts.barriers;
      auto it = modelled.find(row.resources.name);
      if (it != modelled.end())
        info.modelledUs = it->second;
    }
  }
  HostPlanOptions options;
  options.chip = chip.str();
  options.codeObjectVersion = codeObjectVersion;
  options.waveSize = waveSize;
  mlir::FailureOr<pkg::Package> package =
      buildPackage(module, compiled, options);
  if (failed(package))
    return failure();
  package->manifest.precisionPlan = precisionPlan;
  Expected<std::vector<uint8_t>> bytes = pkg::writePackage(*package);
  if (!bytes) {
    (void)reporter.fail("cannot write the package: " +
                        toString(bytes.takeError()));
    return failure();
  }
  return std::move(*bytes);
}

/// The name of the node an ONNX diagnostic is located at, if any.
static std::string getOnnxNode(mlir::Location location) {
  std::string node;
  location->walk([&](mlir::Location loc) {
    if (auto name = dyn_cast<mlir::NameLoc>(loc))
      node = name.getName().str();
    return node.empty() ? mlir::WalkResult::advance()
                        : mlir::WalkResult::interrupt();
  });
  return node;
}

LogicalResult crest::checkCompileOptions(const CompileOptions &opts,
                                         const DriverMessageHandler &onMessage) {
  Reporter reporter(onMessage);
  if (!isSupportedCodeObjectVersion(opts.codeObjectVersion))
    return reporter.fail("unsupported code object version " +
                         Twine(opts.codeObjectVersion) +
                         "; expected 4, 5 or 6");
  if (opts.indexBitwidth != 32 && opts.indexBitwidth != 64)
    return reporter.fail("--index-bitwidth must be 32 or 64");
  if (opts.optLevel > 3)
    return reporter.fail("--opt-level must be 0, 1, 2 or 3");
  if (opts.tune && opts.tuneCandidates == 0)
    return reporter.fail("--tune-candidates must be at least 1");
  if (opts.tune && opts.skipLowering)
    return reporter.fail("--tune chooses configurations in the code "
                         "generation passes, which --skip-lowering skips");
  return success();
}

FailureOr<CompileResult>
crest::compile(mlir::MLIRContext &context, SourceMgr &sourceMgr,
               std::unique_ptr<MemoryBuffer> input,
               const CompileOptions &opts,
               const DriverMessageHandler &onMessage) {
  if (failed(checkCompileOptions(opts, onMessage)))
    return failure();
  Reporter reporter(onMessage);
  std::string inputName = opts.inputName.empty()
                              ? input->getBufferIdentifier().str()
                              : opts.inputName;
  bool isOnnx = opts.format == InputFormat::ONNX ||
                (opts.format == InputFormat::Auto &&
                 StringRef(inputName).ends_with(".onnx"));
  if (!isOnnx && (!opts.onnxDims.empty() || !opts.onnxConstantInputs.empty()))
    return reporter.fail("--onnx-dims and --onnx-bind-input apply to ONNX "
                         "inputs only");
  // ONNX files have no lines: name the node instead. Every op the importer
  // creates is located at `NameLoc(node, file:0:0)`.
  std::optional<mlir::ScopedDiagnosticHandler> onnxDiagnostics;
  if (isOnnx)
    onnxDiagnostics.emplace(&context, [&](mlir::Diagnostic &diag) {
      std::string node = getOnnxNode(diag.getLocation());
      std::string location;
      if (auto fileLoc =
              diag.getLocation()->findInstanceOf<mlir::FileLineColLoc>())
        location = fileLoc.getFilename().str();
      if (!node.empty())
        location += (location.empty() ? "" : ": ") + ("node '" + node + "'");
      std::string message;
      raw_string_ostream os(message);
      os << diag;
      reporter.report(DriverMessage::Kind::Diagnostic, diag.getSeverity(),
                      std::move(message), std::move(location));
      return success();
    });

  // --precision=fp8: the model is imported in f32 and the precision
  // planner (lib/Precision) chooses each contraction's types.
  bool planned = opts.precision == "fp8" || opts.precision == "auto";
  if (!planned && (!opts.calibrationDir.empty() || opts.perChannelWeights ||
                   !opts.precisionPlanPath.empty()))
    return reporter.fail("--calibration, --fp8-per-channel and "
                         "--precision-plan apply to --precision=fp8 only");
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (isOnnx) {
    OnnxImportOptions onnx;
    if (!opts.precision.empty() && !planned) {
      std::optional<MatrixPrecision> precision =
          parseMatrixPrecision(opts.precision);
      if (!precision)
        return reporter.fail("--precision must be f32, f16, bf16, fp8 or "
                             "auto, got '" +
                             opts.precision + "'");
      onnx.precision = *precision;
    }
    if (!parseDimBindings(opts.onnxDims, onnx.dimBindings))
      return reporter.fail("--onnx-dims expects name=size[,name=size...] "
                           "with positive sizes, got '" +
                           opts.onnxDims + "'");
    for (const auto &entry : opts.onnxConstantInputs)
      onnx.constantInputs[entry.getKey()] = entry.getValue();
    StringRef bytes = input->getBuffer();
    module = importOnnxModel(bytes, inputName, &context, onnx);
    sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  } else {
    // Deep nesting would overflow the stack of MLIR's recursive parser.
    if (Error e = checkMlirNesting(input->getBuffer(), inputName)) {
      reporter.report(DriverMessage::Kind::Formatted,
                      mlir::DiagnosticSeverity::Error,
                      toString(std::move(e)) + "\n");
      return failure();
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return failure();
  if (failed(checkTensorSizes(*module)))
    return failure();

  // TOSA and linalg graphs become crest graphs first; --precision applies
  // to their contractions as it does to ONNX's. A crest graph states its
  // precision on each op.
  if (!isOnnx) {
    bool frontEnd = hasFrontEndOps(*module);
    if (!frontEnd && !opts.precision.empty())
      return reporter.fail("--precision applies to ONNX, TOSA and linalg "
                           "inputs; a crest graph states its precision on "
                           "each op");
    if (frontEnd) {
      // fp8 and auto: the graph's own types, then the planner.
      if (!planned && !opts.precision.empty() &&
          !parseMatrixPrecision(opts.precision))
        return reporter.fail("--precision must be f32, f16, bf16, fp8 or "
                             "auto, got '" +
                             opts.precision + "'");
      mlir::PassManager pm(&context);
      buildFrontEndConversionPipeline(pm, planned ? "" : opts.precision);
      if (failed(pm.run(*module)))
        return failure();
    }
  }

  // The chip: CompileOptions::chip, else the module's #crest.target.
  std::string chipName = opts.chip;
  if (chipName.empty()) {
    if (TargetAttr target = lookupTarget(module->getOperation()))
      chipName = target.getChip().str();
    else
      return reporter.fail("no target chip: pass --target=<chip> (" +
                           getKnownChipNames() + ")");
  }
  const ChipInfo *chip = lookupChip(chipName);
  if (!chip)
    return reporter.fail("unknown chip '" + chipName +
                         "'; known chips: " + getKnownChipNames());
  CompileResult result;
  result.chip = chip->name;
  result.waveSize = resolveWaveSize(*chip, opts.waveSize);
  result.codeObjectVersion = opts.codeObjectVersion;
  if (!result.waveSize)
    return reporter.fail(chip->name + " does not support wave" +
                         Twine(opts.waveSize));

  if (planned) {
    PrecisionRequest request;
    request.mode = opts.precision;
    request.calibrationDir = opts.calibrationDir;
    request.marginBits = opts.fp8MarginBits;
    request.perChannelWeights = opts.perChannelWeights;
    request.planPath = opts.precisionPlanPath;
    request.budget = opts.precisionBudget;
    request.holdoutDir = opts.holdoutDir;
    mlir::FailureOr<PrecisionPlan> plan =
        planPrecision(*module, *chip, request);
    if (failed(plan))
      return failure();
    result.precisionPlan = plan->toJson();
    result.precisionBudgetMissed = plan->budgetMissed;
    raw_string_ostream os(result.precisionReport);
    printPlan(os, *plan);
  }

  mlir::TimingScope noTiming;
  mlir::TimingScope &rootTiming = opts.timing ? *opts.timing : noTiming;

  // --tune: the emulator measures for crest-select-config, through a cache.
  std::shared_ptr<EmulatorMeasurer> measurer;
  if (opts.tune) {
    EmulatorMeasurerOptions tuning;
    tuning.codeObjectVersion = opts.codeObjectVersion;
    tuning.indexBitwidth = opts.indexBitwidth;
    tuning.optLevel = opts.optLevel;
    tuning.cachePath = opts.tuneCachePath;
    tuning.restoreCommandLine = opts.restoreCommandLine;
    measurer = std::make_shared<EmulatorMeasurer>(tuning);
    if (std::optional<std::string> warning = measurer->loadCache())
      reporter.warn(*warning);
  }

  if (!opts.skipLowering) {
    mlir::PassManager pm(&context);
    if (opts.configurePassManager && failed(opts.configurePassManager(pm)))
      return failure();
    mlir::TimingScope loweringTiming = rootTiming.nest("lowering");
    if (opts.timing)
      pm.enableTiming(loweringTiming);
    CrestCodegenOptions codegen;
    codegen.chip = chipName;
    codegen.waveSize = opts.waveSize;
    codegen.indexBitwidth = opts.indexBitwidth;
    codegen.codeObjectVersion = opts.codeObjectVersion;
    codegen.tune = opts.tune;
    codegen.tuneCandidates = opts.tuneCandidates;
    codegen.testingDropBarrier = opts.dropBarrier;
    codegen.fusionRemarks = opts.fusionRemarks;
    codegen.fuseAttention = opts.fuseAttention;
    codegen.fusePrologues = opts.fusePrologues;
    codegen.fuseRows = opts.fuseRows;
    buildCrestCodegenPipeline(pm, codegen, measurer);
    bool lowered = succeeded(pm.run(*module));
    // What was measured stays measured, even when a later pass fails.
    if (measurer)
      if (Error error = measurer->saveCache())
        reporter.warn(toString(std::move(error)));
    if (!lowered)
      return failure();
  }

  if (opts.emit == EmitKind::MLIR) {
    raw_string_ostream os(result.mlir);
    module->print(os);
    // As crest-opt prints it, so that the two compare byte for byte.
    os << "\n";
    if (!opts.report)
      return result;
  }

  SmallVector<mlir::gpu::GPUModuleOp> gpuModules(
      module->getOps<mlir::gpu::GPUModuleOp>());
  // A package of a graph without kernels fails in the planner, at the ops
  // that have none.
  if (gpuModules.empty() && opts.emit != EmitKind::Package)
    return reporter.fail("the input has no gpu.module to compile");

  unsigned outputs = 0;
  switch (opts.emit) {
  case EmitKind::MLIR:
    break;
  case EmitKind::LLVM:
    outputs |= EmitLLVMIR;
    break;
  case EmitKind::Assembly:
    outputs |= EmitAssembly;
    break;
  case EmitKind::CodeObject:
    outputs |= EmitCodeObject;
    break;
  case EmitKind::Package:
    // The assembly gives the kernel infos' instruction counts.
    outputs |= EmitAssembly | EmitCodeObject;
    break;
  }
  if (opts.report)
    outputs |= EmitAssembly | EmitCodeObject;

  SerializeOptions options;
  options.chip = chipName;
  options.waveSize = opts.waveSize;
  options.codeObjectVersion = opts.codeObjectVersion;
  options.optLevel = opts.optLevel;
  options.verifyTarget = opts.targetChecks;
  // All code generation first, then linking: lld resets LLVM's options
  // (see linkCodeObject).
  options.link = false;
  {
    mlir::TimingScope serializeTiming = rootTiming.nest("serialize");
    for (mlir::gpu::GPUModuleOp gpuModule : gpuModules) {
      mlir::TimingScope moduleTiming =
          serializeTiming.nest(("@" + gpuModule.getName()).str());
      Expected<SerializedModule> serialized =
          serializeGpuModule(gpuModule, options, outputs);
      if (!serialized)
        return reporter.fail(serialized.takeError());
      for (const std::string &warning : serialized->warnings)
        reporter.warn(warning);
      result.modules.push_back(std::move(*serialized));
    }
    if (outputs & EmitCodeObject) {
      mlir::TimingScope linkTiming = serializeTiming.nest("link");
      for (SerializedModule &serialized : result.modules) {
        Expected<std::string> linked = linkCodeObject(serialized.codeObject);
        if (!linked)
          return reporter.fail(linked.takeError());
        serialized.codeObject = std::move(*linked);
      }
    }
  }

  if (opts.emit == EmitKind::LLVM || opts.emit == EmitKind::Assembly) {
    for (const SerializedModule &serialized : result.modules) {
      result.text += "; gpu.module @" + serialized.name + "\n";
      result.text += opts.emit == EmitKind::LLVM ? serialized.llvmIR
                                                 : serialized.assembly;
    }
  }

  if (opts.report || opts.emit == EmitKind::Package) {
    for (const SerializedModule &serialized : result.modules) {
      Expected<std::vector<KernelReport>> kernels =
          buildKernelReports(serialized.name, serialized.codeObject,
                             serialized.assembly, *chip, serialized.waveSize);
      if (!kernels)
        return reporter.fail(kernels.takeError());
      llvm::append_range(result.kernels, *kernels);
    }
  }

  if (opts.emit == EmitKind::Package) {
    FailureOr<std::vector<uint8_t>> bytes = buildPackageBytes(
        *module, result.modules, result.kernels, chip->name,
        opts.codeObjectVersion, result.waveSize, result.precisionPlan,
        reporter);
    if (failed(bytes))
      return failure();
    result.package = std::move(*bytes);
  }

  if (opts.report) {
    raw_string_ostream os(result.report);
    printKernelReports(os, result.kernels, *chip, result.waveSize,
                       opts.codeObjectVersion);
    if (measurer) {
      os << "\ncrest-compile tuning: " << chip->name;
      if (chip->timing)
        os << ", up to " << opts.tuneCandidates
           << " candidates per contraction under the timing model, cache "
           << (measurer->getCachePath().empty() ? StringRef("none")
                                                : measurer->getCachePath())
           << "\n";
      else
        os << " has no timing model; the heuristic's choices stay\n";
      printTuningReport(os, collectTuningRows(*module));
    }
  }
  return result;
}
