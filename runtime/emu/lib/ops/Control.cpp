//===- Control.cpp - Program control: branches, barriers, waits
//--------------===//
//
// SOPP instructions. Memory completes synchronously in the emulator, so
// s_waitcnt has nothing to wait for; s_barrier parks the wave until every
// live wave of the workgroup has arrived (Emulator.cpp releases them).
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"

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
}
