//===- MmaEmitter.cpp - Matrix instruction families for kernel builders ---===//

#include "MmaEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

MmaEmitter::~MmaEmitter() = default;

Type MmaEmitter::getOperandType(MmaOperand operand, Type elt) const {
  int64_t perLane = getOperandElementsPerLane(operand);
  if (perLane == 1)
    return elt;
  return VectorType::get({perLane}, elt);
}

VectorType MmaEmitter::getAccType(Type accElt) const {
  return VectorType::get({getAccElementsPerLane()}, accElt);
}

Value MmaEmitter::getOperandFirstK(OpBuilder &b, Location loc, Value lane,
                                   MmaOperand operand) const {
  return arith::MulIOp::create(
      b, loc, getOperandKGroup(b, loc, lane, operand),
      arith::ConstantIndexOp::create(b, loc,
                                     getOperandElementsPerLane(operand)));
}

FailureOr<std::unique_ptr<MmaEmitter>>
codegen::createMmaEmitter(const MmaInstruction &inst, unsigned waveSize,
                          bool reducedPrecision,
                          function_ref<InFlightDiagnostic()> emitError) {
  switch (inst.kind) {
  case MmaKind::MFMA:
    return createMfmaEmitter(inst, waveSize, reducedPrecision, emitError);
  case MmaKind::WMMA:
    break;
  }
  emitError() << "codegen has no emitter for " << inst.mnemonic
              << " (the chip table describes it, but Crest generates MFMA "
                 "kernels only)";
  return failure();
}
