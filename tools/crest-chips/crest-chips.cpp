//===- crest-chips.cpp - Print Crest's chip table
//----------------------------===//
//
// Prints the chip table as Markdown: one summary row per chip, then every
// matrix instruction of each chip. docs/reference/ChipTable.md is this
// tool's output (scripts/gen-docs.sh).
//
//   crest-chips                 # every chip
//   crest-chips --chip=gfx942   # one chip
//
//===----------------------------------------------------------------------===//

#include "crest/Target/ChipTable.h"
#include "crest/ToolVersion.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace crest;

static cl::opt<std::string>
    chipFilter("chip", cl::desc("Print only this chip (e.g. gfx942)"),
               cl::value_desc("name"));

static cl::opt<bool> timingOnly(
    "timing",
    cl::desc("Print the timing model's device figures instead (one line per "
             "chip that has them): CUs, effective clock, the f16 matrix peak "
             "at that clock, HBM bandwidth and their ratio, the roofline "
             "ridge"));

/// `chip: cus=.. effective_mhz=.. f16_peak_tflops=.. hbm_gbps=..
/// ridge_flop_per_byte=..`, from the chip table's instructions and timing
/// parameters (docs/Timing.md).
static void printTiming(raw_ostream &os, const ChipInfo &chip) {
  if (!chip.timing)
    return;
  const TimingParams &p = *chip.timing;
  uint64_t f16PerCycle = 0;
  for (const MmaInstruction &mma : chip.mmaInstructions)
    if (mma.lhs == ScalarKind::F16 && mma.blocks == 1)
      f16PerCycle = std::max<uint64_t>(
          f16PerCycle, mma.getOps() * chip.simdsPerComputeUnit / mma.cycles);
  double peak = double(f16PerCycle) * p.computeUnits * p.effectiveClockMhz * 1e6;
  os << chip.name << ": cus=" << p.computeUnits
     << " effective_mhz=" << formatv("{0:F0}", p.effectiveClockMhz)
     << " f16_flop_per_cycle_per_cu=" << f16PerCycle
     << " f16_peak_tflops=" << formatv("{0:F1}", peak / 1e12)
     << " hbm_gbps=" << formatv("{0:F0}", p.hbmGBps)
     << " l1_bytes_per_cycle_per_cu=" << p.l1BytesPerCycle
     << " ridge_flop_per_byte="
     << formatv("{0:F1}", peak / (p.hbmGBps * 1e9)) << "\n";
}

static void printSummary(raw_ostream &os, ArrayRef<const ChipInfo *> chips) {
  os << "| chip | architecture | products | wave sizes | LDS per workgroup "
        "| arch VGPRs | AGPRs | VGPR file per SIMD | waves per SIMD | SGPRs "
        "| fp8 | matrix instructions |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
        "--- |\n";
  for (const ChipInfo *chip : chips) {
    std::string waves;
    if (chip->supportsWave32)
      waves += chip->defaultWaveSize == 32 ? "**32**" : "32";
    if (chip->supportsWave64)
      waves += std::string(waves.empty() ? "" : ", ") +
               (chip->defaultWaveSize == 64 ? "**64**" : "64");
    os << "| " << chip->name << " | " << chip->architecture << " | "
       << chip->products << " | " << waves << " | "
       << chip->ldsBytesPerWorkgroup / 1024 << " KiB | " << chip->maxArchVgprs
       << " | " << chip->maxAccVgprs << " | "
       << chip->getVgprFilePerSimd(chip->defaultWaveSize)
       << (chip->unifiedVgprFile ? " (unified)" : "") << " | "
       << chip->maxWavesPerSimd << " | " << chip->maxSgprsPerWave << " | "
       << getFp8FlavourName(chip->fp8) << " | " << chip->mmaInstructions.size()
       << " |\n";
  }
}

static void printInstructions(raw_ostream &os, const ChipInfo &chip) {
  os << "\n## " << chip.name << " (" << chip.architecture << ")\n\n"
     << "| instruction | M×N×K | blocks | lhs | rhs | acc | cycles | "
        "ops/cycle/CU |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const MmaInstruction &mma : chip.mmaInstructions) {
    uint64_t opsPerCycle = mma.getOps() * chip.simdsPerComputeUnit / mma.cycles;
    os << "| `" << mma.mnemonic << "` | " << mma.m << "×" << mma.n << "×"
       << mma.k << " | " << mma.blocks << " | " << getScalarKindName(mma.lhs)
       << " | " << getScalarKindName(mma.rhs) << " | "
       << getScalarKindName(mma.acc) << " | " << mma.cycles << " | "
       << opsPerCycle << " |\n";
  }
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  crest::setToolVersionPrinter();
  cl::ParseCommandLineOptions(argc, argv, "Crest chip table printer\n");

  SmallVector<const ChipInfo *> chips;
  if (chipFilter.empty()) {
    for (const ChipInfo &chip : getAllChips())
      chips.push_back(&chip);
  } else if (const ChipInfo *chip = lookupChip(chipFilter)) {
    chips.push_back(chip);
  } else {
    WithColor::error(errs(), "crest-chips")
        << "unknown chip '" << chipFilter
        << "'; known chips: " << getKnownChipNames() << "\n";
    return 1;
  }

  raw_ostream &os = outs();
  if (timingOnly) {
    for (const ChipInfo *chip : chips)
      printTiming(os, *chip);
    return 0;
  }
  os << "# Chip table\n\n"
     << "Generated by `crest-chips` from `lib/Target/ChipTable.cpp`; do not "
        "edit.\nThe native wave size is in bold. Cycles are issue-to-issue "
        "cycles of one instruction\n(CDNA passes = cycles / 4); ops/cycle/CU "
        "= 2·M·N·K·blocks × SIMDs per CU / cycles.\n\n";
  printSummary(os, chips);
  for (const ChipInfo *chip : chips)
    printInstructions(os, *chip);
  return 0;
}
