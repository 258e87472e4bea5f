//===- MfmaLayout.cpp - MFMA number formats for the emulator --------------===//
//
// The layouts themselves are in lib/Target/MmaLayout.cpp.
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
