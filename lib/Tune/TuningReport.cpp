//===- TuningReport.cpp - What tuning chose, per kernel -------------------===//

#include "crest/Tune/TuningReport.h"

#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace crest;

/// "matmul 256x256x256, f16 x f16 -> f16 (f32 accumulation)" (the batch
/// first when above 1).
static std::string describeContraction(ContractionOpInterface op) {
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  std::string text = op->getName().stripDialect().str() + " ";
  if (shape[0] != 1)
    text += std::to_string(shape[0]) + "x";
  text += llvm::formatv("{0}x{1}x{2}", shape[1], shape[2], shape[3]).str();
  std::string types;
  llvm::raw_string_ostream os(types);
  PrecisionAttr precision = op.getPrecision();
  os << ", " << precision.getLhs() << " x " << precision.getRhs() << " -> "
     << precision.getOut() << " (" << precision.getAcc() << " accumulation)";
  return text + types;
}

SmallVector<TuningRow> crest::collectTuningRows(ModuleOp module) {
  SmallVector<TuningRow> rows;
  for (auto func : module.getOps<func::FuncOp>()) {
    func.walk([&](Operation *op) {
      LaunchAttr launch = getLaunch(op);
      if (!launch)
        return;
      ContractionOpInterface contraction = dyn_cast<ContractionOpInterface>(op);
      if (auto kernel = dyn_cast<KernelOp>(op))
        contraction = kernel.getContraction();
      if (!contraction)
        return;
      rows.push_back({launch.getKernelName().str(),
                      describeContraction(contraction), getTuningRecord(op)});
    });
  }
  return rows;
}

void crest::printTuningReport(raw_ostream &os, ArrayRef<TuningRow> rows) {
  size_t width = 0;
  for (const TuningRow &row : rows)
    if (row.record)
      for (const TuningRecord::Candidate &c : row.record->candidates)
        width = std::max(width, describeConfig(c.config).size());
  double heuristicUs = 0, tunedUs = 0;
  unsigned tuned = 0, untuned = 0, simulated = 0, cached = 0;
  for (const TuningRow &row : rows) {
    os << row.kernel << ": " << row.contraction;
    if (!row.record) {
      os << ": not tuned\n";
      ++untuned;
      continue;
    }
    os << "\n";
    const TuningRecord &record = *row.record;
    for (auto [i, c] : llvm::enumerate(record.candidates)) {
      SmallVector<StringRef> marks;
      if (i == 0)
        marks.push_back("heuristic");
      if (i == record.chosen)
        marks.push_back("tuned");
      if (c.cached)
        marks.push_back("cached");
      ++(c.cached ? cached : simulated);
      std::string line =
          llvm::formatv("  {0,10:f3} us  {1}", c.microseconds,
                        llvm::left_justify(describeConfig(c.config), width));
      if (!marks.empty())
        line += "  " + llvm::join(marks, ", ");
      os << StringRef(line).rtrim() << "\n";
    }
    os << llvm::formatv("  heuristic {0:f3} us, tuned {1:f3} us: {2:f2}x\n",
                        record.getHeuristic().microseconds,
                        record.getChosen().microseconds, record.getGain());
    heuristicUs += record.getHeuristic().microseconds;
    tunedUs += record.getChosen().microseconds;
    ++tuned;
  }
  os << "total: ";
  if (tuned)
    os << llvm::formatv("heuristic {0:f3} us, tuned {1:f3} us: {2:f2}x over ",
                        heuristicUs, tunedUs, heuristicUs / tunedUs);
  os << tuned << " tuned contraction" << (tuned == 1 ? "" : "s");
  if (untuned)
    os << ", " << untuned << " not tuned";
  os << "; " << simulated << " simulated, " << cached << " cached\n";
}
