//===- TargetChecks.cpp - Chip-table checks before LLVM codegen -----------===//
//
// Matrix ops are matched against the chip table by what the hardware would
// be asked to do: M x N x K, the number of blocks, the element kinds of A, B
// and the accumulator, and how many A elements each lane holds. ROCDL ops
// carry the shape and element kinds in their names (rocdl.mfma.f32.32x32x8f16,
// rocdl.mfma.i32.16x16x32.i8, rocdl.wmma.f32.16x16x16.fp8_bf8, ...) and pass
// packed operands (bf16 as i16, i8 and fp8 as i32/i64), so the per-lane
// count is the operand's bit width over the element width; "fp8"/"bf8" in a
// name mean the chip's own fp8 flavour.
//
//===----------------------------------------------------------------------===//

#include "crest/Codegen/Transforms/TargetChecks.h"

#include "crest/Dialect/Crest/IR/CrestDialect.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace crest;

//===----------------------------------------------------------------------===//
// Matrix ops
//===----------------------------------------------------------------------===//

namespace {

/// One operand side (A, B or the accumulator) of a matrix op.
struct Operand {
  std::optional<ScalarKind> kind;
  /// How the element type is spelled in messages when `kind` is unknown.
  std::string spelling;
  /// Elements held per lane; 0 when they cannot be counted.
  unsigned perLane = 0;
  /// Element width when `kind` is unknown (0 if that is unknown too).
  unsigned bits = 0;

  unsigned getBits() const { return kind ? getScalarKindBits(*kind) : bits; }
};

/// What a matrix op asks the hardware to do.
struct MatrixRequest {
  MmaKind kind = MmaKind::MFMA;
  unsigned m = 0, n = 0, k = 0;
  /// Known for amdgpu.mfma; ROCDL ops imply it by the accumulator size.
  std::optional<unsigned> blocks;
  Operand lhs, rhs, acc;
  /// Set for forms the chip table cannot express (sparse, block-scaled).
  std::string unsupportedForm;
};

} // namespace

static std::string getKindSpelling(const Operand &operand) {
  if (operand.kind)
    return getScalarKindName(*operand.kind).str();
  return operand.spelling;
}

static unsigned getBitWidth(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() *
           vector.getElementType().getIntOrFloatBitWidth();
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

static unsigned getNumElements(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

/// Element kind of an AMDGPU-dialect operand type. Integers of 8 bits are
/// I8 whatever their signedness (amdgpu.wmma takes si8/ui8); wider
/// integers used as packed sources are handled by the caller.
static Operand getAmdgpuOperand(Type type, bool reducedPrecision) {
  Operand operand;
  Type element = getElementTypeOrSelf(type);
  llvm::raw_string_ostream os(operand.spelling);
  element.print(os);
  operand.perLane = getNumElements(type);
  if (auto integer = dyn_cast<IntegerType>(element)) {
    if (integer.getWidth() == 8) {
      operand.kind = ScalarKind::I8;
    } else if (integer.getWidth() == 32) {
      // An i32 accumulator, or a scalar source packing 4 x i8 (the caller
      // decides).
      operand.kind = ScalarKind::I32;
    } else if (integer.getWidth() == 64 && !isa<VectorType>(type)) {
      // A scalar source packing 8 x i8.
      operand.kind = ScalarKind::I8;
      operand.perLane = 8;
    }
    return operand;
  }
  operand.kind = getScalarKind(element);
  if (operand.kind == ScalarKind::F32 && reducedPrecision)
    operand.kind = ScalarKind::XF32;
  return operand;
}

/// `amdgpu.mfma`: everything is explicit.
static MatrixRequest getRequest(amdgpu::MFMAOp op) {
  MatrixRequest request;
  request.kind = MmaKind::MFMA;
  request.m = op.getM();
  request.n = op.getN();
  request.k = op.getK();
  request.blocks = op.getBlocks();
  bool xf32 = op.getReducePrecision();
  request.lhs = getAmdgpuOperand(op.getSourceA().getType(), xf32);
  request.rhs = getAmdgpuOperand(op.getSourceB().getType(), xf32);
  request.acc = getAmdgpuOperand(op.getDestC().getType(), false);
  // A scalar i32 source is 4 packed i8s.
  for (Operand *source : {&request.lhs, &request.rhs}) {
    if (source->kind == ScalarKind::I32 && source->perLane == 1) {
      source->kind = ScalarKind::I8;
      source->perLane = 4;
    }
  }
  return request;
}

/// `amdgpu.wmma`.
static MatrixRequest getRequest(amdgpu::WMMAOp op) {
  MatrixRequest request;
  request.kind = MmaKind::WMMA;
  request.m = op.getM();
  request.n = op.getN();
  request.k = op.getK();
  request.lhs = getAmdgpuOperand(op.getSourceA().getType(), false);
  request.rhs = getAmdgpuOperand(op.getSourceB().getType(), false);
  request.acc = getAmdgpuOperand(op.getDestC().getType(), false);
  return request;
}

/// Parses the element-type token of a ROCDL intrinsic name.
static Operand parseRocdlToken(StringRef token, const ChipInfo &chip) {
  Operand operand;
  operand.spelling = token.str();
  auto fp8Kind = [&](bool e4m3) -> std::optional<ScalarKind> {
    switch (chip.fp8) {
    case Fp8Flavour::FNUZ:
      return e4m3 ? ScalarKind::F8E4M3FNUZ : ScalarKind::F8E5M2FNUZ;
    case Fp8Flavour::OCP:
      return e4m3 ? ScalarKind::F8E4M3FN : ScalarKind::F8E5M2;
    case Fp8Flavour::None:
      return std::nullopt;
    }
    return std::nullopt;
  };
  operand.kind = llvm::StringSwitch<std::optional<ScalarKind>>(token)
                     .Case("f64", ScalarKind::F64)
                     .Case("f32", ScalarKind::F32)
                     .Case("xf32", ScalarKind::XF32)
                     .Case("f16", ScalarKind::F16)
                     .Case("bf16", ScalarKind::BF16)
                     .Case("i32", ScalarKind::I32)
                     .Cases({"i8", "iu8"}, ScalarKind::I8)
                     .Case("fp8", fp8Kind(/*e4m3=*/true))
                     .Case("bf8", fp8Kind(/*e4m3=*/false))
                     .Default(std::nullopt);
  if (!operand.kind && (token == "fp8" || token == "bf8"))
    operand.bits = 8; // on a chip without fp8
  return operand;
}

/// Parses `rocdl.{mfma,wmma,smfmac}.<acc>.<M>x<N>x<K>[<type>][.<type>...]`.
/// Returns std::nullopt for ops that are not matrix ops.
static std::optional<MatrixRequest> getRocdlRequest(Operation *op,
                                                    const ChipInfo &chip) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("rocdl."))
    return std::nullopt;
  SmallVector<StringRef> parts;
  name.split(parts, '.');
  if (parts.size() < 3)
    return std::nullopt;
  MatrixRequest request;
  if (parts[0] == "mfma" || parts[0] == "smfmac")
    request.kind = MmaKind::MFMA;
  else if (parts[0] == "wmma")
    request.kind = MmaKind::WMMA;
  else
    return std::nullopt;
  if (parts[0] == "smfmac")
    request.unsupportedForm = "sparse (smfmac)";
  size_t index = 1;
  if (parts[index].starts_with("scale")) {
    request.unsupportedForm = "block-scaled";
    ++index;
  }
  if (index + 1 >= parts.size())
    return std::nullopt;
  StringRef accToken = parts[index++];
  // "32x32x8f16" or "16x16x32" followed by ".bf16".
  StringRef shape = parts[index++];
  unsigned dims[3];
  for (unsigned d = 0; d < 3; ++d) {
    size_t digits = shape.find_if_not(llvm::isDigit);
    if (digits == 0 || shape.take_front(digits).getAsInteger(10, dims[d]))
      return std::nullopt;
    shape = shape.drop_front(digits);
    if (d < 2 && !shape.consume_front("x"))
      return std::nullopt;
  }
  request.m = dims[0];
  request.n = dims[1];
  request.k = dims[2];
  SmallVector<StringRef> tokens;
  if (!shape.empty())
    tokens.push_back(shape);
  for (StringRef part : ArrayRef(parts).drop_front(index)) {
    if (part == "1k")
      continue; // CDNA2's 4 x bf16 forms; the per-lane count tells them apart
    SmallVector<StringRef> pieces;
    part.split(pieces, '_');
    llvm::append_range(tokens, pieces);
  }
  if (tokens.empty())
    return std::nullopt;
  request.lhs = parseRocdlToken(tokens.front(), chip);
  request.rhs =
      parseRocdlToken(tokens.size() > 1 ? tokens[1] : tokens[0], chip);
  request.acc = parseRocdlToken(accToken, chip);
  if (op->getNumOperands() < 2 || op->getNumResults() != 1)
    return request;
  for (auto [operand, value] : {std::pair{&request.lhs, op->getOperand(0)},
                                std::pair{&request.rhs, op->getOperand(1)}}) {
    unsigned bits = getBitWidth(value.getType());
    unsigned elementBits = operand->getBits();
    if (elementBits && bits % elementBits == 0)
      operand->perLane = bits / elementBits;
  }
  request.acc.perLane = getNumElements(op->getResult(0).getType());
  return request;
}

/// Accumulator elements a lane holds for `mma`. RDNA3 keeps a 16-bit
/// accumulator in one half of each 32-bit register, so its vectors have
/// twice the elements.
static unsigned getAccVectorLength(const MmaInstruction &mma,
                                   unsigned waveSize) {
  unsigned elements = mma.getAccElementsPerLane(waveSize);
  if (mma.layout == MmaLayoutFamily::Rdna3Wmma &&
      getScalarKindBits(mma.acc) == 16)
    elements *= 2;
  return elements;
}

static bool matches(const MmaInstruction &mma, const MatrixRequest &request,
                    unsigned waveSize) {
  if (mma.kind != request.kind || mma.m != request.m || mma.n != request.n ||
      mma.k != request.k)
    return false;
  if (mma.lhs != request.lhs.kind || mma.rhs != request.rhs.kind ||
      mma.acc != request.acc.kind)
    return false;
  if (request.blocks && mma.blocks != *request.blocks)
    return false;
  if (mma.getLhsElementsPerLane(waveSize) != request.lhs.perLane ||
      mma.getLhsElementsPerLane(waveSize) != request.rhs.perLane)
    return false;
  return getAccVectorLength(mma, waveSize) == request.acc.perLane;
}

static void describe(llvm::raw_ostream &os, const MatrixRequest &request,
                     unsigned waveSize) {
  os << request.m << "x" << request.n << "x" << request.k;
  if (request.blocks && *request.blocks != 1)
    os << ", " << *request.blocks << " blocks";
  os << ", " << getKindSpelling(request.lhs);
  if (getKindSpelling(request.rhs) != getKindSpelling(request.lhs))
    os << " x " << getKindSpelling(request.rhs);
  os << " -> " << getKindSpelling(request.acc);
  if (request.lhs.perLane)
    os << ", " << request.lhs.perLane << " A and " << request.acc.perLane
       << " C elements per lane";
  if (request.kind == MmaKind::WMMA)
    os << " in wave" << waveSize;
}

static void describe(llvm::raw_ostream &os, const MmaInstruction &mma,
                     unsigned waveSize) {
  os << mma.mnemonic << " (" << mma.m << "x" << mma.n << "x" << mma.k;
  if (mma.blocks != 1)
    os << ", " << mma.blocks << " blocks";
  os << ", " << mma.getLhsElementsPerLane(waveSize) << " A and "
     << getAccVectorLength(mma, waveSize) << " C per lane)";
}

static LogicalResult checkRequest(Operation *op, const MatrixRequest &request,
                                  const ChipInfo &chip, unsigned waveSize) {
  StringRef kindName = request.kind == MmaKind::MFMA ? "MFMA" : "WMMA";
  if (request.unsupportedForm.empty())
    for (const MmaInstruction &mma : chip.mmaInstructions)
      if (matches(mma, request, waveSize))
        return success();

  InFlightDiagnostic diag = op->emitError();
  diag << "'" << op->getName() << "' (";
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    describe(os, request, waveSize);
    diag << text;
  }
  diag << ") is not a matrix instruction of " << chip.name << " ("
       << chip.architecture << ") in Crest's chip table";
  if (!request.unsupportedForm.empty()) {
    diag << ": the chip table lists dense instructions only, not "
         << request.unsupportedForm << " forms";
    return diag;
  }

  // Name what the chip does have for these types, or for this kind of
  // instruction when it has nothing for these types.
  std::string list;
  llvm::raw_string_ostream os(list);
  auto addTo = [&](const MmaInstruction &mma) {
    if (!list.empty())
      os << ", ";
    describe(os, mma, waveSize);
  };
  std::string types = getKindSpelling(request.lhs) + " x " +
                      getKindSpelling(request.rhs) + " -> " +
                      getKindSpelling(request.acc);
  if (request.lhs.kind && request.rhs.kind && request.acc.kind)
    for (const MmaInstruction *mma :
         chip.findMma(*request.lhs.kind, *request.rhs.kind, *request.acc.kind))
      if (mma->kind == request.kind)
        addTo(*mma);
  if (!list.empty()) {
    diag.attachNote() << chip.name << "'s " << types << " " << kindName
                      << " instructions: " << list;
    return diag;
  }
  // Nothing for these types: name the type combinations the chip has.
  SmallVector<std::string> combinations;
  for (const MmaInstruction &mma : chip.mmaInstructions) {
    if (mma.kind != request.kind)
      continue;
    std::string combination =
        (getScalarKindName(mma.lhs) + " x " + getScalarKindName(mma.rhs) +
         " -> " + getScalarKindName(mma.acc))
            .str();
    if (!llvm::is_contained(combinations, combination))
      combinations.push_back(combination);
  }
  if (!combinations.empty()) {
    diag.attachNote() << chip.name << " has no " << types << " " << kindName
                      << " instruction; its " << kindName
                      << " instructions take "
                      << llvm::join(combinations, ", ");
    return diag;
  }
  if (chip.hasMatrixCores())
    diag.attachNote() << chip.name << " has no " << kindName
                      << " instructions (its matrix instructions are "
                      << (kindName == "MFMA" ? "WMMA" : "MFMA") << "s)";
  else
    diag.attachNote() << chip.name << " has no matrix instructions";
  return diag;
}

LogicalResult crest::verifyMatrixOps(Operation *root, const ChipInfo &chip,
                                     unsigned waveSize) {
  bool failed = false;
  root->walk([&](Operation *op) {
    std::optional<MatrixRequest> request;
    if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op)) {
      request = getRequest(mfma);
    } else if (auto wmma = dyn_cast<amdgpu::WMMAOp>(op)) {
      request = getRequest(wmma);
    } else if (isa<amdgpu::SparseMFMAOp, amdgpu::ScaledMFMAOp,
                   amdgpu::ScaledWMMAOp>(op)) {
      request.emplace();
      request->kind =
          isa<amdgpu::ScaledWMMAOp>(op) ? MmaKind::WMMA : MmaKind::MFMA;
      request->unsupportedForm =
          isa<amdgpu::SparseMFMAOp>(op) ? "sparse (smfmac)" : "block-scaled";
      auto getDim = [&](StringRef name) -> unsigned {
        auto attr = op->getAttrOfType<IntegerAttr>(name);
        return attr ? attr.getInt() : 0;
      };
      request->m = getDim("m");
      request->n = getDim("n");
      request->k = getDim("k");
    } else {
      request = getRocdlRequest(op, chip);
    }
    if (request && mlir::failed(checkRequest(op, *request, chip, waveSize)))
      failed = true;
  });
  return failure(failed);
}

//===----------------------------------------------------------------------===//
// External calls
//===----------------------------------------------------------------------===//

/// Why a call to `callee` cannot be resolved, for the message.
static std::string describeExternalCallee(StringRef callee) {
  if (callee.starts_with("__ocml_") || callee.starts_with("__ockl_"))
    return ("'" + callee +
            "', a ROCm device-library function: Crest links no device "
            "library into its code objects (math ops are expanded by "
            "crest-legalize-math for f16, bf16 and f32; other types and "
            "ops need a different formulation)")
        .str();
  return ("'" + callee +
          "', which the module declares but does not define: Crest's code "
          "objects contain only the module's own functions")
      .str();
}

LogicalResult crest::verifyNoExternalCalls(Operation *root) {
  bool failed = false;
  root->walk([&](Operation *op) {
    if (isa<ROCDL::BlockDimXOp, ROCDL::BlockDimYOp, ROCDL::BlockDimZOp>(op)) {
      op->emitError()
          << "the workgroup size is not known at compile time, and reading "
             "it needs the ROCm device library (__ockl_get_local_size), which "
             "Crest does not link; give the kernel a `known_block_size`";
      failed = true;
      return;
    }
    if (isa<ROCDL::GridDimXOp, ROCDL::GridDimYOp, ROCDL::GridDimZOp>(op)) {
      op->emitError()
          << "the grid size is not known at compile time, and reading it "
             "needs the ROCm device library (__ockl_get_num_groups), which "
             "Crest does not link; give the kernel a `known_grid_size` or "
             "pass the size as an argument";
      failed = true;
      return;
    }
    FlatSymbolRefAttr callee;
    bool isDeclaration = false;
    if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      callee = call.getCalleeAttr();
      if (!callee)
        return; // indirect call
      auto func = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          op, callee.getAttr());
      isDeclaration = !func || func.isExternal();
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      callee = call.getCalleeAttr();
      auto func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, callee.getAttr());
      isDeclaration = !func || func.isExternal();
    } else {
      return;
    }
    if (!isDeclaration)
      return;
    op->emitError() << "call to " << describeExternalCallee(callee.getValue());
    failed = true;
  });
  return failure(failed);
}

//===----------------------------------------------------------------------===//
// Kernel signatures
//===----------------------------------------------------------------------===//

LogicalResult crest::verifyBarePointerKernels(Operation *root) {
  bool failed = false;
  root->walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<BaseMemRefType>(type);
      if (!memref || LLVMTypeConverter::canConvertToBarePtr(memref))
        continue;
      func.emitError() << "kernel argument #" << index << " of type " << type
                       << " cannot be passed as a bare pointer: Crest's "
                          "kernels take one pointer per memref, so its "
                          "strides and offset must be static";
      failed = true;
    }
  });
  return failure(failed);
}
