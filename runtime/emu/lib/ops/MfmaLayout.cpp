//===- MfmaLayout.cpp - CDNA MFMA operand layouts and number formats ------===//
//
// See MfmaLayout.h for the formulas and where they come from.
//
//===----------------------------------------------------------------------===//

#include "MfmaLayout.h"

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

/// Describes an 8-bit float encoding.
struct Fp8Format {
  unsigned mantissaBits;
  int bias;
  bool fnuz;         ///< 0x80 is the only NaN; no infinities, no -0.
  bool ieeeSpecials; ///< All-ones exponent is inf (mantissa 0) or NaN.
};

std::array<float, 256> buildFp8Table(const Fp8Format &format) {
  std::array<float, 256> table;
  unsigned exponentBits = 7 - format.mantissaBits;
  unsigned maxExponent = (1u << exponentBits) - 1;
  unsigned mantissaMask = (1u << format.mantissaBits) - 1;
  float nan = std::numeric_limits<float>::quiet_NaN();
  for (unsigned code = 0; code < 256; ++code) {
    bool negative = code & 0x80;
    unsigned exponent = (code >> format.mantissaBits) & maxExponent;
    unsigned mantissa = code & mantissaMask;
    float value;
    if (format.fnuz && code == 0x80) {
      value = nan;
    } else if (format.ieeeSpecials && exponent == maxExponent) {
      value = mantissa ? nan : std::numeric_limits<float>::infinity();
    } else if (!format.fnuz && !format.ieeeSpecials &&
               exponent == maxExponent && mantissa == mantissaMask) {
      value = nan; // E4M3FN: S.1111.111
    } else if (exponent == 0) {
      value = std::ldexp(float(mantissa),
                         1 - format.bias - int(format.mantissaBits));
    } else {
      value =
          std::ldexp(float(mantissa | (1u << format.mantissaBits)),
                     int(exponent) - format.bias - int(format.mantissaBits));
    }
    table[code] = negative && !std::isnan(value) ? -value : value;
  }
  return table;
}

} // namespace

const float *mfma::getFp8Table(ScalarKind kind) {
  static const std::array<float, 256> e4m3fnuz =
      buildFp8Table({3, 8, /*fnuz=*/true, /*ieeeSpecials=*/false});
  static const std::array<float, 256> e5m2fnuz =
      buildFp8Table({2, 16, /*fnuz=*/true, /*ieeeSpecials=*/false});
  static const std::array<float, 256> e4m3fn =
      buildFp8Table({3, 7, /*fnuz=*/false, /*ieeeSpecials=*/false});
  static const std::array<float, 256> e5m2 =
      buildFp8Table({2, 15, /*fnuz=*/false, /*ieeeSpecials=*/true});
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
