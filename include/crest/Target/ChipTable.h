//===- ChipTable.h - Facts about AMD GPUs Crest targets ---------*- C++ -*-===//
//
// The chip table is Crest's single source of truth about hardware: wave size,
// LDS and register budgets, the fp8 flavour, and every matrix (MFMA/WMMA)
// instruction each chip has, with its shape, operand types and cycle count.
// Verifiers, config selection, lowering, the emulator and the generated docs
// all read it; nothing else in Crest may test a chip name.
//
// The table does not depend on MLIR so that the runtime and the emulator can
// use it too. `crest/Dialect/Crest/IR/CrestTypes.h` maps MLIR types onto
// `ScalarKind`.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TARGET_CHIPTABLE_H
#define CREST_TARGET_CHIPTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace crest {

/// The element types a matrix instruction reads or accumulates in. fp8 kinds
/// carry their flavour: FNUZ (gfx942) and OCP (gfx950, gfx12) are different
/// encodings of the same bit width and are never interchangeable.
enum class ScalarKind : uint8_t {
  F64,
  F32,
  XF32, ///< f32 operands multiplied at reduced (tf32-like) precision.
  F16,
  BF16,
  I32,
  I8,
  F8E4M3FNUZ, ///< CDNA3 "fp8" (FNUZ encoding).
  F8E5M2FNUZ, ///< CDNA3 "bf8" (FNUZ encoding).
  F8E4M3FN,   ///< OCP E4M3 "fp8".
  F8E5M2,     ///< OCP E5M2 "bf8".
};

/// Spelling used in diagnostics and docs, matching MLIR's builtin type names
/// ("f16", "bf16", "f8E4M3FNUZ", ...); XF32 prints as "xf32".
llvm::StringRef getScalarKindName(ScalarKind kind);
/// Width of one element in bits.
unsigned getScalarKindBits(ScalarKind kind);
bool isFloatKind(ScalarKind kind);
bool isFp8Kind(ScalarKind kind);

/// Which fp8 encoding a chip's matrix cores read.
enum class Fp8Flavour : uint8_t { None, FNUZ, OCP };
llvm::StringRef getFp8FlavourName(Fp8Flavour flavour);

enum class MmaKind : uint8_t { MFMA, WMMA };

/// How operands and accumulators are distributed over lanes; one family per
/// distinct layout scheme (the data in shared/mfma-layouts is the oracle).
enum class MmaLayoutFamily : uint8_t {
  CdnaMfma,  ///< CDNA1-4 MFMA (incl. multi-block forms).
  Rdna3Wmma, ///< RDNA3 WMMA: A/B replicated in lanes l and l+16.
  Rdna4Wmma, ///< RDNA4 WMMA: no replication, K split across half-waves.
};

/// What a CDNA MFMA does with its 3-bit BLGP field. The calculator's "blgp"
/// property (shared/mfma-layouts) says which instructions honour it; the
/// CDNA3 and CDNA4 ISA guides (section 7.1.6) repurpose it on f64 MFMAs as
/// negate bits, which LLVM prints as `neg:[a,b,c]`.
enum class MfmaBlgp : uint8_t {
  Unsupported, ///< Must be 0 (and WMMA, which has no such field).
  LanePattern, ///< Selects a B-matrix lane broadcast/rotate pattern.
  Negate,      ///< Bits 0, 1, 2 negate A, B and C.
};

/// One matrix instruction as a particular chip spells and times it.
struct MmaInstruction {
  /// The mnemonic in this chip's ISA (e.g. "v_mfma_f32_32x32x8_f16" on
  /// gfx942, "v_mfma_f32_32x32x8f16" on gfx90a).
  llvm::StringRef mnemonic;
  MmaKind kind;
  MmaLayoutFamily layout;
  unsigned m, n, k;
  /// Independent blocks computed at once (1 for the usual single-block forms).
  unsigned blocks;
  ScalarKind lhs, rhs, acc;
  /// Issue-to-issue cycles of one instruction. For CDNA, passes = cycles / 4.
  unsigned cycles;
  /// How the BLGP field is read (MFMA only).
  MfmaBlgp blgp = MfmaBlgp::Unsupported;

  /// Multiply-accumulate results per instruction: 2 * M * N * K * blocks ops.
  uint64_t getOps() const { return 2ull * m * n * k * blocks; }
  unsigned getPasses() const { return cycles / 4; }
  /// Accumulator elements held per lane for a wave of `waveSize` lanes.
  unsigned getAccElementsPerLane(unsigned waveSize) const {
    return m * n * blocks / waveSize;
  }
  /// A (lhs) elements held per lane (for WMMA on RDNA3 this counts the
  /// replicated copy, as the instruction reads it).
  unsigned getLhsElementsPerLane(unsigned waveSize) const;
};

/// Parameters of the emulator's timing model (runtime/emu/lib/timing,
/// docs/Timing.md) for one chip. ChipTable.cpp gives each one's source.
/// Core-side figures are in cycles of the chip's clock; memory-side
/// latencies in nanoseconds and bandwidths in GB/s, converted to cycles at
/// the effective clock.
struct TimingParams {
  // -- The device -----------------------------------------------------------
  unsigned computeUnits;
  /// Partitions with their own L2 (XCDs; 1 for one gfx90a GCD). Workgroup i
  /// is placed on partition i mod xcds.
  unsigned xcds;
  double peakClockMhz;
  /// The clock at which modelled cycles become microseconds: the sustained
  /// clock under dense matrix work.
  double effectiveClockMhz;
  /// Cost of one kernel launch in a stream of back-to-back launches.
  double launchOverheadUs;
  /// Cost of one kernel of a HIP graph replay (hipGraphLaunch): the kernels
  /// of a captured chain are submitted as one batch of dispatch packets.
  double graphLaunchOverheadUs;

  // -- Issue ------------------------------------------------------------------
  /// Cycles a wave64 VALU instruction occupies its SIMD's VALU (16 lanes x
  /// 4 passes), and a transcendental one (quarter rate).
  unsigned valuCycles;
  unsigned transCycles;
  /// Cycles before a wave can issue again after a taken branch (instruction
  /// buffer refill), and after s_barrier releases.
  unsigned branchCycles;
  unsigned barrierCycles;
  /// Scalar-cache hit latency of s_load / s_buffer_load.
  unsigned smemLatency;
  /// Cycles one unit of s_sleep's argument sleeps.
  unsigned sleepCyclesPerUnit;
  /// The largest vmcnt and lgkmcnt the wait counters hold: a wave with that
  /// many operations outstanding cannot issue another.
  unsigned maxVmcnt, maxLgkmcnt;

  // -- Software wait states (LLVM GCNHazardRecognizer) -----------------------
  /// An MFMA of N passes followed by a reader of its result needs N + offset
  /// wait states: as another MFMA's A/B, as a partially overlapping SrcC,
  /// and as a VALU, VMEM or LDS source (or a VALU overwriting it). XDL and
  /// non-XDL MFMAs differ where the chip distinguishes them.
  int xdlSrcABOffset, nonXdlSrcABOffset;
  int xdlSrcCOverlapOffset, nonXdlSrcCOverlapOffset;
  int xdlReadOffset, nonXdlReadOffset;
  /// A 2-pass MFMA's result read as exactly the same SrcC.
  unsigned srcCExactTwoPassWaitStates;
  /// A VALU result read by an MFMA.
  unsigned valuToMfmaWaitStates;
  /// A transcendental result read by a non-transcendental VALU.
  unsigned transUseWaitStates;
  /// Whether the f32-input MFMAs are XDL (all MFMAs but f64 on gfx90a; on
  /// gfx942 the f32 forms are not).
  bool f32MfmaIsXdl;

  // -- LDS ------------------------------------------------------------------
  /// Return latency of an LDS access without conflicts, on top of its data
  /// cycles; bytes per cycle of the CU's LDS and of one wave's access.
  unsigned ldsLatency;
  unsigned ldsBytesPerCycle;
  unsigned ldsBytesPerCycleWave;

  // -- Vector memory -------------------------------------------------------------
  unsigned cacheLineBytes;
  /// Associativity of the L1, L2 and MALL the model simulates.
  unsigned l1Ways, l2Ways, mallWays;
  unsigned l1Bytes;
  unsigned l1BytesPerCycle; ///< per CU
  /// Lane addresses the CU's texture addresser processes per cycle: a
  /// wave64 access takes at least 64 / this many cycles, whatever it
  /// reads.
  unsigned addressesPerCycle;
  double l1LatencyNs;
  uint64_t l2BytesPerXcd;
  unsigned l2BytesPerCyclePerXcd;
  double l2LatencyNs;
  uint64_t mallBytes; ///< Infinity Cache (MALL); 0 when there is none
  double mallGBps;
  double mallLatencyNs;
  double hbmGBps;
  double hbmLatencyNs;
  /// Loaded latency: an HBM request also waits hbmQueueNs x rho / (1 - rho),
  /// rho the utilisation of the CU's share of HBM bandwidth over the last
  /// hbmQueueWindowCycles, at most hbmQueueMaxUtilisation.
  double hbmQueueNs;
  unsigned hbmQueueWindowCycles;
  double hbmQueueMaxUtilisation;
};

/// One GPU target.
struct ChipInfo {
  llvm::StringRef name; ///< LLVM processor name, e.g. "gfx942".
  /// EF_AMDGPU_MACH_* value in the e_flags of this chip's code objects.
  unsigned elfMachine;
  llvm::StringRef architecture; ///< "CDNA3", "RDNA3", ...
  llvm::StringRef products;     ///< Marketing names, for docs and messages.
  unsigned defaultWaveSize;     ///< 64 on CDNA; 32 on RDNA.
  bool supportsWave32, supportsWave64;
  unsigned ldsBytesPerWorkgroup; ///< Largest LDS allocation of one workgroup.
  unsigned ldsBanks;             ///< 4-byte LDS banks.
  unsigned ldsAllocGranuleBytes;
  /// Architected VGPRs addressable by one lane of one wave.
  unsigned maxArchVgprs;
  /// Accumulation VGPRs (AGPRs) per lane; 0 when the chip has none.
  unsigned maxAccVgprs;
  /// On gfx90a and later the VGPR and AGPR files are one 512-entry file that
  /// a wave splits at ACCUM_OFFSET; on gfx908 they are separate files.
  bool unifiedVgprFile;
  /// Registers per lane in the SIMD's file that waves share for occupancy.
  unsigned vgprFilePerSimd;
  unsigned vgprAllocGranule;
  unsigned maxSgprsPerWave;
  unsigned maxWavesPerSimd;
  unsigned simdsPerComputeUnit;
  Fp8Flavour fp8;
  /// Whether MFMA C/D may live in architected VGPRs (false on gfx908).
  bool mmaAccInArchVgprs;
  /// Whether the f16 and bf16 MFMAs flush subnormal inputs and outputs to
  /// zero (ROCm MIOpen, "MI200 matrix fused multiply-add (MFMA) behavior
  /// specifics"; the CDNA3/CDNA4 ISA guides' section 7.4, as quoted in AMD's
  /// rocjitsu notes, has them preserved).
  bool mmaFlushesHalfDenormals;
  /// Whether the work-item IDs arrive packed in v0 (X | Y << 10 | Z << 20)
  /// rather than in v0, v1, v2 (LLVM's FeaturePackedTID).
  bool packedWorkItemIds;
  llvm::ArrayRef<MmaInstruction> mmaInstructions;
  /// The timing model's parameters; null where the emulator has no model.
  const TimingParams *timing = nullptr;

  bool hasMatrixCores() const { return !mmaInstructions.empty(); }
  bool supportsWaveSize(unsigned waveSize) const {
    return (waveSize == 32 && supportsWave32) ||
           (waveSize == 64 && supportsWave64);
  }
  /// `vgprFilePerSimd` and `vgprAllocGranule` are given for
  /// `defaultWaveSize`. The register file has a fixed size in bytes, so a
  /// wave twice as wide gets half as many registers per lane and half the
  /// granule (gfx1100: 1536 / 24 in wave32, 768 / 12 in wave64, as LLVM's
  /// getTotalNumVGPRs / getVGPRAllocGranule). `waveSize` must be supported.
  unsigned getVgprFilePerSimd(unsigned waveSize) const {
    return vgprFilePerSimd * defaultWaveSize / waveSize;
  }
  unsigned getVgprAllocGranule(unsigned waveSize) const {
    return vgprAllocGranule * defaultWaveSize / waveSize;
  }
  /// Looks up an instruction by this chip's mnemonic.
  const MmaInstruction *lookupMma(llvm::StringRef mnemonic) const;
  /// All instructions that multiply `lhs` by `rhs` accumulating in `acc`.
  llvm::SmallVector<const MmaInstruction *>
  findMma(ScalarKind lhs, ScalarKind rhs, ScalarKind acc) const;
};

/// Every chip Crest knows, in a stable order.
llvm::ArrayRef<ChipInfo> getAllChips();
/// Returns null for an unknown name.
const ChipInfo *lookupChip(llvm::StringRef name);
/// The chip whose code objects carry `elfMachine` (EF_AMDGPU_MACH_*) in
/// their ELF e_flags, or null.
const ChipInfo *lookupChipByElfMachine(unsigned elfMachine);
/// "gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1201", for diagnostics.
std::string getKnownChipNames();

/// Maps a chip and a requested wave size (0: the chip's default) to the
/// wave size to compile for. Returns 0 when the chip does not support the
/// requested size.
unsigned resolveWaveSize(const ChipInfo &chip, unsigned requested);

} // namespace crest

#endif // CREST_TARGET_CHIPTABLE_H
