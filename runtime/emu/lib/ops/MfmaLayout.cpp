//===- MfmaLayout.cpp - MFMA number formats for the emulator --------------===//
//
// The layouts themselves are in lib/Target/MmaLayout.cpp.
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
