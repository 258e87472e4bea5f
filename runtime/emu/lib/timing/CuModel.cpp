//===- CuModel.cpp - Cycle-stepped replay of one compute unit -------------===//
//
// The waves of the workgroups a compute unit runs are replayed from their
// records, cycle by cycle:
//
// - Issue: at cycle t the CU's arbiter serves SIMD t mod 4. Its waves are
//   considered by priority (s_setprio), oldest first; each may issue one
//   instruction, and at most one instruction of each category (VALU/MFMA,
//   SALU/SMEM, VMEM, LDS, branch/message) issues per cycle.
// - Pipes: a VALU occupies its SIMD's VALU for valuCycles (transCycles for
//   transcendentals), an MFMA its SIMD's matrix pipe for its passes x 4;
//   one LDS pipe per CU takes max(bytes / LDS bandwidth, bank cycles) per
//   instruction; the CU's texture path takes one line per l1BytesPerCycle.
// - Latencies: LDS returns after its data cycles plus ldsLatency; VMEM
//   after the latency of the slowest level among its lines, behind this
//   CU's share of the L2, MALL and HBM bandwidth (a queue per level).
//   vmcnt and lgkmcnt count down in order.
// - Wait states: the software rules of the chip (TimingParams) are checked
//   per wave on MFMA and VALU results; a consumer that comes too early is a
//   hazard (reported) and is held back as the rule requires.
// - s_barrier releases when every live wave of the workgroup reached it;
//   s_nop N holds the wave for N more issue cycles; s_sleep N for
//   sleepCyclesPerUnit x N cycles; a taken branch for branchCycles.
//
// Workgroups are dispatched in order as slots free up.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "crest/emu/Program.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <deque>

using namespace llvm;
using namespace crest;
using namespace crest::emu;
using namespace crest::emu::timing;

namespace {

constexpr uint64_t kNever = ~uint64_t(0);

/// The last writer of a VGPR, for the wait-state rules.
struct RegWriter {
  uint64_t waitState = 0; ///< the wave's wait-state count at the issue
  uint64_t cycle = 0;
  uint32_t pc = 0;
  uint8_t passes = 0;
  MfmaKind kind = MfmaKind::None; ///< None: a VALU
  bool trans = false;
  bool valid = false;
  RegRange dst, srcC;
};

struct WaveState {
  const WaveTrace *trace = nullptr;
  size_t next = 0;
  unsigned simd = 0;
  unsigned wgSlot = 0;
  uint64_t age = 0;
  int prio = 0;
  uint64_t start = 0;
  /// Cannot issue before this cycle, for `blockReason`.
  uint64_t readyAt = 0;
  Stall blockReason = Stall::NoInstruction;
  /// The instruction that set readyAt or parked the wave (stalls while
  /// blocked are charged to it: s_barrier, s_nop, the taken branch).
  uint32_t blockPc = 0;
  bool atBarrier = false, done = false;
  /// One wave's LDS accesses move at most ldsBytesPerCycleWave.
  uint64_t ldsFreeAt = 0;
  std::deque<uint64_t> vm, lgkm;
  uint64_t lastVm = 0, lastLgkm = 0;
  uint64_t waitStates = 0;
  std::vector<RegWriter> writers;
  /// MFMA SrcC reads (for the WAR rule): the reader per register.
  std::vector<RegWriter> srcCReaders;
  /// The cycle the next instruction's wait states are met, computed once
  /// per instruction (kNever: not yet computed).
  uint64_t depReadyAt = kNever;
};

struct WorkgroupState {
  size_t input = 0; ///< index in CuInput::workgroups
  std::vector<unsigned> waves;
  unsigned live = 0, atBarrier = 0;
  uint64_t start = 0;
};

/// A bandwidth share: bytes are served in arrival order at `rate` bytes
/// per cycle. With a queueing constant, a request also waits
/// queue x rho / (1 - rho), rho the share's utilisation over the last
/// `window` cycles, at most `maxUtilisation` (the loaded latency of DRAM).
struct Server {
  double rate = 0;
  double queue = 0;
  double window = 1;
  double maxUtilisation = 0;
  double freeAt = 0;
  double busy = 0;
  std::deque<std::pair<double, double>> recent; ///< (arrival, busy time)
  double recentBusy = 0;

  /// The cycle `bytes` arriving at `t` have been transferred, and the
  /// queueing delay they meet on top of the level's latency.
  double serve(double t, double bytes, double *delay = nullptr) {
    if (rate <= 0 || bytes <= 0)
      return t;
    double begin = std::max(t, freeAt);
    double time = bytes / rate;
    freeAt = begin + time;
    busy += time;
    if (queue > 0 && delay) {
      while (!recent.empty() && recent.front().first < t - window) {
        recentBusy -= recent.front().second;
        recent.pop_front();
      }
      recent.emplace_back(t, time);
      recentBusy += time;
      double rho = std::min(recentBusy / window, maxUtilisation);
      *delay = queue * rho / (1 - rho);
    }
    return freeAt;
  }
};

class CuReplay {
public:
  CuReplay(const CuInput &input, const TimingParams &params,
           const ChipInfo &chip, const Program &program)
      : in(input), p(params), chip(chip), program(program),
        code(*input.code), simds(chip.simdsPerComputeUnit) {
    servers[L2].rate = input.l2BytesPerCycle;
    servers[Mall].rate = input.mallBytesPerCycle;
    servers[Hbm].rate = input.hbmBytesPerCycle;
    servers[Hbm].queue = input.hbmQueueCycles;
    servers[Hbm].window = std::max(p.hbmQueueWindowCycles, 1u);
    servers[Hbm].maxUtilisation = p.hbmQueueMaxUtilisation;
    latency[L1] = input.l1Latency;
    latency[L2] = input.l2Latency;
    latency[Mall] = input.mallLatency;
    latency[Hbm] = input.hbmLatency;
    mfmaFreeAt.assign(simds, 0);
    valuFreeAt.assign(simds, 0);
    result.workgroupEnd.assign(input.workgroups.size(), 0);
    if (input.perPc) {
      result.pcIssued.assign(code.size(), 0);
      result.pcStalls.assign(code.size(), {});
    }
  }

  CuResult run();

private:
  void dispatchWorkgroups(uint64_t t);
  /// The reason `w` cannot issue at `t`, or nullopt if it can.
  std::optional<Stall> blocked(WaveState &w, uint64_t t);
  uint64_t waitStateReadyAt(WaveState &w, const StaticInst &si,
                            const Record &rec, uint64_t t);
  void issue(WaveState &w, unsigned index, uint64_t t);
  void endWave(unsigned index, uint64_t t);
  /// Releases the workgroup's waves when every live one reached s_barrier.
  void releaseBarrierIfComplete(WorkgroupState &g, uint64_t t);
  void noteHazard(const Record &rec, const RegWriter &producer,
                  StringRef rule, unsigned required, unsigned actual);
  void event(StringRef name, StringRef category, unsigned track,
             uint64_t begin, uint64_t end) {
    if (in.timeline && end > begin)
      result.timeline.push_back(
          {name.str(), category.str(), track, begin, end - begin});
  }

  const CuInput &in;
  const TimingParams &p;
  const ChipInfo &chip;
  const Program &program;
  const std::vector<StaticInst> &code;
  unsigned simds;

  std::vector<WaveState> waves;
  std::vector<WorkgroupState> groups; ///< resident, by slot
  std::vector<bool> slotBusy;
  size_t nextInput = 0;
  unsigned resident = 0;
  uint64_t ages = 0;
  unsigned nextSimd = 0;

  std::vector<uint64_t> mfmaFreeAt, valuFreeAt;
  uint64_t ldsFreeAt = 0, vmemFreeAt = 0;
  Server servers[4];
  uint64_t latency[4] = {};
  DenseMap<std::pair<uint32_t, uint32_t>, size_t> hazardIndex;
  CuResult result;
};

void CuReplay::dispatchWorkgroups(uint64_t t) {
  if (slotBusy.empty()) {
    slotBusy.assign(in.slots, false);
    groups.resize(in.slots);
  }
  for (unsigned slot = 0; slot < in.slots && nextInput < in.workgroups.size();
       ++slot) {
    if (slotBusy[slot])
      continue;
    const WorkgroupTrace &wg = *in.workgroups[nextInput];
    WorkgroupState &g = groups[slot];
    g = WorkgroupState();
    g.input = nextInput++;
    g.start = t;
    for (const auto &trace : wg.waves) {
      WaveState w;
      w.trace = trace.get();
      w.simd = nextSimd++ % simds;
      w.wgSlot = slot;
      w.age = ages++;
      w.start = t;
      w.readyAt = t + 1;
      w.blockReason = Stall::NoInstruction;
      w.writers.assign(512, RegWriter());
      w.srcCReaders.assign(512, RegWriter());
      if (trace->records.empty())
        w.done = true;
      else
        ++g.live;
      g.waves.push_back(unsigned(waves.size()));
      waves.push_back(std::move(w));
    }
    slotBusy[slot] = true;
    ++resident;
    if (g.live == 0) {
      // A workgroup without instructions (never: every wave ends with
      // s_endpgm) ends at once.
      slotBusy[slot] = false;
      --resident;
      result.workgroupEnd[g.input] = t;
    }
  }
}

void CuReplay::noteHazard(const Record &rec, const RegWriter &producer,
                          StringRef rule, unsigned required, unsigned actual) {
  auto key = std::make_pair(rec.pc, producer.pc);
  auto [it, inserted] = hazardIndex.try_emplace(key, result.hazards.size());
  if (inserted) {
    const std::vector<Inst> &insts = program.getInstructions();
    Hazard h;
    h.address = insts[rec.pc].address;
    h.producerAddress = insts[producer.pc].address;
    h.rule = rule.str();
    h.required = required;
    h.actual = actual;
    result.hazards.push_back(h);
  }
  Hazard &h = result.hazards[it->second];
  ++h.count;
  h.actual = std::min(h.actual, actual);
}

/// The wait states the chip's rules require between `producer` and an
/// instruction reading `reg` in the role described; 0 when none.
static unsigned requiredWaitStates(const TimingParams &p,
                                   const RegWriter &producer,
                                   const StaticInst &consumer, bool asSrcAB,
                                   bool asSrcC, bool exactSrcC) {
  int n = producer.passes;
  if (producer.kind == MfmaKind::None) {
    if (consumer.cls == InstClass::Mfma)
      return p.valuToMfmaWaitStates;
    if (producer.trans && consumer.cls == InstClass::Valu)
      return p.transUseWaitStates;
    return 0;
  }
  bool xdl = producer.kind != MfmaKind::NonXdl;
  int w = 0;
  if (consumer.cls == InstClass::Mfma) {
    if (asSrcAB)
      w = n + (xdl ? p.xdlSrcABOffset : p.nonXdlSrcABOffset);
    else if (asSrcC && exactSrcC)
      w = producer.passes == 2 ? int(p.srcCExactTwoPassWaitStates) : 0;
    else if (asSrcC) {
      if (!xdl && consumer.mfmaKind == MfmaKind::Xdl)
        w = 0;
      else
        w = n + (xdl ? p.xdlSrcCOverlapOffset : p.nonXdlSrcCOverlapOffset);
    }
  } else {
    w = n + (xdl ? p.xdlReadOffset : p.nonXdlReadOffset);
  }
  return unsigned(std::max(w, 0));
}

uint64_t CuReplay::waitStateReadyAt(WaveState &w, const StaticInst &si,
                                    const Record &rec, uint64_t t) {
  uint64_t readyAt = 0;
  auto check = [&](const RegWriter &producer, unsigned required,
                   StringRef rule) {
    if (!required)
      return;
    // Wait states between the producer and this instruction.
    uint64_t between = w.waitStates - producer.waitState - 1;
    if (between >= required)
      return;
    noteHazard(rec, producer, rule, required, unsigned(between));
    readyAt = std::max(readyAt, producer.cycle + (required + 1) * simds);
  };
  auto forRegs = [&](RegRange r, auto &&fn) {
    for (unsigned reg = r.first; reg < unsigned(r.first + r.count) && reg < 512;
         ++reg)
      fn(reg);
  };
  bool isMfma = si.cls == InstClass::Mfma;
  // Reads of MFMA and VALU results.
  SmallVector<uint32_t, 4> seen;
  for (const RegRange &r : si.reads) {
    forRegs(r, [&](unsigned reg) {
      const RegWriter &producer = w.writers[reg];
      if (!producer.valid)
        return;
      // One check per producer instruction and operand.
      bool asSrcAB = isMfma && (si.srcAB[0].overlaps({uint16_t(reg), 1}) ||
                                si.srcAB[1].overlaps({uint16_t(reg), 1}));
      bool asSrcC = isMfma && !asSrcAB && si.srcC.overlaps({uint16_t(reg), 1});
      uint32_t tag = (producer.pc << 2) | (asSrcAB ? 1 : 0) | (asSrcC ? 2 : 0);
      if (llvm::is_contained(seen, tag))
        return;
      seen.push_back(tag);
      bool exact = asSrcC && producer.dst == si.srcC;
      unsigned required =
          requiredWaitStates(p, producer, si, asSrcAB, asSrcC, exact);
      StringRef rule =
          producer.kind == MfmaKind::None
              ? (isMfma ? "VALU write VGPR -> MFMA read"
                        : "transcendental write -> VALU read")
          : !isMfma ? "MFMA write VGPR -> VALU/VMEM/LDS read"
          : asSrcAB ? "MFMA write VGPR -> MFMA SrcA/B read"
          : exact   ? "MFMA write VGPR -> MFMA SrcC read (same registers)"
                    : "MFMA write VGPR -> MFMA SrcC read (overlapping)";
      check(producer, required, rule);
    });
  }
  // A VALU overwriting an MFMA result (WAW) or an MFMA's pending SrcC
  // (WAR).
  if (!isMfma && si.category == Category::Valu) {
    for (const RegRange &r : si.writes)
      forRegs(r, [&](unsigned reg) {
        const RegWriter &producer = w.writers[reg];
        if (producer.valid && producer.kind != MfmaKind::None)
          check(producer,
                unsigned(producer.passes +
                         (producer.kind != MfmaKind::NonXdl
                              ? p.xdlReadOffset
                              : p.nonXdlReadOffset)),
                "MFMA write VGPR -> VALU write (WAW)");
        const RegWriter &reader = w.srcCReaders[reg];
        if (reader.valid && reader.passes > 1)
          check(reader, unsigned(reader.passes - 1),
                "MFMA SrcC read -> VALU write (WAR)");
      });
  }
  (void)t;
  return readyAt;
}

std::optional<Stall> CuReplay::blocked(WaveState &w, uint64_t t) {
  if (t < w.readyAt)
    return w.blockReason;
  if (w.atBarrier)
    return Stall::Barrier;
  const Record &rec = w.trace->records[w.next];
  const StaticInst &si = code[rec.pc];
  if (si.cls == InstClass::Waitcnt) {
    auto drain = [&](std::deque<uint64_t> &q, uint16_t limit) {
      while (!q.empty() && q.front() <= t)
        q.pop_front();
      return limit != StaticInst::kNoWait && q.size() > limit;
    };
    if (drain(w.vm, si.waitVm))
      return Stall::WaitcntMemory;
    if (drain(w.lgkm, si.waitLgkm))
      return Stall::WaitcntLds;
  }
  // A full wait counter holds the next operation that counts in it.
  auto outstanding = [&](std::deque<uint64_t> &q) {
    while (!q.empty() && q.front() <= t)
      q.pop_front();
    return q.size();
  };
  if (si.countsVm && outstanding(w.vm) >= p.maxVmcnt)
    return Stall::WaitcntMemory;
  if (si.countsLgkm && outstanding(w.lgkm) >= p.maxLgkmcnt)
    return Stall::WaitcntLds;
  if (w.depReadyAt == kNever)
    w.depReadyAt = waitStateReadyAt(w, si, rec, t);
  if (t < w.depReadyAt)
    return Stall::Dependency;
  switch (si.cls) {
  case InstClass::Mfma:
    if (t < mfmaFreeAt[w.simd] || t < valuFreeAt[w.simd])
      return Stall::PipeBusy;
    break;
  case InstClass::Valu:
  case InstClass::Trans:
    if (t < valuFreeAt[w.simd])
      return Stall::PipeBusy;
    break;
  case InstClass::Lds:
    if (t < ldsFreeAt || t < w.ldsFreeAt)
      return Stall::PipeBusy;
    break;
  case InstClass::VmemLoad:
  case InstClass::VmemStore:
    if (t < vmemFreeAt)
      return Stall::PipeBusy;
    break;
  default:
    break;
  }
  return std::nullopt;
}

void CuReplay::issue(WaveState &w, unsigned index, uint64_t t) {
  const Record &rec = w.trace->records[w.next];
  const StaticInst &si = code[rec.pc];
  ++result.instructions;
  result.issueCycles += simds;
  if (in.perPc)
    ++result.pcIssued[rec.pc];
  uint64_t waitStateAtIssue = w.waitStates;
  w.waitStates += 1;
  w.readyAt = t + 1;
  w.blockReason = Stall::NoInstruction;
  w.blockPc = rec.pc;
  w.depReadyAt = kNever;

  auto pushCompletion = [](std::deque<uint64_t> &q, uint64_t &last,
                           uint64_t done) {
    last = std::max(last, done); // in order
    q.push_back(last);
  };

  switch (si.cls) {
  case InstClass::Valu:
  case InstClass::Trans:
    valuFreeAt[w.simd] =
        t + (si.cls == InstClass::Trans ? p.transCycles : p.valuCycles);
    break;
  case InstClass::Mfma:
    mfmaFreeAt[w.simd] = t + si.mfmaCycles;
    valuFreeAt[w.simd] = t + p.valuCycles;
    result.mfmaBusyCycles += si.mfmaCycles;
    ++result.mfmaInstructions;
    event("MFMA", "simd", w.simd, t, t + si.mfmaCycles);
    break;
  case InstClass::Smem:
    pushCompletion(w.lgkm, w.lastLgkm, t + p.smemLatency);
    break;
  case InstClass::Lds: {
    unsigned banks = std::max(chip.ldsBanks, 1u);
    uint64_t bankCycles =
        (rec.bytes + 4 * banks - 1) / (4 * banks) + rec.conflictCycles;
    uint64_t pipe = std::max<uint64_t>(
        {(rec.bytes + p.ldsBytesPerCycle - 1) / p.ldsBytesPerCycle,
         bankCycles, 1});
    uint64_t data = std::max<uint64_t>(
        (rec.bytes + p.ldsBytesPerCycleWave - 1) / p.ldsBytesPerCycleWave,
        bankCycles);
    ldsFreeAt = t + pipe;
    w.ldsFreeAt = t + data;
    result.ldsBusyCycles += pipe;
    result.ldsConflictCycles += rec.conflictCycles;
    pushCompletion(w.lgkm, w.lastLgkm, t + data + p.ldsLatency);
    event("LDS", "lds", 0, t, t + pipe);
    break;
  }
  case InstClass::VmemLoad:
  case InstClass::VmemStore: {
    bool store = si.cls == InstClass::VmemStore;
    uint64_t lines = 0;
    for (uint16_t n : rec.lines)
      lines += n;
    // The texture addresser takes the lane addresses, the L1 returns the
    // requested bytes.
    uint64_t path = std::max<uint64_t>(
        {(rec.lanes + p.addressesPerCycle - 1) / p.addressesPerCycle,
         (rec.bytes + p.l1BytesPerCycle - 1) / p.l1BytesPerCycle, 1});
    vmemFreeAt = t + path;
    result.vmemPathBusyCycles += path;
    double done = double(t + path);
    if (rec.lines[L1])
      done = std::max(done, double(t + path + latency[L1]));
    // Lines beyond the L1 take this CU's share of each level they cross.
    double lineBytes = p.cacheLineBytes;
    double beyond[4] = {0, 0, 0, 0};
    for (unsigned level = L2; level <= Hbm; ++level)
      for (unsigned l = level; l <= Hbm; ++l)
        beyond[level] += rec.lines[l] * lineBytes;
    for (unsigned level = L2; level <= Hbm; ++level) {
      if (!rec.lines[level] && !(store && level == L2 && lines))
        continue;
      double bytes = beyond[level];
      if (store && level == L2)
        bytes = std::max(bytes, double(lines) * lineBytes);
      double delay = 0;
      double transferred =
          servers[level].serve(double(t + path), bytes, &delay);
      if (rec.lines[level] || store)
        done = std::max(done, transferred + double(latency[level]) + delay);
    }
    if (!lines) // scratch and other accesses outside global memory
      done = double(t + path + latency[L1]);
    pushCompletion(w.vm, w.lastVm, uint64_t(std::ceil(done)));
    event(store ? "store" : "load", "vmem", 0, t, uint64_t(std::ceil(done)));
    break;
  }
  case InstClass::Branch: {
    bool taken = w.next + 1 < w.trace->records.size() &&
                 w.trace->records[w.next + 1].pc != rec.pc + 1;
    if (taken) {
      w.readyAt = t + p.branchCycles;
      w.blockReason = Stall::NoInstruction;
    }
    break;
  }
  case InstClass::Nop:
    w.waitStates += si.imm;
    w.readyAt = t + uint64_t(si.imm) * simds + 1;
    w.blockReason = Stall::Sleep;
    break;
  case InstClass::Sleep:
    w.readyAt =
        t + uint64_t(p.sleepCyclesPerUnit) * std::max<uint16_t>(si.imm, 1);
    w.blockReason = Stall::Sleep;
    break;
  case InstClass::SetPrio:
    w.prio = si.imm;
    break;
  case InstClass::Barrier: {
    WorkgroupState &g = groups[w.wgSlot];
    w.atBarrier = true;
    ++g.atBarrier;
    releaseBarrierIfComplete(g, t);
    break;
  }
  case InstClass::EndPgm:
    ++w.next;
    endWave(index, t);
    return;
  default:
    break;
  }

  // Register effects for the wait-state rules.
  if (si.cls == InstClass::Mfma || si.category == Category::Valu) {
    RegWriter writer;
    writer.valid = true;
    writer.waitState = waitStateAtIssue;
    writer.cycle = t;
    writer.pc = rec.pc;
    writer.passes = si.passes;
    writer.kind = si.cls == InstClass::Mfma ? si.mfmaKind : MfmaKind::None;
    writer.trans = si.cls == InstClass::Trans;
    writer.srcC = si.srcC;
    for (const RegRange &r : si.writes) {
      writer.dst = r;
      for (unsigned reg = r.first; reg < unsigned(r.first + r.count) && reg < 512;
           ++reg)
        w.writers[reg] = writer;
    }
    if (si.cls == InstClass::Mfma)
      for (unsigned reg = si.srcC.first;
           reg < unsigned(si.srcC.first + si.srcC.count) && reg < 512; ++reg)
        w.srcCReaders[reg] = writer;
  } else {
    // Memory results are waited for with s_waitcnt, not wait states.
    for (const RegRange &r : si.writes)
      for (unsigned reg = r.first; reg < unsigned(r.first + r.count) && reg < 512;
           ++reg)
        w.writers[reg].valid = false;
  }

  ++w.next;
  if (w.next >= w.trace->records.size())
    endWave(index, t);
}

void CuReplay::releaseBarrierIfComplete(WorkgroupState &g, uint64_t t) {
  if (g.live == 0 || g.atBarrier != g.live)
    return;
  for (unsigned wi : g.waves) {
    WaveState &o = waves[wi];
    if (!o.atBarrier)
      continue;
    o.atBarrier = false;
    o.readyAt = t + p.barrierCycles;
    o.blockReason = Stall::Barrier;
  }
  g.atBarrier = 0;
}

void CuReplay::endWave(unsigned index, uint64_t t) {
  WaveState &w = waves[index];
  w.done = true;
  // The wave stays resident until its outstanding memory operations end.
  uint64_t end = std::max({t + 1, w.lastVm, w.lastLgkm});
  event(formatv("wave {0}", w.age).str(), "wave", index, w.start, end);
  WorkgroupState &g = groups[w.wgSlot];
  --g.live;
  // A barrier the remaining waves wait at may now be complete.
  releaseBarrierIfComplete(g, t);
  if (g.live == 0) {
    uint64_t wgEnd = end;
    for (unsigned wi : g.waves)
      wgEnd = std::max({wgEnd, waves[wi].lastVm, waves[wi].lastLgkm});
    result.workgroupEnd[g.input] = wgEnd;
    const WorkgroupTrace &wg = *in.workgroups[g.input];
    event(formatv("workgroup ({0}, {1}, {2})", wg.id[0], wg.id[1], wg.id[2])
              .str(),
          "workgroup", w.wgSlot, g.start, wgEnd);
    slotBusy[w.wgSlot] = false;
    --resident;
    result.endCycle = std::max(result.endCycle, wgEnd);
  }
}

CuResult CuReplay::run() {
  uint64_t t = 0;
  dispatchWorkgroups(t);
  std::vector<unsigned> order;
  while (resident > 0) {
    unsigned simd = unsigned(t % simds);
    order.clear();
    for (unsigned i = 0; i < waves.size(); ++i)
      if (!waves[i].done && waves[i].simd == simd)
        order.push_back(i);
    std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      if (waves[a].prio != waves[b].prio)
        return waves[a].prio > waves[b].prio;
      return waves[a].age < waves[b].age;
    });
    unsigned used = 0;
    bool any = false;
    for (unsigned i : order) {
      WaveState &w = waves[i];
      if (w.done)
        continue;
      any = true;
      result.waveCycles += simds;
      std::optional<Stall> reason = blocked(w, t);
      const StaticInst *si =
          w.next < w.trace->records.size()
              ? &code[w.trace->records[w.next].pc]
              : nullptr;
      if (!reason && si && si->category != Category::None) {
        unsigned bit = 1u << unsigned(si->category);
        if (used & bit)
          reason = Stall::Arbitration;
        else
          used |= bit;
      }
      if (reason) {
        result.stallCycles[unsigned(*reason)] += simds;
        if (in.perPc && si) {
          bool parked = t < w.readyAt || w.atBarrier;
          uint32_t pc = parked && w.next > 0 ? w.blockPc
                                             : w.trace->records[w.next].pc;
          result.pcStalls[pc][unsigned(*reason)] += simds;
        }
        continue;
      }
      issue(w, i, t);
    }
    (void)any;
    // Free slots take the next workgroups.
    if (nextInput < in.workgroups.size() && resident < in.slots) {
      dispatchWorkgroups(t + 1);
      // Retire finished waves from the scan.
    }
    ++t;
    if (waves.size() > 4096) {
      // Compact: drop the waves of finished workgroups.
      std::vector<WaveState> kept;
      std::vector<unsigned> remap(waves.size(), ~0u);
      for (unsigned i = 0; i < waves.size(); ++i)
        if (!waves[i].done) {
          remap[i] = unsigned(kept.size());
          kept.push_back(std::move(waves[i]));
        }
      waves = std::move(kept);
      for (unsigned s = 0; s < groups.size(); ++s) {
        std::vector<unsigned> live;
        for (unsigned wi : groups[s].waves)
          if (remap[wi] != ~0u)
            live.push_back(remap[wi]);
        groups[s].waves = std::move(live);
      }
    }
  }
  result.endCycle = std::max(result.endCycle, t);
  for (unsigned level = L2; level <= Hbm; ++level)
    result.serverBusyCycles[level] = uint64_t(servers[level].busy);
  return std::move(result);
}

} // namespace

CuResult timing::replayCu(const CuInput &input, const TimingParams &params,
                          const ChipInfo &chip, const Program &program) {
  return CuReplay(input, params, chip, program).run();
}
