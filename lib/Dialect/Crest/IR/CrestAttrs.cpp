//===- CrestAttrs.cpp - Attributes of the crest dialect
//---------------------===//
//
// Verifiers of #crest.precision, #crest.sync, #crest.target and
// #crest.config that need no context. Checks against the chip of an
// enclosing #crest.target live with the operations (CrestOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace crest;

#include "crest/Dialect/Crest/IR/CrestEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "crest/Dialect/Crest/IR/CrestAttrs.cpp.inc"

void CrestDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "crest/Dialect/Crest/IR/CrestAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Integer arrays in attribute parameters
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
crest::detail::parseIntArray(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        return parser.parseInteger(values.emplace_back());
      }))
    return failure();
  return values;
}

void crest::detail::printIntArray(AsmPrinter &printer,
                                  ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

static std::string formatIntArray(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// #crest.precision
//===----------------------------------------------------------------------===//

/// The accumulator types matrix instructions offer for an input kind, on
/// any chip (the chip table decides what a given chip has).
static SmallVector<ScalarKind, 2> getLegalAccumulators(ScalarKind input) {
  switch (input) {
  case ScalarKind::F64:
    return {ScalarKind::F64};
  case ScalarKind::I8:
    return {ScalarKind::I32};
  case ScalarKind::F16:
    return {ScalarKind::F32, ScalarKind::F16};
  case ScalarKind::BF16:
    return {ScalarKind::F32, ScalarKind::BF16};
  default:
    return {ScalarKind::F32};
  }
}

static bool isMatrixInputKind(ScalarKind kind) {
  return kind != ScalarKind::I32;
}

static std::string joinKindNames(ArrayRef<ScalarKind> kinds) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(kinds, os,
                        [&](ScalarKind k) { os << getScalarKindName(k); });
  return s;
}

LogicalResult
PrecisionAttr::verify(function_ref<InFlightDiagnostic()> emitError, Type lhs,
                      Type rhs, Type acc, Type out) {
  static constexpr StringLiteral kLegalInputs =
      "f64, f32, tf32, f16, bf16, i8, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FN, "
      "f8E5M2";
  std::optional<ScalarKind> lhsKind = getScalarKind(lhs);
  if (!lhsKind || !isMatrixInputKind(*lhsKind))
    return emitError() << "precision lhs = " << lhs
                       << " is not a type matrix instructions read; legal: "
                       << kLegalInputs;
  std::optional<ScalarKind> rhsKind = getScalarKind(rhs);
  if (!rhsKind || !isMatrixInputKind(*rhsKind))
    return emitError() << "precision rhs = " << rhs
                       << " is not a type matrix instructions read; legal: "
                       << kLegalInputs;

  if (lhs != rhs) {
    bool sameFp8Flavour = isFp8Kind(*lhsKind) && isFp8Kind(*rhsKind) &&
                          isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(lhs) ==
                              isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(rhs);
    if (isFp8Kind(*lhsKind) && isFp8Kind(*rhsKind) && !sameFp8Flavour)
      return emitError() << "precision lhs = " << lhs << " and rhs = " << rhs
                         << " mix the FNUZ and OCP fp8 flavours; use "
                            "f8E4M3FNUZ/f8E5M2FNUZ or f8E4M3FN/f8E5M2";
    if (!sameFp8Flavour)
      return emitError() << "precision lhs = " << lhs << " and rhs = " << rhs
                         << " differ; only fp8 inputs of one flavour may mix";
  }

  SmallVector<ScalarKind, 2> legalAcc = getLegalAccumulators(*lhsKind);
  std::optional<ScalarKind> accKind = getScalarKind(acc);
  if (!accKind || !llvm::is_contained(legalAcc, *accKind))
    return emitError() << "precision acc = " << acc
                       << " cannot accumulate lhs = " << lhs
                       << " inputs; legal: " << joinKindNames(legalAcc);

  if (*accKind == ScalarKind::I32) {
    if (!out.isSignlessInteger(32) && !out.isSignlessInteger(8))
      return emitError() << "precision out = " << out
                         << " is not legal with acc = " << acc
                         << "; legal: i32, i8";
  } else if (!isa<FloatType>(out) || isa<FloatTF32Type>(out)) {
    return emitError() << "precision out = " << out
                       << " is not legal with acc = " << acc
                       << "; legal: any float type except tf32";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// #crest.sync
//===----------------------------------------------------------------------===//

static LogicalResult verifyStages(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned stages) {
  if (stages < 1 || stages > SyncAttr::kMaxStages)
    return emitError() << "stages = " << stages
                       << " is out of range; must be 1, 2 or 3";
  return success();
}

LogicalResult SyncAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               SyncScope scope, unsigned stages) {
  return verifyStages(emitError, stages);
}

//===----------------------------------------------------------------------===//
// #crest.target
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, unsigned waveSize) {
  const ChipInfo *info = lookupChip(chip);
  if (!info)
    return emitError() << "unknown chip '" << chip
                       << "'; known chips: " << getKnownChipNames();
  if (waveSize != 0 && !info->supportsWaveSize(waveSize)) {
    InFlightDiagnostic diag = emitError();
    diag << chip << " does not run wave" << waveSize
         << "; supported wave sizes:";
    if (info->supportsWave32)
      diag << " 32";
    if (info->supportsWave64)
      diag << " 64";
    return diag;
  }
  return success();
}

const ChipInfo *TargetAttr::getChipInfo() const {
  return lookupChip(getChip());
}

unsigned TargetAttr::getEffectiveWaveSize() const {
  if (getWaveSize() != 0)
    return getWaveSize();
  const ChipInfo *info = getChipInfo();
  return info ? info->defaultWaveSize : 64;
}

//===----------------------------------------------------------------------===//
// #crest.config
//===----------------------------------------------------------------------===//

static bool isKnownMnemonic(StringRef mnemonic) {
  return llvm::any_of(getAllChips(), [&](const ChipInfo &chip) {
    return chip.lookupMma(mnemonic) != nullptr;
  });
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef mma, ArrayRef<int64_t> workgroupTile,
                                 ArrayRef<int64_t> waveTile, SyncScope scope,
                                 unsigned stages, unsigned splitK,
                                 unsigned rhsVector, unsigned globalSplitK) {
  if (!isKnownMnemonic(mma))
    return emitError() << "unknown matrix instruction '" << mma
                       << "'; no chip in the chip table has it";
  if (workgroupTile.size() != 3)
    return emitError() << "workgroup_tile must be [M, N, K], got "
                       << workgroupTile.size() << " values";
  if (waveTile.size() != 2)
    return emitError() << "wave_tile must be [M, N], got " << waveTile.size()
                       << " values";
  if (llvm::any_of(workgroupTile, [](int64_t v) { return v <= 0; }))
    return emitError() << "workgroup_tile " << formatIntArray(workgroupTile)
                       << " must be positive";
  if (llvm::any_of(waveTile, [](int64_t v) { return v <= 0; }))
    return emitError() << "wave_tile " << formatIntArray(waveTile)
                       << " must be positive";
  if (workgroupTile[0] % waveTile[0] != 0 ||
      workgroupTile[1] % waveTile[1] != 0)
    return emitError() << "wave_tile " << formatIntArray(waveTile)
                       << " does not divide workgroup_tile "
                       << formatIntArray(workgroupTile);
  if (failed(verifyStages(emitError, stages)))
    return failure();
  if (splitK < 1)
    return emitError() << "split_k = 0 is out of range; must be at least 1";
  if (rhsVector < 1 || rhsVector > 16 || !llvm::isPowerOf2_32(rhsVector))
    return emitError() << "rhs_vector = " << rhsVector
                       << " is out of range; must be 1, 2, 4, 8 or 16";
  if (rhsVector > 1 && scope != SyncScope::Wavefront)
    return emitError() << "rhs_vector = " << rhsVector
                       << " needs scope = wavefront (the rhs is loaded "
                          "straight into registers)";
  if (globalSplitK < 1)
    return emitError() << "global_split_k = 0 is out of range; must be at "
                          "least 1";
  if (globalSplitK > 1 && rhsVector == 1)
    return emitError() << "global_split_k = " << globalSplitK
                       << " is generated for the skinny path only (it needs "
                          "rhs_vector > 1)";
  return success();
}

int64_t ConfigAttr::getNumWaves() const {
  return (getTileM() / getWaveTile()[0]) * (getTileN() / getWaveTile()[1]) *
         getSplitK();
}

GemmLdsLayout ConfigAttr::getLdsLayout(unsigned lhsBits, unsigned rhsBits,
                                       unsigned accBits, int64_t m) const {
  GemmLdsShape shape;
  shape.tileM = getTileM();
  shape.tileN = getTileN();
  shape.tileK = getTileK();
  shape.stages = getStages();
  shape.splitK = getSplitK();
  shape.lhsBits = lhsBits;
  shape.rhsBits = rhsBits;
  shape.accBits = accBits;
  shape.staged = getScope() == SyncScope::Workgroup;
  shape.vectorRhs = getRhsVector() > 1;
  shape.problemM = m;
  return computeGemmLdsLayout(shape);
}

int64_t ConfigAttr::getLdsBytes(unsigned lhsBits, unsigned rhsBits,
                                unsigned accBits, int64_t m) const {
  return getLdsLayout(lhsBits, rhsBits, accBits, m).getTotalBytes();
}
