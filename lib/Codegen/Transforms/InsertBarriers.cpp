//===- InsertBarriers.cpp - Place the LDS barriers of GPU kernels ---------===//
//
// Runs BarrierAnalysis on every gpu.func of a gpu.module and inserts an
// `amdgpu.lds_barrier` at each gap of the cheapest placement that orders
// every conflicting pair of LDS accesses. See docs/Barriers.md.
//
//===----------------------------------------------------------------------===//

#include "BarrierAnalysis.h"

#include "crest/Codegen/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace crest {
#define GEN_PASS_DEF_CRESTINSERTBARRIERSPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::barriers;

namespace {

class InsertBarriersPass
    : public crest::impl::CrestInsertBarriersPassBase<InsertBarriersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    unsigned counter = 0;
    bool failed = false;
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>())
      failed |= mlir::failed(runOnFunction(func, counter));
    if (dropBarrier > counter)
      getOperation().emitWarning()
          << "drop-barrier=" << unsigned(dropBarrier) << " but only " << counter
          << " barrier(s) were placed";
    if (failed)
      signalPassFailure();
  }

private:
  LogicalResult runOnFunction(gpu::GPUFuncOp func, unsigned &counter);
};

} // namespace

/// Reports the hazards no barrier at the kernel's sequence level can order.
static LogicalResult reportUnorderable(const BarrierAnalysis &analysis) {
  for (unsigned id : analysis.getUnorderable()) {
    const Hazard &hazard = analysis.getHazards()[id];
    const Access &first = analysis.getAccesses()[hazard.first];
    const Access &second = analysis.getAccesses()[hazard.second];
    InFlightDiagnostic diag =
        second.op->emitError()
        << stringifyHazardKind(hazard.kind)
        << " hazard inside one nested region: " << first.describe() << " -> "
        << second.describe(/*withLoc=*/false)
        << "; crest-insert-barriers places barriers "
           "only between the points of the kernel body "
           "and its K loops";
    diag.attachNote(first.op->getLoc()) << "the conflicting access";
  }
  return failure(!analysis.getUnorderable().empty());
}

LogicalResult InsertBarriersPass::runOnFunction(gpu::GPUFuncOp func,
                                                unsigned &counter) {
  // One wave cannot race with itself on LDS.
  if (isSingleWave(func))
    return success();
  BarrierAnalysis analysis(func);
  if (failed(analysis.run()) || failed(reportUnorderable(analysis)))
    return failure();
  llvm::BitVector barriers = analysis.getExistingBarrierGaps();
  SmallVector<unsigned> plan = analysis.solve(barriers);
  for (unsigned gap : plan)
    barriers.set(gap);

  for (unsigned gap : plan) {
    ++counter;
    const Gap &position = analysis.getGaps()[gap];
    Operation *before = position.insertBefore;
    SmallVector<unsigned> ordered = analysis.orderedBy(gap);
    SmallVector<unsigned> alone = analysis.orderedOnlyBy(gap, barriers);
    auto listPairs = [&](InFlightDiagnostic &diag) {
      for (unsigned id : ordered) {
        diag << "\n  " << analysis.describe(analysis.getHazards()[id]);
        if (!llvm::is_contained(alone, id))
          diag << " (also ordered by another barrier)";
      }
    };
    StringRef where = position.loop >= 0 ? " (in the loop body)" : "";
    if (counter == dropBarrier) {
      InFlightDiagnostic diag = before->emitWarning()
                                << "drop-barrier: barrier " << counter << where
                                << " not inserted; " << alone.size()
                                << " access pair(s) only it orders are left "
                                   "unordered:";
      for (unsigned id : alone)
        diag << "\n  " << analysis.describe(analysis.getHazards()[id]);
      continue;
    }
    OpBuilder builder(before);
    auto barrier = amdgpu::LDSBarrierOp::create(builder, before->getLoc());
    if (printReasons) {
      InFlightDiagnostic diag = barrier->emitRemark()
                                << "barrier " << counter << where << " orders "
                                << ordered.size() << " access pair(s):";
      listPairs(diag);
    }
  }
  return success();
}
