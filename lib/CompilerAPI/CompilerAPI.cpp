//===- CompilerAPI.cpp - The compiler's C API (crest_compiler.h) ----------===//
//
// libCrestCompiler.so: crest::compile (crest/Driver/Driver.h) behind a C
// ABI. Every compile has its own MLIRContext; every diagnostic goes to the
// session's callback and, for errors, into the returned error.
//
//===----------------------------------------------------------------------===//

#include "crest_compiler.h"

#include "crest/Driver/Driver.h"
#include "crest/InitCrest.h"
#include "crest/Support/Limits.h"
#include "crest/Version.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <new>
#include <string>

using namespace llvm;
using namespace crest;

struct crest_compiler_error {
  std::string message;
  std::string location;
};

struct crest_compiler_session {
  CompileOptions options;
  crest_compiler_diagnostic_callback callback = nullptr;
  void *userData = nullptr;
};

struct crest_compiler_output {
  std::string data;
  std::string chip;
  std::string report;
  std::string reportJson;
};

/// Compiles take turns: code generation and the in-process lld take locks
/// of their own, but lld also resets LLVM's command-line options, which
/// another thread's code generation reads (crest/Serialize/Serialize.h).
static std::mutex compileMutex;

static crest_compiler_error *makeError(const Twine &message,
                                       std::string location = "") {
  return new (std::nothrow)
      crest_compiler_error{message.str(), std::move(location)};
}

static crest_compiler_severity toSeverity(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return CREST_COMPILER_SEVERITY_ERROR;
  case mlir::DiagnosticSeverity::Warning:
    return CREST_COMPILER_SEVERITY_WARNING;
  case mlir::DiagnosticSeverity::Note:
    return CREST_COMPILER_SEVERITY_NOTE;
  case mlir::DiagnosticSeverity::Remark:
    return CREST_COMPILER_SEVERITY_REMARK;
  }
  return CREST_COMPILER_SEVERITY_ERROR;
}

/// "file:line:col" of the first file location in `location`, else "".
static std::string formatLocation(mlir::Location location) {
  std::string text;
  location->walk([&](mlir::Location loc) {
    if (auto file = dyn_cast<mlir::FileLineColLoc>(loc)) {
      text = (file.getFilename().strref() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return text;
}

namespace {
/// Collects one compile's diagnostics: forwards each to the callback and
/// keeps the errors for the returned error.
class Collector {
public:
  explicit Collector(const crest_compiler_session &session)
      : session(session) {}

  void report(mlir::DiagnosticSeverity severity, StringRef message,
              StringRef location) {
    if (session.callback) {
      std::string messageText = message.str(), locationText = location.str();
      session.callback(toSeverity(severity), messageText.c_str(),
                       locationText.c_str(), session.userData);
    }
    if (severity != mlir::DiagnosticSeverity::Error)
      return;
    if (errors.empty())
      firstLocation = location.str();
    if (!errors.empty())
      errors += "\n";
    if (!location.empty())
      errors += (location + ": ").str();
    errors += ("error: " + message).str();
  }

  void report(const DriverMessage &message) {
    StringRef text = message.message;
    report(message.severity, text.rtrim('\n'), message.location);
  }

  crest_compiler_error *takeError(StringRef fallback) {
    if (errors.empty())
      return makeError(fallback);
    return makeError(errors, firstLocation);
  }

private:
  const crest_compiler_session &session;
  std::string errors, firstLocation;
};
} // namespace

static std::string buildReportJson(const CompileResult &result) {
  json::Array kernels;
  for (const KernelReport &row : result.kernels)
    kernels.push_back(json::Object{
        {"module", row.module},
        {"kernel", row.resources.name},
        {"vgprs", int64_t(row.resources.vgprCount)},
        {"agprs", int64_t(row.resources.agprCount)},
        {"sgprs", int64_t(row.resources.sgprCount)},
        {"vgpr_spills", int64_t(row.resources.vgprSpillCount)},
        {"sgpr_spills", int64_t(row.resources.sgprSpillCount)},
        {"lds_bytes", int64_t(row.resources.groupSegmentFixedSize)},
        {"scratch_bytes", int64_t(row.resources.privateSegmentFixedSize)},
        {"waves_per_simd", int64_t(row.occupancy.wavesPerSimd)},
        {"mfma", int64_t(row.counts.matrix)},
        {"barriers", int64_t(row.counts.barriers)},
    });
  json::Object report{
      {"chip", result.chip},
      {"wave_size", int64_t(result.waveSize)},
      {"code_object_version", int64_t(result.codeObjectVersion)},
      {"kernels", std::move(kernels)},
  };
  std::string text;
  raw_string_ostream os(text);
  os << json::Value(std::move(report));
  return text;
}

static bool parseUnsigned(const char *value, unsigned &out) {
  return !StringRef(value).getAsInteger(10, out);
}

/// "0" or "1".
static bool parseFlag(StringRef text, bool &out) {
  if (text != "0" && text != "1")
    return false;
  out = text == "1";
  return true;
}

static bool parseDouble(const char *value, double &out) {
  return !StringRef(value).getAsDouble(out);
}

extern "C" {

uint32_t crest_compiler_api_version(void) {
  return (CREST_COMPILER_API_VERSION_MAJOR << 16) |
         CREST_COMPILER_API_VERSION_MINOR;
}

uint32_t crest_compiler_abi_version(void) { return CREST_COMPILER_ABI_VERSION; }

void crest_compiler_version(unsigned *major, unsigned *minor,
                            unsigned *patch) {
  if (major)
    *major = CREST_VERSION_MAJOR;
  if (minor)
    *minor = CREST_VERSION_MINOR;
  if (patch)
    *patch = CREST_VERSION_PATCH;
}

const char *crest_compiler_version_string(void) {
  return CREST_VERSION_STRING;
}

const char *crest_compiler_error_message(const crest_compiler_error *error) {
  return error ? error->message.c_str() : "";
}

const char *crest_compiler_error_location(const crest_compiler_error *error) {
  return error ? error->location.c_str() : "";
}

void crest_compiler_error_destroy(crest_compiler_error *error) {
  delete error;
}

crest_compiler_error *crest_compiler_session_create(
    crest_compiler_session **out) {
  if (!out)
    return makeError("crest_compiler_session_create: out is NULL");
  *out = new (std::nothrow) crest_compiler_session();
  if (!*out)
    return makeError("out of memory");
  return nullptr;
}

void crest_compiler_session_destroy(crest_compiler_session *session) {
  delete session;
}

crest_compiler_error *
crest_compiler_session_set_option(crest_compiler_session *session,
                                  const char *name, const char *value) {
  if (!session || !name || !value)
    return makeError("crest_compiler_session_set_option: a NULL argument");
  CompileOptions &options = session->options;
  StringRef option(name), text(value);
  auto bad = [&](StringRef expected) {
    return makeError("option '" + option + "': expected " + expected +
                     ", got '" + text + "'");
  };
  if (option == "target") {
    options.chip = text.str();
  } else if (option == "emit") {
    if (text == "package")
      options.emit = EmitKind::Package;
    else if (text == "hsaco")
      options.emit = EmitKind::CodeObject;
    else if (text == "mlir")
      options.emit = EmitKind::MLIR;
    else if (text == "llvm")
      options.emit = EmitKind::LLVM;
    else if (text == "asm")
      options.emit = EmitKind::Assembly;
    else
      return bad("package, hsaco, mlir, llvm or asm");
  } else if (option == "precision") {
    options.precision = text.str();
  } else if (option == "onnx-dims") {
    options.onnxDims = text.str();
  } else if (option == "code-object-version") {
    if (!parseUnsigned(value, options.codeObjectVersion))
      return bad("4, 5 or 6");
  } else if (option == "opt-level") {
    if (!parseUnsigned(value, options.optLevel))
      return bad("0, 1, 2 or 3");
  } else if (option == "wave-size") {
    if (!parseUnsigned(value, options.waveSize))
      return bad("32 or 64");
  } else if (option == "report") {
    if (!parseFlag(text, options.report))
      return bad("0 or 1");
  } else if (option == "fuse-attention") {
    if (!parseFlag(text, options.fuseAttention))
      return bad("0 or 1");
  } else if (option == "fuse-prologues") {
    if (!parseFlag(text, options.fusePrologues))
      return bad("0 or 1");
  } else if (option == "fuse-rows") {
    if (!parseFlag(text, options.fuseRows))
      return bad("0 or 1");
  } else if (option == "calibration") {
    options.calibrationDir = text.str();
  } else if (option == "fp8-margin") {
    double margin;
    if (!parseDouble(value, margin) || !(margin >= 0 && margin <= 16))
      return bad("a number of bits between 0 and 16");
    options.fp8MarginBits = margin;
  } else if (option == "fp8-per-channel") {
    if (!parseFlag(text, options.perChannelWeights))
      return bad("0 or 1");
  } else if (option == "precision-plan") {
    options.precisionPlanPath = text.str();
  } else if (option == "precision-budget") {
    double budget;
    if (!parseDouble(value, budget) || !(budget > 0 && budget < 1))
      return bad("a loss between 0 and 1");
    options.precisionBudget = budget;
  } else if (option == "holdout") {
    options.holdoutDir = text.str();
  } else {
    return makeError(
        "unknown option '" + option +
        "'; known options: target, emit, precision, onnx-dims, "
        "code-object-version, opt-level, wave-size, report, fuse-attention, "
        "fuse-prologues, fuse-rows, calibration, fp8-margin, "
        "fp8-per-channel, "
        "precision-plan, precision-budget, holdout");
  }
  return nullptr;
}

void crest_compiler_session_set_diagnostic_callback(
    crest_compiler_session *session,
    crest_compiler_diagnostic_callback callback, void *user_data) {
  if (!session)
    return;
  session->callback = callback;
  session->userData = user_data;
}

crest_compiler_error *crest_compiler_compile(crest_compiler_session *session,
                                             crest_compiler_input kind,
                                             const void *data, size_t size,
                                             const char *name,
                                             crest_compiler_output **out) {
  if (!session || !out || (!data && size))
    return makeError("crest_compiler_compile: a NULL argument");
  *out = nullptr;
  if (kind != CREST_COMPILER_INPUT_MLIR && kind != CREST_COMPILER_INPUT_ONNX)
    return makeError("crest_compiler_compile: unknown input kind " +
                     Twine(int(kind)));
  if (size > kDefaultMaxFileBytes)
    return makeError("the input has " + Twine(size) +
                     " bytes, more than Crest reads (" +
                     Twine(kDefaultMaxFileBytes) + ")");
  CompileOptions options = session->options;
  options.format =
      kind == CREST_COMPILER_INPUT_ONNX ? InputFormat::ONNX : InputFormat::MLIR;

  std::lock_guard<std::mutex> lock(compileMutex);
  Collector collector(*session);
  mlir::DialectRegistry registry;
  registerAllCrestDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) {
    collector.report(diag.getSeverity(), diag.str(),
                     formatLocation(diag.getLocation()));
    for (mlir::Diagnostic &note : diag.getNotes())
      collector.report(note.getSeverity(), note.str(),
                       formatLocation(note.getLocation()));
    return mlir::success();
  });
  SourceMgr sourceMgr;
  StringRef bufferName = name ? StringRef(name)
                         : kind == CREST_COMPILER_INPUT_ONNX ? "<onnx>"
                                                             : "<mlir>";
  std::unique_ptr<MemoryBuffer> input = MemoryBuffer::getMemBufferCopy(
      StringRef(static_cast<const char *>(data), size), bufferName);

  mlir::FailureOr<CompileResult> result = crest::compile(
      context, sourceMgr, std::move(input), options,
      [&](const DriverMessage &message) { collector.report(message); });
  if (failed(result))
    return collector.takeError("the compile failed");

  auto output = std::make_unique<crest_compiler_output>();
  switch (options.emit) {
  case EmitKind::Package:
    output->data = toStringRef(result->package).str();
    break;
  case EmitKind::CodeObject:
    if (result->modules.size() != 1)
      return makeError("emit=hsaco gives one code object, but the graph has " +
                       Twine(result->modules.size()) +
                       " gpu.modules; emit a package instead");
    output->data = std::move(result->modules.front().codeObject);
    break;
  case EmitKind::MLIR:
    output->data = std::move(result->mlir);
    break;
  case EmitKind::LLVM:
  case EmitKind::Assembly:
    output->data = std::move(result->text);
    break;
  }
  output->chip = result->chip;
  output->report = std::move(result->report);
  output->reportJson = buildReportJson(*result);
  *out = output.release();
  return nullptr;
}

crest_compiler_error *
crest_compiler_compile_file(crest_compiler_session *session, const char *path,
                            crest_compiler_output **out) {
  if (!session || !path || !out)
    return makeError("crest_compiler_compile_file: a NULL argument");
  *out = nullptr;
  Expected<std::unique_ptr<MemoryBuffer>> read = readBoundedFile(path);
  if (!read)
    return makeError(toString(read.takeError()));
  StringRef bytes = (*read)->getBuffer();
  crest_compiler_input kind = StringRef(path).ends_with(".onnx")
                                  ? CREST_COMPILER_INPUT_ONNX
                                  : CREST_COMPILER_INPUT_MLIR;
  return crest_compiler_compile(session, kind, bytes.data(), bytes.size(), path,
                                out);
}

const void *crest_compiler_output_data(const crest_compiler_output *output,
                                       size_t *size) {
  if (!output) {
    if (size)
      *size = 0;
    return nullptr;
  }
  if (size)
    *size = output->data.size();
  return output->data.data();
}

const char *crest_compiler_output_chip(const crest_compiler_output *output) {
  return output ? output->chip.c_str() : "";
}

const char *crest_compiler_output_report(const crest_compiler_output *output) {
  return output ? output->report.c_str() : "";
}

const char *
crest_compiler_output_report_json(const crest_compiler_output *output) {
  return output ? output->reportJson.c_str() : "";
}

void crest_compiler_output_destroy(crest_compiler_output *output) {
  delete output;
}

} // extern "C"
