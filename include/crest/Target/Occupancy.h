//===- Occupancy.h - Waves and workgroups a compute unit holds --*- C++ -*-===//
//
// The one definition of occupancy, used by the compiler's resource report,
// configuration selection and the emulator's timing model alike.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TARGET_OCCUPANCY_H
#define CREST_TARGET_OCCUPANCY_H

#include "crest/Target/ChipTable.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace crest {

/// Waves per SIMD a kernel can keep resident, with what limits them.
struct Occupancy {
  unsigned wavesPerSimd = 0;
  /// The separate limits: the chip's maximum, the register file and LDS.
  unsigned byChip = 0, byRegisters = 0, byLds = 0;
  /// Whole workgroups one compute unit holds at once: all of a workgroup's
  /// waves are resident together, on the CU's SIMDs, within its LDS.
  unsigned workgroupsPerCu = 0;
  /// "registers", "LDS" or "waves" (the chip's maximum), for the report.
  llvm::StringRef limiter;
};

/// Occupancy from the chip table: registers are allocated in granules from
/// the SIMD's file (`vgprs` counts arch VGPRs plus AGPRs on chips with a
/// unified file, as .vgpr_count does; on gfx908 the larger of the two
/// separate files counts), and each workgroup of `workgroupSize` work-items
/// allocates its LDS in granules from the compute unit's. SGPRs are not
/// modelled (they only limit gfx9 chips above 80 SGPRs per wave).
Occupancy computeOccupancy(const ChipInfo &chip, unsigned waveSize,
                           unsigned vgprs, unsigned agprs, uint64_t ldsBytes,
                           unsigned workgroupSize);

} // namespace crest

#endif // CREST_TARGET_OCCUPANCY_H
