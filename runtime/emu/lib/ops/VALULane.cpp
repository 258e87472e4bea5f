//===- VALULane.cpp - Vector ALU: lane access and no-ops ------------------===//
//
// - v_readlane_b32 sdst, vsrc, ssrc: the lane S1[5:0] (S1[4:0] in wave32),
//   whatever EXEC says.
// - v_readfirstlane_b32 sdst, vsrc: the lowest active lane, lane 0 when
//   EXEC is zero.
// - v_writelane_b32 vdst, ssrc, lane: writes lane S1[5:0] of vdst whatever
//   EXEC says; the other lanes keep their value.
// - v_swap_b32 vdst, vsrc: exchanges the two registers in active lanes.
// - v_permlane16_swap_b32 / v_permlane32_swap_b32 vdst, vsrc (gfx950):
//   exchange vdst's odd 16-lane rows (lanes 16-31, 48-63) with vsrc's even
//   ones (0-15, 32-47), or vdst's upper 32 lanes with vsrc's lower 32;
//   with vdst = vsrc each lane gets lane ^ 16 (^ 32), as MLIR's
//   amdgpu.permlane_swap reads it. Only the full-EXEC, fi = bound_ctrl = 0
//   form is implemented (which lane of a pair EXEC gates is not in the
//   documents the emulator follows): others are refused.
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

template <unsigned Distance> void permlaneSwap(Wave &wave, const Inst &inst) {
  if (!checkNoGprIndexMode(wave, inst))
    return;
  if (inst.numDefs != 2) {
    wave.fail(inst, "unexpected operand layout");
    return;
  }
  for (unsigned i = 0; i < inst.numSrcs; ++i)
    if (inst.src(i).kind == OperandKind::Imm && inst.src(i).imm != 0) {
      wave.fail(inst, "fetch-inactive and bound_ctrl are not implemented");
      return;
    }
  if (wave.lanes != 64 || wave.exec() != ~uint64_t(0)) {
    wave.fail(inst, "only a wave64 with every lane active is implemented");
    return;
  }
  const Operand &dst = inst.def(0), &src = inst.def(1);
  for (unsigned lane = 0; lane < 64; ++lane) {
    if (!(lane & Distance))
      continue; // lane is one of vdst's exchanged lanes
    unsigned partner = lane - Distance; // vsrc's lane in the pair
    uint32_t a = wave.readLane32(dst, lane), b = wave.readLane32(src, partner);
    wave.writeLane32(dst, lane, b);
    wave.writeLane32(src, partner, a);
  }
}

void nothing(Wave &, const Inst &) {}

} // namespace

void crest::emu::valu::registerValuLaneHandlers(HandlerRegistry &r) {
  r.add("V_READLANE_B32", readlane);
  r.addVALU("V_READFIRSTLANE_B32", readfirstlane);
  r.add("V_WRITELANE_B32", writelane);
  r.addVALU("V_SWAP_B32", swap);
  r.addVALU("V_PERMLANE16_SWAP_B32", permlaneSwap<16>);
  r.addVALU("V_PERMLANE32_SWAP_B32", permlaneSwap<32>);
  r.addVALU("V_NOP", nothing);
  r.addVALU("V_CLREXCP", nothing);
}
