//===- Driver.h - Crest's compile path, as a library ------------*- C++ -*-===//
//
// The one compile path of Crest: a crest graph (MLIR text or bytecode) or an
// ONNX model in a buffer, through import, crest-codegen-pipeline, the
// serializer and the host planner, to what crest-compile writes: the
// lowered module, LLVM IR or assembly text, HSA code objects or a .crest
// package, and the --report table. crest-compile (tools/crest-compile) and
// libCrestCompiler.so (crest_compiler.h) both call crest::compile.
//
// The caller owns the MLIRContext (registered with
// registerAllCrestDialects) and its diagnostic handler: MLIR diagnostics of
// an MLIR input (parse errors, pass failures) reach that handler. Everything
// else the driver has to say comes as DriverMessages: its own errors and
// warnings (an unknown chip, a bad --onnx-dims), the diagnostics of an ONNX
// input (located at the node, not at a line), and the serializer's
// diagnostics, which come already formatted.
//
// The driver reads no command-line option and writes no file: output paths,
// stdout and the command line are the tool's.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_DRIVER_DRIVER_H
#define CREST_DRIVER_DRIVER_H

#include "crest/Serialize/KernelReport.h"
#include "crest/Serialize/Serialize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class PassManager;
class TimingScope;
} // namespace mlir

namespace crest {

enum class EmitKind { MLIR, LLVM, Assembly, CodeObject, Package };
enum class InputFormat { Auto, MLIR, ONNX };

struct CompileOptions {
  /// The chip; empty: the module's #crest.target.
  std::string chip;
  EmitKind emit = EmitKind::Package;
  unsigned codeObjectVersion = kDefaultCodeObjectVersion;
  /// 0: the chip's.
  unsigned waveSize = 0;
  unsigned indexBitwidth = 64;
  unsigned optLevel = 3;
  /// Also build the report (CompileResult::report and kernels).
  bool report = false;
  /// The gpu.modules are already in the LLVM and ROCDL dialects.
  bool skipLowering = false;
  bool targetChecks = true;
  /// Testing only: drop the N-th barrier crest-insert-barriers places.
  unsigned dropBarrier = 0;
  /// Remarks on the elementwise ops crest-fuse-epilogues refuses to fuse
  /// (and on each attention crest-fuse-attention fuses).
  bool fusionRemarks = false;
  /// Fuse attention written as separate ops into crest.attention.
  bool fuseAttention = true;
  /// Fuse casts and per-channel scales into contractions' operand loads,
  /// the data movement around attention into its kernel, and the ops
  /// computing a layer norm's, softmax's or reduction's input into its row
  /// loads.
  bool fusePrologues = true;
  /// Fuse the elementwise ops around layer norms, softmaxes and
  /// reductions into their kernels (row prologues and epilogues).
  bool fuseRows = true;
  /// Auto: ONNX when the input's name ends in ".onnx".
  InputFormat format = InputFormat::Auto;
  /// The input's name for the format, the nesting check and ONNX
  /// locations; empty: the buffer's identifier. (crest-compile names stdin
  /// "-" there, while MLIR's parser calls the buffer "<stdin>".)
  std::string inputName;
  /// ONNX, TOSA and linalg inputs: "f32", "f16", "bf16", "fp8" or "auto";
  /// ONNX inputs only: "name=size,..."; graph inputs compiled as constants
  /// (serialized TensorProtos, by name).
  std::string precision, onnxDims;
  /// --precision=fp8 (docs/Precision.md): the calibration input sets'
  /// directory (empty: none), the activations' margin in bits, per output
  /// channel weight scales.
  std::string calibrationDir;
  double fp8MarginBits = 1;
  bool perChannelWeights = false;
  /// --precision-plan: a plan whose "pin"s the planner obeys.
  std::string precisionPlanPath;
  /// --precision=auto: the loss budget and the holdout input sets.
  double precisionBudget = 0.01;
  std::string holdoutDir;
  llvm::StringMap<std::string> onnxConstantInputs;
  /// --tune: candidates per contraction and the cache file (empty: none).
  bool tune = false;
  unsigned tuneCandidates = 4;
  std::string tuneCachePath;
  /// Called after each kernel --tune links (see EmulatorMeasurer.h); may be
  /// empty.
  std::function<void()> restoreCommandLine;
  /// Called on the lowering's pass manager before it runs (crest-compile
  /// applies MLIR's pass-manager options); may be empty.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePassManager;
  /// Where the lowering and serialization time themselves; may be null.
  mlir::TimingScope *timing = nullptr;
};

/// Something the driver reports that is no MLIR diagnostic of an MLIR input.
struct DriverMessage {
  enum class Kind {
    /// The driver's own ("unknown chip 'gfx000'; ..."); no location.
    Driver,
    /// A diagnostic of an ONNX input: `location` is "model.onnx: node 'n'"
    /// (or less, when the op has no such location).
    Diagnostic,
    /// Text already formatted with locations and severities, ending in a
    /// newline (the serializer's diagnostics, the nesting check).
    Formatted,
  };
  Kind kind;
  mlir::DiagnosticSeverity severity;
  std::string location;
  std::string message;
};
using DriverMessageHandler = std::function<void(const DriverMessage &)>;

struct CompileResult {
  /// The resolved chip, wave size and code object version.
  std::string chip;
  unsigned waveSize = 0;
  unsigned codeObjectVersion = 0;
  /// EmitKind::MLIR: the module after lowering, as crest-opt prints it.
  std::string mlir;
  /// EmitKind::LLVM and Assembly: each gpu.module's text after a
  /// "; gpu.module @name" line.
  std::string text;
  /// The serialized gpu.modules (code objects for CodeObject and Package).
  std::vector<SerializedModule> modules;
  /// EmitKind::Package: the .crest package.
  std::vector<uint8_t> package;
  /// With CompileOptions::report: the table crest-compile --report prints
  /// (and what --tune chose), and its rows.
  std::string report;
  std::vector<KernelReport> kernels;
  /// --precision=fp8: the plan (as the package stores it) and its table.
  std::optional<llvm::json::Value> precisionPlan;
  std::string precisionReport;
  /// --precision=auto met no budget: the package holds the f16 baseline.
  bool precisionBudgetMissed = false;
};

/// Checks the options that need no input (code object version, opt level,
/// index bit width, --tune's); reports what is wrong.
mlir::LogicalResult checkCompileOptions(const CompileOptions &options,
                                        const DriverMessageHandler &onMessage);

/// Compiles `input` (see CompileOptions::inputName), after
/// checkCompileOptions. `sourceMgr` is the one the context's diagnostic
/// handler reads; the input is added to it. On failure every reason has
/// been reported (to the context's handler or `onMessage`).
mlir::FailureOr<CompileResult>
compile(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
        std::unique_ptr<llvm::MemoryBuffer> input,
        const CompileOptions &options, const DriverMessageHandler &onMessage);

} // namespace crest

#endif // CREST_DRIVER_DRIVER_H
