//===- Tuning.cpp - The crest.tuning record -------------------------------===//

#include "crest/Dialect/Crest/IR/Tuning.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace crest;

DictionaryAttr TuningRecord::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<Attribute> configs;
  SmallVector<double> times;
  SmallVector<bool> cached;
  for (const Candidate &c : candidates) {
    configs.push_back(c.config);
    times.push_back(c.microseconds);
    cached.push_back(c.cached);
  }
  return b.getDictionaryAttr({
      b.getNamedAttr("candidates", b.getArrayAttr(configs)),
      b.getNamedAttr("microseconds", b.getDenseF64ArrayAttr(times)),
      b.getNamedAttr("cached", b.getDenseBoolArrayAttr(cached)),
      b.getNamedAttr("chosen", b.getI64IntegerAttr(chosen)),
  });
}

std::optional<TuningRecord> TuningRecord::fromAttr(Attribute attr,
                                                   std::string *error) {
  auto fail = [&](const Twine &why) -> std::optional<TuningRecord> {
    if (error)
      *error = why.str();
    return std::nullopt;
  };
  auto dict = dyn_cast_or_null<DictionaryAttr>(attr);
  if (!dict)
    return fail("expected a dictionary");
  for (NamedAttribute named : dict)
    if (!llvm::is_contained({"candidates", "microseconds", "cached", "chosen"},
                            named.getName().getValue()))
      return fail("unknown key '" + named.getName().getValue() + "'");
  auto configs = dict.getAs<ArrayAttr>("candidates");
  auto times = dict.getAs<DenseF64ArrayAttr>("microseconds");
  auto cached = dict.getAs<DenseBoolArrayAttr>("cached");
  auto chosen = dict.getAs<IntegerAttr>("chosen");
  if (!configs || !times || !cached || !chosen)
    return fail("expected {candidates = [#crest.config, ...], microseconds "
                "= array<f64: ...>, cached = array<i1: ...>, chosen = "
                "index : i64}");
  size_t n = configs.size();
  if (n == 0)
    return fail("'candidates' is empty");
  if (size_t(times.size()) != n || size_t(cached.size()) != n)
    return fail(llvm::formatv("{0} candidates but {1} times and {2} cached "
                              "flags",
                              n, times.size(), cached.size()));
  int64_t index = chosen.getValue().getSExtValue();
  if (index < 0 || size_t(index) >= n)
    return fail(llvm::formatv("'chosen' = {0} is not a candidate index (0 to "
                              "{1})",
                              index, n - 1));
  TuningRecord record;
  record.chosen = unsigned(index);
  for (size_t i = 0; i < n; ++i) {
    auto config = dyn_cast<ConfigAttr>(configs[i]);
    if (!config)
      return fail(llvm::formatv("candidate {0} is not a #crest.config", i));
    double us = times[i];
    if (!std::isfinite(us) || us <= 0)
      return fail(llvm::formatv("candidate {0}: time {1} is not a positive "
                                "number of microseconds",
                                i, llvm::format("%g", us)));
    record.candidates.push_back({config, us, cached[i]});
  }
  return record;
}

std::optional<TuningRecord> crest::getTuningRecord(Operation *op) {
  Operation *contraction = op;
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    ContractionOpInterface inner = kernel.getContraction();
    if (!inner)
      return std::nullopt;
    contraction = inner.getOperation();
  }
  Attribute attr = contraction->getAttr(CrestDialect::getTuningAttrName());
  if (!attr)
    return std::nullopt;
  return TuningRecord::fromAttr(attr);
}

std::string crest::describeConfig(ConfigAttr config) {
  std::string text = llvm::formatv(
      "{0} {1}x{2}x{3} waves {4}x{5} {6} stages {7}", config.getMma(),
      config.getTileM(), config.getTileN(), config.getTileK(),
      config.getWaveTile()[0], config.getWaveTile()[1],
      stringifySyncScope(config.getScope()), config.getStages());
  if (config.getSplitK() > 1)
    text += llvm::formatv(" split_k {0}", config.getSplitK()).str();
  if (config.getRhsVector() > 1)
    text += llvm::formatv(" rhs_vector {0}", config.getRhsVector()).str();
  if (config.getGlobalSplitK() > 1)
    text += llvm::formatv(" global_split_k {0}", config.getGlobalSplitK())
                .str();
  return text;
}
