//===- FuseEpilogues.cpp - Group ops into crest.kernel regions -----------===//
//
// Builds the crest.kernel regions the kernel generators consume: each
// contraction with the graph of elementwise operations that forms its
// epilogue, then every remaining chain of elementwise operations. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/Transforms/Passes.h"

#include "crest/Codegen/RowKernels.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Target/ChipTable.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
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

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Unit reshapes between a contraction and its epilogue
//===----------------------------------------------------------------------===//

/// How many unit dimensions `reshape` prepends to its input's shape
/// (`128x768 -> 1x128x768`: 1), or 0 when it does anything else.
int64_t getPrependedUnitDims(ReshapeOp reshape) {
  ArrayRef<int64_t> in = tensorType(reshape.getInput()).getShape();
  ArrayRef<int64_t> out = tensorType(reshape.getResult()).getShape();
  int64_t extra = int64_t(out.size()) - int64_t(in.size());
  if (extra <= 0 || out.drop_front(extra) != in ||
      llvm::any_of(out.take_front(extra), [](int64_t d) { return d != 1; }))
    return 0;
  return extra;
}

/// `op(reshape(x), y)` -> `reshape(op(x, y'))` when the reshape prepends
/// unit dimensions to the result of a contraction or of an elementwise op
/// and every other operand has at most x's rank or leading unit dimensions
/// to drop (y' is y without them). The elementwise ops after an ONNX
/// MatMul then work on the contraction's own shape and join its epilogue.
struct SinkUnitReshape : public RewritePattern {
  SinkUnitReshape(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getParentOfType<KernelOp>())
      return failure();
    int64_t drop = 0;
    for (Value operand : op->getOperands()) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (!reshape)
        continue;
      Operation *source = reshape.getInput().getDefiningOp();
      if (!source ||
          !(isa<ContractionOpInterface>(source) || isElementwise(source)))
        continue;
      if ((drop = getPrependedUnitDims(reshape)))
        break;
    }
    if (drop == 0)
      return rewriter.notifyMatchFailure(op, "no unit reshape to sink");
    RankedTensorType resultType = tensorType(op->getResult(0));
    ArrayRef<int64_t> shape = resultType.getShape();
    if (int64_t(shape.size()) < drop ||
        llvm::any_of(shape.take_front(drop), [](int64_t d) { return d != 1; }))
      return rewriter.notifyMatchFailure(op, "result has no unit dims");
    int64_t rank = int64_t(shape.size()) - drop;
    // Every operand must be expressible at the lower rank.
    for (Value operand : op->getOperands()) {
      ArrayRef<int64_t> s = tensorType(operand).getShape();
      int64_t extra = int64_t(s.size()) - rank;
      if (extra > 0 &&
          llvm::any_of(s.take_front(extra), [](int64_t d) { return d != 1; }))
        return rewriter.notifyMatchFailure(op, "operand needs its leading dims");
    }

    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      RankedTensorType type = tensorType(operand);
      int64_t extra = type.getRank() - rank;
      if (extra <= 0) {
        operands.push_back(operand);
        continue;
      }
      auto lower = RankedTensorType::get(type.getShape().drop_front(extra),
                                         type.getElementType());
      if (auto reshape = operand.getDefiningOp<ReshapeOp>();
          reshape && reshape.getInput().getType() == lower) {
        operands.push_back(reshape.getInput());
        continue;
      }
      DenseElementsAttr dense;
      if (matchPattern(operand, m_Constant(&dense)) && dense.isSplat()) {
        operands.push_back(
            arith::ConstantOp::create(rewriter, loc, dense.reshape(lower)));
        continue;
      }
      operands.push_back(ReshapeOp::create(rewriter, loc, lower, operand));
    }
    auto lowerResult = RankedTensorType::get(shape.drop_front(drop),
                                             resultType.getElementType());
    OperationState state(loc, op->getName(), operands, TypeRange{lowerResult},
                         op->getAttrs());
    Operation *lowered = rewriter.create(state);
    llvm::SmallSetVector<Operation *, 2> sources;
    for (Value operand : op->getOperands())
      if (auto reshape = operand.getDefiningOp<ReshapeOp>())
        sources.insert(reshape);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType,
                                           lowered->getResult(0));
    // The reshapes it read may be dead now (they would count as outside
    // uses of the epilogue's values).
    for (Operation *reshape : sources)
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
    return success();
  }
};

/// Ops cheap enough to recompute at every load of an operand element.
bool isCheapElementwise(Operation *op) {
  return isa<CastOp, AddOp, SubOp, MulOp, NegOp, AbsOp, ReluOp, ClipOp, MaxOp,
             MinOp>(op);
}

/// The operand of elementwise op `op` that a reshape of its result can be
/// moved above: its one operand of the result's shape, when every other
/// operand is a scalar (rank 0, broadcast at any rank); else null.
Value getReshapeableOperand(Operation *op) {
  if (!isElementwise(op))
    return {};
  Value main;
  for (Value v : op->getOperands()) {
    if (tensorType(v).getRank() == 0)
      continue;
    if (main || tensorType(v).getShape() !=
                    tensorType(op->getResult(0)).getShape())
      return {};
    main = v;
  }
  return main;
}

/// A data-movement op a cast commutes with: one tensor operand, elements
/// moved, not changed.
bool isCastCommuting(Operation *op) {
  return isa_and_nonnull<ReshapeOp, TransposeOp, SliceOp>(op);
}

/// Whether `v` is computed (through data movement only, unless
/// `throughDataMovement` is false) by a contraction or an elementwise op
/// outside kernels: an elementwise op on it can join that op's kernel (its
/// epilogue or chain), where it is computed once per element and stored in
/// its own type.
bool isComputedByFusableOp(Value v, bool throughDataMovement = true) {
  Operation *def = v.getDefiningOp();
  while (throughDataMovement && isCastCommuting(def))
    def = def->getOperand(0).getDefiningOp();
  return def && !def->getParentOfType<KernelOp>() &&
         (isa<MatmulOp, BatchMatmulOp, Conv2DOp>(def) || isElementwise(def));
}

/// `cast(d(x))` -> `d(cast(x))` for a single-use reshape, transpose or
/// slice `d` when x comes (through data movement) from a contraction or an
/// elementwise op: the cast joins that kernel, the data movement moves
/// the narrower type, and the cast is no launch of its own. The casts of
/// several slices of one value become one cast of the value (the Q, K and
/// V of a fused projection in f16).
struct HoistCastAboveDataMovement : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp cast,
                                PatternRewriter &rewriter) const override {
    Operation *move = cast.getInput().getDefiningOp();
    if (!isCastCommuting(move) || !move->hasOneUse() ||
        cast->getParentOfType<KernelOp>() ||
        move->getBlock() != cast->getBlock())
      return rewriter.notifyMatchFailure(cast, "not a cast of data movement");
    Value source = move->getOperand(0);
    if (!isComputedByFusableOp(source))
      return rewriter.notifyMatchFailure(cast, "no fusable producer");
    Type elt = tensorType(cast.getResult()).getElementType();
    auto castType =
        RankedTensorType::get(tensorType(source).getShape(), elt);
    // One cast per source value and type.
    CastOp hoisted;
    for (Operation *user : source.getUsers())
      if (auto other = dyn_cast<CastOp>(user);
          other && other.getResult().getType() == castType &&
          other->getBlock() == cast->getBlock())
        hoisted = other;
    if (!hoisted) {
      rewriter.setInsertionPointAfterValue(source);
      hoisted = CastOp::create(rewriter, cast.getLoc(), castType, source);
    } else if (!hoisted->isBeforeInBlock(move)) {
      rewriter.moveOpBefore(hoisted, move);
    }
    rewriter.setInsertionPoint(cast);
    OperationState state(move->getLoc(), move->getName(),
                         {hoisted.getResult()},
                         {cast.getResult().getType()}, move->getAttrs());
    rewriter.replaceOp(cast, rewriter.create(state)->getResults());
    rewriter.eraseOp(move);
    return success();
  }
};

/// Most elementwise ops a reshape is moved above on its way to a
/// contraction.
constexpr unsigned kMaxHoistDepth = 6;

/// Whether every use of `v` is a contraction's lhs or rhs, directly or
/// through single-use elementwise ops a reshape can be moved above.
bool feedsContractionOperandsOnly(Value v, unsigned depth = 0) {
  if (v.use_empty() || depth >= kMaxHoistDepth)
    return false;
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<ContractionOpInterface>(user))
      return use.getOperandNumber() < 2;
    return getReshapeableOperand(user) == use.get() && user->hasOneUse() &&
           feedsContractionOperandsOnly(user->getResult(0), depth + 1);
  });
}

/// `reshape(u(x, s))` -> `u(reshape(x), s)` for an elementwise op `u` (a
/// cast, a multiply by a scalar scale) whose only use is a reshape feeding
/// contraction operands (through more such ops): the ops then compute the
/// contraction's operand directly and join its prologue. (The reshape is a
/// buffer alias; the op's kernel would be a launch of its own.)
struct HoistReshapeAboveElementwise : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp reshape,
                                PatternRewriter &rewriter) const override {
    Operation *op = reshape.getInput().getDefiningOp();
    Value source = op ? getReshapeableOperand(op) : Value();
    if (!source || !op->hasOneUse() || reshape->getParentOfType<KernelOp>() ||
        op->getBlock() != reshape->getBlock())
      return rewriter.notifyMatchFailure(reshape, "no elementwise producer");
    // Ops on a contraction's or elementwise op's value join that kernel
    // (computed once, stored narrower) rather than the consumer's loads;
    // look through the scalar-operand ops a reshape could move above.
    Value root = source;
    while (Operation *def = root.getDefiningOp()) {
      Value next = getReshapeableOperand(def);
      if (!next || !isCheapElementwise(def))
        break;
      root = next;
    }
    // (A cast that could move above data movement towards such an op has
    // been moved already.)
    if (isComputedByFusableOp(root, /*throughDataMovement=*/false))
      return rewriter.notifyMatchFailure(reshape, "joins its producer");
    if (!feedsContractionOperandsOnly(reshape.getResult()))
      return rewriter.notifyMatchFailure(reshape, "not a contraction operand");
    ArrayRef<int64_t> shape = tensorType(reshape.getResult()).getShape();
    rewriter.setInsertionPoint(reshape);
    Value reshaped = ReshapeOp::create(
        rewriter, reshape.getLoc(),
        RankedTensorType::get(shape, tensorType(source).getElementType()),
        source);
    SmallVector<Value> operands(op->getOperands());
    for (Value &v : operands)
      if (v == source)
        v = reshaped;
    OperationState state(op->getLoc(), op->getName(), operands,
                         {reshape.getResult().getType()}, op->getAttrs());
    rewriter.replaceOp(reshape, rewriter.create(state)->getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Epilogue groups
//===----------------------------------------------------------------------===//

struct FusionLimits {
  unsigned maxResults;
  unsigned registerBudget;
  bool remarks;
};

/// 32-bit registers one element of `v` takes while the epilogue computes
/// (f16 and bf16 compute in f32).
unsigned getRegisters(Value v) {
  return tensorType(v).getElementTypeBitWidth() > 32 ? 2 : 1;
}

/// The contraction and its epilogue ops, in program order.
class EpilogueGroup {
public:
  explicit EpilogueGroup(Operation *contraction) { ops.insert(contraction); }

  Operation *getContraction() const { return ops.front(); }
  ArrayRef<Operation *> getOps() const { return ops.getArrayRef(); }
  bool contains(Operation *op) const { return ops.contains(op); }
  bool computes(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && ops.contains(def);
  }
  void add(Operation *op) { ops.insert(op); }
  void popBack() { ops.pop_back(); }

  /// The group's values used outside it (or returned), in program order:
  /// the kernel's results. The last op's value is always one.
  SmallVector<Value> getResults() const {
    SmallVector<Value> results;
    for (Operation *op : ops) {
      Value v = op->getResult(0);
      if (op == ops.back() ||
          llvm::any_of(v.getUsers(),
                       [&](Operation *user) { return !ops.contains(user); }))
        results.push_back(v);
    }
    return results;
  }

  /// The most 32-bit values live at once while the epilogue (with
  /// `extra` appended) computes one output element: the contraction's
  /// value, each loaded input from its first to its last use, each
  /// computed value until its last use, and every result until the stores
  /// at the end.
  unsigned estimateLiveRegisters(Operation *extra) const {
    SmallVector<Operation *> seq(ops.begin(), ops.end());
    if (extra)
      seq.push_back(extra);
    llvm::SmallPtrSet<Operation *, 16> members(seq.begin(), seq.end());
    DenseMap<Value, size_t> lastUse;
    DenseMap<Value, size_t> firstUse;
    for (auto [index, op] : llvm::enumerate(seq)) {
      if (index == 0)
        continue; // the contraction's operands are not epilogue values
      for (Value operand : op->getOperands()) {
        if (isSplatConstant(operand))
          continue;
        firstUse.try_emplace(operand, index);
        lastUse[operand] = index;
      }
    }
    size_t end = seq.size();
    for (auto [index, op] : llvm::enumerate(seq)) {
      Value v = op->getResult(0);
      bool escapes = op == seq.back() ||
                     llvm::any_of(v.getUsers(), [&](Operation *user) {
                       return !members.contains(user);
                     });
      if (escapes)
        lastUse[v] = end;
      firstUse[v] = index;
    }
    unsigned peak = 0;
    for (size_t step = 0; step <= end; ++step) {
      unsigned live = 0;
      for (auto [v, first] : firstUse) {
        auto last = lastUse.find(v);
        if (last != lastUse.end() && first <= step && step <= last->second)
          live += getRegisters(v);
      }
      peak = std::max(peak, live);
    }
    return peak;
  }

private:
  llvm::SetVector<Operation *> ops;
};

std::string describe(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// Grows `group` over the ops after its contraction in program order. An
/// op that uses a group value but cannot join taints its results: ops that
/// depend on them cannot join either (the kernel would depend on itself).
void growEpilogue(EpilogueGroup &group, const FusionLimits &limits,
                  unsigned &refused) {
  Operation *contraction = group.getContraction();
  ArrayRef<int64_t> tile =
      tensorType(contraction->getResult(0)).getShape();
  DenseSet<Value> tainted;
  auto refuse = [&](Operation *op, const Twine &why) {
    ++refused;
    if (limits.remarks)
      op->emitRemark() << "not fused into the epilogue of "
                       << describe(contraction) << ": " << why;
  };
  for (Operation &op : llvm::make_range(std::next(contraction->getIterator()),
                                        contraction->getBlock()->end())) {
    bool usesGroup = llvm::any_of(
        op.getOperands(), [&](Value v) { return group.computes(v); });
    bool usesTainted = llvm::any_of(
        op.getOperands(), [&](Value v) { return tainted.contains(v); });
    if (!usesGroup && !usesTainted)
      continue;
    if (usesGroup && isElementwise(&op)) {
      ArrayRef<int64_t> shape = tensorType(op.getResult(0)).getShape();
      unsigned live = 0;
      if (usesTainted) {
        refuse(&op, "an operand depends on the kernel's own values through "
                    "an op outside it");
      } else if (shape != tile) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "its result (";
        llvm::interleave(shape, os, "x");
        os << ") is larger than the output tile (";
        llvm::interleave(tile, os, "x");
        os << "): each output element would be computed more than once";
        refuse(&op, text);
      } else if ((live = group.estimateLiveRegisters(&op)) >
                 limits.registerBudget) {
        refuse(&op, "the epilogue would keep " + Twine(live) +
                        " values live per output element, above the "
                        "register budget of " +
                        Twine(limits.registerBudget));
      } else {
        group.add(&op);
        continue;
      }
    }
    for (Value result : op.getResults())
      tainted.insert(result);
  }

  // Every value used outside becomes a result; give up the last ops until
  // the kernel has few enough.
  while (group.getOps().size() > 1 &&
         group.getResults().size() > limits.maxResults) {
    Operation *last = group.getOps().back();
    size_t results = group.getResults().size();
    group.popBack();
    refuse(last, "the kernel would need " + Twine(results) +
                     " results (max-results = " + Twine(limits.maxResults) +
                     "); its values used outside it would have to be "
                     "recomputed there");
  }
}

//===----------------------------------------------------------------------===//
// Operand prologues
//===----------------------------------------------------------------------===//

/// Most ops one operand's prologue takes (each is recomputed at every load
/// of the operand's element).
constexpr size_t kMaxPrologueOps = 4;

/// The elementwise ops (in program order) that compute operand #`operand`
/// of `contraction` from a tensor of the operand's shape, to be applied as
/// the kernel loads the operand (a cast, a per-channel scale-and-shift):
/// a chain of single-use cheap ops (the first may also feed other
/// contractions' operands), each with one operand of the operand's shape
/// and splat constants for the others.
SmallVector<Operation *> collectPrologue(Operation *contraction,
                                         unsigned operand,
                                         const FusionLimits &limits,
                                         unsigned &refused) {
  SmallVector<Operation *> chain;
  auto refuse = [&](Operation *op, const Twine &why) {
    ++refused;
    if (limits.remarks)
      op->emitRemark() << "not fused into the "
                       << (operand == 0 ? "lhs" : "rhs") << " loads of "
                       << describe(contraction) << ": " << why;
  };
  Value value = contraction->getOperand(operand);
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  while (Operation *def = value.getDefiningOp()) {
    if (!isElementwise(def) || def->getParentOfType<KernelOp>() ||
        def->getBlock() != contraction->getBlock())
      break;
    if (auto conv = dyn_cast<Conv2DOp>(contraction);
        conv && conv.getGroups() != 1) {
      refuse(def, "a grouped convolution's direct kernel reads its operands "
                  "without a prologue");
      break;
    }
    if (!isCheapElementwise(def)) {
      refuse(def, "only casts and simple arithmetic join an operand's loads, "
                  "where they are recomputed at every load");
      break;
    }
    // The op feeding the contraction may feed other contractions' operands
    // too (a cast of the input of Q, K and V projections): each gets a copy
    // in its loads and the op's own kernel disappears. Further up, the
    // chain takes single-use ops only.
    bool contractionsOnly = llvm::all_of(value.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return isa<ContractionOpInterface>(user) && use.getOperandNumber() < 2 &&
             user->getBlock() == contraction->getBlock();
    });
    if (!value.hasOneUse() && !(chain.empty() && contractionsOnly)) {
      refuse(def, "its result has other uses, which would still need it "
                  "computed on its own");
      break;
    }
    if (chain.size() == kMaxPrologueOps) {
      refuse(def, "the prologue already has " + Twine(kMaxPrologueOps) +
                      " ops, the most one operand's loads take");
      break;
    }
    // The operand the chain continues through: the first of the shape.
    Value next;
    for (Value v : def->getOperands())
      if (!isSplatConstant(v) && tensorType(v).getShape() == shape) {
        next = v;
        break;
      }
    if (!next)
      break;
    if (tensorType(next).getElementType().isInteger(1)) {
      refuse(def, "the operand's loads cannot read a bool tensor as vectors");
      break;
    }
    // Another tensor read per element joins the loads when it is
    // broadcast (a per-channel or per-row scale, the squeeze-excite
    // multiply): it is small and stays in the caches while every load of
    // the operand reads it. One of the operand's own size would double the
    // traffic of every load.
    int64_t elements = tensorType(next).getNumElements();
    if (llvm::any_of(def->getOperands(), [&](Value v) {
          return v != next && !isSplatConstant(v) &&
                 tensorType(v).getNumElements() >= elements;
        })) {
      refuse(def, "it reads another tensor of the operand's size, which "
                  "every load of the operand would load again");
      break;
    }
    chain.push_back(def);
    value = next;
  }
  // A chain cut below an elementwise op stays with it: that op is a kernel
  // anyway, and the chain's ops end it (a narrower store) instead of
  // adding work to the contraction's loads.
  if (Operation *def = value.getDefiningOp();
      !chain.empty() && def && isElementwise(def) &&
      !def->getParentOfType<KernelOp>() &&
      def->getBlock() == contraction->getBlock())
    return {};
  std::reverse(chain.begin(), chain.end());
  return chain;
}

//===----------------------------------------------------------------------===//
// Attention views
//===----------------------------------------------------------------------===//

/// The reshapes, slices and transposes (single-use, outside kernels, in
/// `attention`'s block) that compute `operand`, in program order, as far up
/// as the attention kernel can read through them with its rows contiguous
/// (checkContiguousView).
SmallVector<Operation *> collectView(Operation *attention, Value operand) {
  SmallVector<Operation *> chain;
  while (Operation *def = operand.getDefiningOp()) {
    if (!isa<ReshapeOp, SliceOp, TransposeOp>(def) || !operand.hasOneUse() ||
        def->getBlock() != attention->getBlock())
      break;
    SmallVector<Operation *> longer = {def};
    longer.append(chain.rbegin(), chain.rend());
    if (checkContiguousView(longer))
      break;
    chain.push_back(def);
    operand = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// Grows a chain from `head`: appends the single consumer of the chain's
/// last value while it is fusable (elementwise-only kernels).
SmallVector<Operation *> growChain(Operation *head) {
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
    chain.push_back(user);
  }
  return chain;
}

/// Replaces `ops` (in program order, each but the first using a value of
/// an earlier one) by one crest.kernel at the position of the last op,
/// yielding `results`. Returns whether an outside use of a result now
/// comes before the kernel (the block must be re-sorted).
bool buildKernel(ArrayRef<Operation *> ops, ArrayRef<Value> results) {
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((def && members.contains(def)) || isSplatConstant(operand))
        continue;
      inputs.insert(operand);
    }

  Operation *last = ops.back();
  OpBuilder b(last);
  SmallVector<Type> resultTypes;
  for (Value r : results)
    resultTypes.push_back(r.getType());
  auto kernel = KernelOp::create(b, last->getLoc(), resultTypes,
                                 inputs.getArrayRef(), ConfigAttr());
  Block *body = b.createBlock(&kernel.getBody());
  IRMapping map;
  for (Value input : inputs)
    map.map(input, body->addArgument(input.getType(), input.getLoc()));
  b.setInsertionPointToStart(body);
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!map.contains(operand) && isSplatConstant(operand))
        map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
    b.clone(*op, map);
  }
  SmallVector<Value> yielded;
  for (Value r : results)
    yielded.push_back(map.lookup(r));
  YieldOp::create(b, last->getLoc(), yielded);

  bool unsorted = false;
  for (auto [result, replacement] :
       llvm::zip(results, kernel.getResults())) {
    Value r = result;
    r.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
    for (Operation *user : replacement.getUsers()) {
      Operation *ancestor = kernel->getBlock()->findAncestorOpInBlock(*user);
      unsorted |= ancestor && ancestor->isBeforeInBlock(kernel);
    }
  }
  // A prologue op that also feeds other contractions stays for them.
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      op->erase();
  return unsorted;
}

/// Wraps `attention` with the data movement computing its operands (the
/// slices of a fused QKV projection, the split into heads) into one
/// crest.kernel that reads the sources through them. Returns whether a use
/// of a result (the log-sum-exp's) now comes before the kernel.
bool fuseAttentionViews(AttentionOp attention, bool remarks) {
  // Q, K and V (the KV length and the mask are read as they are).
  SmallVector<Operation *> ops;
  for (Value operand :
       {attention.getQuery(), attention.getKey(), attention.getValue()})
    llvm::append_range(ops, collectView(attention, operand));
  // The result is stored through the single-use reshapes and transposes
  // after it (the heads back to [B, L, H * Dv]).
  SmallVector<Operation *> after;
  for (Value value = attention.getResult(); value.hasOneUse();) {
    Operation *user = *value.user_begin();
    if (!isa<ReshapeOp, TransposeOp>(user) ||
        user->getBlock() != attention->getBlock())
      break;
    after.push_back(user);
    value = user->getResult(0);
  }
  if (ops.empty() && after.empty())
    return false;
  llvm::sort(ops, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  if (remarks)
    attention.emitRemark()
        << "reads its operands through " << ops.size()
        << " reshape(s), slice(s) and transpose(s) and stores its result "
           "through "
        << after.size() << " reshape(s) and transpose(s), which join its "
                           "kernel";
  SmallVector<Operation *> all(ops);
  all.push_back(attention);
  llvm::append_range(all, after);
  SmallVector<Value> results(attention->getResults());
  if (!after.empty())
    results[0] = after.back()->getResult(0);
  return buildKernel(all, results);
}

//===----------------------------------------------------------------------===//
// Row prologues
//===----------------------------------------------------------------------===//

/// Most ops a row op's (a layer norm's, softmax's or reduction's) prologue
/// holds.
constexpr unsigned kMaxRowPrologue = 8;

/// Whether some operand of a member of `ops` (program order, then `row`)
/// that is not computed by a member depends on a member through ops
/// outside them: the kernel would then depend on its own result.
bool dependsOnItself(ArrayRef<Operation *> ops, Operation *row) {
  llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
  members.insert(row);
  DenseSet<Value> tainted; // outside values that depend on a member
  for (Operation &op :
       llvm::make_range(ops.front()->getIterator(), row->getIterator())) {
    bool fromMembers = false, fromTainted = false;
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        Operation *def = v.getDefiningOp();
        fromMembers |= def && members.contains(def);
        fromTainted |= tainted.contains(v);
      }
    });
    if (members.contains(&op)) {
      if (fromTainted)
        return true;
      continue;
    }
    if (fromMembers || fromTainted)
      for (Value v : op.getResults())
        tainted.insert(v);
  }
  return llvm::any_of(row->getOperands(),
                      [&](Value v) { return tainted.contains(v); });
}

/// The ops computing `row`'s (a row op's) input that join its kernel, in
/// program order: elementwise ops and gathers outside kernels, in its
/// block, each with a result of the input's shape, found upwards from the
/// input through the operands of that shape. The kernel evaluates them
/// once per element as it reads its rows of `rowLength` elements, which
/// must be rows it holds in registers (isCachedRow; with `waveSize` 0,
/// never): a layer norm or softmax reads longer rows three times, and a
/// reduction reads them lane-strided, one load in flight per lane, where
/// the prologue's loads of its inputs would make it slower than the
/// separate kernels (scripts/bench-fusion.py).
SmallVector<Operation *> collectRowPrologue(Operation *row, Value input,
                                            int64_t rowLength,
                                            unsigned waveSize,
                                            const FusionLimits &limits) {
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  llvm::SetVector<Operation *> found;
  SmallVector<Value> worklist = {input};
  while (!worklist.empty() && found.size() < kMaxRowPrologue) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || found.contains(def) || def->getBlock() != row->getBlock() ||
        !(isElementwise(def) || isa<GatherOp>(def)) ||
        tensorType(v).getShape() != shape)
      continue;
    found.insert(def);
    if (isa<GatherOp>(def))
      continue; // its table and indices are read as they are
    for (Value operand : def->getOperands())
      if (!isSplatConstant(operand) && tensorType(operand).getShape() == shape)
        worklist.push_back(operand);
  }
  SmallVector<Operation *> ops(found.begin(), found.end());
  if (ops.empty())
    return ops;
  llvm::sort(ops, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  auto refuse = [&](const Twine &why) {
    if (limits.remarks)
      row->emitRemark() << "computes its input in its own kernel: " << why;
    return SmallVector<Operation *>();
  };
  if (waveSize == 0)
    return refuse("the module has no #crest.target to size its rows by");
  if (!isCachedRow(rowLength, waveSize)) {
    if (isa<LayerNormOp, SoftmaxOp>(row))
      return refuse("its rows of " + Twine(rowLength) +
                    " elements are read three times, which would compute "
                    "the " +
                    Twine(ops.size()) + " op(s) before it three times");
    return refuse("its rows of " + Twine(rowLength) +
                  " elements are read one element per lane at a time, "
                  "which would wait on each load of the " +
                  Twine(ops.size()) + " op(s) before it");
  }
  if (dependsOnItself(ops, row))
    return refuse("an operand of the ops before it depends on their own "
                  "values through an op outside them");
  unsigned results = 1;
  for (Operation *op : ops)
    results += llvm::any_of(op->getUsers(), [&](Operation *user) {
      return user != row && !found.contains(user);
    });
  if (results > limits.maxResults)
    return refuse("the kernel would need " + Twine(results) +
                  " results (max-results = " + Twine(limits.maxResults) +
                  ")");
  return ops;
}

/// Most ops a row op's epilogue holds.
constexpr unsigned kMaxRowEpilogue = 8;

/// The elementwise ops after `row` that join its kernel as its epilogue,
/// in program order, given its `prologue`: outside kernels, in its block,
/// each reading a value of the row op or of the epilogue, with a result of
/// the row op's result shape (applied once per result element as it is
/// stored), and no operand that is a prologue value or depends on the
/// group through an op outside it (the kernel would depend on itself).
SmallVector<Operation *> collectRowEpilogue(Operation *row,
                                            ArrayRef<Operation *> prologue,
                                            const FusionLimits &limits) {
  ArrayRef<int64_t> shape = tensorType(row->getResult(0)).getShape();
  DenseSet<Value> group = {row->getResult(0)};
  DenseSet<Value> avoid; // prologue values and what depends on the group
  for (Operation *op : prologue)
    avoid.insert(op->getResult(0));
  SmallVector<Operation *> epilogue;
  auto refuse = [&](Operation *op, const Twine &why) {
    if (limits.remarks)
      op->emitRemark() << "not fused into the kernel of " << describe(row)
                       << ": " << why;
  };
  Operation *first = prologue.empty() ? row : prologue.front();
  for (Operation &op : llvm::make_range(std::next(first->getIterator()),
                                        row->getBlock()->end())) {
    if (llvm::is_contained(prologue, &op) || &op == row)
      continue;
    bool usesGroup = false, usesAvoided = false;
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        usesGroup |= group.contains(v);
        usesAvoided |= avoid.contains(v);
      }
    });
    if (!usesGroup && !usesAvoided)
      continue;
    if (usesGroup && isElementwise(&op) && row->isBeforeInBlock(&op)) {
      if (usesAvoided) {
        refuse(&op, "an operand is a value of its prologue or depends on the "
                    "kernel's own values through an op outside it");
      } else if (tensorType(op.getResult(0)).getShape() != shape) {
        refuse(&op, "its result is larger than the row op's: each of its "
                    "result elements would be computed more than once");
      } else if (epilogue.size() == kMaxRowEpilogue) {
        refuse(&op, "the epilogue has " + Twine(kMaxRowEpilogue) +
                        " ops already");
      } else {
        epilogue.push_back(&op);
        group.insert(op.getResult(0));
        continue;
      }
    }
    for (Value v : op.getResults())
      avoid.insert(v);
  }
  return epilogue;
}

/// Wraps the row op `row` (a layer norm, softmax, reduce_* or
/// global_avg_pool2d) with the ops computing its input (collectRowPrologue)
/// and the elementwise ops computed from its result (collectRowEpilogue)
/// into one crest.kernel, which also returns their values used elsewhere;
/// the prologue only with `prologues`. Returns whether the block must be
/// re-sorted; `fused` counts the ops that joined the row op.
bool fuseRowGroup(Operation *row, unsigned waveSize, bool prologues,
                  const FusionLimits &limits, unsigned &fused) {
  SmallVector<Operation *> prologue;
  if (prologues)
    prologue = collectRowPrologue(row, row->getOperand(0),
                                  getRowLength(row), waveSize, limits);
  SmallVector<Operation *> epilogue =
      collectRowEpilogue(row, prologue, limits);
  // The values used outside (or returned): the kernel's results. The row
  // op's or the epilogue's last value is always one.
  auto getResults = [&]() {
    llvm::SmallPtrSet<Operation *, 16> members(prologue.begin(),
                                               prologue.end());
    members.insert(row);
    members.insert(epilogue.begin(), epilogue.end());
    SmallVector<Operation *> ops(prologue);
    ops.push_back(row);
    llvm::append_range(ops, epilogue);
    SmallVector<Value> results;
    for (Operation *op : ops) {
      Value v = op->getResult(0);
      bool last = epilogue.empty() ? op == row : op == epilogue.back();
      if (last || llvm::any_of(v.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        results.push_back(v);
    }
    return results;
  };
  while (!epilogue.empty() && getResults().size() > limits.maxResults) {
    size_t results = getResults().size();
    Operation *last = epilogue.pop_back_val();
    if (limits.remarks)
      last->emitRemark() << "not fused into the kernel of " << describe(row)
                         << ": the kernel would need " << results
                         << " results (max-results = " << limits.maxResults
                         << ")";
  }
  if (prologue.empty() && epilogue.empty())
    return false;
  if (limits.remarks)
    row->emitRemark() << "reads its input through " << prologue.size()
                      << " op(s) and stores its result through "
                      << epilogue.size() << " op(s), which join its kernel";
  SmallVector<Value> results = getResults();
  SmallVector<Operation *> ops(prologue);
  ops.push_back(row);
  llvm::append_range(ops, epilogue);
  fused += ops.size() - 1;
  return buildKernel(ops, results);
}

/// Re-sorts `blocks` after kernels were built in them whose results are
/// used earlier; a cycle (a bug of the grouping rules) is an error.
LogicalResult sortBlocks(ModuleOp module,
                         const llvm::SetVector<Block *> &blocks) {
  for (Block *block : blocks)
    if (!sortTopologically(block))
      return module.emitError()
             << "crest-fuse-epilogues: the fused graph has a cycle";
  return success();
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

    RewritePatternSet patterns(&getContext());
    patterns.add<SinkUnitReshape>(&getContext());
    // Gathers of evenly spaced constant indices become slices, which
    // crest-lower-ops-to-gpu leaves without a kernel when they are
    // contiguous windows of their input.
    GatherOp::getCanonicalizationPatterns(patterns, &getContext());
    // One walk in program order: each rewrite hands the reshape on to the
    // next consumer. No folding and no dead-code removal.
    walkAndApplyPatterns(module, std::move(patterns));

    FusionLimits limits;
    limits.maxResults = std::max(1u, unsigned(maxResults));
    limits.remarks = remarks;
    limits.registerBudget = registerBudget;
    if (limits.registerBudget == 0) {
      limits.registerBudget = 32;
      if (TargetAttr target = lookupTarget(module))
        if (const ChipInfo *chip = target.getChipInfo())
          limits.registerBudget = chip->maxArchVgprs / 8;
    }

    // Contractions (convolutions included: implicit GEMMs and direct
    // kernels both apply the epilogue per output element) and their
    // epilogues.
    // A cast of data movement goes above it, towards the contraction or
    // elementwise op it can join; a reshape between a cast (or a scaling)
    // of anything else and a contraction goes above the cast, which joins
    // the contraction's loads. Each walk moves every such op one op up;
    // the chains are at most kMaxHoistDepth deep.
    for (unsigned i = 0; prologues && i < kMaxHoistDepth; ++i) {
      RewritePatternSet hoist(&getContext());
      hoist.add<HoistCastAboveDataMovement>(&getContext());
      walkAndApplyPatterns(module, std::move(hoist));
    }
    for (unsigned i = 0; prologues && i < kMaxHoistDepth; ++i) {
      RewritePatternSet hoist(&getContext());
      hoist.add<HoistReshapeAboveElementwise>(&getContext());
      walkAndApplyPatterns(module, std::move(hoist));
    }

    // Attention kernels read their operands through the data movement
    // that computes them.
    if (prologues) {
      SmallVector<AttentionOp> attentions;
      module.walk([&](AttentionOp op) {
        if (outsideKernels(op))
          attentions.push_back(op);
      });
      llvm::SetVector<Block *> unsortedByViews;
      for (AttentionOp op : attentions) {
        Block *block = op->getBlock();
        if (fuseAttentionViews(op, remarks))
          unsortedByViews.insert(block);
      }
      if (failed(sortBlocks(module, unsortedByViews)))
        return signalPassFailure();
    }

    SmallVector<Operation *> contractions;
    module.walk([&](Operation *op) {
      if (isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op) && outsideKernels(op))
        contractions.push_back(op);
    });
    llvm::SetVector<Block *> unsorted;
    unsigned refused = 0;
    for (Operation *op : contractions) {
      EpilogueGroup group(op);
      growEpilogue(group, limits, refused);
      // The operands' prologues (what earlier epilogues left).
      // (A value read as both operands has no prologue: each op belongs to
      // one operand's.)
      SmallVector<Operation *> ops;
      for (unsigned operand : {0u, 1u})
        if (prologues && op->getOperand(0) != op->getOperand(1))
          llvm::append_range(ops,
                             collectPrologue(op, operand, limits, refused));
      llvm::sort(ops, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      if (group.getOps().size() < 2 && ops.empty())
        continue; // a lone contraction is lowered as it is
      numPrologueOps += ops.size();
      llvm::append_range(ops, group.getOps());
      SmallVector<Value> results = group.getResults();
      numFusedOps += group.getOps().size() - 1;
      numExtraResults += results.size() - 1;
      Block *block = op->getBlock();
      if (buildKernel(ops, results))
        unsorted.insert(block);
      ++numContractionKernels;
    }
    numRefused += refused;
    if (failed(sortBlocks(module, unsorted)))
      return signalPassFailure();

    // Layer norms, softmaxes and reductions read their rows through the
    // elementwise ops and gathers that compute them and store their
    // results through the elementwise ops computed from them.
    unsigned waveSize = 0;
    if (TargetAttr target = lookupTarget(module))
      if (target.getChipInfo())
        waveSize = target.getEffectiveWaveSize();
    SmallVector<Operation *> rowOps;
    module.walk([&](Operation *op) {
      if (isRowOp(op) && outsideKernels(op))
        rowOps.push_back(op);
    });
    llvm::SetVector<Block *> unsortedByRows;
    if (!rows)
      rowOps.clear();
    for (Operation *op : rowOps) {
      unsigned fused = 0;
      Block *block = op->getBlock();
      if (fuseRowGroup(op, waveSize, prologues, limits, fused))
        unsortedByRows.insert(block);
      if (fused) {
        ++numRowKernels;
        numRowPrologueOps += fused;
      }
    }
    if (failed(sortBlocks(module, unsortedByRows)))
      return signalPassFailure();

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
      SmallVector<Operation *> chain = growChain(op);
      claimed.insert(chain.begin(), chain.end());
      if (chain.size() < 2)
        continue;
      buildKernel(chain, {chain.back()->getResult(0)});
      ++numElementwiseKernels;
    }
  }
};

} // namespace
