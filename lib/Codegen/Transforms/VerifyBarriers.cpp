//===- VerifyBarriers.cpp - Check the LDS barriers of GPU kernels ---------===//
//
// Runs BarrierAnalysis on every gpu.func of a gpu.module and reports every
// conflicting pair of LDS accesses that no existing barrier orders. See
// docs/Barriers.md.
//
//===----------------------------------------------------------------------===//

#include "BarrierAnalysis.h"

#include "crest/Codegen/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace crest {
#define GEN_PASS_DEF_CRESTVERIFYBARRIERSPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::barriers;

namespace {

class VerifyBarriersPass
    : public crest::impl::CrestVerifyBarriersPassBase<VerifyBarriersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>())
      failed |= mlir::failed(runOnFunction(func));
    if (failed)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  LogicalResult runOnFunction(gpu::GPUFuncOp func);
};

} // namespace

/// What the second access of a hazard may do to the first's data.
static StringRef verbOf(HazardKind kind) {
  switch (kind) {
  case HazardKind::RAW:
    return "may read LDS written by";
  case HazardKind::WAR:
    return "may overwrite LDS still read by";
  case HazardKind::WAW:
    return "may write LDS also written by";
  }
  llvm_unreachable("unknown hazard kind");
}

LogicalResult VerifyBarriersPass::runOnFunction(gpu::GPUFuncOp func) {
  if (isSingleWave(func))
    return success();
  BarrierAnalysis analysis(func);
  if (failed(analysis.run()))
    return failure();
  llvm::BitVector barriers = analysis.getExistingBarrierGaps();
  SmallVector<unsigned> unordered = analysis.findUnordered(barriers);
  ArrayRef<Operation *> ignored = analysis.getIgnoredBarriers();
  for (unsigned id : unordered) {
    const Hazard &hazard = analysis.getHazards()[id];
    const Access &first = analysis.getAccesses()[hazard.first];
    const Access &second = analysis.getAccesses()[hazard.second];
    InFlightDiagnostic diag = second.op->emitError();
    diag << stringifyHazardKind(hazard.kind)
         << " hazard: " << second.describe(/*withLoc=*/false) << " "
         << verbOf(hazard.kind) << " " << first.describe() << " ("
         << hazard.relation << ")";
    if (hazard.obligations.empty())
      diag << "; only a barrier inside that region could order them, and "
              "such barriers are not counted";
    else
      diag << " with no barrier in between";
    diag.attachNote(first.op->getLoc()) << "the conflicting access";
    if (!ignored.empty())
      diag.attachNote(ignored.front()->getLoc())
          << ignored.size()
          << " barrier(s) inside nested regions are not counted: they may "
             "not execute";
  }

  if (reportRedundant) {
    for (auto [gap, position] : llvm::enumerate(analysis.getGaps())) {
      if (position.barriers.empty())
        continue;
      bool needed = !analysis.orderedOnlyBy(gap, barriers).empty();
      for (auto [i, barrier] : llvm::enumerate(position.barriers))
        if (!needed || i > 0)
          barrier->emitRemark()
              << "redundant barrier: every access pair it orders is "
                 "ordered by another barrier";
    }
  }
  return failure(!unordered.empty());
}
