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

#include "crest/Semantics/Scalar.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

/// The semantics of `bf8` (E5M2) or fp8 (E4M3) on the wave's chip, or null.
/// The codecs are crest/Semantics' (shared with the compiler and the
/// reference evaluator), used without saturation as the hardware converts.
const llvm::fltSemantics *fp8Format(const Wave &wave, bool bf8) {
  switch (wave.program.getChip().fp8) {
  case crest::Fp8Flavour::FNUZ:
    return bf8 ? &llvm::APFloat::Float8E5M2FNUZ()
               : &llvm::APFloat::Float8E4M3FNUZ();
  case crest::Fp8Flavour::OCP:
    return bf8 ? &llvm::APFloat::Float8E5M2() : &llvm::APFloat::Float8E4M3FN();
  default:
    return nullptr;
  }
}

float decodeFp8(uint8_t v, const llvm::fltSemantics &f) {
  double value = crest::sem::decodeFp8(v, f);
  return std::isnan(value) ? std::numeric_limits<float>::quiet_NaN()
                           : float(value);
}

/// Rounds to nearest even, without saturation (see the file comment).
uint8_t encodeFp8(float x, const llvm::fltSemantics &f) {
  return crest::sem::encodeFp8(x, f, /*saturate=*/false);
}

/// The wave's format or a failure.
template <bool Bf8> const llvm::fltSemantics *formatOrFail(Lane &l) {
  const llvm::fltSemantics *f = fp8Format(l.wave, Bf8);
  if (!f)
    l.wave.fail(l.inst, "this chip has no fp8 conversions");
  return f;
}

template <bool Bf8> float cvtF32Fp8(Lane &l, uint32_t v) {
  const llvm::fltSemantics *f = formatOrFail<Bf8>(l);
  return f ? decodeFp8(uint8_t(v), *f) : 0.0f;
}
template <bool Bf8> uint64_t cvtPkF32Fp8(Lane &l, uint32_t v) {
  const llvm::fltSemantics *f = formatOrFail<Bf8>(l);
  if (!f)
    return 0;
  return toBits(decodeFp8(uint8_t(v), *f)) |
         (uint64_t(toBits(decodeFp8(uint8_t(v >> 8), *f))) << 32);
}
template <bool Bf8>
uint32_t cvtPkFp8F32(Lane &l, float a, float b, uint32_t old) {
  const llvm::fltSemantics *f = formatOrFail<Bf8>(l);
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
