//===- KernelConfig.cpp - Resource model of a kernel configuration -------===//

#include "crest/Codegen/KernelConfig.h"
#include "crest/Target/Occupancy.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace crest;

/// VGPRs per lane a kernel needs beyond its accumulators and operand
/// fragments: global and LDS addresses, loop counters, epilogue
/// temporaries. Chosen from the register counts LLVM reports for Crest's
/// GEMM kernels (see docs/Codegen.md); used for ranking only.
static constexpr int64_t kAddressingVgprs = 24;

ConfigCost crest::evaluateConfig(const ChipInfo &chip,
                                 const MmaInstruction &mma, ConfigAttr config,
                                 unsigned waveSize, unsigned lhsBits,
                                 unsigned rhsBits, unsigned accBits,
                                 int64_t m) {
  ConfigCost cost;
  cost.ldsBytes = config.getLdsBytes(lhsBits, rhsBits, accBits, m);
  cost.wavesPerWorkgroup = config.getNumWaves();
  int64_t waveM = config.getWaveTile()[0], waveN = config.getWaveTile()[1];
  cost.accRegisters = getAccRegistersPerLane(waveM, waveN, waveSize, accBits);
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

  // The same occupancy rule as --report and the timing model (the estimate
  // counts arch and accumulator VGPRs together).
  cost.wavesPerSimd =
      computeOccupancy(chip, waveSize, unsigned(cost.estimatedVgprs),
                       /*agprs=*/0, uint64_t(cost.ldsBytes),
                       unsigned(cost.wavesPerWorkgroup * waveSize))
          .wavesPerSimd;
  return cost;
}
