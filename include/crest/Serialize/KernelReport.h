//===- KernelReport.h - What a compiled kernel uses -------------*- C++ -*-===//
//
// Reads the resource usage of every kernel from a code object's metadata
// note (registers, LDS, scratch, spills), derives the occupancy from the
// chip table, counts matrix instructions and barriers in the assembly, and
// prints the table `crest-compile --report` shows.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SERIALIZE_KERNELREPORT_H
#define CREST_SERIALIZE_KERNELREPORT_H

#include "crest/Target/ChipTable.h"
#include "crest/Target/Occupancy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace crest {

/// One kernel's entry of the `amdhsa.kernels` metadata.
struct KernelResources {
  std::string name;                     ///< .name
  unsigned vgprCount = 0;               ///< .vgpr_count (arch VGPRs, plus AGPRs
                                        ///< on chips with a unified file)
  unsigned agprCount = 0;               ///< .agpr_count
  unsigned sgprCount = 0;               ///< .sgpr_count
  unsigned vgprSpillCount = 0;          ///< .vgpr_spill_count
  unsigned sgprSpillCount = 0;          ///< .sgpr_spill_count
  uint64_t ldsBytes = 0;                ///< .group_segment_fixed_size
  uint64_t scratchBytes = 0;            ///< .private_segment_fixed_size
  unsigned wavefrontSize = 64;          ///< .wavefront_size
  unsigned maxFlatWorkgroupSize = 1024; ///< .max_flat_workgroup_size
  /// .reqd_workgroup_size (x * y * z), 0 when absent.
  unsigned requiredWorkgroupSize = 0;
  bool usesDynamicStack = false; ///< .uses_dynamic_stack

  /// Work-items of one workgroup: the required size when the kernel has
  /// one, else the largest it allows.
  unsigned getWorkgroupSize() const {
    return requiredWorkgroupSize ? requiredWorkgroupSize : maxFlatWorkgroupSize;
  }
};

/// What the ELF header and the metadata note of a code object say.
struct CodeObjectInfo {
  /// From EI_ABIVERSION: 4, 5 or 6.
  unsigned codeObjectVersion = 0;
  /// From e_flags; null when the chip is not in the chip table.
  const ChipInfo *chip = nullptr;
  std::vector<KernelResources> kernels;
};

/// Parses an AMDGPU HSA code object (ELF). Malformed input is an error.
llvm::Expected<CodeObjectInfo> readCodeObjectInfo(llvm::StringRef elf);

/// Static instruction counts of one kernel's body in AMDGPU assembly.
struct InstructionCounts {
  unsigned instructions = 0;
  /// v_mfma_*, v_smfmac_*, v_wmma_*, v_swmmac_*.
  unsigned matrix = 0;
  /// s_barrier, and s_barrier_signal on chips that split barriers.
  unsigned barriers = 0;
  bool found = false;
};

/// Counts the instructions between `kernel`'s label and its end in
/// `assembly` (comments, labels and directives excluded).
InstructionCounts countInstructions(llvm::StringRef assembly,
                                    llvm::StringRef kernel);

/// One row of the report.
struct KernelReport {
  std::string module;
  KernelResources resources;
  Occupancy occupancy;
  InstructionCounts counts;
};

/// Builds the rows of one compiled gpu.module.
llvm::Expected<std::vector<KernelReport>>
buildKernelReports(llvm::StringRef module, llvm::StringRef codeObject,
                   llvm::StringRef assembly, const ChipInfo &chip,
                   unsigned waveSize);

/// Prints the report table (see docs/Compiling.md for the columns).
void printKernelReports(llvm::raw_ostream &os,
                        llvm::ArrayRef<KernelReport> reports,
                        const ChipInfo &chip, unsigned waveSize,
                        unsigned codeObjectVersion);

} // namespace crest

#endif // CREST_SERIALIZE_KERNELREPORT_H
