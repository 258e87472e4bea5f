//===- GridModel.cpp - Occupancy, placement and the grid's time -----------===//
//
// Before a dispatch runs, planGrid decides its occupancy (the chip table's
// one occupancy function, from the kernel descriptor's VGPR grant and LDS)
// and what to record: small grids whole, large ones a sample of the
// busiest compute unit. After it ran, Recorder::finish replays the
// recorded compute units and composes the grid:
//
//   time = max over CUs (replayed, or the sample extrapolated to the CU's
//          whole list of workgroups at its steady-state time per workgroup)
//   floored by the grid's HBM and L2 traffic over their bandwidths.
//
// Each CU's share of a level's bandwidth is that level's bandwidth divided
// by the CUs active at once (the L2 by those of its XCD).
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "crest/Target/Occupancy.h"
#include "crest/emu/Emulator.h"
#include "crest/emu/Program.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace llvm;
using namespace crest;
using namespace crest::emu;
using namespace crest::emu::timing;

namespace crest::emu::timing {

GridPlan planGrid(const Program &program, const LaunchConfig &config,
                  const TimingOptions &options, uint64_t dynamicLds) {
  const ChipInfo &chip = program.getChip();
  const TimingParams &params = *chip.timing;
  const Kernel &kernel = program.getKernel();
  GridPlan plan;
  plan.placement.computeUnits = params.computeUnits;
  plan.placement.xcds = params.xcds;
  plan.workgroups =
      uint64_t(config.grid[0]) * config.grid[1] * config.grid[2];
  unsigned items = config.block[0] * config.block[1] * config.block[2];
  unsigned lanes = kernel.wavefrontSize;
  plan.wavesPerWorkgroup = (items + lanes - 1) / lanes;
  // What the hardware allocates: the descriptor's VGPR grant
  // (GRANULATED_WORKITEM_VGPR_COUNT, arch + acc on a unified file).
  unsigned granule = chip.getVgprAllocGranule(lanes);
  unsigned vgprs = ((kernel.descriptor.computePgmRsrc1 & 0x3f) + 1) * granule;
  Occupancy occupancy = computeOccupancy(
      chip, lanes, vgprs, 0,
      uint64_t(kernel.groupSegmentFixedSize) + dynamicLds, items);
  plan.wavesPerSimd = occupancy.wavesPerSimd;
  plan.workgroupsPerCu = std::max(occupancy.workgroupsPerCu, 1u);
  plan.limiter = occupancy.limiter.str();
  plan.sampleOnly = options.sampleOnly;
  plan.whole = plan.workgroups <= options.wholeGridLimit;
  if (!plan.whole) {
    // The middle CU of XCD 0: in the functional order, about half of the
    // workgroups it shares data with ran before each of its own (see
    // docs/Timing.md, "Sampling").
    plan.sampleCu = plan.placement.cusPerXcd() / 2;
    plan.sampleCount = options.sampleWorkgroups
                           ? options.sampleWorkgroups
                           : 3ull * plan.workgroupsPerCu;
  }
  return plan;
}

} // namespace crest::emu::timing


double timing::balancedGridCycles(ArrayRef<uint64_t> instructions,
                                  unsigned computeUnits,
                                  double cyclesPerInstruction) {
  // A min-heap of the CUs' queue ends.
  std::vector<double> ends(
      std::min<uint64_t>(std::max(computeUnits, 1u), instructions.size()),
      0.0);
  double last = 0;
  for (uint64_t count : instructions) {
    std::pop_heap(ends.begin(), ends.end(), std::greater<>());
    ends.back() += double(count) * cyclesPerInstruction;
    last = std::max(last, ends.back());
    std::push_heap(ends.begin(), ends.end(), std::greater<>());
  }
  return last;
}

KernelTiming Recorder::finish(const ChipInfo &chip) {
  KernelTiming timing;
  timing.chip = chip.name.str();
  timing.clockMhz =
      options.clockMhz > 0 ? options.clockMhz : params.effectiveClockMhz;
  timing.launchOverheadUs = params.launchOverheadUs;
  timing.workgroups = plan.workgroups;
  timing.wavesPerWorkgroup = plan.wavesPerWorkgroup;
  timing.wavesPerSimd = plan.wavesPerSimd;
  timing.workgroupsPerCu = plan.workgroupsPerCu;
  timing.occupancyLimiter = plan.limiter;
  timing.simulatedWorkgroups = workgroups.size();

  const Placement &placement = plan.placement;
  unsigned activeCus =
      unsigned(std::min<uint64_t>(plan.workgroups, placement.computeUnits));
  timing.activeCus = activeCus;
  uint64_t slotsTotal = uint64_t(placement.computeUnits) * plan.workgroupsPerCu;
  timing.rounds = unsigned((plan.workgroups + slotsTotal - 1) / slotsTotal);

  // Bandwidth shares and latencies in cycles of the effective clock.
  double cyclesPerNs = timing.clockMhz / 1000.0;
  double bytesPerCycle = 1e3 / timing.clockMhz; // GB/s -> bytes per cycle
  unsigned activeXcds = std::min<unsigned>(activeCus, placement.xcds);
  unsigned cusPerActiveXcd =
      std::max(1u, (activeCus + activeXcds - 1) / std::max(activeXcds, 1u));
  CuInput input;
  input.code = &code;
  input.slots = plan.workgroupsPerCu;
  input.l2BytesPerCycle =
      double(params.l2BytesPerCyclePerXcd) / cusPerActiveXcd;
  input.mallBytesPerCycle = params.mallGBps * bytesPerCycle / activeCus;
  input.hbmBytesPerCycle = params.hbmGBps * bytesPerCycle / activeCus;
  input.l1Latency = unsigned(std::lround(params.l1LatencyNs * cyclesPerNs));
  input.l2Latency = unsigned(std::lround(params.l2LatencyNs * cyclesPerNs));
  input.mallLatency =
      unsigned(std::lround(params.mallLatencyNs * cyclesPerNs));
  input.hbmLatency = unsigned(std::lround(params.hbmLatencyNs * cyclesPerNs));
  input.hbmQueueCycles = params.hbmQueueNs * cyclesPerNs;
  input.perPc = options.perPc;

  // Group the recorded workgroups by CU, in dispatch order.
  std::map<unsigned, std::vector<const WorkgroupTrace *>> byCu;
  for (const auto &wg : workgroups)
    byCu[placement.cuOf(wg->linear)].push_back(wg.get());
  for (auto &[cu, list] : byCu)
    std::sort(list.begin(), list.end(),
              [](const WorkgroupTrace *a, const WorkgroupTrace *b) {
                return a->linear < b->linear;
              });

  uint64_t worst = 0;
  double scale = 1; // grid / replayed, for the extrapolated counters
  std::vector<CuResult> results;
  unsigned timelineCu = byCu.empty() ? 0 : byCu.begin()->first;
  for (auto &[cu, list] : byCu) {
    input.workgroups = list;
    input.timeline = options.timeline && cu == timelineCu;
    CuResult r = replayCu(input, params, chip, program);
    uint64_t end = r.endCycle;
    if (!plan.whole) {
      // The replayed CU stands for the busiest ones: ceil(workgroups /
      // CUs) workgroups each.
      uint64_t total = (plan.workgroups + placement.computeUnits - 1) /
                       placement.computeUnits;
      uint64_t n = list.size();
      if (n > 0)
        scale = double(plan.workgroups) / double(n);
      if (!workgroupInstructions.empty() && n > 0) {
        // Every workgroup ran: compose the grid from what each executed, at
        // the sample's steady-state cycles per wave instruction (its last
        // round), after the sample's start-up (the part of its time that
        // rate does not account for).
        unsigned slots = std::max(input.slots, 1u);
        const std::vector<const WorkgroupTrace *> &sample = list;
        auto executed = [&](uint64_t k) {
          return workgroupInstructions[sample[k]->linear];
        };
        uint64_t first = n > slots ? n - slots : 0;
        double window = double(r.workgroupEnd[n - 1]) -
                        (n > slots ? double(r.workgroupEnd[first - 1]) : 0.0);
        uint64_t windowInstructions = 0, sampleInstructions = 0;
        for (uint64_t k = 0; k < n; ++k) {
          sampleInstructions += executed(k);
          if (k >= first)
            windowInstructions += executed(k);
        }
        double cpi = windowInstructions
                         ? window / double(windowInstructions)
                         : 0.0;
        double startUp = std::max(
            0.0, double(r.workgroupEnd[n - 1]) - cpi * sampleInstructions);
        end = uint64_t(startUp + balancedGridCycles(workgroupInstructions,
                                                    placement.computeUnits,
                                                    cpi));
        uint64_t gridInstructions = 0;
        for (uint64_t i : workgroupInstructions)
          gridInstructions += i;
        if (sampleInstructions)
          scale = double(gridInstructions) / double(sampleInstructions);
      } else if (total > n && n > 0) {
        unsigned slots = std::max(input.slots, 1u);
        // Steady state: the time per workgroup over the last round of the
        // sample.
        double perWorkgroup;
        if (n > slots)
          perWorkgroup = double(r.workgroupEnd[n - 1] -
                                r.workgroupEnd[n - 1 - slots]) /
                         slots;
        else
          perWorkgroup = double(r.workgroupEnd[n - 1]) / double(n);
        end = uint64_t(double(r.workgroupEnd[n - 1]) +
                       perWorkgroup * double(total - n));
      }
    }
    worst = std::max(worst, end);
    results.push_back(std::move(r));
  }
  if (plan.whole)
    scale = 1;

  // Aggregate the replayed CUs.
  uint64_t replayedCycles = 0;
  uint64_t ldsBusy = 0, ldsConflict = 0, instructions = 0;
  std::vector<uint64_t> pcIssued(code.size(), 0);
  std::vector<std::array<uint64_t, kNumStalls>> pcStalls(code.size());
  std::array<uint64_t, 4> serverBusy = {};
  uint64_t vmemPathBusy = 0;
  for (CuResult &r : results) {
    vmemPathBusy = std::max(vmemPathBusy, r.vmemPathBusyCycles);
    replayedCycles += r.endCycle;
    timing.waveCycles += r.waveCycles;
    timing.issueCycles += r.issueCycles;
    for (unsigned s = 0; s < kNumStalls; ++s)
      timing.stallCycles[s] += r.stallCycles[s];
    timing.mfmaBusyCycles += r.mfmaBusyCycles;
    timing.mfmaInstructions += r.mfmaInstructions;
    ldsBusy += r.ldsBusyCycles;
    ldsConflict += r.ldsConflictCycles;
    instructions += r.instructions;
    for (unsigned l = 0; l < 4; ++l)
      serverBusy[l] = std::max(serverBusy[l], r.serverBusyCycles[l]);
    if (options.perPc)
      for (size_t pc = 0; pc < code.size(); ++pc) {
        pcIssued[pc] += r.pcIssued[pc];
        for (unsigned s = 0; s < kNumStalls; ++s)
          pcStalls[pc][s] += r.pcStalls[pc][s];
      }
    for (Hazard &h : r.hazards) {
      auto it = llvm::find_if(timing.hazards, [&](const Hazard &o) {
        return o.address == h.address && o.producerAddress == h.producerAddress;
      });
      if (it == timing.hazards.end())
        timing.hazards.push_back(h);
      else
        it->count += h.count;
    }
    if (!r.timeline.empty())
      timing.timeline = std::move(r.timeline);
  }

  // Memory traffic of the grid.
  double lineBytes = params.cacheLineBytes;
  for (const auto &wg : workgroups)
    for (const auto &wave : wg->waves)
      for (const Record &rec : wave->records) {
        const StaticInst &si = code[rec.pc];
        if (si.cls == InstClass::VmemLoad)
          timing.bytesLoaded += rec.bytes;
        else if (si.cls == InstClass::VmemStore)
          timing.bytesStored += rec.bytes;
        for (unsigned l = 0; l < 4; ++l)
          timing.linesByLevel[l] += rec.lines[l];
        if (si.cls == InstClass::Mfma) {
          // FLOPs from the chip table: cycles x per-cycle rate is not
          // needed, the shape is.
        }
      }
  timing.bytesLoaded = uint64_t(double(timing.bytesLoaded) * scale);
  timing.bytesStored = uint64_t(double(timing.bytesStored) * scale);
  for (uint64_t &n : timing.linesByLevel)
    n = uint64_t(double(n) * scale);
  timing.hbmBytes = uint64_t(double(timing.linesByLevel[Hbm]) * lineBytes);
  timing.mfmaInstructions = uint64_t(double(timing.mfmaInstructions) * scale);
  timing.mfmaBusyCycles = uint64_t(double(timing.mfmaBusyCycles) * scale);

  // Floors from the grid's traffic over the whole device's bandwidth.
  double hbmFloor =
      double(timing.hbmBytes) / std::max(params.hbmGBps * bytesPerCycle, 1e-9);
  double l2Bytes = double(timing.linesByLevel[L2] + timing.linesByLevel[Mall] +
                          timing.linesByLevel[Hbm]) *
                   lineBytes;
  double l2Floor = l2Bytes / std::max(double(params.l2BytesPerCyclePerXcd) *
                                          std::max(activeXcds, 1u),
                                      1e-9);
  uint64_t cycles = std::max<uint64_t>(
      {worst, uint64_t(std::ceil(hbmFloor)), uint64_t(std::ceil(l2Floor)), 1});
  timing.cycles = cycles;
  timing.microseconds = double(cycles) / timing.clockMhz;

  // Rates.
  unsigned simds = chip.simdsPerComputeUnit;
  timing.mfmaUtilization =
      double(timing.mfmaBusyCycles) /
      (double(simds) * std::max(activeCus, 1u) * double(cycles));
  // FLOPs: each MFMA's shape, from the records.
  {
    double flops = 0;
    for (const auto &wg : workgroups)
      for (const auto &wave : wg->waves)
        for (const Record &rec : wave->records)
          if (code[rec.pc].cls == InstClass::Mfma) {
            const StaticInst &si = code[rec.pc];
            flops += si.flops;
          }
    timing.flops = flops * scale;
  }
  double replayed = std::max<double>(double(replayedCycles), 1);
  timing.ldsUtilization = double(ldsBusy) / replayed;
  timing.ldsBankConflictRate =
      ldsBusy ? double(ldsConflict) / double(ldsBusy) : 0;
  timing.ipc = double(instructions) / replayed;

  // What bounds the time.
  struct Candidate {
    const char *name;
    double share;
    std::string why;
  };
  double waveCycles = std::max<double>(double(timing.waveCycles), 1);
  auto stall = [&](Stall s) {
    return double(timing.stallCycles[unsigned(s)]) / waveCycles;
  };
  double bandwidthShare =
      std::max({hbmFloor / double(cycles), l2Floor / double(cycles),
                double(serverBusy[Hbm]) / replayed * results.size(),
                double(serverBusy[L2]) / replayed * results.size(),
                double(serverBusy[Mall]) / replayed * results.size()});
  // The texture path (the L1's bandwidth) of the busiest replayed CU.
  double texturePathShare =
      double(vmemPathBusy) / replayed * double(results.size());
  double queueShare = bandwidthShare;
  bandwidthShare = std::max(bandwidthShare, texturePathShare);
  std::vector<Candidate> candidates = {
      {"MFMA", timing.mfmaUtilization,
       formatv("MFMA pipes busy {0:P1} of the time", timing.mfmaUtilization)},
      {"bandwidth", std::min(bandwidthShare, 1.0),
       formatv("{0:F1} MB from HBM, memory queues busy {1:P0}, texture "
               "path busy {2:P0}",
               double(timing.hbmBytes) / 1e6, std::min(queueShare, 1.0),
               std::min(texturePathShare, 1.0))},
      {"LDS", std::max(timing.ldsUtilization, stall(Stall::WaitcntLds)),
       formatv("LDS pipe busy {0:P0}, waves wait on lgkmcnt {1:P0}",
               timing.ldsUtilization, stall(Stall::WaitcntLds))},
      {"memory latency", stall(Stall::WaitcntMemory),
       formatv("waves wait on vmcnt {0:P0} of their cycles",
               stall(Stall::WaitcntMemory))},
      {"barrier", stall(Stall::Barrier),
       formatv("waves wait at barriers {0:P0} of their cycles",
               stall(Stall::Barrier))},
      {"issue",
       double(timing.issueCycles) / waveCycles + stall(Stall::Arbitration),
       formatv("waves issue {0:P0} and lose arbitration {1:P0} of their "
               "cycles",
               double(timing.issueCycles) / waveCycles,
               stall(Stall::Arbitration))},
  };
  const Candidate *best = &candidates[0];
  for (const Candidate &c : candidates)
    if (c.share > best->share)
      best = &c;
  timing.bound = best->name;
  timing.boundReason = best->why;
  if (timing.launchOverheadUs > timing.microseconds) {
    timing.bound = "launch";
    timing.boundReason =
        formatv("the {0:F2} us launch overhead exceeds the {1:F2} us kernel",
                timing.launchOverheadUs, timing.microseconds);
  }

  // Sampling statement.
  if (plan.whole)
    timing.sampling = formatv("all {0} workgroups replayed on the {1} compute "
                              "units that receive one",
                              plan.workgroups, byCu.size());
  else {
    std::string replayed =
        formatv("{0} of {1} workgroups replayed: CU {2}'s first {0} ({3} "
                "resident at once)",
                workgroups.size(), plan.workgroups, plan.sampleCu,
                plan.workgroupsPerCu);
    uint64_t busiest = (plan.workgroups + placement.computeUnits - 1) /
                       placement.computeUnits;
    timing.sampling =
        workgroupInstructions.empty()
            ? formatv("{0}, extrapolated at the steady-state time per "
                      "workgroup to the {1} workgroups each of the busiest "
                      "CUs receives; the others are taken to run as long "
                      "(the same code on other IDs and data)",
                      replayed, busiest)
                  .str()
            : replayed +
                  "; every workgroup ran, and the grid is its workgroups' "
                  "executed wave instructions, each sent to the CU that "
                  "frees first, at the sample's steady-state cycles per "
                  "wave instruction";
  }

  if (options.perPc) {
    const std::vector<Inst> &insts = program.getInstructions();
    for (size_t pc = 0; pc < code.size(); ++pc) {
      uint64_t stalls = 0;
      for (uint64_t s : pcStalls[pc])
        stalls += s;
      if (!pcIssued[pc] && !stalls)
        continue;
      PcStats row;
      row.address = insts[pc].address;
      row.disassembly = program.getDisassembly(pc).str();
      row.issued = pcIssued[pc];
      row.stallCycles = pcStalls[pc];
      timing.perPc.push_back(std::move(row));
    }
  }
  return timing;
}
