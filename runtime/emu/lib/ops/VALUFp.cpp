//===- VALUFp.cpp - Vector ALU: floating-point arithmetic -----------------===//
//
// f16, f32 and f64 arithmetic, correctly rounded in MODE's round mode, with
// MODE's denormal controls and the CDNA3 pseudocode's NaN rules (see
// VALUFloat.h and VALUCore.h). Decisions beyond the pseudocode:
//
// - v_mad_f32/v_mac_f32/v_mad_f16/v_mac_f16/v_madmk/v_madak and
//   v_mad_legacy_f32 are unfused (the product is rounded first) and never
//   handle denormals (inputs, product and result flushed): LLVM only selects
//   them when denormals are flushed (SIISelLowering::getFusedOpcode).
// - The f32 transcendentals (v_exp/log/rcp/rsq/sqrt/sin/cos_f32) flush
//   denormal inputs and results whatever MODE says: LLVM's expansions scale
//   around exactly that (lowerFSQRTF32, lowerFEXP2, lowerFLOG2, the
//   denormal-safe rcp). f16 and f64 ones honour MODE.
// - Transcendentals are computed with the host's double-precision libm and
//   rounded to nearest-even: sqrt (all formats) and rcp are correctly rounded,
//   the others are within 1 ulp of the exact result for f32 and f16, while
//   the hardware is documented at about 1 ulp. Tests of transcendental
//   results therefore allow 1 ulp. Special values follow the ISA's tables
//   (v_log(+-0) = -inf, v_rsq(-0) = -inf, v_sin(+-inf) = NaN, ...).
// - v_sin/v_cos take revolutions: sin(2 pi x), reduced exactly (x minus the
//   nearest multiple of 1/4) before the libm call, so v_sin(0.25) = 1 and
//   v_cos(0.25) = 0 exactly.
// - v_fract is min(x - floor(x), the largest value below 1) (gfx9 has no
//   SI fract bug); fract(+-inf) is NaN.
// - v_div_scale follows the ISA pseudocode with one correction: when both
//   1/D and N/D are denormal, a denominator operand is scaled by 2^-64
//   (2^-128 for f64), not 2^+64, which would overflow the (huge)
//   denominator; the flag then tells v_div_fmas to scale the quotient back.
// - v_div_fmas with VCC set: the pseudocode's "2.0 ** 32 * fma(...)" cannot
//   undo v_div_scale's 2^64 scaling in either direction; the quotient
//   estimate S2 tells which way it went: the result is multiplied by 2^64
//   when S2 >= 2 (exponent above the bias: the denominator was scaled up)
//   and by 2^-64 otherwise (the numerator was scaled up), 2^+-128 for f64,
//   rounding once (f64: in round-to-nearest, through binary128; with a
//   directed round mode a denormal f64 quotient may be rounded twice).
//   VALUMathTest checks LLVM's whole f32 and f64 division sequences against
//   host division, extreme exponents, denormals and special values
//   included.
// - v_div_fixup's UNDERFLOW/OVERFLOW results are signed zero/infinity. The
//   ISA text's overflow test, "exponent(S1) == 255", can never fire (an
//   infinite or NaN S1 is handled before it); it is read, like the
//   underflow test next to it, as a test on the exponent difference: a
//   quotient certainly >= 2^128 (exponent(N) - exponent(D) > 128; 1024 for
//   f64) is +-infinity. Without it, LLVM's sequence turns such quotients
//   into NaN (its refinement computes inf - inf) where IEEE requires
//   infinity.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include <cmath>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

//===----------------------------------------------------------------------===//
// Basic arithmetic
//===----------------------------------------------------------------------===//

template <class T> T addF(Lane &l, T a, T b) { return add(a, b, l.round<T>()); }
/// a - b (a NaN operand propagates with its own sign).
template <class T> T difference(T a, T b, Round r) {
  if (isNaN(a))
    return quietNaN(a);
  if (isNaN(b))
    return quietNaN(b);
  return add(a, negate(b), r);
}
template <class T> T subF(Lane &l, T a, T b) {
  return difference(a, b, l.round<T>());
}
template <class T> T subrevF(Lane &l, T a, T b) {
  return difference(b, a, l.round<T>());
}
template <class T> T mulF(Lane &l, T a, T b) { return mul(a, b, l.round<T>()); }
template <class T> T fmaF(Lane &l, T a, T b, T c) {
  return fma(a, b, c, l.round<T>());
}
/// Unfused multiply-add without denormals (v_mad/v_mac).
template <class T> T madF(Lane &l, T a, T b, T c) {
  Round r = l.round<T>();
  return add(flushDenormal(mul(a, b, r)), c, r);
}
/// DX9 multiply: 0 * anything (NaN and infinity included) is +0.
float mulLegacy(Lane &l, float a, float b) {
  if (isZero(a) || isZero(b))
    return 0.0f;
  return mul(a, b, l.round<float>());
}
float madLegacy(Lane &l, float a, float b, float c) {
  Round r = l.round<float>();
  float p = isZero(a) || isZero(b) ? 0.0f : flushDenormal(mul(a, b, r));
  return add(p, c, r);
}
template <class T> T minF(Lane &l, T a, T b) { return minimum(a, b, l.ieee()); }
template <class T> T maxF(Lane &l, T a, T b) { return maximum(a, b, l.ieee()); }
template <class T> T min3F(Lane &l, T a, T b, T c) {
  return minF(l, minF(l, a, b), c);
}
template <class T> T max3F(Lane &l, T a, T b, T c) {
  return maxF(l, maxF(l, a, b), c);
}
template <class T> T maximum3F(Lane &, T a, T b, T c) {
  return maximumPropagateNaN(maximumPropagateNaN(a, b), c);
}
template <class T> T minimum3F(Lane &, T a, T b, T c) {
  return minimumPropagateNaN(minimumPropagateNaN(a, b), c);
}
template <class T> T med3F(Lane &l, T a, T b, T c) {
  if (isNaN(a) || isNaN(b) || isNaN(c))
    return min3F(l, a, b, c);
  double top = toDouble(max3F(l, a, b, c));
  if (top == toDouble(a))
    return maxF(l, b, c);
  if (top == toDouble(b))
    return maxF(l, a, c);
  return maxF(l, a, b);
}
template <class T, class I> T ldexpF(Lane &l, T a, I n) {
  return ldexp(a, int64_t(n), l.round<T>());
}

//===----------------------------------------------------------------------===//
// Rounding to integral values, fract, frexp
//===----------------------------------------------------------------------===//

/// Applies an exact integral rounding (floor, ceil, ...) through double.
template <class T, double (*Fn)(double)> T integral(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  if (isInf(a) || isZero(a))
    return a;
  double r = Fn(toDouble(a));
  // Keep the sign of a zero result (ceil(-0.5) = -0).
  return fromDouble<T>(r == 0 ? std::copysign(0.0, toDouble(a)) : r,
                       Round::NearestEven);
}
double roundEven(double x) { return std::nearbyint(x); }
double floorD(double x) { return std::floor(x); }
double ceilD(double x) { return std::ceil(x); }
double truncD(double x) { return std::trunc(x); }

/// The largest value of T below 1.
template <class T> T belowOne() {
  return fromBits<T>(FpBits<T>(toBits(fromDouble<T>(1.0, Round::Zero)) - 1));
}
template <class T> T fract(Lane &l, T a) {
  if (isNaN(a))
    return quietNaN(a);
  if (isInf(a))
    return defaultNaN<T>();
  T floorA = integral<T, floorD>(l, a);
  T r = add(a, negate(floorA), l.round<T>());
  return toDouble(r) < 1.0 ? r : belowOne<T>();
}
template <class T> T frexpMant(Lane &, T a) {
  if (isNaN(a) || isInf(a) || isZero(a))
    return a;
  int e;
  double m = std::frexp(toDouble(a), &e);
  return fromDouble<T>(m, Round::NearestEven);
}
template <class T, class I> I frexpExp(Lane &, T a) {
  if (isNaN(a) || isInf(a) || isZero(a))
    return 0;
  int e;
  std::frexp(toDouble(a), &e);
  return I(e);
}

//===----------------------------------------------------------------------===//
// Transcendentals
//===----------------------------------------------------------------------===//

/// Narrows a libm result; a NaN not coming from a NaN input is the
/// default NaN.
template <class T> T fromLibm(double r) {
  if (std::isnan(r))
    return defaultNaN<T>();
  return fromDouble<T>(r, Round::NearestEven);
}
template <class T> T expF(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  return fromLibm<T>(std::exp2(toDouble(a)));
}
template <class T> T logF(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  return fromLibm<T>(std::log2(toDouble(a)));
}
template <class T> T rcpF(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  return fromLibm<T>(1.0 / toDouble(a));
}
template <class T> T rsqF(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  if (isZero(a))
    return infinity<T>(signBit(a));
  return fromLibm<T>(1.0 / std::sqrt(toDouble(a)));
}
template <class T> T sqrtF(Lane &, T a) { return sqrt(a, Round::NearestEven); }
template <> double sqrtF<double>(Lane &l, double a) {
  return sqrt(a, l.round<double>());
}
/// sin(2 pi x) (Cosine: cos(2 pi x)) with exact reduction by quarter turns.
template <class T, bool Cosine> T sinCos(Lane &, T a) {
  if (isNaN(a))
    return quietNaN(a);
  if (isInf(a))
    return defaultNaN<T>();
  if (!Cosine && isZero(a))
    return a;
  double x = toDouble(a);
  double r = x - std::nearbyint(x); // exact, in [-1/2, 1/2]
  double q = std::nearbyint(4 * r); // quarter turns
  double t = r - q / 4;             // exact, in [-1/8, 1/8]
  double s = std::sin(2 * M_PI * t), c = std::cos(2 * M_PI * t);
  int quadrant = (int(q) + (Cosine ? 1 : 0)) & 3;
  static constexpr int kSinSign[4] = {1, 1, -1, -1};
  double v = (quadrant & 1) ? c : s;
  // Exact zeros are +0 (the ISA's table: v_cos(0.25) = 0x00000000).
  return fromLibm<T>(v == 0 ? 0.0 : kSinSign[quadrant] * v);
}

//===----------------------------------------------------------------------===//
// Division support
//===----------------------------------------------------------------------===//

/// |a| < |b| * 2^k, exactly.
bool lessThanScaled(double a, double b, int k) {
  int ea, eb;
  double ma = std::frexp(std::fabs(a), &ea);
  double mb = std::frexp(std::fabs(b), &eb);
  if (ma == 0)
    return mb != 0;
  if (mb == 0)
    return false;
  eb += k;
  return ea != eb ? ea < eb : ma < mb;
}

template <class T> struct DivConstants;
template <> struct DivConstants<float> {
  static constexpr int ExpDiff = 96, Scale = 64, TinyNumerator = 23;
};
template <> struct DivConstants<double> {
  static constexpr int ExpDiff = 768, Scale = 128, TinyNumerator = 53;
};

/// v_div_scale: S0 scaled (or not) and the flag v_div_fmas uses;
/// S1 = denominator, S2 = numerator, S0 is one of them.
template <class T> WithFlag<T> divScale(Lane &, T s0, T s1, T s2) {
  using K = DivConstants<T>;
  if (isZero(s2) || isZero(s1))
    return {defaultNaN<T>(), false};
  int e1 = int(exponentField(s1)), e2 = int(exponentField(s2));
  double d = toDouble(s1), n = toDouble(s2);
  int minNormalExp = 1 - FpMask<T>::Bias;
  // 1/D below the normal range: |D| > 2^-minNormalExp.
  bool recipDenormal = std::isfinite(d) &&
                       !lessThanScaled(d, 1.0, -minNormalExp) &&
                       std::fabs(d) != std::ldexp(1.0, -minNormalExp);
  // N/D nonzero and below the normal range: |N| < |D| * 2^minNormalExp.
  bool quotientDenormal = std::isfinite(n) && std::isfinite(d) &&
                          lessThanScaled(n, d, minNormalExp);
  auto scaled = [&](int k) { return ldexp(s0, k, Round::NearestEven); };
  bool s0IsD = toDouble(s0) == d, s0IsN = toDouble(s0) == n;
  if (e2 - e1 >= K::ExpDiff)
    return {s0IsD ? scaled(K::Scale) : s0, true};
  if (isDenormal(s1))
    return {scaled(K::Scale), false};
  if (recipDenormal && quotientDenormal)
    return {s0IsD ? scaled(-K::Scale) : s0, true};
  if (recipDenormal)
    return {scaled(-K::Scale), false};
  if (quotientDenormal)
    return {s0IsN ? scaled(K::Scale) : s0, true};
  if (e2 <= K::TinyNumerator)
    return {scaled(K::Scale), false};
  return {s0, false};
}

/// v_div_fmas: fma, rescaled when VCC is set (see the file comment).
float divFmasF32(Lane &l, float a, float b, float c, bool vcc) {
  Round r = l.round<float>();
  if (!vcc || isNaN(a) || isNaN(b) || isNaN(c))
    return fma(a, b, c, r);
  int k = int(exponentField(c)) > FpMask<float>::Bias ? 64 : -64;
  double p = double(a) * double(b); // exact
  double s = (std::isinf(p) || std::isinf(double(c))) ? p + double(c)
                                                      : stickySum(p, c);
  if (std::isnan(s))
    return defaultNaN<float>();
  return fromDouble<float>(std::ldexp(s, k), r); // one rounding
}
double divFmasF64(Lane &l, double a, double b, double c, bool vcc) {
  Round r = l.round<double>();
  if (!vcc || isNaN(a) || isNaN(b) || isNaN(c))
    return fma(a, b, c, r);
  int k = int(exponentField(c)) > FpMask<double>::Bias ? 128 : -128;
  if (r == Round::NearestEven && std::isfinite(a) && std::isfinite(b) &&
      std::isfinite(c)) {
    // One rounding: a * b is exact in binary128 and the sum's rounding to
    // 113 bits is innocuous before the final rounding to double (113 >=
    // 2 * 53 + 2); scaling by 2^k is exact.
    __float128 e = (__float128)a * b + c;
    return double(e * (k > 0 ? (__float128)0x1p128 : (__float128)0x1p-128));
  }
  // Directed rounding modes (and infinite operands): the fma then the
  // scaling, which can round twice when the result is denormal.
  return ldexp(fma(a, b, c, r), k, r);
}

/// v_div_fixup: S0 = quotient, S1 = denominator, S2 = numerator.
template <class T> T divFixup(Lane &, T q, T d, T n) {
  bool negative = signBit(d) != signBit(n);
  if (isNaN(n))
    return quietNaN(n);
  if (isNaN(d))
    return quietNaN(d);
  if ((isZero(d) && isZero(n)) || (isInf(d) && isInf(n)))
    return defaultNaN<T>();
  if (isZero(d) || isInf(n))
    return infinity<T>(negative);
  if (isInf(d) || isZero(n))
    return zero<T>(negative);
  if constexpr (!std::is_same_v<T, Half>) {
    constexpr bool f32 = std::is_same_v<T, float>;
    constexpr int underflow = f32 ? -150 : -1075, overflow = f32 ? 128 : 1024;
    int difference = int(exponentField(n)) - int(exponentField(d));
    if (difference < underflow)
      return zero<T>(negative);
    if (difference > overflow)
      return infinity<T>(negative);
  }
  return withSign(q, negative);
}

//===----------------------------------------------------------------------===//
// Literal-constant forms (v_fmamk/fmaak/madmk/madak): vdst, src0, K, src1 or
// vdst, src0, src1, K. e32 only, no modifiers.
//===----------------------------------------------------------------------===//

template <class T, T (*Fn)(Lane &, T, T, T), bool KIsAddend, unsigned Flags = 0>
void withLiteral(Wave &wave, const Inst &inst) {
  constexpr unsigned flags = Flags;
  if (!checkNoGprIndexMode(wave, inst))
    return;
  if (inst.numOps != 4 || !inst.ops[KIsAddend ? 3 : 2].isImm()) {
    wave.fail(inst, "unexpected operand layout for a literal-constant form");
    return;
  }
  Controls c;
  T k = fromRaw<T>(inst.ops[KIsAddend ? 3 : 2].imm);
  const Operand &s0 = inst.ops[1], &s1 = inst.ops[KIsAddend ? 2 : 3];
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    Lane l{wave, inst, lane, wave.mode, false};
    T a = flushInput(fromRaw<T>(wave.readLane32(s0, lane)), l.modeReg, flags);
    T b = flushInput(fromRaw<T>(wave.readLane32(s1, lane)), l.modeReg, flags);
    T kk = flushInput(k, l.modeReg, flags);
    T r = KIsAddend ? Fn(l, a, b, kk) : Fn(l, a, kk, b);
    detail::store(l, c, flags, r);
  }
}

//===----------------------------------------------------------------------===//
// Dot products and packed accumulate of the VOP2 encoding
//===----------------------------------------------------------------------===//

/// D = D + a.lo * b.lo + a.hi * b.hi with f32 accumulation (the
/// pseudocode's order, rounding after each addition); T is Half or BFloat.
template <class T> float dot2cF32F16(Lane &l, uint32_t a, uint32_t b, float c) {
  Round r = l.round<float>();
  float acc = c;
  for (unsigned shift : {0u, 16u}) {
    T x = flushInput(T{uint16_t(a >> shift)}, l.modeReg, 0);
    T y = flushInput(T{uint16_t(b >> shift)}, l.modeReg, 0);
    float p = mul(float(toDouble(x)), float(toDouble(y)), r); // exact
    acc = add(acc, p, r);
  }
  return acc;
}
//===----------------------------------------------------------------------===//
// v_trig_preop_f64
//===----------------------------------------------------------------------===//

/// The 1201 fraction bits of 2/pi (b1200 first, as the ISA numbers them),
/// most significant first, padded with zeros to 19 words.
constexpr uint64_t kTwoOverPi[19] = {
    0xa2f9836e4e441529, 0xfc2757d1f534ddc0, 0xdb6295993c439041,
    0xfe5163abdebbc561, 0xb7246e3a424dd2e0, 0x06492eea09d1921c,
    0xfe1deb1cb129a73e, 0xe88235f52ebb4484, 0xe99c7026b45f7e41,
    0x3991d639835339f4, 0x9c845f8bbdf9283b, 0x1ff897ffde05980f,
    0xef2f118b5a0a6d1f, 0x6d367ecf27cb09b7, 0x4f463f669e5fea2d,
    0x7527bac7ebe5f17b, 0x3d0739f78a5292ea, 0x6bfb5fb11f8d5d08,
    0x56033046fc7b0000};
constexpr unsigned kTwoOverPiBits = 1201;

/// Fraction bit `i` of 2/pi (0 = the first bit after the point); zero past
/// the table, as the ISA's 1201-bit value has no more bits.
unsigned twoOverPiBit(unsigned i) {
  if (i >= kTwoOverPiBits)
    return 0;
  return unsigned(kTwoOverPi[i / 64] >> (63 - i % 64)) & 1;
}

/// The ISA pseudocode: the 53 bits of 2/pi starting `shift` bits after the
/// point, shift = 53 * S1[4:0] plus the excess of S0's biased exponent over
/// 1077 (skipping the bits that only contribute whole multiples of 4 to
/// S0 * 2/pi for a large S0), scaled by
/// 2^(-53 - shift), and by 2^128 more when S0's exponent is >= 1968 (the
/// caller scales S0 down by 2^-128 then). Only S0's exponent field is used
/// (NaN and infinity included). A result below the normal range is
/// truncated, not rounded, like a hardware table lookup: a trace of RDNA4
/// hardware shows truncation and the CDNA3 text ("ldexp(result, scale)")
/// does not say how ldexp rounds; no compiler sequence depends on it.
double trigPreop(Lane &, double s0, uint32_t s1) {
  uint64_t bits = llvm::bit_cast<uint64_t>(s0);
  unsigned exponent = unsigned(bits >> 52) & 0x7ff;
  unsigned shift = 53 * (s1 & 31) + (exponent > 1077 ? exponent - 1077 : 0);
  uint64_t chunk = 0;
  for (unsigned i = 0; i < 53; ++i)
    chunk = chunk << 1 | twoOverPiBit(shift + i);
  int scale = -53 - int(shift) + (exponent >= 1968 ? 128 : 0);
  return ldexp(double(chunk), scale, Round::Zero);
}

uint32_t pkFmacF16(Lane &l, uint32_t a, uint32_t b, uint32_t c) {
  Round r = l.round<Half>();
  uint32_t out = 0;
  for (unsigned shift : {0u, 16u}) {
    auto half = [&](uint32_t v) {
      return flushInput(Half{uint16_t(v >> shift)}, l.modeReg, 0);
    };
    Half h = flushOutput(fma(half(a), half(b), half(c), r), l.modeReg, 0);
    out |= uint32_t(h.bits) << shift;
  }
  return out;
}

} // namespace

void crest::emu::valu::registerValuFloatHandlers(HandlerRegistry &r) {
  // VOP2.
  r.addVALU("V_ADD_F32", lanewise<addF<float>>);
  r.addVALU("V_ADD_F16", lanewise<addF<Half>>);
  r.addVALU("V_SUB_F32", lanewise<subF<float>>);
  r.addVALU("V_SUB_F16", lanewise<subF<Half>>);
  r.addVALU("V_SUBREV_F32", lanewise<subrevF<float>>);
  r.addVALU("V_SUBREV_F16", lanewise<subrevF<Half>>);
  r.addVALU("V_MUL_F32", lanewise<mulF<float>>);
  r.addVALU("V_MUL_F16", lanewise<mulF<Half>>);
  r.addVALU("V_MUL_LEGACY_F32", lanewise<mulLegacy>);
  r.addVALU("V_MIN_F32", lanewise<minF<float>>);
  r.addVALU("V_MAX_F32", lanewise<maxF<float>>);
  r.addVALU("V_MIN_F16", lanewise<minF<Half>>);
  r.addVALU("V_MAX_F16", lanewise<maxF<Half>>);
  r.addVALU("V_LDEXP_F32", lanewise<ldexpF<float, int32_t>>);
  r.addVALU("V_LDEXP_F16", lanewise<ldexpF<Half, int16_t>>);
  r.addVALU("V_FMAC_F32", lanewise<fmaF<float>>);
  r.addVALU("V_FMAC_F64", lanewise<fmaF<double>>);
  r.addVALU("V_MAC_F32", lanewise<madF<float>, op::AlwaysFlush>);
  r.addVALU("V_MAC_F16",
            lanewise<madF<Half>, op::AlwaysFlush | op::KeepHigh16>);
  r.addVALU("V_DOT2C_F32_F16", lanewise<dot2cF32F16<Half>>);
  r.addVALU("V_DOT2C_F32_BF16", lanewise<dot2cF32F16<BFloat>>);
  r.addVALU("V_PK_FMAC_F16", lanewise<pkFmacF16>);
  r.add("V_FMAMK_F32", withLiteral<float, fmaF<float>, false>);
  r.add("V_FMAAK_F32", withLiteral<float, fmaF<float>, true>);
  r.add("V_MADMK_F16",
        withLiteral<Half, madF<Half>, false, op::AlwaysFlush | op::KeepHigh16>);
  r.add("V_MADAK_F16",
        withLiteral<Half, madF<Half>, true, op::AlwaysFlush | op::KeepHigh16>);
  r.add("V_MADMK_F32", withLiteral<float, madF<float>, false, op::AlwaysFlush>);
  r.add("V_MADAK_F32", withLiteral<float, madF<float>, true, op::AlwaysFlush>);

  // VOP1.
  r.addVALU("V_FRACT_F32", lanewise<fract<float>>);
  r.addVALU("V_FRACT_F16", lanewise<fract<Half>>);
  r.addVALU("V_FRACT_F64", lanewise<fract<double>>);
  r.addVALU("V_TRUNC_F32", lanewise<integral<float, truncD>>);
  r.addVALU("V_TRUNC_F16", lanewise<integral<Half, truncD>>);
  r.addVALU("V_TRUNC_F64", lanewise<integral<double, truncD>>);
  r.addVALU("V_CEIL_F32", lanewise<integral<float, ceilD>>);
  r.addVALU("V_CEIL_F16", lanewise<integral<Half, ceilD>>);
  r.addVALU("V_CEIL_F64", lanewise<integral<double, ceilD>>);
  r.addVALU("V_FLOOR_F32", lanewise<integral<float, floorD>>);
  r.addVALU("V_FLOOR_F16", lanewise<integral<Half, floorD>>);
  r.addVALU("V_FLOOR_F64", lanewise<integral<double, floorD>>);
  r.addVALU("V_RNDNE_F32", lanewise<integral<float, roundEven>>);
  r.addVALU("V_RNDNE_F16", lanewise<integral<Half, roundEven>>);
  r.addVALU("V_RNDNE_F64", lanewise<integral<double, roundEven>>);
  r.addVALU("V_FREXP_MANT_F32", lanewise<frexpMant<float>>);
  r.addVALU("V_FREXP_MANT_F16", lanewise<frexpMant<Half>>);
  r.addVALU("V_FREXP_MANT_F64", lanewise<frexpMant<double>>);
  r.addVALU("V_FREXP_EXP_I32_F32", lanewise<frexpExp<float, int32_t>>);
  r.addVALU("V_FREXP_EXP_I32_F64", lanewise<frexpExp<double, int32_t>>);
  r.addVALU("V_FREXP_EXP_I16_F16", lanewise<frexpExp<Half, int16_t>>);
  r.addVALU("V_EXP_F32", lanewise<expF<float>, op::AlwaysFlush>);
  r.addVALU("V_LOG_F32", lanewise<logF<float>, op::AlwaysFlush>);
  r.addVALU("V_RCP_F32", lanewise<rcpF<float>, op::AlwaysFlush>);
  r.addVALU("V_RCP_IFLAG_F32", lanewise<rcpF<float>, op::AlwaysFlush>);
  r.addVALU("V_RSQ_F32", lanewise<rsqF<float>, op::AlwaysFlush>);
  r.addVALU("V_SQRT_F32", lanewise<sqrtF<float>, op::AlwaysFlush>);
  r.addVALU("V_SIN_F32", lanewise<sinCos<float, false>, op::AlwaysFlush>);
  r.addVALU("V_COS_F32", lanewise<sinCos<float, true>, op::AlwaysFlush>);
  r.addVALU("V_EXP_F16", lanewise<expF<Half>>);
  r.addVALU("V_LOG_F16", lanewise<logF<Half>>);
  r.addVALU("V_RCP_F16", lanewise<rcpF<Half>>);
  r.addVALU("V_RSQ_F16", lanewise<rsqF<Half>>);
  r.addVALU("V_SQRT_F16", lanewise<sqrtF<Half>>);
  r.addVALU("V_SIN_F16", lanewise<sinCos<Half, false>>);
  r.addVALU("V_COS_F16", lanewise<sinCos<Half, true>>);
  r.addVALU("V_RCP_F64", lanewise<rcpF<double>>);
  r.addVALU("V_RSQ_F64", lanewise<rsqF<double>>);
  r.addVALU("V_SQRT_F64", lanewise<sqrtF<double>>);

  // VOP3-only.
  r.add("V_FMA_F32", lanewise<fmaF<float>>);
  r.add("V_FMA_F64", lanewise<fmaF<double>>);
  r.add("V_FMA_F16", lanewise<fmaF<Half>, op::OpSelDst>);
  // gfx9's VI encodings (VOP3 0x1ea, 0x1ee, 0x1ef): no op_sel, the high
  // half of the result is zeroed.
  r.add("V_FMA_LEGACY_F16", lanewise<fmaF<Half>>);
  r.add("V_MAD_LEGACY_F16", lanewise<madF<Half>, op::AlwaysFlush>);
  r.add("V_DIV_FIXUP_LEGACY_F16", lanewise<divFixup<Half>>);
  r.add("V_MAD_F32", lanewise<madF<float>, op::AlwaysFlush>);
  r.add("V_MAD_F16", lanewise<madF<Half>, op::AlwaysFlush | op::OpSelDst>);
  r.add("V_MAD_LEGACY_F32", lanewise<madLegacy, op::AlwaysFlush>);
  r.add("V_ADD_F64", lanewise<addF<double>>);
  r.add("V_MUL_F64", lanewise<mulF<double>>);
  r.add("V_MIN_F64", lanewise<minF<double>>);
  r.add("V_MAX_F64", lanewise<maxF<double>>);
  r.add("V_LDEXP_F64", lanewise<ldexpF<double, int32_t>>);
  r.add("V_TRIG_PREOP_F64", lanewise<trigPreop, op::NoFlush>);
  r.add("V_MIN3_F32", lanewise<min3F<float>>);
  r.add("V_MAX3_F32", lanewise<max3F<float>>);
  r.add("V_MAXIMUM3_F32", lanewise<maximum3F<float>>);
  r.add("V_MINIMUM3_F32", lanewise<minimum3F<float>>);
  r.add("V_MED3_F32", lanewise<med3F<float>>);
  r.add("V_MIN3_F16", lanewise<min3F<Half>, op::OpSelDst>);
  r.add("V_MAX3_F16", lanewise<max3F<Half>, op::OpSelDst>);
  r.add("V_MED3_F16", lanewise<med3F<Half>, op::OpSelDst>);
  r.add("V_DIV_SCALE_F32", lanewise<divScale<float>>);
  r.add("V_DIV_SCALE_F64", lanewise<divScale<double>>);
  r.add("V_DIV_FMAS_F32", lanewise<divFmasF32>);
  r.add("V_DIV_FMAS_F64", lanewise<divFmasF64>);
  r.add("V_DIV_FIXUP_F32", lanewise<divFixup<float>>);
  r.add("V_DIV_FIXUP_F64", lanewise<divFixup<double>>);
  r.add("V_DIV_FIXUP_F16", lanewise<divFixup<Half>, op::OpSelDst>);
}
