//===- VerifyTarget.cpp - Check GPU code against the chip table -----------===//

#include "crest/Codegen/Transforms/Passes.h"

#include "crest/Codegen/Transforms/TargetChecks.h"
#include "crest/Target/ChipTable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"

namespace crest {
#define GEN_PASS_DEF_CRESTVERIFYTARGETPASS
#include "crest/Codegen/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {

struct VerifyTargetPass
    : crest::impl::CrestVerifyTargetPassBase<VerifyTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    const ChipInfo *info = lookupChip(chip);
    if (!info) {
      root->emitError() << "unknown chip '" << chip
                        << "'; known chips: " << getKnownChipNames();
      return signalPassFailure();
    }
    unsigned resolved = resolveWaveSize(*info, waveSize);
    if (!resolved) {
      root->emitError() << info->name << " does not support wave"
                        << static_cast<unsigned>(waveSize);
      return signalPassFailure();
    }
    bool ok = succeeded(verifyMatrixOps(root, *info, resolved));
    // Only device code must be self-contained; host code may call out.
    root->walk([&](gpu::GPUModuleOp module) {
      ok &= succeeded(verifyNoExternalCalls(module));
      return WalkResult::skip();
    });
    if (barePointers)
      ok &= succeeded(verifyBarePointerKernels(root));
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
