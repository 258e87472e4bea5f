//===- SelectConfig.cpp - Choose kernel configurations
//----------------------===//
//
// Heuristic configuration selection from the chip table. Every decision is
// data-driven: the instruction list, LDS size, register file and wave size
// come from the target's ChipInfo. With `tune`, the best candidates are
// measured by a ConfigMeasurer and the fastest is kept.
//
//===----------------------------------------------------------------------===//

#include "crest/Codegen/KernelConfig.h"
#include "crest/Codegen/Transforms/ConfigMeasurer.h"
#include "crest/Codegen/Transforms/Passes.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Dialect/Crest/IR/Tuning.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace crest {
#define GEN_PASS_DEF_CRESTSELECTCONFIGPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {

struct Candidate {
  ConfigAttr config;
  const MmaInstruction *mma;
  ConfigCost cost;
  std::string rejection; ///< Empty when the candidate fits.
};

/// Workgroups a configuration should produce before larger tiles are
/// preferred: enough to occupy most compute units of a CDNA GPU.
constexpr int64_t kTargetWorkgroups = 64;

/// Problems this small are latency-bound: one instruction tile per wave and
/// no LDS sharing. So are outputs too small for the smallest workgroup-scope
/// tile (32x32) to give the GPU kTargetWorkgroups workgroups: their time is
/// the K loop's latency, which split-K divides, and their few LDS tiles
/// would be shared by few waves.
bool isLatencyBound(int64_t batch, int64_t m, int64_t n) {
  return m <= 16 || n <= 16 ||
         batch * llvm::divideCeil(m, 32) * llvm::divideCeil(n, 32) <
             kTargetWorkgroups;
}

/// Waves per SIMD the split-K heuristic aims for across the GPU: one, so
/// that every SIMD runs a slice.
constexpr int64_t kSplitKWavesPerSimd = 1;
/// Compute units assumed when the chip table gives no timing parameters.
constexpr int64_t kDefaultComputeUnits = 64;

/// The SIMDs of the whole GPU, from the chip table.
int64_t getSimds(const ChipInfo &chip) {
  int64_t units = chip.timing ? int64_t(chip.timing->computeUnits)
                              : kDefaultComputeUnits;
  return units * chip.simdsPerComputeUnit;
}

/// Split-K within a workgroup (wavefront scope): `split` groups of waves
/// each accumulate every split-th K step and the partial sums are added
/// through LDS. The largest power of two that keeps at least one K step
/// per group and the workgroup at most 16 waves, while the grid has fewer
/// waves than the GPU has SIMDs (`simds`). (A floor on the K a slice
/// covers, 32, cost MobileNetV3-Small 36 us in f32 under the timing model,
/// to save 0.4 us on a 16x32 . 32x16 layer.)
int64_t chooseSplitK(int64_t groups, int64_t steps, int64_t waves,
                     int64_t simds) {
  int64_t split = 1;
  while (split * 2 <= steps && split * 2 * waves <= 16 &&
         groups * waves * split * 2 <= simds * kSplitKWavesPerSimd)
    split *= 2;
  return split;
}

/// K depth of one main-loop step: at least 64 bytes of each operand row
/// (a 16-byte load per lane quarter) and a multiple of the instruction's K.
int64_t chooseTileK(const MmaInstruction &mma, unsigned lhsBits) {
  int64_t k = std::max<int64_t>(mma.k, 64 * 8 / lhsBits);
  return llvm::alignTo(k, mma.k);
}

/// Problems at most this tall, with a row-major K x N rhs, get the skinny
/// path (rhs_vector): B is streamed with 16-byte loads and M is small
/// enough that the MFMAs are not the limit (docs/Codegen.md).
constexpr int64_t kSkinnyMaxM = 256;
/// Waves of a skinny-path workgroup at most (each a K slice): 8 leaves
/// each wave 256 registers (16 spill with bf16 on gfx90a).
constexpr int64_t kSkinnyMaxSplit = 8;

/// Global split-K (skinny path): workgroups are added along K until the
/// grid has about this many waves per compute unit...
constexpr int64_t kSkinnyWavesPerCu = 8;
/// ...as long as the groups' partial sums (written once, read once, in the
/// accumulator type) stay within this fraction of B's bytes.
constexpr double kSkinnyMaxWorkspaceShare = 1.0 / 8;

/// The workgroups along K for a skinny-path configuration of `tiles` output
/// tiles of `split` waves each: enough to give every compute unit
/// kSkinnyWavesPerCu waves, each wave at least one K step of the
/// `fullSteps`, the workspace traffic within kSkinnyMaxWorkspaceShare of B.
/// 1 when the chip table does not say how many compute units there are.
int64_t chooseGlobalSplitK(const ChipInfo &chip, int64_t tiles, int64_t split,
                           int64_t fullSteps, int64_t m, int64_t k,
                           unsigned rhsBits, unsigned accBits) {
  if (!chip.timing || tiles <= 0)
    return 1;
  int64_t groups =
      int64_t(chip.timing->computeUnits) * kSkinnyWavesPerCu / (tiles * split);
  groups = std::min(groups, fullSteps / split);
  // groups * m * N * acc bytes, twice, against k * N * rhs bytes.
  double perGroup = 2.0 * m * accBits / (double(k) * rhsBits);
  groups = std::min(groups, int64_t(kSkinnyMaxWorkspaceShare / perGroup));
  while (groups > 1 && getStepsPerGroup(fullSteps, groups) == 0)
    --groups;
  return std::max<int64_t>(groups, 1);
}

/// The skinny path is for GEMMs that stream a B of at least this many
/// bytes (decode-size weights); smaller ones keep the kernels below, with
/// more workgroups for their size.
constexpr int64_t kSkinnyMinRhsBytes = int64_t(1) << 20;

/// Whether `op` qualifies for the skinny path, and the vector width: the
/// 16-byte load's elements, when N is a multiple of it. 16-bit operands
/// only (the path is measured for f16 and bf16).
int64_t skinnyVector(ContractionOpInterface op, unsigned rhsBits) {
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  int64_t m = shape[1], n = shape[2], k = shape[3];
  if (isa<Conv2DOp>(op.getOperation()) || op->hasAttr("transpose_rhs") ||
      op->hasAttr("transpose_lhs") || m > kSkinnyMaxM || rhsBits != 16 ||
      k * n * rhsBits / 8 < kSkinnyMinRhsBytes)
    return 1;
  int64_t v = 128 / rhsBits;
  if (v < 2 || n % v != 0)
    return 1;
  return v;
}

class SelectConfigPass
    : public crest::impl::CrestSelectConfigPassBase<SelectConfigPass> {
public:
  using Base::Base;
  SelectConfigPass(const CrestSelectConfigPassOptions &options,
                   std::shared_ptr<ConfigMeasurer> measurer)
      : Base(options), measurer(std::move(measurer)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = lookupTarget(module);
    if (!target || !target.getChipInfo()) {
      module.emitError() << "crest-select-config needs a #crest.target on "
                            "the module (run crest-attach-target first)";
      return signalPassFailure();
    }
    tuning = false;
    if (tune) {
      if (tuneCandidates == 0) {
        module.emitError() << "crest-select-config: 'tune-candidates' must "
                              "be at least 1";
        return signalPassFailure();
      }
      if (!measurer) {
        module.emitWarning()
            << "crest-select-config: 'tune' has no measurer to time "
               "candidates with (crest-compile --tune provides the "
               "emulator's timing model); keeping the heuristic's choices";
      } else if (llvm::Error error = measurer->checkTarget(target)) {
        module.emitWarning() << "not tuning: " << toString(std::move(error))
                             << "; keeping the heuristic's choices";
      } else {
        tuning = true;
      }
    }
    WalkResult result = module.walk([&](ContractionOpInterface op) {
      if (op.getConfigAttr())
        return WalkResult::advance();
      // Grouped and depthwise convolutions run as direct kernels, without
      // matrix instructions.
      if (auto conv = dyn_cast<Conv2DOp>(op.getOperation());
          conv && conv.getGroups() != 1)
        return WalkResult::advance();
      if (auto kernel = op->getParentOfType<KernelOp>();
          kernel && kernel.getConfigAttr())
        return WalkResult::advance();
      return failed(select(op, target)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  LogicalResult select(ContractionOpInterface op, TargetAttr target);
  SmallVector<Candidate> enumerate(ContractionOpInterface op, TargetAttr target,
                                   SyncScope scope, unsigned stages);
  /// Skinny-path candidates (rhs_vector > 1), the heuristic's first.
  SmallVector<Candidate> enumerateSkinny(ContractionOpInterface op,
                                         TargetAttr target);
  /// Fills in `c`'s cost and rejection.
  void evaluate(Candidate &c, ContractionOpInterface op, TargetAttr target);
  /// Measures `ranked` (the heuristic's choice first) and returns the
  /// fastest, recording the measurements on `op`; the heuristic's choice
  /// when it cannot be measured.
  const Candidate *tuneChoice(ContractionOpInterface op,
                              ArrayRef<const Candidate *> ranked);

  std::shared_ptr<ConfigMeasurer> measurer;
  /// `tune` is set and the measurer can time the module's target.
  bool tuning = false;
};

} // namespace

SmallVector<Candidate> SelectConfigPass::enumerate(ContractionOpInterface op,
                                                   TargetAttr target,
                                                   SyncScope scope,
                                                   unsigned stages) {
  const ChipInfo &chip = *target.getChipInfo();
  PrecisionAttr precision = op.getPrecision();
  ScalarKind lhs = *getScalarKind(precision.getLhs());
  ScalarKind rhs = *getScalarKind(precision.getRhs());
  ScalarKind acc = *getScalarKind(precision.getAcc());
  unsigned lhsBits = getScalarKindBits(lhs);
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  int64_t batch = shape[0], m = shape[1], n = shape[2], k = shape[3];
  MLIRContext *ctx = op->getContext();

  SmallVector<Candidate> candidates;
  for (const MmaInstruction *mma : chip.findMma(lhs, rhs, acc)) {
    if (mma->blocks != 1)
      continue;
    // (tile M, tile N, wave M, wave N), largest first.
    SmallVector<std::array<int64_t, 4>> tiles;
    if (scope == SyncScope::Wavefront) {
      // Waves side by side along N, one instruction tile each: as many as
      // N needs, at most four, and fewer (more workgroups, each wave more
      // K slices).
      int64_t need = std::clamp<int64_t>(llvm::divideCeil(n, mma->n), 1, 4);
      for (int64_t waves = need; waves >= 1; waves /= 2)
        tiles.push_back({mma->m, mma->n * waves, mma->m, mma->n});
    } else {
      for (auto [tm, tn] : {std::pair<int64_t, int64_t>{128, 128},
                            {128, 64},
                            {64, 128},
                            {64, 64},
                            {32, 64},
                            {64, 32},
                            {32, 32}}) {
        if (tm % mma->m || tn % mma->n)
          continue;
        // Tiles beyond the (32-aligned) problem only compute padding.
        if (tm > std::max<int64_t>(llvm::alignTo(m, 32), 32) ||
            tn > std::max<int64_t>(llvm::alignTo(n, 32), 32))
          continue;
        // Two by two waves when the tile allows it, else one.
        int64_t wm = tm >= 2 * mma->m ? tm / 2 : tm;
        int64_t wn = tn >= 2 * mma->n ? tn / 2 : tn;
        tiles.push_back({tm, tn, wm, wn});
      }
    }
    int64_t simds = getSimds(chip);
    for (auto [tm, tn, wm, wn] : tiles) {
      // Wavefront scope also tries the instruction's own K depth: twice the
      // steps for split-K to divide.
      SmallVector<int64_t, 2> depths = {chooseTileK(*mma, lhsBits)};
      if (scope == SyncScope::Wavefront && mma->k < depths[0])
        depths.push_back(mma->k);
      for (int64_t tk : depths) {
        int64_t split = 1;
        if (scope == SyncScope::Wavefront)
          split = chooseSplitK(
              batch * llvm::divideCeil(m, tm) * llvm::divideCeil(n, tn),
              llvm::divideCeil(k, tk), (tm / wm) * (tn / wn), simds);
        ConfigAttr config = ConfigAttr::get(
            ctx, mma->mnemonic, {tm, tn, tk}, {wm, wn}, scope, stages, split,
            /*rhs_vector=*/1, /*global_split_k=*/1);
        Candidate candidate{config, mma, ConfigCost(), ""};
        evaluate(candidate, op, target);
        candidates.push_back(std::move(candidate));
      }
    }
  }
  return candidates;
}

void SelectConfigPass::evaluate(Candidate &candidate, ContractionOpInterface op,
                                TargetAttr target) {
  const ChipInfo &chip = *target.getChipInfo();
  unsigned waveSize = target.getEffectiveWaveSize();
  PrecisionAttr precision = op.getPrecision();
  unsigned lhsBits = getScalarKindBits(*getScalarKind(precision.getLhs()));
  unsigned rhsBits = getScalarKindBits(*getScalarKind(precision.getRhs()));
  unsigned accBits = getScalarKindBits(*getScalarKind(precision.getAcc()));
  candidate.cost = evaluateConfig(chip, *candidate.mma, candidate.config,
                                  waveSize, lhsBits, rhsBits, accBits,
                                  op.getGemmShape()[1]);
  const ConfigCost &cost = candidate.cost;
  if (cost.ldsBytes > chip.ldsBytesPerWorkgroup)
    candidate.rejection =
        llvm::formatv("needs {0} bytes of LDS; {1} has {2}", cost.ldsBytes,
                      chip.name, chip.ldsBytesPerWorkgroup);
  else if (cost.estimatedVgprs > chip.getVgprFilePerSimd(waveSize) ||
           cost.estimatedVgprs > chip.maxArchVgprs + chip.maxAccVgprs)
    candidate.rejection = llvm::formatv(
        "needs about {0} registers per lane; {1} has {2}",
        cost.estimatedVgprs, chip.name,
        std::min<int64_t>(chip.getVgprFilePerSimd(waveSize),
                          chip.maxArchVgprs + chip.maxAccVgprs));
  else if (cost.wavesPerWorkgroup * waveSize > 1024)
    candidate.rejection = "needs more than 1024 work-items";
  else if (cost.wavesPerSimd < minWavesPerSimd)
    candidate.rejection =
        llvm::formatv("allows {0} waves per SIMD; at least {1} requested",
                      cost.wavesPerSimd, minWavesPerSimd);
}

SmallVector<Candidate>
SelectConfigPass::enumerateSkinny(ContractionOpInterface op,
                                  TargetAttr target) {
  const ChipInfo &chip = *target.getChipInfo();
  PrecisionAttr precision = op.getPrecision();
  ScalarKind lhs = *getScalarKind(precision.getLhs());
  ScalarKind rhs = *getScalarKind(precision.getRhs());
  ScalarKind acc = *getScalarKind(precision.getAcc());
  unsigned lhsBits = getScalarKindBits(lhs), rhsBits = getScalarKindBits(rhs);
  unsigned accBits = getScalarKindBits(acc);
  int64_t v = skinnyVector(op, rhsBits);
  SmallVector<Candidate> candidates;
  if (v == 1)
    return candidates;
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  int64_t m = shape[1], n = shape[2], k = shape[3];
  // The smallest single-block instruction: 16 rows of padding at most
  // for M = 1, and 16 x v columns per wave (128 for f16).
  const MmaInstruction *mma = nullptr;
  for (const MmaInstruction *candidate : chip.findMma(lhs, rhs, acc))
    if (candidate->blocks == 1 && candidate->m == candidate->n &&
        (!mma || candidate->m < mma->m))
      mma = candidate;
  if (!mma || n < mma->n * v)
    return candidates;
  // Two instruction K steps per main-loop step: 16 bytes of lhs per lane.
  int64_t tk = 2 * mma->k;
  int64_t steps = llvm::divideCeil(k, tk);
  int64_t tn = mma->n * v;
  // Wave tiles of one or two instruction rows; per tile the split-K that
  // fits: the largest power of two up to kSkinnyMaxSplit waves leaving
  // every slice at least two steps whose partial sums fit the LDS.
  // Tall problems first try two rows of instruction tiles per wave (half
  // the workgroups re-reading each B column).
  SmallVector<int64_t, 2> rowTiles = {mma->m, 2 * mma->m};
  if (m >= 128)
    std::swap(rowTiles[0], rowTiles[1]);
  for (int64_t tm : rowTiles) {
    if (tm > mma->m && m <= mma->m)
      continue;
    for (int64_t split = kSkinnyMaxSplit; split >= 1; split /= 2) {
      if (split > 1 && split * 2 > steps)
        continue;
      int64_t tiles = shape[0] * llvm::divideCeil(m, tm) *
                      llvm::divideCeil(n, tn);
      int64_t groups = chooseGlobalSplitK(chip, tiles, split, k / tk, m, k,
                                          rhsBits, accBits);
      ConfigAttr config = ConfigAttr::get(
          op->getContext(), mma->mnemonic, {tm, tn, tk}, {tm, tn},
          SyncScope::Wavefront, /*stages=*/2, split, /*rhs_vector=*/v,
          groups);
      if (config.getLdsBytes(lhsBits, rhsBits, accBits, m) >
          chip.ldsBytesPerWorkgroup)
        continue;
      Candidate c{config, mma, ConfigCost(), ""};
      evaluate(c, op, target);
      candidates.push_back(std::move(c));
      break;
    }
  }
  return candidates;
}

LogicalResult SelectConfigPass::select(ContractionOpInterface op,
                                       TargetAttr target) {
  SmallVector<int64_t, 4> shape = op.getGemmShape();
  SyncAttr sync = op.getSyncAttr();
  SyncScope scope =
      sync ? sync.getScope()
           : (isLatencyBound(shape[0], shape[1], shape[2])
                  ? SyncScope::Wavefront
                  : SyncScope::Workgroup);
  unsigned stages =
      sync ? sync.getStages() : (scope == SyncScope::Workgroup ? 2 : 1);

  // The skinny path when the op leaves the schedule open and qualifies.
  SmallVector<Candidate> skinny;
  if (!sync)
    skinny = enumerateSkinny(op, target);
  SmallVector<Candidate> candidates = enumerate(op, target, scope, stages);
  // Rank the candidates that fit: first the instruction's useful rate (its
  // ops per cycle times the share of its tiles that is not padding), then
  // enough workgroups to spread over the GPU, then the tile size (larger
  // when there is parallelism to spare, smaller when there is not).
  int64_t batch = shape[0], m = shape[1], n = shape[2];
  const ChipInfo &chip = *target.getChipInfo();
  int64_t simds = getSimds(chip);
  auto rank = [&](const Candidate &c) {
    const MmaInstruction &mma = *c.mma;
    double useful = double(m * n) /
                    double(llvm::alignTo(m, mma.m) * llvm::alignTo(n, mma.n));
    double rate = double(mma.getOps()) / mma.cycles * useful;
    int64_t tm = c.config.getTileM(), tn = c.config.getTileN();
    int64_t groups = batch * llvm::divideCeil(m, tm) * llvm::divideCeil(n, tn);
    bool enough = groups >= kTargetWorkgroups;
    // Wavefront scope: the most waves (up to one per SIMD; split-K's
    // slices count), then the deeper K step (fewer partial sums to add),
    // then the smaller tile (more workgroups).
    if (c.config.getScope() == SyncScope::Wavefront) {
      int64_t waves = std::min(groups * c.config.getNumWaves(), simds);
      return std::make_tuple(rate, true, waves, c.config.getTileK(),
                             -tm * tn);
    }
    return std::make_tuple(rate, enough, enough ? tm * tn : -tm * tn,
                           int64_t(0), int64_t(0));
  };
  // The fitting candidates, best first; among equals the first enumerated.
  auto rankFitting = [&](ArrayRef<Candidate> all) {
    SmallVector<const Candidate *> fitting;
    for (const Candidate &c : all)
      if (c.rejection.empty())
        fitting.push_back(&c);
    llvm::stable_sort(fitting, [&](const Candidate *a, const Candidate *b) {
      return rank(*a) > rank(*b);
    });
    return fitting;
  };
  SmallVector<const Candidate *> ranked;
  for (const Candidate &c : skinny)
    if (c.rejection.empty())
      ranked.push_back(&c);
  llvm::append_range(ranked, rankFitting(candidates));
  if (ranked.empty()) {
    InFlightDiagnostic diag =
        op->emitOpError() << "no kernel configuration fits " << target.getChip()
                          << " (scope = " << stringifySyncScope(scope)
                          << ", stages = " << stages << ")";
    if (candidates.empty())
      diag << "; no single-block matrix instruction computes its precision";
    for (const Candidate &c : candidates)
      diag.attachNote() << c.mma->mnemonic << " with tiles "
                        << c.config.getTileM() << "x" << c.config.getTileN()
                        << "x" << c.config.getTileK() << " (waves "
                        << c.config.getWaveTile()[0] << "x"
                        << c.config.getWaveTile()[1] << "): " << c.rejection;
    return failure();
  }
  const Candidate *best = ranked.front();
  // Tuning also tries the other sync scope when the op leaves it open.
  SmallVector<Candidate> otherCandidates;
  if (tuning && !sync) {
    SyncScope other = scope == SyncScope::Workgroup ? SyncScope::Wavefront
                                                    : SyncScope::Workgroup;
    otherCandidates =
        enumerate(op, target, other, other == SyncScope::Workgroup ? 2 : 1);
    // The measured candidates are the heuristic's best of its own scope,
    // then the other scope's best (a quarter of the budget, at least one
    // when the budget has two places), then the rest.
    SmallVector<const Candidate *> others = rankFitting(otherCandidates);
    size_t budget = tuneCandidates;
    size_t theirs = budget >= 2 ? std::max<size_t>(1, budget / 4) : 0;
    size_t own = std::min<size_t>(ranked.size(), budget - theirs);
    SmallVector<const Candidate *> order(ranked.begin(), ranked.begin() + own);
    llvm::append_range(order, others);
    order.append(ranked.begin() + own, ranked.end());
    ranked = std::move(order);
  }
  if (tuning)
    best = tuneChoice(op, ranked);

  ConfigAttr config = best->config;
  op->setAttr("config", config);
  if (explain)
    op->emitRemark() << "selected " << best->mma->mnemonic << ", tiles "
                     << config.getTileM() << "x" << config.getTileN() << "x"
                     << config.getTileK() << ", "
                     << best->cost.wavesPerWorkgroup << " waves of "
                     << config.getWaveTile()[0] << "x"
                     << config.getWaveTile()[1] << ", "
                     << stringifySyncScope(config.getScope()) << " scope, "
                     << config.getStages()
                     << " stage(s): " << best->cost.ldsBytes
                     << " bytes of LDS, about " << best->cost.estimatedVgprs
                     << " VGPRs, " << best->cost.wavesPerSimd
                     << " waves per SIMD";
  if (explain && config.getRhsVector() > 1) {
    op->emitRemark() << "skinny path: rhs_vector = " << config.getRhsVector()
                     << " (16-byte B loads along N, transposed in "
                        "registers), "
                     << config.getSplitK() << " wave(s) each accumulating "
                     << "every " << config.getSplitK()
                     << "th K step, partial sums added through "
                     << best->cost.ldsBytes << " bytes of LDS";
    if (int64_t groups = config.getGlobalSplitK(); groups > 1)
      op->emitRemark() << "global_split_k = " << groups << ": " << groups
                       << " workgroups per output tile each add up 1/"
                       << groups << " of the K steps (limits: "
                       << kSkinnyWavesPerCu
                       << " waves per compute unit, a K step per wave, "
                          "partial sums at most 1/8 of B's bytes); the last "
                          "to arrive adds the partials in group order";
  } else if (explain && config.getSplitK() > 1) {
    int64_t split = config.getSplitK();
    int64_t tm = config.getTileM(), tn = config.getTileN();
    int64_t groups = batch * llvm::divideCeil(m, tm) * llvm::divideCeil(n, tn);
    int64_t steps = llvm::divideCeil(shape[3], config.getTileK());
    int64_t slice = best->cost.wavesPerWorkgroup / split;
    op->emitRemark() << "split_k = " << split << ": " << groups
                     << " workgroup(s) x " << split << " K slices of " << slice
                     << " wave(s) = " << groups * split * slice
                     << " waves (at most one per SIMD: " << simds
                     << ") for " << steps << " K steps; each slice "
                     << "accumulates every " << split
                     << (split == 2 ? "nd" : split == 3 ? "rd" : "th")
                     << " step ("
                     << llvm::divideCeil(steps, split) << " steps instead of "
                     << steps << ") and the partial sums are added through "
                     << best->cost.ldsBytes << " bytes of LDS";
  }
  return success();
}

const Candidate *
SelectConfigPass::tuneChoice(ContractionOpInterface op,
                             ArrayRef<const Candidate *> ranked) {
  TuningRecord record;
  SmallVector<const Candidate *> measured;
  for (const Candidate *c : ranked.take_front(tuneCandidates)) {
    llvm::Expected<ConfigMeasurement> result = measurer->measure(op, c->config);
    if (!result) {
      std::string error = toString(result.takeError());
      if (c == ranked.front()) {
        op->emitWarning() << "not tuned: the heuristic's configuration ("
                          << describeConfig(c->config)
                          << ") could not be measured: " << error;
        return ranked.front();
      }
      op->emitWarning() << "tuning leaves out " << describeConfig(c->config)
                        << ": " << error;
      continue;
    }
    record.candidates.push_back(
        {c->config, result->microseconds, result->cached});
    measured.push_back(c);
  }
  for (auto [i, candidate] : llvm::enumerate(record.candidates))
    if (candidate.microseconds < record.getChosen().microseconds)
      record.chosen = i;
  op->setAttr(CrestDialect::getTuningAttrName(),
              record.toAttr(op->getContext()));
  if (explain)
    op->emitRemark() << "tuned over " << record.candidates.size()
                     << " candidate(s): the heuristic's "
                     << describeConfig(record.getHeuristic().config)
                     << " takes "
                     << llvm::formatv("{0:f3}",
                                      record.getHeuristic().microseconds)
                     << " us, " << describeConfig(record.getChosen().config)
                     << " "
                     << llvm::formatv("{0:f3}", record.getChosen().microseconds)
                     << " us (" << llvm::formatv("{0:f2}", record.getGain())
                     << "x)";
  return measured[record.chosen];
}

ConfigMeasurer::~ConfigMeasurer() = default;

std::unique_ptr<Pass>
crest::createCrestSelectConfigPass(const CrestSelectConfigPassOptions &options,
                                   std::shared_ptr<ConfigMeasurer> measurer) {
  return std::make_unique<SelectConfigPass>(options, std::move(measurer));
}
