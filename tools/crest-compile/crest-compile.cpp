//===- crest-compile.cpp - Crest's compiler driver ------------------------===//
//
//   crest-compile in.mlir|model.onnx --target=gfx942
//                 [--emit=mlir|llvm|asm|hsaco|package]
//                 [--code-object-version=4|5|6] [-o out] [--report]
//                 [--tune [--tune-candidates=N] [--tune-cache=PATH|none]]
//
// Runs crest-codegen-pipeline (crest/Pipelines/Pipelines.h: the kernel code
// generation, then crest-gpu-to-rocdl, which lowers every gpu.module to the
// LLVM and ROCDL dialects) and serializes each gpu.module in process
// (crest::serializeGpuModule). `crest-opt --pass-pipeline=
// 'builtin.module(crest-codegen-pipeline{chip=...})'` prints what
// --emit=mlir does. See docs/Compiling.md.
//
// Outputs:
//   --emit=mlir   the module after lowering, to -o (default: stdout)
//   --emit=llvm   optimized LLVM IR of each gpu.module, to -o (stdout)
//   --emit=asm    AMDGPU assembly of each gpu.module, to -o (stdout)
//   --emit=hsaco  (default) one HSA code object per gpu.module:
//                   one gpu.module:    -o PATH (default: <input stem>.hsaco;
//                                      `-o -` writes to stdout)
//                   several:           -o DIR (an existing directory) gives
//                                      DIR/<module>.hsaco; otherwise
//                                      <-o without .hsaco>.<module>.hsaco
//   --emit=package  the .crest package of the graph (docs/Package.md): the
//                 host function's launches, buffers, weights and reference
//                 graph, with every code object; -o PATH (default:
//                 <input stem>.crest). The default when -o ends in ".crest".
// An .onnx input (or --input-format=onnx) is imported first (docs/Onnx.md);
// --precision, --onnx-dims and --onnx-bind-input apply to it.
// Text outputs start each gpu.module with a "; gpu.module @name" line.
// --report prints a table of every kernel's resources to stdout, after the
// output.
// --tune measures the best candidate configurations of every contraction
// under the emulator's timing model and keeps the fastest
// (crest::EmulatorMeasurer, lib/Tune); the measurements are cached in
// --tune-cache; --report then also prints what tuning chose, and packages
// record each tuned kernel's modelled time.
//
// Errors (unknown chip, unreadable input, unsupported code object version,
// a matrix instruction the chip lacks, ...) are diagnostics; the exit code
// is then 1.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Host/HostPlanner.h"
#include "crest/Import/OnnxImport.h"
#include "crest/InitCrest.h"
#include "crest/Pipelines/Pipelines.h"
#include "crest/Serialize/KernelReport.h"
#include "crest/Serialize/Serialize.h"
#include "crest/Support/Limits.h"
#include "crest/Target/ChipTable.h"
#include "crest/ToolVersion.h"
#include "crest/Tune/EmulatorMeasurer.h"
#include "crest/Tune/TuningReport.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest;

namespace {
enum class EmitKind { MLIR, LLVM, Assembly, CodeObject, Package };
} // namespace

static cl::OptionCategory category("crest-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input.mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    outputFilename("o",
                   cl::desc("Output file; with --emit=hsaco and several "
                            "gpu.modules, a directory or a name prefix"),
                   cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    targetChip("target",
               cl::desc("Target chip (default: the module's #crest.target)"),
               cl::value_desc("chip"), cl::cat(category));
static cl::opt<EmitKind>
    emitKind("emit", cl::desc("What to produce"),
             cl::init(EmitKind::CodeObject),
             cl::values(clEnumValN(EmitKind::MLIR, "mlir",
                                   "The module after lowering to ROCDL"),
                        clEnumValN(EmitKind::LLVM, "llvm",
                                   "Optimized LLVM IR per gpu.module"),
                        clEnumValN(EmitKind::Assembly, "asm",
                                   "AMDGPU assembly per gpu.module"),
                        clEnumValN(EmitKind::CodeObject, "hsaco",
                                   "An HSA code object per gpu.module"),
                        clEnumValN(EmitKind::Package, "package",
                                   "A .crest package of the graph (default "
                                   "when -o ends in .crest)")),
             cl::cat(category));
static cl::opt<unsigned>
    codeObjectVersion("code-object-version",
                      cl::desc("HSA code object version: 4, 5 (default) or 6"),
                      cl::init(kDefaultCodeObjectVersion), cl::cat(category));
static cl::opt<unsigned>
    waveSize("wave-size", cl::desc("Wave size, 32 or 64 (default: the chip's)"),
             cl::init(0), cl::cat(category));
static cl::opt<unsigned>
    indexBitwidth("index-bitwidth",
                  cl::desc("Bit width of `index` in device code (32 or 64)"),
                  cl::init(64), cl::cat(category));
static cl::opt<unsigned>
    optLevel("opt-level", cl::desc("LLVM optimization level, 0-3 (default 3)"),
             cl::init(3), cl::cat(category));
static cl::opt<bool> report("report",
                            cl::desc("Print every kernel's registers, LDS, "
                                     "scratch, spills, occupancy and "
                                     "MFMA/barrier counts"),
                            cl::cat(category));
static cl::opt<bool> fusionRemarks(
    "crest-fusion-remarks",
    cl::desc("Remark on every elementwise op crest-fuse-epilogues refuses "
             "to fuse into a contraction's epilogue, saying why"),
    cl::cat(category));
static cl::opt<bool>
    tune("tune",
         cl::desc("Measure the best candidate configurations of every "
                  "contraction under the emulator's timing model and keep "
                  "the fastest"),
         cl::cat(category));
static cl::opt<unsigned>
    tuneCandidates("tune-candidates",
                   cl::desc("Candidates --tune measures per contraction "
                            "(default 4)"),
                   cl::init(4), cl::cat(category));
static cl::opt<std::string>
    tuneCache("tune-cache",
              cl::desc("--tune's cache of measurements, or 'none' (default: "
                       "$XDG_CACHE_HOME/crest/tune-v1.json or "
                       "~/.cache/crest/tune-v1.json)"),
              cl::value_desc("path|none"), cl::cat(category));
static cl::opt<bool> skipLowering(
    "skip-lowering",
    cl::desc("The gpu.modules are already in the LLVM and ROCDL dialects: "
             "only serialize them"),
    cl::cat(category));
// For tests that prove the barriers necessary: drop the N-th barrier
// crest-insert-barriers would place (and skip crest-verify-barriers).
static cl::opt<unsigned> testingDropBarrier(
    "testing-drop-barrier",
    cl::desc("Drop the N-th barrier the barrier pass places (testing only)"),
    cl::init(0), cl::Hidden, cl::cat(category));
// For tests of the serializer's crash recovery only.
static cl::opt<bool>
    noTargetChecks("no-target-checks",
                   cl::desc("Skip the chip-table checks (testing only)"),
                   cl::Hidden, cl::cat(category));

namespace {
enum class InputFormat { Auto, MLIR, ONNX };
} // namespace

static cl::opt<InputFormat> inputFormat(
    "input-format", cl::desc("How to read the input"),
    cl::init(InputFormat::Auto),
    cl::values(clEnumValN(InputFormat::Auto, "auto",
                          "ONNX for a .onnx file, else MLIR (default)"),
               clEnumValN(InputFormat::MLIR, "mlir", "MLIR text or bytecode"),
               clEnumValN(InputFormat::ONNX, "onnx",
                          "An ONNX model (protobuf)")),
    cl::cat(category));
static cl::opt<std::string> precisionFlag(
    "precision",
    cl::desc("ONNX input: element type Conv/Gemm/MatMul read, f32 "
             "(default), f16 or bf16; they accumulate in f32"),
    cl::value_desc("type"), cl::cat(category));
static cl::opt<std::string> onnxDims(
    "onnx-dims",
    cl::desc("ONNX input: sizes of symbolic input dimensions, "
             "name=size[,name=size...]"),
    cl::value_desc("bindings"), cl::cat(category));
static cl::list<std::string> onnxBindInputs(
    "onnx-bind-input",
    cl::desc("ONNX input: compile a graph input as a constant, "
             "name=tensor.pb (repeatable)"),
    cl::value_desc("name=file"), cl::cat(category));

/// The options, copied once parsed: linking with the in-process lld resets
/// every LLVM command-line option to its default (see linkCodeObject).
struct DriverOptions {
  std::string input, output, chip;
  EmitKind emit;
  unsigned codeObjectVersion, waveSize, indexBitwidth, optLevel;
  bool report, skipLowering, targetChecks;
  unsigned dropBarrier;
  bool fusionRemarks;
  InputFormat format;
  std::string precision, onnxDims;
  std::vector<std::string> onnxBindInputs;
  bool tune;
  unsigned tuneCandidates;
  std::string tuneCache;
  bool tuneOptionsGiven; ///< --tune-candidates or --tune-cache
};

static DriverOptions copyOptions() {
  EmitKind emit = emitKind;
  // -o model.crest means a package unless --emit says otherwise.
  if (!emitKind.getNumOccurrences() &&
      StringRef(outputFilename).ends_with(".crest"))
    emit = EmitKind::Package;
  return {
      inputFilename,
      outputFilename,
      targetChip,
      emit,
      codeObjectVersion,
      waveSize,
      indexBitwidth,
      optLevel,
      report,
      skipLowering,
      !noTargetChecks,
      testingDropBarrier,
      fusionRemarks,
      inputFormat,
      precisionFlag,
      onnxDims,
      std::vector<std::string>(onnxBindInputs.begin(), onnxBindInputs.end()),
      tune,
      tuneCandidates,
      tuneCache,
      tuneCandidates.getNumOccurrences() || tuneCache.getNumOccurrences()};
}

static int fail(const Twine &message) {
  WithColor::error(errs(), "crest-compile") << message << "\n";
  return 1;
}

/// Prints an error from the Serialize library.
static int fail(Error error) {
  handleAllErrors(
      std::move(error),
      [](const DiagnosticsError &diagnostics) {
        errs() << diagnostics.getText();
      },
      [](const ErrorInfoBase &other) { (void)fail(other.message()); });
  return 1;
}

/// The code object paths for `modules` (see the file comment).
static Expected<SmallVector<std::string>>
getCodeObjectPaths(const DriverOptions &opts,
                   ArrayRef<SerializedModule> modules) {
  SmallVector<std::string> paths;
  std::string base = opts.output;
  if (base.empty()) {
    if (opts.input == "-")
      return createStringError(inconvertibleErrorCode(),
                               "--emit=hsaco needs -o when the input is "
                               "stdin");
    base = sys::path::stem(opts.input).str() + ".hsaco";
  }
  if (modules.size() == 1) {
    paths.push_back(base);
    return paths;
  }
  if (base == "-")
    return createStringError(inconvertibleErrorCode(),
                             "cannot write several code objects to stdout");
  bool isDirectory = sys::fs::is_directory(base);
  StringRef prefix = base;
  if (!isDirectory)
    prefix.consume_back(".hsaco");
  for (const SerializedModule &module : modules) {
    SmallString<128> path;
    if (isDirectory) {
      path = base;
      sys::path::append(path, module.name + ".hsaco");
    } else {
      path = (prefix + "." + module.name + ".hsaco").str();
    }
    paths.push_back(std::string(path));
  }
  return paths;
}

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

static LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string message;
  std::unique_ptr<ToolOutputFile> file = mlir::openOutputFile(path, &message);
  if (!file) {
    (void)fail(message);
    return failure();
  }
  file->os() << contents;
  if (Error e = checkOutputStream(file->os(), path)) {
    (void)fail(toString(std::move(e)));
    return failure();
  }
  file->keep();
  return success();
}

/// Plans the host code into a package and writes it to `path` ("-":
/// stdout).
static LogicalResult
writePackage(mlir::ModuleOp module, ArrayRef<SerializedModule> serialized,
             ArrayRef<KernelReport> reports, StringRef path, StringRef chip,
             unsigned codeObjectVersion, unsigned waveSize) {
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
  Expected<std::vector<uint8_t>> bytes = pkg::writePackage(*package);
  if (!bytes) {
    (void)fail("cannot write the package: " + toString(bytes.takeError()));
    return failure();
  }
  return writeFile(
      path,
      StringRef(reinterpret_cast<const char *>(bytes->data()), bytes->size()));
}

static int run(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  crest::setToolVersionPrinter();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  registerCrestPasses(); // includes crest-gpu-to-rocdl
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "crest-compile: gpu.module kernels -> HSA code objects (see "
      "docs/Compiling.md)\n");
  const DriverOptions opts = copyOptions();

  if (!isSupportedCodeObjectVersion(opts.codeObjectVersion))
    return fail("unsupported code object version " +
                Twine(opts.codeObjectVersion) + "; expected 4, 5 or 6");
  if (opts.indexBitwidth != 32 && opts.indexBitwidth != 64)
    return fail("--index-bitwidth must be 32 or 64");
  if (opts.optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3");
  if (!opts.tune && opts.tuneOptionsGiven)
    return fail("--tune-candidates and --tune-cache apply with --tune only");
  if (opts.tune && opts.tuneCandidates == 0)
    return fail("--tune-candidates must be at least 1");
  if (opts.tune && opts.skipLowering)
    return fail("--tune chooses configurations in the code generation "
                "passes, which --skip-lowering skips");

  mlir::DialectRegistry registry;
  registerAllCrestDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  Expected<std::unique_ptr<MemoryBuffer>> read = readBoundedFile(opts.input);
  if (!read)
    return fail(toString(read.takeError()));
  std::unique_ptr<MemoryBuffer> input = std::move(*read);
  bool isOnnx = opts.format == InputFormat::ONNX ||
                (opts.format == InputFormat::Auto &&
                 StringRef(opts.input).ends_with(".onnx"));
  if (!isOnnx && (!opts.precision.empty() || !opts.onnxDims.empty() ||
                  !opts.onnxBindInputs.empty()))
    return fail("--precision, --onnx-dims and --onnx-bind-input apply to "
                "ONNX inputs only; an MLIR graph states its precision on "
                "each op");
  // ONNX files have no lines: name the node instead. Every op the importer
  // creates is located at `NameLoc(node, file:0:0)`.
  std::optional<mlir::ScopedDiagnosticHandler> onnxDiagnostics;
  if (isOnnx)
    onnxDiagnostics.emplace(&context, [](mlir::Diagnostic &diag) {
      std::string node;
      diag.getLocation()->walk([&](mlir::Location loc) {
        if (auto name = dyn_cast<mlir::NameLoc>(loc))
          node = name.getName().str();
        return node.empty() ? mlir::WalkResult::advance()
                            : mlir::WalkResult::interrupt();
      });
      std::string file;
      if (auto fileLoc = diag.getLocation()->findInstanceOf<
                         mlir::FileLineColLoc>())
        file = fileLoc.getFilename().str();
      raw_ostream &os = errs();
      if (!file.empty())
        os << file << ": ";
      if (!node.empty())
        os << "node '" << node << "': ";
      switch (diag.getSeverity()) {
      case mlir::DiagnosticSeverity::Error:
        os << "error: ";
        break;
      case mlir::DiagnosticSeverity::Warning:
        os << "warning: ";
        break;
      case mlir::DiagnosticSeverity::Remark:
        os << "remark: ";
        break;
      default:
        os << "note: ";
        break;
      }
      os << diag << "\n";
      return success();
    });
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (isOnnx) {
    OnnxImportOptions onnx;
    if (!opts.precision.empty()) {
      std::optional<MatrixPrecision> precision =
          parseMatrixPrecision(opts.precision);
      if (!precision)
        return fail("--precision must be f32, f16 or bf16, got '" +
                    opts.precision + "'");
      onnx.precision = *precision;
    }
    if (!parseDimBindings(opts.onnxDims, onnx.dimBindings))
      return fail("--onnx-dims expects name=size[,name=size...] with "
                  "positive sizes, got '" +
                  opts.onnxDims + "'");
    for (const std::string &binding : opts.onnxBindInputs) {
      auto [name, path] = StringRef(binding).split('=');
      ErrorOr<std::unique_ptr<MemoryBuffer>> file =
          MemoryBuffer::getFile(path);
      if (name.empty() || path.empty() || !file)
        return fail("--onnx-bind-input expects name=file.pb with a "
                    "readable file, got '" +
                    binding + "'");
      onnx.constantInputs[name] = (*file)->getBuffer().str();
    }
    StringRef bytes = input->getBuffer();
    module = importOnnxModel(bytes, opts.input, &context, onnx);
    sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  } else {
    // Deep nesting would overflow the stack of MLIR's recursive parser.
    if (Error e = checkMlirNesting(input->getBuffer(), opts.input)) {
      errs() << toString(std::move(e)) << "\n";
      return 1;
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;
  if (failed(checkTensorSizes(*module)))
    return 1;

  // The chip: --target, else the module's #crest.target.
  std::string chipName = opts.chip;
  if (chipName.empty()) {
    if (TargetAttr target = lookupTarget(module->getOperation()))
      chipName = target.getChip().str();
    else
      return fail("no target chip: pass --target=<chip> (" +
                  getKnownChipNames() + ")");
  }
  const ChipInfo *chip = lookupChip(chipName);
  if (!chip)
    return fail("unknown chip '" + chipName +
                "'; known chips: " + getKnownChipNames());
  unsigned resolvedWaveSize = resolveWaveSize(*chip, opts.waveSize);
  if (!resolvedWaveSize)
    return fail(chip->name + " does not support wave" + Twine(opts.waveSize));

  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope rootTiming = timing.getRootScope();

  // --tune: the emulator measures for crest-select-config, through a cache.
  std::shared_ptr<EmulatorMeasurer> measurer;
  if (opts.tune) {
    EmulatorMeasurerOptions tuning;
    tuning.codeObjectVersion = opts.codeObjectVersion;
    tuning.indexBitwidth = opts.indexBitwidth;
    tuning.optLevel = opts.optLevel;
    if (opts.tuneCache != "none")
      tuning.cachePath =
          opts.tuneCache.empty() ? TuneCache::getDefaultPath() : opts.tuneCache;
    // Each measured kernel is linked, which resets every LLVM option (see
    // DriverOptions); the passes, printers and code generation after it
    // should still see the command line's.
    tuning.restoreCommandLine = [argc, argv] {
      cl::ResetAllOptionOccurrences();
      cl::ParseCommandLineOptions(argc, argv, "", &nulls());
    };
    measurer = std::make_shared<EmulatorMeasurer>(tuning);
    if (std::optional<std::string> warning = measurer->loadCache())
      WithColor::warning(errs(), "crest-compile") << *warning << "\n";
  }

  if (!opts.skipLowering) {
    mlir::PassManager pm(&context);
    if (failed(mlir::applyPassManagerCLOptions(pm)))
      return 1;
    mlir::TimingScope loweringTiming = rootTiming.nest("lowering");
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
    buildCrestCodegenPipeline(pm, codegen, measurer);
    bool lowered = succeeded(pm.run(*module));
    // What was measured stays measured, even when a later pass fails.
    if (measurer)
      if (Error error = measurer->saveCache())
        WithColor::warning(errs(), "crest-compile")
            << toString(std::move(error)) << "\n";
    if (!lowered)
      return 1;
  }

  if (opts.emit == EmitKind::MLIR) {
    std::string path = opts.output.empty() ? "-" : opts.output;
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    // As crest-opt prints it, so that the two compare byte for byte.
    os << "\n";
    if (failed(writeFile(path, text)))
      return 1;
    if (!opts.report)
      return 0;
  }

  SmallVector<mlir::gpu::GPUModuleOp> gpuModules(
      module->getOps<mlir::gpu::GPUModuleOp>());
  // A package of a graph without kernels fails in the planner, at the ops
  // that have none.
  if (gpuModules.empty() && opts.emit != EmitKind::Package)
    return fail("the input has no gpu.module to compile");

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
  // All code generation first, then linking (see DriverOptions).
  options.link = false;
  SmallVector<SerializedModule> serialized;
  {
    mlir::TimingScope serializeTiming = rootTiming.nest("serialize");
    for (mlir::gpu::GPUModuleOp gpuModule : gpuModules) {
      mlir::TimingScope moduleTiming =
          serializeTiming.nest(("@" + gpuModule.getName()).str());
      Expected<SerializedModule> result =
          serializeGpuModule(gpuModule, options, outputs);
      if (!result)
        return fail(result.takeError());
      for (const std::string &warning : result->warnings)
        WithColor::warning(errs(), "crest-compile") << warning << "\n";
      serialized.push_back(std::move(*result));
    }
    if (outputs & EmitCodeObject) {
      mlir::TimingScope linkTiming = serializeTiming.nest("link");
      for (SerializedModule &result : serialized) {
        Expected<std::string> linked = linkCodeObject(result.codeObject);
        if (!linked)
          return fail(linked.takeError());
        result.codeObject = std::move(*linked);
      }
    }
  }

  if (opts.emit == EmitKind::LLVM || opts.emit == EmitKind::Assembly) {
    std::string text;
    for (const SerializedModule &result : serialized) {
      text += "; gpu.module @" + result.name + "\n";
      text += opts.emit == EmitKind::LLVM ? result.llvmIR : result.assembly;
    }
    if (failed(writeFile(opts.output.empty() ? "-" : opts.output, text)))
      return 1;
  } else if (opts.emit == EmitKind::CodeObject) {
    Expected<SmallVector<std::string>> paths =
        getCodeObjectPaths(opts, serialized);
    if (!paths)
      return fail(toString(paths.takeError()));
    for (auto [result, path] : llvm::zip(serialized, *paths))
      if (failed(writeFile(path, result.codeObject)))
        return 1;
  }

  std::vector<KernelReport> rows;
  if (opts.report || opts.emit == EmitKind::Package) {
    for (const SerializedModule &result : serialized) {
      Expected<std::vector<KernelReport>> kernels =
          buildKernelReports(result.name, result.codeObject, result.assembly,
                             *chip, result.waveSize);
      if (!kernels)
        return fail(kernels.takeError());
      llvm::append_range(rows, *kernels);
    }
  }

  if (opts.emit == EmitKind::Package) {
    std::string path = opts.output;
    if (path.empty()) {
      if (opts.input == "-")
        return fail("--emit=package needs -o when the input is stdin");
      path = sys::path::stem(opts.input).str() + ".crest";
    }
    if (failed(writePackage(*module, serialized, rows, path, chip->name,
                            opts.codeObjectVersion, resolvedWaveSize)))
      return 1;
  }

  if (opts.report) {
    outs().flush();
    printKernelReports(outs(), rows, *chip, resolvedWaveSize,
                       opts.codeObjectVersion);
    if (measurer) {
      outs() << "\ncrest-compile tuning: " << chip->name;
      if (chip->timing)
        outs() << ", up to " << opts.tuneCandidates
               << " candidates per contraction under the timing model, "
                  "cache "
               << (measurer->getCachePath().empty() ? StringRef("none")
                                                    : measurer->getCachePath())
               << "\n";
      else
        outs() << " has no timing model; the heuristic's choices stay\n";
      printTuningReport(outs(), collectTuningRows(*module));
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  // An output error (closed stdout, /dev/full) is a diagnostic, not
  // raw_fd_ostream's fatal error at exit.
  return crest::finishStdout("crest-compile", run(argc, argv));
}
