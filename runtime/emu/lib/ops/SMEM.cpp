//===- SMEM.cpp - Scalar memory loads
//----------------------------------------===//
//
// s_load_dword{,x2,x4,x8,x16}: sdst, sbase (64-bit address), then an
// immediate byte offset (_IMM), an SGPR offset (_SGPR) or both (_SGPR_IMM),
// and the cache-policy bits. On gfx9 the immediate is a signed 21-bit byte
// offset. Loads complete at once (s_waitcnt is a no-op).
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"

using namespace crest::emu;

namespace {

enum class Offset { Imm, Sgpr, SgprImm };

template <unsigned Dwords, Offset Form>
void scalarLoad(Wave &wave, const Inst &inst) {
  uint64_t address = wave.readScalar64(inst.ops[1]) & ~uint64_t(3);
  if constexpr (Form == Offset::Imm) {
    address += signExtend(inst.ops[2].imm, 21);
  } else if constexpr (Form == Offset::Sgpr) {
    address += wave.readScalar32(inst.ops[2]);
  } else {
    address += wave.readScalar32(inst.ops[2]) + signExtend(inst.ops[3].imm, 21);
  }
  const uint8_t *p = wave.global(inst, address, Dwords * 4, 0);
  if (!p)
    return;
  uint32_t values[Dwords];
  std::memcpy(values, p, sizeof(values));
  wave.writeScalarN(inst.ops[0], values, Dwords);
}

template <unsigned Dwords>
void addLoad(HandlerRegistry &registry, const char *name) {
  std::string base(name);
  registry.add(base + "_IMM", scalarLoad<Dwords, Offset::Imm>);
  registry.add(base + "_SGPR", scalarLoad<Dwords, Offset::Sgpr>);
  registry.add(base + "_SGPR_IMM", scalarLoad<Dwords, Offset::SgprImm>);
}

} // namespace

void crest::emu::registerSMEMHandlers(HandlerRegistry &registry) {
  addLoad<1>(registry, "S_LOAD_DWORD");
  addLoad<2>(registry, "S_LOAD_DWORDX2");
  addLoad<4>(registry, "S_LOAD_DWORDX4");
  addLoad<8>(registry, "S_LOAD_DWORDX8");
  addLoad<16>(registry, "S_LOAD_DWORDX16");
}
