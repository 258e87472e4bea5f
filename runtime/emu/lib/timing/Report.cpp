//===- Report.cpp - Timing reports and Perfetto traces --------------------===//
//
// The names follow rocprofiler-compute where it has one (docs/Timing.md,
// "Reading the report").
//
//===----------------------------------------------------------------------===//

#include "crest/emu/Timing.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <numeric>

using namespace llvm;
using namespace crest::emu;

StringRef crest::emu::getStallName(Stall stall) {
  switch (stall) {
  case Stall::Dependency:
    return "dependency";
  case Stall::WaitcntMemory:
    return "waitcnt-vmem";
  case Stall::WaitcntLds:
    return "waitcnt-lgkm";
  case Stall::Barrier:
    return "barrier";
  case Stall::Arbitration:
    return "arbiter-lost";
  case Stall::PipeBusy:
    return "pipe-busy";
  case Stall::NoInstruction:
    return "no-instruction";
  case Stall::Sleep:
    return "sleep";
  case Stall::Count:
    break;
  }
  return "?";
}

uint64_t PcStats::totalStallCycles() const {
  return std::accumulate(stallCycles.begin(), stallCycles.end(), uint64_t(0));
}

void crest::emu::printTiming(raw_ostream &os, const KernelTiming &t) {
  os << formatv("  modelled time: {0} cycles = {1:F2} us at {2:F0} MHz "
                "(+ {3:F1} us launch overhead)\n",
                t.cycles, t.microseconds, t.clockMhz, t.launchOverheadUs);
  os << formatv("  bound: {0} ({1})\n", t.bound, t.boundReason);
  if (t.flops > 0)
    os << formatv("  MFMA: {0} instructions, utilisation {1:P1}, {2:F1} "
                  "TFLOP/s\n",
                  t.mfmaInstructions, t.mfmaUtilization,
                  t.flops / (t.microseconds * 1e6));
  double waves = std::max<double>(double(t.waveCycles), 1);
  os << formatv("  wave cycles {0}: issuing {1:P1}", t.waveCycles,
                double(t.issueCycles) / waves);
  for (unsigned s = 0; s < kNumStalls; ++s)
    if (t.stallCycles[s])
      os << formatv(", {0} {1:P1}", getStallName(Stall(s)),
                    double(t.stallCycles[s]) / waves);
  os << "\n";
  os << formatv("  LDS: utilisation {0:P1}, bank-conflict rate {1:P1}; "
                "IPC {2:F2}\n",
                t.ldsUtilization, t.ldsBankConflictRate, t.ipc);
  uint64_t lines = t.linesByLevel[0] + t.linesByLevel[1] + t.linesByLevel[2] +
                   t.linesByLevel[3];
  if (lines)
    os << formatv("  memory: {0:F2} MB loaded, {1:F2} MB stored; lines from "
                  "L1 {2:P0}, L2 {3:P0}, MALL {4:P0}, HBM {5:P0} ({6:F2} "
                  "MB)\n",
                  double(t.bytesLoaded) / 1e6, double(t.bytesStored) / 1e6,
                  double(t.linesByLevel[0]) / lines,
                  double(t.linesByLevel[1]) / lines,
                  double(t.linesByLevel[2]) / lines,
                  double(t.linesByLevel[3]) / lines,
                  double(t.hbmBytes) / 1e6);
  os << formatv("  occupancy: {0} waves/SIMD ({1}), {2} workgroups of {3} "
                "waves per CU; {4} workgroups on {5} CUs, {6} round(s)\n",
                t.wavesPerSimd, t.occupancyLimiter, t.workgroupsPerCu,
                t.wavesPerWorkgroup, t.workgroups, t.activeCus, t.rounds);
  os << "  sampling: " << t.sampling << "\n";
  for (const Hazard &h : t.hazards)
    os << formatv("  hazard: {0:x} needs {1} wait states after {2:x} ({3}), "
                  "has {4}; {5} times\n",
                  h.address, h.required, h.producerAddress, h.rule, h.actual,
                  h.count);
}

void crest::emu::printPcTable(raw_ostream &os, const KernelTiming &t,
                              unsigned maxRows) {
  std::vector<const PcStats *> rows;
  for (const PcStats &row : t.perPc)
    rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const PcStats *a, const PcStats *b) {
    uint64_t ca = a->issued + a->totalStallCycles();
    uint64_t cb = b->issued + b->totalStallCycles();
    return ca != cb ? ca > cb : a->address < b->address;
  });
  if (maxRows && rows.size() > maxRows)
    rows.resize(maxRows);
  os << formatv("  {0,-8} {1,8} {2,9}", "pc", "issued", "stalls");
  for (unsigned s = 0; s < kNumStalls; ++s)
    os << formatv(" {0,14}", getStallName(Stall(s)));
  os << "  instruction\n";
  for (const PcStats *row : rows) {
    os << formatv("  {0,-8:x} {1,8} {2,9}", row->address, row->issued,
                  row->totalStallCycles());
    for (unsigned s = 0; s < kNumStalls; ++s)
      os << formatv(" {0,14}", row->stallCycles[s]);
    os << "  " << row->disassembly << "\n";
  }
}

void crest::emu::appendTimelineEvents(std::vector<TraceEvent> &events,
                                      const KernelTiming &timing,
                                      unsigned pid, double offsetUs) {
  double usPerCycle = 1.0 / timing.clockMhz;
  for (const TimelineEvent &e : timing.timeline) {
    TraceEvent out;
    out.name = e.name;
    out.category = e.category;
    out.pid = pid;
    // One thread per track within each category.
    unsigned base = e.category == "workgroup" ? 0
                    : e.category == "simd"    ? 1000
                    : e.category == "lds"     ? 2000
                    : e.category == "vmem"    ? 3000
                                              : 4000;
    out.tid = base + e.track;
    out.beginUs = offsetUs + double(e.begin) * usPerCycle;
    out.durationUs = double(e.duration) * usPerCycle;
    events.push_back(std::move(out));
  }
}

void crest::emu::writeTraceJson(raw_ostream &os,
                                const std::vector<TraceEvent> &events,
                                const std::vector<std::string> &processNames) {
  json::Array array;
  for (size_t pid = 0; pid < processNames.size(); ++pid)
    array.push_back(json::Object{{"name", "process_name"},
                                 {"ph", "M"},
                                 {"pid", int64_t(pid)},
                                 {"args", json::Object{{"name",
                                                        processNames[pid]}}}});
  std::vector<std::pair<unsigned, unsigned>> named;
  for (const TraceEvent &e : events) {
    auto key = std::make_pair(e.pid, e.tid);
    if (!llvm::is_contained(named, key)) {
      named.push_back(key);
      std::string thread = e.category == "workgroup"
                               ? formatv("workgroup slot {0}", e.tid).str()
                           : e.category == "simd"
                               ? formatv("SIMD {0} MFMA", e.tid - 1000).str()
                           : e.category == "lds" ? std::string("LDS pipe")
                           : e.category == "vmem"
                               ? std::string("vector memory")
                           : e.category == "wave"
                               ? formatv("wave slot {0}", e.tid - 4000).str()
                               : e.category;
      array.push_back(json::Object{{"name", "thread_name"},
                                   {"ph", "M"},
                                   {"pid", int64_t(e.pid)},
                                   {"tid", int64_t(e.tid)},
                                   {"args", json::Object{{"name", thread}}}});
    }
    array.push_back(json::Object{{"name", e.name},
                                 {"cat", e.category},
                                 {"ph", "X"},
                                 {"pid", int64_t(e.pid)},
                                 {"tid", int64_t(e.tid)},
                                 {"ts", e.beginUs},
                                 {"dur", e.durationUs}});
  }
  os << formatv("{0:2}", json::Value(std::move(array))) << "\n";
}
