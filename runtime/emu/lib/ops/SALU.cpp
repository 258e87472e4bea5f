//===- SALU.cpp - Scalar ALU instructions
//------------------------------------===//

#include "../Machine.h"

using namespace crest::emu;

namespace {

void movB32(Wave &wave, const Inst &inst) {
  wave.writeScalar32(inst.ops[0], wave.readScalar32(inst.ops[1]));
}

void movB64(Wave &wave, const Inst &inst) {
  wave.writeScalar64(inst.ops[0], wave.readScalar64(inst.ops[1]));
}

} // namespace

void crest::emu::registerSALUHandlers(HandlerRegistry &registry) {
  registry.add("S_MOV_B32", movB32);
  registry.add("S_MOV_B64", movB64);
}
