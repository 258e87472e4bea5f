//===- LowerAttention.cpp - crest.attention as one fused kernel -----------===//
//
// One gpu.func per crest.attention: flash attention with an online softmax,
// the score matrix never leaving registers.
//
// Layout. Each wave owns `n` query rows ("columns" below: the kernel
// computes the transposed products, so queries are the MMA's N) of one key
// /value head. The query rows of the G = Hq / Hkv heads that share a
// key/value head are numbered r = (h % G) * Lq + q, so grouped-query heads
// are merged into N and read each K and V element once per wave. Per key
// block of `keyTiles * M` keys the wave computes
//
//   S^T = K Q^T  (A = K rows, B = Q^T: the query rows' fragments, loaded
//                 once into registers for the whole loop)
//   O^T += V^T P^T
//
// The accumulator of S^T holds, in each lane, scores of the lane's column
// (query row); the MMA's B operand for O^T wants, in each lane, elements of
// the same column. Codegen checks at compile time, from the lane layouts
// (crest/Target/MmaLayout.h), that the accumulator's elements can be the B
// fragments of the P V instruction as they are (which key each register
// holds depends only on the lane's K group, and the keys of all groups and
// registers are a permutation of the tile's): the A fragments of V^T are
// then loaded in that same key order. P thus goes from the score
// accumulator to the P V instruction without LDS.
//
// Online softmax in base 2: the scores are multiplied once by
// scale * log2(e); that one value (the exponent argument's operand) is
// used both for the row maximum and in exp2(s - m). Masked scores are -inf;
// a row whose scores are all masked so far subtracts 0 instead of -inf (so
// exp2 gives 0, never NaN), and ends with output 0 and lse -inf. Row
// statistics (maximum, sum) combine the lanes that hold one column with
// gpu.shuffle xor within the wave. P is rounded to nearest even to the pv
// precision's lhs type before the P V product; the row sum uses the
// unrounded f32 values.
//
// Masks are applied by key block ranges: blocks no query of the wave can
// see (causal, window, kv_length) are not visited; blocks every query sees
// completely skip the per-element mask; the rest (diagonal blocks, a bool
// mask, a partial last block) select -inf per element.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEmitter.h"
#include "KernelSkeleton.h"
#include "MmaEmitter.h"

#include "crest/Codegen/Passes.h"
#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Target/MmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

namespace crest {
#define GEN_PASS_DEF_CRESTLOWERATTENTIONPASS
#include "crest/Codegen/Passes.h.inc"
} // namespace crest

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

namespace {

/// Whether the accumulator of `qk` (S^T: keys x queries) can serve, register
/// for register, as the B fragments (P^T: keys x queries) of `pv`, and the
/// keys its registers hold are a permutation of the tile's M keys.
bool scoresFeedPv(const MmaInstruction &qk, const MmaInstruction &pv) {
  if (qk.blocks != 1 || pv.blocks != 1 || qk.n != pv.n || pv.m != pv.n ||
      !mma::hasLayout(qk) || !mma::hasLayout(pv))
    return false;
  mma::AccLayout d = mma::getDLayout(qk);
  mma::InputLayout bl = mma::getBLayout(pv);
  if (d.bits != 32 || bl.perLane == 0 || d.elementsPerLane % bl.perLane != 0)
    return false;
  unsigned groups = mma::kMfmaWaveSize / qk.n;
  if (bl.getLanesPerKGroup() != qk.n)
    return false;
  llvm::SmallSet<unsigned, 32> keys;
  for (unsigned lane = 0; lane < mma::kMfmaWaveSize; ++lane)
    for (unsigned e = 0; e < d.elementsPerLane; ++e)
      if (d.getRow(lane, e) != d.getRow(lane / qk.n * qk.n, e))
        return false;
  for (unsigned g = 0; g < groups; ++g)
    for (unsigned e = 0; e < d.elementsPerLane; ++e) {
      unsigned key = d.getRow(g * qk.n, e);
      if (key >= qk.m || !keys.insert(key).second)
        return false;
    }
  return keys.size() == qk.m;
}

/// Whether the keys each V^T fragment of `pv` needs (in the score
/// accumulator's key order, see scoresFeedPv) are consecutive and aligned
/// to the fragment's length, so that a [dv][key] buffer gives each fragment
/// in one vector read.
bool fragmentKeysContiguous(const MmaInstruction &qk, const MmaInstruction &pv) {
  mma::AccLayout d = mma::getDLayout(qk);
  unsigned kpl = mma::getBLayout(pv).perLane;
  if (kpl < 2)
    return false;
  for (unsigned g = 0; g < mma::kMfmaWaveSize / qk.n; ++g)
    for (unsigned st = 0; st < d.elementsPerLane / kpl; ++st) {
      unsigned first = d.getRow(g * qk.n, st * kpl);
      if (first % kpl != 0)
        return false;
      for (unsigned e = 1; e < kpl; ++e)
        if (d.getRow(g * qk.n, st * kpl + e) != first + e)
          return false;
    }
  return true;
}

struct AttentionPlan {
  const MmaInstruction *qk = nullptr, *pv = nullptr;
  std::unique_ptr<MmaEmitter> qkMma, pvMma;
  int64_t batch, hq, hkv, group, lq, lkv, d, dv;
  int64_t rows;     ///< group * lq: query rows per key/value head
  int64_t n;        ///< query rows per wave
  int64_t keyTiles; ///< score tiles (of qk->m keys) per key block
  int64_t waves;    ///< waves per workgroup
  int64_t colBlocks;
  /// Split-KV: workgroups along the key sequence per query row block, and
  /// the key blocks each takes.
  int64_t splits = 1, blocksPerSplit = 0;
  /// V goes through a wave-private LDS buffer, transposed ([dv][key]), so
  /// that each V^T fragment is one LDS read (see vThroughLds).
  bool ldsV = false;
  int64_t ldsKeys = 0; ///< keys per LDS row (the block's, padded)
  int64_t vVec = 1;    ///< V elements (along dv) per global load
  float scaleLog2; ///< scale * log2(e)
};

class AttentionBuilder {
public:
  AttentionBuilder(AttentionOp op, const AttentionPlan &plan,
                   ImplicitLocOpBuilder &b)
      : op(op), plan(plan), b(b) {}

  void build(gpu::GPUFuncOp func);

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(float(v)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, x, idx(y)); }
  Value minS(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxS(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value fmax(Value x, Value y) { return arith::MaximumFOp::create(b, x, y); }

  /// The diagonal of query `q`: the last key it sees under the causal mask.
  Value diagonal(Value q) {
    if (op.getCausal() == CausalMask::BottomRight)
      return add(q, sub(keysPresent, idx(plan.lq)));
    return q;
  }
  /// Whether (query q, key) is visible, apart from the bool mask.
  Value visible(Value q, Value key) {
    Value ok = cmp(arith::CmpIPredicate::slt, key, keysPresent);
    if (op.getCausal() == CausalMask::None)
      return ok;
    Value diag = diagonal(q);
    ok = both(ok, cmp(arith::CmpIPredicate::sle, key, diag));
    if (std::optional<uint64_t> w = op.getWindow())
      ok = both(ok, cmp(arith::CmpIPredicate::sgt, key,
                        sub(diag, idx(int64_t(*w)))));
    return ok;
  }
  /// Combines `v` over the lanes that hold the same column (lanes
  /// lane % n + n * g).
  Value columnReduce(Value v, bool isMax) {
    Value width = arith::ConstantOp::create(b, b.getI32IntegerAttr(64));
    for (int64_t off = plan.n; off < 64; off *= 2) {
      Value offV = arith::ConstantOp::create(b, b.getI32IntegerAttr(off));
      Value other =
          gpu::ShuffleOp::create(b, v, offV, width, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      v = isMax ? fmax(v, other) : arith::AddFOp::create(b, v, other);
    }
    return v;
  }
  Value exp2(Value x) {
    return ROCDL::ROCDLExp2::create(b, b.getF32Type(), x);
  }

  Value loadMaskBit(Value query, Value key);
  /// `len` consecutive head-dimension elements [d0, d0 + len) of row
  /// (b, h, row) of a [B, H, L, D] Q or K memref: one vector load when
  /// the instruction's K divides D, else per element with those past D
  /// read as zero. A scalar when `len` is 1 (the fragment type).
  Value loadHeadFragment(Value mem, ArrayRef<Operation *> view, Value bIdx,
                         Value head, Value row, Value d0, int64_t len);
  /// The indices into a kernel input of element `coords` of the operand
  /// computed from it by `view` (reshapes, slices and transposes in program
  /// order; empty: the input is the operand).
  SmallVector<Value> through(ArrayRef<Operation *> view, ValueRange coords);
  /// Element `coords` of a `from`-shaped tensor in its reshape to `to`
  /// (the same row-major linear index).
  SmallVector<Value> reshapeIndex(ValueRange coords, ArrayRef<int64_t> from,
                                  ArrayRef<int64_t> to);
  /// The indices into the kernel's result of element `coords` of the
  /// attention's result, stored through `view` (reshapes and transposes in
  /// program order; empty: the result is the kernel's).
  SmallVector<Value> forward(ArrayRef<Operation *> view, ValueRange coords);
  /// Writes out = O / l and lse from the final state (mUse: the row
  /// maximum in base 2, 0 for a row without a visible key).
  void storeResult(Value mUse, Value l, ArrayRef<Value> o);
  /// The scores of one key block, scaled to base 2.
  SmallVector<Value> scores(Value k0);
  /// The global loads of key block `k0`'s V rows for the LDS copy: per
  /// chunk, its LDS origin (dv, key) and `kplV` row vectors of vVec
  /// elements (keys past L read the last present key, `lastKey`).
  SmallVector<std::pair<Value, SmallVector<Value>>>
  loadValueRows(Value k0, Value lastKey);
  /// Writes what loadValueRows loaded into the [dv][key] LDS buffer,
  /// transposed in registers: kplV consecutive keys of one dv per store.
  void storeValueRows(ArrayRef<std::pair<Value, SmallVector<Value>>> rows);
  /// `tiles` with -inf at the masked pairs.
  SmallVector<Value> maskScores(Value k0, ArrayRef<Value> tiles);

  AttentionOp op;
  const AttentionPlan &plan;
  ImplicitLocOpBuilder &b;
  Value qMem, kMem, vMem, lengthMem, maskMem, outMem, lseMem;
  /// The views Q, K and V are read through (KernelOp::getView).
  SmallVector<Operation *> qView, kView, vView, outView;
  Value workspaceO, workspaceState, semaphores;
  Value ldsV; ///< [dv][key] V of the current key block (plan.ldsV)
  Value block, split; ///< the wave's query row block; its KV split
  Value lane, batchIdx, kvHead, colBase, column, colValid, headOfCol, query;
  Value keysPresent; ///< L: kv_length[b] clamped to [0, Lkv], else Lkv
  SmallVector<Value> qFrags;
};

Value AttentionBuilder::loadMaskBit(Value q, Value key) {
  auto type = cast<MemRefType>(maskMem.getType());
  // NumPy broadcasting of the mask to [B, Hq, Lq, Lkv].
  Value coords[] = {batchIdx, headOfCol, q, key};
  SmallVector<Value> indices;
  int64_t rank = type.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = type.getDimSize(i);
    indices.push_back(dim == 1 ? idx(0) : coords[4 - rank + i]);
  }
  return memref::LoadOp::create(b, maskMem, indices);
}

SmallVector<Value> AttentionBuilder::reshapeIndex(ValueRange coords,
                                                 ArrayRef<int64_t> from,
                                                 ArrayRef<int64_t> to) {
  Value linear = idx(0);
  for (size_t i = 0; i < from.size(); ++i)
    linear = add(mul(linear, idx(from[i])), coords[i]);
  SmallVector<Value> result(to.size());
  for (size_t i = to.size(); i-- > 0;) {
    result[i] = i == 0 ? linear : rem(linear, to[i]);
    if (i > 0)
      linear = div(linear, to[i]);
  }
  return result;
}

SmallVector<Value> AttentionBuilder::through(ArrayRef<Operation *> view,
                                            ValueRange coords) {
  SmallVector<Value> c(coords);
  for (Operation *op : llvm::reverse(view)) {
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    ArrayRef<int64_t> out =
        cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    SmallVector<Value> src(in.size());
    if (auto t = dyn_cast<TransposeOp>(op)) {
      for (auto [i, p] : llvm::enumerate(t.getPermutation()))
        src[p] = c[i];
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      std::optional<ArrayRef<int64_t>> strides = slice.getStrides();
      for (size_t i = 0; i < in.size(); ++i) {
        Value v = c[i];
        if (strides && (*strides)[i] != 1)
          v = mul(v, idx((*strides)[i]));
        src[i] = add(v, idx(slice.getOffsets()[i]));
      }
    } else {
      src = reshapeIndex(c, out, in);
    }
    c = std::move(src);
  }
  return c;
}

SmallVector<Value> AttentionBuilder::forward(ArrayRef<Operation *> view,
                                            ValueRange coords) {
  SmallVector<Value> c(coords);
  for (Operation *op : view) {
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    ArrayRef<int64_t> out =
        cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    SmallVector<Value> dst(out.size());
    if (auto t = dyn_cast<TransposeOp>(op)) {
      for (auto [i, p] : llvm::enumerate(t.getPermutation()))
        dst[i] = c[p];
    } else {
      dst = reshapeIndex(c, in, out);
    }
    c = std::move(dst);
  }
  return c;
}

Value AttentionBuilder::loadHeadFragment(Value mem, ArrayRef<Operation *> view,
                                         Value bIdx, Value head, Value row,
                                         Value d0, int64_t len) {
  Type elt = cast<MemRefType>(mem.getType()).getElementType();
  auto type = VectorType::get({len}, elt);
  Value frag;
  if (plan.d % plan.qk->k == 0) {
    frag = vector::LoadOp::create(b, type, mem,
                                  through(view, {bIdx, head, row, d0}));
  } else {
    Value zero = arith::ConstantOp::create(b, elt, b.getZeroAttr(elt));
    SmallVector<Value> elts;
    for (int64_t e = 0; e < len; ++e) {
      Value de = add(d0, idx(e));
      Value v = memref::LoadOp::create(
          b, mem,
          through(view, {bIdx, head, row,
                         arith::MinUIOp::create(b, de, idx(plan.d - 1))}));
      elts.push_back(
          select(cmp(arith::CmpIPredicate::ult, de, idx(plan.d)), v, zero));
    }
    frag = vector::FromElementsOp::create(b, type, elts);
  }
  if (len == 1)
    return vector::ExtractOp::create(b, frag, 0);
  return frag;
}

SmallVector<Value> AttentionBuilder::scores(Value k0) {
  const MmaEmitter &qk = *plan.qkMma;
  Location loc = b.getLoc();
  int64_t kpl = qk.getOperandElementsPerLane(MmaOperand::A);
  auto accType = qk.getAccType(b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  Value keyRow = qk.getOperandIndex(b, loc, lane, MmaOperand::A);
  Value firstK = qk.getOperandFirstK(b, loc, lane, MmaOperand::A);
  // Every K fragment of the block first, so that the loads are in flight
  // together, then the MFMAs.
  SmallVector<SmallVector<Value>> frags(plan.keyTiles);
  for (int64_t t = 0; t < plan.keyTiles; ++t) {
    Value key = add(k0, add(idx(t * qk.getM()), keyRow));
    Value keyC = minS(key, idx(plan.lkv - 1));
    for (int64_t ds = 0; ds < plan.d; ds += qk.getK()) {
      frags[t].push_back(loadHeadFragment(kMem, kView, batchIdx, kvHead, keyC,
                                          add(idx(ds), firstK), kpl));
    }
  }
  Value c = vector::BroadcastOp::create(b, accType, f32(plan.scaleLog2));
  SmallVector<Value> tiles;
  for (int64_t t = 0; t < plan.keyTiles; ++t) {
    Value acc = zero;
    for (auto [s, frag] : llvm::enumerate(frags[t]))
      acc = qk.emitMma(b, loc, frag, qFrags[s], acc);
    tiles.push_back(arith::MulFOp::create(b, acc, c));
  }
  return tiles;
}

SmallVector<Value> AttentionBuilder::maskScores(Value k0,
                                                ArrayRef<Value> tiles) {
  const MmaEmitter &qk = *plan.qkMma;
  Location loc = b.getLoc();
  auto accType = qk.getAccType(b.getF32Type());
  Value ninf = f32(-std::numeric_limits<float>::infinity());
  SmallVector<Value> masked;
  for (auto [t, acc] : llvm::enumerate(tiles)) {
    // -inf where the pair is masked.
    SmallVector<Value> elts;
    for (int64_t e = 0; e < qk.getAccElementsPerLane(); ++e) {
      Value keyE = add(k0, add(idx(int64_t(t) * qk.getM()),
                               qk.getAccRow(b, loc, lane, e)));
      Value ok = visible(query, keyE);
      if (maskMem) {
        Value bit = loadMaskBit(query, minS(keyE, idx(plan.lkv - 1)));
        ok = both(ok, bit);
      }
      Value s = vector::ExtractOp::create(b, acc, e);
      elts.push_back(select(ok, s, ninf));
    }
    masked.push_back(vector::FromElementsOp::create(b, accType, elts));
  }
  return masked;
}

SmallVector<std::pair<Value, SmallVector<Value>>>
AttentionBuilder::loadValueRows(Value k0, Value lastKey) {
  Type vElt = cast<MemRefType>(vMem.getType()).getElementType();
  int64_t kplV = plan.pvMma->getOperandElementsPerLane(MmaOperand::A);
  int64_t keysPerBlock = plan.keyTiles * plan.qk->m;
  int64_t dvChunks = plan.dv / plan.vVec;
  int64_t chunks = (keysPerBlock / kplV) * dvChunks;
  SmallVector<std::pair<Value, SmallVector<Value>>> rows;
  for (int64_t it = 0; it * 64 < chunks; ++it) {
    // Lanes past the last chunk (when 64 does not divide them) redo it:
    // the same values to the same place.
    Value chunk = arith::MinUIOp::create(b, add(idx(it * 64), lane),
                                         idx(chunks - 1));
    // Consecutive lanes take consecutive key groups of one dv chunk, so
    // that their transposed LDS stores fall in distinct banks.
    int64_t keyGroups = keysPerBlock / kplV;
    Value keyLocal = mul(rem(chunk, keyGroups), idx(kplV));
    Value dv = mul(div(chunk, keyGroups), idx(plan.vVec));
    SmallVector<Value> vecs;
    for (int64_t r = 0; r < kplV; ++r) {
      Value key = minS(add(k0, add(keyLocal, idx(r))), lastKey);
      vecs.push_back(vector::LoadOp::create(
          b, VectorType::get({plan.vVec}, vElt), vMem,
          through(vView, {batchIdx, kvHead, key, dv})));
    }
    Value origin = vector::FromElementsOp::create(
        b, VectorType::get({2}, b.getIndexType()), ValueRange{dv, keyLocal});
    rows.push_back({origin, vecs});
  }
  return rows;
}

void AttentionBuilder::storeValueRows(
    ArrayRef<std::pair<Value, SmallVector<Value>>> rows) {
  Type vElt = cast<MemRefType>(vMem.getType()).getElementType();
  int64_t kplV = plan.pvMma->getOperandElementsPerLane(MmaOperand::A);
  for (auto &[origin, vecs] : rows) {
    Value dv = vector::ExtractOp::create(b, origin, 0);
    Value keyLocal = vector::ExtractOp::create(b, origin, 1);
    for (int64_t j = 0; j < plan.vVec; ++j) {
      SmallVector<Value> elts;
      for (Value v : vecs)
        elts.push_back(vector::ExtractOp::create(b, v, j));
      Value column = vector::FromElementsOp::create(
          b, VectorType::get({kplV}, vElt), elts);
      vector::StoreOp::create(b, column, ldsV,
                              ValueRange{add(dv, idx(j)), keyLocal});
    }
  }
}

void AttentionBuilder::build(gpu::GPUFuncOp func) {
  b.setInsertionPointToStart(&func.getBody().front());
  unsigned arg = 0;
  if (auto kernel = dyn_cast<KernelOp>(op->getParentOp())) {
    // The kernel's inputs are the arguments; each operand is read from the
    // input its view starts at.
    auto input = [&](Value operand, SmallVector<Operation *> &view) {
      view = kernel.getView(operand);
      Value source = view.empty() ? operand : view.front()->getOperand(0);
      return func.getArgument(cast<BlockArgument>(source).getArgNumber());
    };
    SmallVector<Operation *> none;
    qMem = input(op.getQuery(), qView);
    kMem = input(op.getKey(), kView);
    vMem = input(op.getValue(), vView);
    if (op.getKvLength())
      lengthMem = input(op.getKvLength(), none);
    if (op.getMask())
      maskMem = input(op.getMask(), none);
    outView = kernel.getResultView();
    arg = kernel.getNumOperands();
  } else {
    qMem = func.getArgument(arg++);
    kMem = func.getArgument(arg++);
    vMem = func.getArgument(arg++);
    if (op.getKvLength())
      lengthMem = func.getArgument(arg++);
    if (op.getMask())
      maskMem = func.getArgument(arg++);
  }
  outMem = func.getArgument(arg++);
  if (op.getLse())
    lseMem = func.getArgument(arg++);
  if (plan.ldsV)
    ldsV = func.getWorkgroupAttributions().front();
  if (plan.splits > 1) {
    workspaceO = func.getArgument(arg++);
    workspaceState = func.getArgument(arg++);
    semaphores = func.getArgument(arg++);
  }

  const MmaEmitter &qk = *plan.qkMma, &pv = *plan.pvMma;
  Location loc = b.getLoc();
  Type vElt = cast<MemRefType>(vMem.getType()).getElementType();
  Type pElt = op.getPv().getLhs();
  Type f32Type = b.getF32Type();

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = rem(tid, 64);
  Value wave = div(tid, 64);
  batchIdx = gpu::BlockIdOp::create(b, gpu::Dimension::z);
  kvHead = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value bidX = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  split = rem(bidX, plan.splits);
  block = add(mul(div(bidX, plan.splits), idx(plan.waves)), wave);
  // Whole waves past the last column block leave (no barrier follows).
  auto live = scf::IfOp::create(
      b, cmp(arith::CmpIPredicate::ult, block, idx(plan.colBlocks)), false);
  b.setInsertionPointToStart(&live.getThenRegion().front());
  // Causal query blocks see more keys the later they come: dispatch the
  // heaviest first, so the grid's last workgroups are short ones and the
  // CUs finish together (FlashAttention-2's order).
  if (op.getCausal() != CausalMask::None)
    block = sub(idx(plan.colBlocks - 1), block);

  colBase = mul(block, idx(plan.n));
  column = add(colBase, qk.getAccColumn(b, loc, lane));
  colValid = cmp(arith::CmpIPredicate::ult, column, idx(plan.rows));
  Value colC = arith::MinUIOp::create(b, column, idx(plan.rows - 1));
  headOfCol = add(mul(kvHead, idx(plan.group)), div(colC, plan.lq));
  query = rem(colC, plan.lq);

  // L: the keys present.
  keysPresent = idx(plan.lkv);
  if (lengthMem) {
    Value len = memref::LoadOp::create(b, lengthMem, ValueRange{batchIdx});
    Value l = arith::IndexCastOp::create(b, b.getIndexType(), len);
    keysPresent = maxS(minS(l, idx(plan.lkv)), idx(0));
  }

  // The query fragments (B of S^T = K Q^T), for the whole loop.
  {
    int64_t kpl = qk.getOperandElementsPerLane(MmaOperand::B);
    Value firstK = qk.getOperandFirstK(b, loc, lane, MmaOperand::B);
    for (int64_t ds = 0; ds < plan.d; ds += qk.getK()) {
      qFrags.push_back(loadHeadFragment(qMem, qView, batchIdx, headOfCol, query,
                                        add(idx(ds), firstK), kpl));
    }
  }

  // The key blocks some query of this wave sees: [kbStart, kbEnd).
  int64_t keysPerBlock = plan.keyTiles * qk.getM();
  Value rFirst = colBase;
  Value rLast = arith::MinUIOp::create(b, add(colBase, idx(plan.n - 1)),
                                       idx(plan.rows - 1));
  Value sameHead = cmp(arith::CmpIPredicate::eq, div(rFirst, plan.lq),
                       div(rLast, plan.lq));
  Value qLo = select(sameHead, rem(rFirst, plan.lq), idx(0));
  Value qHi = select(sameHead, rem(rLast, plan.lq), idx(plan.lq - 1));
  Value kEnd = keysPresent, kStart = idx(0);
  if (op.getCausal() != CausalMask::None) {
    kEnd = maxS(minS(kEnd, add(diagonal(qHi), idx(1))), idx(0));
    if (std::optional<uint64_t> w = op.getWindow())
      kStart = maxS(sub(add(diagonal(qLo), idx(1)), idx(int64_t(*w))), idx(0));
  }
  kStart = minS(kStart, kEnd);
  Value kbStart = div(kStart, keysPerBlock);
  Value kbEnd = div(add(kEnd, idx(keysPerBlock - 1)), keysPerBlock);
  if (plan.splits > 1) {
    // Split s takes the key blocks [s * per, (s + 1) * per) of its range.
    Value first = mul(split, idx(plan.blocksPerSplit));
    kbStart = maxS(kbStart, first);
    kbEnd = minS(kbEnd, add(first, idx(plan.blocksPerSplit)));
    kbStart = minS(kbStart, kbEnd);
  }

  int64_t tilesV = llvm::divideCeil(plan.dv, pv.getM());
  auto accType = pv.getAccType(f32Type);
  Value zeroAcc = arith::ConstantOp::create(
      b, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  Value ninf = f32(-std::numeric_limits<float>::infinity());
  SmallVector<Value> init = {ninf, f32(0)};
  init.append(tilesV, zeroAcc);
  auto loop = scf::ForOp::create(b, kbStart, kbEnd, idx(1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kb = loop.getInductionVar();
    Value k0 = mul(kb, idx(keysPerBlock));
    Value mOld = loop.getRegionIterArgs()[0];
    Value lOld = loop.getRegionIterArgs()[1];
    SmallVector<Value> oAccs(loop.getRegionIterArgs().drop_front(2));

    // Blocks that every query of the wave sees whole skip the mask.
    Value kLast = add(k0, idx(keysPerBlock - 1));
    Value full = cmp(arith::CmpIPredicate::slt, kLast, keysPresent);
    if (op.getCausal() != CausalMask::None) {
      full = both(full, cmp(arith::CmpIPredicate::sle, kLast, diagonal(qLo)));
      if (std::optional<uint64_t> w = op.getWindow())
        full = both(full, cmp(arith::CmpIPredicate::sgt, k0,
                              sub(diagonal(qHi), idx(int64_t(*w)))));
    }
    if (maskMem)
      full = arith::ConstantOp::create(b, b.getBoolAttr(false));
    auto sAccType = qk.getAccType(f32Type);
    Value lastKey = maxS(sub(keysPresent, idx(1)), idx(0));
    // With V in LDS: the block's V rows first (16-byte loads along dv, kplV
    // keys per lane), in flight with the K fragments.
    SmallVector<std::pair<Value, SmallVector<Value>>> vRows;
    if (plan.ldsV)
      vRows = loadValueRows(k0, lastKey);
    SmallVector<Value> raw = scores(k0);
    if (plan.ldsV)
      storeValueRows(vRows);

    // V^T fragments (A of O^T += V^T P^T), in the key order of the score
    // registers, issued now so that their loads overlap the softmax.
    int64_t kplP = pv.getOperandElementsPerLane(MmaOperand::B);
    int64_t kplV = pv.getOperandElementsPerLane(MmaOperand::A);
    int64_t steps = qk.getAccElementsPerLane() / kplP;
    Value vRow = pv.getOperandIndex(b, loc, lane, MmaOperand::A);
    Value vGroupLane =
        mul(pv.getOperandKGroup(b, loc, lane, MmaOperand::A), idx(plan.n));
    // [tile][step][dv tile]
    SmallVector<SmallVector<SmallVector<Value>>> vFrags(plan.keyTiles);
    for (int64_t t = 0; t < plan.keyTiles; ++t)
      for (int64_t st = 0; st < steps; ++st) {
        // The keys of this step, as the B lanes of V's K group hold them.
        SmallVector<Value> keys;
        for (int64_t e = 0; e < kplV; ++e)
          keys.push_back(
              add(k0, add(idx(t * qk.getM()),
                          qk.getAccRow(b, loc, vGroupLane, st * kplP + e))));
        vFrags[t].emplace_back();
        for (int64_t u = 0; u < tilesV; ++u) {
          Value dvIdx = add(idx(u * pv.getM()), vRow);
          Value dvC = arith::MinUIOp::create(b, dvIdx, idx(plan.dv - 1));
          if (plan.ldsV) {
            // The fragment's keys are consecutive: one LDS read.
            Value first = sub(keys.front(), k0);
            Value frag = vector::LoadOp::create(
                b, VectorType::get({kplV}, vElt), ldsV, ValueRange{dvC, first});
            vFrags[t].back().push_back(frag);
            continue;
          }
          SmallVector<Value> vElts;
          // Keys past L (an unfilled KV cache, whose entries may be
          // anything, NaN included) read the last present key instead:
          // their probabilities are 0, and 0 times a finite value is 0.
          for (Value key : keys)
            vElts.push_back(memref::LoadOp::create(
                b, vMem,
                through(vView, {batchIdx, kvHead, minS(key, lastKey), dvC})));
          Value vFrag = vector::FromElementsOp::create(
              b, VectorType::get({kplV}, vElt), vElts);
          if (kplV == 1)
            vFrag = vector::ExtractOp::create(b, vFrag, 0);
          vFrags[t].back().push_back(vFrag);
        }
      }

    SmallVector<Type> tileTypes(plan.keyTiles, sAccType);
    auto maskIf = scf::IfOp::create(b, tileTypes, full, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&maskIf.getThenRegion().front());
      scf::YieldOp::create(b, raw);
      b.setInsertionPointToStart(&maskIf.getElseRegion().front());
      scf::YieldOp::create(b, maskScores(k0, raw));
    }
    SmallVector<Value> s(maskIf.getResults());

    // Row maximum: the one exponent operand, s, for max and subtraction.
    Value bm = ninf;
    for (Value tile : s)
      bm = fmax(bm, vector::ReductionOp::create(
                        b, vector::CombiningKind::MAXIMUMF, tile));
    bm = columnReduce(bm, /*isMax=*/true);
    Value mNew = fmax(mOld, bm);
    Value mUse = select(arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                              mNew, ninf),
                        f32(0), mNew);
    Value alpha = exp2(arith::SubFOp::create(b, mOld, mUse));
    Value mUseVec = vector::BroadcastOp::create(b, sAccType, mUse);
    SmallVector<Value> p;
    Value rowSum = f32(0);
    for (Value tile : s) {
      Value arg = arith::SubFOp::create(b, tile, mUseVec);
      SmallVector<Value> elts;
      for (int64_t e = 0; e < qk.getAccElementsPerLane(); ++e)
        elts.push_back(exp2(vector::ExtractOp::create(b, arg, e)));
      Value pt = vector::FromElementsOp::create(b, sAccType, elts);
      rowSum = arith::AddFOp::create(
          b, rowSum,
          vector::ReductionOp::create(b, vector::CombiningKind::ADD, pt));
      p.push_back(pt);
    }
    rowSum = columnReduce(rowSum, /*isMax=*/false);
    Value lNew = arith::AddFOp::create(
        b, arith::MulFOp::create(b, lOld, alpha), rowSum);
    Value alphaVec = vector::BroadcastOp::create(b, accType, alpha);
    for (Value &o : oAccs)
      o = arith::MulFOp::create(b, o, alphaVec);

    // O^T += V^T P^T: P from the score registers, rounded to the pv lhs
    // type.
    for (int64_t t = 0; t < plan.keyTiles; ++t)
      for (int64_t st = 0; st < steps; ++st) {
        SmallVector<Value> pElts;
        for (int64_t e = 0; e < kplP; ++e)
          pElts.push_back(vector::ExtractOp::create(b, p[t], st * kplP + e));
        Value pFrag = vector::FromElementsOp::create(
            b, VectorType::get({kplP}, f32Type), pElts);
        pFrag = convertElements(b, loc, pFrag, pElt);
        if (kplP == 1)
          pFrag = vector::ExtractOp::create(b, pFrag, 0);
        for (int64_t u = 0; u < tilesV; ++u)
          oAccs[u] = pv.emitMma(b, loc, vFrags[t][st][u], pFrag, oAccs[u]);
      }
    SmallVector<Value> next = {mNew, lNew};
    next.append(oAccs);
    scf::YieldOp::create(b, next);
  }

  Value ninfC = f32(-std::numeric_limits<float>::infinity());
  Value mFinal = loop.getResult(0), lFinal = loop.getResult(1);
  Value mUse = select(
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mFinal, ninfC),
      f32(0), mFinal);
  SmallVector<Value> oFinal(loop.getResults().drop_front(2));
  if (plan.splits == 1) {
    storeResult(mUse, lFinal, oFinal);
    return;
  }

  // Split-KV: this workgroup's unnormalised O, its maximum and its sum go
  // to its split's slice of the workspace; the wave that arrives last at
  // its column block's semaphore combines the splits (in split order) with
  // their maxima and writes the result.
  // The workspace is lane-private ([split][row block][lane][...]): the
  // combining wave's lane reads back exactly what the same lane of the
  // other splits wrote, as 16-byte vectors.
  Value tile = add(mul(add(mul(batchIdx, idx(plan.hkv)), kvHead),
                       idx(plan.colBlocks)),
                   block);
  int64_t accN = pv.getAccElementsPerLane();
  for (int64_t u = 0; u < tilesV; ++u)
    vector::StoreOp::create(b, oFinal[u], workspaceO,
                            ValueRange{split, tile, lane, idx(u * accN)});
  Value state = vector::FromElementsOp::create(
      b, VectorType::get({2}, f32Type), ValueRange{mUse, lFinal});
  vector::StoreOp::create(b, state, workspaceState,
                          ValueRange{split, tile, lane, idx(0)});
  // Every lane's stores are visible device-wide before the wave arrives.
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::release, "agent");
  Type i32 = b.getI32Type();
  auto i32Const = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, i32, v).getResult();
  };
  Value before;
  {
    OpBuilder::InsertionGuard g(b);
    auto leader = scf::IfOp::create(
        b, TypeRange{i32}, cmp(arith::CmpIPredicate::eq, lane, idx(0)), true);
    b.setInsertionPointToStart(&leader.getThenRegion().front());
    Value old = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi,
                                            i32Const(1), semaphores,
                                            ValueRange{tile});
    // Every split has arrived: the semaphore is free for the next launch.
    auto reset = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, old,
                                 i32Const(plan.splits - 1)),
        false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&reset.getThenRegion().front());
      memref::StoreOp::create(b, i32Const(0), semaphores, ValueRange{tile});
    }
    scf::YieldOp::create(b, old);
    b.setInsertionPointToStart(&leader.getElseRegion().front());
    scf::YieldOp::create(b, i32Const(0));
    before = leader.getResult(0);
  }
  before = gpu::ShuffleOp::create(
               b, before, arith::ConstantOp::create(b, b.getI32IntegerAttr(0)),
               arith::ConstantOp::create(b, b.getI32IntegerAttr(64)),
               gpu::ShuffleMode::IDX)
               .getShuffleResult();
  auto lastIf = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, before,
                               i32Const(plan.splits - 1)),
      false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&lastIf.getThenRegion().front());
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::acquire, "agent");
  SmallVector<Value> ms, ls;
  Value mAll = ninfC;
  for (int64_t sp = 0; sp < plan.splits; ++sp) {
    Value st = vector::LoadOp::create(b, VectorType::get({2}, f32Type),
                                      workspaceState,
                                      ValueRange{idx(sp), tile, lane, idx(0)});
    ms.push_back(vector::ExtractOp::create(b, st, 0));
    ls.push_back(vector::ExtractOp::create(b, st, 1));
    Value has = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, ls.back(),
                                      f32(0));
    mAll = fmax(mAll, select(has, ms.back(), ninfC));
  }
  Value mAllUse = select(
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mAll, ninfC),
      f32(0), mAll);
  SmallVector<Value> weights;
  Value lAll = f32(0);
  for (int64_t sp = 0; sp < plan.splits; ++sp) {
    Value has = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, ls[sp],
                                      f32(0));
    Value w = select(has, exp2(arith::SubFOp::create(b, ms[sp], mAllUse)),
                     f32(0));
    weights.push_back(vector::BroadcastOp::create(b, accType, w));
    lAll = arith::AddFOp::create(b, lAll, arith::MulFOp::create(b, w, ls[sp]));
  }
  SmallVector<Value> combined;
  for (int64_t u = 0; u < tilesV; ++u) {
    Value sum = zeroAcc;
    for (int64_t sp = 0; sp < plan.splits; ++sp) {
      Value part = vector::LoadOp::create(
          b, accType, workspaceO, ValueRange{idx(sp), tile, lane, idx(u * accN)});
      sum = arith::AddFOp::create(b, sum,
                                  arith::MulFOp::create(b, weights[sp], part));
    }
    combined.push_back(sum);
  }
  storeResult(mAllUse, lAll, combined);
}

void AttentionBuilder::storeResult(Value mUse, Value l, ArrayRef<Value> o) {
  // out = O / l (0 for a row without a visible key); lse = (m + log2 l) ln 2.
  const MmaEmitter &pv = *plan.pvMma;
  Location loc = b.getLoc();
  Type outElt = cast<MemRefType>(outMem.getType()).getElementType();
  Value ninf = f32(-std::numeric_limits<float>::infinity());
  Value hasKeys = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, f32(0));
  Value inv = select(hasKeys, arith::DivFOp::create(b, f32(1), l), f32(0));
  OpBuilder::InsertionGuard g(b);
  auto storeIf = scf::IfOp::create(b, colValid, false);
  b.setInsertionPointToStart(&storeIf.getThenRegion().front());
  for (auto [u, acc] : llvm::enumerate(o)) {
    for (int64_t e = 0; e < pv.getAccElementsPerLane(); ++e) {
      Value dvIdx =
          add(idx(int64_t(u) * pv.getM()), pv.getAccRow(b, loc, lane, e));
      Value v =
          arith::MulFOp::create(b, vector::ExtractOp::create(b, acc, e), inv);
      v = convertElements(b, loc, v, outElt);
      if (plan.dv % pv.getM() == 0) {
        memref::StoreOp::create(
            b, v, outMem, forward(outView, {batchIdx, headOfCol, query, dvIdx}));
        continue;
      }
      OpBuilder::InsertionGuard g2(b);
      auto inDv = scf::IfOp::create(
          b, cmp(arith::CmpIPredicate::ult, dvIdx, idx(plan.dv)), false);
      b.setInsertionPointToStart(&inDv.getThenRegion().front());
      memref::StoreOp::create(
          b, v, outMem, forward(outView, {batchIdx, headOfCol, query, dvIdx}));
    }
  }
  if (!lseMem)
    return;
  // One lane per column writes it: the lanes of K group 0.
  auto first = scf::IfOp::create(
      b, cmp(arith::CmpIPredicate::ult, lane, idx(plan.n)), false);
  b.setInsertionPointToStart(&first.getThenRegion().front());
  Value log2l = ROCDL::ROCDLLog::create(b, b.getF32Type(), l);
  Value lse = arith::MulFOp::create(b, arith::AddFOp::create(b, mUse, log2l),
                                    f32(M_LN2));
  lse = select(hasKeys, lse, ninf);
  memref::StoreOp::create(b, lse, lseMem,
                          ValueRange{batchIdx, headOfCol, query});
}

/// Picks the two instructions and the tiling of `op` on `chip`.
FailureOr<AttentionPlan> planAttention(AttentionOp op, const ChipInfo &chip,
                                       unsigned waveSize) {
  AttentionPlan p;
  ArrayRef<int64_t> qs = op.getQuery().getType().getShape();
  ArrayRef<int64_t> ks = op.getKey().getType().getShape();
  ArrayRef<int64_t> vs = op.getValue().getType().getShape();
  p.batch = qs[0];
  p.hq = qs[1];
  p.lq = qs[2];
  p.d = qs[3];
  p.hkv = ks[1];
  p.lkv = ks[2];
  p.dv = vs[3];
  p.group = p.hq / p.hkv;
  p.rows = p.group * p.lq;
  if (p.rows == 0 || p.dv == 0 || p.d == 0 || p.batch == 0)
    return op.emitOpError() << "has an empty query, head dimension or batch; "
                               "Crest generates no kernel for it";

  auto kindOf = [](Type t) { return getScalarKind(t); };
  std::optional<ScalarKind> kKind = kindOf(op.getQk().getRhs()),
                            qKind = kindOf(op.getQk().getLhs()),
                            vKind = kindOf(op.getPv().getRhs()),
                            pKind = kindOf(op.getPv().getLhs());
  if (!kKind || !qKind || !vKind || !pKind)
    return op.emitOpError() << "has element types without matrix instructions";
  // Queries per wave: 16 when a head's rows fit, else 32.
  int64_t preferN = p.rows <= 16 ? 16 : 32;
  int64_t bestScore = -1;
  for (const MmaInstruction *qk : chip.findMma(*kKind, *qKind, ScalarKind::F32))
    for (const MmaInstruction *pv :
         chip.findMma(*vKind, *pKind, ScalarKind::F32)) {
      if (!scoresFeedPv(*qk, *pv))
        continue;
      int64_t score = (qk->n == preferN ? 1000 : 0) + pv->k * 10 + qk->k;
      if (score > bestScore) {
        bestScore = score;
        p.qk = qk;
        p.pv = pv;
      }
    }
  if (!p.qk)
    return op.emitOpError()
           << "has no fused kernel on " << chip.name
           << ": no pair of matrix instructions for " << op.getQk() << " and "
           << op.getPv()
           << " whose score accumulator layout feeds the P V product";
  auto emitError = [&]() { return op.emitOpError(); };
  FailureOr<std::unique_ptr<MmaEmitter>> qkMma =
      createMmaEmitter(*p.qk, waveSize, false, emitError);
  if (failed(qkMma))
    return failure();
  FailureOr<std::unique_ptr<MmaEmitter>> pvMma =
      createMmaEmitter(*p.pv, waveSize, false, emitError);
  if (failed(pvMma))
    return failure();
  p.qkMma = std::move(*qkMma);
  p.pvMma = std::move(*pvMma);
  p.n = p.qk->n;
  // 64 keys per block (fewer when the keys are fewer).
  p.keyTiles = std::max<int64_t>(
      1, std::min<int64_t>(64 / p.qk->m, llvm::divideCeil(p.lkv, p.qk->m)));
  p.colBlocks = llvm::divideCeil(p.rows, p.n);
  p.waves = std::min<int64_t>(4, p.colBlocks);
  // V through wave-private LDS: one wave per workgroup, so that no barrier
  // is needed (LDS operations of one wave complete in order).
  int64_t keysPerBlock = p.keyTiles * p.qk->m;
  int64_t kplV = p.pvMma->getOperandElementsPerLane(MmaOperand::A);
  if (fragmentKeysContiguous(*p.qk, *p.pv) && keysPerBlock % kplV == 0) {
    unsigned vBytes = std::max(1u, vKind ? getScalarKindBits(*vKind) / 8 : 2);
    int64_t vec = 16 / vBytes;
    while (vec > 1 && p.dv % vec != 0)
      vec /= 2;
    int64_t ldsBytes = p.dv * (keysPerBlock + kplV) * vBytes;
    if (ldsBytes <= int64_t(chip.ldsBytesPerWorkgroup) / 2) {
      p.ldsV = true;
      p.ldsKeys = keysPerBlock + kplV;
      p.vVec = vec;
      p.waves = 1;
    }
  }
  p.scaleLog2 = float(op.getEffectiveScale() * M_LOG2E);
  // Split the keys when the waves would not fill the chip (decode): up to
  // one wave per CU, each with at least four key blocks (fewer blocks per
  // split spend more on combining than they save: decode over 4096 keys
  // models 22 us with 4 blocks per split, 26 us with 2, 32 us with 8).
  int64_t keyBlocks = llvm::divideCeil(p.lkv, p.keyTiles * p.qk->m);
  int64_t waves = p.colBlocks * p.hkv * p.batch;
  if (chip.timing && waves < int64_t(chip.timing->computeUnits)) {
    int64_t splits = std::min<int64_t>(
        int64_t(chip.timing->computeUnits) / waves, keyBlocks / 4);
    if (splits > 1) {
      p.blocksPerSplit = llvm::divideCeil(keyBlocks, splits);
      p.splits = llvm::divideCeil(keyBlocks, p.blocksPerSplit);
    }
  }
  return p;
}

struct LowerAttentionPass
    : crest::impl::CrestLowerAttentionPassBase<LowerAttentionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<AttentionOp> work;
    module.walk([&](AttentionOp op) {
      // An attention in a crest.kernel (reading its operands through
      // views) is launched as that kernel.
      Operation *anchor = op->getParentOfType<KernelOp>();
      if (!getLaunch(anchor ? anchor : op.getOperation()))
        work.push_back(op);
    });
    if (work.empty())
      return;
    TargetAttr target = lookupTarget(module);
    if (!target || !target.getChipInfo()) {
      module.emitError() << "crest-lower-attention needs a #crest.target on "
                            "the module (run crest-attach-target first)";
      return signalPassFailure();
    }
    unsigned waveSize = target.getEffectiveWaveSize();
    codegen::KernelModule kernels(module);
    for (AttentionOp op : work) {
      FailureOr<AttentionPlan> plan =
          planAttention(op, *target.getChipInfo(), waveSize);
      if (failed(plan))
        return signalPassFailure();
      Operation *anchor = op->getParentOfType<KernelOp>();
      if (!anchor)
        anchor = op;
      KernelSignature sig;
      for (Value v : anchor->getOperands())
        sig.inputs.push_back(cast<RankedTensorType>(v.getType()));
      for (Value v : anchor->getResults())
        sig.results.push_back(cast<RankedTensorType>(v.getType()));
      if (plan->splits > 1) {
        // Per split, row block and lane: the lane's O accumulators; its
        // maximum and sum.
        int64_t blocks = plan->batch * plan->hkv * plan->colBlocks;
        int64_t accs = llvm::divideCeil(plan->dv, plan->pv->m) *
                       plan->pvMma->getAccElementsPerLane();
        Type f32 = Float32Type::get(op.getContext());
        sig.workspace.push_back(
            RankedTensorType::get({plan->splits, blocks, 64, accs}, f32));
        sig.workspace.push_back(
            RankedTensorType::get({plan->splits, blocks, 64, 2}, f32));
        sig.semaphores.push_back(RankedTensorType::get(
            {plan->batch * plan->hkv * plan->colBlocks},
            IntegerType::get(op.getContext(), 32)));
      }
      if (plan->ldsV)
        sig.workgroupBuffers.push_back(getWorkgroupMemRefType(
            {plan->dv, plan->ldsKeys}, op.getValue().getType().getElementType()));
      int64_t gridX =
          llvm::divideCeil(plan->colBlocks, plan->waves) * plan->splits;
      gpu::GPUFuncOp func = kernels.createKernel(
          anchor, "attention", sig, {gridX, plan->hkv, plan->batch},
          {plan->waves * 64, 1, 1});
      ImplicitLocOpBuilder b(op.getLoc(), func.getContext());
      b.setInsertionPoint(func.getBody().front().getTerminator());
      AttentionBuilder(op, *plan, b).build(func);
    }
  }
};

} // namespace
