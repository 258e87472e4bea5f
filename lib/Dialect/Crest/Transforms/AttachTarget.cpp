//===- AttachTarget.cpp - Attach a #crest.target to a module
//-----------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"

namespace crest {
#define GEN_PASS_DEF_CRESTATTACHTARGETPASS
#include "crest/Dialect/Crest/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {
struct AttachTargetPass
    : public crest::impl::CrestAttachTargetPassBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto emitError = [&] { return module.emitError(); };
    if (failed(TargetAttr::verifyInvariants(emitError, chip, waveSize)))
      return signalPassFailure();
    module->setAttr(CrestDialect::getTargetAttrName(),
                    TargetAttr::get(&getContext(), chip, waveSize));
    // Check every contraction against the new chip here, so the pass fails
    // even when the pass manager's own verification is off.
    if (failed(verify(module)))
      signalPassFailure();
  }
};
} // namespace
