//===- Control.cpp - Program control: branches, barriers, waits
//--------------===//
//
// SOPP instructions. Memory completes synchronously in the emulator, so
// s_waitcnt has nothing to wait for; s_barrier parks the wave until every
// live wave of the workgroup has arrived (Emulator.cpp releases them).
//
// Also the scalar instructions that read or change the program counter
// (s_getpc/s_setpc/s_swappc/s_call) and the hardware registers
// (s_getreg/s_setreg/s_setreg_imm32).
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace crest::emu;

namespace {

void endProgram(Wave &wave, const Inst &) { wave.status = Wave::Status::Done; }

void nothing(Wave &, const Inst &) {}

void barrier(Wave &wave, const Inst &) {
  wave.status = Wave::Status::AtBarrier;
}

void branch(Wave &wave, const Inst &inst) { wave.jump(inst.target); }

template <bool (*Taken)(const Wave &)>
void conditionalBranch(Wave &wave, const Inst &inst) {
  if (Taken(wave))
    wave.jump(inst.target);
}

bool scc0(const Wave &w) { return !w.scc; }
bool scc1(const Wave &w) { return w.scc; }
bool vccz(const Wave &w) { return w.vcc() == 0; }
bool vccnz(const Wave &w) { return w.vcc() != 0; }
bool execz(const Wave &w) { return w.exec() == 0; }
bool execnz(const Wave &w) { return w.exec() != 0; }

void trap(Wave &wave, const Inst &inst) {
  wave.fail(inst, "the kernel executed a trap");
}

void codeEnd(Wave &wave, const Inst &inst) {
  wave.fail(inst, "execution reached s_code_end padding (missing s_endpgm?)");
}

//===----------------------------------------------------------------------===//
// Program counter (SOP1 s_getpc/s_setpc/s_swappc, SOPK s_call)
//===----------------------------------------------------------------------===//

// PC values are the instructions' addresses in the code object; a computed
// jump must land on an instruction of the kernel.

void countSalu(Wave &wave) { ++wave.dispatch.result.saluInstructions; }

void jumpToAddress(Wave &wave, const Inst &inst, uint64_t address) {
  int32_t index = wave.program.indexOf(address);
  if (index < 0)
    return wave.fail(inst, llvm::formatv("jump target {0:x} is not the "
                                         "address of an instruction of the "
                                         "kernel",
                                         address));
  wave.jump(index);
}

/// S_GETPC_B64: D = PC + 4 (the address of the next instruction).
void getPc(Wave &wave, const Inst &inst) {
  countSalu(wave);
  wave.writeScalar64(inst.ops[0], inst.address + 4);
}

/// S_SETPC_B64: PC = S0.
void setPc(Wave &wave, const Inst &inst) {
  countSalu(wave);
  jumpToAddress(wave, inst, wave.readScalar64(inst.ops[0]));
}

/// S_SWAPPC_B64: D = PC + 4; PC = S0 (read before D is written).
void swapPc(Wave &wave, const Inst &inst) {
  countSalu(wave);
  uint64_t target = wave.readScalar64(inst.ops[1]);
  wave.writeScalar64(inst.ops[0], inst.address + 4);
  jumpToAddress(wave, inst, target);
}

/// S_CALL_B64 (SOPK): D = PC + 4; PC = PC + 4 + 4 * sext(SIMM16).
void call(Wave &wave, const Inst &inst) {
  countSalu(wave);
  wave.writeScalar64(inst.ops[0], inst.address + 4);
  jumpToAddress(wave, inst,
                inst.address + 4 + 4 * signExtend(inst.ops[1].imm, 16));
}

//===----------------------------------------------------------------------===//
// Hardware registers (SOPK s_getreg/s_setreg/s_setreg_imm32)
//===----------------------------------------------------------------------===//

// SIMM16 = hwreg(id, offset, size): id [5:0], offset [10:6], size-1 [15:11].
// Only HW_REG_MODE is modelled; it is the wave's live `mode`, so FP handlers
// see a change at once. The MODE bits the emulator implements are round
// [3:0], denorm [7:4], dx10_clamp [8] and ieee [9]; a write that would set
// any other bit (exception enables, debug, GPR indexing, ...) fails, as does
// any access to another hardware register.

constexpr uint32_t kHwRegMode = 1;
constexpr uint32_t kModelledModeBits = 0x3ff;

struct HwRegField {
  uint32_t id, offset, size;
  uint32_t mask() const {
    uint32_t low = size >= 32 ? ~0u : (1u << size) - 1;
    return low << offset;
  }
};

HwRegField decodeHwReg(uint64_t simm16) {
  return {uint32_t(simm16 & 0x3f), uint32_t((simm16 >> 6) & 0x1f),
          uint32_t(((simm16 >> 11) & 0x1f) + 1)};
}

const char *hwRegName(uint32_t id) {
  switch (id) {
  case 1:
    return "HW_REG_MODE";
  case 2:
    return "HW_REG_STATUS";
  case 3:
    return "HW_REG_TRAPSTS";
  case 4:
    return "HW_REG_HW_ID";
  case 5:
    return "HW_REG_GPR_ALLOC";
  case 6:
    return "HW_REG_LDS_ALLOC";
  case 7:
    return "HW_REG_IB_STS";
  case 15:
    return "HW_REG_SH_MEM_BASES";
  case 16:
    return "HW_REG_TBA_LO";
  case 17:
    return "HW_REG_TBA_HI";
  case 18:
    return "HW_REG_TMA_LO";
  case 19:
    return "HW_REG_TMA_HI";
  case 20:
    return "HW_REG_XCC_ID";
  default:
    return "an unknown hardware register";
  }
}

void failHwReg(Wave &wave, const Inst &inst, const HwRegField &field,
               const char *access) {
  wave.fail(inst, llvm::formatv("{0} of {1} (id {2}) is not modelled; only "
                                "HW_REG_MODE is",
                                access, hwRegName(field.id), field.id));
}

/// S_GETREG_B32: D = hwreg[offset +: size], zero-extended.
void getReg(Wave &wave, const Inst &inst) {
  countSalu(wave);
  HwRegField field = decodeHwReg(inst.ops[1].imm);
  if (field.id != kHwRegMode)
    return failHwReg(wave, inst, field, "s_getreg");
  wave.writeScalar32(inst.ops[0], (wave.mode & field.mask()) >> field.offset);
}

/// S_SETREG_B32 (S0 in ops[0]) and S_SETREG_IMM32_B32 (the literal in
/// ops[0]): hwreg[offset +: size] = value.
void setReg(Wave &wave, const Inst &inst) {
  countSalu(wave);
  HwRegField field = decodeHwReg(inst.ops[1].imm);
  if (field.id != kHwRegMode)
    return failHwReg(wave, inst, field, "s_setreg");
  uint32_t value = wave.readScalar32(inst.ops[0]);
  uint32_t mask = field.mask();
  uint32_t mode = ((value << field.offset) & mask) | (wave.mode & ~mask);
  if (mode & ~kModelledModeBits)
    return wave.fail(inst, llvm::formatv("MODE bits {0:x} are not modelled "
                                         "(only round, denorm, dx10_clamp "
                                         "and ieee, bits 0-9, are)",
                                         mode & ~kModelledModeBits));
  wave.mode = mode;
}

} // namespace

void crest::emu::registerControlHandlers(HandlerRegistry &registry) {
  registry.add("S_ENDPGM", endProgram);
  registry.add("S_CODE_END", codeEnd);
  registry.add("S_TRAP", trap);
  // Memory operations complete immediately, so waits and hints are no-ops.
  for (const char *name :
       {"S_NOP", "S_WAITCNT", "S_SETPRIO", "S_SLEEP", "S_SETHALT",
        "S_ICACHE_INV", "S_DCACHE_WB", "S_DCACHE_INV", "S_TTRACEDATA",
        "SCHED_BARRIER", "S_WAITCNT_VSCNT", "S_WAITCNT_VMCNT",
        "S_WAITCNT_LGKMCNT", "S_WAITCNT_EXPCNT"})
    registry.add(name, nothing);
  registry.add("S_BARRIER", barrier);
  registry.add("S_BRANCH", branch);
  registry.add("S_CBRANCH_SCC0", conditionalBranch<scc0>);
  registry.add("S_CBRANCH_SCC1", conditionalBranch<scc1>);
  registry.add("S_CBRANCH_VCCZ", conditionalBranch<vccz>);
  registry.add("S_CBRANCH_VCCNZ", conditionalBranch<vccnz>);
  registry.add("S_CBRANCH_EXECZ", conditionalBranch<execz>);
  registry.add("S_CBRANCH_EXECNZ", conditionalBranch<execnz>);
  // No debugger is attached: the debug conditions are never set.
  for (const char *name :
       {"S_CBRANCH_CDBGSYS", "S_CBRANCH_CDBGUSER", "S_CBRANCH_CDBGSYS_OR_USER",
        "S_CBRANCH_CDBGSYS_AND_USER"})
    registry.add(name, nothing);
  // Performance hints; s_sleep is a no-op, so is waking sleeping waves.
  for (const char *name : {"S_INCPERFLEVEL", "S_DECPERFLEVEL", "S_WAKEUP"})
    registry.add(name, nothing);

  registry.add("S_GETPC_B64", getPc);
  registry.add("S_SETPC_B64", setPc);
  registry.add("S_SWAPPC_B64", swapPc);
  registry.add("S_CALL_B64", call);
  registry.add("S_GETREG_B32", getReg);
  registry.add("S_SETREG_B32", setReg);
  registry.add("S_SETREG_IMM32_B32", setReg);
}
