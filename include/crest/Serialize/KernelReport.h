//===- KernelReport.h - What a compiled kernel uses -------------*- C++ -*-===//
//
// Reads the resource usage of every kernel from a code object's metadata
// note (registers, LDS, scratch, spills) with the shared code-object reader
// (crest/Format/CodeObject.h), derives the occupancy from the chip table
// (crest/Target/Occupancy.h), counts matrix instructions and barriers in the
// assembly, and prints the table `crest-compile --report` shows.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_SERIALIZE_KERNELREPORT_H
#define CREST_SERIALIZE_KERNELREPORT_H

#include "crest/Format/CodeObject.h"
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

/// Static instruction counts of one kernel's body in AMDGPU assembly.
struct InstructionCounts {
  unsigned instructions = 0;
  /// v_mfma_*, v_smfmac_*, v_wmma_*, v_swmmac_* (mma::isMatrixMnemonic).
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
  /// The kernel as the code object describes it (metadata and descriptor).
  hsa::Kernel resources;
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
