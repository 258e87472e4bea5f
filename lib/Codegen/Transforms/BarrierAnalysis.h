//===- BarrierAnalysis.h - LDS hazards of a GPU kernel ----------*- C++ -*-===//
//
// The analysis shared by crest-insert-barriers and crest-verify-barriers.
//
// A kernel is cut into a top-level sequence (prologue, epilogue: straight-
// line code) and the bodies of its top-level `scf.for` loops that touch LDS
// (K loops). Every LDS access, or every nested region holding LDS accesses,
// is one *point* of such a sequence; the positions between points are
// *gaps*, the only places a barrier may go. The analysis unrolls each loop
// concretely for every trip count that can matter, giving each access a
// concrete footprint (a byte range of its LDS buffer, from the slot its
// leading index selects), and turns every pair of conflicting accesses into
// an *obligation*: the set of gaps that lie between the two accesses in the
// trace. A barrier placement is correct iff it hits every obligation. The
// design is described in docs/Barriers.md.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_LIB_CODEGEN_TRANSFORMS_BARRIERANALYSIS_H
#define CREST_LIB_CODEGEN_TRANSFORMS_BARRIERANALYSIS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace crest {
namespace barriers {

/// A symbolic LDS index: `a * t + b` (Linear; a constant when `loop` < 0),
/// `(a * t + b) mod m` (Mod), the wave's `gpu.subgroup_id` (Wave), or
/// anything else (Unknown, "may be any slot"). `t` is the iteration number
/// (0, 1, ...) of the top-level loop number `loop`: its induction variable
/// is `lb + step * t` (both constant, or the form is Unknown).
struct IndexForm {
  enum Kind { Unknown, Linear, Mod, Wave } kind = Unknown;
  int loop = -1;
  int64_t a = 0, b = 0, m = 0;
  /// Mod only: the result is a floor modulus (affine `mod`, `andi` with a
  /// power-of-two mask); otherwise a negative dividend makes it unknown.
  bool floorMod = false;

  static IndexForm constant(int64_t c) { return {Linear, -1, 0, c, 0, false}; }
  bool isConstant() const { return kind == Linear && a == 0; }
  /// "0", "t mod 2", "(t + 1) mod 2", "t", "wave", "?".
  std::string str() const;
};

/// One static access of an LDS buffer: an operation reading and/or writing
/// one memref operand whose root allocation lives in workgroup memory.
struct Access {
  mlir::Operation *op = nullptr;
  mlir::Value memref;
  /// The allocation the memref is a view of: a workgroup attribution, a
  /// `memref.alloc(a)`, or a `memref.global` symbol. Null when unknown; an
  /// unknown root may alias every LDS buffer.
  const void *root = nullptr;
  std::string bufferName;
  /// " (a view of %root)", " (unknown LDS allocation)" or empty.
  std::string rootNote;
  bool reads = false, writes = false;

  /// Footprint. With `layoutKnown`, the access touches bytes
  /// [slotLo(s), slotLo(s) + slotSpan) of the root for leading index s (when
  /// `slotted`), else [wholeLo, wholeHi). Otherwise any byte of the root.
  bool layoutKnown = false;
  bool slotted = false;
  int64_t numSlots = 0;
  int64_t firstSlotLo = 0, slotStride = 0, slotSpan = 0;
  int64_t wholeLo = 0, wholeHi = 0;
  IndexForm slot;

  /// The op at sequence level this access belongs to (itself, or the
  /// region-holding op it is nested in).
  mlir::Operation *point = nullptr;

  /// "'vector.load' %lds[t mod 2] (f.mlir:3:5)" (and the root of a view);
  /// without the location when
  /// `withLoc` is false.
  std::string describe(bool withLoc = true) const;
};

/// A position between two points of a sequence.
struct Gap {
  mlir::Block *block = nullptr;
  /// The new barrier goes right before this op: the next point of the
  /// sequence, or the block's terminator.
  mlir::Operation *insertBefore = nullptr;
  /// The loop whose body holds the gap, or -1 for the top-level sequence.
  int loop = -1;
  /// Barriers already at this position.
  llvm::SmallVector<mlir::Operation *, 1> barriers;
};

enum class HazardKind { RAW, WAR, WAW };
llvm::StringRef stringifyHazardKind(HazardKind kind);

/// A conflicting pair of accesses, `first` executing before `second`, with
/// the relation of their dynamic instances ("iteration t -> t+1").
struct Hazard {
  HazardKind kind;
  unsigned first, second;
  std::string relation;
  /// The obligations this hazard gives rise to (indices into
  /// getObligations()); empty when no barrier outside nested regions can
  /// order the pair.
  llvm::SmallVector<unsigned, 2> obligations;
};

/// A set of gaps of which at least one must hold a barrier.
struct Obligation {
  llvm::BitVector gaps;
  llvm::SmallVector<unsigned, 2> hazards;
};

class BarrierAnalysis {
public:
  explicit BarrierAnalysis(mlir::gpu::GPUFuncOp func);

  /// Builds the model and the obligations. Fails, with a diagnostic, on
  /// kernels outside the supported shape (unstructured control flow, too
  /// many scenarios).
  mlir::LogicalResult run();

  llvm::ArrayRef<Access> getAccesses() const { return accesses; }
  llvm::ArrayRef<Gap> getGaps() const { return gaps; }
  llvm::ArrayRef<Hazard> getHazards() const { return hazards; }
  llvm::ArrayRef<Obligation> getObligations() const { return obligations; }
  /// Hazards between two accesses of one nested region: a barrier between
  /// them would have to go inside that region.
  llvm::ArrayRef<unsigned> getUnorderable() const { return unorderable; }
  /// Barriers nested in regions other than the top-level loops' bodies;
  /// they may not execute, so they order nothing here.
  llvm::ArrayRef<mlir::Operation *> getIgnoredBarriers() const {
    return ignoredBarriers;
  }

  /// Gaps that already hold a barrier.
  llvm::BitVector getExistingBarrierGaps() const;

  /// A placement hitting every obligation not hit by `fixed`: first the
  /// fewest gaps inside loop bodies, then the fewest in total. Returns the
  /// new gaps in program order.
  llvm::SmallVector<unsigned> solve(const llvm::BitVector &fixed) const;

  /// Hazards with an obligation that no gap of `barriers` hits.
  llvm::SmallVector<unsigned>
  findUnordered(const llvm::BitVector &barriers) const;

  /// Hazards with an obligation that `gap` hits: the pairs a barrier at
  /// `gap` orders (in some execution).
  llvm::SmallVector<unsigned> orderedBy(unsigned gap) const;

  /// Hazards with an obligation that `gap` is the only gap of `barriers` to
  /// hit: the pairs a barrier at `gap` alone orders.
  llvm::SmallVector<unsigned>
  orderedOnlyBy(unsigned gap, const llvm::BitVector &barriers) const;

  /// "RAW: 'memref.store' %a[0] (f.mlir:3:5) -> 'memref.load' %a[0]
  /// (f.mlir:4:5), straight-line code".
  std::string describe(const Hazard &hazard) const;

private:
  /// One entry of a sequence: a point (an access, or a region-holding op
  /// with accesses inside) or, in the top-level sequence, a K loop.
  struct Item {
    mlir::Operation *op;
    llvm::SmallVector<unsigned, 2> accesses;
    int loop = -1;
  };
  struct Seq {
    llvm::SmallVector<Item> items;
    llvm::SmallVector<unsigned> gaps; ///< items.size() + 1 gaps.
  };
  struct Loop {
    mlir::Operation *op;
    Seq body;
    std::optional<int64_t> lowerBound, step, tripCount;
    int64_t period = 1;
    bool periodTooLong = false;
    bool hasLinearSlots = false;
  };

  mlir::LogicalResult buildSeq(mlir::Block *block, int loop, Seq &seq);
  void collectAccesses(mlir::Operation *op, mlir::Operation *point,
                       llvm::SmallVectorImpl<unsigned> &out);
  void addAccess(mlir::Operation *op, mlir::OpOperand &operand,
                 mlir::Operation *point, llvm::SmallVectorImpl<unsigned> &out);
  IndexForm evaluate(mlir::Value value, unsigned depth = 0);
  std::string nameOf(mlir::Value value);
  void computeLoopPeriods();
  mlir::LogicalResult analyzeScenarios();
  bool touchesLds(mlir::Operation *op);
  bool exclusive(mlir::Operation *a, mlir::Operation *b,
                 mlir::Operation *point) const;
  unsigned addHazard(HazardKind kind, unsigned first, unsigned second,
                     const std::string &relation);

  mlir::gpu::GPUFuncOp func;
  llvm::SmallVector<Access> accesses;
  llvm::SmallVector<Gap> gaps;
  llvm::SmallVector<Hazard> hazards;
  std::map<std::tuple<int, unsigned, unsigned, std::string>, unsigned>
      hazardIds;
  llvm::SmallVector<Obligation> obligations;
  llvm::SmallVector<unsigned> unorderable;
  llvm::SmallVector<mlir::Operation *> ignoredBarriers;
  Seq top;
  llvm::SmallVector<Loop> loops;
  llvm::DenseMap<mlir::Value, int> inductionVars;
  llvm::DenseMap<mlir::Value, IndexForm> forms;
  std::unique_ptr<mlir::AsmState> asmState;
};

/// True for the ops that count as a workgroup barrier for LDS:
/// `amdgpu.lds_barrier`, `gpu.barrier`, `rocdl.s.barrier`.
bool isBarrier(mlir::Operation *op);

/// "f.mlir:12:5" for file locations (the file name without its directory).
std::string formatLoc(mlir::Location loc);

/// True when `func`'s workgroup is known (`known_block_size`) to be a single
/// wave: its LDS accesses cannot race, so it needs no barrier. The wave size
/// is the #crest.target's of an enclosing module; without one, only blocks
/// of at most 32 work-items (one wave on every chip) count.
bool isSingleWave(mlir::gpu::GPUFuncOp func);

} // namespace barriers
} // namespace crest

#endif // CREST_LIB_CODEGEN_TRANSFORMS_BARRIERANALYSIS_H
