//===- SMEM.cpp - Scalar memory instructions ------------------------------===//
//
// Scalar loads, stores and atomics of gfx9 (gfx90a, gfx942), through a
// 64-bit address (s_load, s_store, s_atomic) or a buffer descriptor
// (s_buffer_*), plus s_memtime/s_memrealtime and the scalar-cache controls.
// Accesses complete at once (s_waitcnt is a no-op) and the emulator has no
// scalar cache, so cache write-backs, invalidations and probes do nothing.
//
// Operands: [sdst,] sdata, sbase, then the offset in one of four forms (the
// encoding's IMM and SOE bits): an immediate (_IMM), an SGPR (_SGPR, or
// _SGPR_alt when the SGPR is in the SOFFSET field), or both (_SGPR_IMM), and
// the cache-policy bits. The immediate is a signed 21-bit byte offset (LLVM
// decodes it sign-extended); the SGPR offset is unsigned. Per the ISA, the
// two low bits of every address component are ignored.
//
// Buffer forms use base [47:0], stride [61:48] and num_records [95:64] of
// the 4-SGPR descriptor. The emulator implements raw buffers (stride 0),
// where the byte offset (SGPR + immediate) is range-checked against
// num_records dword by dword, as VMEM raw buffers are: a dword is in range
// if offset + 4 <= num_records. Out-of-range dwords read 0 and are not
// stored; an atomic is in or out as a whole, and one out of range does
// nothing and returns 0. A descriptor with a non-zero stride, or a negative
// immediate with a descriptor, fails.
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"

#include "llvm/Support/FormatVariadic.h"

#include <type_traits>

using namespace crest::emu;

namespace {

enum class Form { Imm, Sgpr, SgprImm };

constexpr int64_t kDwordMask = ~int64_t(3);

/// The offset operands of an access whose sbase is ops[base].
template <Form F> struct Offset {
  uint32_t sgpr = 0;
  int64_t imm = 0;

  Offset(const Wave &wave, const Inst &inst, unsigned base) {
    if constexpr (F == Form::Imm) {
      imm = signExtend(inst.ops[base + 1].imm, 21);
    } else {
      sgpr = wave.readScalar32(inst.ops[base + 1]);
      if constexpr (F == Form::SgprImm)
        imm = signExtend(inst.ops[base + 2].imm, 21);
    }
  }
};

/// A resolved access: `address` of the first dword and, for buffers, how
/// many bytes from it are in range.
struct Access {
  uint64_t address = 0;
  uint64_t inRangeBytes = ~uint64_t(0);
  bool ok = true;

  /// Whether `size` bytes at `at` bytes from `address` are in range.
  bool inRange(uint64_t at, uint64_t size) const {
    return at + size <= inRangeBytes;
  }
  bool dwordInRange(unsigned i) const { return inRange(4ull * i, 4); }
};

/// Address of s_load/s_store/s_atomic: sbase (64-bit) + SGPR + imm.
template <Form F>
Access globalAccess(const Wave &wave, const Inst &inst, unsigned base) {
  Offset<F> offset(wave, inst, base);
  Access access;
  access.address = (wave.readScalar64(inst.ops[base]) & kDwordMask) +
                   (uint64_t(offset.sgpr) & kDwordMask) +
                   (offset.imm & kDwordMask);
  return access;
}

/// Address and range of s_buffer_*: descriptor base + SGPR + imm, the
/// offset checked against num_records.
template <Form F>
Access bufferAccess(Wave &wave, const Inst &inst, unsigned base) {
  Offset<F> offset(wave, inst, base);
  Access access;
  uint32_t desc[4];
  wave.readScalarN(inst.ops[base], desc);
  uint32_t stride = (desc[1] >> 16) & 0x3fff;
  if (stride != 0) {
    wave.fail(inst, llvm::formatv("scalar buffer access with descriptor "
                                  "stride {0} is not implemented (only raw "
                                  "buffers, stride 0)",
                                  stride));
    access.ok = false;
    return access;
  }
  if (offset.imm < 0) {
    wave.fail(inst, "a scalar buffer access with a negative immediate offset "
                    "is undefined");
    access.ok = false;
    return access;
  }
  uint64_t descBase = (uint64_t(desc[1] & 0xffff) << 32) | desc[0];
  uint64_t byteOffset =
      (uint64_t(offset.sgpr) & kDwordMask) + (offset.imm & kDwordMask);
  access.address = (descBase & kDwordMask) + byteOffset;
  uint64_t numRecords = desc[2];
  access.inRangeBytes = byteOffset < numRecords ? numRecords - byteOffset : 0;
  return access;
}

template <Form F, bool Buffer>
Access resolve(Wave &wave, const Inst &inst, unsigned base) {
  if constexpr (Buffer)
    return bufferAccess<F>(wave, inst, base);
  else
    return globalAccess<F>(wave, inst, base);
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

/// s_load / s_buffer_load: sdst, sbase, offset...
template <unsigned Dwords, Form F, bool Buffer>
void load(Wave &wave, const Inst &inst) {
  Access access = resolve<F, Buffer>(wave, inst, 1);
  if (!access.ok)
    return;
  uint32_t values[Dwords] = {};
  if (!Buffer || access.dwordInRange(Dwords - 1)) {
    const uint8_t *p = wave.global(inst, access.address, Dwords * 4, 0);
    if (!p)
      return;
    std::memcpy(values, p, sizeof(values));
  } else {
    for (unsigned i = 0; i < Dwords && access.dwordInRange(i); ++i) {
      const uint8_t *p = wave.global(inst, access.address + 4 * i, 4, 0);
      if (!p)
        return;
      std::memcpy(&values[i], p, 4);
    }
  }
  wave.writeScalarN(inst.ops[0], values, Dwords);
}

/// s_store / s_buffer_store: sdata, sbase, offset...
template <unsigned Dwords, Form F, bool Buffer>
void store(Wave &wave, const Inst &inst) {
  Access access = resolve<F, Buffer>(wave, inst, 1);
  if (!access.ok)
    return;
  uint32_t values[Dwords];
  wave.readScalarN(inst.ops[0], values);
  for (unsigned i = 0; i < Dwords && access.dwordInRange(i); ++i) {
    uint8_t *p = wave.global(inst, access.address + 4 * i, 4, 0);
    if (!p)
      return;
    std::memcpy(p, &values[i], 4);
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

struct Swap {
  template <typename T> static T apply(T, T data) { return data; }
};
struct Add {
  template <typename T> static T apply(T old, T data) { return old + data; }
};
struct Sub {
  template <typename T> static T apply(T old, T data) { return old - data; }
};
struct SMin {
  template <typename T> static T apply(T old, T data) {
    using S = std::make_signed_t<T>;
    return S(data) < S(old) ? data : old;
  }
};
struct UMin {
  template <typename T> static T apply(T old, T data) {
    return data < old ? data : old;
  }
};
struct SMax {
  template <typename T> static T apply(T old, T data) {
    using S = std::make_signed_t<T>;
    return S(data) >= S(old) ? data : old;
  }
};
struct UMax {
  template <typename T> static T apply(T old, T data) {
    return data >= old ? data : old;
  }
};
struct AndOp {
  template <typename T> static T apply(T old, T data) { return old & data; }
};
struct OrOp {
  template <typename T> static T apply(T old, T data) { return old | data; }
};
struct XorOp {
  template <typename T> static T apply(T old, T data) { return old ^ data; }
};
struct Inc {
  template <typename T> static T apply(T old, T data) {
    return old >= data ? 0 : old + 1;
  }
};
struct Dec {
  template <typename T> static T apply(T old, T data) {
    return (old == 0 || old > data) ? data : old - 1;
  }
};
/// Marker: MEM = MEM == cmp ? src : MEM, with DATA = {src, cmp}.
struct CmpSwap {};

/// s_atomic_* / s_buffer_atomic_*: [sdst,] sdata, sbase, offset...; the
/// _RTN forms return the memory's old value in sdst.
template <typename T, typename Op, Form F, bool Buffer, bool Returns>
void atomic(Wave &wave, const Inst &inst) {
  constexpr unsigned kDwords = sizeof(T) / 4;
  constexpr bool kCmpSwap = std::is_same_v<Op, CmpSwap>;
  unsigned dataOp = Returns ? 1 : 0;
  Access access = resolve<F, Buffer>(wave, inst, dataOp + 1);
  if (!access.ok)
    return;
  uint32_t data[2 * kDwords] = {};
  wave.readScalarN(inst.ops[dataOp], data);
  T src, cmp = 0;
  std::memcpy(&src, data, sizeof(T));
  if constexpr (kCmpSwap)
    std::memcpy(&cmp, data + kDwords, sizeof(T));

  T old = 0;
  if (access.inRange(0, sizeof(T))) {
    uint8_t *p = wave.global(inst, access.address, sizeof(T), 0);
    if (!p)
      return;
    std::memcpy(&old, p, sizeof(T));
    T result;
    if constexpr (kCmpSwap)
      result = old == cmp ? src : old;
    else
      result = Op::template apply<T>(old, src);
    std::memcpy(p, &result, sizeof(T));
  }
  if constexpr (Returns) {
    uint32_t ret[kDwords];
    std::memcpy(ret, &old, sizeof(T));
    wave.writeScalarN(inst.ops[0], ret, kDwords);
  }
}

//===----------------------------------------------------------------------===//
// Time
//===----------------------------------------------------------------------===//

/// s_memtime and s_memrealtime: a deterministic clock, the number of wave
/// instructions the workgroup has executed so far (monotonic; not wall
/// time; independent of how many workgroups run at once).
void memtime(Wave &wave, const Inst &inst) {
  wave.writeScalar64(inst.ops[0], wave.dispatch.result.waveInstructions);
}

void nothing(Wave &, const Inst &) {}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// The MC name suffixes of the offset forms ("_SGPR_alt": SGPR in SOFFSET).
struct FormName {
  const char *before; ///< Before "_RTN".
  const char *after;  ///< After "_RTN".
};
constexpr FormName kImm = {"_IMM", ""};
constexpr FormName kSgpr = {"_SGPR", ""};
constexpr FormName kSgprAlt = {"_SGPR", "_alt"};
constexpr FormName kSgprImm = {"_SGPR_IMM", ""};

std::string formName(const std::string &base, FormName form, bool rtn) {
  return base + form.before + (rtn ? "_RTN" : "") + form.after;
}

/// Registers `Handler<Form>` for the four offset forms of `base`.
template <template <Form> class H>
void addForms(HandlerRegistry &registry, const std::string &base,
              bool rtn = false) {
  registry.add(formName(base, kImm, rtn), H<Form::Imm>::handler);
  registry.add(formName(base, kSgpr, rtn), H<Form::Sgpr>::handler);
  registry.add(formName(base, kSgprAlt, rtn), H<Form::Sgpr>::handler);
  registry.add(formName(base, kSgprImm, rtn), H<Form::SgprImm>::handler);
}

template <unsigned Dwords, bool Buffer> struct Load {
  template <Form F> struct At {
    static constexpr Handler handler = load<Dwords, F, Buffer>;
  };
};
template <unsigned Dwords, bool Buffer> struct Store {
  template <Form F> struct At {
    static constexpr Handler handler = store<Dwords, F, Buffer>;
  };
};
template <typename T, typename Op, bool Buffer, bool Returns> struct Atomic {
  template <Form F> struct At {
    static constexpr Handler handler = atomic<T, Op, F, Buffer, Returns>;
  };
};
template <Form F> struct Nothing {
  static constexpr Handler handler = nothing;
};

template <unsigned Dwords>
void addLoadsAndStores(HandlerRegistry &registry, const std::string &suffix) {
  addForms<Load<Dwords, false>::template At>(registry, "S_LOAD_DWORD" + suffix);
  addForms<Load<Dwords, true>::template At>(registry,
                                            "S_BUFFER_LOAD_DWORD" + suffix);
  if constexpr (Dwords <= 4) {
    addForms<Store<Dwords, false>::template At>(registry,
                                                "S_STORE_DWORD" + suffix);
    addForms<Store<Dwords, true>::template At>(registry,
                                               "S_BUFFER_STORE_DWORD" + suffix);
  }
}

/// Registers the 32- and 64-bit forms of an atomic, with or without return.
template <typename Op, bool Buffer, bool Returns>
void addAtomicForms(HandlerRegistry &registry, const std::string &base) {
  addForms<Atomic<uint32_t, Op, Buffer, Returns>::template At>(registry, base,
                                                               Returns);
  addForms<Atomic<uint64_t, Op, Buffer, Returns>::template At>(
      registry, base + "_X2", Returns);
}

template <typename Op>
void addAtomic(HandlerRegistry &registry, const std::string &name) {
  addAtomicForms<Op, false, false>(registry, "S_ATOMIC_" + name);
  addAtomicForms<Op, false, true>(registry, "S_ATOMIC_" + name);
  addAtomicForms<Op, true, false>(registry, "S_BUFFER_ATOMIC_" + name);
  addAtomicForms<Op, true, true>(registry, "S_BUFFER_ATOMIC_" + name);
}

} // namespace

void crest::emu::registerSMEMHandlers(HandlerRegistry &registry) {
  addLoadsAndStores<1>(registry, "");
  addLoadsAndStores<2>(registry, "X2");
  addLoadsAndStores<4>(registry, "X4");
  addLoadsAndStores<8>(registry, "X8");
  addLoadsAndStores<16>(registry, "X16");

  addAtomic<Swap>(registry, "SWAP");
  addAtomic<CmpSwap>(registry, "CMPSWAP");
  addAtomic<Add>(registry, "ADD");
  addAtomic<Sub>(registry, "SUB");
  addAtomic<SMin>(registry, "SMIN");
  addAtomic<UMin>(registry, "UMIN");
  addAtomic<SMax>(registry, "SMAX");
  addAtomic<UMax>(registry, "UMAX");
  addAtomic<AndOp>(registry, "AND");
  addAtomic<OrOp>(registry, "OR");
  addAtomic<XorOp>(registry, "XOR");
  addAtomic<Inc>(registry, "INC");
  addAtomic<Dec>(registry, "DEC");

  registry.add("S_MEMTIME", memtime);
  registry.add("S_MEMREALTIME", memtime);
  // No scalar cache: write-backs, invalidations, discards and address
  // translation probes have nothing to do.
  registry.add("S_DCACHE_WB_VOL", nothing);
  registry.add("S_DCACHE_INV_VOL", nothing);
  addForms<Nothing>(registry, "S_DCACHE_DISCARD");
  addForms<Nothing>(registry, "S_DCACHE_DISCARD_X2");
  addForms<Nothing>(registry, "S_ATC_PROBE");
  addForms<Nothing>(registry, "S_ATC_PROBE_BUFFER");
}
