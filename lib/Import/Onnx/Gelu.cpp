//===- Gelu.cpp - Exact GELU written out in primitives -> crest.gelu ------===//
//
// A rewrite of the imported function, run once every node is imported.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace crest;
using namespace crest::onnx_import;

/// The value of a splat float constant, if `v` is one.
static std::optional<double> getSplatFloat(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

static bool isNear(std::optional<double> value, double expected) {
  return value && std::fabs(*value - expected) <= 1e-5 * std::fabs(expected);
}

/// The factors of a product: `v` itself, or, when it is a crest.mul whose
/// result only feeds the product, the factors of its operands.
static void collectFactors(Value v, bool isRoot, SmallVectorImpl<Value> &out) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && (isRoot || v.hasOneUse()) &&
      mul.getLhs().getType() == mul.getType() &&
      mul.getRhs().getType() == mul.getType()) {
    collectFactors(mul.getLhs(), false, out);
    collectFactors(mul.getRhs(), false, out);
    return;
  }
  // Broadcast scalar factors (the 0.5) keep their own type.
  if (mul && (isRoot || v.hasOneUse()) && getSplatFloat(mul.getRhs())) {
    collectFactors(mul.getLhs(), false, out);
    out.push_back(mul.getRhs());
    return;
  }
  out.push_back(v);
}

/// Whether `v` is erf(x / sqrt(2)) + 1 (or erf(x * 1/sqrt(2)) + 1, in
/// either operand order) for this `x`.
static bool isErfTerm(Value v, Value x) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return false;
  Value erfValue = add.getLhs(), one = add.getRhs();
  if (!erfValue.getDefiningOp<ErfOp>())
    std::swap(erfValue, one);
  auto erf = erfValue.getDefiningOp<ErfOp>();
  if (!erf || !isNear(getSplatFloat(one), 1.0))
    return false;
  Value scaled = erf.getInput();
  if (auto div = scaled.getDefiningOp<DivOp>())
    return div.getLhs() == x && isNear(getSplatFloat(div.getRhs()), M_SQRT2);
  if (auto mul = scaled.getDefiningOp<MulOp>())
    return (mul.getLhs() == x &&
            isNear(getSplatFloat(mul.getRhs()), M_SQRT1_2)) ||
           (mul.getRhs() == x && isNear(getSplatFloat(mul.getLhs()), M_SQRT1_2));
  return false;
}

/// Replaces exact GELU written out in primitives, as exporters before
/// opset 20 write it -- x * 0.5 * (1 + erf(x / sqrt(2))) in any order of
/// the products -- by one crest.gelu, then drops the dead primitives.
void crest::onnx_import::fuseGeluPatterns(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    auto root = dyn_cast<MulOp>(&op);
    if (!root || root->use_empty())
      continue;
    SmallVector<Value> factors;
    collectFactors(root.getResult(), /*isRoot=*/true, factors);
    if (factors.size() != 3)
      continue;
    for (unsigned half = 0; half < 3; ++half) {
      if (!isNear(getSplatFloat(factors[half]), 0.5))
        continue;
      Value a = factors[(half + 1) % 3], b = factors[(half + 2) % 3];
      Value x = isErfTerm(b, a) ? a : isErfTerm(a, b) ? b : Value();
      if (!x || x.getType() != root.getType())
        continue;
      OpBuilder builder(root);
      auto gelu = GeluOp::create(builder, root.getLoc(), x,
                                 GeluApproximationAttr::get(
                                     root.getContext(),
                                     GeluApproximation::None));
      root.getResult().replaceAllUsesWith(gelu.getResult());
      break;
    }
  }
  // The primitives of a replaced pattern (all pure) are now unused.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() && !op.hasTrait<mlir::OpTrait::IsTerminator>() &&
        isPure(&op))
      op.erase();
}
