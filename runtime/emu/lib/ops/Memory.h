//===- Memory.h - Helpers of the memory instruction handlers ----*- C++ -*-===//
//
// What the DS (DS.cpp) and vector-memory (VMEM.cpp) handlers share: moving
// data between memory bytes and VGPRs (widths, sign and zero extension, D16
// halves), the read-modify-write operations of the atomics with the ISA's
// float rules, and bounds-checked per-lane access to LDS and to private
// memory.
//
// Float atomics follow the CDNA3 ISA, "Float Memory Atomics": round to
// nearest even; NaN inputs propagate quieted (src0's first), an invalid
// operation gives the default quiet NaN; min/max order QNaN below -inf
// (max) or above +inf (min) and -0 below +0, an SNaN input wins quieted;
// compare-swap never matches a NaN and treats -0 == +0. Denormals per
// "Denorm Handling Rules for Memory Ops": in the LDS, MODE decides (adds
// flush inputs and outputs, min/max/compare only their comparison inputs);
// in the L2 cache (global, flat and buffer atomics) ADD_F32 flushes its
// inputs and the others keep denormals; ADD_F64 never flushes.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_MEMORY_H
#define CREST_EMU_LIB_OPS_MEMORY_H

#include "../Machine.h"

#include <cmath>
#include <type_traits>

namespace crest::emu::mem {

//===----------------------------------------------------------------------===//
// Data formats
//===----------------------------------------------------------------------===//

/// What a load or store moves. Loads of 8 and 16 bits extend to 32 bits
/// (U: zero, I: sign); the D16 forms write bits [15:0] and the D16Hi forms
/// bits [31:16] of the VGPR, keeping the other half (the ISA pseudocode;
/// with SRAM ECC enabled the hardware zeroes it instead, which LLVM never
/// relies on either way for "sramecc any" code objects). Stores use U8/U16
/// for the low byte/short and U8D16Hi/B16D16Hi for bits [23:16]/[31:16].
enum class Data : uint8_t {
  U8,
  I8,
  U16,
  I16,
  B32,
  B64,
  B96,
  B128,
  U8D16,
  I8D16,
  B16D16,
  U8D16Hi,
  I8D16Hi,
  B16D16Hi,
};

constexpr unsigned bytesOf(Data d) {
  switch (d) {
  case Data::U8:
  case Data::I8:
  case Data::U8D16:
  case Data::I8D16:
  case Data::U8D16Hi:
  case Data::I8D16Hi:
    return 1;
  case Data::U16:
  case Data::I16:
  case Data::B16D16:
  case Data::B16D16Hi:
    return 2;
  case Data::B32:
    return 4;
  case Data::B64:
    return 8;
  case Data::B96:
    return 12;
  case Data::B128:
    return 16;
  }
  return 0;
}

constexpr bool isSigned(Data d) {
  return d == Data::I8 || d == Data::I16 || d == Data::I8D16 ||
         d == Data::I8D16Hi;
}

/// 0: the whole VGPR; 1: bits [15:0]; 2: bits [31:16].
constexpr unsigned halfOf(Data d) {
  switch (d) {
  case Data::U8D16:
  case Data::I8D16:
  case Data::B16D16:
    return 1;
  case Data::U8D16Hi:
  case Data::I8D16Hi:
  case Data::B16D16Hi:
    return 2;
  default:
    return 0;
  }
}

/// The bounds-check granule of a buffer access: dwords for loads and stores
/// of a dword or more (checked per component), else the whole access.
constexpr unsigned componentBytesOf(Data d) {
  return bytesOf(d) < 4 ? bytesOf(d) : 4;
}

/// Writes the loaded little-endian `bytes` to VGPR `reg` (and the next
/// ones) of `lane`.
template <Data D>
void toRegisters(Wave &wave, unsigned reg, unsigned lane,
                 const uint8_t *bytes) {
  constexpr unsigned n = bytesOf(D);
  if constexpr (n >= 4) {
    for (unsigned d = 0; d < n / 4; ++d)
      std::memcpy(&wave.vreg(reg + d)[lane], bytes + 4 * d, 4);
  } else {
    uint32_t raw = n == 1 ? bytes[0] : uint32_t(bytes[0] | (bytes[1] << 8));
    uint32_t value = isSigned(D) ? uint32_t(signExtend(raw, 8 * n)) : raw;
    uint32_t &r = wave.vreg(reg)[lane];
    if constexpr (halfOf(D) == 0)
      r = value;
    else if constexpr (halfOf(D) == 1)
      r = (r & 0xffff0000u) | (value & 0xffffu);
    else
      r = (r & 0xffffu) | (value << 16);
  }
}

/// Reads the bytes a store of `D` writes from VGPR `reg` (and up) of `lane`.
template <Data D>
void fromRegisters(const Wave &wave, unsigned reg, unsigned lane,
                   uint8_t *bytes) {
  constexpr unsigned n = bytesOf(D);
  if constexpr (n >= 4) {
    for (unsigned d = 0; d < n / 4; ++d)
      std::memcpy(bytes + 4 * d, &wave.vreg(reg + d)[lane], 4);
  } else {
    uint32_t r = wave.vreg(reg)[lane];
    if constexpr (halfOf(D) == 2)
      r >>= 16;
    bytes[0] = uint8_t(r);
    if constexpr (n == 2)
      bytes[1] = uint8_t(r >> 8);
  }
}

/// A value of `T` (32 or 64 bits) from consecutive VGPRs of `lane`.
template <typename T>
T readVgprs(const Wave &wave, unsigned reg, unsigned lane) {
  T value = wave.vreg(reg)[lane];
  if constexpr (sizeof(T) == 8)
    value |= uint64_t(wave.vreg(reg + 1)[lane]) << 32;
  return value;
}

template <typename T>
void writeVgprs(Wave &wave, unsigned reg, unsigned lane, T value) {
  wave.vreg(reg)[lane] = uint32_t(value);
  if constexpr (sizeof(T) == 8)
    wave.vreg(reg + 1)[lane] = uint32_t(uint64_t(value) >> 32);
}

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

/// Denormal flushing of one float operation.
struct FpRules {
  bool flushIn = false;
  bool flushOut = false;
};

/// An IEEE binary format: `Man` fraction bits, `Exp` exponent bits.
template <typename BitsT, unsigned Man, unsigned Exp> struct FloatFormat {
  using Bits = BitsT;
  static constexpr unsigned kMan = Man, kExp = Exp;
  static constexpr Bits kSign = Bits(1) << (Man + Exp);
  static constexpr Bits kExpMask = Bits((Bits(1) << Exp) - 1) << Man;
  static constexpr Bits kManMask = Bits((Bits(1) << Man) - 1);
  static constexpr Bits kQuiet = Bits(1) << (Man - 1);
  static constexpr Bits kDefaultNan = kExpMask | kQuiet;

  static bool isNan(Bits b) {
    return (b & kExpMask) == kExpMask && (b & kManMask);
  }
  static bool isSignalingNan(Bits b) { return isNan(b) && !(b & kQuiet); }
  static bool isDenormal(Bits b) { return !(b & kExpMask) && (b & kManMask); }
  static Bits flush(Bits b) { return isDenormal(b) ? Bits(b & kSign) : b; }
  /// The value, exactly.
  static double toDouble(Bits b);
  /// `value` rounded to nearest even (overflow gives infinity).
  static Bits fromDouble(double value);
};

using F16 = FloatFormat<uint16_t, 10, 5>;
using BF16 = FloatFormat<uint16_t, 7, 8>;
using F32 = FloatFormat<uint32_t, 23, 8>;
using F64 = FloatFormat<uint64_t, 52, 11>;

/// Rounds a finite or infinite `value` to the nearest even number with
/// `man` fraction and `exp` exponent bits; returns the bit pattern.
uint64_t roundToFormat(double value, unsigned man, unsigned exp);

template <typename B, unsigned M, unsigned E>
double FloatFormat<B, M, E>::toDouble(B b) {
  if constexpr (std::is_same_v<B, uint64_t>) {
    return asDouble(b);
  } else if constexpr (M == 23) {
    return asFloat(b);
  } else if constexpr (E == 8) { // bf16: the high half of an f32
    return asFloat(uint32_t(b) << 16);
  } else {
    int bias = (1 << (E - 1)) - 1;
    unsigned e = (b & kExpMask) >> M;
    double sign = (b & kSign) ? -1.0 : 1.0;
    if (e == (1u << E) - 1)
      return (b & kManMask) ? std::nan("") : sign * INFINITY;
    if (e == 0)
      return sign * std::ldexp(double(b & kManMask), 1 - bias - int(M));
    return sign * std::ldexp(double((b & kManMask) | (B(1) << M)),
                             int(e) - bias - int(M));
  }
}

template <typename B, unsigned M, unsigned E>
B FloatFormat<B, M, E>::fromDouble(double value) {
  if constexpr (std::is_same_v<B, uint64_t>)
    return asBits(value);
  else if constexpr (M == 23)
    return asBits(float(value)); // the host rounds to nearest even
  else
    return B(roundToFormat(value, M, E));
}

/// src0 + src1. Computed in double and rounded once more: double rounding
/// is innocuous for f32, f16 and bf16 sums (53 >= 2 * 24 + 2 bits).
template <class F>
typename F::Bits floatAdd(typename F::Bits a, typename F::Bits b, FpRules r) {
  if (r.flushIn) {
    a = F::flush(a);
    b = F::flush(b);
  }
  if (F::isNan(a))
    return a | F::kQuiet;
  if (F::isNan(b))
    return b | F::kQuiet;
  double sum = F::toDouble(a) + F::toDouble(b);
  if (std::isnan(sum)) // -inf + inf
    return F::kDefaultNan;
  typename F::Bits result = F::fromDouble(sum);
  return r.flushOut ? F::flush(result) : result;
}

/// Max (IsMax) or min of src0 `a` and src1 `b`; the comparison sees
/// flushed inputs, the result is the unflushed selected input.
template <class F, bool IsMax>
typename F::Bits floatMinMax(typename F::Bits a, typename F::Bits b,
                             FpRules r) {
  if (F::isSignalingNan(a))
    return a | F::kQuiet;
  if (F::isSignalingNan(b))
    return b | F::kQuiet;
  if (F::isNan(a))
    return b;
  if (F::isNan(b))
    return a;
  typename F::Bits fa = r.flushIn ? F::flush(a) : a;
  typename F::Bits fb = r.flushIn ? F::flush(b) : b;
  double da = F::toDouble(fa), db = F::toDouble(fb);
  if (da != db)
    return (da > db) == IsMax ? a : b;
  if (da == 0 && ((fa ^ fb) & F::kSign)) // -0 < +0
    return bool(fa & F::kSign) == IsMax ? b : a;
  return a;
}

/// The new memory value of a float compare-swap: `src` if `old` == `cmp`
/// (never for a NaN, -0 == +0), else `old`; flushed when inputs are.
template <class F>
typename F::Bits floatCmpSwap(typename F::Bits old, typename F::Bits src,
                              typename F::Bits cmp, FpRules r) {
  typename F::Bits fo = r.flushIn ? F::flush(old) : old;
  typename F::Bits fc = r.flushIn ? F::flush(cmp) : cmp;
  bool swap =
      !F::isNan(fo) && !F::isNan(fc) && F::toDouble(fo) == F::toDouble(fc);
  typename F::Bits result = swap ? src : old;
  return r.flushIn ? F::flush(result) : result;
}

/// Two packed 16-bit float adds.
template <class F> uint32_t packedAdd(uint32_t a, uint32_t b, FpRules r) {
  uint32_t lo = floatAdd<F>(uint16_t(a), uint16_t(b), r);
  uint32_t hi = floatAdd<F>(uint16_t(a >> 16), uint16_t(b >> 16), r);
  return lo | (hi << 16);
}

//===----------------------------------------------------------------------===//
// Atomic operations
//===----------------------------------------------------------------------===//

enum class Op : uint8_t {
  Swap,
  CmpSwap, ///< `data` if old == `data2`
  Add,
  Sub,
  RSub, ///< data - old
  SMin,
  UMin,
  SMax,
  UMax,
  And,
  Or,
  Xor,
  Inc,   ///< old >= data ? 0 : old + 1
  Dec,   ///< old == 0 || old > data ? data : old - 1
  MskOr, ///< (old & ~data) | data2
  Wrap,  ///< old >= data ? old - data : old + data2
  FAdd,
  FMin,
  FMax,
  FCmpSwap, ///< float compare: `data` if old == `data2`
  PkAddF16,
  PkAddBF16,
};

constexpr bool isFloat(Op op) { return op >= Op::FAdd; }

/// The new memory value of atomic `O` on `T` (uint32_t or uint64_t).
template <Op O, typename T> T atomicResult(T old, T data, T data2, FpRules fp) {
  using S = std::make_signed_t<T>;
  using F = std::conditional_t<sizeof(T) == 8, F64, F32>;
  if constexpr (O == Op::Swap)
    return data;
  else if constexpr (O == Op::CmpSwap)
    return old == data2 ? data : old;
  else if constexpr (O == Op::Add)
    return T(old + data);
  else if constexpr (O == Op::Sub)
    return T(old - data);
  else if constexpr (O == Op::RSub)
    return T(data - old);
  else if constexpr (O == Op::SMin)
    return S(data) < S(old) ? data : old;
  else if constexpr (O == Op::UMin)
    return data < old ? data : old;
  else if constexpr (O == Op::SMax)
    return S(data) >= S(old) ? data : old;
  else if constexpr (O == Op::UMax)
    return data >= old ? data : old;
  else if constexpr (O == Op::And)
    return old & data;
  else if constexpr (O == Op::Or)
    return old | data;
  else if constexpr (O == Op::Xor)
    return old ^ data;
  else if constexpr (O == Op::Inc)
    return old >= data ? T(0) : T(old + 1);
  else if constexpr (O == Op::Dec)
    return (old == 0 || old > data) ? data : T(old - 1);
  else if constexpr (O == Op::MskOr)
    return (old & ~data) | data2;
  else if constexpr (O == Op::Wrap)
    return old >= data ? T(old - data) : T(old + data2);
  else if constexpr (O == Op::FAdd)
    return floatAdd<F>(old, data, fp);
  else if constexpr (O == Op::FMin)
    return floatMinMax<F, false>(old, data, fp);
  else if constexpr (O == Op::FMax)
    return floatMinMax<F, true>(old, data, fp);
  else if constexpr (O == Op::FCmpSwap)
    return floatCmpSwap<F>(old, data, data2, fp);
  else if constexpr (O == Op::PkAddF16)
    return packedAdd<F16>(old, data, fp);
  else
    return packedAdd<BF16>(old, data, fp);
}

/// The denormal rules of float atomic `O` on `T`, executed in the LDS (from
/// MODE: [5:4] for f32, [7:6] for f16 and f64; bit 0 of a field allows input
/// denormals, bit 1 output denormals) or in the L2 cache.
template <Op O, typename T>
FpRules atomicFpRules(const Wave &wave, bool inLds) {
  if constexpr (!isFloat(O)) {
    return {};
  } else {
    constexpr bool add =
        O == Op::FAdd || O == Op::PkAddF16 || O == Op::PkAddBF16;
    if (!inLds)
      return {O == Op::FAdd && sizeof(T) == 4, false};
    if (O == Op::FAdd && sizeof(T) == 8)
      return {};
    bool f32 = sizeof(T) == 4 && O != Op::PkAddF16 && O != Op::PkAddBF16;
    unsigned field = (wave.mode >> (f32 ? 4 : 6)) & 3;
    return {!(field & 1), add && !(field & 2)};
  }
}

//===----------------------------------------------------------------------===//
// Per-lane memory
//===----------------------------------------------------------------------===//

/// Where a lane's access landed (float atomics follow different rules in
/// the LDS and in the L2 cache).
enum class Where : uint8_t { Global, Lds, Private };

/// Host pointer to `size` LDS bytes at `offset`, after the race detector has
/// seen the access; null (the wave has failed) if out of range.
inline uint8_t *ldsBytes(Wave &wave, const Inst &inst, uint64_t offset,
                         uint32_t size, LdsAccess access) {
  if (!wave.workgroup.checkLdsAccess(wave, inst, offset, size, access))
    return nullptr;
  return wave.workgroup.lds.data() + offset;
}

/// Host pointer to `size` bytes at `offset` of `lane`'s private memory;
/// null (the wave has failed) outside the kernel's private segment size.
uint8_t *privateBytes(Wave &wave, const Inst &inst, unsigned lane,
                      uint64_t offset, uint32_t size);

inline void countVmem(Wave &wave) { ++wave.dispatch.result.vmemInstructions; }
inline void countLds(Wave &wave) { ++wave.dispatch.result.ldsInstructions; }

/// Calls `fn(lane)` for every active lane until it returns false.
template <class Fn> void forActiveLanes(const Wave &wave, Fn &&fn) {
  uint64_t exec = wave.exec();
  while (exec) {
    unsigned lane = llvm::countr_zero(exec);
    exec &= exec - 1;
    if (!fn(lane))
      return;
  }
}

} // namespace crest::emu::mem

#endif // CREST_EMU_LIB_OPS_MEMORY_H
