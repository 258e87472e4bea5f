//===- VALU.cpp - Vector ALU: integer and bit operations ------------------===//
//
// The VALU handlers for gfx90a and gfx942 (wave64; wave32 works where the
// instruction allows it):
//   VALUCore.h/.cpp    the lane loop (EXEC, source and output modifiers,
//                      SDWA, DPP, MODE) every handler is built on
//   VALUFloat.h/.cpp   IEEE formats, rounding in each MODE round mode
//   VALU.cpp           integer and bit operations (this file)
//   VALUFp.cpp         floating-point arithmetic, transcendentals, division
//   VALUConvert.cpp    conversions
//   VALUFp8.cpp        fp8/bf8 conversions (gfx940+)
//   VALUCompare.cpp    v_cmp, v_cmpx, v_cmp_class
//   VALUPacked.cpp     VOP3P packed math, dot products, mixed-precision fma
//   VALULane.cpp       v_readlane, v_readfirstlane, v_writelane, v_swap
// Opcodes without a handler fail when the kernel is decoded, with their
// name; operand forms a handler does not model fail the dispatch.
//
// Semantics follow the CDNA3 ISA pseudocode (also the gfx90a one for these
// instructions). Notes on the less obvious ones:
// - Carry-out (v_add_co/v_sub_co/v_addc/v_subb): the carry or borrow of the
//   unsigned 32-bit operation, to VCC (e32, SDWA, DPP) or the SGPR-pair
//   destination (e64); inactive lanes' bits are cleared. v_addc/v_subb read
//   the carry-in from VCC (e32) or their third source (e64).
// - Integer clamp (gfx9 "IntClamp", e64 only): add, sub, mad and dot forms
//   saturate to the result type's range; other integer operations with the
//   clamp bit set fail.
// - v_mad_u64_u32/v_mad_i64_i32 write bit 64 of the 65-bit result to the
//   SGPR-pair destination.
// - v_lshl_add_u64 (gfx940+) shifts by S1[2:0] (the pseudocode; LLVM only
//   emits shifts 0-4).
// - 16-bit results of the VOP1/VOP2 forms zero bits [31:16] on gfx9 (LLVM's
//   GCNSubtarget::zeroesHigh16BitsOfDest); the gfx9 VOP3 forms with op_sel
//   (v_mad_u16, v_add_i16, v_min3_u16, ...) write the half DST_OP_SEL picks
//   and keep the other.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <limits>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

template <class T> T saturate(int64_t v) {
  return T(std::clamp<int64_t>(v, std::numeric_limits<T>::min(),
                               std::numeric_limits<T>::max()));
}

/// An unsigned/signed 32- or 16-bit add or subtract, saturating with clamp.
template <class T> T addSat(Lane &l, T a, T b) {
  int64_t wide = int64_t(a) + int64_t(b);
  return l.clamp ? saturate<T>(wide) : T(wide);
}
template <class T> T subSat(Lane &l, T a, T b) {
  int64_t wide = int64_t(a) - int64_t(b);
  return l.clamp ? saturate<T>(wide) : T(wide);
}
template <class T> T subrevSat(Lane &l, T a, T b) { return subSat(l, b, a); }

// Carry-out forms.
WithFlag<uint32_t> addCo(Lane &l, uint32_t a, uint32_t b) {
  uint64_t s = uint64_t(a) + b;
  bool carry = s >> 32;
  return {l.clamp && carry ? UINT32_MAX : uint32_t(s), carry};
}
WithFlag<uint32_t> subCo(Lane &l, uint32_t a, uint32_t b) {
  bool borrow = b > a;
  return {l.clamp && borrow ? 0u : a - b, borrow};
}
WithFlag<uint32_t> subrevCo(Lane &l, uint32_t a, uint32_t b) {
  return subCo(l, b, a);
}
WithFlag<uint32_t> addc(Lane &l, uint32_t a, uint32_t b, bool carryIn) {
  uint64_t s = uint64_t(a) + b + carryIn;
  bool carry = s >> 32;
  return {l.clamp && carry ? UINT32_MAX : uint32_t(s), carry};
}
WithFlag<uint32_t> subb(Lane &l, uint32_t a, uint32_t b, bool borrowIn) {
  bool borrow = uint64_t(b) + borrowIn > a;
  return {l.clamp && borrow ? 0u : a - b - borrowIn, borrow};
}
WithFlag<uint32_t> subbrev(Lane &l, uint32_t a, uint32_t b, bool borrowIn) {
  return subb(l, b, a, borrowIn);
}

// Moves and bit operations.
uint32_t mov(Lane &, uint32_t a) { return a; }
uint64_t mov64(Lane &, uint64_t a) { return a; }
uint32_t cndmask(Lane &, uint32_t a, uint32_t b, bool c) { return c ? b : a; }
uint32_t notB32(Lane &, uint32_t a) { return ~a; }
uint32_t bfrev(Lane &, uint32_t a) { return llvm::reverseBits(a); }
uint32_t ffbhU32(Lane &, uint32_t a) {
  return a ? uint32_t(llvm::countl_zero(a)) : ~0u;
}
uint32_t ffblB32(Lane &, uint32_t a) {
  return a ? uint32_t(llvm::countr_zero(a)) : ~0u;
}
/// Leading bits equal to the sign bit, not counting it; -1 for 0 and -1.
uint32_t ffbhI32(Lane &, uint32_t a) {
  uint32_t x = (a >> 31) ? ~a : a;
  return x ? uint32_t(llvm::countl_zero(x)) : ~0u;
}
uint32_t andB32(Lane &, uint32_t a, uint32_t b) { return a & b; }
uint32_t orB32(Lane &, uint32_t a, uint32_t b) { return a | b; }
uint32_t xorB32(Lane &, uint32_t a, uint32_t b) { return a ^ b; }
uint32_t xnorB32(Lane &, uint32_t a, uint32_t b) { return ~(a ^ b); }
uint32_t lshlrev(Lane &, uint32_t s, uint32_t v) { return v << (s & 31); }
uint32_t lshrrev(Lane &, uint32_t s, uint32_t v) { return v >> (s & 31); }
uint32_t ashrrev(Lane &, uint32_t s, uint32_t v) {
  return uint32_t(int32_t(v) >> (s & 31));
}
uint16_t lshlrev16(Lane &, uint16_t s, uint16_t v) {
  return uint16_t(v << (s & 15));
}
uint16_t lshrrev16(Lane &, uint16_t s, uint16_t v) {
  return uint16_t(v >> (s & 15));
}
uint16_t ashrrev16(Lane &, uint16_t s, uint16_t v) {
  return uint16_t(int16_t(v) >> (s & 15));
}
uint64_t lshlrev64(Lane &, uint32_t s, uint64_t v) { return v << (s & 63); }
uint64_t lshrrev64(Lane &, uint32_t s, uint64_t v) { return v >> (s & 63); }
uint64_t ashrrev64(Lane &, uint32_t s, uint64_t v) {
  return uint64_t(int64_t(v) >> (s & 63));
}
uint32_t bfm(Lane &, uint32_t width, uint32_t offset) {
  return ((1u << (width & 31)) - 1) << (offset & 31);
}
uint32_t bfeU32(Lane &, uint32_t v, uint32_t offset, uint32_t width) {
  return (v >> (offset & 31)) & ((1u << (width & 31)) - 1);
}
uint32_t bfeI32(Lane &, uint32_t v, uint32_t offset, uint32_t width) {
  unsigned w = width & 31;
  if (w == 0)
    return 0;
  return uint32_t(signExtend(v >> (offset & 31), w));
}
uint32_t bfi(Lane &, uint32_t mask, uint32_t a, uint32_t b) {
  return (mask & a) | (~mask & b);
}
uint32_t alignbit(Lane &, uint32_t hi, uint32_t lo, uint32_t s) {
  return uint32_t(((uint64_t(hi) << 32) | lo) >> (s & 31));
}
uint32_t alignbyte(Lane &, uint32_t hi, uint32_t lo, uint32_t s) {
  return uint32_t(((uint64_t(hi) << 32) | lo) >> (8 * (s & 3)));
}
/// One byte of v_perm_b32: selector `sel` over the bytes of {S0, S1}.
uint8_t permByte(uint64_t data, uint32_t sel) {
  auto byteAt = [&](unsigned i) { return uint8_t(data >> (8 * i)); };
  if (sel >= 13)
    return 0xff;
  if (sel == 12)
    return 0;
  if (sel >= 8) // sign of byte 1, 3, 5 or 7 replicated
    return (byteAt(2 * (sel - 8) + 1) & 0x80) ? 0xff : 0;
  return byteAt(sel);
}
uint32_t perm(Lane &, uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t data = (uint64_t(a) << 32) | b;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i)
    r |= uint32_t(permByte(data, (sel >> (8 * i)) & 0xff)) << (8 * i);
  return r;
}
uint32_t bcnt(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(llvm::popcount(a)) + b;
}
/// Bits of `mask` below this lane (v_mbcnt_lo/hi take the low and high
/// halves of the lane's thread mask).
uint32_t mbcntLo(Lane &l, uint32_t mask, uint32_t add) {
  uint64_t below = (uint64_t(1) << l.lane) - 1;
  return uint32_t(llvm::popcount(mask & uint32_t(below))) + add;
}
uint32_t mbcntHi(Lane &l, uint32_t mask, uint32_t add) {
  uint64_t below = (uint64_t(1) << l.lane) - 1;
  return uint32_t(llvm::popcount(mask & uint32_t(below >> 32))) + add;
}

// Three-operand forms.
uint32_t add3(Lane &, uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }
uint32_t xad(Lane &, uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }
uint32_t lshlAdd(Lane &, uint32_t a, uint32_t s, uint32_t c) {
  return (a << (s & 31)) + c;
}
uint32_t addLshl(Lane &, uint32_t a, uint32_t b, uint32_t s) {
  return (a + b) << (s & 31);
}
uint32_t lshlOr(Lane &, uint32_t a, uint32_t s, uint32_t c) {
  return (a << (s & 31)) | c;
}
uint32_t andOr(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  return (a & b) | c;
}
uint32_t or3(Lane &, uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }
uint64_t lshlAdd64(Lane &, uint64_t a, uint32_t s, uint64_t c) {
  return (a << (s & 7)) + c;
}

// Multiplies.
int64_t int24(uint32_t v) { return signExtend(v, 24); }
uint64_t uint24(uint32_t v) { return v & 0xffffff; }
uint32_t mulLo(Lane &, uint32_t a, uint32_t b) { return a * b; }
uint32_t mulHiU32(Lane &, uint32_t a, uint32_t b) {
  return uint32_t((uint64_t(a) * b) >> 32);
}
uint32_t mulHiI32(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32);
}
uint32_t mulI24(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(int24(a) * int24(b));
}
uint32_t mulHiI24(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(uint64_t(int24(a) * int24(b)) >> 32);
}
uint32_t mulU24(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(uint24(a) * uint24(b));
}
uint32_t mulHiU24(Lane &, uint32_t a, uint32_t b) {
  return uint32_t((uint24(a) * uint24(b)) >> 32);
}
uint32_t madI24(Lane &l, uint32_t a, uint32_t b, uint32_t c) {
  int64_t r = int24(a) * int24(b) + int32_t(c);
  return l.clamp ? uint32_t(saturate<int32_t>(r)) : uint32_t(r);
}
uint32_t madU24(Lane &l, uint32_t a, uint32_t b, uint32_t c) {
  uint64_t r = uint24(a) * uint24(b) + c;
  return l.clamp && (r >> 32) ? UINT32_MAX : uint32_t(r);
}
uint32_t madU32U16(Lane &l, uint16_t a, uint16_t b, uint32_t c) {
  uint64_t r = uint64_t(a) * b + c;
  return l.clamp && (r >> 32) ? UINT32_MAX : uint32_t(r);
}
uint32_t madI32I16(Lane &l, int16_t a, int16_t b, uint32_t c) {
  int64_t r = int64_t(a) * b + int32_t(c);
  return l.clamp ? uint32_t(saturate<int32_t>(r)) : uint32_t(r);
}
template <class T> T mad16(Lane &l, T a, T b, T c) {
  int64_t r = int64_t(a) * int64_t(b) + int64_t(c);
  return l.clamp ? saturate<T>(r) : T(r);
}
// uint32_t: uint16_t operands promote to int, whose product can overflow.
uint16_t mulLoU16(Lane &, uint16_t a, uint16_t b) {
  return uint16_t(uint32_t(a) * b);
}
WithFlag<uint64_t> madU64U32(Lane &, uint32_t a, uint32_t b, uint64_t c) {
  unsigned __int128 r = (unsigned __int128)a * b + c;
  return {uint64_t(r), bool(uint64_t(r >> 64) & 1)};
}
WithFlag<uint64_t> madI64I32(Lane &, int32_t a, int32_t b, uint64_t c) {
  __int128 r = (__int128)a * b + (__int128)int64_t(c);
  return {uint64_t(r), bool(uint64_t(r >> 64) & 1)};
}

// Minimum, maximum, median.
template <class T> T minOf(Lane &, T a, T b) { return a < b ? a : b; }
template <class T> T maxOf(Lane &, T a, T b) { return a >= b ? a : b; }
template <class T> T min3(Lane &l, T a, T b, T c) {
  return minOf(l, minOf(l, a, b), c);
}
template <class T> T max3(Lane &l, T a, T b, T c) {
  return maxOf(l, maxOf(l, a, b), c);
}
template <class T> T med3(Lane &l, T a, T b, T c) {
  T top = max3(l, a, b, c);
  if (top == a)
    return maxOf(l, b, c);
  if (top == b)
    return maxOf(l, a, c);
  return maxOf(l, a, b);
}

// Sums of absolute differences.
uint32_t absDiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }
uint32_t sadU8(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  for (unsigned i = 0; i < 32; i += 8)
    c += absDiff((a >> i) & 0xff, (b >> i) & 0xff);
  return c;
}
uint32_t sadHiU8(Lane &l, uint32_t a, uint32_t b, uint32_t c) {
  return (sadU8(l, a, b, 0) << 16) + c;
}
uint32_t sadU16(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  return c + absDiff(a & 0xffff, b & 0xffff) + absDiff(a >> 16, b >> 16);
}
uint32_t sadU32(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  return absDiff(a, b) + c;
}
uint32_t msadU8(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  for (unsigned i = 0; i < 32; i += 8)
    if ((b >> i) & 0xff)
      c += absDiff((a >> i) & 0xff, (b >> i) & 0xff);
  return c;
}
uint32_t lerpU8(Lane &, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 32; i += 8)
    r |= ((((a >> i) & 0xff) + ((b >> i) & 0xff) + ((c >> i) & 1)) >> 1) << i;
  return r;
}

// Packing.
uint32_t cvtPkU16U32(Lane &, uint32_t a, uint32_t b) {
  return std::min<uint32_t>(a, 0xffff) | (std::min<uint32_t>(b, 0xffff) << 16);
}
uint32_t cvtPkI16I32(Lane &, uint32_t a, uint32_t b) {
  return uint32_t(uint16_t(saturate<int16_t>(int32_t(a)))) |
         (uint32_t(uint16_t(saturate<int16_t>(int32_t(b)))) << 16);
}
/// v_pack_b32_f16: two halves (bit moves; abs/neg and op_sel apply).
uint32_t packB32F16(Lane &, uint16_t lo, uint16_t hi) {
  return lo | (uint32_t(hi) << 16);
}
/// v_prng_b32 (gfx950): one step of the hardware's LFSR.
uint32_t prng(Lane &, uint32_t v) { return (v << 1) ^ ((v >> 31) ? 197u : 0u); }
uint16_t satPkU8I16(Lane &, uint32_t a) {
  auto sat8 = [](int16_t v) { return uint16_t(std::clamp<int>(v, 0, 255)); };
  return sat8(int16_t(a)) | (sat8(int16_t(a >> 16)) << 8);
}

// Integer dot products (VOP2 "c" forms accumulate into the destination,
// which LLVM passes as the tied third source).
template <unsigned Bits, bool Signed>
int64_t dotElements(uint32_t a, uint32_t b) {
  int64_t sum = 0;
  for (unsigned i = 0; i < 32; i += Bits) {
    uint32_t x = (a >> i) & ((1u << Bits) - 1),
             y = (b >> i) & ((1u << Bits) - 1);
    sum += Signed ? signExtend(x, Bits) * signExtend(y, Bits)
                  : int64_t(x) * int64_t(y);
  }
  return sum;
}
template <unsigned Bits, bool Signed>
uint32_t dot(Lane &l, uint32_t a, uint32_t b, uint32_t c) {
  int64_t r = dotElements<Bits, Signed>(a, b) +
              (Signed ? int64_t(int32_t(c)) : int64_t(c));
  if (!l.clamp)
    return uint32_t(r);
  return Signed ? uint32_t(saturate<int32_t>(r))
                : uint32_t(std::min<int64_t>(r, UINT32_MAX));
}

} // namespace

void crest::emu::valu::registerValuIntegerHandlers(HandlerRegistry &r) {
  // VOP1/VOP2 (e32, e64, SDWA, DPP encodings).
  r.addVALU("V_MOV_B32", lanewise<mov>);
  r.addVALU("V_MOV_B64", lanewise<mov64>);
  r.addVALU("V_NOT_B32", lanewise<notB32>);
  r.addVALU("V_BFREV_B32", lanewise<bfrev>);
  r.addVALU("V_FFBH_U32", lanewise<ffbhU32>);
  r.addVALU("V_FFBL_B32", lanewise<ffblB32>);
  r.addVALU("V_FFBH_I32", lanewise<ffbhI32>);
  r.addVALU("V_SAT_PK_U8_I16", lanewise<satPkU8I16>);
  r.addVALU("V_PRNG_B32", lanewise<prng>);
  r.addVALU("V_CNDMASK_B32", lanewise<cndmask>);
  r.addVALU("V_ADD_U32", lanewise<addSat<uint32_t>, op::IntClamp>);
  r.addVALU("V_SUB_U32", lanewise<subSat<uint32_t>, op::IntClamp>);
  r.addVALU("V_SUBREV_U32", lanewise<subrevSat<uint32_t>, op::IntClamp>);
  r.addVALU("V_ADD_CO_U32", lanewise<addCo, op::IntClamp>);
  r.addVALU("V_SUB_CO_U32", lanewise<subCo, op::IntClamp>);
  r.addVALU("V_SUBREV_CO_U32", lanewise<subrevCo, op::IntClamp>);
  r.addVALU("V_ADDC_CO_U32", lanewise<addc, op::IntClamp>);
  r.addVALU("V_SUBB_CO_U32", lanewise<subb, op::IntClamp>);
  r.addVALU("V_SUBBREV_CO_U32", lanewise<subbrev, op::IntClamp>);
  r.addVALU("V_MUL_I32_I24", lanewise<mulI24>);
  r.addVALU("V_MUL_HI_I32_I24", lanewise<mulHiI24>);
  r.addVALU("V_MUL_U32_U24", lanewise<mulU24>);
  r.addVALU("V_MUL_HI_U32_U24", lanewise<mulHiU24>);
  r.addVALU("V_MIN_I32", lanewise<minOf<int32_t>>);
  r.addVALU("V_MAX_I32", lanewise<maxOf<int32_t>>);
  r.addVALU("V_MIN_U32", lanewise<minOf<uint32_t>>);
  r.addVALU("V_MAX_U32", lanewise<maxOf<uint32_t>>);
  r.addVALU("V_LSHRREV_B32", lanewise<lshrrev>);
  r.addVALU("V_ASHRREV_I32", lanewise<ashrrev>);
  r.addVALU("V_LSHLREV_B32", lanewise<lshlrev>);
  r.addVALU("V_AND_B32", lanewise<andB32>);
  r.addVALU("V_OR_B32", lanewise<orB32>);
  r.addVALU("V_XOR_B32", lanewise<xorB32>);
  r.addVALU("V_XNOR_B32", lanewise<xnorB32>);
  r.addVALU("V_ADD_U16", lanewise<addSat<uint16_t>, op::IntClamp>);
  r.addVALU("V_SUB_U16", lanewise<subSat<uint16_t>, op::IntClamp>);
  r.addVALU("V_SUBREV_U16", lanewise<subrevSat<uint16_t>, op::IntClamp>);
  r.addVALU("V_MUL_LO_U16", lanewise<mulLoU16>);
  r.addVALU("V_LSHLREV_B16", lanewise<lshlrev16>);
  r.addVALU("V_LSHRREV_B16", lanewise<lshrrev16>);
  r.addVALU("V_ASHRREV_I16", lanewise<ashrrev16>);
  r.addVALU("V_MAX_U16", lanewise<maxOf<uint16_t>>);
  r.addVALU("V_MAX_I16", lanewise<maxOf<int16_t>>);
  r.addVALU("V_MIN_U16", lanewise<minOf<uint16_t>>);
  r.addVALU("V_MIN_I16", lanewise<minOf<int16_t>>);
  r.addVALU("V_DOT2C_I32_I16", lanewise<dot<16, true>, op::IntClamp>);
  r.addVALU("V_DOT4C_I32_I8", lanewise<dot<8, true>, op::IntClamp>);
  r.addVALU("V_DOT8C_I32_I4", lanewise<dot<4, true>, op::IntClamp>);

  // VOP3 forms (some carry an _e64 suffix: they are VOP2 on other
  // generations).
  r.addVALU("V_LSHLREV_B64", lanewise<lshlrev64>);
  r.addVALU("V_LSHRREV_B64", lanewise<lshrrev64>);
  r.addVALU("V_ASHRREV_I64", lanewise<ashrrev64>);
  r.addVALU("V_LSHL_ADD_U64", lanewise<lshlAdd64>);
  r.addVALU("V_BFM_B32", lanewise<bfm>);
  r.addVALU("V_BFE_U32", lanewise<bfeU32>);
  r.addVALU("V_BFE_I32", lanewise<bfeI32>);
  r.addVALU("V_BFI_B32", lanewise<bfi>);
  r.addVALU("V_ALIGNBIT_B32", lanewise<alignbit>);
  r.addVALU("V_ALIGNBYTE_B32", lanewise<alignbyte>);
  // The disassembler's op_sel-capable variants (op_sel itself is rejected
  // on these 32-bit operands by the lane loop).
  r.addVALU("V_ALIGNBIT_B32_opsel", lanewise<alignbit>);
  r.addVALU("V_ALIGNBYTE_B32_opsel", lanewise<alignbyte>);
  r.addVALU("V_PERM_B32", lanewise<perm>);
  r.addVALU("V_BCNT_U32_B32", lanewise<bcnt>);
  r.addVALU("V_MBCNT_LO_U32_B32", lanewise<mbcntLo>);
  r.addVALU("V_MBCNT_HI_U32_B32", lanewise<mbcntHi>);
  r.addVALU("V_ADD3_U32", lanewise<add3>);
  r.addVALU("V_XAD_U32", lanewise<xad>);
  r.addVALU("V_LSHL_ADD_U32", lanewise<lshlAdd>);
  r.addVALU("V_ADD_LSHL_U32", lanewise<addLshl>);
  r.addVALU("V_LSHL_OR_B32", lanewise<lshlOr>);
  r.addVALU("V_AND_OR_B32", lanewise<andOr>);
  r.addVALU("V_OR3_B32", lanewise<or3>);
  r.addVALU("V_MUL_LO_U32", lanewise<mulLo>);
  r.addVALU("V_MUL_LO_I32", lanewise<mulLo>);
  r.addVALU("V_MUL_HI_U32", lanewise<mulHiU32>);
  r.addVALU("V_MUL_HI_I32", lanewise<mulHiI32>);
  r.addVALU("V_MAD_I32_I24", lanewise<madI24, op::IntClamp>);
  r.addVALU("V_MAD_U32_U24", lanewise<madU24, op::IntClamp>);
  r.addVALU("V_MAD_U32_U16", lanewise<madU32U16, op::IntClamp>);
  r.addVALU("V_MAD_I32_I16", lanewise<madI32I16, op::IntClamp>);
  r.addVALU("V_MAD_U16",
            lanewise<mad16<uint16_t>, op::IntClamp | op::OpSelDst>);
  r.addVALU("V_MAD_I16", lanewise<mad16<int16_t>, op::IntClamp | op::OpSelDst>);
  // gfx9's VI encodings of the same (VOP3 0x1eb, 0x1ec): no op_sel, the
  // result's high half is zeroed.
  r.addVALU("V_MAD_LEGACY_U16", lanewise<mad16<uint16_t>, op::IntClamp>);
  r.addVALU("V_MAD_LEGACY_I16", lanewise<mad16<int16_t>, op::IntClamp>);
  r.addVALU("V_MAD_U64_U32", lanewise<madU64U32>);
  r.addVALU("V_MAD_I64_I32", lanewise<madI64I32>);
  r.addVALU("V_ADD_I32", lanewise<addSat<int32_t>, op::IntClamp>);
  r.addVALU("V_SUB_I32", lanewise<subSat<int32_t>, op::IntClamp>);
  r.addVALU("V_ADD_I16",
            lanewise<addSat<int16_t>, op::IntClamp | op::OpSelDst>);
  r.addVALU("V_SUB_I16",
            lanewise<subSat<int16_t>, op::IntClamp | op::OpSelDst>);
  r.addVALU("V_MIN3_I32", lanewise<min3<int32_t>>);
  r.addVALU("V_MIN3_U32", lanewise<min3<uint32_t>>);
  r.addVALU("V_MAX3_I32", lanewise<max3<int32_t>>);
  r.addVALU("V_MAX3_U32", lanewise<max3<uint32_t>>);
  r.addVALU("V_MED3_I32", lanewise<med3<int32_t>>);
  r.addVALU("V_MED3_U32", lanewise<med3<uint32_t>>);
  r.addVALU("V_MIN3_I16", lanewise<min3<int16_t>, op::OpSelDst>);
  r.addVALU("V_MIN3_U16", lanewise<min3<uint16_t>, op::OpSelDst>);
  r.addVALU("V_MAX3_I16", lanewise<max3<int16_t>, op::OpSelDst>);
  r.addVALU("V_MAX3_U16", lanewise<max3<uint16_t>, op::OpSelDst>);
  r.addVALU("V_MED3_I16", lanewise<med3<int16_t>, op::OpSelDst>);
  r.addVALU("V_MED3_U16", lanewise<med3<uint16_t>, op::OpSelDst>);
  r.addVALU("V_SAD_U8", lanewise<sadU8>);
  r.addVALU("V_SAD_HI_U8", lanewise<sadHiU8>);
  r.addVALU("V_SAD_U16", lanewise<sadU16>);
  r.addVALU("V_SAD_U32", lanewise<sadU32>);
  r.addVALU("V_MSAD_U8", lanewise<msadU8>);
  r.addVALU("V_LERP_U8", lanewise<lerpU8>);
  r.addVALU("V_CVT_PK_U16_U32", lanewise<cvtPkU16U32>);
  r.addVALU("V_CVT_PK_I16_I32", lanewise<cvtPkI16I32>);
  r.addVALU("V_PACK_B32_F16", lanewise<packB32F16>);
}

void crest::emu::registerVALUHandlers(HandlerRegistry &registry) {
  valu::registerValuIntegerHandlers(registry);
  valu::registerValuFloatHandlers(registry);
  valu::registerValuConvertHandlers(registry);
  valu::registerValuFp8Handlers(registry);
  valu::registerValuCompareHandlers(registry);
  valu::registerValuPackedHandlers(registry);
  valu::registerValuLaneHandlers(registry);
}
