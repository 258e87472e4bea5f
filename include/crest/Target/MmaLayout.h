//===- MmaLayout.h - Which lane holds which matrix element ------*- C++ -*-===//
//
// The register/lane layout of the CDNA MFMA family, in closed form, as a
// function of a chip-table row (M, N, K, blocks and the element kinds):
// nothing here tests a chip or an instruction name. The compiler's fragment
// code (lib/Codegen/LowerToGPU.cpp) and the emulator's MFMA handlers
// (runtime/emu/lib/ops/MFMA.cpp) both read these descriptions; the unit test
// unittests/Target/MmaLayoutTest.cpp checks every element of every CDNA1-3
// MFMA against AMD's matrix instruction calculator (test/Inputs/mfma-layouts).
//
//   A (dim = M, x = i) and B (dim = N, x = j), element (block b, x, k) of
//   `bits` bits, with E = dim * K * blocks / 64 elements per lane:
//     lane = x + dim * (b + blocks * floor(k / E))
//     bit offset in the lane's E * bits bits = (k % E) * bits, i.e.
//     register (k % E) * bits / 32, bit (k % E) * bits % 32.
//   C and D, 32-bit elements: rows go in groups of 4 (one register each);
//   G = 64 / N lane groups of N lanes; R = M / 4 row groups per block,
//   Gb = min(G, R) of them side by side in the lanes and the remaining lane
//   groups (G / Gb) holding further blocks:
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

#ifndef CREST_TARGET_MMALAYOUT_H
#define CREST_TARGET_MMALAYOUT_H

#include "crest/Target/ChipTable.h"

namespace crest::mma {

/// MFMA instructions run in wave64.
constexpr unsigned kMfmaWaveSize = 64;

/// Where one element of an operand lives: `reg` registers after the
/// operand's first register, in `lane`, from bit `bit` (64-bit elements
/// span registers `reg` and `reg + 1`).
struct ElementLoc {
  unsigned reg;
  unsigned lane;
  unsigned bit;
};

/// The A or B operand: element (block, x, k), x the row of A or the column
/// of B.
struct InputLayout {
  unsigned dim = 0; ///< M for A, N for B
  unsigned k = 0;   ///< K of one block
  unsigned blocks = 1;
  unsigned bits = 0;    ///< element width
  unsigned perLane = 0; ///< E: elements of one lane

  ElementLoc locate(unsigned block, unsigned x, unsigned kk) const;
  /// 32-bit registers the operand spans in one lane.
  unsigned getRegs() const;

  // The inverse, for code that starts from a lane: the lane holds
  // elements k = getFirstK(lane) + e, e < perLane, of row/column getX(lane)
  // of block getBlock(lane), element e at bit e * bits.
  unsigned getX(unsigned lane) const { return lane % dim; }
  unsigned getBlock(unsigned lane) const { return lane / dim % blocks; }
  /// Lanes that hold the same K range: getFirstK(lane) =
  /// lane / getLanesPerKGroup() * perLane.
  unsigned getLanesPerKGroup() const { return dim * blocks; }
  unsigned getFirstK(unsigned lane) const {
    return lane / getLanesPerKGroup() * perLane;
  }
};

/// The C/D operand: element (block, i, j).
struct AccLayout {
  unsigned m = 0, n = 0, blocks = 1;
  unsigned bits = 0; ///< 32 or 64
  /// G: lane groups of N lanes; Gb (`side`) of them hold the row groups of
  /// one block, G / Gb (`blocksAcross`) blocks sit side by side in the
  /// lanes, and `rowSlots` = R / Gb register quads hold one block's rows.
  unsigned laneGroups = 0, side = 0, blocksAcross = 0, rowSlots = 0;

  ElementLoc locate(unsigned block, unsigned i, unsigned j) const;
  /// 32-bit registers the operand spans in one lane.
  unsigned getRegs() const;
  /// Accumulator elements of one lane (registers, or register pairs):
  /// MmaInstruction::getAccElementsPerLane in wave64.
  unsigned elementsPerLane = 0;

  // The inverse for single-block forms: element `e` of `lane` is
  //   j = getColumn(lane),
  //   i = getRowOffset(e) + getRowStride() * (lane / n % side).
  unsigned getColumn(unsigned lane) const { return lane % n; }
  unsigned getRowOffset(unsigned element) const;
  unsigned getRowStride() const { return bits == 64 ? 1 : 4; }
  /// The lane-group factor is lane / n % side; code whose lane / n is
  /// already below `side` may skip the modulo.
  bool needsLaneGroupModulo() const { return laneGroups > side; }
  /// The row of element `e` in `lane` (single-block forms).
  unsigned getRow(unsigned lane, unsigned element) const {
    return getRowOffset(element) + getRowStride() * (lane / n % side);
  }
};

/// Whether `mnemonic` names a matrix instruction: MFMA, sparse SMFMAC, WMMA
/// or sparse SWMMAC. Accepts the assembler's spelling ("v_mfma_f32_...")
/// and LLVM MC opcode names ("V_MFMA_F32_..._e64") alike. The one rule by
/// which --report, the emulator and its timing model count matrix
/// instructions.
bool isMatrixMnemonic(llvm::StringRef mnemonic);

/// Whether `inst` has a layout here (the CDNA MFMA family).
bool hasLayout(const MmaInstruction &inst);

InputLayout getALayout(const MmaInstruction &inst);
InputLayout getBLayout(const MmaInstruction &inst);
AccLayout getDLayout(const MmaInstruction &inst);

inline ElementLoc getALoc(const MmaInstruction &inst, unsigned block,
                          unsigned i, unsigned k) {
  return getALayout(inst).locate(block, i, k);
}
inline ElementLoc getBLoc(const MmaInstruction &inst, unsigned block,
                          unsigned k, unsigned j) {
  return getBLayout(inst).locate(block, j, k);
}
inline ElementLoc getDLoc(const MmaInstruction &inst, unsigned block,
                          unsigned i, unsigned j) {
  return getDLayout(inst).locate(block, i, j);
}
inline unsigned getARegs(const MmaInstruction &inst) {
  return getALayout(inst).getRegs();
}
inline unsigned getBRegs(const MmaInstruction &inst) {
  return getBLayout(inst).getRegs();
}
inline unsigned getDRegs(const MmaInstruction &inst) {
  return getDLayout(inst).getRegs();
}

/// With BLGP = `blgp` (a lane pattern), the B value the default layout puts
/// in `lane` is read from the returned lane (ISA guide section 7.1.6.3; the
/// calculator's `blgp_source_lane`): 1 and 2 broadcast lanes 0-31 or 32-63,
/// 3 rotates by 16, 4-7 broadcast the 16-lane group blgp - 4.
unsigned getBlgpSourceLane(unsigned blgp, unsigned lane);

/// Whether CBSZ/ABID (A-block broadcast) apply: multi-block forms other than
/// f64 (the calculator's "cbsz_abid" property for every CDNA1-3 form).
bool hasABroadcast(const MmaInstruction &inst);

} // namespace crest::mma

#endif // CREST_TARGET_MMALAYOUT_H
