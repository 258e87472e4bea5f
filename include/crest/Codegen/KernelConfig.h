//===- KernelConfig.h - Resource model of a kernel configuration -*- C++
//-*-===//
//
// What a #crest.config costs on a chip: LDS bytes, accumulator and
// estimated total VGPRs per lane, and the waves per SIMD (occupancy) those
// allow. Configuration selection ranks candidates with it and `--report`
// prints it; both read the chip table only.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_CODEGEN_KERNELCONFIG_H
#define CREST_CODEGEN_KERNELCONFIG_H

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Target/ChipTable.h"

#include <cstdint>
#include <string>

namespace crest {

struct ConfigCost {
  /// The LDS the kernel allocates (ConfigAttr::getLdsLayout).
  int64_t ldsBytes = 0;
  /// Accumulator registers per lane (the output tile of one wave).
  int64_t accRegisters = 0;
  /// Estimated VGPRs (arch + acc) per lane: accumulators, operand
  /// fragments for `stages` K steps in flight, and a fixed allowance for
  /// addresses and loop state. An estimate, not what LLVM allocates.
  int64_t estimatedVgprs = 0;
  /// Waves per SIMD the registers, the LDS and the chip allow
  /// (crest::computeOccupancy).
  int64_t wavesPerSimd = 0;
  int64_t wavesPerWorkgroup = 0;
};

/// Evaluates `config` for a contraction reading `lhsBits`/`rhsBits`-wide
/// elements and accumulating `accBits`-wide values with `mma`, at
/// `waveSize`.
ConfigCost evaluateConfig(const ChipInfo &chip, const MmaInstruction &mma,
                          ConfigAttr config, unsigned waveSize,
                          unsigned lhsBits, unsigned rhsBits, unsigned accBits,
                          int64_t m = 0);

} // namespace crest

#endif // CREST_CODEGEN_KERNELCONFIG_H
