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
// --onnx-dims and --onnx-bind-input apply to it. An MLIR input of TOSA or
// linalg ops is converted to crest ops first (crest-convert-tosa,
// crest-convert-linalg; docs/Compiling.md). --precision applies to both.
// Text outputs start each gpu.module with a "; gpu.module @name" line.
// --report prints a table of every kernel's resources to stdout, after the
// output.
// --tune measures the best candidate configurations of every contraction
// under the emulator's timing model and keeps the fastest
// (crest::EmulatorMeasurer, lib/Tune); the measurements are cached in
// --tune-cache; --report then also prints what tuning chose, and packages
// record each tuned kernel's modelled time.
//
// The compile itself is crest::compile (crest/Driver/Driver.h), which
// libCrestCompiler.so calls too; this file reads the command line and the
// input and writes the outputs.
//
// Errors (unknown chip, unreadable input, unsupported code object version,
// a matrix instruction the chip lacks, ...) are diagnostics; the exit code
// is then 1.
//
//===----------------------------------------------------------------------===//

#include "crest/Driver/Driver.h"
#include "crest/InitCrest.h"
#include "crest/Precision/PrecisionPlan.h"
#include "crest/Support/Limits.h"
#include "crest/ToolVersion.h"
#include "crest/Tune/TuneCache.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest;

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
static cl::opt<std::string> report(
    "report",
    cl::desc("Print every kernel's registers, LDS, scratch, spills, "
             "occupancy and MFMA/barrier counts; --report=precision: the "
             "precision plan (docs/Precision.md); --report=all: both"),
    cl::value_desc("kernels|precision|all"), cl::ValueOptional,
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
static cl::opt<bool> fusionRemarks(
    "crest-fusion-remarks",
    cl::desc("Remark on every elementwise op crest-fuse-epilogues refuses "
             "to fuse into a contraction's epilogue, saying why"),
    cl::cat(category));
static cl::opt<bool> fuseAttention(
    "fuse-attention", cl::init(true),
    cl::desc("Fuse attention written as separate ops (Q K^T, scale, softmax, "
             "P V) into one crest.attention kernel (default true)"),
    cl::cat(category));
static cl::opt<bool> fusePrologues(
    "fuse-prologues", cl::init(true),
    cl::desc("Fuse casts and per-channel scales computing a contraction's "
             "operands into its operand loads, the slices, reshapes and "
             "transposes around an attention into its kernel, and the ops "
             "computing a layer norm's, softmax's or reduction's input "
             "into its row loads (default true)"),
    cl::cat(category));
static cl::opt<bool> fuseRows(
    "fuse-rows", cl::init(true),
    cl::desc("Fuse the elementwise ops and gathers around a layer norm, "
             "softmax or reduction into its kernel: its row prologue (with "
             "--fuse-prologues) and epilogue (default true)"),
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
    cl::desc("ONNX, TOSA or linalg input: element type the contractions "
             "read, f32, f16 or bf16 (default: ONNX f32, TOSA and linalg "
             "their own types); they accumulate in f32. fp8: the chip's fp8 "
             "with scales, per contraction (docs/Precision.md)"),
    cl::value_desc("type"), cl::cat(category));
static cl::opt<std::string> calibration(
    "calibration",
    cl::desc("--precision=fp8: a directory of calibration input sets (one "
             "subdirectory per set, one .npy or .pb per graph input)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<double> fp8Margin(
    "fp8-margin",
    cl::desc("--precision=fp8: activation scales map the calibrated amax to "
             "at most fp8_max * 2^-N (default 1)"),
    cl::value_desc("N"), cl::init(1), cl::cat(category));
static cl::opt<std::string> precisionPlan(
    "precision-plan",
    cl::desc("--precision=fp8: a plan.json whose ops with a \"pin\" keep "
             "that precision (fp8, f16, f32)"),
    cl::value_desc("plan.json"), cl::cat(category));
static cl::opt<std::string> writePrecisionPlan(
    "write-precision-plan",
    cl::desc("--precision=fp8: write the plan as JSON (the form "
             "--precision-plan reads and the package stores)"),
    cl::value_desc("plan.json"), cl::cat(category));
static cl::opt<double> precisionBudget(
    "precision-budget",
    cl::desc("--precision=auto: the largest end-to-end loss (relative L2 "
             "of the outputs against f32) a plan may have (default 0.01)"),
    cl::value_desc("loss"), cl::init(0.01), cl::cat(category));
static cl::opt<std::string> holdout(
    "holdout",
    cl::desc("--precision=auto: input sets (as --calibration) the plan "
             "must also meet the budget on"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> listPrecisionReasons(
    "list-precision-reasons",
    cl::desc("Print the precision plans' reason codes and exit"),
    cl::cat(category));
static cl::opt<bool> fp8PerChannel(
    "fp8-per-channel",
    cl::desc("--precision=fp8: one weight scale per output channel instead "
             "of one per tensor"),
    cl::cat(category));
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
  bool report, reportPrecision, skipLowering, targetChecks;
  unsigned dropBarrier;
  bool fusionRemarks;
  InputFormat format;
  std::string precision, onnxDims;
  std::string calibration;
  double fp8Margin;
  bool fp8PerChannel, fp8OptionsGiven;
  std::string precisionPlan, writePrecisionPlan;
  double precisionBudget;
  std::string holdout;
  bool autoOptionsGiven;
  std::vector<std::string> onnxBindInputs;
  std::string reportKind;
  bool tune;
  unsigned tuneCandidates;
  std::string tuneCache;
  bool tuneOptionsGiven; ///< --tune-candidates or --tune-cache
  bool fuseAttention;
  bool fusePrologues;
  bool fuseRows;
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
      report.getNumOccurrences() && report != "precision",
      report == "precision" || report == "all",
      skipLowering,
      !noTargetChecks,
      testingDropBarrier,
      fusionRemarks,
      inputFormat,
      precisionFlag,
      onnxDims,
      calibration,
      fp8Margin,
      fp8PerChannel,
      calibration.getNumOccurrences() || fp8Margin.getNumOccurrences() ||
          fp8PerChannel.getNumOccurrences() ||
          precisionPlan.getNumOccurrences() ||
          writePrecisionPlan.getNumOccurrences(),
      precisionPlan,
      writePrecisionPlan,
      precisionBudget,
      holdout,
      precisionBudget.getNumOccurrences() || holdout.getNumOccurrences(),
      std::vector<std::string>(onnxBindInputs.begin(), onnxBindInputs.end()),
      report,
      tune,
      tuneCandidates,
      tuneCache,
      tuneCandidates.getNumOccurrences() || tuneCache.getNumOccurrences(),
      fuseAttention,
      fusePrologues,
      fuseRows};
}

static int fail(const Twine &message) {
  WithColor::error(errs(), "crest-compile") << message << "\n";
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

/// Prints what the driver reports, as crest-compile always has: its own
/// messages after "crest-compile: ", ONNX diagnostics after their node.
static void printMessage(const DriverMessage &message) {
  switch (message.kind) {
  case DriverMessage::Kind::Driver:
    if (message.severity == mlir::DiagnosticSeverity::Error)
      WithColor::error(errs(), "crest-compile") << message.message << "\n";
    else
      WithColor::warning(errs(), "crest-compile") << message.message << "\n";
    return;
  case DriverMessage::Kind::Formatted:
    errs() << message.message;
    return;
  case DriverMessage::Kind::Diagnostic:
    break;
  }
  raw_ostream &os = errs();
  if (!message.location.empty())
    os << message.location << ": ";
  switch (message.severity) {
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
  os << message.message << "\n";
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
  if (listPrecisionReasons) {
    for (const auto &[code, meaning] : getReasonCodes())
      outs() << code << ": " << meaning << "\n";
    return 0;
  }
  const DriverOptions opts = copyOptions();

  if (!opts.tune && opts.tuneOptionsGiven)
    return fail("--tune-candidates and --tune-cache apply with --tune only");
  if (!opts.reportKind.empty() &&
      !is_contained({"kernels", "precision", "all"}, opts.reportKind))
    return fail("--report takes kernels, precision or all, got '" +
                opts.reportKind + "'");
  if (opts.fp8OptionsGiven && opts.precision != "fp8" &&
      opts.precision != "auto")
    return fail("--calibration, --fp8-margin, --fp8-per-channel, "
                "--precision-plan and --write-precision-plan apply with "
                "--precision=fp8 or auto only");
  if (opts.autoOptionsGiven && opts.precision != "auto")
    return fail("--precision-budget and --holdout apply with "
                "--precision=auto only");
  if (!(opts.precisionBudget > 0 && opts.precisionBudget < 1))
    return fail("--precision-budget must be between 0 and 1");
  if (!(opts.fp8Margin >= 0 && opts.fp8Margin <= 16))
    return fail("--fp8-margin must be between 0 and 16");

  CompileOptions options;
  options.chip = opts.chip;
  options.emit = opts.emit;
  options.codeObjectVersion = opts.codeObjectVersion;
  options.waveSize = opts.waveSize;
  options.indexBitwidth = opts.indexBitwidth;
  options.optLevel = opts.optLevel;
  options.report = opts.report;
  options.skipLowering = opts.skipLowering;
  options.targetChecks = opts.targetChecks;
  options.dropBarrier = opts.dropBarrier;
  options.fusionRemarks = opts.fusionRemarks;
  options.fuseAttention = opts.fuseAttention;
  options.fusePrologues = opts.fusePrologues;
  options.fuseRows = opts.fuseRows;
  options.format = opts.format;
  options.precision = opts.precision;
  options.onnxDims = opts.onnxDims;
  options.calibrationDir = opts.calibration;
  options.fp8MarginBits = opts.fp8Margin;
  options.perChannelWeights = opts.fp8PerChannel;
  options.precisionPlanPath = opts.precisionPlan;
  options.precisionBudget = opts.precisionBudget;
  options.holdoutDir = opts.holdout;
  options.inputName = opts.input;
  options.tune = opts.tune;
  options.tuneCandidates = opts.tuneCandidates;
  if (opts.tuneCache != "none")
    options.tuneCachePath =
        opts.tuneCache.empty() ? TuneCache::getDefaultPath() : opts.tuneCache;
  // Each measured kernel is linked, which resets every LLVM option (see
  // DriverOptions); the passes, printers and code generation after it
  // should still see the command line's.
  options.restoreCommandLine = [argc, argv] {
    cl::ResetAllOptionOccurrences();
    cl::ParseCommandLineOptions(argc, argv, "", &nulls());
  };
  options.configurePassManager = [](mlir::PassManager &pm) {
    return mlir::applyPassManagerCLOptions(pm);
  };
  if (failed(checkCompileOptions(options, printMessage)))
    return 1;
  bool isOnnx = opts.format == InputFormat::ONNX ||
                (opts.format == InputFormat::Auto &&
                 StringRef(opts.input).ends_with(".onnx"));
  if (isOnnx) {
    for (const std::string &binding : opts.onnxBindInputs) {
      auto [name, path] = StringRef(binding).split('=');
      ErrorOr<std::unique_ptr<MemoryBuffer>> file =
          MemoryBuffer::getFile(path);
      if (name.empty() || path.empty() || !file)
        return fail("--onnx-bind-input expects name=file.pb with a "
                    "readable file, got '" +
                    binding + "'");
      options.onnxConstantInputs[name] = (*file)->getBuffer().str();
    }
  } else if (!opts.onnxBindInputs.empty()) {
    return fail("--onnx-dims and --onnx-bind-input apply to ONNX inputs "
                "only");
  }

  mlir::DialectRegistry registry;
  registerAllCrestDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  Expected<std::unique_ptr<MemoryBuffer>> read = readBoundedFile(opts.input);
  if (!read)
    return fail(toString(read.takeError()));

  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope rootTiming = timing.getRootScope();
  options.timing = &rootTiming;

  FailureOr<CompileResult> compiled = crest::compile(
      context, sourceMgr, std::move(*read), options, printMessage);
  if (failed(compiled))
    return 1;

  switch (opts.emit) {
  case EmitKind::MLIR:
    if (failed(writeFile(opts.output.empty() ? "-" : opts.output,
                         compiled->mlir)))
      return 1;
    break;
  case EmitKind::LLVM:
  case EmitKind::Assembly:
    if (failed(writeFile(opts.output.empty() ? "-" : opts.output,
                         compiled->text)))
      return 1;
    break;
  case EmitKind::CodeObject: {
    Expected<SmallVector<std::string>> paths =
        getCodeObjectPaths(opts, compiled->modules);
    if (!paths)
      return fail(toString(paths.takeError()));
    for (auto [result, path] : llvm::zip(compiled->modules, *paths))
      if (failed(writeFile(path, result.codeObject)))
        return 1;
    break;
  }
  case EmitKind::Package: {
    std::string path = opts.output;
    if (path.empty()) {
      if (opts.input == "-")
        return fail("--emit=package needs -o when the input is stdin");
      path = sys::path::stem(opts.input).str() + ".crest";
    }
    if (failed(writeFile(path, toStringRef(compiled->package))))
      return 1;
    break;
  }
  }

  if (!opts.writePrecisionPlan.empty() && compiled->precisionPlan) {
    std::string text;
    raw_string_ostream os(text);
    os << formatv("{0:2}", *compiled->precisionPlan) << "\n";
    if (failed(writeFile(opts.writePrecisionPlan, text)))
      return 1;
  }
  if (opts.report) {
    outs().flush();
    outs() << compiled->report;
  }
  if (opts.reportPrecision) {
    outs().flush();
    if (compiled->precisionReport.empty())
      outs() << "precision plan: none (--precision=fp8 plans one)\n";
    else
      outs() << compiled->precisionReport;
  }
  if (compiled->precisionBudgetMissed) {
    outs().flush();
    WithColor::warning(errs(), "crest-compile")
        << "--precision=auto: no plan meets the budget (relative L2 < "
        << opts.precisionBudget
        << "), not even every contraction in f16; the package holds that "
           "f16 baseline\n";
    return 3;
  }
  return 0;
}

int main(int argc, char **argv) {
  // An output error (closed stdout, /dev/full) is a diagnostic, not
  // raw_fd_ostream's fatal error at exit.
  return crest::finishStdout("crest-compile", run(argc, argv));
}
