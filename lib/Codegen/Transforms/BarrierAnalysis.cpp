//===- BarrierAnalysis.cpp - LDS hazards of a GPU kernel ------------------===//
//
// Builds the sequence/gap model of a gpu.func, simulates it for every trip
// count that can matter and records one obligation (a set of gaps) per
// conflicting pair of LDS accesses that is not already implied by two other
// conflicting pairs. See BarrierAnalysis.h and docs/Barriers.md.
//
//===----------------------------------------------------------------------===//

#include "BarrierAnalysis.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <limits>
#include <map>
#include <numeric>

using namespace mlir;
using namespace crest;
using namespace crest::barriers;

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
/// Loops whose slot pattern repeats less often are treated as "any slot".
constexpr int64_t kMaxPeriod = 24;
/// Loops with a constant trip count up to this are unrolled exactly when an
/// index is linear in the induction variable (no `mod`).
constexpr int64_t kMaxExactTrips = 64;
constexpr size_t kMaxScenarios = 2048;
constexpr size_t kMaxTraceEvents = 50000;

//===----------------------------------------------------------------------===//
// Index forms
//===----------------------------------------------------------------------===//

std::optional<int64_t> checkedMul(int64_t x, int64_t y) {
  int64_t r;
  if (llvm::MulOverflow(x, y, r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedAdd(int64_t x, int64_t y) {
  int64_t r;
  if (llvm::AddOverflow(x, y, r))
    return std::nullopt;
  return r;
}

IndexForm linear(int loop, int64_t a, int64_t b) {
  if (a == 0)
    loop = -1;
  return {IndexForm::Linear, loop, a, b, 0, false};
}

IndexForm addForms(IndexForm x, IndexForm y, int64_t sign) {
  if (x.kind != IndexForm::Linear || y.kind != IndexForm::Linear)
    return {};
  if (x.loop >= 0 && y.loop >= 0 && x.loop != y.loop)
    return {};
  std::optional<int64_t> ya = checkedMul(y.a, sign), yb = checkedMul(y.b, sign);
  if (!ya || !yb)
    return {};
  std::optional<int64_t> a = checkedAdd(x.a, *ya), b = checkedAdd(x.b, *yb);
  if (!a || !b)
    return {};
  return linear(x.loop >= 0 ? x.loop : y.loop, *a, *b);
}

IndexForm mulForms(IndexForm x, IndexForm y) {
  if (x.kind != IndexForm::Linear || y.kind != IndexForm::Linear)
    return {};
  if (!x.isConstant())
    std::swap(x, y);
  if (!x.isConstant())
    return {};
  std::optional<int64_t> a = checkedMul(y.a, x.b), b = checkedMul(y.b, x.b);
  if (!a || !b)
    return {};
  return linear(y.loop, *a, *b);
}

/// `x mod m`; `floorMod` for affine `mod` (and power-of-two masks), else a
/// remainder that is only an in-range index for a non-negative dividend.
IndexForm modForm(IndexForm x, int64_t m, bool floorMod) {
  if (x.kind != IndexForm::Linear || m <= 0)
    return {};
  if (x.isConstant()) {
    if (x.b < 0 && !floorMod)
      return {};
    return IndexForm::constant(((x.b % m) + m) % m);
  }
  return {IndexForm::Mod, x.loop, x.a, x.b, m, floorMod};
}

IndexForm divForm(IndexForm x, int64_t d) {
  if (x.kind != IndexForm::Linear || d <= 0)
    return {};
  if (x.a % d == 0 && x.b % d == 0)
    return linear(x.loop, x.a / d, x.b / d);
  if (x.isConstant() && x.b >= 0)
    return IndexForm::constant(x.b / d);
  return {};
}

std::optional<int64_t> constantOf(Value value) {
  APInt c;
  if (matchPattern(value, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// Bits of one memref element, 0 when unknown.
unsigned elementBits(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable())
      return 0;
    return vector.getNumElements() * elementBits(vector.getElementType());
  }
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

bool isWorkgroupSpace(Attribute space) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto integer = dyn_cast_or_null<IntegerAttr>(space))
    return integer.getInt() == 3;
  return false;
}

/// The allocation a memref value is a view of, and the byte offset of the
/// value's base pointer from the allocation's (when known).
struct RootInfo {
  Value root;
  int64_t baseBytes = 0;
  bool baseKnown = true;
};

RootInfo findRoot(Value memref) {
  RootInfo info{memref};
  while (Operation *def = info.root.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> shift = constantOf(view.getByteShift());
      std::optional<int64_t> sum =
          shift ? checkedAdd(info.baseBytes, *shift) : std::nullopt;
      if (sum)
        info.baseBytes = *sum;
      else
        info.baseKnown = false;
      info.root = view.getSource();
      continue;
    }
    // These keep the aligned pointer; any offset shows in the result's
    // (static or dynamic) layout.
    if (isa<memref::CastOp, memref::SubViewOp, memref::ReinterpretCastOp,
            memref::ExpandShapeOp, memref::CollapseShapeOp,
            memref::MemorySpaceCastOp, memref::TransposeOp,
            memref::AssumeAlignmentOp>(def)) {
      info.root = def->getOperand(0);
      continue;
    }
    if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def)) {
      info.baseKnown = false;
      info.root = viewLike.getViewSource();
      continue;
    }
    break;
  }
  return info;
}

bool isLdsRoot(Value root) {
  auto type = dyn_cast<BaseMemRefType>(root.getType());
  return type && isWorkgroupSpace(type.getMemorySpace());
}

/// Reads and writes `op` performs through `memref`.
std::pair<bool, bool> getEffects(Operation *op, Value memref) {
  bool reads = false, writes = false;
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (effect.getValue() && effect.getValue() != memref)
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        reads = true;
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        writes = true;
    }
    return {reads, writes};
  }
  if (op->hasTrait<mlir::OpTrait::HasRecursiveMemoryEffects>())
    return {false, false};
  return {true, true};
}

/// The index `op` uses for dimension 0 of `memref`, when the access touches
/// a single index of that dimension.
Value getLeadingIndex(Operation *op, Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0)
    return {};
  auto vectorSpansLeadingDim = [&](VectorType vector) {
    return vector.getRank() >= type.getRank();
  };
  return TypeSwitch<Operation *, Value>(op)
      .Case<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp,
            memref::GenericAtomicRMWOp>([&](auto access) -> Value {
        if (access.getMemref() != memref || access.getIndices().empty())
          return {};
        return access.getIndices().front();
      })
      .Case<vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
            vector::MaskedStoreOp>([&](auto access) -> Value {
        if (access.getBase() != memref ||
            vectorSpansLeadingDim(access.getVectorType()))
          return {};
        return access.getIndices().front();
      })
      .Case<vector::TransferReadOp, vector::TransferWriteOp>(
          [&](auto transfer) -> Value {
            if (transfer.getBase() != memref)
              return {};
            for (AffineExpr result : transfer.getPermutationMap().getResults())
              if (result.isFunctionOfDim(0))
                return {};
            return transfer.getIndices().front();
          })
      .Default([](Operation *) { return Value(); });
}

std::string linearStr(int64_t a, int64_t b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (a == 1)
    os << "t";
  else if (a == -1)
    os << "-t";
  else
    os << a << "*t";
  if (b > 0)
    os << " + " << b;
  else if (b < 0)
    os << " - " << -b;
  return s;
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

/// The bytes of its root one dynamic access may touch.
struct Footprint {
  int64_t lo = 0, hi = kUnbounded;
  /// The access selects its slot by wave (`gpu.subgroup_id`).
  bool wave = false;
};

struct Event {
  int gap = -1; ///< >= 0: the trace passes this gap.
  int loop = -1;
  int64_t k = 0;
  unsigned segment = 0;
  /// One id per straight-line segment and per loop iteration.
  unsigned instance = 0;
  SmallVector<std::pair<unsigned, Footprint>, 2> accesses;
};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool barriers::isBarrier(Operation *op) {
  return isa<amdgpu::LDSBarrierOp, gpu::BarrierOp, ROCDL::SBarrierOp>(op);
}

std::string barriers::formatLoc(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    return formatLoc(fused.getLocations().front());
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatLoc(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatLoc(call.getCallee());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(file.getFilename()),
                         file.getLine(), file.getColumn());
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

StringRef barriers::stringifyHazardKind(HazardKind kind) {
  switch (kind) {
  case HazardKind::RAW:
    return "RAW";
  case HazardKind::WAR:
    return "WAR";
  case HazardKind::WAW:
    return "WAW";
  }
  llvm_unreachable("unknown hazard kind");
}

std::string IndexForm::str() const {
  switch (kind) {
  case Unknown:
    return "any";
  case Wave:
    return "wave";
  case Linear:
    return isConstant() ? std::to_string(b) : linearStr(a, b);
  case Mod:
    if (b == 0 && (a == 1 || a == -1))
      return linearStr(a, b) + " mod " + std::to_string(m);
    return "(" + linearStr(a, b) + ") mod " + std::to_string(m);
  }
  llvm_unreachable("unknown index form");
}

std::string Access::describe(bool withLoc) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "' " << bufferName;
  if (slotted)
    os << "[" << slot.str() << "]";
  os << rootNote;
  if (withLoc)
    os << " (" << formatLoc(op->getLoc()) << ")";
  return s;
}

//===----------------------------------------------------------------------===//
// BarrierAnalysis: model
//===----------------------------------------------------------------------===//

BarrierAnalysis::BarrierAnalysis(gpu::GPUFuncOp func) : func(func) {}

std::string BarrierAnalysis::nameOf(Value value) {
  if (auto global = value.getDefiningOp<memref::GetGlobalOp>())
    return "@" + global.getName().str();
  if (!asmState)
    asmState = std::make_unique<AsmState>(func);
  std::string s;
  llvm::raw_string_ostream os(s);
  value.printAsOperand(os, *asmState);
  return s;
}

IndexForm BarrierAnalysis::evaluate(Value value, unsigned depth) {
  if (depth > 32)
    return {};
  if (auto it = forms.find(value); it != forms.end())
    return it->second;
  IndexForm form;
  if (auto it = inductionVars.find(value); it != inductionVars.end()) {
    // In terms of the iteration number k: iv = lb + step * k.
    const Loop &loop = loops[it->second];
    if (loop.lowerBound && loop.step)
      form = linear(it->second, *loop.step, *loop.lowerBound);
  } else if (std::optional<int64_t> c = constantOf(value)) {
    form = IndexForm::constant(*c);
  } else if (Operation *def = value.getDefiningOp()) {
    auto eval = [&](Value operand) { return evaluate(operand, depth + 1); };
    auto constantOperand = [&](Value operand) -> int64_t {
      std::optional<int64_t> c = constantOf(operand);
      return c ? *c : 0;
    };
    form =
        TypeSwitch<Operation *, IndexForm>(def)
            .Case([&](arith::AddIOp op) {
              return addForms(eval(op.getLhs()), eval(op.getRhs()), 1);
            })
            .Case([&](arith::SubIOp op) {
              return addForms(eval(op.getLhs()), eval(op.getRhs()), -1);
            })
            .Case([&](arith::MulIOp op) {
              return mulForms(eval(op.getLhs()), eval(op.getRhs()));
            })
            .Case<arith::RemUIOp, arith::RemSIOp>([&](auto op) {
              return modForm(eval(op.getLhs()), constantOperand(op.getRhs()),
                             /*floorMod=*/false);
            })
            .Case([&](arith::AndIOp op) -> IndexForm {
              int64_t mask = constantOperand(op.getRhs());
              Value other = op.getLhs();
              if (mask <= 0 || !llvm::isPowerOf2_64(mask + 1)) {
                mask = constantOperand(op.getLhs());
                other = op.getRhs();
              }
              if (mask <= 0 || !llvm::isPowerOf2_64(mask + 1))
                return {};
              return modForm(eval(other), mask + 1, /*floorMod=*/true);
            })
            .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
                [&](auto op) {
                  return divForm(eval(op.getLhs()),
                                 constantOperand(op.getRhs()));
                })
            .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                  arith::ExtUIOp>(
                [&](auto op) { return eval(op->getOperand(0)); })
            .Case([&](affine::AffineApplyOp op) -> IndexForm {
              AffineMap map = op.getAffineMap();
              if (map.getNumResults() != 1)
                return {};
              SmallVector<IndexForm> operands;
              for (Value operand : op.getMapOperands())
                operands.push_back(eval(operand));
              unsigned numDims = map.getNumDims();
              std::function<IndexForm(AffineExpr)> walk =
                  [&](AffineExpr expr) -> IndexForm {
                if (auto c = dyn_cast<AffineConstantExpr>(expr))
                  return IndexForm::constant(c.getValue());
                if (auto d = dyn_cast<AffineDimExpr>(expr))
                  return operands[d.getPosition()];
                if (auto s = dyn_cast<AffineSymbolExpr>(expr))
                  return operands[numDims + s.getPosition()];
                auto bin = cast<AffineBinaryOpExpr>(expr);
                IndexForm lhs = walk(bin.getLHS()), rhs = walk(bin.getRHS());
                switch (expr.getKind()) {
                case AffineExprKind::Add:
                  return addForms(lhs, rhs, 1);
                case AffineExprKind::Mul:
                  return mulForms(lhs, rhs);
                case AffineExprKind::Mod:
                  return rhs.isConstant()
                             ? modForm(lhs, rhs.b, /*floorMod=*/true)
                             : IndexForm();
                case AffineExprKind::FloorDiv:
                  return rhs.isConstant() ? divForm(lhs, rhs.b) : IndexForm();
                default:
                  return {};
                }
              };
              return walk(map.getResult(0));
            })
            .Case([&](gpu::SubgroupIdOp) { return IndexForm{IndexForm::Wave}; })
            .Default([](Operation *) { return IndexForm(); });
  }
  forms[value] = form;
  return form;
}

bool BarrierAnalysis::touchesLds(Operation *op) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      if (!isLdsRoot(findRoot(operand).root))
        continue;
      auto [reads, writes] = getEffects(nested, operand);
      if (reads || writes)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

void BarrierAnalysis::addAccess(Operation *op, OpOperand &operand,
                                Operation *point,
                                SmallVectorImpl<unsigned> &out) {
  Value memref = operand.get();
  if (!isa<BaseMemRefType>(memref.getType()))
    return;
  RootInfo rootInfo = findRoot(memref);
  if (!isLdsRoot(rootInfo.root))
    return;
  auto [reads, writes] = getEffects(op, memref);
  if (!reads && !writes)
    return;
  // Each operand once (an op may use one memref twice).
  for (unsigned id : out)
    if (accesses[id].op == op && accesses[id].memref == memref)
      return;

  Access access;
  access.op = op;
  access.memref = memref;
  access.point = point;
  access.reads = reads;
  access.writes = writes;

  Value root = rootInfo.root;
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    if (llvm::is_contained(func.getWorkgroupAttributions(), arg))
      access.root = arg.getAsOpaquePointer();
  } else if (isa<memref::AllocOp, memref::AllocaOp>(root.getDefiningOp())) {
    access.root = root.getAsOpaquePointer();
  } else if (auto global = root.getDefiningOp<memref::GetGlobalOp>()) {
    access.root = global.getNameAttr().getAttr().getAsOpaquePointer();
  }
  access.bufferName = nameOf(memref);
  if (!access.root)
    access.rootNote = " (unknown LDS allocation)";
  else if (memref != root)
    access.rootNote = " (a view of " + nameOf(root) + ")";

  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  unsigned bits = type ? elementBits(type.getElementType()) : 0;
  if (access.root && rootInfo.baseKnown && type && type.hasStaticShape() &&
      bits && succeeded(type.getStridesAndOffset(strides, offset)) &&
      !ShapedType::isDynamic(offset) && offset >= 0 &&
      llvm::all_of(strides, [](int64_t s) {
        return !ShapedType::isDynamic(s) && s >= 0;
      })) {
    int64_t bytes = llvm::divideCeil(bits, 8);
    ArrayRef<int64_t> shape = type.getShape();
    access.layoutKnown = true;
    access.firstSlotLo = rootInfo.baseBytes + offset * bytes;
    if (shape.empty()) {
      access.wholeLo = access.firstSlotLo;
      access.wholeHi = access.wholeLo + bytes;
    } else {
      int64_t span = 1;
      for (unsigned i = 1; i < shape.size(); ++i)
        span += (shape[i] - 1) * strides[i];
      access.numSlots = shape[0];
      access.slotStride = strides[0] * bytes;
      access.slotSpan = span * bytes;
      access.wholeLo = access.firstSlotLo;
      access.wholeHi =
          access.firstSlotLo + ((shape[0] - 1) * strides[0] + span) * bytes;
      if (Value index = getLeadingIndex(op, memref)) {
        access.slotted = true;
        access.slot = evaluate(index);
      }
    }
  }
  accesses.push_back(std::move(access));
  out.push_back(accesses.size() - 1);
}

void BarrierAnalysis::collectAccesses(Operation *op, Operation *point,
                                      SmallVectorImpl<unsigned> &out) {
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    for (OpOperand &operand : nested->getOpOperands())
      addAccess(nested, operand, point, out);
  });
}

LogicalResult BarrierAnalysis::buildSeq(Block *block, int loop, Seq &seq) {
  auto newGap = [&] {
    gaps.push_back(Gap{block, nullptr, loop, {}});
    seq.gaps.push_back(gaps.size() - 1);
  };
  newGap();
  for (Operation &op : *block) {
    Gap &current = gaps[seq.gaps.back()];
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      current.insertBefore = &op;
      continue;
    }
    if (isBarrier(&op)) {
      current.barriers.push_back(&op);
      continue;
    }
    if (loop < 0 && isa<scf::ForOp>(op) && touchesLds(&op)) {
      auto forOp = cast<scf::ForOp>(op);
      current.insertBefore = &op;
      int index = loops.size();
      Loop info;
      info.op = &op;
      info.lowerBound = constantOf(forOp.getLowerBound());
      info.step = constantOf(forOp.getStep());
      std::optional<int64_t> upperBound = constantOf(forOp.getUpperBound());
      if (info.lowerBound && upperBound && info.step && *info.step > 0)
        info.tripCount = std::max<int64_t>(
            0,
            llvm::divideCeilSigned(*upperBound - *info.lowerBound, *info.step));
      loops.push_back(std::move(info));
      inductionVars[forOp.getInductionVar()] = index;
      Seq body;
      if (failed(buildSeq(forOp.getBody(), index, body)))
        return failure();
      loops[index].body = std::move(body);
      seq.items.push_back(Item{&op, {}, index});
      newGap();
      continue;
    }
    SmallVector<unsigned, 2> found;
    collectAccesses(&op, &op, found);
    if (op.getNumRegions())
      op.walk([&](Operation *nested) {
        if (nested != &op && isBarrier(nested))
          ignoredBarriers.push_back(nested);
      });
    if (found.empty())
      continue;
    current.insertBefore = &op;
    seq.items.push_back(Item{&op, std::move(found), -1});
    newGap();
  }
  if (!gaps[seq.gaps.back()].insertBefore)
    return func.emitError("crest barrier analysis: a block without terminator");
  return success();
}

void BarrierAnalysis::computeLoopPeriods() {
  for (const Access &access : accesses) {
    const IndexForm &slot = access.slot;
    if (!access.slotted || slot.loop < 0)
      continue;
    Loop &loop = loops[slot.loop];
    if (slot.kind == IndexForm::Linear) {
      loop.hasLinearSlots = true;
      continue;
    }
    if (slot.kind != IndexForm::Mod)
      continue;
    int64_t shift = ((slot.a % slot.m) + slot.m) % slot.m;
    int64_t period = slot.m / std::gcd(shift, slot.m);
    loop.period = std::lcm(loop.period, period);
    if (loop.period > kMaxPeriod)
      loop.periodTooLong = true;
  }
}

bool BarrierAnalysis::exclusive(Operation *a, Operation *b,
                                Operation *point) const {
  // The closest op whose regions hold both.
  Operation *common = nullptr;
  for (Operation *p = a->getParentOp(); p; p = p->getParentOp()) {
    if (p->isAncestor(b)) {
      common = p;
      break;
    }
    if (p == point)
      break;
  }
  if (!common || !isa<scf::IfOp, scf::IndexSwitchOp>(common))
    return false;
  Region *ra = nullptr, *rb = nullptr;
  for (Region &region : common->getRegions()) {
    if (region.findAncestorOpInRegion(*a))
      ra = &region;
    if (region.findAncestorOpInRegion(*b))
      rb = &region;
  }
  if (ra == rb)
    return false;
  // Each branch runs at most once per execution of the point only when no
  // loop lies between the branch op and the point.
  for (Operation *p = common;; p = p->getParentOp()) {
    if (!isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(p))
      return false;
    if (p == point)
      return true;
  }
}

unsigned BarrierAnalysis::addHazard(HazardKind kind, unsigned first,
                                    unsigned second,
                                    const std::string &relation) {
  auto [it, inserted] = hazardIds.try_emplace(
      std::make_tuple(int(kind), first, second, relation), hazards.size());
  if (inserted)
    hazards.push_back(Hazard{kind, first, second, relation, {}});
  return it->second;
}

//===----------------------------------------------------------------------===//
// BarrierAnalysis: simulation
//===----------------------------------------------------------------------===//

LogicalResult BarrierAnalysis::analyzeScenarios() {
  // Trip counts to simulate per loop, and whether they are exact.
  SmallVector<SmallVector<int64_t>> tripChoices;
  SmallVector<bool> exact;
  size_t numScenarios = 1;
  for (const Loop &loop : loops) {
    int64_t period = loop.periodTooLong ? 1 : loop.period;
    int64_t bound = 3 * period + 3;
    SmallVector<int64_t> choices;
    bool isExact = false;
    if (loop.tripCount) {
      int64_t trips = *loop.tripCount;
      if (trips <= bound || (loop.hasLinearSlots && trips <= kMaxExactTrips)) {
        choices.push_back(trips);
        isExact = true;
      } else {
        // Every slot pattern repeats with `period`: a long loop behaves like
        // a shorter one with the same residue.
        int64_t base = 2 * period + 2;
        choices.push_back(base + (trips - base) % period);
      }
    } else {
      for (int64_t trips = 0; trips <= bound; ++trips)
        choices.push_back(trips);
    }
    numScenarios *= choices.size();
    if (numScenarios > kMaxScenarios)
      return loop.op->emitError()
             << "crest barrier analysis: too many combinations of trip "
                "counts to simulate (give this loop constant bounds)";
    tripChoices.push_back(std::move(choices));
    exact.push_back(isExact);
  }

  auto concreteSlot = [&](const IndexForm &form,
                          int64_t k) -> std::optional<int64_t> {
    if (form.isConstant())
      return form.b;
    if (form.loop < 0)
      return std::nullopt;
    const Loop &loop = loops[form.loop];
    std::optional<int64_t> ak = checkedMul(form.a, k);
    std::optional<int64_t> x = ak ? checkedAdd(*ak, form.b) : std::nullopt;
    if (!x)
      return std::nullopt;
    if (form.kind == IndexForm::Linear)
      return exact[form.loop] ? x : std::nullopt;
    if (form.kind != IndexForm::Mod || loop.periodTooLong ||
        (*x < 0 && !form.floorMod))
      return std::nullopt;
    return ((*x % form.m) + form.m) % form.m;
  };

  auto footprint = [&](const Access &access, int64_t k) -> Footprint {
    if (!access.layoutKnown)
      return {};
    Footprint whole{access.wholeLo, access.wholeHi, false};
    if (!access.slotted)
      return whole;
    if (access.slot.kind == IndexForm::Wave)
      return {access.wholeLo, access.wholeHi, true};
    std::optional<int64_t> slot = concreteSlot(access.slot, k);
    if (!slot || *slot < 0 || *slot >= access.numSlots)
      return whole;
    int64_t lo = access.firstSlotLo + *slot * access.slotStride;
    return {lo, lo + access.slotSpan, false};
  };

  auto conflict = [&](unsigned x, const Footprint &fx, unsigned y,
                      const Footprint &fy) {
    const Access &ax = accesses[x], &ay = accesses[y];
    if (!ax.writes && !ay.writes)
      return false;
    if (ax.root && ay.root && ax.root != ay.root)
      return false;
    // Every wave its own slot of one buffer: different waves never meet,
    // and a wave's own LDS accesses execute in order.
    if (fx.wave && fy.wave && ax.root && ax.root == ay.root &&
        ax.firstSlotLo == ay.firstSlotLo && ax.slotStride == ay.slotStride &&
        ax.slotSpan == ay.slotSpan && ax.numSlots == ay.numSlots)
      return false;
    return fx.lo < fy.hi && fy.lo < fx.hi;
  };

  auto kindOf = [&](unsigned x, unsigned y) {
    if (accesses[x].writes && accesses[y].reads)
      return HazardKind::RAW;
    if (accesses[x].writes)
      return HazardKind::WAW;
    return HazardKind::WAR;
  };

  std::map<std::vector<unsigned>, unsigned> obligationIds;
  auto record = [&](unsigned hazardId, const llvm::BitVector &between) {
    std::vector<unsigned> key(between.set_bits_begin(), between.set_bits_end());
    auto [it, inserted] = obligationIds.try_emplace(key, obligations.size());
    if (inserted)
      obligations.push_back(Obligation{between, {}});
    Obligation &obligation = obligations[it->second];
    if (!llvm::is_contained(obligation.hazards, hazardId))
      obligation.hazards.push_back(hazardId);
    Hazard &hazard = hazards[hazardId];
    if (!llvm::is_contained(hazard.obligations, it->second))
      hazard.obligations.push_back(it->second);
  };

  SmallVector<int64_t> trips(loops.size(), 0);
  SmallVector<size_t> choice(loops.size(), 0);
  std::vector<Event> events;
  for (size_t scenario = 0; scenario < numScenarios; ++scenario) {
    // Decode the scenario into one trip count per loop.
    size_t rest = scenario;
    for (auto [i, choices] : llvm::enumerate(tripChoices)) {
      trips[i] = choices[rest % choices.size()];
      rest /= choices.size();
    }

    // Build the trace.
    events.clear();
    unsigned segment = 0, instance = 0;
    auto emitGap = [&](unsigned gap) {
      Event event;
      event.gap = gap;
      events.push_back(std::move(event));
    };
    auto emitPoint = [&](const Item &item, int loop, int64_t k) {
      Event event;
      event.loop = loop;
      event.k = k;
      event.segment = segment;
      event.instance = instance;
      for (unsigned id : item.accesses)
        event.accesses.push_back({id, footprint(accesses[id], k)});
      events.push_back(std::move(event));
    };
    for (auto [i, item] : llvm::enumerate(top.items)) {
      emitGap(top.gaps[i]);
      if (item.loop < 0) {
        emitPoint(item, -1, 0);
        continue;
      }
      const Seq &body = loops[item.loop].body;
      for (int64_t k = 0; k < trips[item.loop]; ++k) {
        ++instance;
        for (auto [j, inner] : llvm::enumerate(body.items)) {
          emitGap(body.gaps[j]);
          emitPoint(inner, item.loop, k);
        }
        emitGap(body.gaps.back());
      }
      ++segment;
      ++instance;
      if (events.size() > kMaxTraceEvents)
        return func.emitError("crest barrier analysis: kernel too large");
    }
    emitGap(top.gaps.back());

    auto relationOf = [&](const Event &u, const Event &v) -> std::string {
      if (u.loop >= 0 && u.loop == v.loop) {
        int64_t d = v.k - u.k;
        if (d == 0)
          return "same iteration";
        return "iteration t -> t+" + std::to_string(d);
      }
      if (u.loop < 0 && v.loop < 0) {
        if (u.segment == v.segment)
          return "straight-line code";
        bool anyRuns = false;
        for (unsigned l = u.segment; l < v.segment; ++l)
          anyRuns |= trips[l] > 0;
        return anyRuns ? "across the loop"
                       : "across a loop that runs no iteration";
      }
      if (u.loop < 0 && v.loop >= 0)
        return v.k == 0 ? "before the loop -> its first iteration"
                        : "before the loop -> a later iteration";
      if (u.loop >= 0 && v.loop < 0)
        return u.k == trips[u.loop] - 1
                   ? "last iteration -> after the loop"
                   : "an earlier iteration -> after the loop";
      return "one loop -> a later loop";
    };

    auto readsAlias = [&](const Event &event, const Access &access) {
      return llvm::any_of(event.accesses, [&](const auto &other) {
        const Access &o = accesses[other.first];
        return o.reads && (!o.root || !access.root || o.root == access.root);
      });
    };
    // Two writes of one cooperative copy: the same memref and slot, in one
    // iteration (or straight-line segment), with no read of the buffer in
    // between. The copy writes disjoint elements, so they do not conflict.
    auto sameCopy = [&](size_t u, unsigned x, size_t v, unsigned y) {
      const Access &ax = accesses[x], &ay = accesses[y];
      if (ax.reads || ay.reads || ax.memref != ay.memref || !ax.slotted ||
          !ay.slotted || ax.slot.kind == IndexForm::Unknown ||
          ax.slot.kind != ay.slot.kind || ax.slot.loop != ay.slot.loop ||
          ax.slot.a != ay.slot.a || ax.slot.b != ay.slot.b ||
          ax.slot.m != ay.slot.m)
        return false;
      if (events[u].instance != events[v].instance)
        return false;
      for (size_t w = u + 1; w < v; ++w)
        if (readsAlias(events[w], ax))
          return false;
      return u != v || !readsAlias(events[u], ax);
    };
    auto hazardous = [&](size_t u, const std::pair<unsigned, Footprint> &x,
                         size_t v, const std::pair<unsigned, Footprint> &y) {
      return conflict(x.first, x.second, y.first, y.second) &&
             !sameCopy(u, x.first, v, y.first);
    };

    // Accesses of one point: only a barrier inside its region could order
    // them.
    for (auto [e, event] : llvm::enumerate(events)) {
      for (auto [i, x] : llvm::enumerate(event.accesses)) {
        for (const auto &y : ArrayRef(event.accesses).drop_front(i + 1)) {
          const Access &ax = accesses[x.first], &ay = accesses[y.first];
          if (ax.op == ay.op || !hazardous(e, x, e, y))
            continue;
          if (exclusive(ax.op, ay.op, ax.point))
            continue;
          unsigned id = addHazard(kindOf(x.first, y.first), x.first, y.first,
                                  "inside one nested region");
          if (!llvm::is_contained(unorderable, id))
            unorderable.push_back(id);
        }
      }
    }

    // Pairs of points. A pair with an access between them that conflicts
    // with both is implied: the barriers ordering the two shorter pairs
    // order it too.
    llvm::BitVector between(gaps.size());
    SmallVector<SmallVector<std::pair<unsigned, unsigned>>> witnesses;
    for (size_t u = 0; u < events.size(); ++u) {
      const Event &first = events[u];
      if (first.gap >= 0 || first.accesses.empty())
        continue;
      between.reset();
      witnesses.assign(first.accesses.size(), {});
      for (size_t v = u + 1; v < events.size(); ++v) {
        const Event &second = events[v];
        if (second.gap >= 0) {
          between.set(second.gap);
          continue;
        }
        for (auto [i, x] : llvm::enumerate(first.accesses)) {
          for (const auto &y : second.accesses) {
            if (!hazardous(u, x, v, y))
              continue;
            bool implied = llvm::any_of(witnesses[i], [&](auto w) {
              return hazardous(w.first, events[w.first].accesses[w.second], v,
                               y);
            });
            if (implied)
              continue;
            unsigned id = addHazard(kindOf(x.first, y.first), x.first, y.first,
                                    relationOf(first, second));
            record(id, between);
          }
        }
        for (auto [i, x] : llvm::enumerate(first.accesses))
          for (auto [j, y] : llvm::enumerate(second.accesses))
            if (hazardous(u, x, v, y))
              witnesses[i].push_back({v, j});
      }
    }
  }
  return success();
}

LogicalResult BarrierAnalysis::run() {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError(
        "crest barrier analysis needs structured control flow (one block in "
        "the kernel body)");
  if (failed(buildSeq(&func.getBody().front(), -1, top)))
    return failure();
  if (accesses.empty())
    return success();
  computeLoopPeriods();
  return analyzeScenarios();
}

//===----------------------------------------------------------------------===//
// BarrierAnalysis: placement and checking
//===----------------------------------------------------------------------===//

llvm::BitVector BarrierAnalysis::getExistingBarrierGaps() const {
  llvm::BitVector existing(gaps.size());
  for (auto [i, gap] : llvm::enumerate(gaps))
    if (!gap.barriers.empty())
      existing.set(i);
  return existing;
}

SmallVector<unsigned>
BarrierAnalysis::findUnordered(const llvm::BitVector &barriers) const {
  SmallVector<unsigned> result;
  for (auto [i, hazard] : llvm::enumerate(hazards)) {
    if (hazard.obligations.empty()) {
      result.push_back(i);
      continue;
    }
    for (unsigned o : hazard.obligations) {
      if (!obligations[o].gaps.anyCommon(barriers)) {
        result.push_back(i);
        break;
      }
    }
  }
  return result;
}

SmallVector<unsigned>
BarrierAnalysis::solve(const llvm::BitVector &fixed) const {
  // Obligations still open.
  SmallVector<unsigned> open;
  for (auto [i, obligation] : llvm::enumerate(obligations))
    if (!obligation.gaps.anyCommon(fixed) && obligation.gaps.any())
      open.push_back(i);
  if (open.empty())
    return {};

  // Loop gaps that hit an open obligation, with the obligations they hit.
  struct Candidate {
    unsigned gap;
    llvm::BitVector hits;
  };
  SmallVector<Candidate> candidates;
  for (auto [g, gap] : llvm::enumerate(gaps)) {
    if (gap.loop < 0 || fixed.test(g))
      continue;
    llvm::BitVector hits(open.size());
    for (auto [i, o] : llvm::enumerate(open))
      if (obligations[o].gaps.test(g))
        hits.set(i);
    if (hits.any())
      candidates.push_back({unsigned(g), std::move(hits)});
  }
  // A gap hitting a subset of what another hits is never better; among
  // equals keep the earliest.
  auto isSubset = [](const llvm::BitVector &a, const llvm::BitVector &b) {
    return !a.test(b);
  };
  SmallVector<Candidate> pruned;
  for (auto [i, c] : llvm::enumerate(candidates)) {
    bool dominated = false;
    for (auto [j, d] : llvm::enumerate(candidates)) {
      if (i == j || !isSubset(c.hits, d.hits))
        continue;
      if (c.hits != d.hits || j < i) {
        dominated = true;
        break;
      }
    }
    if (!dominated)
      pruned.push_back(c);
  }

  // The fewest straight-line gaps hitting what the loop gaps left open:
  // each obligation's straight-line gaps are an interval of the top-level
  // order, so taking the last gap of the earliest-ending open interval is
  // optimal.
  auto stab =
      [&](const llvm::BitVector &hit) -> std::optional<SmallVector<unsigned>> {
    SmallVector<std::pair<int, unsigned>> intervals; // (last gap, index)
    for (auto [i, o] : llvm::enumerate(open)) {
      if (hit.test(i))
        continue;
      int last = -1;
      for (unsigned g : obligations[o].gaps.set_bits())
        if (gaps[g].loop < 0)
          last = g;
      if (last < 0)
        return std::nullopt;
      intervals.push_back({last, unsigned(i)});
    }
    llvm::sort(intervals);
    SmallVector<unsigned> chosen;
    for (auto [last, i] : intervals) {
      const llvm::BitVector &set = obligations[open[i]].gaps;
      if (llvm::any_of(chosen, [&](unsigned g) { return set.test(g); }))
        continue;
      chosen.push_back(last);
    }
    return chosen;
  };

  constexpr unsigned kMaxLoopBarriers = 4;
  constexpr size_t kMaxCombinations = 200000;
  size_t tried = 0;
  SmallVector<unsigned> index;
  for (unsigned size = 0;
       size <= std::min<size_t>(kMaxLoopBarriers, pruned.size()); ++size) {
    std::optional<SmallVector<unsigned>> best;
    // Enumerate the combinations of `size` candidates in lexicographic
    // order.
    index.resize(size);
    std::iota(index.begin(), index.end(), 0);
    while (true) {
      if (++tried > kMaxCombinations)
        break;
      llvm::BitVector hit(open.size());
      for (unsigned i : index)
        hit |= pruned[i].hits;
      if (std::optional<SmallVector<unsigned>> straight = stab(hit)) {
        if (!best || size + straight->size() < best->size()) {
          SmallVector<unsigned> plan(*straight);
          for (unsigned i : index)
            plan.push_back(pruned[i].gap);
          best = std::move(plan);
        }
      }
      // Next combination.
      int i = int(size) - 1;
      while (i >= 0 && index[i] == pruned.size() - size + i)
        --i;
      if (i < 0)
        break;
      ++index[i];
      for (unsigned j = i + 1; j < size; ++j)
        index[j] = index[j - 1] + 1;
    }
    if (best) {
      llvm::sort(*best);
      return *best;
    }
    if (tried > kMaxCombinations)
      break;
  }

  // Fallback: cover the obligations without straight-line gaps greedily
  // with loop gaps, then stab the rest.
  llvm::BitVector hit(open.size());
  SmallVector<unsigned> plan;
  while (true) {
    llvm::BitVector needed(open.size());
    for (auto [i, o] : llvm::enumerate(open)) {
      if (hit.test(i))
        continue;
      if (llvm::none_of(obligations[o].gaps.set_bits(),
                        [&](unsigned g) { return gaps[g].loop < 0; }))
        needed.set(i);
    }
    if (needed.none())
      break;
    const Candidate *bestCandidate = nullptr;
    unsigned bestCount = 0;
    for (const Candidate &c : pruned) {
      llvm::BitVector gain = c.hits;
      gain &= needed;
      if (gain.count() > bestCount) {
        bestCount = gain.count();
        bestCandidate = &c;
      }
    }
    if (!bestCandidate)
      break; // Cannot happen: every open obligation has a loop gap.
    hit |= bestCandidate->hits;
    plan.push_back(bestCandidate->gap);
  }
  if (std::optional<SmallVector<unsigned>> straight = stab(hit))
    plan.append(straight->begin(), straight->end());
  llvm::sort(plan);
  return plan;
}

SmallVector<unsigned> BarrierAnalysis::orderedBy(unsigned gap) const {
  SmallVector<unsigned> result;
  for (auto [i, hazard] : llvm::enumerate(hazards))
    if (llvm::any_of(hazard.obligations,
                     [&](unsigned o) { return obligations[o].gaps.test(gap); }))
      result.push_back(i);
  return result;
}

SmallVector<unsigned>
BarrierAnalysis::orderedOnlyBy(unsigned gap,
                               const llvm::BitVector &barriers) const {
  SmallVector<unsigned> result;
  for (auto [i, hazard] : llvm::enumerate(hazards)) {
    for (unsigned o : hazard.obligations) {
      llvm::BitVector hit = obligations[o].gaps;
      hit &= barriers;
      if (hit.count() == 1 && hit.test(gap)) {
        result.push_back(i);
        break;
      }
    }
  }
  return result;
}

std::string BarrierAnalysis::describe(const Hazard &hazard) const {
  return llvm::formatv("{0}: {1} -> {2}, {3}", stringifyHazardKind(hazard.kind),
                       accesses[hazard.first].describe(),
                       accesses[hazard.second].describe(), hazard.relation);
}

/// True when `func`'s workgroup is known to be a single wave: its waves
/// cannot race on LDS, so it needs no barrier. The wave size is the
/// target's (#crest.target on an enclosing module); without one, only
/// blocks of at most 32 work-items (one wave on every chip) count.
bool crest::barriers::isSingleWave(gpu::GPUFuncOp func) {
  std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
  if (!known)
    return false;
  int64_t items = 1;
  for (int32_t d : *known)
    items *= d;
  TargetAttr target = lookupTarget(func);
  unsigned waveSize = target && target.getChipInfo()
                          ? target.getEffectiveWaveSize()
                          : 32;
  return items <= waveSize;
}

