//===- VALUFloat.cpp - Floating-point formats of the VALU -----------------===//
//
// Directed rounding for f32 and f64 uses the host FPU's rounding mode, set
// only around the one operation; this file is compiled with FENV_ACCESS so
// that the compiler keeps the operations inside that window and does not
// fold them assuming round-to-nearest.
//
//===----------------------------------------------------------------------===//

#include "VALUFloat.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cfenv>
#include <cmath>

#pragma STDC FENV_ACCESS ON

using namespace crest::emu::valu;

namespace {

int hostRoundMode(Round r) {
  switch (r) {
  case Round::NearestEven:
    return FE_TONEAREST;
  case Round::Up:
    return FE_UPWARD;
  case Round::Down:
    return FE_DOWNWARD;
  case Round::Zero:
    return FE_TOWARDZERO;
  }
  return FE_TONEAREST;
}

/// Sets the host rounding mode for its lifetime (nothing for nearest-even,
/// the host's normal mode).
class RoundingScope {
public:
  explicit RoundingScope(Round r) : active(r != Round::NearestEven) {
    if (active) {
      saved = std::fegetround();
      std::fesetround(hostRoundMode(r));
    }
  }
  ~RoundingScope() {
    if (active)
      std::fesetround(saved);
  }
  RoundingScope(const RoundingScope &) = delete;
  RoundingScope &operator=(const RoundingScope &) = delete;

private:
  bool active;
  int saved = FE_TONEAREST;
};

/// Decodes a narrow format (f16, bf16) exactly.
template <class T> double decodeNarrow(T v) {
  using M = FpMask<T>;
  uint64_t bits = toBits(v);
  bool negative = bits & M::Sign;
  unsigned e = exponentField(v);
  uint64_t m = bits & M::Man;
  if (e == M::ExpMax) {
    if (!m)
      return negative ? -HUGE_VAL : HUGE_VAL;
    uint64_t d = (negative ? uint64_t(1) << 63 : 0) | 0x7ff0000000000000ull |
                 (m << (52 - M::ManBits));
    return llvm::bit_cast<double>(d);
  }
  double magnitude = e == 0
                         ? std::ldexp(double(m), 1 - M::Bias - M::ManBits)
                         : std::ldexp(double(m | (uint64_t(1) << M::ManBits)),
                                      int(e) - M::Bias - M::ManBits);
  return negative ? -magnitude : magnitude;
}

/// Narrows a double to format T in round mode `r` (see fromDouble).
template <class T> T narrow(double x, Round r) {
  using M = FpMask<T>;
  using B = FpBits<T>;
  uint64_t xb = llvm::bit_cast<uint64_t>(x);
  bool negative = xb >> 63;
  unsigned xe = unsigned(xb >> 52) & 0x7ff;
  uint64_t xm = xb & ((uint64_t(1) << 52) - 1);
  B sign = negative ? M::Sign : B(0);
  if (xe == 0x7ff) {
    if (!xm)
      return infinity<T>(negative);
    B payload = B(xm >> (52 - M::ManBits));
    return fromBits<T>(B(sign | M::Exp | M::Quiet | payload));
  }
  if (xe == 0 && xm == 0)
    return zero<T>(negative);

  // x = mant * 2^exp2.
  uint64_t mant = xe ? (xm | (uint64_t(1) << 52)) : xm;
  int exp2 = xe ? int(xe) - 1075 : -1074;
  int top = 63 - llvm::countl_zero(mant);
  int e = top + exp2; // floor(log2(|x|))
  int emin = 1 - M::Bias;
  // Exponent of the last place of the result.
  int lsb = std::max(e, emin) - M::ManBits;
  int shift = lsb - exp2;

  uint64_t keep;
  int vsHalf;   // the dropped part against half an ulp: -1 below, 0, +1
  bool inexact; // the dropped part is nonzero
  if (shift <= 0) {
    keep = mant << -shift;
    vsHalf = -1;
    inexact = false;
  } else if (shift >= 64) {
    keep = 0;
    vsHalf = -1;
    inexact = true;
  } else {
    keep = mant >> shift;
    uint64_t rest = mant & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    vsHalf = rest < half ? -1 : rest > half ? 1 : 0;
    inexact = rest != 0;
  }

  bool up = false;
  switch (r) {
  case Round::NearestEven:
    up = vsHalf > 0 || (vsHalf == 0 && (keep & 1));
    break;
  case Round::Up:
    up = inexact && !negative;
    break;
  case Round::Down:
    up = inexact && negative;
    break;
  case Round::Zero:
    break;
  }
  keep += up;
  if (keep >> (M::ManBits + 1)) {
    keep >>= 1;
    ++lsb;
  }

  if (keep < (uint64_t(1) << M::ManBits)) // subnormal or zero
    return fromBits<T>(B(sign | keep));
  int exponent = lsb + M::ManBits;
  if (exponent > M::Bias) {
    bool toInfinity = r == Round::NearestEven ||
                      (r == Round::Up && !negative) ||
                      (r == Round::Down && negative);
    if (toInfinity)
      return infinity<T>(negative);
    return fromBits<T>(B(sign | ((B(M::ExpMax - 1)) << M::ManBits) | M::Man));
  }
  B biased = B(exponent + M::Bias);
  return fromBits<T>(B(sign | (biased << M::ManBits) | (keep & M::Man)));
}

/// The sign IEEE gives an exact zero sum of p and c in round mode r.
double zeroSum(double p, double c, Round r) {
  if (std::signbit(p) == std::signbit(c))
    return p; // both zeros of one sign
  return r == Round::Down ? -0.0 : 0.0;
}

/// Returns the first NaN among the operands, quieted, in `out`.
template <class T> bool firstNaN(T &out, T a) {
  if (isNaN(a)) {
    out = quietNaN(a);
    return true;
  }
  return false;
}
template <class T, class... Rest> bool firstNaN(T &out, T a, Rest... rest) {
  return firstNaN(out, a) || firstNaN(out, rest...);
}

/// A NaN result of an operation without NaN inputs is the default NaN.
template <class T> T canonicalInvalid(T v) {
  return isNaN(v) ? defaultNaN<T>() : v;
}

/// Narrow formats: exact or sticky double arithmetic, then narrowing.
template <class T> T narrowAdd(T a, T b, Round r) {
  T nan;
  if (firstNaN(nan, a, b))
    return nan;
  double x = toDouble(a), y = toDouble(b);
  double s = x + y; // exact for f16/bf16 operands
  if (s == 0)
    s = zeroSum(x, y, r);
  return canonicalInvalid(fromDouble<T>(s, r));
}

template <class T> T narrowMul(T a, T b, Round r) {
  T nan;
  if (firstNaN(nan, a, b))
    return nan;
  double p = toDouble(a) * toDouble(b); // exact: 11 (8) bits each
  return canonicalInvalid(fromDouble<T>(p, r));
}

template <class T> T narrowFma(T a, T b, T c, Round r) {
  T nan;
  if (firstNaN(nan, a, b, c))
    return nan;
  double p = toDouble(a) * toDouble(b); // exact
  double z = toDouble(c);
  double s;
  if (std::isinf(p) || std::isinf(z)) {
    s = p + z;
  } else {
    s = stickySum(p, z);
    if (s == 0)
      s = zeroSum(p, z, r);
  }
  return canonicalInvalid(fromDouble<T>(s, r));
}

template <class T> T narrowSqrt(T a, Round r) {
  T nan;
  if (firstNaN(nan, a))
    return nan;
  double x = toDouble(a);
  if (x < 0)
    return defaultNaN<T>();
  double s = std::sqrt(x);
  if (std::isfinite(s) && s != 0) {
    // Sticky bit: move towards the exact root when the double is inexact.
    double err = std::fma(s, s, -x);
    if (err > 0)
      s = std::nextafter(s, 0.0);
    else if (err < 0)
      s = std::nextafter(s, HUGE_VAL);
  }
  return fromDouble<T>(s, r);
}

} // namespace

double crest::emu::valu::toDouble(Half v) { return decodeNarrow(v); }
double crest::emu::valu::toDouble(BFloat v) { return decodeNarrow(v); }

namespace crest::emu::valu {

template <> Half fromDouble<Half>(double x, Round r) {
  return narrow<Half>(x, r);
}
template <> BFloat fromDouble<BFloat>(double x, Round r) {
  return narrow<BFloat>(x, r);
}
template <> float fromDouble<float>(double x, Round r) {
  return narrow<float>(x, r);
}
template <> double fromDouble<double>(double x, Round) { return x; }

double stickySum(double p, double c) {
  double s = p + c;
  if (!std::isfinite(s))
    return s;
  // TwoSum: p + c = s + err exactly.
  double bp = s - c;
  double err = (p - bp) + (c - (s - bp));
  if (err > 0)
    return std::nextafter(s, HUGE_VAL);
  if (err < 0)
    return std::nextafter(s, -HUGE_VAL);
  return s;
}

// f32 and f64: the host FPU in the requested round mode.
template <> float add<float>(float a, float b, Round r) {
  float nan;
  if (firstNaN(nan, a, b))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(a + b);
}
template <> double add<double>(double a, double b, Round r) {
  double nan;
  if (firstNaN(nan, a, b))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(a + b);
}
template <> float mul<float>(float a, float b, Round r) {
  float nan;
  if (firstNaN(nan, a, b))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(a * b);
}
template <> double mul<double>(double a, double b, Round r) {
  double nan;
  if (firstNaN(nan, a, b))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(a * b);
}
template <> float fma<float>(float a, float b, float c, Round r) {
  float nan;
  if (firstNaN(nan, a, b, c))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(std::fma(a, b, c));
}
template <> double fma<double>(double a, double b, double c, Round r) {
  double nan;
  if (firstNaN(nan, a, b, c))
    return nan;
  RoundingScope scope(r);
  return canonicalInvalid(std::fma(a, b, c));
}
template <> float sqrt<float>(float a, Round r) {
  float nan;
  if (firstNaN(nan, a))
    return nan;
  if (a < 0)
    return defaultNaN<float>();
  RoundingScope scope(r);
  return std::sqrt(a);
}
template <> double sqrt<double>(double a, Round r) {
  double nan;
  if (firstNaN(nan, a))
    return nan;
  if (a < 0)
    return defaultNaN<double>();
  RoundingScope scope(r);
  return std::sqrt(a);
}

template <> Half add<Half>(Half a, Half b, Round r) {
  return narrowAdd(a, b, r);
}
template <> BFloat add<BFloat>(BFloat a, BFloat b, Round r) {
  return narrowAdd(a, b, r);
}
template <> Half mul<Half>(Half a, Half b, Round r) {
  return narrowMul(a, b, r);
}
template <> BFloat mul<BFloat>(BFloat a, BFloat b, Round r) {
  return narrowMul(a, b, r);
}
template <> Half fma<Half>(Half a, Half b, Half c, Round r) {
  return narrowFma(a, b, c, r);
}
template <> BFloat fma<BFloat>(BFloat a, BFloat b, BFloat c, Round r) {
  return narrowFma(a, b, c, r);
}
template <> Half sqrt<Half>(Half a, Round r) { return narrowSqrt(a, r); }

template <class T> T ldexp(T a, int64_t n, Round r) {
  if (isNaN(a))
    return quietNaN(a);
  if (isInf(a) || isZero(a))
    return a;
  if constexpr (std::is_same_v<T, double>) {
    RoundingScope scope(r);
    return std::ldexp(a, int(std::clamp<int64_t>(n, -2200, 2200)));
  } else {
    // Exact in double for every f32/f16 value and |n| <= 400; beyond that
    // the result is zero or infinity (or the smallest denormal or the
    // largest finite value, by round mode) either way.
    double x = std::ldexp(toDouble(a), int(std::clamp<int64_t>(n, -400, 400)));
    return fromDouble<T>(x, r);
  }
}
template float ldexp<float>(float, int64_t, Round);
template double ldexp<double>(double, int64_t, Round);
template Half ldexp<Half>(Half, int64_t, Round);

template <class T> T fromInt(int64_t v, Round r) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    RoundingScope scope(r);
    return static_cast<T>(v);
  } else {
    return fromDouble<T>(double(v), r); // exact for the 32-bit sources
  }
}
template <class T> T fromUint(uint64_t v, Round r) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    RoundingScope scope(r);
    return static_cast<T>(v);
  } else {
    return fromDouble<T>(double(v), r);
  }
}
template float fromInt<float>(int64_t, Round);
template double fromInt<double>(int64_t, Round);
template Half fromInt<Half>(int64_t, Round);
template float fromUint<float>(uint64_t, Round);
template double fromUint<double>(uint64_t, Round);
template Half fromUint<Half>(uint64_t, Round);

} // namespace crest::emu::valu
