//===- CrestOps.cpp - Operations of the crest dialect
//-----------------------===//

#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Semantics/Scalar.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace crest;

#include "crest/Dialect/Crest/IR/CrestInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "64x128" for diagnostics.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  if (shape.empty())
    os << "scalar";
  return s;
}

static std::string formatArray(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

static RankedTensorType getTensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Checks `axis` against `rank` and returns it made non-negative.
static FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name,
                                        int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError()
           << name << " " << axis << " is out of range for a rank-" << rank
           << " tensor; must be in [" << -rank << ", " << rank << ")";
  return axis < 0 ? axis + rank : axis;
}

static LogicalResult expectResultShape(Operation *op, RankedTensorType result,
                                       ArrayRef<int64_t> expected) {
  if (result.getShape() != expected)
    return op->emitOpError()
           << "result shape " << formatShape(result.getShape())
           << " does not match the expected " << formatShape(expected);
  return success();
}

static LogicalResult expectSameElementType(Operation *op, StringRef what,
                                           Type actual, Type expected) {
  if (actual != expected)
    return op->emitOpError()
           << what << " element type " << actual
           << " does not match the input element type " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions: precision, sync and config against the target
//===----------------------------------------------------------------------===//

/// The MLIR spelling of a scalar kind, as users write it in
/// #crest.precision (XF32 is `tf32` there).
static StringRef getPrecisionSpelling(ScalarKind kind) {
  return kind == ScalarKind::XF32 ? "tf32" : getScalarKindName(kind);
}

static std::string describeMma(const MmaInstruction &mma) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << getPrecisionSpelling(mma.lhs) << " x " << getPrecisionSpelling(mma.rhs)
     << " -> " << getPrecisionSpelling(mma.acc);
  return s;
}

/// "f16 x f16 -> f32, bf16 x bf16 -> f32, ..." without repeats.
static std::string describeSupportedPrecisions(const ChipInfo &chip) {
  SmallVector<std::string> seen;
  for (const MmaInstruction &mma : chip.mmaInstructions) {
    std::string d = describeMma(mma);
    if (!llvm::is_contained(seen, d))
      seen.push_back(d);
  }
  return llvm::join(seen, ", ");
}

static std::string describePrecision(PrecisionAttr precision) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << precision.getLhs() << " x " << precision.getRhs() << " -> "
     << precision.getAcc();
  return s;
}

/// The element type an operand of `precisionType` must have (`tf32` reads
/// `f32` tensors).
static Type getOperandElementType(Type precisionType) {
  if (isa<FloatTF32Type>(precisionType))
    return Float32Type::get(precisionType.getContext());
  return precisionType;
}

/// Checks an explicit config against the chip and the contraction's
/// precision. `diagOp` is where errors are reported.
static LogicalResult verifyConfigOnChip(Operation *diagOp, ConfigAttr config,
                                        ContractionOpInterface contraction,
                                        TargetAttr target) {
  PrecisionAttr precision = contraction.getPrecision();
  const ChipInfo &chip = *target.getChipInfo();
  const MmaInstruction *mma = chip.lookupMma(config.getMma());
  ScalarKind lhs = *getScalarKind(precision.getLhs());
  ScalarKind rhs = *getScalarKind(precision.getRhs());
  ScalarKind acc = *getScalarKind(precision.getAcc());
  if (!mma) {
    InFlightDiagnostic diag = diagOp->emitOpError()
                              << "config names '" << config.getMma()
                              << "', which " << chip.name << " does not have";
    SmallVector<const MmaInstruction *> candidates =
        chip.findMma(lhs, rhs, acc);
    if (!candidates.empty()) {
      diag << "; its instructions for " << describePrecision(precision) << ": ";
      llvm::interleaveComma(candidates, diag, [&](const MmaInstruction *m) {
        diag << m->mnemonic;
      });
    }
    return diag;
  }
  if (mma->lhs != lhs || mma->rhs != rhs || mma->acc != acc)
    return diagOp->emitOpError()
           << "config instruction " << mma->mnemonic << " computes "
           << describeMma(*mma) << ", but the precision is "
           << describePrecision(precision);

  ArrayRef<int64_t> waveTile = config.getWaveTile();
  if (waveTile[0] % mma->m != 0 || waveTile[1] % mma->n != 0)
    return diagOp->emitOpError()
           << "config wave_tile " << formatArray(waveTile)
           << " is not a multiple of " << mma->mnemonic << "'s " << mma->m
           << "x" << mma->n << " output";
  if (config.getTileK() % mma->k != 0)
    return diagOp->emitOpError()
           << "config workgroup_tile K = " << config.getTileK()
           << " is not a multiple of " << mma->mnemonic << "'s K = " << mma->k;

  unsigned waveSize = target.getEffectiveWaveSize();
  int64_t workItems = config.getNumWaves() * waveSize;
  if (workItems > 1024)
    return diagOp->emitOpError()
           << "config needs " << config.getNumWaves() << " waves of "
           << waveSize << " lanes = " << workItems
           << " work-items; a workgroup holds at most 1024";

  if (int64_t groups = config.getGlobalSplitK(); groups > 1) {
    int64_t fullSteps = contraction.getGemmShape()[3] / config.getTileK();
    if (getStepsPerGroup(fullSteps, groups) == 0)
      return diagOp->emitOpError()
             << "config global_split_k = " << groups << " leaves a workgroup "
             << "without a K step: K = " << contraction.getGemmShape()[3]
             << " has " << fullSteps << " full steps of " << config.getTileK();
  }

  // The LDS the lowering allocates: padded A/B stages and split-K sums.
  // The skinny path's partial sums cover only the problem's rows.
  int64_t m = config.getRhsVector() > 1 ? contraction.getGemmShape()[1] : 0;
  GemmLdsLayout lds =
      config.getLdsLayout(getScalarKindBits(lhs), getScalarKindBits(rhs),
                          getScalarKindBits(acc), m);
  if (lds.getTotalBytes() > chip.ldsBytesPerWorkgroup) {
    InFlightDiagnostic diag = diagOp->emitOpError()
                              << "config needs " << lds.getTotalBytes()
                              << " bytes of LDS (";
    if (lds.getStagingBytes() > 0) {
      diag << config.getStages() << " stages of a " << config.getTileM() << "x"
           << config.getTileK() << " lhs and a " << config.getTileK() << "x"
           << config.getTileN() << " rhs tile, K rows padded by ";
      if (lds.lhs.padElements == lds.rhs.padElements)
        diag << lds.lhs.padElements << " elements";
      else
        diag << lds.lhs.padElements << " (lhs) and " << lds.rhs.padElements
             << " (rhs) elements";
      if (lds.splitKBytes > 0)
        diag << ", plus " << lds.splitKBytes << " bytes of";
    }
    if (lds.splitKBytes > 0)
      diag << (lds.getStagingBytes() > 0 ? " " : "")
           << "partial sums for split_k = " << config.getSplitK();
    return diag << "); " << chip.name << " has " << chip.ldsBytesPerWorkgroup
                << " per workgroup";
  }

  // Accumulators alone must fit the registers that may hold them.
  int64_t accRegs = getAccRegistersPerLane(waveTile[0], waveTile[1], waveSize,
                                           getScalarKindBits(acc));
  int64_t accBudget = chip.mmaAccInArchVgprs
                          ? chip.maxArchVgprs + chip.maxAccVgprs
                          : chip.maxAccVgprs;
  if (chip.unifiedVgprFile)
    accBudget = std::min<int64_t>(accBudget, chip.getVgprFilePerSimd(waveSize));
  if (accRegs > accBudget)
    return diagOp->emitOpError()
           << "config wave_tile " << formatArray(waveTile) << " needs "
           << accRegs << " accumulator registers per lane; " << chip.name
           << " has " << accBudget << " for accumulators";
  return success();
}

/// A config must realize the sync a contraction asked for.
static LogicalResult verifyConfigMatchesSync(Operation *diagOp,
                                             ConfigAttr config, SyncAttr sync) {
  if (!config || !sync)
    return success();
  if (sync.getScope() == config.getScope() &&
      sync.getStages() == config.getStages())
    return success();
  return diagOp->emitOpError()
         << "config (scope = " << stringifySyncScope(config.getScope())
         << ", stages = " << config.getStages()
         << ") contradicts sync (scope = "
         << stringifySyncScope(sync.getScope())
         << ", stages = " << sync.getStages() << ")";
}

/// Checks shared by every contraction: element types against the precision,
/// sync against config, and both against an enclosing target.
static LogicalResult verifyContraction(ContractionOpInterface op) {
  Operation *operation = op.getOperation();
  PrecisionAttr precision = op.getPrecision();
  Type lhsElt = getTensorType(op.getLhs()).getElementType();
  Type rhsElt = getTensorType(op.getRhs()).getElementType();
  Type outElt = getTensorType(operation->getResult(0)).getElementType();
  auto checkOperand = [&](StringRef name, Type actual,
                          Type precisionType) -> LogicalResult {
    Type expected = getOperandElementType(precisionType);
    if (actual == expected)
      return success();
    InFlightDiagnostic diag = op->emitOpError()
                              << name << " element type " << actual
                              << " does not match precision " << name << " = "
                              << precisionType;
    if (expected != precisionType)
      diag << ", which reads " << expected << " tensors";
    return diag;
  };
  if (failed(checkOperand("lhs", lhsElt, precision.getLhs())) ||
      failed(checkOperand("rhs", rhsElt, precision.getRhs())))
    return failure();
  if (outElt != precision.getOut())
    return op->emitOpError()
           << "result element type " << outElt
           << " does not match precision out = " << precision.getOut();

  ConfigAttr config = op.getConfigAttr();
  if (failed(verifyConfigMatchesSync(operation, config, op.getSyncAttr())))
    return failure();

  TargetAttr target = lookupTarget(operation);
  if (!target || !target.getChipInfo())
    return success();
  const ChipInfo &chip = *target.getChipInfo();
  ScalarKind lhs = *getScalarKind(precision.getLhs());
  ScalarKind rhs = *getScalarKind(precision.getRhs());
  ScalarKind acc = *getScalarKind(precision.getAcc());
  if (chip.findMma(lhs, rhs, acc).empty()) {
    InFlightDiagnostic diag = op->emitOpError()
                              << chip.name << " has no matrix instruction for "
                              << describePrecision(precision);
    if (isFp8Kind(lhs) || isFp8Kind(rhs)) {
      if (chip.fp8 == Fp8Flavour::None)
        diag << "; " << chip.name << " has no fp8 matrix instructions";
      else if (chip.fp8 == Fp8Flavour::FNUZ)
        diag << "; " << chip.name
             << " reads fp8 as FNUZ (f8E4M3FNUZ, f8E5M2FNUZ)";
      else
        diag << "; " << chip.name << " reads fp8 as OCP (f8E4M3FN, f8E5M2)";
    }
    diag << "; it supports " << describeSupportedPrecisions(chip);
    return diag;
  }
  if (config)
    return verifyConfigOnChip(operation, config, op, target);
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// (M, K) of the lhs and (K, N) of the rhs of a possibly transposed product
/// of the two trailing dimensions.
static void getMatmulDims(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                          bool transposeLhs, bool transposeRhs, int64_t &m,
                          int64_t &kLhs, int64_t &kRhs, int64_t &n) {
  size_t l = lhs.size(), r = rhs.size();
  m = transposeLhs ? lhs[l - 1] : lhs[l - 2];
  kLhs = transposeLhs ? lhs[l - 2] : lhs[l - 1];
  kRhs = transposeRhs ? rhs[r - 1] : rhs[r - 2];
  n = transposeRhs ? rhs[r - 2] : rhs[r - 1];
}

static LogicalResult verifyMatmulK(Operation *op, ArrayRef<int64_t> lhs,
                                   ArrayRef<int64_t> rhs, int64_t kLhs,
                                   int64_t kRhs) {
  if (kLhs != kRhs)
    return op->emitOpError()
           << "lhs " << formatShape(lhs) << " has K = " << kLhs << " but rhs "
           << formatShape(rhs) << " has K = " << kRhs;
  return success();
}

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = getTensorType(getLhs()), rhs = getTensorType(getRhs());
  RankedTensorType result = getTensorType(getResult());
  if (lhs.getRank() != 2 || rhs.getRank() != 2 || result.getRank() != 2)
    return emitOpError() << "operands and result must be rank 2, got "
                         << formatShape(lhs.getShape()) << ", "
                         << formatShape(rhs.getShape()) << " -> "
                         << formatShape(result.getShape());
  int64_t m, kLhs, kRhs, n;
  getMatmulDims(lhs.getShape(), rhs.getShape(), getTransposeLhs(),
                getTransposeRhs(), m, kLhs, kRhs, n);
  if (failed(
          verifyMatmulK(*this, lhs.getShape(), rhs.getShape(), kLhs, kRhs)) ||
      failed(expectResultShape(*this, result, {m, n})))
    return failure();
  return verifyContraction(*this);
}

SmallVector<int64_t, 4> MatmulOp::getGemmShape() {
  int64_t m, kLhs, kRhs, n;
  getMatmulDims(getTensorType(getLhs()).getShape(),
                getTensorType(getRhs()).getShape(), getTransposeLhs(),
                getTransposeRhs(), m, kLhs, kRhs, n);
  return {1, m, n, kLhs};
}

//===----------------------------------------------------------------------===//
// BatchMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult BatchMatmulOp::verify() {
  RankedTensorType lhs = getTensorType(getLhs()), rhs = getTensorType(getRhs());
  RankedTensorType result = getTensorType(getResult());
  if (lhs.getRank() != 3 || rhs.getRank() != 3 || result.getRank() != 3)
    return emitOpError() << "operands and result must be rank 3, got "
                         << formatShape(lhs.getShape()) << ", "
                         << formatShape(rhs.getShape()) << " -> "
                         << formatShape(result.getShape());
  int64_t bLhs = lhs.getDimSize(0), bRhs = rhs.getDimSize(0);
  if (bLhs != bRhs && bLhs != 1 && bRhs != 1)
    return emitOpError() << "batch sizes " << bLhs << " and " << bRhs
                         << " differ and neither is 1";
  int64_t m, kLhs, kRhs, n;
  getMatmulDims(lhs.getShape(), rhs.getShape(), getTransposeLhs(),
                getTransposeRhs(), m, kLhs, kRhs, n);
  if (failed(
          verifyMatmulK(*this, lhs.getShape(), rhs.getShape(), kLhs, kRhs)) ||
      failed(expectResultShape(*this, result, {std::max(bLhs, bRhs), m, n})))
    return failure();
  return verifyContraction(*this);
}

SmallVector<int64_t, 4> BatchMatmulOp::getGemmShape() {
  ArrayRef<int64_t> lhs = getTensorType(getLhs()).getShape();
  ArrayRef<int64_t> rhs = getTensorType(getRhs()).getShape();
  int64_t m, kLhs, kRhs, n;
  getMatmulDims(lhs, rhs, getTransposeLhs(), getTransposeRhs(), m, kLhs, kRhs,
                n);
  return {std::max(lhs[0], rhs[0]), m, n, kLhs};
}

//===----------------------------------------------------------------------===//
// Conv2DOp and pooling: window arithmetic
//===----------------------------------------------------------------------===//

/// Checks strides (2, > 0), pads (4, >= 0) and, when given, dilations.
static LogicalResult verifyWindowAttrs(Operation *op, ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations) {
  if (strides.size() != 2 ||
      llvm::any_of(strides, [](int64_t s) { return s <= 0; }))
    return op->emitOpError() << "strides " << formatArray(strides)
                             << " must be two positive values [h, w]";
  if (dilations.size() != 2 ||
      llvm::any_of(dilations, [](int64_t d) { return d <= 0; }))
    return op->emitOpError() << "dilations " << formatArray(dilations)
                             << " must be two positive values [h, w]";
  if (pads.size() != 4 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError()
           << "pads " << formatArray(pads)
           << " must be four non-negative values [top, left, bottom, right]";
  return success();
}

/// Output extent of a window sliding over `in` (0 or less when the window
/// does not fit).
static int64_t getWindowOutput(int64_t in, int64_t padBefore, int64_t padAfter,
                               int64_t window, int64_t stride, int64_t dilation,
                               bool ceilMode) {
  int64_t span = in + padBefore + padAfter - dilation * (window - 1) - 1;
  if (span < 0)
    return 0;
  if (!ceilMode)
    return span / stride + 1;
  int64_t out = (span + stride - 1) / stride + 1;
  // As ONNX and PyTorch: a last window that would start inside the trailing
  // padding (past the input) is dropped.
  if ((out - 1) * stride >= in + padBefore)
    --out;
  return out;
}

LogicalResult Conv2DOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType filter = getTensorType(getFilter());
  RankedTensorType result = getTensorType(getResult());
  if (input.getRank() != 4 || filter.getRank() != 4 || result.getRank() != 4)
    return emitOpError()
           << "input, filter and result must be rank 4 (NCHW, FCHW, NFHW), got "
           << formatShape(input.getShape()) << ", "
           << formatShape(filter.getShape()) << " -> "
           << formatShape(result.getShape());
  if (failed(verifyWindowAttrs(*this, getStrides(), getPads(), getDilations())))
    return failure();
  int64_t groups = getGroups();
  int64_t channels = input.getDimSize(1), filters = filter.getDimSize(0);
  if (groups < 1)
    return emitOpError() << "groups = " << groups << " must be at least 1";
  if (channels % groups != 0 || filters % groups != 0)
    return emitOpError() << "groups = " << groups
                         << " must divide the input channels (" << channels
                         << ") and the filters (" << filters << ")";
  if (filter.getDimSize(1) * groups != channels)
    return emitOpError() << "filter " << formatShape(filter.getShape())
                         << " reads " << filter.getDimSize(1)
                         << " channels per group, but the input has "
                         << channels << " channels in " << groups
                         << " group(s), i.e. " << channels / groups;
  ArrayRef<int64_t> pads = getPads(), strides = getStrides(),
                    dilations = getDilations();
  int64_t oh = getWindowOutput(input.getDimSize(2), pads[0], pads[2],
                               filter.getDimSize(2), strides[0], dilations[0],
                               /*ceilMode=*/false);
  int64_t ow = getWindowOutput(input.getDimSize(3), pads[1], pads[3],
                               filter.getDimSize(3), strides[1], dilations[1],
                               /*ceilMode=*/false);
  if (oh < 1 || ow < 1)
    return emitOpError() << "the " << filter.getDimSize(2) << "x"
                         << filter.getDimSize(3) << " filter spans "
                         << dilations[0] * (filter.getDimSize(2) - 1) + 1 << "x"
                         << dilations[1] * (filter.getDimSize(3) - 1) + 1
                         << " with dilations " << formatArray(dilations)
                         << " and does not fit the padded "
                         << input.getDimSize(2) + pads[0] + pads[2] << "x"
                         << input.getDimSize(3) + pads[1] + pads[3] << " input";
  if (failed(expectResultShape(*this, result,
                               {input.getDimSize(0), filters, oh, ow})))
    return failure();
  return verifyContraction(*this);
}

Value Conv2DOp::getLhs() { return getInput(); }
Value Conv2DOp::getRhs() { return getFilter(); }

SmallVector<int64_t, 4> Conv2DOp::getGemmShape() {
  ArrayRef<int64_t> in = getTensorType(getInput()).getShape();
  ArrayRef<int64_t> f = getTensorType(getFilter()).getShape();
  ArrayRef<int64_t> out = getTensorType(getResult()).getShape();
  int64_t groups = getGroups();
  // Implicit GEMM per group: rows are output pixels, columns the group's
  // filters, and K runs over the group's channels and the filter window.
  return {groups, out[0] * out[2] * out[3], f[0] / groups,
          in[1] / groups * f[2] * f[3]};
}

static LogicalResult verifyPool2D(Operation *op, Value inputValue,
                                  Value resultValue, ArrayRef<int64_t> kernel,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> pads, bool ceilMode) {
  RankedTensorType input = getTensorType(inputValue);
  RankedTensorType result = getTensorType(resultValue);
  if (input.getRank() != 4)
    return op->emitOpError() << "input must be rank 4 (NCHW), got "
                             << formatShape(input.getShape());
  if (kernel.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k <= 0; }))
    return op->emitOpError() << "kernel " << formatArray(kernel)
                             << " must be two positive values [h, w]";
  int64_t unitDilations[] = {1, 1};
  if (failed(verifyWindowAttrs(op, strides, pads, unitDilations)))
    return failure();
  if (pads[0] >= kernel[0] || pads[2] >= kernel[0] || pads[1] >= kernel[1] ||
      pads[3] >= kernel[1])
    return op->emitOpError()
           << "pads " << formatArray(pads)
           << " must be smaller than the kernel " << formatArray(kernel);
  if (failed(expectSameElementType(op, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  int64_t oh = getWindowOutput(input.getDimSize(2), pads[0], pads[2], kernel[0],
                               strides[0], 1, ceilMode);
  int64_t ow = getWindowOutput(input.getDimSize(3), pads[1], pads[3], kernel[1],
                               strides[1], 1, ceilMode);
  if (oh < 1 || ow < 1)
    return op->emitOpError()
           << "the " << kernel[0] << "x" << kernel[1]
           << " kernel does not fit the padded " << input.getDimSize(2) << "x"
           << input.getDimSize(3) << " input";
  return expectResultShape(op, result,
                           {input.getDimSize(0), input.getDimSize(1), oh, ow});
}

LogicalResult MaxPool2DOp::verify() {
  return verifyPool2D(*this, getInput(), getResult(), getKernel(), getStrides(),
                      getPads(), getCeilMode());
}

LogicalResult AvgPool2DOp::verify() {
  return verifyPool2D(*this, getInput(), getResult(), getKernel(), getStrides(),
                      getPads(), getCeilMode());
}

LogicalResult GlobalAvgPool2DOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType result = getTensorType(getResult());
  if (input.getRank() != 4)
    return emitOpError() << "input must be rank 4 (NCHW), got "
                         << formatShape(input.getShape());
  if (failed(expectSameElementType(*this, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  return expectResultShape(*this, result,
                           {input.getDimSize(0), input.getDimSize(1), 1, 1});
}

//===----------------------------------------------------------------------===//
// Elementwise operations
//===----------------------------------------------------------------------===//

/// Verifies NumPy broadcasting of all operands into the result, and that
/// the operands from `firstValue` on share one element type: the result's,
/// or `resultElement` when given (i1 for the comparisons).
static LogicalResult verifyBroadcast(Operation *op, unsigned firstValue = 0,
                                     Type resultElement = {}) {
  RankedTensorType result = getTensorType(op->getResult(0));
  RankedTensorType value = getTensorType(op->getOperand(firstValue));
  for (Value other : op->getOperands().drop_front(firstValue + 1))
    if (getTensorType(other).getElementType() != value.getElementType())
      return op->emitOpError()
             << "operand element types " << value.getElementType() << " and "
             << getTensorType(other).getElementType() << " differ";
  if (failed(expectSameElementType(
          op, "result", result.getElementType(),
          resultElement ? resultElement : value.getElementType())))
    return failure();
  SmallVector<int64_t> broadcast;
  for (Value operand : op->getOperands()) {
    ArrayRef<int64_t> b = getTensorType(operand).getShape();
    SmallVector<int64_t> a = broadcast;
    size_t rank = std::max(a.size(), b.size());
    broadcast.assign(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
      int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
      if (da != db && da != 1 && db != 1)
        return op->emitOpError()
               << "operand shapes " << formatShape(a) << " and "
               << formatShape(b)
               << " are not broadcast-compatible (dimension " << i
               << " of the broadcast: " << da << " vs " << db << ")";
      broadcast[i] = da == 1 ? db : da;
    }
  }
  if (result.getShape() != ArrayRef<int64_t>(broadcast))
    return op->emitOpError()
           << "result shape " << formatShape(result.getShape())
           << " does not match the broadcast shape " << formatShape(broadcast);
  return success();
}

LogicalResult AddOp::verify() { return verifyBroadcast(*this); }
LogicalResult SubOp::verify() { return verifyBroadcast(*this); }
LogicalResult MulOp::verify() { return verifyBroadcast(*this); }
LogicalResult DivOp::verify() { return verifyBroadcast(*this); }
LogicalResult MaxOp::verify() { return verifyBroadcast(*this); }
LogicalResult MinOp::verify() { return verifyBroadcast(*this); }
LogicalResult PowOp::verify() { return verifyBroadcast(*this); }

static LogicalResult verifyCompare(Operation *op) {
  return verifyBroadcast(op, 0, IntegerType::get(op->getContext(), 1));
}
LogicalResult EqualOp::verify() { return verifyCompare(*this); }
LogicalResult LessOp::verify() { return verifyCompare(*this); }
LogicalResult LessEqualOp::verify() { return verifyCompare(*this); }
LogicalResult GreaterOp::verify() { return verifyCompare(*this); }
LogicalResult GreaterEqualOp::verify() { return verifyCompare(*this); }
LogicalResult AndOp::verify() { return verifyBroadcast(*this); }
LogicalResult OrOp::verify() { return verifyBroadcast(*this); }
LogicalResult XorOp::verify() { return verifyBroadcast(*this); }
/// The condition broadcasts with both values; the values share the
/// result's element type.
LogicalResult SelectOp::verify() { return verifyBroadcast(*this, 1); }

LogicalResult CastOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType result = getTensorType(getResult());
  if (input.getShape() != result.getShape())
    return emitOpError() << "input shape " << formatShape(input.getShape())
                         << " does not match result shape "
                         << formatShape(result.getShape());
  return success();
}

LogicalResult LeakyReluOp::verify() {
  float alpha = getAlpha().convertToFloat();
  if (!std::isfinite(alpha))
    return emitOpError() << "alpha = " << alpha << " must be finite";
  return success();
}

LogicalResult HardSigmoidOp::verify() {
  float alpha = getAlpha().convertToFloat();
  float beta = getBeta().convertToFloat();
  if (!std::isfinite(alpha) || alpha == 0.0f)
    return emitOpError() << "alpha = " << alpha
                         << " must be finite and non-zero";
  if (!std::isfinite(beta))
    return emitOpError() << "beta = " << beta << " must be finite";
  return success();
}

LogicalResult ClipOp::verify() {
  std::optional<APFloat> min = getMin(), max = getMax();
  if (!min && !max)
    return emitOpError() << "needs at least one of 'min' and 'max'";
  if ((min && min->isNaN()) || (max && max->isNaN()))
    return emitOpError() << "bounds must not be NaN";
  if (min && max && min->convertToFloat() > max->convertToFloat())
    return emitOpError() << "min = " << min->convertToFloat()
                         << " is greater than max = " << max->convertToFloat();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalizations and reductions
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToDouble();
  return 1.0 / std::sqrt(double(getTensorType(getQuery()).getDimSize(3)));
}

LogicalResult AttentionOp::verify() {
  RankedTensorType q = getTensorType(getQuery()), k = getTensorType(getKey()),
                   v = getTensorType(getValue()),
                   out = getTensorType(getResult());
  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>("query", q),
                            {"key", k},
                            {"value", v},
                            {"result", out}})
    if (type.getRank() != 4)
      return emitOpError() << name << " must be [batch, heads, length, "
                           << "head dim], got " << formatShape(type.getShape());
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  if (ks[0] != qs[0] || vs[0] != qs[0])
    return emitOpError() << "query, key and value must have one batch size, "
                         << "got " << qs[0] << ", " << ks[0] << " and "
                         << vs[0];
  if (vs[1] != ks[1] || vs[2] != ks[2])
    return emitOpError() << "value " << formatShape(vs)
                         << " must have the key's heads and length "
                         << formatShape(ks);
  if (ks[1] == 0 || qs[1] % ks[1] != 0)
    return emitOpError() << qs[1] << " query heads are not a multiple of "
                         << ks[1] << " key/value heads";
  if (ks[3] != qs[3])
    return emitOpError() << "key head dimension " << ks[3]
                         << " differs from the query's " << qs[3];
  SmallVector<int64_t> want = {qs[0], qs[1], qs[2], vs[3]};
  if (out.getShape() != ArrayRef<int64_t>(want))
    return emitOpError() << "result shape " << formatShape(out.getShape())
                         << " must be [batch, query heads, query length, "
                         << "value head dim] = " << formatShape(want);
  if (Value lse = getLse())
    if (getTensorType(lse).getShape() != ArrayRef<int64_t>(want).drop_back())
      return emitOpError()
             << "lse shape " << formatShape(getTensorType(lse).getShape())
             << " must be [batch, query heads, query length] = "
             << formatShape(ArrayRef<int64_t>(want).drop_back());
  if (Value length = getKvLength())
    if (getTensorType(length).getShape() != ArrayRef<int64_t>{qs[0]})
      return emitOpError()
             << "kv_length shape "
             << formatShape(getTensorType(length).getShape())
             << " must be [batch] = [" << qs[0] << "]";
  if (Value mask = getMask()) {
    ArrayRef<int64_t> ms = getTensorType(mask).getShape();
    SmallVector<int64_t> scores = {qs[0], qs[1], qs[2], ks[2]};
    bool broadcasts = ms.size() <= 4;
    for (size_t i = 0; broadcasts && i < ms.size(); ++i) {
      int64_t dim = ms[ms.size() - 1 - i], to = scores[3 - i];
      broadcasts = dim == 1 || dim == to;
    }
    if (!broadcasts)
      return emitOpError() << "mask " << formatShape(ms)
                           << " does not broadcast to the scores "
                           << formatShape(scores);
  }
  if (std::optional<uint64_t> window = getWindow()) {
    if (int64_t(*window) <= 0)
      return emitOpError() << "window = " << int64_t(*window)
                           << " must be positive";
    if (getCausal() == CausalMask::None)
      return emitOpError() << "a sliding window needs a causal mask "
                              "(causal = top_left or bottom_right)";
  }
  if (std::optional<APFloat> scale = getScale())
    if (!scale->isFiniteNonZero() || scale->isNegative())
      return emitOpError() << "scale = " << scale->convertToDouble()
                           << " must be finite and positive";

  // The two products' precisions.
  Type f32 = Float32Type::get(getContext());
  PrecisionAttr qk = getQk(), pv = getPv();
  auto checkProbabilities = [&]() -> LogicalResult {
    Type p = pv.getLhs();
    std::optional<ScalarKind> kind = getScalarKind(p);
    if (kind && (isa<Float32Type, Float16Type, BFloat16Type>(p) ||
                 isFp8Kind(*kind)))
      return success();
    return emitOpError() << "pv lhs = " << p
                         << ": the probabilities are rounded to f32, f16, "
                            "bf16 or an fp8 type";
  };
  auto expect = [&](StringRef product, StringRef field, Type actual,
                    Type wanted, StringRef what) -> LogicalResult {
    if (actual == wanted)
      return success();
    return emitOpError() << product << " " << field << " = " << actual
                         << " must be " << wanted << " (" << what << ")";
  };
  if (failed(expect("qk", "lhs", qk.getLhs(), q.getElementType(),
                    "the query's element type")) ||
      failed(expect("qk", "rhs", qk.getRhs(), k.getElementType(),
                    "the key's element type")) ||
      failed(expect("qk", "acc", qk.getAcc(), f32, "scores accumulate in f32")) ||
      failed(expect("qk", "out", qk.getOut(), f32,
                    "the softmax reads f32 scores")) ||
      failed(checkProbabilities()) ||
      failed(expect("pv", "rhs", pv.getRhs(), v.getElementType(),
                    "the value's element type")) ||
      failed(expect("pv", "acc", pv.getAcc(), f32,
                    "the output accumulates in f32")) ||
      failed(expect("pv", "out", pv.getOut(), out.getElementType(),
                    "the result's element type")))
    return failure();

  TargetAttr target = lookupTarget(*this);
  if (!target || !target.getChipInfo())
    return success();
  const ChipInfo &chip = *target.getChipInfo();
  for (auto [name, precision] : {std::pair<StringRef, PrecisionAttr>("qk", qk),
                                 {"pv", pv}}) {
    std::optional<ScalarKind> lhs = getScalarKind(precision.getLhs());
    std::optional<ScalarKind> rhs = getScalarKind(precision.getRhs());
    if (!lhs || !rhs || chip.findMma(*lhs, *rhs, ScalarKind::F32).empty())
      return emitOpError() << name << ": " << chip.name
                           << " has no matrix instruction for "
                           << describePrecision(precision) << "; it supports "
                           << describeSupportedPrecisions(chip);
  }
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return normalizeAxis(*this, "axis", getAxis(),
                       getTensorType(getInput()).getRank());
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", getAxis(), input.getRank());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(*axis);
  auto checkParam = [&](Value param, StringRef name) -> LogicalResult {
    RankedTensorType type = getTensorType(param);
    if (type.getShape() != normalized)
      return emitOpError() << name << " shape " << formatShape(type.getShape())
                           << " does not match the normalized dimensions "
                           << formatShape(normalized);
    return expectSameElementType(*this, name, type.getElementType(),
                                 input.getElementType());
  };
  if (failed(checkParam(getScale(), "scale")))
    return failure();
  if (getBias() && failed(checkParam(getBias(), "bias")))
    return failure();
  if (getResult().getType() != input)
    return emitOpError() << "result type " << getResult().getType()
                         << " does not match the input type " << input;
  float epsilon = getEpsilon().convertToFloat();
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon))
    return emitOpError() << "epsilon = " << epsilon
                         << " must be positive and finite";
  return success();
}

/// The reductions (reduce_mean, reduce_sum, ...) share one verifier.
template <typename OpTy> static LogicalResult verifyReduction(OpTy op) {
  RankedTensorType input = getTensorType(op.getInput());
  RankedTensorType result = getTensorType(op.getResult());
  int64_t rank = input.getRank();
  if (op.getDims().empty())
    return op.emitOpError() << "dims must name at least one dimension";
  llvm::SmallBitVector reduced(rank);
  for (int64_t dim : op.getDims()) {
    FailureOr<int64_t> d = normalizeAxis(op, "dimension", dim, rank);
    if (failed(d))
      return failure();
    if (reduced.test(*d))
      return op.emitOpError() << "dimension " << *d << " is reduced twice";
    reduced.set(*d);
  }
  if (failed(expectSameElementType(op, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      expected.push_back(input.getDimSize(i));
    else if (op.getKeepDims())
      expected.push_back(1);
  }
  return expectResultShape(op, result, expected);
}

LogicalResult ReduceMeanOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceSumOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceProdOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReduction(*this); }

//===----------------------------------------------------------------------===//
// Row ops
//===----------------------------------------------------------------------===//

bool crest::isRowOp(Operation *op) {
  return isa<LayerNormOp, SoftmaxOp, ReduceMeanOp, ReduceSumOp, ReduceProdOp,
             ReduceMaxOp, ReduceMinOp, GlobalAvgPool2DOp>(op);
}

int64_t crest::getRowLength(Operation *op) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  int64_t rank = shape.size();
  auto normalize = [&](int64_t d) { return d < 0 ? d + rank : d; };
  SmallVector<int64_t> dims;
  if (auto norm = dyn_cast<LayerNormOp>(op)) {
    for (int64_t d = normalize(int64_t(norm.getAxis())); d < rank; ++d)
      dims.push_back(d);
  } else if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
    dims.push_back(normalize(int64_t(softmax.getAxis())));
  } else if (isa<GlobalAvgPool2DOp>(op)) {
    dims = {2, 3};
  } else if (auto reduce = op->getAttrOfType<DenseI64ArrayAttr>("dims")) {
    for (int64_t d : reduce.asArrayRef())
      dims.push_back(normalize(d));
  }
  int64_t length = 1;
  for (int64_t d : dims)
    length *= shape[d];
  return length;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ContractionOpInterface KernelOp::getContraction() {
  for (Operation &op : getBody().front())
    if (auto contraction = dyn_cast<ContractionOpInterface>(op))
      return contraction;
  return {};
}

SmallVector<Operation *> KernelOp::getPrologue(unsigned operand) {
  ContractionOpInterface contraction = getContraction();
  SmallVector<Operation *> ops;
  if (!contraction || operand > 1)
    return ops;
  // The ops before the contraction the operand depends on, in block order.
  llvm::SmallPtrSet<Operation *, 8> slice;
  SmallVector<Value> worklist = {contraction->getOperand(operand)};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || matchPattern(def, m_Constant()) || !slice.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : getBody().front())
    if (slice.contains(&op))
      ops.push_back(&op);
  return ops;
}

BlockArgument KernelOp::getPrologueSource(unsigned operand) {
  SmallVector<Operation *> ops = getPrologue(operand);
  if (ops.empty())
    return {};
  ArrayRef<int64_t> shape =
      getTensorType(getContraction()->getOperand(operand)).getShape();
  // A bool tensor (a select's condition) only when there is no other.
  BlockArgument boolSource;
  for (Operation *op : ops)
    for (Value v : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && getTensorType(arg).getShape() == shape) {
        if (!getTensorType(arg).getElementType().isInteger(1))
          return arg;
        if (!boolSource)
          boolSource = arg;
      }
  return boolSource;
}

AttentionOp KernelOp::getAttention() {
  for (Operation &op : getBody().front())
    if (auto attention = dyn_cast<AttentionOp>(op))
      return attention;
  return {};
}

SmallVector<Operation *> KernelOp::getResultView() {
  SmallVector<Operation *> chain;
  AttentionOp attention = getAttention();
  if (!attention)
    return chain;
  Value value = attention.getResult();
  while (value.hasOneUse()) {
    Operation *user = *value.user_begin();
    if (!isa<ReshapeOp, TransposeOp>(user))
      break;
    chain.push_back(user);
    value = user->getResult(0);
  }
  return chain;
}

SmallVector<Operation *> KernelOp::getView(Value operand) {
  SmallVector<Operation *> chain;
  while (Operation *def = operand.getDefiningOp()) {
    if (!isa<ReshapeOp, SliceOp, TransposeOp>(def))
      break;
    chain.push_back(def);
    operand = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::optional<std::string>
crest::checkContiguousView(ArrayRef<Operation *> chain) {
  if (chain.empty())
    return std::nullopt;
  // From the operand back to the source: the operand's rows (its innermost
  // dimension) must stay whole rows' runs of the source's innermost one.
  int64_t run = getTensorType(chain.back()->getResult(0)).getShape().back();
  for (Operation *op : llvm::reverse(chain)) {
    ArrayRef<int64_t> in = getTensorType(op->getOperand(0)).getShape();
    if (auto t = dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> perm = t.getPermutation();
      if (perm.back() != int64_t(perm.size()) - 1)
        return std::string("'crest.transpose' moves the innermost dimension");
    } else if (auto slice = dyn_cast<SliceOp>(op)) {
      if (auto strides = slice.getStrides(); strides && strides->back() != 1)
        return std::string("'crest.slice' strides the innermost dimension");
    } else if (isa<ReshapeOp>(op)) {
      // A run aligned to its length stays in one source row when the
      // length divides the row.
      if (in.back() % run != 0)
        return "'crest.reshape' to " +
               formatShape(getTensorType(op->getResult(0)).getShape()) +
               " splits a row of " + std::to_string(run) +
               " across the input's rows of " + std::to_string(in.back());
    }
  }
  return std::nullopt;
}

/// Checks an attention kernel: besides the attention only reshapes, slices
/// and transposes, each used once, that compute its operands from kernel
/// inputs with their rows contiguous.
static LogicalResult verifyAttentionKernel(KernelOp kernel,
                                           AttentionOp attention) {
  Block &body = kernel.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (&op == attention.getOperation() || matchPattern(&op, m_Constant()))
      continue;
    if (isa<ContractionOpInterface>(op))
      return op.emitOpError() << "cannot share a crest.kernel with a "
                                 "'crest.attention'";
    if (!isa<ReshapeOp, SliceOp, TransposeOp>(op))
      return op.emitOpError()
             << "cannot be part of an attention's kernel; only reshapes, "
                "slices and transposes of its inputs read through";
    if (!op.getResult(0).hasOneUse())
      return op.emitOpError() << "has several uses in an attention's "
                                 "kernel; each view computes one operand";
    if (!op.isBeforeInBlock(attention) &&
        (isa<SliceOp>(op) ||
         !llvm::is_contained(kernel.getResultView(), &op)))
      return op.emitOpError()
             << "comes after the 'crest.attention' but does not reshape or "
                "transpose its result; only those follow it (the kernel "
                "stores through them)";
  }
  for (Value operand : {attention.getKvLength(), attention.getMask()})
    if (operand && !kernel.getView(operand).empty())
      return kernel.getView(operand).front()->emitOpError()
             << "computes the attention's "
             << (operand == attention.getMask() ? "mask" : "KV length")
             << "; an attention's kernel reads only Q, K and V through "
                "views";
  for (Value operand : attention->getOperands()) {
    SmallVector<Operation *> chain = kernel.getView(operand);
    Value source = chain.empty() ? operand : chain.front()->getOperand(0);
    if (!isa<BlockArgument>(source))
      return attention.emitOpError()
             << "operand does not come from a kernel input through "
                "reshapes, slices and transposes";
    if (std::optional<std::string> why = checkContiguousView(chain))
      return chain.front()->emitOpError()
             << "cannot be read through by the attention: " << *why
             << "; its rows must stay contiguous in the kernel input";
  }
  return success();
}

/// Checks the prologues of `contraction` (the ops of `kernel` before it):
/// each computes one operand from a kernel input of the operand's shape,
/// with elementwise ops of that shape (their other inputs broadcast to it,
/// as elementwise ops verify), and is used by nothing else.
static LogicalResult verifyPrologues(KernelOp kernel,
                                     ContractionOpInterface contraction) {
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> prologues[2] = {kernel.getPrologue(0),
                                           kernel.getPrologue(1)};
  llvm::SmallPtrSet<Operation *, 8> members;
  for (unsigned operand : {0u, 1u})
    for (Operation *op : prologues[operand])
      if (!members.insert(op).second)
        return op->emitOpError()
               << "computes both operands of the contraction; a prologue "
                  "op belongs to one operand";
  for (Operation &op : body.without_terminator()) {
    if (&op == contraction.getOperation())
      break;
    if (!matchPattern(&op, m_Constant()) && !members.contains(&op))
      return op.emitOpError()
             << "comes before the contraction but does not compute its "
                "lhs or rhs; a crest.kernel's other ops follow it";
  }
  for (unsigned operand : {0u, 1u}) {
    ArrayRef<Operation *> ops = prologues[operand];
    if (ops.empty())
      continue;
    Value value = contraction->getOperand(operand);
    ArrayRef<int64_t> shape = getTensorType(value).getShape();
    const char *name = operand == 0 ? "lhs" : "rhs";
    for (Operation *op : ops) {
      if (!op->hasTrait<crest::OpTrait::Elementwise>() ||
          op->getNumResults() != 1)
        return op->emitOpError()
               << "cannot be part of the contraction's " << name
               << " prologue; only elementwise operations are applied as "
                  "the operand is loaded";
      if (getTensorType(op->getResult(0)).getShape() != shape)
        return op->emitOpError()
               << "result shape "
               << formatShape(getTensorType(op->getResult(0)).getShape())
               << " differs from the contraction's " << name << " "
               << formatShape(shape)
               << "; a prologue works on the operand's elements";
      for (Operation *user : op->getResult(0).getUsers())
        if (user != contraction.getOperation() && !members.contains(user))
          return op->emitOpError()
                 << "is in the contraction's " << name
                 << " prologue but its result is also used after the "
                    "contraction; a prologue value is only loaded into the "
                    "operand";
    }
    if (!kernel.getPrologueSource(operand))
      return ops.front()->emitOpError()
             << "starts the contraction's " << name
             << " prologue, which reads no kernel input of the operand's "
                "shape "
             << formatShape(shape)
             << "; the prologue is applied to that input's elements";
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the kernel has "
                         << getInputs().size() << " inputs";
  for (auto [i, arg, input] : llvm::enumerate(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has type " << input.getType();

  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with crest.yield";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "body yields " << yield.getValues().size()
                         << " values but the kernel has " << getNumResults()
                         << " results";
  for (auto [i, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return emitOpError() << "yielded value #" << i << " has type "
                           << value.getType() << " but result #" << i
                           << " has type " << result.getType();

  ContractionOpInterface contraction;
  for (Operation &op : body.without_terminator()) {
    bool isCrest = isa_and_nonnull<CrestDialect>(op.getDialect());
    if (isa<KernelOp>(op) || (!isCrest && !matchPattern(&op, m_Constant())))
      return op.emitOpError()
             << "cannot be part of a crest.kernel; a kernel holds crest "
                "operations and constants";
    if (auto c = dyn_cast<ContractionOpInterface>(op)) {
      if (contraction)
        return op.emitOpError()
               << "is a second contraction in one crest.kernel; a kernel "
                  "holds at most one";
      contraction = c;
    }
  }

  if (AttentionOp attention = getAttention()) {
    if (getConfigAttr())
      return emitOpError() << "has a 'config' but no contraction; a config "
                              "selects the matrix instructions of a "
                              "contraction";
    return verifyAttentionKernel(*this, attention);
  }
  if (!contraction) {
    if (getConfigAttr())
      return emitOpError()
             << "has a 'config' but no contraction; a config selects the "
                "matrix instructions of a contraction";
    return success();
  }

  // The ops before the contraction are its operands' prologues, the ops
  // after it its epilogue.
  if (failed(verifyPrologues(*this, contraction)))
    return failure();
  ArrayRef<int64_t> tile = getTensorType(contraction->getResult(0)).getShape();
  for (Operation &op :
       llvm::make_range(std::next(contraction->getIterator()),
                        body.without_terminator().end())) {
    if (matchPattern(&op, m_Constant()))
      continue;
    if (!op.hasTrait<OpTrait::Elementwise>())
      return op.emitOpError()
             << "cannot be fused with a contraction; only elementwise "
                "operations form a contraction's epilogue";
    ArrayRef<int64_t> shape = getTensorType(op.getResult(0)).getShape();
    if (shape != tile)
      return op.emitOpError()
             << "result shape " << formatShape(shape)
             << " differs from the contraction's " << formatShape(tile)
             << "; an epilogue works on the contraction's output tile";
  }

  ConfigAttr config = getConfigAttr();
  if (!config)
    return success();
  if (ConfigAttr own = contraction.getConfigAttr(); own && own != config)
    return emitOpError() << "config " << config
                         << " differs from its contraction's config " << own;
  if (failed(verifyConfigMatchesSync(*this, config, contraction.getSyncAttr())))
    return failure();
  TargetAttr target = lookupTarget(*this);
  if (!target || !target.getChipInfo())
    return success();
  return verifyConfigOnChip(*this, config, contraction, target);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType result = getTensorType(getResult());
  if (failed(expectSameElementType(*this, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  if (input.getNumElements() != result.getNumElements())
    return emitOpError() << "cannot reshape " << formatShape(input.getShape())
                         << " (" << input.getNumElements() << " elements) to "
                         << formatShape(result.getShape()) << " ("
                         << result.getNumElements() << " elements)";
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType result = getTensorType(getResult());
  ArrayRef<int64_t> permutation = getPermutation();
  if (int64_t(permutation.size()) != input.getRank())
    return emitOpError() << "permutation " << formatArray(permutation)
                         << " has " << permutation.size()
                         << " entries for a rank-" << input.getRank()
                         << " input";
  llvm::SmallBitVector seen(permutation.size());
  SmallVector<int64_t> expected;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= input.getRank() || seen.test(dim))
      return emitOpError() << "permutation " << formatArray(permutation)
                           << " is not a permutation of 0.."
                           << input.getRank() - 1;
    seen.set(dim);
    expected.push_back(input.getDimSize(dim));
  }
  if (failed(expectSameElementType(*this, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  return expectResultShape(*this, result, expected);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  RankedTensorType result = getTensorType(getResult());
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", getAxis(), result.getRank());
  if (failed(axis))
    return failure();
  int64_t total = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    RankedTensorType type = getTensorType(value);
    if (failed(expectSameElementType(*this, "input #" + std::to_string(i),
                                     type.getElementType(),
                                     result.getElementType())))
      return failure();
    if (type.getRank() != result.getRank())
      return emitOpError() << "input #" << i << " has rank " << type.getRank()
                           << ", the result " << result.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != *axis && type.getDimSize(d) != result.getDimSize(d))
        return emitOpError()
               << "input #" << i << " shape " << formatShape(type.getShape())
               << " differs from the result "
               << formatShape(result.getShape()) << " in dimension " << d
               << ", which is not the concatenation axis " << *axis;
    total += type.getDimSize(*axis);
  }
  if (total != result.getDimSize(*axis))
    return emitOpError() << "the inputs' sizes along axis " << *axis
                         << " add up to " << total << ", the result has "
                         << result.getDimSize(*axis);
  return success();
}

LogicalResult SliceOp::verify() {
  RankedTensorType input = getTensorType(getInput());
  RankedTensorType result = getTensorType(getResult());
  if (failed(expectSameElementType(*this, "result", result.getElementType(),
                                   input.getElementType())))
    return failure();
  if (result.getRank() != input.getRank())
    return emitOpError() << "result rank " << result.getRank()
                         << " differs from the input rank " << input.getRank();
  ArrayRef<int64_t> offsets = getOffsets();
  SmallVector<int64_t> strides(input.getRank(), 1);
  if (std::optional<ArrayRef<int64_t>> given = getStrides())
    strides.assign(given->begin(), given->end());
  if (int64_t(offsets.size()) != input.getRank() ||
      int64_t(strides.size()) != input.getRank())
    return emitOpError() << "offsets " << formatArray(offsets)
                         << " and strides " << formatArray(strides)
                         << " need one entry per dimension (" << input.getRank()
                         << ")";
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t size = result.getDimSize(d), extent = input.getDimSize(d);
    if (strides[d] < 1)
      return emitOpError() << "stride " << strides[d] << " in dimension " << d
                           << " must be positive";
    if (offsets[d] < 0 || (size > 0 && offsets[d] >= extent) ||
        (size > 0 && (extent - 1 - offsets[d]) / strides[d] < size - 1))
      return emitOpError() << "the window of dimension " << d << " (offset "
                           << offsets[d] << ", " << size << " elements, stride "
                           << strides[d] << ") does not fit in its "
                           << extent << " elements";
  }
  return success();
}

LogicalResult GatherOp::verify() {
  RankedTensorType data = getTensorType(getData());
  RankedTensorType indices = getTensorType(getIndices());
  RankedTensorType result = getTensorType(getResult());
  if (data.getRank() == 0)
    return emitOpError() << "data must have rank 1 or more";
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  if (failed(expectSameElementType(*this, "result", result.getElementType(),
                                   data.getElementType())))
    return failure();
  SmallVector<int64_t> expected(data.getShape().take_front(*axis));
  llvm::append_range(expected, indices.getShape());
  llvm::append_range(expected, data.getShape().drop_front(*axis + 1));
  return expectResultShape(*this, result, expected);
}

namespace {
/// A gather of constant, evenly spaced, ascending indices (or of one index)
/// picks a strided window: it becomes a crest.slice (and a crest.reshape to
/// the gather's shape when the indices are not one-dimensional). A slice
/// that is one contiguous run of its input needs no kernel
/// (crest/Semantics/View.h), which a gather always does: the first-token
/// pick of a classifier head (`Gather(x, 0, axis = 1)`) costs nothing.
/// Indices outside the axis (which read zeros) are left to the gather.
struct GatherOfEvenlySpacedIndices : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr indices;
    if (!matchPattern(op.getIndices(), m_Constant(&indices)))
      return rewriter.notifyMatchFailure(op, "indices are not a constant");
    RankedTensorType data = getTensorType(op.getData());
    int64_t rank = data.getRank();
    // (I64Attr's getter returns the bits as uint64_t.)
    int64_t axis = int64_t(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t extent = data.getDimSize(axis);
    int64_t count = indices.getNumElements();
    if (count == 0)
      return rewriter.notifyMatchFailure(op, "no indices");
    SmallVector<int64_t> picked;
    for (const APInt &index : indices.getValues<APInt>()) {
      int64_t j = index.getSExtValue();
      if (j < -extent || j >= extent)
        return rewriter.notifyMatchFailure(op, "an index is out of range");
      picked.push_back(j < 0 ? j + extent : j);
    }
    int64_t step = count > 1 ? picked[1] - picked[0] : 1;
    if (step <= 0)
      return rewriter.notifyMatchFailure(op, "indices do not ascend");
    for (int64_t k = 1; k < count; ++k)
      if (picked[k] != picked[0] + k * step)
        return rewriter.notifyMatchFailure(op, "indices are not evenly spaced");

    SmallVector<int64_t> shape(data.getShape()), offsets(rank, 0),
        strides(rank, 1);
    shape[axis] = count;
    offsets[axis] = picked[0];
    strides[axis] = step;
    auto sliceType = RankedTensorType::get(shape, data.getElementType());
    Value window = SliceOp::create(
        rewriter, op.getLoc(), sliceType, op.getData(),
        rewriter.getDenseI64ArrayAttr(offsets),
        step == 1 ? DenseI64ArrayAttr()
                  : rewriter.getDenseI64ArrayAttr(strides));
    if (sliceType != op.getType())
      window = ReshapeOp::create(rewriter, op.getLoc(), op.getType(), window);
    Operation *constant = op.getIndices().getDefiningOp();
    rewriter.replaceOp(op, window);
    if (constant->use_empty())
      rewriter.eraseOp(constant);
    return success();
  }
};
} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<GatherOfEvenlySpacedIndices>(context);
}


//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

/// The scalar core's view of an element type, if it has one.
static std::optional<sem::ScalarType> getScalarType(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return sem::ScalarType::getFloat(f.getFloatSemantics());
  if (auto i = dyn_cast<IntegerType>(type))
    return sem::ScalarType::getInt(i.getWidth(), i.isUnsigned());
  return std::nullopt;
}

/// An element as an exact double.
static double toDouble(APFloat v) {
  if (v.isNaN())
    return v.isNegative() ? -NAN : NAN;
  bool lost;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}
static double toDouble(const APInt &v, IntegerType type) {
  // An i1 true is 1, not -1.
  return type.isUnsigned() || type.getWidth() == 1 ? double(v.getZExtValue())
                                                   : double(v.getSExtValue());
}

/// The elements of `attr` as exact doubles (one for a splat).
static SmallVector<double> getElementValues(DenseElementsAttr attr) {
  SmallVector<double> out;
  if (isa<FloatType>(attr.getElementType())) {
    if (attr.isSplat())
      return {toDouble(attr.getSplatValue<APFloat>())};
    for (APFloat v : attr.getValues<APFloat>())
      out.push_back(toDouble(v));
    return out;
  }
  auto type = cast<IntegerType>(attr.getElementType());
  if (attr.isSplat())
    return {toDouble(attr.getSplatValue<APInt>(), type)};
  for (APInt v : attr.getValues<APInt>())
    out.push_back(toDouble(v, type));
  return out;
}

/// Folds elementwise `kind` over constant `operands` with the scalar core.
/// Only ops whose device result is correctly rounded fold (so a folded
/// value is bit for bit what the kernel computes); operands must be splats
/// or have the result's shape (no broadcasting), and a non-splat result at
/// most kMaxFoldElements elements.
static OpFoldResult foldElementwise(Operation *op, sem::ElementwiseOp kind,
                                    ArrayRef<Attribute> operands,
                                    const sem::OpParams &params = {}) {
  constexpr int64_t kMaxFoldElements = 4096;
  if (!sem::isCorrectlyRounded(kind))
    return {};
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<sem::ScalarType> result =
      getScalarType(resultType.getElementType());
  if (!result)
    return {};
  SmallVector<DenseElementsAttr> dense;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto d = dyn_cast_if_present<DenseElementsAttr>(a);
    if (!d || !getScalarType(d.getElementType()))
      return {};
    if (!d.isSplat() && d.getType().getShape() != resultType.getShape())
      return {};
    allSplat &= d.isSplat();
    dense.push_back(d);
  }
  int64_t n = allSplat ? 1 : resultType.getNumElements();
  if (n > kMaxFoldElements)
    return {};
  auto toAttr = [&](double v) -> Attribute {
    if (auto f = dyn_cast<FloatType>(resultType.getElementType()))
      return FloatAttr::get(
          f, sem::castFloat(std::isnan(v) ? APFloat::getQNaN(
                                                APFloat::IEEEdouble(),
                                                std::signbit(v))
                                          : APFloat(v),
                            f.getFloatSemantics()));
    return IntegerAttr::get(resultType.getElementType(),
                            APInt(result->intBits, uint64_t(int64_t(v)),
                                  /*isSigned=*/!result->isUnsigned,
                                  /*implicitTrunc=*/true));
  };
  SmallVector<SmallVector<double>> elements;
  for (DenseElementsAttr d : dense)
    elements.push_back(getElementValues(d));
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<double, 2> args;
    for (const SmallVector<double> &e : elements)
      args.push_back(e.size() == 1 ? e.front() : e[i]);
    values.push_back(toAttr(sem::evaluate(kind, args, *result, params)));
  }
  if (allSplat)
    return DenseElementsAttr::get(resultType, values.front());
  return DenseElementsAttr::get(resultType, values);
}

#define CREST_FOLD_ELEMENTWISE(OP, KIND)                                       \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldElementwise(*this, sem::ElementwiseOp::KIND,                    \
                           adaptor.getOperands());                             \
  }
CREST_FOLD_ELEMENTWISE(ReluOp, Relu)
CREST_FOLD_ELEMENTWISE(SigmoidOp, Sigmoid)
CREST_FOLD_ELEMENTWISE(TanhOp, Tanh)
CREST_FOLD_ELEMENTWISE(ErfOp, Erf)
CREST_FOLD_ELEMENTWISE(ExpOp, Exp)
CREST_FOLD_ELEMENTWISE(SqrtOp, Sqrt)
CREST_FOLD_ELEMENTWISE(NegOp, Neg)
CREST_FOLD_ELEMENTWISE(AbsOp, Abs)
CREST_FOLD_ELEMENTWISE(HardSwishOp, HardSwish)
CREST_FOLD_ELEMENTWISE(LogOp, Log)
CREST_FOLD_ELEMENTWISE(FloorOp, Floor)
CREST_FOLD_ELEMENTWISE(CeilOp, Ceil)
CREST_FOLD_ELEMENTWISE(RoundOp, Round)
CREST_FOLD_ELEMENTWISE(AddOp, Add)
CREST_FOLD_ELEMENTWISE(SubOp, Sub)
CREST_FOLD_ELEMENTWISE(MulOp, Mul)
CREST_FOLD_ELEMENTWISE(DivOp, Div)
CREST_FOLD_ELEMENTWISE(MaxOp, Max)
CREST_FOLD_ELEMENTWISE(MinOp, Min)
CREST_FOLD_ELEMENTWISE(PowOp, Pow)
CREST_FOLD_ELEMENTWISE(CastOp, Cast)
CREST_FOLD_ELEMENTWISE(EqualOp, Equal)
CREST_FOLD_ELEMENTWISE(LessOp, Less)
CREST_FOLD_ELEMENTWISE(LessEqualOp, LessEqual)
CREST_FOLD_ELEMENTWISE(GreaterOp, Greater)
CREST_FOLD_ELEMENTWISE(GreaterEqualOp, GreaterEqual)
CREST_FOLD_ELEMENTWISE(AndOp, And)
CREST_FOLD_ELEMENTWISE(OrOp, Or)
CREST_FOLD_ELEMENTWISE(XorOp, Xor)
CREST_FOLD_ELEMENTWISE(NotOp, Not)
CREST_FOLD_ELEMENTWISE(SelectOp, Select)
#undef CREST_FOLD_ELEMENTWISE

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(*this,
                         getApproximate() == GeluApproximation::Tanh
                             ? sem::ElementwiseOp::GeluTanh
                             : sem::ElementwiseOp::Gelu,
                         adaptor.getOperands());
}

OpFoldResult LeakyReluOp::fold(FoldAdaptor adaptor) {
  sem::OpParams params;
  params.alpha = getAlpha().convertToDouble();
  return foldElementwise(*this, sem::ElementwiseOp::LeakyRelu,
                         adaptor.getOperands(), params);
}

OpFoldResult HardSigmoidOp::fold(FoldAdaptor adaptor) {
  sem::OpParams params;
  params.alpha = getAlpha().convertToDouble();
  params.beta = getBeta().convertToDouble();
  return foldElementwise(*this, sem::ElementwiseOp::HardSigmoid,
                         adaptor.getOperands(), params);
}

OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  sem::OpParams params;
  if (auto lo = getMin())
    params.lo = lo->convertToDouble();
  if (auto hi = getMax())
    params.hi = hi->convertToDouble();
  return foldElementwise(*this, sem::ElementwiseOp::Clip,
                         adaptor.getOperands(), params);
}

#define GET_OP_CLASSES
#include "crest/Dialect/Crest/IR/CrestOps.cpp.inc"
