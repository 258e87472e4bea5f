//===- VALUConvert.cpp - Vector ALU: conversions --------------------------===//
//
// - Float to float: widening is exact; narrowing rounds in MODE's round mode
//   of the result format (f32: MODE[1:0], f16: MODE[3:2]); v_cvt_pkrtz
//   always rounds toward zero and v_cvt_pk_bf16_f32 (gfx950) to nearest
//   even, whatever MODE says (their pseudocode sets ROUND_MODE). NaNs are
//   quieted keeping the top payload bits.
// - Float to integer (v_cvt_i32_f32, v_cvt_u16_f16, ...): truncation toward
//   zero, out-of-range values (infinities included) saturate, NaN gives 0
//   (the ISA's description of these opcodes). v_cvt_flr_i32_f32 and
//   v_cvt_rpi_i32_f32 take floor(x) and floor(x + 0.5) first, computed
//   exactly.
// - Integer to float: correctly rounded in MODE's round mode.
// - Normalized (v_cvt_pknorm_*, v_cvt_norm_*): the input clamped to [-1, 1]
//   (snorm) or [0, 1] (unorm) times 32767 or 65535, rounded to nearest even;
//   NaN gives 0.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include <algorithm>
#include <cmath>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

template <class From, class To> To convertFloat(Lane &l, From a) {
  return fromDouble<To>(toDouble(a), l.round<To>());
}
template <class I, class T> I toInt(Lane &, T a) { return toIntSaturate<I>(a); }
template <class T> T fromI32(Lane &l, int32_t v) {
  return fromInt<T>(v, l.round<T>());
}
template <class T> T fromU32(Lane &l, uint32_t v) {
  return fromUint<T>(v, l.round<T>());
}
Half fromI16(Lane &l, int16_t v) { return fromInt<Half>(v, l.round<Half>()); }
Half fromU16(Lane &l, uint16_t v) { return fromUint<Half>(v, l.round<Half>()); }
int32_t floorToI32(Lane &, float a) {
  return toIntSaturate<int32_t>(std::floor(double(a)));
}
int32_t roundHalfUpToI32(Lane &, float a) {
  return toIntSaturate<int32_t>(std::floor(double(a) + 0.5));
}
template <unsigned Byte> float ubyteToF32(Lane &, uint32_t v) {
  return float((v >> (8 * Byte)) & 0xff);
}
/// v_cvt_off_f32_i4: the signed 4-bit value in S0[3:0], divided by 16.
float offF32I4(Lane &, uint32_t v) {
  return float(signExtend(v & 0xf, 4)) / 16.0f;
}

/// Narrows to f16 with MODE's f16 output denormal control (for the packing
/// conversions, whose result is not an f16 register value the lane loop
/// would finish).
uint16_t toHalfBits(Lane &l, float v, Round r) {
  return flushOutput(fromDouble<Half>(v, r), l.modeReg, 0).bits;
}
uint32_t cvtPkrtzF16F32(Lane &l, float a, float b) {
  return toHalfBits(l, a, Round::Zero) |
         (uint32_t(toHalfBits(l, b, Round::Zero)) << 16);
}
/// v_cvt_pk_f16_f32 (gfx950): both halves rounded to nearest even.
uint32_t cvtPkF16F32(Lane &l, float a, float b) {
  return toHalfBits(l, a, Round::NearestEven) |
         (uint32_t(toHalfBits(l, b, Round::NearestEven)) << 16);
}
/// v_cvt_f32_bf16 (gfx950): exact.
float bf16ToF32(Lane &, uint32_t v) { return fromRaw<float>(v << 16); }
uint32_t cvtPkBf16F32(Lane &, float a, float b) {
  return fromDouble<BFloat>(a, Round::NearestEven).bits |
         (uint32_t(fromDouble<BFloat>(b, Round::NearestEven).bits) << 16);
}

template <bool Signed> int64_t normalized(double x) {
  if (x != x)
    return 0;
  if (Signed)
    return int64_t(std::nearbyint(std::clamp(x, -1.0, 1.0) * 32767.0));
  return int64_t(std::nearbyint(std::clamp(x, 0.0, 1.0) * 65535.0));
}
template <bool Signed, class T> uint16_t cvtNorm(Lane &, T a) {
  return uint16_t(normalized<Signed>(toDouble(a)));
}
template <bool Signed, class T> uint32_t cvtPkNorm(Lane &, T a, T b) {
  return uint32_t(uint16_t(normalized<Signed>(toDouble(a)))) |
         (uint32_t(uint16_t(normalized<Signed>(toDouble(b)))) << 16);
}

} // namespace

void crest::emu::valu::registerValuConvertHandlers(HandlerRegistry &r) {
  r.addVALU("V_CVT_F32_F16", lanewise<convertFloat<Half, float>>);
  r.addVALU("V_CVT_F16_F32", lanewise<convertFloat<float, Half>>);
  r.addVALU("V_CVT_F64_F32", lanewise<convertFloat<float, double>>);
  r.addVALU("V_CVT_F32_F64", lanewise<convertFloat<double, float>>);
  r.addVALU("V_CVT_I32_F32", lanewise<toInt<int32_t, float>>);
  r.addVALU("V_CVT_U32_F32", lanewise<toInt<uint32_t, float>>);
  r.addVALU("V_CVT_I32_F64", lanewise<toInt<int32_t, double>>);
  r.addVALU("V_CVT_U32_F64", lanewise<toInt<uint32_t, double>>);
  r.addVALU("V_CVT_I16_F16", lanewise<toInt<int16_t, Half>>);
  r.addVALU("V_CVT_U16_F16", lanewise<toInt<uint16_t, Half>>);
  r.addVALU("V_CVT_F32_I32", lanewise<fromI32<float>>);
  r.addVALU("V_CVT_F32_U32", lanewise<fromU32<float>>);
  r.addVALU("V_CVT_F64_I32", lanewise<fromI32<double>>);
  r.addVALU("V_CVT_F64_U32", lanewise<fromU32<double>>);
  r.addVALU("V_CVT_F16_I16", lanewise<fromI16>);
  r.addVALU("V_CVT_F16_U16", lanewise<fromU16>);
  r.addVALU("V_CVT_FLR_I32_F32", lanewise<floorToI32>);
  r.addVALU("V_CVT_RPI_I32_F32", lanewise<roundHalfUpToI32>);
  r.addVALU("V_CVT_F32_UBYTE0", lanewise<ubyteToF32<0>>);
  r.addVALU("V_CVT_F32_UBYTE1", lanewise<ubyteToF32<1>>);
  r.addVALU("V_CVT_F32_UBYTE2", lanewise<ubyteToF32<2>>);
  r.addVALU("V_CVT_F32_UBYTE3", lanewise<ubyteToF32<3>>);
  r.addVALU("V_CVT_OFF_F32_I4", lanewise<offF32I4>);
  r.addVALU("V_CVT_NORM_I16_F16", lanewise<cvtNorm<true, Half>>);
  r.addVALU("V_CVT_NORM_U16_F16", lanewise<cvtNorm<false, Half>>);
  r.addVALU("V_CVT_PKRTZ_F16_F32", lanewise<cvtPkrtzF16F32>);
  r.addVALU("V_CVT_PKNORM_I16_F32", lanewise<cvtPkNorm<true, float>>);
  r.addVALU("V_CVT_PKNORM_U16_F32", lanewise<cvtPkNorm<false, float>>);
  r.add("V_CVT_PKNORM_I16_F16", lanewise<cvtPkNorm<true, Half>>);
  r.add("V_CVT_PKNORM_U16_F16", lanewise<cvtPkNorm<false, Half>>);
  r.add("V_CVT_PK_BF16_F32", lanewise<cvtPkBf16F32>);
  r.add("V_CVT_PK_F16_F32", lanewise<cvtPkF16F32>);
  r.addVALU("V_CVT_F32_BF16", lanewise<bf16ToF32>);
}
