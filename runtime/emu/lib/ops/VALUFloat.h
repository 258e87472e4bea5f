//===- VALUFloat.h - Floating-point formats of the VALU ---------*- C++ -*-===//
//
// The IEEE formats the vector ALU computes in (f16, bf16, f32, f64), held as
// C++ values (`float`, `double`) or as bit containers (`Half`, `BFloat`),
// with the pieces the handlers need:
//
// - classification and sign/NaN manipulation on the bit patterns;
// - exact widening to double and correctly rounded narrowing from double in
//   each of the four MODE round modes (software, independent of the host);
// - arithmetic (add, mul, fma, sqrt) correctly rounded in a given round mode.
//   f32 and f64 use the host FPU with its rounding mode switched for the
//   operation (VALUFloat.cpp is compiled with FENV_ACCESS); f16 and bf16 are
//   computed exactly (or with a sticky bit) in double and narrowed in
//   software.
//
// NaN rules follow the hardware pseudocode: an operation with a NaN input
// returns that NaN quieted (the first NaN of S0, S1, S2); an invalid
// operation (inf - inf, 0 * inf, sqrt(-1)) returns the default NaN, which on
// AMD GPUs has the sign bit set (0xffc00000, 0xfe00, 0xfff8000000000000, as
// the ISA's examples for v_sqrt/v_log/v_div_fixup show).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_VALUFLOAT_H
#define CREST_EMU_LIB_OPS_VALUFLOAT_H

#include "llvm/ADT/bit.h"

#include <cstdint>
#include <limits>
#include <type_traits>

namespace crest::emu::valu {

/// MODE round-mode encoding (each 2-bit field of MODE[3:0]).
enum class Round : uint8_t { NearestEven = 0, Up = 1, Down = 2, Zero = 3 };

/// An IEEE binary16 value, kept as its bits.
struct Half {
  uint16_t bits = 0;
};
/// A bfloat16 value, kept as its bits.
struct BFloat {
  uint16_t bits = 0;
};

/// Field layout of each format.
template <class T> struct FpFormat;
template <> struct FpFormat<Half> {
  using Bits = uint16_t;
  static constexpr int ExpBits = 5, ManBits = 10;
};
template <> struct FpFormat<BFloat> {
  using Bits = uint16_t;
  static constexpr int ExpBits = 8, ManBits = 7;
};
template <> struct FpFormat<float> {
  using Bits = uint32_t;
  static constexpr int ExpBits = 8, ManBits = 23;
};
template <> struct FpFormat<double> {
  using Bits = uint64_t;
  static constexpr int ExpBits = 11, ManBits = 52;
};

template <class T> inline constexpr bool IsFloat = false;
template <> inline constexpr bool IsFloat<Half> = true;
template <> inline constexpr bool IsFloat<BFloat> = true;
template <> inline constexpr bool IsFloat<float> = true;
template <> inline constexpr bool IsFloat<double> = true;

template <class T> using FpBits = typename FpFormat<T>::Bits;

template <class T> FpBits<T> toBits(T v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat>)
    return v.bits;
  else
    return llvm::bit_cast<FpBits<T>>(v);
}
template <class T> T fromBits(FpBits<T> b) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat>)
    return T{b};
  else
    return llvm::bit_cast<T>(b);
}

/// Masks of a format's fields.
template <class T> struct FpMask {
  using B = FpBits<T>;
  static constexpr int Width = 8 * sizeof(B);
  static constexpr int ManBits = FpFormat<T>::ManBits;
  static constexpr B Sign = B(1) << (Width - 1);
  static constexpr B Man = (B(1) << ManBits) - 1;
  static constexpr B Exp = B(~Sign & ~Man);
  static constexpr B Quiet = B(1) << (ManBits - 1);
  static constexpr unsigned ExpMax = (1u << FpFormat<T>::ExpBits) - 1;
  static constexpr int Bias = (1 << (FpFormat<T>::ExpBits - 1)) - 1;
};

/// The biased exponent field.
template <class T> unsigned exponentField(T v) {
  return unsigned((toBits(v) & FpMask<T>::Exp) >> FpMask<T>::ManBits);
}
template <class T> bool signBit(T v) { return toBits(v) & FpMask<T>::Sign; }
template <class T> bool isNaN(T v) {
  return exponentField(v) == FpMask<T>::ExpMax && (toBits(v) & FpMask<T>::Man);
}
template <class T> bool isSignalingNaN(T v) {
  return isNaN(v) && !(toBits(v) & FpMask<T>::Quiet);
}
template <class T> bool isInf(T v) {
  return (toBits(v) & ~FpMask<T>::Sign) == FpMask<T>::Exp;
}
template <class T> bool isZero(T v) {
  return (toBits(v) & ~FpMask<T>::Sign) == 0;
}
template <class T> bool isDenormal(T v) {
  return exponentField(v) == 0 && (toBits(v) & FpMask<T>::Man);
}
template <class T> T negate(T v) {
  return fromBits<T>(FpBits<T>(toBits(v) ^ FpMask<T>::Sign));
}
template <class T> T absolute(T v) {
  return fromBits<T>(FpBits<T>(toBits(v) & ~FpMask<T>::Sign));
}
template <class T> T withSign(T v, bool negative) {
  return negative ? negate(absolute(v)) : absolute(v);
}
template <class T> T quietNaN(T v) {
  return fromBits<T>(FpBits<T>(toBits(v) | FpMask<T>::Quiet));
}
/// The NaN invalid operations produce (sign set, quiet bit set).
template <class T> T defaultNaN() {
  return fromBits<T>(
      FpBits<T>(FpMask<T>::Sign | FpMask<T>::Exp | FpMask<T>::Quiet));
}
template <class T> T infinity(bool negative) {
  return fromBits<T>(
      FpBits<T>((negative ? FpMask<T>::Sign : 0) | FpMask<T>::Exp));
}
template <class T> T zero(bool negative) {
  return fromBits<T>(FpBits<T>(negative ? FpMask<T>::Sign : 0));
}
/// A denormal becomes a zero of the same sign; other values are unchanged.
template <class T> T flushDenormal(T v) {
  return isDenormal(v) ? zero<T>(signBit(v)) : v;
}

/// Exact conversion to double (every format here widens exactly).
double toDouble(Half v);
double toDouble(BFloat v);
inline double toDouble(float v) { return v; }
inline double toDouble(double v) { return v; }

/// Rounds `x` to format T in round mode `r`. Correct when `x` is the exact
/// value, or when `x` carries a sticky bit (see `stickySum`) and T is at
/// least two bits narrower than double. NaNs are quieted (payload
/// truncated), overflow follows the round mode.
template <class T> T fromDouble(double x, Round r);

/// The exact sum p + c moved by one double ulp towards the rounding error
/// when it is inexact, so that narrowing it to a format at least two bits
/// narrower than double rounds as the exact sum would.
double stickySum(double p, double c);

/// Correctly rounded arithmetic in round mode `r`, with the NaN rules above.
/// Denormals are neither flushed on input nor output here: the handlers
/// apply MODE's denormal controls around these.
template <class T> T add(T a, T b, Round r);
template <class T> T mul(T a, T b, Round r);
template <class T> T fma(T a, T b, T c, Round r);
template <class T> T sqrt(T a, Round r);
/// a * 2^n, correctly rounded.
template <class T> T ldexp(T a, int64_t n, Round r);

/// Integer to float, correctly rounded.
template <class T> T fromInt(int64_t v, Round r);
template <class T> T fromUint(uint64_t v, Round r);

/// Float to integer rounding toward zero with saturation; NaN gives 0 (the
/// hardware rule of every v_cvt_*_f* integer conversion).
template <class I, class T> I toIntSaturate(T v) {
  double d = toDouble(v);
  if (d != d)
    return 0;
  constexpr double lo = double(std::numeric_limits<I>::min());
  constexpr double hi = double(std::numeric_limits<I>::max());
  if (d <= lo)
    return std::numeric_limits<I>::min();
  if (d >= hi)
    return std::numeric_limits<I>::max();
  return static_cast<I>(d);
}

/// The smaller and larger of two non-NaN values, -0 < +0.
template <class T> T minOrdered(T a, T b) {
  if (isZero(a) && isZero(b))
    return signBit(a) ? a : b;
  return toDouble(a) < toDouble(b) ? a : b;
}
template <class T> T maxOrdered(T a, T b) {
  if (isZero(a) && isZero(b))
    return signBit(a) ? b : a;
  return toDouble(a) >= toDouble(b) ? a : b;
}

/// IEEE-mode-aware minimum and maximum (the pseudocode of v_min_f32 and
/// v_max_f32): with MODE.IEEE a signaling NaN input returns that NaN quieted;
/// otherwise a NaN input returns the other operand; -0 < +0.
template <class T> T minimum(T a, T b, bool ieee) {
  if (ieee && isSignalingNaN(a))
    return quietNaN(a);
  if (ieee && isSignalingNaN(b))
    return quietNaN(b);
  if (isNaN(a))
    return b;
  if (isNaN(b))
    return a;
  return minOrdered(a, b);
}
template <class T> T maximum(T a, T b, bool ieee) {
  if (ieee && isSignalingNaN(a))
    return quietNaN(a);
  if (ieee && isSignalingNaN(b))
    return quietNaN(b);
  if (isNaN(a))
    return b;
  if (isNaN(b))
    return a;
  return maxOrdered(a, b);
}

/// IEEE 754-2019 minimum and maximum (v_minimum3_f32, v_maximum3_f32 on
/// gfx950): a NaN input gives that NaN quieted, whatever MODE.IEEE says;
/// -0 < +0.
template <class T> T minimumPropagateNaN(T a, T b) {
  if (isNaN(a) || isNaN(b))
    return quietNaN(isNaN(a) ? a : b);
  return minOrdered(a, b);
}
template <class T> T maximumPropagateNaN(T a, T b) {
  if (isNaN(a) || isNaN(b))
    return quietNaN(isNaN(a) ? a : b);
  return maxOrdered(a, b);
}

} // namespace crest::emu::valu

#endif // CREST_EMU_LIB_OPS_VALUFLOAT_H
