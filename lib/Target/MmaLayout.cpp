//===- MmaLayout.cpp - Which lane holds which matrix element --------------===//
//
// See MmaLayout.h for the formulas and where they come from.
//
//===----------------------------------------------------------------------===//

#include "crest/Target/MmaLayout.h"

#include <algorithm>
#include <cassert>

using namespace crest;
using namespace crest::mma;

ElementLoc InputLayout::locate(unsigned block, unsigned x, unsigned kk) const {
  unsigned lane = x + dim * (block + blocks * (kk / perLane));
  unsigned offset = (kk % perLane) * bits;
  return {offset / 32, lane, offset % 32};
}

unsigned InputLayout::getRegs() const {
  return std::max(1u, perLane * bits / 32);
}

ElementLoc AccLayout::locate(unsigned block, unsigned i, unsigned j) const {
  if (bits == 64)
    return {2 * (i / 4), 16 * (i % 4) + n * block + j, 0};
  unsigned rowGroup = i / 4;
  unsigned laneGroup = rowGroup % side + side * (block % blocksAcross);
  unsigned slot = rowGroup / side + rowSlots * (block / blocksAcross);
  return {4 * slot + i % 4, j + n * laneGroup, 0};
}

unsigned AccLayout::getRegs() const {
  return std::max(1u, elementsPerLane * bits / 32);
}

unsigned AccLayout::getRowOffset(unsigned element) const {
  assert(blocks == 1 && "the inverse covers single-block forms");
  // f64: lane group i % 4 (side 4), pair i / 4.
  if (bits == 64)
    return 4 * element;
  return 4 * side * (element / 4) + element % 4;
}

bool mma::isMatrixMnemonic(llvm::StringRef mnemonic) {
  for (llvm::StringRef prefix :
       {"v_mfma_", "v_smfmac_", "v_wmma_", "v_swmmac_"})
    if (mnemonic.starts_with_insensitive(prefix))
      return true;
  return false;
}

bool mma::hasLayout(const MmaInstruction &inst) {
  return inst.kind == MmaKind::MFMA && inst.layout == MmaLayoutFamily::CdnaMfma;
}

static InputLayout getInputLayout(unsigned dim, unsigned k, unsigned blocks,
                                  ScalarKind kind) {
  InputLayout layout;
  layout.dim = dim;
  layout.k = k;
  layout.blocks = blocks;
  layout.bits = getScalarKindBits(kind);
  layout.perLane = dim * k * blocks / kMfmaWaveSize;
  return layout;
}

InputLayout mma::getALayout(const MmaInstruction &inst) {
  InputLayout layout = getInputLayout(inst.m, inst.k, inst.blocks, inst.lhs);
  assert(layout.perLane == inst.getLhsElementsPerLane(kMfmaWaveSize));
  return layout;
}

InputLayout mma::getBLayout(const MmaInstruction &inst) {
  return getInputLayout(inst.n, inst.k, inst.blocks, inst.rhs);
}

AccLayout mma::getDLayout(const MmaInstruction &inst) {
  AccLayout layout;
  layout.m = inst.m;
  layout.n = inst.n;
  layout.blocks = inst.blocks;
  layout.bits = getScalarKindBits(inst.acc);
  layout.laneGroups = kMfmaWaveSize / inst.n;
  layout.elementsPerLane = inst.getAccElementsPerLane(kMfmaWaveSize);
  if (layout.bits == 64) {
    // 16 * (i % 4) + n * block + j: four lane groups of 16 lanes, one per
    // row of each group of four.
    layout.side = 4;
    layout.blocksAcross = inst.blocks;
    layout.rowSlots = std::max(1u, inst.m / 4);
    return layout;
  }
  unsigned rowGroups = inst.m / 4;
  layout.side = std::min(layout.laneGroups, rowGroups);
  layout.blocksAcross = layout.laneGroups / layout.side;
  layout.rowSlots = rowGroups / layout.side;
  return layout;
}

unsigned mma::getBlgpSourceLane(unsigned blgp, unsigned lane) {
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

bool mma::hasABroadcast(const MmaInstruction &inst) {
  return inst.blocks > 1 && getScalarKindBits(inst.acc) != 64;
}
