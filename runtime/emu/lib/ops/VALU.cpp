//===- VALU.cpp - Vector ALU instructions
//------------------------------------===//

#include "../Machine.h"

using namespace crest::emu;

namespace {

/// Applies `fn(src0, src1)` to every active lane (VOP1/VOP2 e32 and e64
/// integer forms without modifiers).
template <uint32_t (*Fn)(uint32_t, uint32_t)>
void binaryU32(Wave &wave, const Inst &inst) {
  if (inst.encoding != Encoding::VOP1 && inst.encoding != Encoding::VOP3)
    return wave.fail(inst, "this encoding is not implemented");
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane)
    if ((exec >> lane) & 1)
      wave.writeLane32(inst.def(0), lane,
                       Fn(wave.readLane32(inst.src(0), lane),
                          wave.readLane32(inst.src(1), lane)));
}

uint32_t lshlrev(uint32_t shift, uint32_t value) {
  return value << (shift & 31);
}
uint32_t andB32(uint32_t a, uint32_t b) { return a & b; }

void movB32(Wave &wave, const Inst &inst) {
  if (inst.encoding != Encoding::VOP1 && inst.encoding != Encoding::VOP3)
    return wave.fail(inst, "this encoding is not implemented");
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane)
    if ((exec >> lane) & 1)
      wave.writeLane32(inst.def(0), lane, wave.readLane32(inst.src(0), lane));
}

} // namespace

void crest::emu::registerVALUHandlers(HandlerRegistry &registry) {
  registry.addVALU("V_MOV_B32", movB32);
  registry.addVALU("V_LSHLREV_B32", binaryU32<lshlrev>);
  registry.addVALU("V_AND_B32", binaryU32<andB32>);
}
