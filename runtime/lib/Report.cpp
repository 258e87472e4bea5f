//===- Report.cpp - Manifest summaries, run reports and traces ------------===//

#include "crest/runtime/Runtime.h"

#include "crest/emu/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdio>
#include <optional>

using namespace llvm;

namespace crest::rt {

static StringRef kindName(pkg::ValueKind kind) {
  switch (kind) {
  case pkg::ValueKind::Input:
    return "input";
  case pkg::ValueKind::Weight:
    return "weight";
  case pkg::ValueKind::Intermediate:
    return "intermediate";
  case pkg::ValueKind::Workspace:
    return "workspace";
  case pkg::ValueKind::Output:
    return "output";
  case pkg::ValueKind::Reference:
    return "reference";
  }
  return "?";
}

/// "42 launches: 30 contractions (+ 51 fused elementwise ops), 8
/// reductions (+ 2 fused), 4 elementwise (+ 2 fused), 0 data movement, 0
/// attention", from the op names of each launched kernel
/// ("conv2d+add+hardswish"; the ops fused into a contraction include those
/// of its operand prologues, a layer norm or softmax kernel may start with
/// the ops of its row prologue, "gather+add+layer_norm", and an attention
/// kernel with the views it reads through).
static void printFusionSummary(raw_ostream &os, const pkg::Manifest &m) {
  unsigned contractions = 0, fusedIntoContractions = 0, reductions = 0,
           fusedIntoReductions = 0, elementwise = 0, fusedIntoElementwise = 0,
           movement = 0, attention = 0;
  auto isReduction = [](StringRef op) {
    return op.starts_with("reduce_") ||
           is_contained({"softmax", "layer_norm", "global_avg_pool2d",
                         "max_pool2d", "avg_pool2d"},
                        op);
  };
  for (const pkg::Launch &l : m.launches) {
    SmallVector<StringRef> ops;
    StringRef(m.kernels[l.kernel].op).split(ops, '+');
    StringRef head = ops.empty() ? StringRef() : ops.front();
    unsigned fused = ops.empty() ? 0 : ops.size() - 1;
    // A contraction kernel may start with its operands' prologue ops
    // ("cast+conv2d+add").
    if (any_of(ops, [](StringRef op) {
          return is_contained({"matmul", "batch_matmul", "conv2d"}, op);
        })) {
      ++contractions;
      fusedIntoContractions += fused;
    } else if (any_of(ops, isReduction)) {
      ++reductions;
      fusedIntoReductions += fused;
    } else if (is_contained(ops, "attention")) {
      // Possibly after the views it reads its operands through
      // ("slice+reshape+transpose+attention").
      ++attention;
    } else if (is_contained({"transpose", "slice", "concat", "gather",
                             "reshape"},
                            head)) {
      ++movement;
    } else {
      ++elementwise;
      fusedIntoElementwise += fused;
    }
  }
  os << formatv("fusion: {0} launches: {1} contractions (+ {2} fused "
                "elementwise ops), {3} reductions (+ {4} fused), {5} "
                "elementwise (+ {6} fused), {7} data movement, {8} "
                "attention\n",
                m.launches.size(), contractions, fusedIntoContractions,
                reductions, fusedIntoReductions, elementwise,
                fusedIntoElementwise, movement, attention);
}

void printManifestSummary(raw_ostream &os, const pkg::Manifest &m) {
  os << formatv("graph '{0}' for {1} (wave{2}, code object v{3})\n",
                m.graphName, m.chip, m.waveSize, m.codeObjectVersion);
  os << formatv("inputs ({0}):\n", m.inputs.size());
  for (uint32_t id : m.inputs)
    os << "  " << m.values[id].name << ": " << m.values[id].type.describe()
       << "\n";
  os << formatv("outputs ({0}):\n", m.outputs.size());
  for (uint32_t id : m.outputs)
    os << "  " << m.values[id].name << ": " << m.values[id].type.describe()
       << "\n";
  uint64_t total = 0;
  for (const pkg::Buffer &b : m.buffers)
    total += b.size;
  os << formatv("buffers ({0}, {1} bytes):\n", m.buffers.size(), total);
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    SmallVector<std::string> held;
    for (const pkg::Value &v : m.values)
      if (v.buffer && *v.buffer == i)
        held.push_back(formatv("{0} ({1} {2} @{3})", v.name, kindName(v.kind),
                               v.type.describe(), v.bufferOffset)
                           .str());
    os << formatv("  #{0}: {1} bytes: {2}\n", i, m.buffers[i].size,
                  join(held, ", "));
  }
  os << formatv("kernels ({0}):\n", m.kernels.size());
  for (const pkg::Kernel &k : m.kernels) {
    os << formatv("  {0} [{1}] in code object {2}", k.name, k.op, k.codeObject);
    if (k.info.modelledUs)
      os << formatv(", modelled {0:f3} us", *k.info.modelledUs);
    os << "\n";
  }
  printFusionSummary(os, m);
  if (m.precisionPlan)
    if (llvm::Error e = printPrecisionPlan(os, *m.precisionPlan))
      os << "precision plan: " << llvm::toString(std::move(e)) << "\n";
  os << formatv("launches ({0}):\n", m.launches.size());
  for (size_t i = 0; i < m.launches.size(); ++i) {
    const pkg::Launch &l = m.launches[i];
    SmallVector<std::string> args;
    for (uint32_t id : l.args)
      args.push_back(m.values[id].name);
    os << formatv("  #{0}: {1} grid {2}x{3}x{4} block {5}x{6}x{7} ({8})\n", i,
                  m.kernels[l.kernel].name, l.grid[0], l.grid[1], l.grid[2],
                  l.block[0], l.block[1], l.block[2], join(args, ", "));
  }
  os << formatv("reference graph ({0} ops):", m.graph.size());
  for (const pkg::Node &n : m.graph)
    os << " " << n.op;
  os << "\n";
}

/// "16 launches, 123.45 us modelled = 91.45 us in kernels + 32.00 us
/// launch overhead (31.5% of the total), gfx942 at 1051 MHz".
static void printModelledTotal(raw_ostream &os, const RunStats &stats,
                               const ModelledTime &t) {
  const emu::KernelTiming &first = *stats.launches.front().getTiming();
  double total = t.totalMicroseconds();
  os << formatv(
      "{0} launch{1}, {2:f2} us modelled = {3:f2} us in kernels + "
      "{4:f2} us launch overhead ({5:f1}% of the total), {6} at {7:f0} MHz",
      t.launches, t.launches == 1 ? "" : "es", total, t.kernelMicroseconds,
      t.overheadMicroseconds,
      total > 0 ? t.overheadMicroseconds / total * 100 : 0.0, first.chip,
      first.clockMhz);
}

void printRunReport(raw_ostream &os, const pkg::Manifest &m,
                    const RunStats &stats) {
  bool emulated = !stats.launches.empty() && stats.launches[0].counters;
  std::optional<ModelledTime> modelled = stats.getModelledTime();
  os << formatv("{0,-3} {1,-28} {2,5} {3,5} {4,5} {5,6} {6,8} {7,6} {8,5} "
                "{9,8}",
                "#", "kernel", "vgpr", "agpr", "sgpr", "lds", "scratch",
                "waves", "mfma", "barriers");
  // On the emulator, the time of a kernel is the timing model's; the host
  // wall time only says how long emulating it took.
  if (modelled)
    os << formatv(" {0,10} {1,-14}", "model (us)", "bound");
  os << formatv(" {0,10}", emulated ? "host (ms)" : "time (ms)");
  if (emulated)
    os << formatv(" {0,10} {1,9} {2,8} {3,9} {4,10}", "wave-insts", "mfma-exec",
                  "lds-ops", "barriers", "bank-confl");
  os << "\n";
  double total = 0;
  for (size_t i = 0; i < stats.launches.size() && i < m.launches.size(); ++i) {
    const pkg::Kernel &k = m.kernels[m.launches[i].kernel];
    const LaunchStats &s = stats.launches[i];
    total += s.seconds;
    os << formatv("{0,-3} {1,-28} {2,5} {3,5} {4,5} {5,6} {6,8} {7,6} {8,5} "
                  "{9,8}",
                  i, k.name, k.info.vgprs, k.info.agprs, k.info.sgprs,
                  k.info.ldsBytes, k.info.scratchBytes, k.info.wavesPerSimd,
                  k.info.mfmaCount, k.info.barrierCount);
    if (modelled)
      os << formatv(" {0,10:f2} {1,-14}", s.getTiming()->microseconds,
                    s.getTiming()->bound);
    os << formatv(" {0,10:f3}", s.seconds * 1e3);
    if (s.counters)
      os << formatv(" {0,10} {1,9} {2,8} {3,9} {4,10}",
                    s.counters->waveInstructions, s.counters->mfmaInstructions,
                    s.counters->ldsInstructions, s.counters->barriers,
                    s.counters->bankConflictCycles);
    os << "\n";
  }
  if (!emulated) {
    os << formatv("total: {0} launch{1}, {2:f3} ms (GPU event time)\n",
                  stats.launches.size(), stats.launches.size() == 1 ? "" : "es",
                  total * 1e3);
    return;
  }
  os << "total: ";
  if (modelled)
    printModelledTotal(os, stats, *modelled);
  else
    os << formatv("{0} launch{1}, no modelled time{2}", stats.launches.size(),
                  stats.launches.size() == 1 ? "" : "es",
                  stats.timingNote.empty() ? "" : ": " + stats.timingNote);
  os << formatv("; {0:f3} ms host wall time (emulation)\n", total * 1e3);
}

void printRunTiming(raw_ostream &os, const pkg::Manifest &m,
                    const RunStats &stats, bool perPc) {
  bool header = false;
  for (size_t i = 0; i < stats.launches.size() && i < m.launches.size(); ++i) {
    const emu::KernelTiming *timing = stats.launches[i].getTiming();
    if (!timing)
      continue;
    if (!header)
      os << formatv("timing on {0} (model: docs/Timing.md):\n", timing->chip);
    header = true;
    const pkg::Launch &l = m.launches[i];
    os << formatv("launch {0}: {1}, grid {2}x{3}x{4}, block {5}x{6}x{7}\n", i,
                  m.kernels[l.kernel].name, l.grid[0], l.grid[1], l.grid[2],
                  l.block[0], l.block[1], l.block[2]);
    emu::printTiming(os, *timing);
    if (perPc)
      emu::printPcTable(os, *timing);
  }
  std::optional<ModelledTime> modelled = stats.getModelledTime();
  os << "model '" << m.graphName << "': ";
  if (modelled)
    printModelledTotal(os, stats, *modelled);
  else
    os << "no modelled time"
       << (stats.timingNote.empty() ? "" : ": " + stats.timingNote);
  os << "\n";
}

void writeRunTrace(raw_ostream &os, const pkg::Manifest &m,
                   const RunStats &stats) {
  std::vector<emu::TraceEvent> events;
  std::vector<std::string> processes = {"model"};
  double now = 0;
  for (size_t i = 0; i < stats.launches.size() && i < m.launches.size(); ++i) {
    const emu::KernelTiming *timing = stats.launches[i].getTiming();
    if (!timing)
      continue;
    const std::string &name = m.kernels[m.launches[i].kernel].name;
    emu::TraceEvent overhead;
    overhead.name = "launch overhead";
    overhead.category = "launches";
    overhead.beginUs = now;
    overhead.durationUs = timing->launchOverheadUs;
    events.push_back(overhead);
    now += timing->launchOverheadUs;
    emu::TraceEvent kernel;
    kernel.name = name;
    kernel.category = "launches";
    kernel.beginUs = now;
    kernel.durationUs = timing->microseconds;
    events.push_back(kernel);
    if (!timing->timeline.empty()) {
      unsigned pid = processes.size();
      processes.push_back(formatv("launch {0}: {1}", i, name).str());
      emu::appendTimelineEvents(events, *timing, pid, now);
    }
    now += timing->microseconds;
  }
  emu::writeTraceJson(os, events, processes);
}

//===----------------------------------------------------------------------===//
// Precision plans
//===----------------------------------------------------------------------===//

/// "2^5", "2^-3".
std::string formatScale(double s) {
  if (s <= 0)
    return "-";
  int e = std::ilogb(s);
  if (std::ldexp(1.0, e) == s)
    return "2^" + std::to_string(e);
  return llvm::formatv("{0:g}", s).str();
}

static std::string formatNumber(std::optional<double> v) {
  if (!v)
    return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", *v);
  return text;
}

namespace {
constexpr int kPlanColumns = 14;
struct Row {
  std::string cells[kPlanColumns];
};
} // namespace

static void printRows(llvm::raw_ostream &os, ArrayRef<Row> rows) {
  size_t widths[kPlanColumns] = {};
  for (const Row &r : rows)
    for (int i = 0; i < kPlanColumns; ++i)
      widths[i] = std::max(widths[i], r.cells[i].size());
  for (const Row &r : rows) {
    std::string line;
    for (int i = 0; i < kPlanColumns; ++i) {
      line += r.cells[i];
      if (i + 1 < kPlanColumns)
        line += std::string(widths[i] - r.cells[i].size() + 2, ' ');
    }
    os << StringRef(line).rtrim() << "\n";
  }
}

static std::string describeOperand(const llvm::json::Object *o,
                                   StringRef field) {
  if (!o)
    return "-";
  if (field == "amax") {
    std::optional<double> v = o->getNumber("amax");
    return formatNumber(v);
  }
  if (std::optional<double> hi = o->getNumber("max_channel_scale"))
    return formatScale(*o->getNumber("min_channel_scale")) + ".." +
           formatScale(*hi);
  std::optional<double> s = o->getNumber("scale");
  if (!s)
    return "-";
  std::string text = formatScale(*s);
  return text;
}

/// The fraction of the operands' elements that saturate in fp8, "-" when
/// neither is quantised.
static std::string describeClipped(const llvm::json::Object *lhs,
                                   const llvm::json::Object *rhs) {
  std::optional<double> a = lhs ? lhs->getNumber("clipped") : std::nullopt;
  std::optional<double> b = rhs ? rhs->getNumber("clipped") : std::nullopt;
  if (!a && !b)
    return "-";
  return llvm::formatv("{0:f2}%", 100 * std::max(a.value_or(0), b.value_or(0)))
      .str();
}

/// 240 as "240", 0.5 as "0.5".
static std::string formatPlain(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(int64_t(v));
  return llvm::formatv("{0}", v).str();
}

llvm::Error printPrecisionPlan(llvm::raw_ostream &os,
                               const llvm::json::Value &value) {
  const llvm::json::Object *plan = value.getAsObject();
  const llvm::json::Array *ops = plan ? plan->getArray("ops") : nullptr;
  if (!ops)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the precision plan has no 'ops' array");
  os << "precision plan: " << plan->getString("chip").value_or("?") << ", "
     << plan->getString("mode").value_or("?");
  if (std::optional<StringRef> t = plan->getString("fp8_type"); t && !t->empty())
    os << ", fp8 = " << *t << " (max "
       << formatPlain(plan->getNumber("fp8_max").value_or(0)) << ")";
  os << ", activation margin 2^-"
     << formatPlain(plan->getNumber("margin_bits").value_or(0))
     << ", "
     << plan->getInteger("calibration_sets").value_or(0)
     << " calibration input set(s), weight scales per "
     << (plan->getBoolean("per_channel_weights").value_or(false)
             ? "output channel"
             : "tensor")
     << "\n";
  std::vector<Row> rows;
  rows.push_back({"op", "kind", "gemm (BxMxNxK)", "precision", "reason",
                  "lhs amax", "lhs scale", "rhs amax", "rhs scale", "clipped",
                  "sqnr dB", "cosine", "max rel", "fp8 alone"});
  for (const llvm::json::Value &entry : *ops) {
    const llvm::json::Object *op = entry.getAsObject();
    if (!op)
      continue;
    std::string gemm;
    if (const llvm::json::Array *g = op->getArray("gemm"))
      for (const llvm::json::Value &d : *g)
        gemm += (gemm.empty() ? "" : "x") +
                std::to_string(d.getAsInteger().value_or(0));
    const llvm::json::Object *lhs = op->getObject("lhs");
    const llvm::json::Object *rhs = op->getObject("rhs");
    std::string precision = op->getString("precision").value_or("?").str();
    if (precision == "fp8")
      precision += " " + op->getString("type").value_or("").str();
    rows.push_back({op->getString("name").value_or("?").str(),
                    op->getString("op").value_or("?").str(), gemm, precision,
                    op->getString("reason").value_or("?").str(),
                    describeOperand(lhs, "amax"), describeOperand(lhs, "scale"),
                    describeOperand(rhs, "amax"),
                    describeOperand(rhs, "scale"),
                    describeClipped(lhs, rhs),
                    op->get("sqnr_db")
                        ? (op->getNumber("sqnr_db")
                               ? llvm::formatv("{0:f1}",
                                               *op->getNumber("sqnr_db"))
                                     .str()
                               : std::string("exact"))
                        : std::string("-"),
                    op->getNumber("cosine")
                        ? llvm::formatv("{0:f6}", *op->getNumber("cosine"))
                              .str()
                        : std::string("-"),
                    op->getNumber("max_rel_error")
                        ? llvm::formatv("{0:e2}",
                                        *op->getNumber("max_rel_error"))
                              .str()
                        : std::string("-"),
                    op->getNumber("fp8_alone_rel_l2")
                        ? llvm::formatv("{0:e2}",
                                        *op->getNumber("fp8_alone_rel_l2"))
                              .str()
                        : std::string("-")});
  }
  printRows(os, rows);
  os << "summary: " << plan->getString("summary").value_or("") << "\n";
  return llvm::Error::success();
}

} // namespace crest::rt
