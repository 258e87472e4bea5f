//===- Program.h - Decoded kernels ------------------------------*- C++ -*-===//
//
// A kernel's code decoded once, at load time, into a compact array of
// instructions. Each instruction carries its handler (looked up by opcode
// name when the program is decoded; an opcode without one fails the decode
// with its name and address) and its operands with registers already
// resolved to register-file indices.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_PROGRAM_H
#define CREST_EMU_PROGRAM_H

#include "crest/emu/CodeObject.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace crest::emu {

class Wave;
struct Inst;

/// Executes one instruction for one wave. Handlers advance nothing: the
/// scheduler moves to the next instruction unless the handler branched.
using Handler = void (*)(Wave &wave, const Inst &inst);

/// Scalar operand encodings (the hardware's 8-bit source field) that name
/// special registers. SGPRs are 0..101; the scalar register file of a wave
/// is indexed by these numbers.
namespace sreg {
constexpr unsigned FlatScratchLo = 102;
constexpr unsigned XnackMaskLo = 104;
constexpr unsigned VccLo = 106;
constexpr unsigned VccHi = 107;
constexpr unsigned TtmpFirst = 108;
constexpr unsigned M0 = 124;
constexpr unsigned Null = 125;
constexpr unsigned ExecLo = 126;
constexpr unsigned ExecHi = 127;
constexpr unsigned SharedBase = 235;
constexpr unsigned SharedLimit = 236;
constexpr unsigned PrivateBase = 237;
constexpr unsigned PrivateLimit = 238;
constexpr unsigned PopsExitingWaveId = 239;
constexpr unsigned Vccz = 251;
constexpr unsigned Execz = 252;
constexpr unsigned Scc = 253;
constexpr unsigned Count = 256;
} // namespace sreg

enum class OperandKind : uint8_t {
  None,
  Scalar, ///< `index` is the scalar encoding (see sreg).
  Vector, ///< `index` is the VGPR in the unified file (AGPRs included).
  Imm,    ///< `imm`, as LLVM decoded it (inline constants as bit patterns).
};

struct Operand {
  OperandKind kind = OperandKind::None;
  /// Width in 32-bit registers (1 for a 16-bit or 32-bit register).
  uint8_t dwords = 0;
  /// Set for a vector operand that names AGPRs (for disassembly only; the
  /// index already points into the unified file).
  bool isAgpr = false;
  uint16_t index = 0;
  uint64_t imm = 0;

  bool isReg() const {
    return kind == OperandKind::Scalar || kind == OperandKind::Vector;
  }
  bool isImm() const { return kind == OperandKind::Imm; }
};

/// The encoding family an instruction was decoded from.
enum class Encoding : uint8_t {
  Other,
  VOP1, ///< _e32 forms (VOP1, VOP2, VOPC)
  VOP3, ///< _e64 forms and VOP3-only instructions
  VOP3P,
  SDWA,
  DPP,
};

/// Source-modifier bits in VOP3/VOP3P/SDWA/DPP modifier operands.
namespace srcmod {
constexpr uint8_t Neg = 1; ///< VOP3P: neg_lo
constexpr uint8_t Abs = 2; ///< VOP3P: neg_hi
constexpr uint8_t OpSel0 = 4;
constexpr uint8_t OpSel1 = 8;
} // namespace srcmod

struct Inst {
  static constexpr unsigned kMaxOperands = 16;
  static constexpr unsigned kMaxSources = 4;
  static constexpr unsigned kMaxControls = 8;

  uint64_t address = 0; ///< Virtual address in the code object.
  uint16_t size = 0;    ///< Bytes.
  Handler handler = nullptr;
  /// Opcode name without the target suffix, e.g. "V_ADD_F32_e64" (the
  /// handler registry's copy, which lives as long as the process).
  const char *name = "";
  Encoding encoding = Encoding::Other;

  /// Every MCInst operand, in LLVM's order; the first `numMcDefs` are the
  /// results (MCInstrDesc::getNumDefs), for every encoding.
  uint8_t numOps = 0;
  uint8_t numMcDefs = 0;
  Operand ops[kMaxOperands];

  /// For VALU encodings, a view of `ops`: the result operands (vdst and,
  /// for carry-out and compare forms, sdst), the sources in order, their
  /// modifier bits, and the trailing control immediates (clamp, omod,
  /// SDWA selects, DPP controls, ...) in LLVM's order.
  uint8_t numDefs = 0;
  uint8_t numSrcs = 0;
  uint8_t numControls = 0;
  int8_t dppOld = -1; ///< DPP: index in ops of the tied "old" operand.
  uint8_t srcOp[kMaxSources] = {};
  uint8_t srcMods[kMaxSources] = {};
  int64_t controls[kMaxControls] = {};

  /// For branches: the index of the target instruction in the program.
  int32_t target = -1;

  const Operand &def(unsigned i) const { return ops[i]; }
  const Operand &src(unsigned i) const { return ops[srcOp[i]]; }
  uint8_t mods(unsigned i) const { return srcMods[i]; }
  int64_t control(unsigned i) const { return controls[i]; }
};

/// A kernel decoded for execution.
class Program {
public:
  /// Decodes `kernel` of `object`. Fails with the opcode name and address
  /// of the first instruction that cannot be decoded or has no handler.
  static llvm::Expected<std::unique_ptr<Program>>
  decode(const CodeObject &object, const Kernel &kernel);

  const Kernel &getKernel() const { return *kernel; }
  const ChipInfo &getChip() const { return *chip; }
  const std::vector<Inst> &getInstructions() const { return insts; }
  /// Index of the instruction at `address`, or -1.
  int32_t indexOf(uint64_t address) const;
  /// Index of the instruction a wave starts at: the kernel entry, or, for a
  /// kernel that preloads kernel arguments into SGPRs when the dispatch
  /// preloads them too, the one kKernargPreloadPrologueBytes past it (the
  /// whole code is decoded, so both entry points are instructions).
  uint32_t getStartIndex(bool preloadKernargs) const {
    return preloadKernargs ? preloadStartIndex : 0;
  }
  /// The disassembly of instruction `index` (as llvm-mc prints it).
  llvm::StringRef getDisassembly(size_t index) const {
    return disassembly[index];
  }

private:
  const Kernel *kernel = nullptr;
  const ChipInfo *chip = nullptr;
  std::vector<Inst> insts;
  std::vector<std::string> disassembly;
  uint32_t preloadStartIndex = 0;
};

} // namespace crest::emu

#endif // CREST_EMU_PROGRAM_H
