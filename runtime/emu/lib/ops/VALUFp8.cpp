//===- VALUFp8.cpp - Vector ALU: fp8/bf8 conversions (gfx940+) ------------===//
//
// The 8-bit float conversions read and write the chip's fp8 flavour:
// FNUZ on gfx940-gfx942 (E4M3 bias 8 and E5M2 bias 16, no infinities, no
// negative zero, 0x80 the only NaN) and OCP on gfx950 (E4M3FN bias 7 with
// NaN = S.1111.111 and no infinities; E5M2 bias 15, IEEE-like).
//
// - v_cvt_f32_fp8/bf8 convert one byte (byte 0, or the SDWA src0_sel byte),
//   v_cvt_pk_f32_fp8/bf8 two (word 0, or word 1 with SDWA src0_sel:WORD_1),
//   exactly.
// - v_cvt_pk_fp8/bf8_f32 convert S0 and S1 to bytes 0 and 1 of the word
//   op_sel[3] picks, keeping the other word, rounding to nearest even
//   (their pseudocode sets ROUND_MODE). These forms have no clamp bit, and
//   the conversion does not saturate: a finite value beyond the largest one
//   (after rounding) and an infinity become NaN (FNUZ, OCP E4M3) or
//   infinity (OCP E5M2), as ROCm's fp8 headers assume when they clip to
//   the largest value in software before converting. NaN stays NaN.
// The stochastic-rounding forms (v_cvt_sr_*) are not implemented.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

struct Fp8Format {
  int manBits;
  int bias;
  bool fnuz;   ///< 0x80 is NaN, no -0, no infinity
  bool hasInf; ///< OCP E5M2
  double max;  ///< largest finite value
  uint8_t nan; ///< NaN encoding (positive)
};

/// The format of `bf8` (E5M2) or fp8 (E4M3) on the wave's chip, or null.
const Fp8Format *fp8Format(const Wave &wave, bool bf8) {
  static const Fp8Format kFnuzE4M3{3, 8, true, false, 240.0, 0x80};
  static const Fp8Format kFnuzE5M2{2, 16, true, false, 57344.0, 0x80};
  static const Fp8Format kOcpE4M3{3, 7, false, false, 448.0, 0x7f};
  static const Fp8Format kOcpE5M2{2, 15, false, true, 57344.0, 0x7e};
  switch (wave.program.getChip().fp8) {
  case crest::Fp8Flavour::FNUZ:
    return bf8 ? &kFnuzE5M2 : &kFnuzE4M3;
  case crest::Fp8Flavour::OCP:
    return bf8 ? &kOcpE5M2 : &kOcpE4M3;
  default:
    return nullptr;
  }
}

float decodeFp8(uint8_t v, const Fp8Format &f) {
  bool negative = v & 0x80;
  int expBits = 7 - f.manBits;
  unsigned e = (v >> f.manBits) & ((1u << expBits) - 1);
  unsigned m = v & ((1u << f.manBits) - 1);
  if (f.fnuz && v == 0x80)
    return std::numeric_limits<float>::quiet_NaN();
  unsigned expMax = (1u << expBits) - 1;
  if (!f.fnuz && e == expMax) {
    if (f.hasInf) { // E5M2: infinity or NaN
      if (!m)
        return negative ? -INFINITY : INFINITY;
      return std::numeric_limits<float>::quiet_NaN();
    }
    if (m == ((1u << f.manBits) - 1)) // E4M3FN: only S.1111.111 is NaN
      return std::numeric_limits<float>::quiet_NaN();
  }
  double magnitude = e == 0 ? std::ldexp(double(m), 1 - f.bias - f.manBits)
                            : std::ldexp(double(m | (1u << f.manBits)),
                                         int(e) - f.bias - f.manBits);
  return float(negative ? -magnitude : magnitude);
}

/// Rounds to nearest even, without saturation (see the file comment).
uint8_t encodeFp8(float x, const Fp8Format &f) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  uint8_t overflow =
      f.hasInf ? uint8_t(sign | 0x7c) : uint8_t(f.fnuz ? 0x80 : sign | f.nan);
  if (std::isnan(x))
    return f.fnuz ? 0x80 : uint8_t(sign | f.nan);
  if (std::isinf(x))
    return overflow;
  double a = std::fabs(double(x));
  if (a == 0)
    return f.fnuz ? 0 : sign;
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  int emin = 1 - f.bias;
  int lsb = std::max(e - 1, emin) - f.manBits;    // exponent of the last place
  double q = std::nearbyint(std::ldexp(a, -lsb)); // round to nearest even
  double r = std::ldexp(q, lsb);
  if (r > f.max)
    return overflow;
  if (r == 0)
    return f.fnuz ? 0 : sign;
  std::frexp(r, &e);
  int exponent = e - 1;
  if (exponent < emin) // denormal
    return uint8_t(sign | unsigned(std::ldexp(r, f.bias - 1 + f.manBits)));
  unsigned mantissa =
      unsigned(std::ldexp(r, f.manBits - exponent)) - (1u << f.manBits);
  return uint8_t(sign | ((exponent + f.bias) << f.manBits) | mantissa);
}

/// The wave's format or a failure.
template <bool Bf8> const Fp8Format *formatOrFail(Lane &l) {
  const Fp8Format *f = fp8Format(l.wave, Bf8);
  if (!f)
    l.wave.fail(l.inst, "this chip has no fp8 conversions");
  return f;
}

template <bool Bf8> float cvtF32Fp8(Lane &l, uint32_t v) {
  const Fp8Format *f = formatOrFail<Bf8>(l);
  return f ? decodeFp8(uint8_t(v), *f) : 0.0f;
}
template <bool Bf8> uint64_t cvtPkF32Fp8(Lane &l, uint32_t v) {
  const Fp8Format *f = formatOrFail<Bf8>(l);
  if (!f)
    return 0;
  return toBits(decodeFp8(uint8_t(v), *f)) |
         (uint64_t(toBits(decodeFp8(uint8_t(v >> 8), *f))) << 32);
}
template <bool Bf8>
uint32_t cvtPkFp8F32(Lane &l, float a, float b, uint32_t old) {
  const Fp8Format *f = formatOrFail<Bf8>(l);
  if (!f)
    return old;
  uint32_t word = encodeFp8(a, *f) | (uint32_t(encodeFp8(b, *f)) << 8);
  if (l.inst.mods(0) & srcmods::DstOpSel)
    return (old & 0xffff) | (word << 16);
  return (old & 0xffff0000u) | word;
}

} // namespace

void crest::emu::valu::registerValuFp8Handlers(HandlerRegistry &r) {
  r.addVALU("V_CVT_F32_FP8", lanewise<cvtF32Fp8<false>>);
  r.addVALU("V_CVT_F32_BF8", lanewise<cvtF32Fp8<true>>);
  r.addVALU("V_CVT_PK_F32_FP8", lanewise<cvtPkF32Fp8<false>>);
  r.addVALU("V_CVT_PK_F32_BF8", lanewise<cvtPkF32Fp8<true>>);
  r.add("V_CVT_PK_FP8_F32", lanewise<cvtPkFp8F32<false>, op::OpSelDst>);
  r.add("V_CVT_PK_BF8_F32", lanewise<cvtPkFp8F32<true>, op::OpSelDst>);
}
