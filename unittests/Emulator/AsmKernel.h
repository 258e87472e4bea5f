//===- AsmKernel.h - Run hand-written AMDGPU assembly in tests --*- C++ -*-===//
//
// Wraps an instruction sequence in a complete HSA kernel (descriptor and
// code-object metadata), assembles it with Debian's llvm-mc and ld.lld,
// loads it with the emulator's loader and runs it on buffers the test
// provides. Tests compute their expected values themselves.
//
// The prologue loads buffer argument i into s[4+2i:5+2i] (and waits), so a
// body can store lane values with, e.g.,
//   v_lshlrev_b32 v1, 2, v0
//   global_store_dword v1, v2, s[4:5]
// v0 holds the work-item ID (X in bits 0-9 on chips with packed IDs).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_UNITTESTS_EMULATOR_ASMKERNEL_H
#define CREST_UNITTESTS_EMULATOR_ASMKERNEL_H

#include "crest/emu/Emulator.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace crest::emu::test {

struct AsmKernel {
  std::string chip = "gfx942";
  /// Instructions after the prologue; the harness appends s_endpgm.
  std::string body;
  /// Global buffer arguments (pointers), loaded into s[4+2i:5+2i].
  unsigned numBuffers = 1;
  unsigned ldsBytes = 0;
  unsigned privateBytes = 0;
  unsigned wavefrontSize = 64;
  /// Extra `.amdhsa_*` directives (e.g. ".amdhsa_float_denorm_mode_32 0").
  std::string descriptorDirectives;
  /// Code object version (4, 5 or 6).
  unsigned codeObjectVersion = 5;
  /// VGPRs the descriptor grants (arch and, on gfx90a+, acc: the AGPRs
  /// start at min(256, vgprs)); 0 for every register (512 on gfx90a+, 256
  /// elsewhere). Occupancy follows from it.
  unsigned vgprs = 0;
};

/// An assembled and loaded kernel, ready to run many times.
class LoadedKernel {
public:
  static llvm::Expected<std::unique_ptr<LoadedKernel>>
  build(const AsmKernel &kernel);

  /// Copies `buffers` to device memory, launches, and copies them back.
  llvm::Expected<LaunchResult> run(std::vector<std::vector<uint8_t>> &buffers,
                                   const LaunchConfig &config = {});

  const Program &getProgram() const { return *program; }
  Emulator &getEmulator() { return emulator; }

private:
  std::unique_ptr<CodeObject> object;
  std::unique_ptr<Program> program;
  Emulator emulator;
};

/// Assembles `source` (a complete assembly file) for `chip` into a code
/// object's bytes with llvm-mc and ld.lld.
llvm::Expected<std::vector<uint8_t>> assemble(const std::string &source,
                                              const std::string &chip);

/// Typed views of test buffers.
template <typename T> std::vector<uint8_t> toBytes(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}
template <typename T> std::vector<T> fromBytes(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

} // namespace crest::emu::test

#endif // CREST_UNITTESTS_EMULATOR_ASMKERNEL_H
