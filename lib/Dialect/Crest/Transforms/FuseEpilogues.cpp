//===- FuseEpilogues.cpp - Group ops into crest.kernel regions -----------===//
//
// Builds the crest.kernel regions the kernel generators consume: each
// contraction with the chain of elementwise consumers that forms its
// epilogue, then every remaining chain of elementwise operations. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace crest {
#define GEN_PASS_DEF_CRESTFUSEEPILOGUESPASS
#include "crest/Dialect/Crest/Transforms/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;

namespace {

/// A splat constant: cloned into the kernel body rather than passed in.
bool isSplatConstant(Value v) {
  DenseElementsAttr dense;
  Operation *def = v.getDefiningOp();
  return def && matchPattern(def, m_Constant(&dense)) && dense.isSplat();
}

bool isElementwise(Operation *op) {
  return op->hasTrait<crest::OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         isa_and_nonnull<CrestDialect>(op->getDialect());
}

/// Grows a chain from `head`: appends the single consumer of the chain's
/// last value while it is fusable. `tile` (non-empty for contractions)
/// is the shape every epilogue result must have.
SmallVector<Operation *> growChain(Operation *head, ArrayRef<int64_t> tile) {
  SmallVector<Operation *> chain = {head};
  while (true) {
    Value tail = chain.back()->getResult(0);
    if (tail.use_empty())
      break;
    Operation *user = *tail.user_begin();
    // Every use must be in that one consumer: otherwise the intermediate
    // value escapes and would have to be stored anyway.
    if (llvm::any_of(tail.getUses(),
                     [&](OpOperand &use) { return use.getOwner() != user; }))
      break;
    if (!isElementwise(user) || user->getBlock() != head->getBlock())
      break;
    auto type = cast<RankedTensorType>(user->getResult(0).getType());
    if (!tile.empty() && type.getShape() != tile)
      break;
    chain.push_back(user);
  }
  return chain;
}

/// Replaces `chain` (in program order, each op feeding the next) by one
/// crest.kernel at the position of its last op.
void buildKernel(ArrayRef<Operation *> chain) {
  llvm::SmallPtrSet<Operation *, 8> inChain(chain.begin(), chain.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : chain)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((def && inChain.contains(def)) || isSplatConstant(operand))
        continue;
      inputs.insert(operand);
    }

  Operation *last = chain.back();
  Value result = last->getResult(0);
  OpBuilder b(last);
  auto kernel = KernelOp::create(b, last->getLoc(), TypeRange{result.getType()},
                                 inputs.getArrayRef(), ConfigAttr());
  Block *body = b.createBlock(&kernel.getBody());
  IRMapping map;
  for (Value input : inputs)
    map.map(input, body->addArgument(input.getType(), input.getLoc()));
  b.setInsertionPointToStart(body);
  for (Operation *op : chain) {
    for (Value operand : op->getOperands())
      if (!map.contains(operand) && isSplatConstant(operand))
        map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
    b.clone(*op, map);
  }
  YieldOp::create(b, last->getLoc(), ValueRange{map.lookup(result)});

  result.replaceAllUsesWith(kernel.getResult(0));
  for (Operation *op : llvm::reverse(chain))
    op->erase();
}

class FuseEpiloguesPass
    : public crest::impl::CrestFuseEpiloguesPassBase<FuseEpiloguesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto outsideKernels = [](Operation *op) {
      return !op->getParentOfType<KernelOp>();
    };

    // Contractions (convolutions included: implicit GEMMs and direct
    // kernels both apply the epilogue per output element) and their
    // epilogues.
    SmallVector<Operation *> contractions;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op) && outsideKernels(op))
        contractions.push_back(op);
    });
    for (Operation *op : contractions) {
      auto tile = cast<RankedTensorType>(op->getResult(0).getType());
      SmallVector<Operation *> chain = growChain(op, tile.getShape());
      if (chain.size() < 2)
        continue; // a lone contraction is lowered as it is
      buildKernel(chain);
      ++numContractionKernels;
    }

    // Chains of the remaining elementwise ops, each from its first op.
    SmallVector<Operation *> elementwise;
    module.walk([&](Operation *op) {
      if (isElementwise(op) && outsideKernels(op))
        elementwise.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> claimed;
    for (Operation *op : elementwise) {
      if (claimed.contains(op))
        continue;
      SmallVector<Operation *> chain = growChain(op, {});
      claimed.insert(chain.begin(), chain.end());
      if (chain.size() < 2)
        continue;
      buildKernel(chain);
      ++numElementwiseKernels;
    }
  }
};

} // namespace
