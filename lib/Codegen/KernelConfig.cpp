//===- KernelConfig.cpp - Resource model of a kernel configuration
//----------===//

#include "crest/Codegen/KernelConfig.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace crest;

/// VGPRs per lane a kernel needs beyond its accumulators and operand
/// fragments: global and LDS addresses, loop counters, epilogue
/// temporaries. Chosen from the register counts LLVM reports for Crest's
/// GEMM kernels (see docs/Codegen.md); used for ranking only.
static constexpr int64_t kAddressingVgprs = 24;

int64_t crest::getSplitKLdsBytes(ConfigAttr config, unsigned accBits,
                                 int64_t m) {
  if (config.getRhsVector() > 1) {
    int64_t rows = m > 0 && m < config.getTileM() ? m : config.getTileM();
    return int64_t(config.getSplitK()) * rows * config.getTileN() *
           std::max<int64_t>(1, accBits / 8);
  }
  return int64_t(config.getSplitK() - 1) * config.getTileM() *
         config.getTileN() * std::max<int64_t>(1, accBits / 8);
}

ConfigCost crest::evaluateConfig(const ChipInfo &chip,
                                 const MmaInstruction &mma, ConfigAttr config,
                                 unsigned waveSize, unsigned lhsBits,
                                 unsigned rhsBits, unsigned accBits,
                                 int64_t m) {
  ConfigCost cost;
  cost.ldsBytes = config.getLdsBytes(lhsBits, rhsBits) +
                  getSplitKLdsBytes(config, accBits, m);
  cost.wavesPerWorkgroup = config.getNumWaves();
  int64_t waveM = config.getWaveTile()[0], waveN = config.getWaveTile()[1];
  cost.accRegisters =
      waveM * waveN / waveSize * std::max<int64_t>(1, accBits / 32);
  // One K step of fragments for every MMA tile of the wave, per stage in
  // flight (registers hold 32 bits of packed elements).
  int64_t tilesM = waveM / mma.m, tilesN = waveN / mma.n;
  int64_t lhsRegs = llvm::divideCeil(
      tilesM * mma.getLhsElementsPerLane(waveSize) * lhsBits, 32);
  int64_t rhsRegs = llvm::divideCeil(
      tilesN * mma.getLhsElementsPerLane(waveSize) * rhsBits, 32);
  int64_t inFlight =
      config.getScope() == SyncScope::Wavefront ? config.getStages() : 1;
  cost.estimatedVgprs =
      cost.accRegisters + inFlight * (lhsRegs + rhsRegs) + kAddressingVgprs;
  if (int64_t v = config.getRhsVector(); v > 1) {
    // The skinny path: `stages` whole K steps of loads in registers (kpl
    // rhs vectors of v elements and tilesM lhs fragments per instruction
    // K); the transposed fragments take the registers of the loads they
    // consume.
    int64_t kpl = mma.getLhsElementsPerLane(waveSize);
    int64_t substeps = config.getTileK() / mma.k;
    int64_t perStep =
        substeps * (llvm::divideCeil(kpl * v * rhsBits, 32) +
                    tilesM * llvm::divideCeil(kpl * lhsBits, 32));
    cost.estimatedVgprs =
        cost.accRegisters + config.getStages() * perStep + kAddressingVgprs;
  }

  int64_t granule = chip.getVgprAllocGranule(waveSize);
  int64_t allocated = llvm::alignTo(cost.estimatedVgprs, granule);
  int64_t byRegisters = chip.getVgprFilePerSimd(waveSize) / allocated;
  int64_t byLds = chip.maxWavesPerSimd;
  if (cost.ldsBytes > 0) {
    int64_t ldsPerGroup =
        llvm::alignTo(cost.ldsBytes, chip.ldsAllocGranuleBytes);
    int64_t groupsPerCu = chip.ldsBytesPerWorkgroup / ldsPerGroup;
    byLds = groupsPerCu * cost.wavesPerWorkgroup / chip.simdsPerComputeUnit;
  }
  cost.wavesPerSimd =
      std::min<int64_t>({byRegisters, byLds, chip.maxWavesPerSimd});
  return cost;
}
