//===- VMEM.cpp - Global, flat, scratch and buffer memory -----------------===//
//
// Loads, stores and atomics of the FLAT (flat_*, global_*, scratch_*) and
// MUBUF (buffer_*) encodings on gfx90a and gfx942. A handler is one
// template per operation (load, store, atomic, load-to-LDS) instantiated
// for an address space; the address space resolves each active lane's
// access to host memory, piece by piece, and does the bounds checks.
//
// Addresses (CDNA3 ISA, "Flat Memory Instructions" and "Buffer
// Addressing"; LLVM 22 operand layouts, pinned by the tests):
//
// * global: VGPR pair + sext(offset[12:0]), or with SADDR an SGPR-pair base
//   + the zero-extended 32-bit VGPR + sext(offset). Every byte must lie in
//   one allocation, else the dispatch fails naming the lane.
// * flat: VGPR pair + offset[11:0] (unsigned; the MSB of the 13-bit field
//   is ignored), routed by aperture: the shared aperture goes to the LDS
//   (through the race detector), the private aperture to the lane's
//   private memory, anything else to global memory. Flat atomics on
//   private memory fail: the hardware does not support them before gfx950
//   and LLVM guards generic atomics against private addresses.
// * scratch: the lane's private offset, from a VGPR (the vaddr form, "_VE"
//   on gfx942), an SGPR (SADDR), both (SVS, gfx942) or neither (ST,
//   gfx942), plus sext(offset[12:0]), all in 32 bits; it must lie inside
//   the kernel's private segment size. The FLAT_SCRATCH base is not used:
//   each wave owns its private memory.
// * buffer: see BufferResource below.
//
// Cache-policy bits (glc/slc/sc0/sc1/nt) only select the returning form of
// an atomic, which LLVM encodes in the opcode (_RTN); the cache maintenance
// instructions are no-ops since memory is coherent.
//
//===----------------------------------------------------------------------===//

#include "Memory.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <utility>

using namespace llvm;
using namespace crest::emu;
using namespace crest::emu::mem;

namespace {

enum class Kind : uint8_t { Load, Store, Atomic, AtomicRtn, LoadLds };

/// Operand positions of one form (-1: absent).
struct Layout {
  int8_t vdst = -1, vaddr = -1, vdata = -1, saddr = -1, srsrc = -1,
         soffset = -1, offset = -1;
};

//===----------------------------------------------------------------------===//
// Global
//===----------------------------------------------------------------------===//

enum class GlobalForm : uint8_t { VAddr, SAddr };

/// Loads: vdst, [saddr,] vaddr, offset, cpol. Stores and atomics: [vdst,]
/// vaddr, vdata, [saddr,] offset, cpol. Loads to LDS: [saddr,] vaddr,
/// offset, cpol.
template <GlobalForm Form> struct Global {
  static constexpr bool kSAddr = Form == GlobalForm::SAddr;
  static constexpr Layout layout(Kind kind) {
    Layout l;
    int8_t i = 0;
    if (kind == Kind::Load || kind == Kind::AtomicRtn)
      l.vdst = i++;
    if (kind == Kind::Load || kind == Kind::LoadLds) {
      if (kSAddr)
        l.saddr = i++;
      l.vaddr = i++;
    } else {
      l.vaddr = i++;
      l.vdata = i++;
      if (kSAddr)
        l.saddr = i++;
    }
    l.offset = i++;
    return l;
  }

  Wave &wave;
  const Inst &inst;
  Layout l;
  uint64_t base = 0;
  int64_t offset;
  bool ok = true;

  Global(Wave &wave, const Inst &inst, Layout l)
      : wave(wave), inst(inst), l(l),
        offset(signExtend(inst.ops[l.offset].imm, 13)) {
    if (kSAddr)
      base = wave.readScalar64(inst.ops[l.saddr]);
  }

  uint64_t address(unsigned lane) const {
    if (kSAddr)
      return base + wave.vreg(inst.ops[l.vaddr].index)[lane] + offset;
    return wave.readLane64(inst.ops[l.vaddr], lane) + offset;
  }

  template <class Fn>
  bool access(unsigned lane, unsigned size, unsigned, LdsAccess, Fn &&fn) {
    uint64_t a = address(lane);
    uint8_t *p = wave.global(inst, a, size, lane);
    if (!p)
      return false;
    fn(p, 0, size, Where::Global);
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Flat
//===----------------------------------------------------------------------===//

struct Flat {
  static constexpr Layout layout(Kind kind) {
    return Global<GlobalForm::VAddr>::layout(kind);
  }

  Wave &wave;
  const Inst &inst;
  Layout l;
  uint64_t offset;
  bool ok = true;

  Flat(Wave &wave, const Inst &inst, Layout l)
      : wave(wave), inst(inst), l(l), offset(inst.ops[l.offset].imm & 0xfff) {}

  template <class Fn>
  bool access(unsigned lane, unsigned size, unsigned, LdsAccess kind, Fn &&fn) {
    uint64_t a = wave.readLane64(inst.ops[l.vaddr], lane) + offset;
    uint8_t *p;
    Where where = Where::Global;
    if (a - Memory::kSharedAperture < Memory::kApertureSize) {
      where = Where::Lds;
      p = ldsBytes(wave, inst, a - Memory::kSharedAperture, size, kind);
    } else if (a - Memory::kPrivateAperture < Memory::kApertureSize) {
      where = Where::Private;
      if (kind == LdsAccess::Atomic) {
        wave.fail(inst, formatv("flat atomic on the private address {0:x} "
                                "(lane {1}): scratch atomics are not "
                                "supported by the hardware",
                                a, lane));
        return false;
      }
      p = privateBytes(wave, inst, lane, a - Memory::kPrivateAperture, size);
    } else {
      p = wave.global(inst, a, size, lane);
    }
    if (!p)
      return false;
    fn(p, 0, size, where);
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Scratch
//===----------------------------------------------------------------------===//

/// VAddr: vaddr (SCRATCH_*, or SCRATCH_*_VE on gfx942); SAddr: saddr;
/// SVS: vaddr and saddr; ST: neither.
enum class ScratchForm : uint8_t { VAddr, SAddr, SVS, ST };

/// [vdst | vdata,] [vaddr,] [saddr,] offset, cpol.
template <ScratchForm Form> struct Scratch {
  static constexpr bool kV =
      Form == ScratchForm::VAddr || Form == ScratchForm::SVS;
  static constexpr bool kS =
      Form == ScratchForm::SAddr || Form == ScratchForm::SVS;
  static constexpr Layout layout(Kind kind) {
    Layout l;
    int8_t i = 0;
    if (kind == Kind::Load)
      l.vdst = i++;
    else if (kind == Kind::Store)
      l.vdata = i++;
    if (kV)
      l.vaddr = i++;
    if (kS)
      l.saddr = i++;
    l.offset = i++;
    return l;
  }

  Wave &wave;
  const Inst &inst;
  Layout l;
  uint32_t base = 0;
  bool ok = true;

  Scratch(Wave &wave, const Inst &inst, Layout l)
      : wave(wave), inst(inst), l(l) {
    base = uint32_t(signExtend(inst.ops[l.offset].imm, 13));
    if (kS)
      base += wave.readScalar32(inst.ops[l.saddr]);
  }

  template <class Fn>
  bool access(unsigned lane, unsigned size, unsigned, LdsAccess, Fn &&fn) {
    uint32_t offset = base;
    if (kV)
      offset += wave.vreg(inst.ops[l.vaddr].index)[lane];
    uint8_t *p = privateBytes(wave, inst, lane, offset, size);
    if (!p)
      return false;
    fn(p, 0, size, Where::Private);
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//
//
// The buffer resource (V#, four SGPRs), as the CDNA3 ISA's "Buffer
// Resource Descriptor" table gives it:
//   DWORD0 [31:0]   base address [31:0]
//   DWORD1 [15:0]   base address [47:32]
//          [29:16]  STRIDE (bytes)
//          [30]     cache swizzle (a cache hint: ignored)
//          [31]     SWIZZLE_ENABLE
//   DWORD2 [31:0]   NUM_RECORDS (bytes for raw buffers, records of STRIDE
//                   for structured ones)
//   DWORD3 [11:0]   DST_SEL_X/Y/Z/W (only the format instructions, which
//                   are not implemented, use them)
//          [14:12]  NUM_FORMAT (ditto)
//          [18:15]  DATA_FORMAT; with ADD_TID_ENABLE it holds STRIDE[17:14]
//                   (the 18-bit scratch stride). DATA_FORMAT 0 (INVALID)
//                   marks an unbound resource; a V# that is not all zeros
//                   but has it fails rather than guess.
//          [20:19]  USER_VM_ENABLE/MODE on CDNA3 (ELEMENT_SIZE before
//                   gfx9: LLVM sets it only up to VI); swizzling uses
//                   4-byte elements
//          [22:21]  INDEX_STRIDE: 8 << value
//          [23]     ADD_TID_ENABLE
//          [27]     NV (ignored); [31:30] TYPE, must be 0 (buffer)
//
// Address, per lane and per component (dword) of the access:
//   index  = (idxen ? VGPR index : 0) + (ADD_TID_ENABLE ? lane : 0)
//   offset = (offen ? VGPR offset : 0) + inst_offset[11:0] + component
//   linear:   buffer_offset = offset + STRIDE * index
//   swizzled: buffer_offset = (index / IS * STRIDE + offset / 4 * 4) * IS
//                             + index % IS * 4 + offset % 4
//   address = (base + soffset + buffer_offset) mod 2^48
// Range checking (ISA "Range Checking"; soffset is excluded, as LLVM's
// buffer intrinsics document):
//   private (ADD_TID_ENABLE, !idxen): none (the private segment bounds
//                                     apply instead)
//   raw (!ADD_TID, !SWIZZLE, !idxen): a component is out of range unless
//                                     offset + its size <= NUM_RECORDS (a
//                                     dword that starts in range but ends
//                                     out of it is out, as LLVM's "buffer
//                                     OOB mode" documentation describes)
//   structured (!ADD_TID, STRIDE != 0, idxen): index >= NUM_RECORDS
//   any other combination fails (the ISA defines no check for it).
// Out-of-range loads return 0 per component, stores are dropped per
// component, atomics are all or nothing (a returning one returns 0).
//
// The private segment buffer (s[0:3] of the dispatch) has its base at
// Memory::kPrivateSegmentBase. Addresses in that window are offsets into
// the wave's scratch backing store, which the hardware lays out swizzled
// with 4-byte elements and an index stride of the wave size: byte T holds
// byte (T / (4 * lanes)) * 4 + T % 4 of lane (T / 4) % lanes. LLVM's
// gfx90a spills (`buffer_store_dword v, off, s[0:3], soffset offset:N` or
// with `offen`) thus reach the right lane's private bytes, and so do stack
// pointers that LLVM keeps scaled by the wave size in soffset.

enum class BufferForm : uint8_t { Offset, OffEn, IdxEn, BothEn };

struct BufferResource {
  uint64_t base;
  uint32_t stride, numRecords, dataFormat, indexStride, type;
  bool swizzle, addTid;

  explicit BufferResource(const uint32_t v[4])
      : base(v[0] | (uint64_t(v[1] & 0xffff) << 32)),
        stride((v[1] >> 16) & 0x3fff), numRecords(v[2]),
        dataFormat((v[3] >> 15) & 0xf), indexStride(8u << ((v[3] >> 21) & 3)),
        type(v[3] >> 30), swizzle(v[1] >> 31), addTid((v[3] >> 23) & 1) {
    if (addTid)
      stride |= dataFormat << 14;
  }
};

/// Loads and stores: vdata, [vaddr,] srsrc, soffset, offset, cpol, swz.
/// Atomics: [vdst,] vdata, [vaddr,] srsrc, soffset, offset, cpol (vdst and
/// vdata are the same registers). Loads to LDS: [vaddr,] srsrc, soffset,
/// offset, cpol, swz. BothEn reads the index from vaddr and the offset from
/// vaddr + 1.
template <BufferForm Form> struct Buffer {
  static constexpr bool kIdxEn =
      Form == BufferForm::IdxEn || Form == BufferForm::BothEn;
  static constexpr bool kOffEn =
      Form == BufferForm::OffEn || Form == BufferForm::BothEn;
  static constexpr Layout layout(Kind kind) {
    Layout l;
    int8_t i = 0;
    if (kind == Kind::Load || kind == Kind::AtomicRtn)
      l.vdst = i++;
    if (kind == Kind::Store || kind == Kind::Atomic || kind == Kind::AtomicRtn)
      l.vdata = i++;
    if (Form != BufferForm::Offset)
      l.vaddr = i++;
    l.srsrc = i++;
    l.soffset = i++;
    l.offset = i++;
    return l;
  }

  enum class Check : uint8_t { Private, Raw, Structured };

  Wave &wave;
  const Inst &inst;
  Layout l;
  uint32_t words[4];
  BufferResource rsrc;
  uint32_t soffset, instOffset;
  Check check = Check::Raw;
  bool ok = true;

  static const uint32_t *readWords(const Wave &wave, const Operand &op,
                                   uint32_t *words) {
    wave.readScalarN(op, words);
    return words;
  }

  Buffer(Wave &wave, const Inst &inst, Layout l)
      : wave(wave), inst(inst), l(l),
        rsrc(readWords(wave, inst.ops[l.srsrc], words)),
        soffset(wave.readScalar32(inst.ops[l.soffset])),
        instOffset(uint32_t(inst.ops[l.offset].imm & 0xfff)) {
    ok = classify();
  }

  /// Picks the range check; fails the wave on a V# the ISA does not define
  /// an access for.
  bool classify() {
    if (rsrc.type != 0) {
      wave.fail(inst, formatv("the resource is not a buffer (TYPE {0} in "
                              "DWORD3[31:30] = {1:x})",
                              rsrc.type, words[3]));
      return false;
    }
    if (rsrc.addTid && !kIdxEn) {
      check = Check::Private;
    } else if (!rsrc.addTid && !rsrc.swizzle && !kIdxEn) {
      check = Check::Raw;
    } else if (!rsrc.addTid && rsrc.stride != 0 && kIdxEn) {
      check = Check::Structured;
    } else {
      wave.fail(inst, formatv("buffer addressing with ADD_TID_ENABLE={0}, "
                              "SWIZZLE_ENABLE={1}, STRIDE={2} and idxen={3} "
                              "has no range check in the ISA (V# {4:x} {5:x} "
                              "{6:x} {7:x})",
                              unsigned(rsrc.addTid), unsigned(rsrc.swizzle),
                              rsrc.stride, unsigned(kIdxEn), words[0], words[1],
                              words[2], words[3]));
      return false;
    }
    bool zero = !(words[0] | words[1] | words[2] | words[3]);
    if (!rsrc.addTid && rsrc.dataFormat == 0 && !zero) {
      wave.fail(inst, formatv("the buffer resource has DATA_FORMAT 0 "
                              "(INVALID, an unbound resource) in DWORD3 = "
                              "{0:x}",
                              words[3]));
      return false;
    }
    return true;
  }

  uint64_t bufferOffset(uint64_t index, uint64_t offset) const {
    if (!rsrc.swizzle)
      return offset + uint64_t(rsrc.stride) * index;
    uint64_t is = rsrc.indexStride;
    return (index / is * rsrc.stride + offset / 4 * 4) * is + index % is * 4 +
           offset % 4;
  }

  /// Visits the bytes [at, at + n) of one component at address `a` of the
  /// private segment window: 4-byte elements of the swizzled backing store.
  template <class Fn>
  bool privateComponent(uint64_t a, unsigned at, unsigned n, LdsAccess kind,
                        Fn &fn) {
    if (kind == LdsAccess::Atomic) {
      wave.fail(inst, "buffer atomics on the private segment are not "
                      "supported");
      return false;
    }
    uint64_t t = a - Memory::kPrivateSegmentBase;
    unsigned lanes = wave.lanes;
    for (unsigned done = 0; done < n;) {
      uint64_t b = t + done;
      unsigned piece = std::min<unsigned>(n - done, 4 - unsigned(b % 4));
      unsigned owner = unsigned((b / 4) % lanes);
      uint64_t offset = b / (4 * lanes) * 4 + b % 4;
      uint8_t *p = privateBytes(wave, inst, owner, offset, piece);
      if (!p)
        return false;
      fn(p, at + done, piece, Where::Private);
      done += piece;
    }
    return true;
  }

  template <class Fn>
  bool access(unsigned lane, unsigned size, unsigned component, LdsAccess kind,
              Fn &&fn) {
    uint32_t vaddr = kIdxEn || kOffEn ? inst.ops[l.vaddr].index : 0;
    uint64_t index = kIdxEn ? wave.vreg(vaddr)[lane] : 0;
    if (rsrc.addTid)
      index += lane;
    uint64_t offset = instOffset;
    if (kOffEn)
      offset += wave.vreg(vaddr + (kIdxEn ? 1 : 0))[lane];
    for (unsigned at = 0; at < size; at += component) {
      uint64_t off = offset + at;
      if ((check == Check::Raw && off + component > rsrc.numRecords) ||
          (check == Check::Structured && index >= rsrc.numRecords))
        continue; // out of range: loads see 0, stores are dropped
      uint64_t a = (rsrc.base + soffset + bufferOffset(index, off)) &
                   ((uint64_t(1) << 48) - 1);
      if (a - Memory::kPrivateSegmentBase < Memory::kPrivateSegmentSize) {
        if (!privateComponent(a, at, component, kind, fn))
          return false;
        continue;
      }
      uint8_t *p = wave.global(inst, a, component, lane);
      if (!p)
        return false;
      fn(p, at, component, Where::Global);
    }
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

template <class Space, Data D> void load(Wave &wave, const Inst &inst) {
  countVmem(wave);
  constexpr Layout l = Space::layout(Kind::Load);
  Space space(wave, inst, l);
  if (!space.ok)
    return;
  unsigned vdst = inst.ops[l.vdst].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint8_t bytes[16] = {};
    if (!space.access(lane, bytesOf(D), componentBytesOf(D), LdsAccess::Read,
                      [&](const uint8_t *p, unsigned at, unsigned n, Where) {
                        std::memcpy(bytes + at, p, n);
                      }))
      return false;
    toRegisters<D>(wave, vdst, lane, bytes);
    return true;
  });
}

template <class Space, Data D> void store(Wave &wave, const Inst &inst) {
  countVmem(wave);
  constexpr Layout l = Space::layout(Kind::Store);
  Space space(wave, inst, l);
  if (!space.ok)
    return;
  unsigned vdata = inst.ops[l.vdata].index;
  forActiveLanes(wave, [&](unsigned lane) {
    uint8_t bytes[16];
    fromRegisters<D>(wave, vdata, lane, bytes);
    return space.access(lane, bytesOf(D), componentBytesOf(D), LdsAccess::Write,
                        [&](uint8_t *p, unsigned at, unsigned n, Where) {
                          std::memcpy(p, bytes + at, n);
                        });
  });
}

/// An atomic on `T`; the data operand holds `data` and, for compare-swap,
/// `cmp` in the next register(s) (DATA[31:0] = src, DATA[63:32] = cmp).
template <class Space, Op O, typename T, bool Rtn>
void atomic(Wave &wave, const Inst &inst) {
  countVmem(wave);
  constexpr Layout l = Space::layout(Rtn ? Kind::AtomicRtn : Kind::Atomic);
  Space space(wave, inst, l);
  if (!space.ok)
    return;
  unsigned vdata = inst.ops[l.vdata].index;
  // Workgroups may run on several host threads: the instruction's
  // read-modify-writes are one step with respect to the other workgroups'
  // atomics (and order the plain accesses around them).
  std::lock_guard<std::mutex> lock(*wave.dispatch.atomics);
  forActiveLanes(wave, [&](unsigned lane) {
    T data = readVgprs<T>(wave, vdata, lane);
    T cmp = 0;
    if constexpr (O == Op::CmpSwap)
      cmp = readVgprs<T>(wave, vdata + sizeof(T) / 4, lane);
    T old = 0;
    if (!space.access(lane, sizeof(T), sizeof(T), LdsAccess::Atomic,
                      [&](uint8_t *p, unsigned, unsigned, Where where) {
                        std::memcpy(&old, p, sizeof(T));
                        T value = atomicResult<O, T>(
                            old, data, cmp,
                            atomicFpRules<O, T>(wave, where == Where::Lds));
                        std::memcpy(p, &value, sizeof(T));
                      }))
      return false;
    if constexpr (Rtn)
      writeVgprs<T>(wave, inst.ops[l.vdst].index, lane, old);
    return true;
  });
}

/// global_load_lds_dword, scratch_load_lds_dword and buffer_load_dword ...
/// lds: each active lane's dword goes to LDS byte M0[17:0] + inst_offset +
/// 4 * lane (the offset applies to both addresses, as LLVM's global.load.lds
/// and buffer.load.lds intrinsics document). The byte and short forms are
/// not implemented: how they fill the LDS dword is not documented.
template <class Space> void loadToLds(Wave &wave, const Inst &inst) {
  countVmem(wave);
  constexpr Layout l = Space::layout(Kind::LoadLds);
  Space space(wave, inst, l);
  if (!space.ok)
    return;
  uint64_t ldsBase =
      (wave.sgpr[sreg::M0] & 0x3ffff) + (inst.ops[l.offset].imm & 0xfff);
  forActiveLanes(wave, [&](unsigned lane) {
    uint8_t bytes[4] = {};
    if (!space.access(lane, 4, 4, LdsAccess::Read,
                      [&](const uint8_t *p, unsigned at, unsigned n, Where) {
                        std::memcpy(bytes + at, p, n);
                      }))
      return false;
    uint8_t *lds =
        ldsBytes(wave, inst, ldsBase + 4 * lane, 4, LdsAccess::Write);
    if (!lds)
      return false;
    std::memcpy(lds, bytes, 4);
    return true;
  });
}

void cacheControl(Wave &wave, const Inst &) { countVmem(wave); }

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

template <Data D> struct DataName;
#define CREST_DATA_NAME(D, LOAD, STORE)                                        \
  template <> struct DataName<Data::D> {                                       \
    static constexpr const char *load = LOAD, *store = STORE;                  \
  };
CREST_DATA_NAME(U8, "UBYTE", "BYTE")
CREST_DATA_NAME(I8, "SBYTE", nullptr)
CREST_DATA_NAME(U16, "USHORT", "SHORT")
CREST_DATA_NAME(I16, "SSHORT", nullptr)
CREST_DATA_NAME(B32, "DWORD", "DWORD")
CREST_DATA_NAME(B64, "DWORDX2", "DWORDX2")
CREST_DATA_NAME(B96, "DWORDX3", "DWORDX3")
CREST_DATA_NAME(B128, "DWORDX4", "DWORDX4")
CREST_DATA_NAME(U8D16, "UBYTE_D16", nullptr)
CREST_DATA_NAME(I8D16, "SBYTE_D16", nullptr)
CREST_DATA_NAME(B16D16, "SHORT_D16", nullptr)
CREST_DATA_NAME(U8D16Hi, "UBYTE_D16_HI", "BYTE_D16_HI")
CREST_DATA_NAME(I8D16Hi, "SBYTE_D16_HI", nullptr)
CREST_DATA_NAME(B16D16Hi, "SHORT_D16_HI", "SHORT_D16_HI")
#undef CREST_DATA_NAME

using AllData =
    std::integer_sequence<Data, Data::U8, Data::I8, Data::U16, Data::I16,
                          Data::B32, Data::B64, Data::B96, Data::B128,
                          Data::U8D16, Data::I8D16, Data::B16D16, Data::U8D16Hi,
                          Data::I8D16Hi, Data::B16D16Hi>;

/// Registers `<prefix>LOAD_<data><suffix>` and `<prefix>STORE_<data><suffix>`
/// for every data format of `Space`.
template <class Space, Data... Ds>
void addLoadsAndStores(HandlerRegistry &registry, StringRef prefix,
                       StringRef suffix, std::integer_sequence<Data, Ds...>) {
  auto addOne = [&](const char *load, Handler loadHandler, const char *store,
                    Handler storeHandler) {
    registry.add((prefix + "LOAD_" + load + suffix).str(), loadHandler);
    if (store)
      registry.add((prefix + "STORE_" + store + suffix).str(), storeHandler);
  };
  (addOne(DataName<Ds>::load, load<Space, Ds>, DataName<Ds>::store,
          store<Space, Ds>),
   ...);
}

/// The atomics of global, flat and buffer memory: name, operation, type.
template <Op O, typename T> struct AtomicKind {};

template <class Fn> void forEachVmemAtomic(Fn &&fn) {
  fn("SWAP", AtomicKind<Op::Swap, uint32_t>());
  fn("CMPSWAP", AtomicKind<Op::CmpSwap, uint32_t>());
  fn("ADD", AtomicKind<Op::Add, uint32_t>());
  fn("SUB", AtomicKind<Op::Sub, uint32_t>());
  fn("SMIN", AtomicKind<Op::SMin, uint32_t>());
  fn("UMIN", AtomicKind<Op::UMin, uint32_t>());
  fn("SMAX", AtomicKind<Op::SMax, uint32_t>());
  fn("UMAX", AtomicKind<Op::UMax, uint32_t>());
  fn("AND", AtomicKind<Op::And, uint32_t>());
  fn("OR", AtomicKind<Op::Or, uint32_t>());
  fn("XOR", AtomicKind<Op::Xor, uint32_t>());
  fn("INC", AtomicKind<Op::Inc, uint32_t>());
  fn("DEC", AtomicKind<Op::Dec, uint32_t>());
  fn("ADD_F32", AtomicKind<Op::FAdd, uint32_t>());
  fn("PK_ADD_F16", AtomicKind<Op::PkAddF16, uint32_t>());
  fn("PK_ADD_BF16", AtomicKind<Op::PkAddBF16, uint32_t>());
  fn("SWAP_X2", AtomicKind<Op::Swap, uint64_t>());
  fn("CMPSWAP_X2", AtomicKind<Op::CmpSwap, uint64_t>());
  fn("ADD_X2", AtomicKind<Op::Add, uint64_t>());
  fn("SUB_X2", AtomicKind<Op::Sub, uint64_t>());
  fn("SMIN_X2", AtomicKind<Op::SMin, uint64_t>());
  fn("UMIN_X2", AtomicKind<Op::UMin, uint64_t>());
  fn("SMAX_X2", AtomicKind<Op::SMax, uint64_t>());
  fn("UMAX_X2", AtomicKind<Op::UMax, uint64_t>());
  fn("AND_X2", AtomicKind<Op::And, uint64_t>());
  fn("OR_X2", AtomicKind<Op::Or, uint64_t>());
  fn("XOR_X2", AtomicKind<Op::Xor, uint64_t>());
  fn("INC_X2", AtomicKind<Op::Inc, uint64_t>());
  fn("DEC_X2", AtomicKind<Op::Dec, uint64_t>());
  fn("ADD_F64", AtomicKind<Op::FAdd, uint64_t>());
  fn("MIN_F64", AtomicKind<Op::FMin, uint64_t>());
  fn("MAX_F64", AtomicKind<Op::FMax, uint64_t>());
}

template <class Space, Op O, typename T>
Handler atomicHandler(AtomicKind<O, T>) {
  return atomic<Space, O, T, false>;
}
template <class Space, Op O, typename T>
Handler atomicRtnHandler(AtomicKind<O, T>) {
  return atomic<Space, O, T, true>;
}

/// Registers `<prefix><name><form>` (no return) and `<prefix><name><form>
/// _RTN` for every atomic (the decoder strips the `_agpr` suffix of the
/// AGPR-data forms).
template <class Space>
void addAtomics(HandlerRegistry &registry, StringRef prefix, StringRef form) {
  forEachVmemAtomic([&](const char *name, auto kind) {
    registry.add((prefix + name + form).str(), atomicHandler<Space>(kind));
    Handler rtn = atomicRtnHandler<Space>(kind);
    registry.add((prefix + name + form + "_RTN").str(), rtn);
  });
}

} // namespace

void crest::emu::registerVMEMHandlers(HandlerRegistry &registry) {
  using GV = Global<GlobalForm::VAddr>;
  using GS = Global<GlobalForm::SAddr>;
  addLoadsAndStores<GV>(registry, "GLOBAL_", "", AllData());
  addLoadsAndStores<GS>(registry, "GLOBAL_", "_SADDR", AllData());
  addLoadsAndStores<Flat>(registry, "FLAT_", "", AllData());
  addAtomics<GV>(registry, "GLOBAL_ATOMIC_", "");
  addAtomics<GS>(registry, "GLOBAL_ATOMIC_", "_SADDR");
  addAtomics<Flat>(registry, "FLAT_ATOMIC_", "");
  registry.add("GLOBAL_LOAD_LDS_DWORD", loadToLds<GV>);
  registry.add("GLOBAL_LOAD_LDS_DWORD_SADDR", loadToLds<GS>);

  // Scratch: the vaddr form is SCRATCH_* on gfx90a and SCRATCH_*_VE on
  // gfx942.
  using SV = Scratch<ScratchForm::VAddr>;
  addLoadsAndStores<SV>(registry, "SCRATCH_", "", AllData());
  addLoadsAndStores<SV>(registry, "SCRATCH_", "_VE", AllData());
  addLoadsAndStores<Scratch<ScratchForm::SAddr>>(registry, "SCRATCH_", "_SADDR",
                                                 AllData());
  addLoadsAndStores<Scratch<ScratchForm::SVS>>(registry, "SCRATCH_", "_SVS",
                                               AllData());
  addLoadsAndStores<Scratch<ScratchForm::ST>>(registry, "SCRATCH_", "_ST",
                                              AllData());
  registry.add("SCRATCH_LOAD_LDS_DWORD", loadToLds<SV>);
  registry.add("SCRATCH_LOAD_LDS_DWORD_SADDR",
               loadToLds<Scratch<ScratchForm::SAddr>>);
  registry.add("SCRATCH_LOAD_LDS_DWORD_SVS",
               loadToLds<Scratch<ScratchForm::SVS>>);
  registry.add("SCRATCH_LOAD_LDS_DWORD_ST",
               loadToLds<Scratch<ScratchForm::ST>>);

  auto addBuffer = [&](auto form, const char *suffix) {
    using Space = Buffer<decltype(form)::value>;
    addLoadsAndStores<Space>(registry, "BUFFER_", suffix, AllData());
    addAtomics<Space>(registry, "BUFFER_ATOMIC_", suffix);
    registry.add((Twine("BUFFER_LOAD_DWORD_LDS") + suffix).str(),
                 loadToLds<Space>);
  };
  addBuffer(std::integral_constant<BufferForm, BufferForm::Offset>(),
            "_OFFSET");
  addBuffer(std::integral_constant<BufferForm, BufferForm::OffEn>(), "_OFFEN");
  addBuffer(std::integral_constant<BufferForm, BufferForm::IdxEn>(), "_IDXEN");
  addBuffer(std::integral_constant<BufferForm, BufferForm::BothEn>(),
            "_BOTHEN");

  // Cache write-back and invalidation: memory is coherent.
  for (const char *name :
       {"BUFFER_WBINVL1", "BUFFER_WBINVL1_VOL", "BUFFER_WBL2", "BUFFER_INV",
        "BUFFER_INVL2"})
    registry.add(name, cacheControl);
}
