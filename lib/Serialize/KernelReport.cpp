//===- KernelReport.cpp - What a compiled kernel uses ---------------------===//

#include "crest/Serialize/KernelReport.h"
#include "crest/Target/MmaLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace crest;
using namespace llvm;

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

InstructionCounts crest::countInstructions(StringRef assembly,
                                           StringRef kernel) {
  InstructionCounts counts;
  SmallVector<StringRef> lines;
  assembly.split(lines, '\n');
  bool inKernel = false;
  for (StringRef line : lines) {
    StringRef code = line.split(';').first.trim();
    if (!inKernel) {
      // The kernel's entry label: "name:" (the comment after it is gone).
      if (code.consume_back(":") && code == kernel) {
        inKernel = true;
        counts.found = true;
      }
      continue;
    }
    if (code.starts_with(".Lfunc_end"))
      break;
    if (code.empty() || code.starts_with(".") || code.ends_with(":"))
      continue;
    StringRef mnemonic = code.take_until(llvm::isSpace);
    ++counts.instructions;
    if (mma::isMatrixMnemonic(mnemonic))
      ++counts.matrix;
    if (mnemonic == "s_barrier" || mnemonic.starts_with("s_barrier_signal"))
      ++counts.barriers;
  }
  return counts;
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

Expected<std::vector<KernelReport>>
crest::buildKernelReports(StringRef module, StringRef codeObject,
                          StringRef assembly, const ChipInfo &chip,
                          unsigned waveSize) {
  Expected<hsa::CodeObject> object =
      hsa::CodeObject::load(arrayRefFromStringRef(codeObject),
                            "code object of gpu.module @" + module.str());
  if (!object)
    return object.takeError();
  std::vector<KernelReport> reports;
  for (const hsa::Kernel &kernel : object->getKernels()) {
    KernelReport report;
    report.module = module.str();
    report.occupancy = computeOccupancy(
        chip, kernel.wavefrontSize ? kernel.wavefrontSize : waveSize,
        kernel.vgprCount, kernel.agprCount, kernel.groupSegmentFixedSize,
        kernel.getWorkgroupSize());
    report.counts = countInstructions(assembly, kernel.name);
    if (!report.counts.found)
      return makeError("kernel '" + kernel.name +
                       "' is not in the assembly of gpu.module @" + module);
    report.resources = kernel;
    report.resources.code.clear(); // the report needs no code bytes
    reports.push_back(std::move(report));
  }
  return reports;
}

void crest::printKernelReports(raw_ostream &os, ArrayRef<KernelReport> reports,
                               const ChipInfo &chip, unsigned waveSize,
                               unsigned codeObjectVersion) {
  StringRef matrixColumn = "mma";
  if (chip.hasMatrixCores())
    matrixColumn =
        chip.mmaInstructions.front().kind == MmaKind::MFMA ? "mfma" : "wmma";
  os << "crest-compile report: " << chip.name << " (" << chip.architecture
     << "), wave" << waveSize << ", code object v" << codeObjectVersion << "\n";

  SmallVector<std::string> header = {
      "kernel", "module",           "vgpr",       "agpr",       "sgpr",
      "lds",    "scratch",          "vgpr-spill", "sgpr-spill", "waves/SIMD",
      "limit",  matrixColumn.str(), "barriers"};
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back(header);
  for (const KernelReport &report : reports) {
    const hsa::Kernel &r = report.resources;
    rows.push_back(
        {r.name, report.module, std::to_string(r.vgprCount),
         std::to_string(r.agprCount), std::to_string(r.sgprCount),
         std::to_string(r.groupSegmentFixedSize),
         std::to_string(r.privateSegmentFixedSize),
         std::to_string(r.vgprSpillCount), std::to_string(r.sgprSpillCount),
         std::to_string(report.occupancy.wavesPerSimd),
         report.occupancy.limiter.str(), std::to_string(report.counts.matrix),
         std::to_string(report.counts.barriers)});
  }
  SmallVector<size_t> widths(header.size(), 0);
  for (const auto &row : rows)
    for (auto [index, cell] : llvm::enumerate(row))
      widths[index] = std::max(widths[index], cell.size());
  for (const auto &row : rows) {
    std::string line;
    for (auto [index, cell] : llvm::enumerate(row)) {
      // Names left-aligned, numbers right-aligned.
      bool left = index < 2 || index == 10;
      size_t pad = widths[index] - cell.size();
      if (index)
        line += "  ";
      if (!left)
        line.append(pad, ' ');
      line += cell;
      if (left && index + 1 < row.size())
        line.append(pad, ' ');
    }
    os << StringRef(line).rtrim() << "\n";
  }
}
