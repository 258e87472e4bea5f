//===- DecomposeVectorSlices.cpp - Strided slices as element moves --------===//
//
// See the pass description in crest/Codegen/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "crest/Codegen/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace crest {
#define GEN_PASS_DEF_CRESTDECOMPOSEVECTORSLICESPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;

namespace {
struct DecomposeVectorSlicesPass
    : crest::impl::CrestDecomposeVectorSlicesPassBase<
          DecomposeVectorSlicesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
