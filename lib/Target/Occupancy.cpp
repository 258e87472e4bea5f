//===- Occupancy.cpp - Waves and workgroups a compute unit holds ----------===//

#include "crest/Target/Occupancy.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace crest;
using llvm::alignTo;
using llvm::divideCeil;

//===----------------------------------------------------------------------===//
// Occupancy
//===----------------------------------------------------------------------===//

Occupancy crest::computeOccupancy(const ChipInfo &chip, unsigned waveSize,
                                  unsigned vgprs, unsigned agprs,
                                  uint64_t ldsBytes, unsigned workgroupSize) {
  Occupancy occupancy;
  occupancy.byChip = chip.maxWavesPerSimd;

  // On a unified file .vgpr_count already includes the AGPRs; gfx908's two
  // files are allocated alike, so the larger one decides.
  unsigned registers = chip.unifiedVgprFile ? vgprs : std::max(vgprs, agprs);
  unsigned granule = chip.getVgprAllocGranule(waveSize);
  unsigned allocated = alignTo(std::max(registers, 1u), granule);
  occupancy.byRegisters = chip.getVgprFilePerSimd(waveSize) / allocated;

  occupancy.byLds = occupancy.byChip;
  if (ldsBytes > 0) {
    uint64_t perGroup = alignTo(ldsBytes, chip.ldsAllocGranuleBytes);
    uint64_t groupsPerCu = chip.ldsBytesPerWorkgroup / perGroup;
    uint64_t wavesPerGroup = divideCeil(std::max(workgroupSize, 1u), waveSize);
    occupancy.byLds =
        divideCeil(groupsPerCu * wavesPerGroup, chip.simdsPerComputeUnit);
  }

  occupancy.wavesPerSimd =
      std::min({occupancy.byChip, occupancy.byRegisters, occupancy.byLds});

  unsigned wavesPerGroup =
      unsigned(divideCeil(std::max(workgroupSize, 1u), waveSize));
  unsigned byWaves =
      std::min(occupancy.byChip, occupancy.byRegisters) *
      chip.simdsPerComputeUnit / wavesPerGroup;
  uint64_t byLdsGroups = byWaves;
  if (ldsBytes > 0)
    byLdsGroups = chip.ldsBytesPerWorkgroup /
                  alignTo(ldsBytes, chip.ldsAllocGranuleBytes);
  occupancy.workgroupsPerCu = unsigned(std::min<uint64_t>(byWaves, byLdsGroups));
  if (occupancy.wavesPerSimd == occupancy.byChip)
    occupancy.limiter = "waves";
  else if (occupancy.wavesPerSimd == occupancy.byRegisters)
    occupancy.limiter = "registers";
  else
    occupancy.limiter = "LDS";
  return occupancy;
}

