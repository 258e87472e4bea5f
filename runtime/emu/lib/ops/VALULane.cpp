//===- VALULane.cpp - Vector ALU: lane access and no-ops ------------------===//
//
// - v_readlane_b32 sdst, vsrc, ssrc: the lane S1[5:0] (S1[4:0] in wave32),
//   whatever EXEC says.
// - v_readfirstlane_b32 sdst, vsrc: the lowest active lane, lane 0 when
//   EXEC is zero.
// - v_writelane_b32 vdst, ssrc, lane: writes lane S1[5:0] of vdst whatever
//   EXEC says; the other lanes keep their value.
// - v_swap_b32 vdst, vsrc: exchanges the two registers in active lanes.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

bool expectSources(Wave &wave, const Inst &inst, unsigned numSrcs) {
  if (!checkNoGprIndexMode(wave, inst))
    return false;
  if (inst.numSrcs == numSrcs && inst.numDefs >= 1)
    return true;
  wave.fail(inst, "unexpected operand layout");
  return false;
}

void readlane(Wave &wave, const Inst &inst) {
  if (!expectSources(wave, inst, 2))
    return;
  unsigned lane = wave.readScalar32(inst.src(1)) & (wave.lanes - 1);
  wave.writeScalar32(inst.def(0), wave.readLane32(inst.src(0), lane));
}

void readfirstlane(Wave &wave, const Inst &inst) {
  if (!expectSources(wave, inst, 1))
    return;
  if (inst.encoding != Encoding::VOP1 && inst.encoding != Encoding::VOP3) {
    wave.fail(inst, "this encoding is not implemented");
    return;
  }
  uint64_t exec = wave.exec();
  unsigned lane = exec ? unsigned(llvm::countr_zero(exec)) : 0;
  wave.writeScalar32(inst.def(0), wave.readLane32(inst.src(0), lane));
}

void writelane(Wave &wave, const Inst &inst) {
  if (!expectSources(wave, inst, 3))
    return;
  unsigned lane = wave.readScalar32(inst.src(1)) & (wave.lanes - 1);
  wave.writeLane32(inst.def(0), lane, wave.readScalar32(inst.src(0)));
}

void swap(Wave &wave, const Inst &inst) {
  // vdst, vsrc (both defined), then their old values.
  if (!checkNoGprIndexMode(wave, inst))
    return;
  if (inst.numDefs != 2) {
    wave.fail(inst, "unexpected operand layout");
    return;
  }
  const Operand &dst = inst.def(0), &src = inst.def(1);
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    uint32_t a = wave.readLane32(dst, lane), b = wave.readLane32(src, lane);
    wave.writeLane32(dst, lane, b);
    wave.writeLane32(src, lane, a);
  }
}

void nothing(Wave &, const Inst &) {}

} // namespace

void crest::emu::valu::registerValuLaneHandlers(HandlerRegistry &r) {
  r.add("V_READLANE_B32", readlane);
  r.addVALU("V_READFIRSTLANE_B32", readfirstlane);
  r.add("V_WRITELANE_B32", writelane);
  r.addVALU("V_SWAP_B32", swap);
  r.addVALU("V_NOP", nothing);
  r.addVALU("V_CLREXCP", nothing);
}
