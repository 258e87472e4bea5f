//===- SALU.cpp - Scalar ALU instructions ---------------------------------===//
//
// SOP1, SOP2, SOPC and SOPK data operations of gfx9 (gfx90a, gfx942): moves,
// integer arithmetic, logic, shifts, bit-field and bit-count operations,
// compares and EXEC-mask manipulation. Program-counter and hardware-register
// instructions live in Control.cpp.
//
// Semantics follow the CDNA3 ISA pseudocode. Every operation is a small
// function of its source values; the ones that read or write SCC take it by
// reference. A few templates (sop1, sop2, sopc, ...) read the operands at the
// operation's width and write the result, so an operation is written once and
// instantiated for 32 and 64 bits.
//
// Source types select how an operand is read: uint32_t/int32_t read 32 bits,
// uint64_t reads 64 bits (a 32-bit literal is zero-extended, as LLVM decodes
// it) and int64_t reads a *signed* 64-bit operand, whose 32-bit literal the
// hardware sign-extends (S_ASHR_I64, S_BFE_I64, S_FLBIT_I32_I64).
//
//===----------------------------------------------------------------------===//

#include "../Machine.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <type_traits>

using namespace crest::emu;

namespace {

//===----------------------------------------------------------------------===//
// Operand access
//===----------------------------------------------------------------------===//

template <typename T> T readSrc(const Wave &wave, const Operand &op) {
  if constexpr (sizeof(T) == 4) {
    return static_cast<T>(wave.readScalar32(op));
  } else {
    uint64_t value = wave.readScalar64(op);
    if constexpr (std::is_signed_v<T>) {
      // Literals are 32 bits; for a signed 64-bit operand the hardware
      // sign-extends them. Inline constants already arrive sign-extended.
      if (op.isImm() && value >= 0x80000000ull && value <= 0xffffffffull)
        value = static_cast<uint64_t>(signExtend(value, 32));
    }
    return static_cast<T>(value);
  }
}

template <typename T> void writeDst(Wave &wave, const Operand &op, T value) {
  if constexpr (sizeof(T) == 4)
    wave.writeScalar32(op, static_cast<uint32_t>(value));
  else
    wave.writeScalar64(op, static_cast<uint64_t>(value));
}

void countSalu(Wave &wave) { ++wave.dispatch.result.saluInstructions; }

template <typename T> constexpr unsigned bitsOf = 8 * sizeof(T);
/// The shift-count mask of an operation on T (S1[4:0] or S1[5:0]).
template <typename T> constexpr uint32_t shiftMask = bitsOf<T> - 1;

//===----------------------------------------------------------------------===//
// Handler templates
//===----------------------------------------------------------------------===//

/// SOP2: D = Fn(S0, S1, SCC); Fn may read and update SCC.
template <typename D, typename A, typename B, D (*Fn)(A, B, bool &)>
void sop2(Wave &wave, const Inst &inst) {
  countSalu(wave);
  bool scc = wave.scc;
  D result =
      Fn(readSrc<A>(wave, inst.ops[1]), readSrc<B>(wave, inst.ops[2]), scc);
  writeDst(wave, inst.ops[0], result);
  wave.scc = scc;
}

/// SOP1: D = Fn(S0, SCC).
template <typename D, typename A, D (*Fn)(A, bool &)>
void sop1(Wave &wave, const Inst &inst) {
  countSalu(wave);
  bool scc = wave.scc;
  D result = Fn(readSrc<A>(wave, inst.ops[1]), scc);
  writeDst(wave, inst.ops[0], result);
  wave.scc = scc;
}

/// SOP1 that modifies D in place: D = Fn(D, S0).
template <typename D, D (*Fn)(D, uint32_t)>
void sop1Update(Wave &wave, const Inst &inst) {
  countSalu(wave);
  D old = readSrc<D>(wave, inst.ops[0]);
  writeDst(wave, inst.ops[0], Fn(old, readSrc<uint32_t>(wave, inst.ops[1])));
}

/// SOPC: SCC = Fn(S0, S1).
template <typename A, typename B, bool (*Fn)(A, B)>
void sopc(Wave &wave, const Inst &inst) {
  countSalu(wave);
  wave.scc = Fn(readSrc<A>(wave, inst.ops[0]), readSrc<B>(wave, inst.ops[1]));
}

/// S_MOV_B32/B64, and S_CMOV_B32/B64 (only when SCC is set).
template <typename T, bool Conditional>
void move(Wave &wave, const Inst &inst) {
  countSalu(wave);
  if (Conditional && !wave.scc)
    return;
  writeDst(wave, inst.ops[0], readSrc<T>(wave, inst.ops[1]));
}

//===----------------------------------------------------------------------===//
// Logic (SCC = D != 0), also used for the EXEC-mask operations
//===----------------------------------------------------------------------===//

struct And {
  template <typename T> static T apply(T a, T b) { return a & b; }
};
struct Or {
  template <typename T> static T apply(T a, T b) { return a | b; }
};
struct Xor {
  template <typename T> static T apply(T a, T b) { return a ^ b; }
};
struct Andn1 {
  template <typename T> static T apply(T a, T b) { return ~a & b; }
};
struct Andn2 {
  template <typename T> static T apply(T a, T b) { return a & ~b; }
};
struct Orn1 {
  template <typename T> static T apply(T a, T b) { return ~a | b; }
};
struct Orn2 {
  template <typename T> static T apply(T a, T b) { return a | ~b; }
};
struct Nand {
  template <typename T> static T apply(T a, T b) { return ~(a & b); }
};
struct Nor {
  template <typename T> static T apply(T a, T b) { return ~(a | b); }
};
struct Xnor {
  template <typename T> static T apply(T a, T b) { return ~(a ^ b); }
};

template <typename Op, typename T> T logic(T a, T b, bool &scc) {
  T d = Op::template apply<T>(a, b);
  scc = d != 0;
  return d;
}

template <typename Op>
void addLogic(HandlerRegistry &registry, llvm::StringRef base) {
  registry.add((base + "_B32").str(),
               sop2<uint32_t, uint32_t, uint32_t, logic<Op, uint32_t>>);
  registry.add((base + "_B64").str(),
               sop2<uint64_t, uint64_t, uint64_t, logic<Op, uint64_t>>);
}

/// S_<op>_SAVEEXEC_B64: saved = EXEC; EXEC = Op(S0, EXEC); D = saved;
/// SCC = EXEC != 0 (in the pseudocode's order, so D = EXEC keeps the saved
/// mask).
template <typename Op> void saveExec(Wave &wave, const Inst &inst) {
  countSalu(wave);
  uint64_t s0 = readSrc<uint64_t>(wave, inst.ops[1]);
  uint64_t saved = wave.exec();
  wave.setExec(Op::template apply<uint64_t>(s0, saved));
  writeDst(wave, inst.ops[0], saved);
  wave.scc = wave.exec() != 0;
}

/// S_ANDN{1,2}_WREXEC_B64: EXEC = Op(S0, EXEC); D = EXEC; SCC = EXEC != 0.
template <typename Op> void writeExec(Wave &wave, const Inst &inst) {
  countSalu(wave);
  uint64_t s0 = readSrc<uint64_t>(wave, inst.ops[1]);
  wave.setExec(Op::template apply<uint64_t>(s0, wave.exec()));
  writeDst(wave, inst.ops[0], wave.exec());
  wave.scc = wave.exec() != 0;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Signed overflow of a + b = d (operands of equal sign, result differs).
bool addOverflows(uint32_t a, uint32_t b, uint32_t d) {
  return ((a ^ d) & (b ^ d)) >> 31;
}

uint32_t addU32(uint32_t a, uint32_t b, bool &scc) {
  uint64_t t = uint64_t(a) + b;
  scc = t >> 32;
  return uint32_t(t);
}
uint32_t addcU32(uint32_t a, uint32_t b, bool &scc) {
  uint64_t t = uint64_t(a) + b + scc;
  scc = t >> 32;
  return uint32_t(t);
}
uint32_t subU32(uint32_t a, uint32_t b, bool &scc) {
  scc = b > a;
  return a - b;
}
uint32_t subbU32(uint32_t a, uint32_t b, bool &scc) {
  uint32_t d = a - b - scc;
  scc = uint64_t(b) + scc > a;
  return d;
}
uint32_t addI32(uint32_t a, uint32_t b, bool &scc) {
  uint32_t d = a + b;
  scc = addOverflows(a, b, d);
  return d;
}
uint32_t subI32(uint32_t a, uint32_t b, bool &scc) {
  uint32_t d = a - b;
  // Overflow when the operands' signs differ and the result's sign is not
  // the minuend's.
  scc = ((a ^ b) & (a ^ d)) >> 31;
  return d;
}

template <unsigned Shift>
uint32_t lshlAddU32(uint32_t a, uint32_t b, bool &scc) {
  uint64_t t = (uint64_t(a) << Shift) + b;
  scc = t >= (uint64_t(1) << 32);
  return uint32_t(t);
}

uint32_t mulI32(uint32_t a, uint32_t b, bool &) { return a * b; }
uint32_t mulHiU32(uint32_t a, uint32_t b, bool &) {
  return uint32_t((uint64_t(a) * b) >> 32);
}
uint32_t mulHiI32(int32_t a, int32_t b, bool &) {
  return uint32_t(uint64_t(int64_t(a) * int64_t(b)) >> 32);
}

// S_MIN: SCC = S0 < S1; S_MAX: SCC = S0 >= S1; D = SCC ? S0 : S1. With equal
// operands S_MIN clears SCC and S_MAX sets it.
template <typename T> T minOp(T a, T b, bool &scc) {
  scc = a < b;
  return scc ? a : b;
}
template <typename T> T maxOp(T a, T b, bool &scc) {
  scc = a >= b;
  return scc ? a : b;
}

uint32_t absI32(int32_t a, bool &scc) {
  uint32_t d = a < 0 ? 0u - uint32_t(a) : uint32_t(a);
  scc = d != 0;
  return d;
}
uint32_t absdiffI32(int32_t a, int32_t b, bool &scc) {
  uint32_t d = uint32_t(a) - uint32_t(b);
  if (int32_t(d) < 0)
    d = 0u - d;
  scc = d != 0;
  return d;
}

template <typename T> T cselect(T a, T b, bool &scc) { return scc ? a : b; }

uint32_t packLL(uint32_t a, uint32_t b, bool &) {
  return (b << 16) | (a & 0xffff);
}
uint32_t packLH(uint32_t a, uint32_t b, bool &) {
  return (b & 0xffff0000u) | (a & 0xffff);
}
uint32_t packHH(uint32_t a, uint32_t b, bool &) {
  return (b & 0xffff0000u) | (a >> 16);
}

//===----------------------------------------------------------------------===//
// Shifts and bit fields
//===----------------------------------------------------------------------===//

template <typename T> T lshl(T a, uint32_t b, bool &scc) {
  T d = a << (b & shiftMask<T>);
  scc = d != 0;
  return d;
}
template <typename T> T lshr(T a, uint32_t b, bool &scc) {
  T d = a >> (b & shiftMask<T>);
  scc = d != 0;
  return d;
}
template <typename T> T ashr(T a, uint32_t b, bool &scc) {
  // An arithmetic shift: T is signed (clang shifts in the sign bit).
  T d = a >> (b & shiftMask<T>);
  scc = d != 0;
  return d;
}

/// Mask of the low `width` bits of T (all bits when width >= the size).
template <typename T> std::make_unsigned_t<T> lowMask(uint32_t width) {
  using U = std::make_unsigned_t<T>;
  return width >= bitsOf<T> ? ~U(0) : (U(1) << width) - 1;
}

/// S_BFE_*: offset S1[4:0] (S1[5:0] for 64 bits), width S1[22:16]. Signed
/// forms shift S0 arithmetically (so a field reaching past the top bit reads
/// sign bits) and sign-extend the field from its top bit; a zero-width field
/// is 0, and widths of the operand size or more keep every bit.
template <typename T> T bfe(T a, uint32_t b, bool &scc) {
  using U = std::make_unsigned_t<T>;
  uint32_t offset = b & shiftMask<T>;
  uint32_t width = (b >> 16) & 0x7f;
  U field = static_cast<U>(a >> offset) & lowMask<T>(width);
  T d = static_cast<T>(field);
  if constexpr (std::is_signed_v<T>) {
    if (width == 0)
      d = 0;
    else if (width < bitsOf<T>)
      d = static_cast<T>(signExtend(field, width));
  }
  scc = d != 0;
  return d;
}

/// S_BFM: ((1 << S0) - 1) << S1, counts masked to the operand width.
template <typename T> T bfm(uint32_t a, uint32_t b, bool &) {
  return static_cast<T>(lowMask<T>(a & shiftMask<T>) << (b & shiftMask<T>));
}

//===----------------------------------------------------------------------===//
// SOP1 bit operations
//===----------------------------------------------------------------------===//

template <typename T> T notOp(T a, bool &scc) {
  T d = ~a;
  scc = d != 0;
  return d;
}
template <typename T> T brev(T a, bool &) { return llvm::reverseBits(a); }

template <typename T> uint32_t bcnt0(T a, bool &scc) {
  uint32_t d = bitsOf<T> - llvm::popcount(a);
  scc = d != 0;
  return d;
}
template <typename T> uint32_t bcnt1(T a, bool &scc) {
  uint32_t d = llvm::popcount(a);
  scc = d != 0;
  return d;
}

// Bit searches return -1 when nothing is found.
template <typename T> uint32_t ff0(T a, bool &) {
  return a == std::numeric_limits<T>::max() ? ~0u : llvm::countr_one(a);
}
template <typename T> uint32_t ff1(T a, bool &) {
  return a == 0 ? ~0u : llvm::countr_zero(a);
}
template <typename T> uint32_t flbit(T a, bool &) {
  return a == 0 ? ~0u : llvm::countl_zero(a);
}
/// S_FLBIT_I32{,_I64}: the position of the first bit (from the MSB) that
/// differs from the sign bit; -1 for 0 and -1.
template <typename T> uint32_t flbitSigned(T a, bool &) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(a < 0 ? ~a : a);
  return u == 0 ? ~0u : llvm::countl_zero(u);
}

template <typename Small> uint32_t sext(uint32_t a, bool &) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<Small>(a)));
}

template <typename T> T bitset0(T d, uint32_t s) {
  return d & ~(T(1) << (s & shiftMask<T>));
}
template <typename T> T bitset1(T d, uint32_t s) {
  return d | (T(1) << (s & shiftMask<T>));
}

/// S_WQM: every 4-bit group with a set bit becomes all ones.
template <typename T> T wqm(T a, bool &scc) {
  T d = 0;
  for (unsigned i = 0; i < bitsOf<T>; i += 4)
    if ((a >> i) & 0xf)
      d |= T(0xf) << i;
  scc = d != 0;
  return d;
}

/// S_QUADMASK: bit i of D is set if group i of 4 bits of S0 has a set bit.
template <typename T> T quadmask(T a, bool &scc) {
  T d = 0;
  for (unsigned i = 0; i < bitsOf<T> / 4; ++i)
    if ((a >> (4 * i)) & 0xf)
      d |= T(1) << i;
  scc = d != 0;
  return d;
}

/// S_BITREPLICATE_B64_B32: each bit of S0 twice, in place.
uint64_t bitreplicate(uint32_t a, bool &) {
  uint64_t d = 0;
  for (unsigned i = 0; i < 32; ++i)
    if ((a >> i) & 1)
      d |= uint64_t(3) << (2 * i);
  return d;
}

//===----------------------------------------------------------------------===//
// Compares
//===----------------------------------------------------------------------===//

template <typename T> bool cmpEq(T a, T b) { return a == b; }
template <typename T> bool cmpLg(T a, T b) { return a != b; }
template <typename T> bool cmpGt(T a, T b) { return a > b; }
template <typename T> bool cmpGe(T a, T b) { return a >= b; }
template <typename T> bool cmpLt(T a, T b) { return a < b; }
template <typename T> bool cmpLe(T a, T b) { return a <= b; }

template <typename T> bool bitcmp0(T a, uint32_t b) {
  return !((a >> (b & shiftMask<T>)) & 1);
}
template <typename T> bool bitcmp1(T a, uint32_t b) {
  return (a >> (b & shiftMask<T>)) & 1;
}

//===----------------------------------------------------------------------===//
// SOPK
//===----------------------------------------------------------------------===//

int32_t simm16(const Operand &op) {
  return static_cast<int32_t>(signExtend(op.imm, 16));
}

/// S_MOVK_I32 and S_CMOVK_I32: D = sext(SIMM16).
template <bool Conditional> void movk(Wave &wave, const Inst &inst) {
  countSalu(wave);
  if (Conditional && !wave.scc)
    return;
  wave.writeScalar32(inst.ops[0], static_cast<uint32_t>(simm16(inst.ops[1])));
}

/// S_CMPK_*_I32 compare with sext(SIMM16), S_CMPK_*_U32 with zext(SIMM16).
template <typename T, bool (*Fn)(T, T)>
void cmpk(Wave &wave, const Inst &inst) {
  countSalu(wave);
  T imm = std::is_signed_v<T> ? static_cast<T>(simm16(inst.ops[1]))
                              : static_cast<T>(inst.ops[1].imm & 0xffff);
  wave.scc = Fn(readSrc<T>(wave, inst.ops[0]), imm);
}

/// S_ADDK_I32 / S_MULK_I32: D = Fn(D, sext(SIMM16)); operands are
/// (sdst, sdst, simm16).
template <uint32_t (*Fn)(uint32_t, uint32_t, bool &)>
void opk(Wave &wave, const Inst &inst) {
  countSalu(wave);
  bool scc = wave.scc;
  uint32_t d = Fn(wave.readScalar32(inst.ops[1]),
                  static_cast<uint32_t>(simm16(inst.ops[2])), scc);
  wave.writeScalar32(inst.ops[0], d);
  wave.scc = scc;
}

/// Registers S_CMP_<cc>_I32/_U32 (SOPC) and S_CMPK_<cc>_I32/_U32 (SOPK).
template <bool (*I32)(int32_t, int32_t), bool (*U32)(uint32_t, uint32_t)>
void addCompare(HandlerRegistry &registry, llvm::StringRef cc) {
  registry.add(("S_CMP_" + cc + "_I32").str(), sopc<int32_t, int32_t, I32>);
  registry.add(("S_CMP_" + cc + "_U32").str(), sopc<uint32_t, uint32_t, U32>);
  registry.add(("S_CMPK_" + cc + "_I32").str(), cmpk<int32_t, I32>);
  registry.add(("S_CMPK_" + cc + "_U32").str(), cmpk<uint32_t, U32>);
}

//===----------------------------------------------------------------------===//
// Relative SGPR addressing
//===----------------------------------------------------------------------===//

/// The SGPR that `op` + M0 names, for s_movrels/s_movreld; fails the wave
/// (and returns -1) if it is not inside the SGPR file.
int movrelIndex(Wave &wave, const Inst &inst, const Operand &op) {
  if (op.kind != OperandKind::Scalar || op.index >= sreg::FlatScratchLo) {
    wave.fail(inst, "relative addressing needs an SGPR operand");
    return -1;
  }
  uint64_t index = uint64_t(op.index) + wave.sgpr[sreg::M0];
  if (index + op.dwords > sreg::FlatScratchLo) {
    wave.fail(inst, llvm::Twine("SGPR index ") + llvm::Twine(index) +
                        " (operand + M0) is outside s0..s101");
    return -1;
  }
  return static_cast<int>(index);
}

/// S_MOVRELS_B{32,64}: D = SGPR[S0 + M0].
template <unsigned Dwords> void movrels(Wave &wave, const Inst &inst) {
  countSalu(wave);
  int index = movrelIndex(wave, inst, inst.ops[1]);
  if (index < 0)
    return;
  uint32_t values[Dwords];
  for (unsigned i = 0; i < Dwords; ++i)
    values[i] = wave.sgpr[index + i];
  wave.writeScalarN(inst.ops[0], values, Dwords);
}

/// S_MOVRELD_B{32,64}: SGPR[D + M0] = S0.
template <unsigned Dwords> void movreld(Wave &wave, const Inst &inst) {
  countSalu(wave);
  uint32_t values[Dwords];
  wave.readScalarN(inst.ops[1], values);
  int index = movrelIndex(wave, inst, inst.ops[0]);
  if (index < 0)
    return;
  for (unsigned i = 0; i < Dwords; ++i)
    wave.sgpr[index + i] = values[i];
}

} // namespace

void crest::emu::registerSALUHandlers(HandlerRegistry &registry) {
  using u32 = uint32_t;
  using i32 = int32_t;
  using u64 = uint64_t;
  using i64 = int64_t;

  // Moves and selects.
  registry.add("S_MOV_B32", move<u32, false>);
  registry.add("S_MOV_B64", move<u64, false>);
  registry.add("S_CMOV_B32", move<u32, true>);
  registry.add("S_CMOV_B64", move<u64, true>);
  registry.add("S_CSELECT_B32", sop2<u32, u32, u32, cselect<u32>>);
  registry.add("S_CSELECT_B64", sop2<u64, u64, u64, cselect<u64>>);
  registry.add("S_MOVK_I32", movk<false>);
  registry.add("S_CMOVK_I32", movk<true>);
  registry.add("S_MOVRELS_B32", movrels<1>);
  registry.add("S_MOVRELS_B64", movrels<2>);
  registry.add("S_MOVRELD_B32", movreld<1>);
  registry.add("S_MOVRELD_B64", movreld<2>);

  // Integer arithmetic.
  registry.add("S_ADD_U32", sop2<u32, u32, u32, addU32>);
  registry.add("S_ADDC_U32", sop2<u32, u32, u32, addcU32>);
  registry.add("S_SUB_U32", sop2<u32, u32, u32, subU32>);
  registry.add("S_SUBB_U32", sop2<u32, u32, u32, subbU32>);
  registry.add("S_ADD_I32", sop2<u32, u32, u32, addI32>);
  registry.add("S_SUB_I32", sop2<u32, u32, u32, subI32>);
  registry.add("S_ADDK_I32", opk<addI32>);
  registry.add("S_MULK_I32", opk<mulI32>);
  registry.add("S_MUL_I32", sop2<u32, u32, u32, mulI32>);
  registry.add("S_MUL_HI_U32", sop2<u32, u32, u32, mulHiU32>);
  registry.add("S_MUL_HI_I32", sop2<u32, i32, i32, mulHiI32>);
  registry.add("S_LSHL1_ADD_U32", sop2<u32, u32, u32, lshlAddU32<1>>);
  registry.add("S_LSHL2_ADD_U32", sop2<u32, u32, u32, lshlAddU32<2>>);
  registry.add("S_LSHL3_ADD_U32", sop2<u32, u32, u32, lshlAddU32<3>>);
  registry.add("S_LSHL4_ADD_U32", sop2<u32, u32, u32, lshlAddU32<4>>);
  registry.add("S_MIN_I32", sop2<i32, i32, i32, minOp<i32>>);
  registry.add("S_MIN_U32", sop2<u32, u32, u32, minOp<u32>>);
  registry.add("S_MAX_I32", sop2<i32, i32, i32, maxOp<i32>>);
  registry.add("S_MAX_U32", sop2<u32, u32, u32, maxOp<u32>>);
  registry.add("S_ABS_I32", sop1<u32, i32, absI32>);
  registry.add("S_ABSDIFF_I32", sop2<u32, i32, i32, absdiffI32>);
  registry.add("S_SEXT_I32_I8", sop1<u32, u32, sext<int8_t>>);
  registry.add("S_SEXT_I32_I16", sop1<u32, u32, sext<int16_t>>);
  registry.add("S_PACK_LL_B32_B16", sop2<u32, u32, u32, packLL>);
  registry.add("S_PACK_LH_B32_B16", sop2<u32, u32, u32, packLH>);
  registry.add("S_PACK_HH_B32_B16", sop2<u32, u32, u32, packHH>);

  // Logic.
  addLogic<And>(registry, "S_AND");
  addLogic<Or>(registry, "S_OR");
  addLogic<Xor>(registry, "S_XOR");
  addLogic<Andn2>(registry, "S_ANDN2");
  addLogic<Orn2>(registry, "S_ORN2");
  addLogic<Nand>(registry, "S_NAND");
  addLogic<Nor>(registry, "S_NOR");
  addLogic<Xnor>(registry, "S_XNOR");
  registry.add("S_NOT_B32", sop1<u32, u32, notOp<u32>>);
  registry.add("S_NOT_B64", sop1<u64, u64, notOp<u64>>);

  // Shifts and bit fields.
  registry.add("S_LSHL_B32", sop2<u32, u32, u32, lshl<u32>>);
  registry.add("S_LSHL_B64", sop2<u64, u64, u32, lshl<u64>>);
  registry.add("S_LSHR_B32", sop2<u32, u32, u32, lshr<u32>>);
  registry.add("S_LSHR_B64", sop2<u64, u64, u32, lshr<u64>>);
  registry.add("S_ASHR_I32", sop2<i32, i32, u32, ashr<i32>>);
  registry.add("S_ASHR_I64", sop2<i64, i64, u32, ashr<i64>>);
  registry.add("S_BFE_U32", sop2<u32, u32, u32, bfe<u32>>);
  registry.add("S_BFE_I32", sop2<i32, i32, u32, bfe<i32>>);
  registry.add("S_BFE_U64", sop2<u64, u64, u32, bfe<u64>>);
  registry.add("S_BFE_I64", sop2<i64, i64, u32, bfe<i64>>);
  registry.add("S_BFM_B32", sop2<u32, u32, u32, bfm<u32>>);
  registry.add("S_BFM_B64", sop2<u64, u32, u32, bfm<u64>>);

  // Bit operations.
  registry.add("S_BREV_B32", sop1<u32, u32, brev<u32>>);
  registry.add("S_BREV_B64", sop1<u64, u64, brev<u64>>);
  registry.add("S_BCNT0_I32_B32", sop1<u32, u32, bcnt0<u32>>);
  registry.add("S_BCNT0_I32_B64", sop1<u32, u64, bcnt0<u64>>);
  registry.add("S_BCNT1_I32_B32", sop1<u32, u32, bcnt1<u32>>);
  registry.add("S_BCNT1_I32_B64", sop1<u32, u64, bcnt1<u64>>);
  registry.add("S_FF0_I32_B32", sop1<u32, u32, ff0<u32>>);
  registry.add("S_FF0_I32_B64", sop1<u32, u64, ff0<u64>>);
  registry.add("S_FF1_I32_B32", sop1<u32, u32, ff1<u32>>);
  registry.add("S_FF1_I32_B64", sop1<u32, u64, ff1<u64>>);
  registry.add("S_FLBIT_I32_B32", sop1<u32, u32, flbit<u32>>);
  registry.add("S_FLBIT_I32_B64", sop1<u32, u64, flbit<u64>>);
  registry.add("S_FLBIT_I32", sop1<u32, i32, flbitSigned<i32>>);
  registry.add("S_FLBIT_I32_I64", sop1<u32, i64, flbitSigned<i64>>);
  registry.add("S_BITSET0_B32", sop1Update<u32, bitset0<u32>>);
  registry.add("S_BITSET0_B64", sop1Update<u64, bitset0<u64>>);
  registry.add("S_BITSET1_B32", sop1Update<u32, bitset1<u32>>);
  registry.add("S_BITSET1_B64", sop1Update<u64, bitset1<u64>>);
  registry.add("S_WQM_B32", sop1<u32, u32, wqm<u32>>);
  registry.add("S_WQM_B64", sop1<u64, u64, wqm<u64>>);
  registry.add("S_QUADMASK_B32", sop1<u32, u32, quadmask<u32>>);
  registry.add("S_QUADMASK_B64", sop1<u64, u64, quadmask<u64>>);
  registry.add("S_BITREPLICATE_B64_B32", sop1<u64, u32, bitreplicate>);

  // Compares.
  addCompare<cmpEq<i32>, cmpEq<u32>>(registry, "EQ");
  addCompare<cmpLg<i32>, cmpLg<u32>>(registry, "LG");
  addCompare<cmpGt<i32>, cmpGt<u32>>(registry, "GT");
  addCompare<cmpGe<i32>, cmpGe<u32>>(registry, "GE");
  addCompare<cmpLt<i32>, cmpLt<u32>>(registry, "LT");
  addCompare<cmpLe<i32>, cmpLe<u32>>(registry, "LE");
  registry.add("S_CMP_EQ_U64", sopc<u64, u64, cmpEq<u64>>);
  registry.add("S_CMP_LG_U64", sopc<u64, u64, cmpLg<u64>>);
  registry.add("S_BITCMP0_B32", sopc<u32, u32, bitcmp0<u32>>);
  registry.add("S_BITCMP0_B64", sopc<u64, u32, bitcmp0<u64>>);
  registry.add("S_BITCMP1_B32", sopc<u32, u32, bitcmp1<u32>>);
  registry.add("S_BITCMP1_B64", sopc<u64, u32, bitcmp1<u64>>);

  // EXEC-mask operations: EXEC = Op(S0, EXEC).
  registry.add("S_AND_SAVEEXEC_B64", saveExec<And>);
  registry.add("S_OR_SAVEEXEC_B64", saveExec<Or>);
  registry.add("S_XOR_SAVEEXEC_B64", saveExec<Xor>);
  registry.add("S_ANDN1_SAVEEXEC_B64", saveExec<Andn1>);
  registry.add("S_ANDN2_SAVEEXEC_B64", saveExec<Andn2>);
  registry.add("S_ORN1_SAVEEXEC_B64", saveExec<Orn1>);
  registry.add("S_ORN2_SAVEEXEC_B64", saveExec<Orn2>);
  registry.add("S_NAND_SAVEEXEC_B64", saveExec<Nand>);
  registry.add("S_NOR_SAVEEXEC_B64", saveExec<Nor>);
  registry.add("S_XNOR_SAVEEXEC_B64", saveExec<Xnor>);
  registry.add("S_ANDN1_WREXEC_B64", writeExec<Andn1>);
  registry.add("S_ANDN2_WREXEC_B64", writeExec<Andn2>);
}
