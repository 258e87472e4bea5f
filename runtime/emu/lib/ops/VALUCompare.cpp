//===- VALUCompare.cpp - Vector ALU: compares (VOPC) ----------------------===//
//
// v_cmp_<cond>_<type> writes one bit per lane to VCC (e32, and SDWA without
// an sdst) or to its SGPR-pair destination (e64, SDWA sdst); bits of
// inactive lanes are cleared. v_cmpx_* (gfx9) writes the same mask to EXEC
// as well. Floating-point conditions are IEEE comparisons: with a NaN
// operand the ordered ones (lt, eq, le, gt, lg, ge, o) are false and the
// negated ones (nge, nlg, ngt, nle, neq, nlt, u) true. Denormal inputs are
// flushed per MODE like any floating-point input. v_cmp_class reads its
// value bit-exactly (it reports denormals as such) and tests S1's class
// mask: bit 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal,
// 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
//
//===----------------------------------------------------------------------===//

#include "VALUCore.h"

#include <string>

using namespace crest::emu;
using namespace crest::emu::valu;

namespace {

enum class Cond {
  F,
  LT,
  EQ,
  LE,
  GT,
  LG,
  GE,
  O,
  U,
  NGE,
  NLG,
  NGT,
  NLE,
  NEQ,
  NLT,
  TRU
};

template <Cond C> bool evaluate(double x, double y) {
  switch (C) {
  case Cond::F:
    return false;
  case Cond::LT:
    return x < y;
  case Cond::EQ:
    return x == y;
  case Cond::LE:
    return x <= y;
  case Cond::GT:
    return x > y;
  case Cond::LG:
    return x < y || x > y;
  case Cond::GE:
    return x >= y;
  case Cond::O:
    return x == x && y == y;
  case Cond::U:
    return x != x || y != y;
  case Cond::NGE:
    return !(x >= y);
  case Cond::NLG:
    return !(x < y || x > y);
  case Cond::NGT:
    return !(x > y);
  case Cond::NLE:
    return !(x <= y);
  case Cond::NEQ:
    return !(x == y);
  case Cond::NLT:
    return !(x < y);
  case Cond::TRU:
    return true;
  }
  return false;
}

template <class T, Cond C> bool compareFloat(Lane &, T a, T b) {
  return evaluate<C>(toDouble(a), toDouble(b));
}

/// Integer conditions: f, lt, eq, le, gt, ne, ge, t.
template <class T, Cond C> bool compareInt(Lane &, T a, T b) {
  switch (C) {
  case Cond::F:
    return false;
  case Cond::LT:
    return a < b;
  case Cond::EQ:
    return a == b;
  case Cond::LE:
    return a <= b;
  case Cond::GT:
    return a > b;
  case Cond::LG:
    return a != b;
  case Cond::GE:
    return a >= b;
  default:
    return true;
  }
}

template <class T> bool classOf(Lane &, T v, uint32_t mask) {
  unsigned bit;
  bool negative = signBit(v);
  if (isSignalingNaN(v))
    bit = 0;
  else if (isNaN(v))
    bit = 1;
  else if (isInf(v))
    bit = negative ? 2 : 9;
  else if (isZero(v))
    bit = negative ? 5 : 6;
  else if (isDenormal(v))
    bit = negative ? 4 : 7;
  else
    bit = negative ? 3 : 8;
  return (mask >> bit) & 1;
}

template <Cond C, class T>
void addFloat(HandlerRegistry &r, const std::string &cond,
              const std::string &type) {
  r.addVALU("V_CMP_" + cond + "_" + type, lanewise<compareFloat<T, C>>);
  r.addVALU("V_CMPX_" + cond + "_" + type,
            lanewise<compareFloat<T, C>, op::Cmpx>);
}
template <Cond C, class T>
void addInt(HandlerRegistry &r, const std::string &cond,
            const std::string &type) {
  r.addVALU("V_CMP_" + cond + "_" + type, lanewise<compareInt<T, C>>);
  r.addVALU("V_CMPX_" + cond + "_" + type,
            lanewise<compareInt<T, C>, op::Cmpx>);
}

template <class T>
void addFloatConditions(HandlerRegistry &r, const std::string &type) {
  addFloat<Cond::F, T>(r, "F", type);
  addFloat<Cond::LT, T>(r, "LT", type);
  addFloat<Cond::EQ, T>(r, "EQ", type);
  addFloat<Cond::LE, T>(r, "LE", type);
  addFloat<Cond::GT, T>(r, "GT", type);
  addFloat<Cond::LG, T>(r, "LG", type);
  addFloat<Cond::GE, T>(r, "GE", type);
  addFloat<Cond::O, T>(r, "O", type);
  addFloat<Cond::U, T>(r, "U", type);
  addFloat<Cond::NGE, T>(r, "NGE", type);
  addFloat<Cond::NLG, T>(r, "NLG", type);
  addFloat<Cond::NGT, T>(r, "NGT", type);
  addFloat<Cond::NLE, T>(r, "NLE", type);
  addFloat<Cond::NEQ, T>(r, "NEQ", type);
  addFloat<Cond::NLT, T>(r, "NLT", type);
  addFloat<Cond::TRU, T>(r, "TRU", type);
  r.addVALU("V_CMP_CLASS_" + type, lanewise<classOf<T>, op::NoFlush>);
  r.addVALU("V_CMPX_CLASS_" + type,
            lanewise<classOf<T>, op::NoFlush | op::Cmpx>);
}

template <class T>
void addIntConditions(HandlerRegistry &r, const std::string &type) {
  addInt<Cond::F, T>(r, "F", type);
  addInt<Cond::LT, T>(r, "LT", type);
  addInt<Cond::EQ, T>(r, "EQ", type);
  addInt<Cond::LE, T>(r, "LE", type);
  addInt<Cond::GT, T>(r, "GT", type);
  addInt<Cond::LG, T>(r, "NE", type);
  addInt<Cond::GE, T>(r, "GE", type);
  addInt<Cond::TRU, T>(r, "T", type);
}

} // namespace

void crest::emu::valu::registerValuCompareHandlers(HandlerRegistry &r) {
  addFloatConditions<Half>(r, "F16");
  addFloatConditions<float>(r, "F32");
  addFloatConditions<double>(r, "F64");
  addIntConditions<int16_t>(r, "I16");
  addIntConditions<uint16_t>(r, "U16");
  addIntConditions<int32_t>(r, "I32");
  addIntConditions<uint32_t>(r, "U32");
  addIntConditions<int64_t>(r, "I64");
  addIntConditions<uint64_t>(r, "U64");
}
