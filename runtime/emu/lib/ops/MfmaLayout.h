//===- MfmaLayout.h - MFMA number formats for the emulator ------*- C++ -*-===//
//
// The input number formats the matrix cores read. The register/lane
// layouts are the shared ones of crest/Target/MmaLayout.h (one description
// for the compiler and the emulator), re-exported here under
// crest::emu::mfma for the MFMA handlers.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_MFMALAYOUT_H
#define CREST_EMU_LIB_OPS_MFMALAYOUT_H

#include "crest/Target/ChipTable.h"
#include "crest/Target/MmaLayout.h"

#include "llvm/ADT/bit.h"

#include <cstdint>

namespace crest::emu::mfma {

using mma::ElementLoc;
using mma::getALoc;
using mma::getARegs;
using mma::getBlgpSourceLane;
using mma::getBLoc;
using mma::getBRegs;
using mma::getDLoc;
using mma::getDRegs;
using mma::hasABroadcast;

//===----------------------------------------------------------------------===//
// Number formats
//===----------------------------------------------------------------------===//

/// f16 and bf16 to f32 (exact).
inline float decodeF16(uint16_t h) {
  // Branch-free, so that loops over it vectorize: normal numbers,
  // infinities and NaNs by rebiasing the exponent with an exact multiply,
  // subnormals by subtracting a magic bias (Maratyszcza's FP16 library).
  uint32_t twice = uint32_t(h) << 17; // sign shifted out
  float normal =
      llvm::bit_cast<float>((twice >> 4) + (0xe0u << 23)) * 0x1p-112f;
  float subnormal = llvm::bit_cast<float>((twice >> 17) | (126u << 23)) - 0.5f;
  uint32_t magnitude = twice < (1u << 27) ? llvm::bit_cast<uint32_t>(subnormal)
                                          : llvm::bit_cast<uint32_t>(normal);
  return llvm::bit_cast<float>((uint32_t(h & 0x8000u) << 16) | magnitude);
}
inline float decodeBf16(uint16_t bits) {
  return llvm::bit_cast<float>(uint32_t(bits) << 16);
}

/// One of the four 8-bit float kinds to f32 (exact; NaN encodings give a
/// quiet NaN). FNUZ (gfx942): no infinities, no negative zero, 0x80 is the
/// only NaN, exponent bias 8 (E4M3) / 16 (E5M2). OCP (gfx950): E4M3FN has
/// bias 7, no infinities and NaN = S.1111.111; E5M2 has bias 15, infinities
/// S.11111.00 and NaNs S.11111.{01,10,11}.
float decodeFp8(ScalarKind kind, uint8_t bits);
/// The 256-entry table decodeFp8 reads, for `kind` (an fp8 kind).
const float *getFp8Table(ScalarKind kind);

/// An f32 input of an xf32 MFMA as the matrix core multiplies it: the
/// mantissa rounded to 10 bits, to nearest even (sign and 8-bit exponent
/// kept; NaN stays a NaN, a carry out of the largest finite values gives
/// infinity). The CDNA3 ISA guide says xf32 MFMAs "round the mantissa to 10
/// bits"; rocBLAS's reference model truncates instead. Not checked against
/// hardware.
inline uint32_t roundToXf32(uint32_t bits) {
  constexpr uint32_t kDropped = 13; // 23 - 10 mantissa bits
  constexpr uint32_t kDroppedMask = (1u << kDropped) - 1;
  if ((bits & 0x7f800000u) == 0x7f800000u) {
    // Infinity stays; a NaN keeps a nonzero (quiet) mantissa.
    if (bits & 0x007fffffu)
      return (bits | 0x00400000u) & ~kDroppedMask;
    return bits;
  }
  uint32_t lsb = (bits >> kDropped) & 1;
  bits += (kDroppedMask >> 1) + lsb; // round to nearest, ties to even
  return bits & ~kDroppedMask;
}

} // namespace crest::emu::mfma

#endif // CREST_EMU_LIB_OPS_MFMALAYOUT_H
