//===- MfmaLayout.cpp - CDNA MFMA operand layouts and number formats ------===//
//
// See MfmaLayout.h for the formulas and where they come from.
//
//===----------------------------------------------------------------------===//

#include "MfmaLayout.h"

#include "crest/Semantics/Scalar.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>
#include <cmath>
#include <limits>

using namespace crest;
using namespace crest::emu;
using namespace crest::emu::mfma;

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

ElementLoc mfma::getInputLoc(unsigned dim, unsigned k, unsigned blocks,
                             unsigned bits, unsigned block, unsigned x,
                             unsigned kk) {
  unsigned perLane = dim * k * blocks / 64;
  unsigned lane = x + dim * (block + blocks * (kk / perLane));
  unsigned offset = (kk % perLane) * bits;
  return {offset / 32, lane, offset % 32};
}

ElementLoc mfma::getAccLoc(unsigned m, unsigned n, unsigned blocks,
                           unsigned accBits, unsigned block, unsigned i,
                           unsigned j) {
  if (accBits == 64)
    return {2 * (i / 4), 16 * (i % 4) + n * block + j, 0};
  unsigned groups = 64 / n;
  unsigned rowGroups = m / 4;
  unsigned side = std::min(groups, rowGroups);
  unsigned blocksAcross = groups / side;
  unsigned rowGroup = i / 4;
  unsigned laneGroup = rowGroup % side + side * (block % blocksAcross);
  unsigned slot = rowGroup / side + (rowGroups / side) * (block / blocksAcross);
  (void)blocks;
  return {4 * slot + i % 4, j + n * laneGroup, 0};
}

ElementLoc mfma::getALoc(const MmaInstruction &inst, unsigned block, unsigned i,
                         unsigned k) {
  return getInputLoc(inst.m, inst.k, inst.blocks, getScalarKindBits(inst.lhs),
                     block, i, k);
}

ElementLoc mfma::getBLoc(const MmaInstruction &inst, unsigned block, unsigned k,
                         unsigned j) {
  return getInputLoc(inst.n, inst.k, inst.blocks, getScalarKindBits(inst.rhs),
                     block, j, k);
}

ElementLoc mfma::getDLoc(const MmaInstruction &inst, unsigned block, unsigned i,
                         unsigned j) {
  return getAccLoc(inst.m, inst.n, inst.blocks, getScalarKindBits(inst.acc),
                   block, i, j);
}

static unsigned getRegs(unsigned elements, unsigned bits) {
  return std::max(1u, elements / 64 * bits / 32);
}

unsigned mfma::getARegs(const MmaInstruction &inst) {
  return getRegs(inst.m * inst.k * inst.blocks, getScalarKindBits(inst.lhs));
}

unsigned mfma::getBRegs(const MmaInstruction &inst) {
  return getRegs(inst.n * inst.k * inst.blocks, getScalarKindBits(inst.rhs));
}

unsigned mfma::getDRegs(const MmaInstruction &inst) {
  return getRegs(inst.m * inst.n * inst.blocks, getScalarKindBits(inst.acc));
}

unsigned mfma::getBlgpSourceLane(unsigned blgp, unsigned lane) {
  switch (blgp) {
  case 0:
    return lane;
  case 1:
    return lane % 32;
  case 2:
    return 32 + lane % 32;
  case 3:
    return (lane + 16) % 64;
  default:
    return 16 * (blgp - 4) + lane % 16;
  }
}

bool mfma::hasABroadcast(const MmaInstruction &inst) {
  return inst.blocks > 1 && getScalarKindBits(inst.acc) != 64;
}

//===----------------------------------------------------------------------===//
// Number formats
//===----------------------------------------------------------------------===//

namespace {

/// The values of the 256 codes of an fp8 format (the codec of
/// crest/Semantics, shared with the compiler and the reference); NaN codes
/// give a positive quiet NaN.
std::array<float, 256> buildFp8Table(const llvm::fltSemantics &format) {
  std::array<float, 256> table;
  for (unsigned code = 0; code < 256; ++code) {
    double value = crest::sem::decodeFp8(uint8_t(code), format);
    table[code] = std::isnan(value) ? std::numeric_limits<float>::quiet_NaN()
                                    : float(value);
  }
  return table;
}

} // namespace

const float *mfma::getFp8Table(ScalarKind kind) {
  static const std::array<float, 256> e4m3fnuz =
      buildFp8Table(llvm::APFloat::Float8E4M3FNUZ());
  static const std::array<float, 256> e5m2fnuz =
      buildFp8Table(llvm::APFloat::Float8E5M2FNUZ());
  static const std::array<float, 256> e4m3fn =
      buildFp8Table(llvm::APFloat::Float8E4M3FN());
  static const std::array<float, 256> e5m2 =
      buildFp8Table(llvm::APFloat::Float8E5M2());
  switch (kind) {
  case ScalarKind::F8E4M3FNUZ:
    return e4m3fnuz.data();
  case ScalarKind::F8E5M2FNUZ:
    return e5m2fnuz.data();
  case ScalarKind::F8E4M3FN:
    return e4m3fn.data();
  case ScalarKind::F8E5M2:
    return e5m2.data();
  default:
    llvm_unreachable("not an fp8 kind");
  }
}

float mfma::decodeFp8(ScalarKind kind, uint8_t bits) {
  return getFp8Table(kind)[bits];
}
