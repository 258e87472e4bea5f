//===- Serialize.h - gpu.module to HSA code object --------------*- C++ -*-===//
//
// Turns a `gpu.module` whose body is already in the LLVM and ROCDL dialects
// (after `crest-gpu-to-rocdl`) into LLVM IR, AMDGPU assembly and an HSA code
// object, all in process:
//
//   1. check the module against the chip table (TargetChecks.h): an unknown
//      chip, a matrix instruction the chip lacks or a call into the ROCm
//      device libraries is an MLIR diagnostic, never an LLVM abort;
//   2. translate to LLVM IR (mlir::translateModuleToLLVMIR), set the triple
//      amdgcn-amd-amdhsa, the data layout and the module flag
//      "amdhsa_code_object_version";
//   3. optimize with LLVM's default pipeline (PassBuilder, O3 by default)
//      using the AMDGPU TargetMachine (the chip as CPU);
//   4. generate assembly and/or a relocatable object in memory;
//   5. link the object with lld (in process, `ld.lld -shared`) into the
//      code object.
//
// Every failure is an llvm::Error. Failures with an MLIR location come as a
// DiagnosticsError whose text is already formatted like mlir-opt's
// diagnostics ("file:line:col: error: ...", with the source line when the
// file is readable); LLVM backend errors (e.g. "local memory (70000)
// exceeds limit (65536)") and lld errors come as plain string errors.
//
// Process-wide effects: optimization and code generation run under a lock,
// inside a CrashRecoveryContext (enabled only for that time) and with
// Crest's fatal-error handler installed (replacing any other one meanwhile);
// linking runs under lld's own lock. Several threads may call
// serializeGpuModule, but they take turns there. See linkCodeObject for
// what lld does to LLVM's command-line options.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SERIALIZE_SERIALIZE_H
#define CREST_SERIALIZE_SERIALIZE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
namespace gpu {
class GPUModuleOp;
} // namespace gpu
} // namespace mlir

namespace crest {

/// The HSA code object versions Crest emits. v5 is the default: ROCm 5.2's
/// loader accepts v4 and v5, ROCm >= 6.3 also v6 (MLIR 22's own default).
constexpr unsigned kDefaultCodeObjectVersion = 5;
/// True for 4, 5 and 6.
bool isSupportedCodeObjectVersion(unsigned version);

struct SerializeOptions {
  /// The chip to compile for (a chip-table name). When empty, the chip of
  /// the gpu.module's single `#rocdl.target` is used. When both are given
  /// they must agree.
  std::string chip;
  /// 32 or 64; 0 selects the chip's default.
  unsigned waveSize = 0;
  /// 4, 5 or 6.
  unsigned codeObjectVersion = kDefaultCodeObjectVersion;
  /// LLVM optimization level of the IR pipeline and of code generation.
  unsigned optLevel = 3;
  /// Run the chip-table checks (TargetChecks.h) before code generation.
  /// Only tests turn this off, to exercise `recoverFromBackendCrash`.
  bool verifyTarget = true;
  /// Run LLVM's optimization and code generation inside a
  /// llvm::CrashRecoveryContext, so that a backend abort the checks did not
  /// foresee ("LLVM ERROR: Cannot select ...") becomes an error instead of
  /// killing the process. The LLVM context of a crashed compilation is
  /// leaked, not destroyed.
  bool recoverFromBackendCrash = true;
  /// Link the object into the code object. When false, the codeObject of
  /// the result holds the relocatable object for the caller to pass to
  /// linkCodeObject() later (see there why a driver may want that).
  bool link = true;
};

/// What to produce; combine with `|`.
enum SerializeOutput : unsigned {
  /// LLVM IR after the optimization pipeline, as text.
  EmitLLVMIR = 1u << 0,
  /// AMDGPU assembly as the backend prints it (with its kernel-info
  /// comments).
  EmitAssembly = 1u << 1,
  /// The linked HSA code object (an ELF shared object).
  EmitCodeObject = 1u << 2,
};

struct SerializedModule {
  /// The gpu.module's symbol name.
  std::string name;
  /// The chip and wave size actually compiled for.
  std::string chip;
  unsigned waveSize = 0;
  /// Filled according to the requested SerializeOutput bits.
  std::string llvmIR;
  std::string assembly;
  std::string codeObject;
  /// Warnings the LLVM backend reported (e.g. about stack usage).
  std::vector<std::string> warnings;
};

/// Compiles `module` (see the file comment). The module is not modified.
llvm::Expected<SerializedModule>
serializeGpuModule(mlir::gpu::GPUModuleOp module,
                   const SerializeOptions &options, unsigned outputs);

/// Links a relocatable AMDGPU object into an HSA code object with the
/// in-process lld (`ld.lld -shared --no-undefined`).
///
/// Caveat: every lld run resets all of LLVM's command-line options to their
/// defaults (lld's driver calls cl::ResetAllOptionOccurrences before parsing
/// its -mllvm flags). A tool that reads cl::opt values after linking, or
/// that lets users pass LLVM backend flags, should copy its options first
/// and generate the code of all modules before linking any
/// (SerializeOptions::link = false), as crest-compile does.
llvm::Expected<std::string> linkCodeObject(llvm::StringRef relocatable);

/// An error made of MLIR diagnostics, already formatted with their
/// locations (see the file comment). `log` prints the text as is.
class DiagnosticsError : public llvm::ErrorInfo<DiagnosticsError> {
public:
  static char ID;
  explicit DiagnosticsError(std::string text) : text(std::move(text)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  llvm::StringRef getText() const { return text; }

private:
  std::string text;
};

} // namespace crest

#endif // CREST_SERIALIZE_SERIALIZE_H
