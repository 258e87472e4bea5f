//===- DS.cpp - LDS (data share) instructions -----------------------------===//
//
// Reads, writes, read2/write2 (and their st64 forms), atomics with and
// without return, exchanges, and the cross-lane ds_bpermute, ds_permute and
// ds_swizzle of gfx90a and gfx942 (CDNA3 ISA pseudocode).
//
// Operands (LLVM 22): [vdst,] addr, [data0, [data1,]] offset | offset0,
// offset1, gds. An address is ADDR + offset in 32 bits (offset0/1 scaled by
// the element size, and by 64 more for st64). Every access goes through
// Workgroup::checkLdsAccess: bounds against the workgroup's LDS allocation,
// and the race detector. On gfx9 M0 does not limit LDS addresses (LLVM
// initializes M0 for DS instructions only before gfx9, see its
// ldsRequiresM0Init); the hardware clamps against the wave's LDS
// allocation, which the emulator turns into an error. M0 is read only by
// ds_read/write_addtid_b32 (base M0[15:0]). GDS is not supported.
//
// Each instruction also feeds the bank-conflict model: LDS has 32 banks of
// 4 bytes (ChipInfo::ldsBanks). For each half-wave (32 lanes) and each
// dword pass (dword k of every lane's access; read2/write2 make a pass per
// dword of each of their two addresses) the extra cycles are the largest
// number of distinct dwords any bank is asked for, minus one; lanes asking
// for the same dword share it (broadcast).
//
//===----------------------------------------------------------------------===//

#include "Memory.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::mem;

namespace {

//===----------------------------------------------------------------------===//
// Bank-conflict model
//===----------------------------------------------------------------------===//

class BankModel {
public:
  static constexpr unsigned kMaxPasses = 4;

  /// Records that `lane` accesses `bytes` bytes at LDS byte `address`, as
  /// passes `firstPass`, `firstPass + 1`, ... (one per dword), all part of
  /// one access of that width.
  void add(unsigned firstPass, unsigned lane, uint32_t address,
           unsigned bytes) {
    unsigned dwords = std::max(1u, bytes / 4);
    for (unsigned d = 0; d < dwords; ++d) {
      unsigned pass = firstPass + d;
      dword[pass][lane] = (address >> 2) + d;
      lanes[pass] |= uint64_t(1) << lane;
      width[pass] = uint8_t(dwords);
      passes = std::max(passes, pass + 1);
    }
  }

  /// Adds this instruction's extra cycles to the dispatch's counters (and
  /// its bytes and extra cycles to the timing model's record).
  void commit(Wave &wave, const Inst &inst) const;

private:
  uint32_t dword[kMaxPasses][64];
  uint64_t lanes[kMaxPasses] = {};
  uint8_t width[kMaxPasses] = {};
  unsigned passes = 0;
};

// The LDS serves 32 banks x 4 bytes per cycle. An access of W dwords per
// lane is served in groups of 32 / W lanes, all W dwords of a group at once
// (a half-wave per cycle for b32; 16 lanes for b64, 8 for b128, so that
// contiguous wide accesses are conflict-free, as measured: 64 bytes per
// cycle per wave for ds_read_b128, tingqli/pyhip mem_latency); the two
// addresses of a read2/write2 are separate accesses. A group whose most
// loaded bank holds D distinct dwords takes D cycles: D - 1 extra.
void BankModel::commit(Wave &wave, const Inst &inst) const {
  unsigned banks = std::clamp(wave.program.getChip().ldsBanks, 1u, 64u);
  uint64_t extra = 0;
  for (unsigned first = 0; first < passes;) {
    unsigned w = std::clamp<unsigned>(width[first], 1, kMaxPasses);
    unsigned groupLanes = std::max(32u / w, 1u);
    for (unsigned group = 0; group < wave.lanes; group += groupLanes) {
      uint32_t addresses[32 * kMaxPasses];
      unsigned n = 0;
      for (unsigned pass = first; pass < first + w && pass < passes; ++pass)
        // The last group may be partial (10 lanes a group for b96).
        for (unsigned lane = group;
             lane < std::min(group + groupLanes, wave.lanes); ++lane)
          if ((lanes[pass] >> lane) & 1)
            addresses[n++] = dword[pass][lane];
      if (n == 0)
        continue;
      std::sort(addresses, addresses + n);
      n = unsigned(std::unique(addresses, addresses + n) - addresses);
      unsigned perBank[64] = {}, worst = 0;
      for (unsigned i = 0; i < n; ++i)
        worst = std::max(worst, ++perBank[addresses[i] % banks]);
      extra += worst - 1;
    }
    first += w;
  }
  if (wave.trace) {
    uint32_t bytes = 0;
    for (unsigned pass = 0; pass < passes; ++pass)
      bytes += 4 * llvm::popcount(lanes[pass]);
    wave.trace->noteLds(bytes, uint32_t(extra));
  }
  if (extra == 0)
    return;
  LaunchResult &result = wave.dispatch.result;
  result.bankConflictCycles += extra;
  result.bankConflictCyclesByAddress[inst.address] += extra;
}

//===----------------------------------------------------------------------===//
// Common parts
//===----------------------------------------------------------------------===//

/// Counts the instruction and checks its gds bit (operand `gds`, or -1).
bool begin(Wave &wave, const Inst &inst, int gds) {
  countLds(wave);
  if (gds >= 0 && gds < inst.numOps && inst.ops[gds].isImm() &&
      inst.ops[gds].imm) {
    wave.fail(inst, "GDS is not supported");
    return false;
  }
  return true;
}

uint32_t vaddr(const Wave &wave, const Inst &inst, unsigned op, unsigned lane) {
  return wave.vreg(inst.ops[op].index)[lane];
}

//===----------------------------------------------------------------------===//
// Reads and writes
//===----------------------------------------------------------------------===//

/// vdst, addr, offset, gds.
template <Data D> void read(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 3))
    return;
  BankModel bank;
  uint32_t offset = uint32_t(inst.ops[2].imm);
  unsigned vdst = inst.ops[0].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t a = vaddr(wave, inst, 1, lane) + offset;
    const uint8_t *p = ldsBytes(wave, inst, a, bytesOf(D), LdsAccess::Read);
    if (!p)
      return false;
    toRegisters<D>(wave, vdst, lane, p);
    bank.add(0, lane, a, bytesOf(D));
    return true;
  });
  bank.commit(wave, inst);
}

/// addr, data0, offset, gds.
template <Data D> void write(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 3))
    return;
  BankModel bank;
  uint32_t offset = uint32_t(inst.ops[2].imm);
  unsigned data = inst.ops[1].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t a = vaddr(wave, inst, 0, lane) + offset;
    uint8_t *p = ldsBytes(wave, inst, a, bytesOf(D), LdsAccess::Write);
    if (!p)
      return false;
    fromRegisters<D>(wave, data, lane, p);
    bank.add(0, lane, a, bytesOf(D));
    return true;
  });
  bank.commit(wave, inst);
}

/// ds_read2* (vdst, addr, offset0, offset1, gds): two elements of `Dwords`
/// dwords at addr + offsetN * 4 * Dwords * Stride.
template <unsigned Dwords, unsigned Stride>
void read2(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 4))
    return;
  constexpr unsigned bytes = 4 * Dwords;
  constexpr Data D = Dwords == 1 ? Data::B32 : Data::B64;
  BankModel bank;
  unsigned vdst = inst.ops[0].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t base = vaddr(wave, inst, 1, lane);
    for (unsigned k = 0; k < 2; ++k) {
      uint32_t a = base + uint32_t(inst.ops[2 + k].imm) * bytes * Stride;
      const uint8_t *p = ldsBytes(wave, inst, a, bytes, LdsAccess::Read);
      if (!p)
        return false;
      toRegisters<D>(wave, vdst + k * Dwords, lane, p);
      bank.add(k * Dwords, lane, a, bytes);
    }
    return true;
  });
  bank.commit(wave, inst);
}

/// ds_write2* (addr, data0, data1, offset0, offset1, gds).
template <unsigned Dwords, unsigned Stride>
void write2(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 5))
    return;
  constexpr unsigned bytes = 4 * Dwords;
  constexpr Data D = Dwords == 1 ? Data::B32 : Data::B64;
  BankModel bank;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t base = vaddr(wave, inst, 0, lane);
    for (unsigned k = 0; k < 2; ++k) {
      uint32_t a = base + uint32_t(inst.ops[3 + k].imm) * bytes * Stride;
      uint8_t *p = ldsBytes(wave, inst, a, bytes, LdsAccess::Write);
      if (!p)
        return false;
      fromRegisters<D>(wave, inst.ops[1 + k].index, lane, p);
      bank.add(k * Dwords, lane, a, bytes);
    }
    return true;
  });
  bank.commit(wave, inst);
}

/// ds_read_addtid_b32 (vdst, offset, gds) and ds_write_addtid_b32 (data0,
/// offset, gds): the dword at offset + M0[15:0] + 4 * lane.
template <bool IsWrite> void addTid(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 2))
    return;
  BankModel bank;
  uint32_t base = uint32_t(inst.ops[1].imm) + (wave.sgpr[sreg::M0] & 0xffff);
  unsigned reg = inst.ops[0].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t a = base + 4 * lane;
    uint8_t *p = ldsBytes(wave, inst, a, 4,
                          IsWrite ? LdsAccess::Write : LdsAccess::Read);
    if (!p)
      return false;
    if (IsWrite)
      fromRegisters<Data::B32>(wave, reg, lane, p);
    else
      toRegisters<Data::B32>(wave, reg, lane, p);
    bank.add(0, lane, a, 4);
    return true;
  });
  bank.commit(wave, inst);
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// [vdst,] addr, data0, [data1,] offset, gds. DS_CMPST takes the compare
/// value in data0 and the new one in data1; DS_MSKOR and DS_WRAP take their
/// two operands in order.
template <Op O, typename T, bool Rtn, unsigned NData>
void atomic(Wave &wave, const Inst &inst) {
  constexpr unsigned addr = Rtn ? 1 : 0, data0 = addr + 1,
                     offset = addr + 1 + NData;
  if (!begin(wave, inst, offset + 1))
    return;
  BankModel bank;
  uint32_t off = uint32_t(inst.ops[offset].imm);
  FpRules fp = atomicFpRules<O, T>(wave, /*inLds=*/true);
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t a = vaddr(wave, inst, addr, lane) + off;
    uint8_t *p = ldsBytes(wave, inst, a, sizeof(T), LdsAccess::Atomic);
    if (!p)
      return false;
    T d0 = readVgprs<T>(wave, inst.ops[data0].index, lane), d1 = 0;
    if constexpr (NData == 2)
      d1 = readVgprs<T>(wave, inst.ops[data0 + 1].index, lane);
    if constexpr (O == Op::CmpSwap || O == Op::FCmpSwap)
      std::swap(d0, d1);
    T old;
    std::memcpy(&old, p, sizeof(T));
    T value = atomicResult<O, T>(old, d0, d1, fp);
    std::memcpy(p, &value, sizeof(T));
    if constexpr (Rtn)
      writeVgprs<T>(wave, inst.ops[0].index, lane, old);
    bank.add(0, lane, a, sizeof(T));
    return true;
  });
  bank.commit(wave, inst);
}

/// ds_wrxchg2*_rtn (vdst, addr, data0, data1, offset0, offset1, gds): both
/// old values are read before data0 and data1 are written.
template <unsigned Dwords, unsigned Stride>
void exchange2(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 6))
    return;
  constexpr unsigned bytes = 4 * Dwords;
  constexpr Data D = Dwords == 1 ? Data::B32 : Data::B64;
  BankModel bank;
  unsigned vdst = inst.ops[0].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint32_t base = vaddr(wave, inst, 1, lane);
    uint8_t *p[2];
    uint8_t old[2][bytes];
    for (unsigned k = 0; k < 2; ++k) {
      uint32_t a = base + uint32_t(inst.ops[4 + k].imm) * bytes * Stride;
      p[k] = ldsBytes(wave, inst, a, bytes, LdsAccess::Atomic);
      if (!p[k])
        return false;
      std::memcpy(old[k], p[k], bytes);
      bank.add(k * Dwords, lane, a, bytes);
    }
    for (unsigned k = 0; k < 2; ++k) {
      fromRegisters<D>(wave, inst.ops[2 + k].index, lane, p[k]);
      toRegisters<D>(wave, vdst + k * Dwords, lane, old[k]);
    }
    return true;
  });
  bank.commit(wave, inst);
}

//===----------------------------------------------------------------------===//
// Cross-lane (no LDS memory access)
//===----------------------------------------------------------------------===//

/// ds_bpermute_b32 (vdst, addr, data0, offset): lane i reads data0 of lane
/// ((addr + offset) / 4) % lanes, or 0 if that lane is inactive.
/// ds_permute_b32: lane i sends data0 to that lane (the highest sending
/// lane wins; lanes nobody sends to get 0). Only active lanes are written.
template <bool Backward> void permute(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, -1))
    return;
  uint32_t offset = uint32_t(inst.ops[3].imm);
  const uint32_t *addr = wave.vreg(inst.ops[1].index);
  const uint32_t *data = wave.vreg(inst.ops[2].index);
  uint64_t exec = wave.exec();
  uint32_t result[64] = {};
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    unsigned other = ((addr[lane] + offset) / 4) % wave.lanes;
    if (Backward) {
      if ((exec >> other) & 1)
        result[lane] = data[other];
    } else if ((exec >> lane) & 1) {
      result[other] = data[lane];
    }
  }
  uint32_t *vdst = wave.vreg(inst.ops[0].index);
  forActiveLanes(wave, [&](unsigned lane) {
    vdst[lane] = result[lane];
    return true;
  });
}

/// The lane ds_swizzle_b32 reads for `lane` (CDNA3 ISA pseudocode):
/// offset >= 0xe000: FFT; >= 0xc000: rotate within 32 lanes; bit 15: the
/// quad permutation of offset[7:0]; else the 32-lane bitmask mode with
/// and/or/xor masks offset[4:0], [9:5], [14:10].
unsigned swizzleSource(uint32_t offset, unsigned lane) {
  unsigned group = lane & 0x20, i = lane & 0x1f;
  if (offset >= 0xe000) {
    unsigned mask = offset & 0x1f;
    unsigned j = 0;
    for (unsigned b = 0; b < 5; ++b) // reverse the five bits of i
      j |= ((i >> b) & 1) << (4 - b);
    j = (j >> llvm::popcount(mask)) | (i & mask);
    return group | (j & 0x1f);
  }
  if (offset >= 0xc000) {
    unsigned mask = offset & 0x1f, rotate = (offset >> 5) & 0x1f;
    if (offset & 0x400)
      rotate = 32 - rotate;
    return group | (((i & mask) | ((i + rotate) & ~mask)) & 0x1f);
  }
  if (offset & 0x8000)
    return (lane & ~3u) | ((offset >> (2 * (lane & 3))) & 3);
  unsigned andMask = offset & 0x1f, orMask = (offset >> 5) & 0x1f,
           xorMask = (offset >> 10) & 0x1f;
  return group | (((i & andMask) | orMask) ^ xorMask);
}

/// ds_swizzle_b32 (vdst, data0, offset, gds); inactive source lanes read 0.
void swizzle(Wave &wave, const Inst &inst) {
  if (!begin(wave, inst, 3))
    return;
  uint32_t offset = uint32_t(inst.ops[2].imm & 0xffff);
  const uint32_t *data = wave.vreg(inst.ops[1].index);
  uint64_t exec = wave.exec();
  uint32_t result[64];
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    unsigned source = swizzleSource(offset, lane) % wave.lanes;
    result[lane] = (exec >> source) & 1 ? data[source] : 0;
  }
  uint32_t *vdst = wave.vreg(inst.ops[0].index);
  forActiveLanes(wave, [&](unsigned lane) {
    vdst[lane] = result[lane];
    return true;
  });
}

void nop(Wave &wave, const Inst &) { countLds(wave); }

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers `name` (the decoder strips the `_agpr` suffix LLVM adds when
/// the data or destination are AGPRs).
void add(HandlerRegistry &registry, const Twine &name, Handler handler) {
  registry.add(name.str(), handler);
}

template <Op O, typename T, unsigned NData = 1> struct AtomicKind {};

/// DS_<op>_<type> and DS_<op>_RTN_<type>.
template <Op O, typename T, unsigned NData>
void addAtomic(HandlerRegistry &registry, const char *op, const char *type,
               AtomicKind<O, T, NData>, bool withoutReturn = true) {
  if (withoutReturn)
    add(registry, Twine("DS_") + op + "_" + type, atomic<O, T, false, NData>);
  add(registry, Twine("DS_") + op + "_RTN_" + type, atomic<O, T, true, NData>);
}

template <unsigned Dwords, unsigned Stride>
void addPair(HandlerRegistry &registry, const char *type) {
  const char *st = Stride == 64 ? "ST64" : "";
  add(registry, Twine("DS_READ2") + st + "_" + type, read2<Dwords, Stride>);
  add(registry, Twine("DS_WRITE2") + st + "_" + type, write2<Dwords, Stride>);
  add(registry, Twine("DS_WRXCHG2") + st + "_RTN_" + type,
      exchange2<Dwords, Stride>);
}

} // namespace

void crest::emu::registerDSHandlers(HandlerRegistry &registry) {
  auto reads = {
      std::make_pair("U8", read<Data::U8>),
      std::make_pair("I8", read<Data::I8>),
      std::make_pair("U16", read<Data::U16>),
      std::make_pair("I16", read<Data::I16>),
      std::make_pair("B32", read<Data::B32>),
      std::make_pair("B64", read<Data::B64>),
      std::make_pair("B96", read<Data::B96>),
      std::make_pair("B128", read<Data::B128>),
      std::make_pair("U8_D16", read<Data::U8D16>),
      std::make_pair("I8_D16", read<Data::I8D16>),
      std::make_pair("U16_D16", read<Data::B16D16>),
      std::make_pair("U8_D16_HI", read<Data::U8D16Hi>),
      std::make_pair("I8_D16_HI", read<Data::I8D16Hi>),
      std::make_pair("U16_D16_HI", read<Data::B16D16Hi>),
  };
  for (auto [type, handler] : reads)
    add(registry, Twine("DS_READ_") + type, handler);
  auto writes = {
      std::make_pair("B8", write<Data::U8>),
      std::make_pair("B16", write<Data::U16>),
      std::make_pair("B32", write<Data::B32>),
      std::make_pair("B64", write<Data::B64>),
      std::make_pair("B96", write<Data::B96>),
      std::make_pair("B128", write<Data::B128>),
      std::make_pair("B8_D16_HI", write<Data::U8D16Hi>),
      std::make_pair("B16_D16_HI", write<Data::B16D16Hi>),
  };
  for (auto [type, handler] : writes)
    add(registry, Twine("DS_WRITE_") + type, handler);
  addPair<1, 1>(registry, "B32");
  addPair<2, 1>(registry, "B64");
  addPair<1, 64>(registry, "B32");
  addPair<2, 64>(registry, "B64");
  add(registry, "DS_READ_ADDTID_B32", addTid<false>);
  add(registry, "DS_WRITE_ADDTID_B32", addTid<true>);

  using U32 = uint32_t;
  using U64 = uint64_t;
  addAtomic(registry, "ADD", "U32", AtomicKind<Op::Add, U32>());
  addAtomic(registry, "SUB", "U32", AtomicKind<Op::Sub, U32>());
  addAtomic(registry, "RSUB", "U32", AtomicKind<Op::RSub, U32>());
  addAtomic(registry, "INC", "U32", AtomicKind<Op::Inc, U32>());
  addAtomic(registry, "DEC", "U32", AtomicKind<Op::Dec, U32>());
  addAtomic(registry, "MIN", "I32", AtomicKind<Op::SMin, U32>());
  addAtomic(registry, "MAX", "I32", AtomicKind<Op::SMax, U32>());
  addAtomic(registry, "MIN", "U32", AtomicKind<Op::UMin, U32>());
  addAtomic(registry, "MAX", "U32", AtomicKind<Op::UMax, U32>());
  addAtomic(registry, "AND", "B32", AtomicKind<Op::And, U32>());
  addAtomic(registry, "OR", "B32", AtomicKind<Op::Or, U32>());
  addAtomic(registry, "XOR", "B32", AtomicKind<Op::Xor, U32>());
  addAtomic(registry, "MSKOR", "B32", AtomicKind<Op::MskOr, U32, 2>());
  addAtomic(registry, "CMPST", "B32", AtomicKind<Op::CmpSwap, U32, 2>());
  addAtomic(registry, "CMPST", "F32", AtomicKind<Op::FCmpSwap, U32, 2>());
  addAtomic(registry, "MIN", "F32", AtomicKind<Op::FMin, U32>());
  addAtomic(registry, "MAX", "F32", AtomicKind<Op::FMax, U32>());
  addAtomic(registry, "ADD", "F32", AtomicKind<Op::FAdd, U32>());
  addAtomic(registry, "PK_ADD", "F16", AtomicKind<Op::PkAddF16, U32>());
  addAtomic(registry, "PK_ADD", "BF16", AtomicKind<Op::PkAddBF16, U32>());
  addAtomic(registry, "WRXCHG", "B32", AtomicKind<Op::Swap, U32>(), false);
  addAtomic(registry, "WRAP", "B32", AtomicKind<Op::Wrap, U32, 2>(), false);
  addAtomic(registry, "ADD", "U64", AtomicKind<Op::Add, U64>());
  addAtomic(registry, "SUB", "U64", AtomicKind<Op::Sub, U64>());
  addAtomic(registry, "RSUB", "U64", AtomicKind<Op::RSub, U64>());
  addAtomic(registry, "INC", "U64", AtomicKind<Op::Inc, U64>());
  addAtomic(registry, "DEC", "U64", AtomicKind<Op::Dec, U64>());
  addAtomic(registry, "MIN", "I64", AtomicKind<Op::SMin, U64>());
  addAtomic(registry, "MAX", "I64", AtomicKind<Op::SMax, U64>());
  addAtomic(registry, "MIN", "U64", AtomicKind<Op::UMin, U64>());
  addAtomic(registry, "MAX", "U64", AtomicKind<Op::UMax, U64>());
  addAtomic(registry, "AND", "B64", AtomicKind<Op::And, U64>());
  addAtomic(registry, "OR", "B64", AtomicKind<Op::Or, U64>());
  addAtomic(registry, "XOR", "B64", AtomicKind<Op::Xor, U64>());
  addAtomic(registry, "MSKOR", "B64", AtomicKind<Op::MskOr, U64, 2>());
  addAtomic(registry, "CMPST", "B64", AtomicKind<Op::CmpSwap, U64, 2>());
  addAtomic(registry, "CMPST", "F64", AtomicKind<Op::FCmpSwap, U64, 2>());
  addAtomic(registry, "MIN", "F64", AtomicKind<Op::FMin, U64>());
  addAtomic(registry, "MAX", "F64", AtomicKind<Op::FMax, U64>());
  addAtomic(registry, "ADD", "F64", AtomicKind<Op::FAdd, U64>());
  addAtomic(registry, "WRXCHG", "B64", AtomicKind<Op::Swap, U64>(), false);

  add(registry, "DS_BPERMUTE_B32", permute<true>);
  add(registry, "DS_PERMUTE_B32", permute<false>);
  add(registry, "DS_SWIZZLE_B32", swizzle);
  add(registry, "DS_NOP", nop);
}
