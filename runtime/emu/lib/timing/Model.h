//===- Model.h - Timing model internals -------------------------*- C++ -*-===//
//
// The pieces of the timing model (crest/emu/Timing.h) and how they meet:
//
//   Classify.cpp  what each decoded instruction is to the model (its issue
//                 category, pipe, counters, registers, wait-state rules);
//   Recorder.cpp  the per-wave record of what the functional core executed,
//                 with the cache level of every memory line (an L1 per CU,
//                 an L2 per XCD, the MALL, HBM) and LDS bank conflicts;
//   CuModel.cpp   the cycle-stepped replay of the waves resident on one CU;
//   GridModel.cpp occupancy, placement, sampling and the grid's time;
//   Report.cpp    the reports and the Perfetto trace.
//
// Nothing here holds a hardware constant: every figure comes from the chip
// table's TimingParams.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_EMU_LIB_TIMING_MODEL_H
#define CREST_EMU_LIB_TIMING_MODEL_H

#include "crest/emu/Timing.h"
#include "crest/Target/ChipTable.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace crest::emu {
struct LaunchConfig;
class Program;
struct Inst;
class Wave;
} // namespace crest::emu

namespace crest::emu::timing {

//===----------------------------------------------------------------------===//
// Instructions as the model sees them
//===----------------------------------------------------------------------===//

enum class InstClass : uint8_t {
  Salu,
  Smem,
  Valu,
  Trans, ///< transcendental VALU (quarter rate)
  Mfma,
  VmemLoad,
  VmemStore, ///< stores and atomics without return
  Lds,
  Branch,
  Waitcnt,
  Barrier,
  Nop,
  Sleep,
  SetPrio,
  EndPgm,
  Other, ///< s_sendmsg, s_dcache_*, ...: a scalar issue slot
};

/// The issue categories of the CU's arbiter: at most one instruction of
/// each per cycle, each from a different wave.
enum class Category : uint8_t { Valu, Salu, Vmem, Lds, Branch, None };

/// What kind of MFMA produced a register, for the wait-state rules.
enum class MfmaKind : uint8_t { None, Xdl, NonXdl, Dgemm };

struct RegRange {
  uint16_t first = 0;
  uint8_t count = 0;
  bool overlaps(const RegRange &o) const {
    return count && o.count && first < o.first + o.count &&
           o.first < first + count;
  }
  bool operator==(const RegRange &o) const {
    return first == o.first && count == o.count;
  }
};

struct StaticInst {
  InstClass cls = InstClass::Other;
  Category category = Category::Salu;
  /// MFMA: pipe cycles (passes x 4), its kind and passes.
  uint16_t mfmaCycles = 0;
  uint8_t passes = 0;
  MfmaKind mfmaKind = MfmaKind::None;
  /// MFMA: multiply-add operations (2 x M x N x K x blocks).
  uint64_t flops = 0;
  /// s_nop N: N; s_sleep N: N; s_setprio N: N.
  uint16_t imm = 0;
  /// s_waitcnt thresholds (kNoWait when the field does not wait).
  static constexpr uint16_t kNoWait = 0xffff;
  uint16_t waitVm = kNoWait, waitLgkm = kNoWait;
  /// Whether the instruction counts in vmcnt / lgkmcnt.
  bool countsVm = false, countsLgkm = false;
  /// VGPRs (unified file) read and written; for an MFMA, srcAB are A and
  /// B, srcC the accumulator input.
  llvm::SmallVector<RegRange, 4> reads;
  llvm::SmallVector<RegRange, 2> writes;
  RegRange srcAB[2], srcC;
};

/// Classifies every instruction of `program` for `chip`.
std::vector<StaticInst> classifyProgram(const Program &program,
                                        const ChipInfo &chip);

//===----------------------------------------------------------------------===//
// Traces
//===----------------------------------------------------------------------===//

enum Level : uint8_t { L1 = 0, L2 = 1, Mall = 2, Hbm = 3 };

/// One executed instruction of one wave.
struct Record {
  uint32_t pc = 0;
  /// VMEM and LDS: bytes the active lanes accessed.
  uint32_t bytes = 0;
  /// LDS: extra cycles from bank conflicts (the emulator's bank model).
  uint16_t conflictCycles = 0;
  /// VMEM: active lanes.
  uint8_t lanes = 0;
  /// VMEM: distinct cache lines by the level that served them.
  std::array<uint16_t, 4> lines = {};
};

struct WaveTrace {
  std::vector<Record> records;
  // The instruction being executed: filled by the functional core's
  // memory and LDS paths, turned into a Record by Recorder::commit.
  llvm::SmallVector<uint64_t, 64> pendingLines;
  uint32_t pendingBytes = 0;
  uint32_t pendingConflict = 0;

  void noteGlobal(uint64_t address, uint32_t size, unsigned lineShift) {
    uint64_t first = address >> lineShift;
    uint64_t last = (address + (size ? size - 1 : 0)) >> lineShift;
    for (uint64_t line = first; line <= last; ++line)
      pendingLines.push_back(line);
    pendingBytes += size;
  }
  void noteLds(uint32_t bytes, uint32_t conflict) {
    pendingBytes += bytes;
    pendingConflict += conflict;
  }
};

struct WorkgroupTrace {
  uint64_t linear = 0;
  std::array<uint32_t, 3> id = {};
  std::vector<std::unique_ptr<WaveTrace>> waves;
};

/// A set-associative LRU cache of line addresses (its arrays allocated on
/// the first access).
class CacheSim {
public:
  CacheSim() = default;
  CacheSim(uint64_t bytes, unsigned lineBytes, unsigned ways);
  bool enabled() const { return sets > 0; }
  /// Looks `line` up and inserts it; returns whether it hit.
  bool access(uint64_t line);
  /// Forgets every line.
  void clear();

private:
  unsigned ways = 1;
  uint64_t sets = 0;
  uint64_t clock = 0;
  std::vector<uint64_t> tags; ///< line + 1; 0 is empty
  std::vector<uint64_t> stamps;
};

/// The caches of one device, kept by the Emulator across launches: the L2s
/// and the MALL keep what earlier kernels left (as on the hardware, where
/// a kernel's outputs stay in L2 for the next one); the L1s are invalidated
/// at each launch.
struct CacheState {
  CacheState(const ChipInfo &chip, const TimingParams &params);
  const ChipInfo *chip;
  std::vector<CacheSim> l1, l2;
  CacheSim mall;
  /// Called at the start of each launch.
  void beginLaunch();
};

/// Placement of workgroups on compute units: workgroup i goes to XCD
/// i mod X and, within it, to CU (i / X) mod (CUs per XCD), so a grid's
/// first round fills every CU once before any gets a second workgroup.
struct Placement {
  unsigned computeUnits = 1, xcds = 1;
  unsigned cusPerXcd() const { return computeUnits / xcds; }
  unsigned xcdOf(uint64_t linear) const { return unsigned(linear % xcds); }
  unsigned cuOf(uint64_t linear) const {
    return xcdOf(linear) * cusPerXcd() +
           unsigned((linear / xcds) % cusPerXcd());
  }
  /// The `k`-th workgroup (from 0) the placement gives CU `cu`.
  uint64_t workgroupOf(unsigned cu, uint64_t k) const {
    unsigned xcd = cu / cusPerXcd(), slot = cu % cusPerXcd();
    return (k * cusPerXcd() + slot) * xcds + xcd;
  }
};

/// Occupancy and sampling decisions for one dispatch, made before it runs.
struct GridPlan {
  Placement placement;
  uint64_t workgroups = 0;
  unsigned wavesPerWorkgroup = 0;
  unsigned wavesPerSimd = 0;
  unsigned workgroupsPerCu = 0;
  std::string limiter;
  bool whole = true;
  /// Sampled grids: the replayed CU and how many of its workgroups.
  unsigned sampleCu = 0;
  uint64_t sampleCount = 0;
  bool sampleOnly = false;

  /// Whether workgroup `linear` is recorded, and whether it is executed.
  bool traces(uint64_t linear) const;
  bool executes(uint64_t linear) const;
};

/// Decides occupancy and what to record for a dispatch of `program`.
GridPlan planGrid(const Program &program, const LaunchConfig &config,
                  const TimingOptions &options, uint64_t dynamicLds);

/// Records what the functional core executes, for the dispatch.
class Recorder {
public:
  Recorder(const Program &program, const TimingParams &params,
           const TimingOptions &options, GridPlan plan, CacheState &caches);
  ~Recorder();

  const GridPlan &getPlan() const { return plan; }
  unsigned getLineShift() const { return lineShift; }
  /// The trace of workgroup `linear`'s wave `wave`, or null when the
  /// workgroup is not recorded (the caches still see its accesses through
  /// noteUntraced).
  WaveTrace *beginWave(uint64_t linear, std::array<uint32_t, 3> id,
                       unsigned wave);
  /// Turns the instruction `pc` the wave just executed into a record.
  /// Returns false once the dispatch has recorded more than
  /// TimingOptions::maxRecords instructions.
  bool commit(WaveTrace &trace, uint64_t linear, uint32_t pc,
              unsigned activeLanes);

  /// Computes the timing of the dispatch from the records.
  KernelTiming finish(const ChipInfo &chip);

  /// Per-instruction classes, shared with the replay.
  const std::vector<StaticInst> &getCode() const { return code; }

private:
  void classifyLines(WaveTrace &trace, uint64_t linear, bool store,
                     Record &record);

  const Program &program;
  const TimingParams &params;
  TimingOptions options;
  GridPlan plan;
  std::vector<StaticInst> code;
  unsigned lineShift = 7;
  CacheState &caches;
  std::vector<std::unique_ptr<WorkgroupTrace>> workgroups;
  uint64_t recorded = 0;
  /// Every workgroup's waves record into these when the workgroup is not
  /// traced (their accesses still warm the caches).
  WaveTrace scratch;
  /// Wave instructions each workgroup executed, indexed by linear ID: kept
  /// for sampled grids whose every workgroup runs (not --timing-only), so
  /// that workgroups of unequal work are composed by what they did.
  std::vector<uint64_t> workgroupInstructions;
};

/// The cycles a grid of workgroups with `instructions` wave instructions
/// each (in dispatch order) takes on `computeUnits` CUs that each retire
/// `cyclesPerInstruction`: every workgroup goes to the CU whose queue ends
/// first, as the dispatcher hands work to the CU that frees a slot.
double balancedGridCycles(llvm::ArrayRef<uint64_t> instructions,
                          unsigned computeUnits, double cyclesPerInstruction);

//===----------------------------------------------------------------------===//
// The replay of one compute unit
//===----------------------------------------------------------------------===//

struct CuInput {
  const std::vector<StaticInst> *code = nullptr;
  std::vector<const WorkgroupTrace *> workgroups; ///< in dispatch order
  unsigned slots = 1; ///< workgroups resident at once
  /// This CU's share of each level's bandwidth, in bytes per cycle.
  double l2BytesPerCycle = 0, mallBytesPerCycle = 0, hbmBytesPerCycle = 0;
  /// Latencies in cycles.
  unsigned l1Latency = 0, l2Latency = 0, mallLatency = 0, hbmLatency = 0;
  /// The HBM queueing constant, in cycles.
  double hbmQueueCycles = 0;
  bool perPc = false, timeline = false;
};

struct CuResult {
  uint64_t endCycle = 0;
  std::vector<uint64_t> workgroupEnd; ///< per input workgroup
  uint64_t waveCycles = 0, issueCycles = 0;
  std::array<uint64_t, kNumStalls> stallCycles = {};
  uint64_t instructions = 0;
  uint64_t mfmaBusyCycles = 0, mfmaInstructions = 0;
  uint64_t ldsBusyCycles = 0, ldsConflictCycles = 0;
  /// Cycles the CU's L2/MALL/HBM share was busy (bandwidth-bound signal).
  std::array<uint64_t, 4> serverBusyCycles = {};
  /// Cycles the CU's texture path (vector memory addresser and L1 data
  /// return) was busy: the L1's bandwidth, a bandwidth-bound signal too.
  uint64_t vmemPathBusyCycles = 0;
  std::vector<uint64_t> pcIssued;
  std::vector<std::array<uint64_t, kNumStalls>> pcStalls;
  std::vector<Hazard> hazards;
  std::vector<TimelineEvent> timeline;
};

CuResult replayCu(const CuInput &input, const TimingParams &params,
                  const ChipInfo &chip, const Program &program);

} // namespace crest::emu::timing

#endif // CREST_EMU_LIB_TIMING_MODEL_H
