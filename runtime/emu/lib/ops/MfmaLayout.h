//===- MfmaLayout.h - CDNA MFMA operand layouts and number formats -*- C++ -*-//
//
// The register/lane layout of the CDNA MFMA family in closed form, and the
// input number formats the matrix cores read. Everything is a function of a
// chip-table row (crest/Target/ChipTable.h): M, N, K, blocks and the element
// kinds; nothing tests a chip or an instruction name.
//
// Layout (every dense CDNA1-3 MFMA of shared/mfma-layouts/cdna{1,2,3}.json
// matches these formulas element for element; MfmaLayoutTest checks it):
//
//   A (dim = M, x = i) and B (dim = N, x = j), element (block b, x, k) of
//   `bits` bits, with E = dim * K * blocks / 64 elements per lane:
//     lane = x + dim * (b + blocks * floor(k / E))
//     bit offset in the lane's E * bits bits = (k % E) * bits, i.e.
//     register (k % E) * bits / 32, bit (k % E) * bits % 32.
//   C and D, 32-bit elements: rows go in groups of H = 4 (one register
//   each); G = 64 / N lane groups of N lanes; R = M / 4 row groups per
//   block, Gb = min(G, R) of them side by side in the lanes and the
//   remaining lane groups (G / Gb) holding further blocks:
//     rg = floor(i / 4)
//     lane = j + N * (rg % Gb + Gb * (b % (G / Gb)))
//     register = 4 * (floor(rg / Gb) + (R / Gb) * floor(b / (G / Gb)))
//                + i % 4
//   C and D, 64-bit elements (the f64 forms): a register pair per element,
//     lane = 16 * (i % 4) + N * b + j, pair floor(i / 4) (registers
//     2 * floor(i / 4) and 2 * floor(i / 4) + 1).
//
// gfx950 has no calculator data; its forms are assumed to follow the same
// formulas (e.g. v_mfma_f32_32x32x16_f16: 8 halves in 4 registers per lane,
// lane = i + 32 * floor(k / 8)).
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_OPS_MFMALAYOUT_H
#define CREST_EMU_LIB_OPS_MFMALAYOUT_H

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/bit.h"

#include <cstdint>

namespace crest::emu::mfma {

/// Where one element of an operand lives: `reg` registers after the
/// operand's first register, in `lane`, from bit `bit` (64-bit elements
/// span registers `reg` and `reg + 1`).
struct ElementLoc {
  unsigned reg;
  unsigned lane;
  unsigned bit;
};

/// A (dim = M, x = row) or B (dim = N, x = column) element (block, x, k).
ElementLoc getInputLoc(unsigned dim, unsigned k, unsigned blocks, unsigned bits,
                       unsigned block, unsigned x, unsigned kk);
/// C/D element (block, i, j) of an instruction with `accBits`-bit
/// accumulators.
ElementLoc getAccLoc(unsigned m, unsigned n, unsigned blocks, unsigned accBits,
                     unsigned block, unsigned i, unsigned j);

ElementLoc getALoc(const MmaInstruction &inst, unsigned block, unsigned i,
                   unsigned k);
ElementLoc getBLoc(const MmaInstruction &inst, unsigned block, unsigned k,
                   unsigned j);
ElementLoc getDLoc(const MmaInstruction &inst, unsigned block, unsigned i,
                   unsigned j);

/// 32-bit registers each operand spans in one lane.
unsigned getARegs(const MmaInstruction &inst);
unsigned getBRegs(const MmaInstruction &inst);
unsigned getDRegs(const MmaInstruction &inst);

/// With BLGP = `blgp` (a lane pattern), the B value the default layout puts
/// in `lane` is read from the returned lane (ISA guide section 7.1.6.3; the
/// calculator's `blgp_source_lane`): 1 and 2 broadcast lanes 0-31 or 32-63,
/// 3 rotates by 16, 4-7 broadcast the 16-lane group blgp - 4.
unsigned getBlgpSourceLane(unsigned blgp, unsigned lane);

/// Whether CBSZ/ABID (A-block broadcast) apply: multi-block forms other than
/// f64 (the calculator's "cbsz_abid" property for every CDNA1-3 form).
bool hasABroadcast(const MmaInstruction &inst);

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
