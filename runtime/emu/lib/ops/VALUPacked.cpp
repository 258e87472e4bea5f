//===- VALUPacked.cpp - Vector ALU: packed math (VOP3P) -------------------===//
//
// VOP3P operands carry, per source, op_sel (bit 2 of its modifiers: which
// half feeds the low result element), op_sel_hi (bit 3: which half feeds the
// high element), neg_lo (bit 0) and neg_hi (bit 1); the instruction has a
// clamp bit. For the 16-bit packed operations the halves are the two 16-bit
// words of a 32-bit operand; for gfx90a's v_pk_*_f32 they are the two dwords
// of a 64-bit register pair. An inline constant supplies its 32-bit value
// (f16 constants in the low half, integer constants sign-extended: LLVM's
// getInlineEncodingV216 documents this hardware behaviour), so op_sel_hi=1
// on a constant reads the zero (or sign) high half; for a 64-bit packed f32
// operand, selecting the high dword of a constant is not modelled and fails.
//
// Dot products (v_dot2/dot4/dot8) accumulate into S2 in the pseudocode's
// order; the f32 one rounds after each addition. The mix operations
// (v_fma_mix_f32/mixlo/mixhi) read each source per {op_sel_hi, op_sel}:
// 0/1 the f32 value, 2 the low f16, 3 the high f16, with neg_lo negating and
// neg_hi taking the absolute value (LLVM's SISrcMods use for mix); the f32
// fma result is converted to f16 for mixlo (bits [15:0]) and mixhi (bits
// [31:16]), the other half of the destination kept.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include <algorithm>
#include <limits>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

/// Clamp bit of a VOP3P instruction (its first control).
bool packedClamp(const Inst &inst) {
  return inst.numControls >= 1 && inst.controls[0];
}

/// Reads a source of a VOP3P instruction: 32 bits, or 64 for packed f32.
uint64_t readPackedSource(const Wave &wave, const Inst &inst, unsigned i,
                          unsigned lane, bool wide) {
  return wide ? wave.readLane64(inst.src(i), lane)
              : wave.readLane32(inst.src(i), lane);
}

/// Fails the wave for operand forms the packed loop does not model.
bool checkPackedForm(Wave &wave, const Inst &inst, bool wide, bool isFloat,
                     unsigned numArgs) {
  if (inst.encoding != Encoding::VOP3P) {
    wave.fail(inst, "not a VOP3P encoding");
    return false;
  }
  if (inst.numSrcs < numArgs) {
    wave.fail(inst, "operand layout does not match the operation");
    return false;
  }
  for (unsigned i = 0; i < numArgs; ++i) {
    uint8_t m = inst.mods(i);
    if (!isFloat && (m & (srcmods::Neg | srcmods::NegHi))) {
      wave.fail(inst, "neg_lo/neg_hi on an integer packed operation");
      return false;
    }
    if (wide && inst.src(i).isImm() &&
        (m & (srcmods::OpSel0 | srcmods::OpSel1))) {
      wave.fail(inst, "op_sel selecting the high dword of an inline constant "
                      "of a packed f32 operand is not modelled");
      return false;
    }
  }
  return true;
}

template <class T>
T packedElement(uint64_t raw, uint8_t m, bool high, uint32_t modeReg) {
  constexpr unsigned bits = 8 * byteSize<T>();
  bool sel = high ? (m & srcmods::OpSel1) : (m & srcmods::OpSel0);
  uint64_t v = (raw >> (sel ? bits : 0)) & ((uint64_t(1) << bits) - 1);
  if constexpr (IsFloat<T>) {
    bool neg = high ? (m & srcmods::NegHi) : (m & srcmods::Neg);
    T x = fromRaw<T>(v);
    return flushInput(neg ? negate(x) : x, modeReg, 0);
  } else {
    return fromRaw<T>(v);
  }
}

template <class R, class... A> struct PackedSignature {
  static constexpr unsigned NumArgs = sizeof...(A);
};
template <class R, class... A>
PackedSignature<R, A...> packedSignatureOf(R (*)(Lane &, A...));

template <unsigned Flags, class T, class... A, size_t... I>
void runPacked(Wave &wave, const Inst &inst, T (*fn)(Lane &, A...),
               std::index_sequence<I...>) {
  constexpr bool wide = byteSize<T>() == 4;
  constexpr unsigned bits = 8 * byteSize<T>();
  if (!checkNoGprIndexMode(wave, inst) ||
      !checkPackedForm(wave, inst, wide, IsFloat<T>, sizeof...(A)))
    return;
  Controls c;
  c.clamp = packedClamp(inst);
  if (c.clamp && !IsFloat<T> && !(Flags & op::IntClamp)) {
    wave.fail(inst, "clamp is not implemented for this instruction");
    return;
  }
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    Lane l{wave, inst, lane, wave.mode, c.clamp};
    uint64_t raw[sizeof...(A)] = {
        readPackedSource(wave, inst, I, lane, wide)...};
    uint64_t result = 0;
    for (bool high : {false, true}) {
      T r = fn(l, packedElement<A>(raw[I], inst.mods(I), high, l.modeReg)...);
      if constexpr (IsFloat<T>)
        r = finishFloat(r, c, l.modeReg, 0);
      result |= toRaw(r) << (high ? bits : 0);
    }
    if (wide)
      wave.writeLane64(inst.def(0), lane, result);
    else
      wave.writeLane32(inst.def(0), lane, uint32_t(result));
  }
}

/// The handler applying `Fn` to the low and the high elements.
template <auto Fn, unsigned Flags = 0>
void packed(Wave &wave, const Inst &inst) {
  using Sig = decltype(packedSignatureOf(Fn));
  runPacked<Flags>(wave, inst, Fn, std::make_index_sequence<Sig::NumArgs>());
}

// Elementwise operations.
template <class T> T pkAdd(Lane &l, T a, T b) {
  return add(a, b, l.round<T>());
}
template <class T> T pkMul(Lane &l, T a, T b) {
  return mul(a, b, l.round<T>());
}
template <class T> T pkFma(Lane &l, T a, T b, T c) {
  return fma(a, b, c, l.round<T>());
}
Half pkMin(Lane &l, Half a, Half b) { return minimum(a, b, l.ieee()); }
Half pkMax(Lane &l, Half a, Half b) { return maximum(a, b, l.ieee()); }

template <class T> T saturateTo(Lane &l, int64_t v) {
  if (!l.clamp)
    return T(v);
  return T(std::clamp<int64_t>(v, std::numeric_limits<T>::min(),
                               std::numeric_limits<T>::max()));
}
template <class T> T pkAddInt(Lane &l, T a, T b) {
  return saturateTo<T>(l, int64_t(a) + int64_t(b));
}
template <class T> T pkSubInt(Lane &l, T a, T b) {
  return saturateTo<T>(l, int64_t(a) - int64_t(b));
}
template <class T> T pkMadInt(Lane &l, T a, T b, T c) {
  return saturateTo<T>(l, int64_t(a) * int64_t(b) + int64_t(c));
}
// uint32_t: uint16_t operands promote to int, whose product can overflow.
uint16_t pkMulLo(Lane &, uint16_t a, uint16_t b) {
  return uint16_t(uint32_t(a) * b);
}
template <class T> T pkMinInt(Lane &, T a, T b) { return a < b ? a : b; }
template <class T> T pkMaxInt(Lane &, T a, T b) { return a >= b ? a : b; }
uint16_t pkLshlrev(Lane &, uint16_t s, uint16_t v) {
  return uint16_t(v << (s & 15));
}
uint16_t pkLshrrev(Lane &, uint16_t s, uint16_t v) {
  return uint16_t(v >> (s & 15));
}
int16_t pkAshrrev(Lane &, int16_t s, int16_t v) {
  return int16_t(v >> (s & 15));
}

/// v_pk_mov_b32: D.lo = S0's dword op_sel[0], D.hi = S1's dword op_sel[1].
void pkMovB32(Wave &wave, const Inst &inst) {
  if (!checkNoGprIndexMode(wave, inst))
    return;
  if (inst.numSrcs != 2) {
    wave.fail(inst, "operand layout does not match v_pk_mov_b32");
    return;
  }
  bool sel[2];
  for (unsigned i = 0; i < 2; ++i) {
    sel[i] = inst.mods(i) & srcmods::OpSel0;
    if (sel[i] && inst.src(i).isImm()) {
      wave.fail(inst, "op_sel selecting the high dword of an inline constant "
                      "is not modelled");
      return;
    }
  }
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    uint64_t a = wave.readLane64(inst.src(0), lane);
    uint64_t b = wave.readLane64(inst.src(1), lane);
    uint64_t lo = sel[0] ? a >> 32 : a & 0xffffffff;
    uint64_t hi = sel[1] ? b >> 32 : b & 0xffffffff;
    wave.writeLane64(inst.def(0), lane, lo | (hi << 32));
  }
}

//===----------------------------------------------------------------------===//
// Dot products
//===----------------------------------------------------------------------===//

/// The lane loop of the VOP3P dot and mix operations, which interpret their
/// operands' modifiers themselves: Fn(lane, raw sources, modifiers, clamp)
/// returns the 32-bit result (given the destination's old value).
using RawOp = uint32_t (*)(Lane &, const uint32_t *raw, const uint8_t *mods,
                           uint32_t old);
template <RawOp Fn> void rawVop3p(Wave &wave, const Inst &inst) {
  // (The decoder classifies the VOP3P dot and mix opcodes, which are not
  // named V_PK_*, as VOP3; their operand view is the same.)
  if ((inst.encoding != Encoding::VOP3P && inst.encoding != Encoding::VOP3) ||
      inst.numSrcs != 3) {
    wave.fail(inst, "operand layout does not match the operation");
    return;
  }
  if (!checkNoGprIndexMode(wave, inst))
    return;
  uint8_t mods[3] = {inst.mods(0), inst.mods(1), inst.mods(2)};
  uint64_t exec = wave.exec();
  for (unsigned lane = 0; lane < wave.lanes; ++lane) {
    if (!((exec >> lane) & 1))
      continue;
    Lane l{wave, inst, lane, wave.mode, packedClamp(inst)};
    uint32_t raw[3];
    for (unsigned i = 0; i < 3; ++i)
      raw[i] = wave.readLane32(inst.src(i), lane);
    uint32_t old = wave.readLane32(inst.def(0), lane);
    wave.writeLane32(inst.def(0), lane, Fn(l, raw, mods, old));
  }
}

/// The dot products use their elements in place: for the 16-bit ones
/// op_sel must be 0 and op_sel_hi 1 for S0 and S1; the 8-bit and 4-bit ones
/// have no op_sel at all (checked per instruction).
bool dotSelectsDefault(Wave &wave, const Inst &inst, bool halves) {
  uint8_t expected = halves ? srcmods::OpSel1 : 0;
  for (unsigned i = 0; i < 2; ++i)
    if ((inst.mods(i) & (srcmods::OpSel0 | srcmods::OpSel1)) != expected) {
      wave.fail(inst, "op_sel/op_sel_hi other than the default on a dot "
                      "product is not modelled");
      return false;
    }
  return true;
}

template <unsigned Bits, bool Signed>
uint32_t dotInt(Lane &l, const uint32_t *raw, const uint8_t *, uint32_t) {
  int64_t sum = Signed ? int64_t(int32_t(raw[2])) : int64_t(raw[2]);
  for (unsigned i = 0; i < 32; i += Bits) {
    uint32_t mask = (1u << Bits) - 1;
    uint32_t x = (raw[0] >> i) & mask, y = (raw[1] >> i) & mask;
    sum += Signed ? signExtend(x, Bits) * signExtend(y, Bits)
                  : int64_t(x) * int64_t(y);
  }
  if (!l.clamp)
    return uint32_t(sum);
  if (Signed)
    return uint32_t(int32_t(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)));
  return uint32_t(std::min<int64_t>(sum, UINT32_MAX));
}
template <unsigned Bits, bool Signed>
void dotIntHandler(Wave &wave, const Inst &inst) {
  for (unsigned i = 0; i < 3; ++i)
    if (inst.mods(i) & (srcmods::Neg | srcmods::NegHi)) {
      wave.fail(inst, "neg_lo/neg_hi on an integer dot product");
      return;
    }
  if (dotSelectsDefault(wave, inst, Bits == 16))
    rawVop3p<dotInt<Bits, Signed>>(wave, inst);
}

/// D = S2 + S0.lo * S1.lo + S0.hi * S1.hi in f32 (T: Half or BFloat).
template <class T>
uint32_t dot2F32(Lane &l, const uint32_t *raw, const uint8_t *mods, uint32_t) {
  Round r = l.round<float>();
  float acc = fromRaw<float>(raw[2]);
  if (mods[2] & srcmods::Neg)
    acc = negate(acc);
  acc = flushInput(acc, l.modeReg, 0);
  for (bool high : {false, true}) {
    float p = 1.0f;
    for (unsigned i = 0; i < 2; ++i) {
      T x = fromRaw<T>(raw[i] >> (high ? 16 : 0));
      bool neg = high ? (mods[i] & srcmods::NegHi) : (mods[i] & srcmods::Neg);
      x = flushInput(neg ? negate(x) : x, l.modeReg, 0);
      p = mul(p, float(toDouble(x)), r); // exact
    }
    acc = add(acc, p, r);
  }
  Controls c;
  c.clamp = l.clamp;
  return toBits(finishFloat(acc, c, l.modeReg, 0));
}
template <class T> void dot2F32Handler(Wave &wave, const Inst &inst) {
  if (inst.mods(2) & srcmods::NegHi) {
    wave.fail(inst, "neg_hi on the f32 accumulator is not modelled");
    return;
  }
  if (dotSelectsDefault(wave, inst, true))
    rawVop3p<dot2F32<T>>(wave, inst);
}

//===----------------------------------------------------------------------===//
// Mixed-precision fma
//===----------------------------------------------------------------------===//

/// A mix operand: f32, or the low/high f16 converted exactly.
float mixOperand(const Lane &l, uint32_t raw, uint8_t m) {
  float v;
  if (!(m & srcmods::OpSel1)) {
    v = flushInput(fromRaw<float>(raw), l.modeReg, 0);
  } else {
    Half h{uint16_t((m & srcmods::OpSel0) ? raw >> 16 : raw)};
    v = float(toDouble(flushInput(h, l.modeReg, 0)));
  }
  if (m & srcmods::NegHi) // abs for the mix operations
    v = absolute(v);
  if (m & srcmods::Neg)
    v = negate(v);
  return v;
}
float mixFma(Lane &l, const uint32_t *raw, const uint8_t *mods) {
  return fma(mixOperand(l, raw[0], mods[0]), mixOperand(l, raw[1], mods[1]),
             mixOperand(l, raw[2], mods[2]), l.round<float>());
}
uint32_t fmaMixF32(Lane &l, const uint32_t *raw, const uint8_t *mods,
                   uint32_t) {
  Controls c;
  c.clamp = l.clamp;
  return toBits(finishFloat(mixFma(l, raw, mods), c, l.modeReg, 0));
}
template <bool High>
uint32_t fmaMixF16(Lane &l, const uint32_t *raw, const uint8_t *mods,
                   uint32_t old) {
  Controls c;
  c.clamp = l.clamp;
  Half h = fromDouble<Half>(mixFma(l, raw, mods), l.round<Half>());
  h = finishFloat(h, c, l.modeReg, 0);
  return High ? (old & 0xffff) | (uint32_t(h.bits) << 16)
              : (old & 0xffff0000u) | h.bits;
}

} // namespace

void crest::emu::valu::registerValuPackedHandlers(HandlerRegistry &r) {
  r.add("V_PK_ADD_F16", packed<pkAdd<Half>>);
  r.add("V_PK_MUL_F16", packed<pkMul<Half>>);
  r.add("V_PK_FMA_F16", packed<pkFma<Half>>);
  r.add("V_PK_MIN_F16", packed<pkMin>);
  r.add("V_PK_MAX_F16", packed<pkMax>);
  r.add("V_PK_ADD_F32", packed<pkAdd<float>>);
  r.add("V_PK_MUL_F32", packed<pkMul<float>>);
  r.add("V_PK_FMA_F32", packed<pkFma<float>>);
  r.add("V_PK_ADD_U16", packed<pkAddInt<uint16_t>, op::IntClamp>);
  r.add("V_PK_ADD_I16", packed<pkAddInt<int16_t>, op::IntClamp>);
  r.add("V_PK_SUB_U16", packed<pkSubInt<uint16_t>, op::IntClamp>);
  r.add("V_PK_SUB_I16", packed<pkSubInt<int16_t>, op::IntClamp>);
  r.add("V_PK_MUL_LO_U16", packed<pkMulLo>);
  r.add("V_PK_MAD_U16", packed<pkMadInt<uint16_t>, op::IntClamp>);
  r.add("V_PK_MAD_I16", packed<pkMadInt<int16_t>, op::IntClamp>);
  r.add("V_PK_MIN_U16", packed<pkMinInt<uint16_t>>);
  r.add("V_PK_MIN_I16", packed<pkMinInt<int16_t>>);
  r.add("V_PK_MAX_U16", packed<pkMaxInt<uint16_t>>);
  r.add("V_PK_MAX_I16", packed<pkMaxInt<int16_t>>);
  r.add("V_PK_LSHLREV_B16", packed<pkLshlrev>);
  r.add("V_PK_LSHRREV_B16", packed<pkLshrrev>);
  r.add("V_PK_ASHRREV_I16", packed<pkAshrrev>);
  r.add("V_PK_MOV_B32", pkMovB32);
  r.add("V_DOT2_F32_F16", dot2F32Handler<Half>);
  r.add("V_DOT2_F32_BF16", dot2F32Handler<BFloat>);
  r.add("V_DOT2_I32_I16", dotIntHandler<16, true>);
  r.add("V_DOT2_U32_U16", dotIntHandler<16, false>);
  r.add("V_DOT4_I32_I8", dotIntHandler<8, true>);
  r.add("V_DOT4_U32_U8", dotIntHandler<8, false>);
  r.add("V_DOT8_I32_I4", dotIntHandler<4, true>);
  r.add("V_DOT8_U32_U4", dotIntHandler<4, false>);
  r.add("V_FMA_MIX_F32", rawVop3p<fmaMixF32>);
  r.add("V_FMA_MIXLO_F16", rawVop3p<fmaMixF16<false>>);
  r.add("V_FMA_MIXHI_F16", rawVop3p<fmaMixF16<true>>);
}
