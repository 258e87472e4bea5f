//===- VMEM.cpp - Global, flat, buffer and scratch memory
//--------------------===//

#include "../Machine.h"

using namespace crest::emu;

namespace {

/// global_store_dword with an SGPR base: vaddr (32-bit offset), vdata,
/// saddr, offset, cpol.
template <unsigned Dwords> void globalStoreSaddr(Wave &wave, const Inst &inst) {
  uint64_t base = wave.readScalar64(inst.ops[2]);
  int64_t offset = signExtend(inst.ops[3].imm, 13);
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    uint64_t address = base + wave.readLane32(inst.ops[0], lane) + offset;
    uint8_t *p = wave.global(inst, address, Dwords * 4, lane);
    if (!p)
      return;
    for (unsigned d = 0; d < Dwords; ++d) {
      uint32_t v = wave.vreg(inst.ops[1].index + d)[lane];
      std::memcpy(p + 4 * d, &v, 4);
    }
  }
}

} // namespace

void crest::emu::registerVMEMHandlers(HandlerRegistry &registry) {
  registry.add("GLOBAL_STORE_DWORD_SADDR", globalStoreSaddr<1>);
}
