//===- Timing.h - The emulator's cycle-approximate timing model -*- C++ -*-===//
//
// Beside the instruction semantics, the emulator can say how long a dispatch
// would take on the chip. The functional core records, per wave, the
// instructions it executed (with the cache level each memory line would hit
// and the LDS bank conflicts of each access); the model replays the waves
// resident on a compute unit in a cycle-stepped loop (issue arbitration,
// MFMA pipes, software wait states, LDS pipe, memory latency and per-CU
// bandwidth shares, wait counters, barriers) and composes the grid
// (occupancy, rounds of workgroups over the compute units, launch
// overhead). Every parameter comes from the chip table
// (crest::TimingParams), with its source. docs/Timing.md describes the
// model, its parameters, what it leaves out and how it was validated.
//
//   LaunchConfig config;
//   config.timing = TimingOptions();
//   Expected<LaunchResult> r = emu.launch(program, kernargs, config);
//   printTiming(outs(), *r->timing);
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_TIMING_H
#define CREST_EMU_TIMING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace crest {
struct ChipInfo;
} // namespace crest

namespace crest::emu {

class Program;

/// What the timing model is asked for on one launch.
struct TimingOptions {
  /// Keep per-instruction statistics (`--timing=pc`).
  bool perPc = false;
  /// Keep the modelled timeline of the simulated compute unit (waves,
  /// SIMDs, workgroups) for a Perfetto trace.
  bool timeline = false;
  /// Grids of at most this many workgroups are simulated whole: every
  /// compute unit that receives a workgroup is replayed. Larger grids are
  /// sampled: the busiest compute unit's first `sampleWorkgroups`
  /// workgroups are replayed and the rest of its list is extrapolated from
  /// the steady-state time per workgroup (the report says so).
  unsigned wholeGridLimit = 512;
  unsigned sampleWorkgroups = 0; ///< 0: three rounds of the CU's slots.
  /// Execute only the workgroups the model replays. The outputs of the
  /// others are not computed: for projecting the time of large grids
  /// quickly (crest-emu --timing-only), never for results.
  bool sampleOnly = false;
  /// Effective clock in MHz; 0 takes the chip table's.
  double clockMhz = 0;
  /// The dispatch fails once the model has recorded this many wave
  /// instructions (about 20 bytes each), instead of exhausting memory.
  uint64_t maxRecords = uint64_t(1) << 26;
};

/// Why a resident wave did not issue at one of its SIMD's issue cycles,
/// after rocprofiler's PC-sampling reasons.
enum class Stall : uint8_t {
  Dependency,    ///< a software wait state (MFMA/VALU result) not yet met
  WaitcntMemory, ///< s_waitcnt on vmcnt (global/buffer/scratch)
  WaitcntLds,    ///< s_waitcnt on lgkmcnt (LDS, scalar memory)
  Barrier,       ///< parked at s_barrier
  Arbitration,   ///< ready, but another wave won the category's issue slot
  PipeBusy,      ///< won the slot, but the MFMA/VALU/LDS/VMEM pipe was busy
  NoInstruction, ///< instruction buffer empty after a taken branch or start
  Sleep,         ///< s_nop, s_sleep
  Count
};
constexpr unsigned kNumStalls = unsigned(Stall::Count);
llvm::StringRef getStallName(Stall stall);

/// Per-instruction statistics (`--timing=pc`), summed over the simulated
/// waves.
struct PcStats {
  uint64_t address = 0;
  std::string disassembly;
  uint64_t issued = 0;
  /// Wave-cycles this instruction was the next one to issue but could not,
  /// by reason.
  std::array<uint64_t, kNumStalls> stallCycles = {};
  uint64_t totalStallCycles() const;
};

/// A software wait-state rule the code broke: the hardware would read a
/// stale value. The model stalls the consumer as the rule requires, so the
/// time is that of the corrected code.
struct Hazard {
  uint64_t address = 0;         ///< PC of the consumer
  uint64_t producerAddress = 0; ///< PC of the producer
  std::string rule;             ///< e.g. "XDL write VGPR -> VALU read"
  unsigned required = 0, actual = 0; ///< wait states
  uint64_t count = 0;                ///< dynamic occurrences
};

/// One slice of the modelled timeline (Chrome trace "X" events).
struct TimelineEvent {
  std::string name;     ///< "workgroup (3, 0, 0)", "MFMA", "barrier", ...
  std::string category; ///< "workgroup", "wave", "simd"
  unsigned track = 0;   ///< wave slot, SIMD or workgroup slot
  uint64_t begin = 0, duration = 0; ///< cycles
};

/// The modelled time of one dispatch.
struct KernelTiming {
  std::string chip;
  double clockMhz = 0;
  /// Cycles from the first wave launched to the last wave ended, and the
  /// same in microseconds at `clockMhz`, without the launch overhead.
  uint64_t cycles = 0;
  double microseconds = 0;
  /// What launching the kernel costs on top (back-to-back launches).
  double launchOverheadUs = 0;
  double totalMicroseconds() const { return microseconds + launchOverheadUs; }
  /// What bounds the time: "MFMA", "issue", "LDS", "memory latency",
  /// "bandwidth", "barrier", "launch".
  std::string bound;
  std::string boundReason;

  // Rates (rocprofiler-compute's definitions, over the replayed CUs).
  /// SQ_VALU_MFMA_BUSY_CYCLES / (SIMDs x CUs x cycles), over the grid.
  double mfmaUtilization = 0;
  uint64_t mfmaBusyCycles = 0; ///< summed over the grid's SIMDs
  uint64_t mfmaInstructions = 0;
  double flops = 0; ///< matrix FLOPs of the whole grid
  /// Fraction of the CU's cycles its LDS pipe was busy, and bank-conflict
  /// cycles over LDS busy cycles (SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE).
  double ldsUtilization = 0;
  double ldsBankConflictRate = 0;
  /// Instructions issued per cycle per replayed CU.
  double ipc = 0;

  // Stalls: wave-cycles of the replayed waves (SQ_WAVE_CYCLES), the cycles
  // they issued in (SQ_ACTIVE_INST_ANY-like) and the rest by reason.
  uint64_t waveCycles = 0;
  uint64_t issueCycles = 0;
  std::array<uint64_t, kNumStalls> stallCycles = {};

  // Memory, over the whole grid (extrapolated when sampled).
  uint64_t bytesLoaded = 0, bytesStored = 0;
  /// Cache lines by the level that served them: L1, L2, MALL, HBM.
  std::array<uint64_t, 4> linesByLevel = {};
  uint64_t hbmBytes = 0;

  // Occupancy and the grid.
  unsigned wavesPerWorkgroup = 0;
  unsigned wavesPerSimd = 0;
  unsigned workgroupsPerCu = 0;
  std::string occupancyLimiter;
  uint64_t workgroups = 0;
  unsigned activeCus = 0;
  unsigned rounds = 0;
  /// What was replayed and why the rest is equivalent.
  std::string sampling;
  uint64_t simulatedWorkgroups = 0;

  std::vector<PcStats> perPc;
  std::vector<Hazard> hazards;
  std::vector<TimelineEvent> timeline;
};

/// Prints the per-kernel summary (cycles, µs, bound, utilisation, stalls,
/// LDS, memory, occupancy, sampling); see docs/Timing.md.
void printTiming(llvm::raw_ostream &os, const KernelTiming &timing);
/// Prints the per-instruction hotspot table, hottest first, at most
/// `maxRows` rows (0: all).
void printPcTable(llvm::raw_ostream &os, const KernelTiming &timing,
                  unsigned maxRows = 40);

/// Chrome/Perfetto trace (JSON array format) events.
struct TraceEvent {
  std::string name, category;
  unsigned pid = 0, tid = 0;
  double beginUs = 0, durationUs = 0;
};
/// Appends `timing`'s timeline as events of process `pid` starting at
/// `offsetUs`.
void appendTimelineEvents(std::vector<TraceEvent> &events,
                          const KernelTiming &timing, unsigned pid,
                          double offsetUs);
/// Writes `events` as a JSON trace that ui.perfetto.dev and
/// chrome://tracing open; `processNames` names the pids.
void writeTraceJson(llvm::raw_ostream &os,
                    const std::vector<TraceEvent> &events,
                    const std::vector<std::string> &processNames);

} // namespace crest::emu

#endif // CREST_EMU_TIMING_H
