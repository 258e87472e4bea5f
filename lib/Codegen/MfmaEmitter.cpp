//===- MfmaEmitter.cpp - The CDNA MFMA family for kernel builders ---------===//
//
// Lane indices from the closed-form layouts of crest/Target/MmaLayout.h:
// A/B lane l holds row (column) l % dim, K group l / (dim * blocks); the
// accumulator's element e of lane l is column l % N, row
// getRowOffset(e) + getRowStride() * (l / N % side).
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "crest/Target/MmaLayout.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

namespace {

class MfmaEmitter final : public MmaEmitter {
public:
  MfmaEmitter(const MmaInstruction &inst, bool reducedPrecision)
      : MmaEmitter(inst), a(mma::getALayout(inst)), b(mma::getBLayout(inst)),
        d(mma::getDLayout(inst)), reducedPrecision(reducedPrecision) {}

  int64_t getOperandElementsPerLane(MmaOperand operand) const override {
    return layout(operand).perLane;
  }
  int64_t getAccElementsPerLane() const override { return d.elementsPerLane; }

  Value getOperandIndex(OpBuilder &builder, Location loc, Value lane,
                        MmaOperand operand) const override {
    return arith::RemUIOp::create(builder, loc, lane,
                                  constant(builder, loc, layout(operand).dim));
  }
  Value getOperandKGroup(OpBuilder &builder, Location loc, Value lane,
                         MmaOperand operand) const override {
    return arith::DivUIOp::create(
        builder, loc, lane,
        constant(builder, loc, layout(operand).getLanesPerKGroup()));
  }
  Value getAccColumn(OpBuilder &builder, Location loc,
                     Value lane) const override {
    return arith::RemUIOp::create(builder, loc, lane, constant(builder, loc, d.n));
  }
  Value getAccRow(OpBuilder &builder, Location loc, Value lane,
                  int64_t element) const override {
    Value group =
        arith::DivUIOp::create(builder, loc, lane, constant(builder, loc, d.n));
    if (d.needsLaneGroupModulo())
      group = arith::RemUIOp::create(builder, loc, group,
                                     constant(builder, loc, d.side));
    return arith::AddIOp::create(
        builder, loc, constant(builder, loc, d.getRowOffset(element)),
        arith::MulIOp::create(builder, loc, group,
                              constant(builder, loc, d.getRowStride())));
  }

  Value emitMma(OpBuilder &builder, Location loc, Value lhs, Value rhs,
                Value acc) const override {
    return amdgpu::MFMAOp::create(
        builder, loc, acc.getType(), builder.getI32IntegerAttr(inst.m),
        builder.getI32IntegerAttr(inst.n), builder.getI32IntegerAttr(inst.k),
        builder.getI32IntegerAttr(inst.blocks), lhs, rhs, acc,
        /*cbsz=*/builder.getI32IntegerAttr(0),
        /*abid=*/builder.getI32IntegerAttr(0),
        amdgpu::MFMAPermBAttr::get(builder.getContext(),
                                   amdgpu::MFMAPermB::none),
        reducedPrecision ? builder.getUnitAttr() : UnitAttr());
  }

private:
  const mma::InputLayout &layout(MmaOperand operand) const {
    return operand == MmaOperand::A ? a : b;
  }
  static Value constant(OpBuilder &builder, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  }

  mma::InputLayout a, b;
  mma::AccLayout d;
  bool reducedPrecision;
};

} // namespace

FailureOr<std::unique_ptr<MmaEmitter>>
codegen::createMfmaEmitter(const MmaInstruction &inst, unsigned waveSize,
                           bool reducedPrecision,
                           function_ref<InFlightDiagnostic()> emitError) {
  // Multi-block forms and M != N would need the block index in every lane
  // computation; the kernels tile with single-block square forms.
  if (inst.blocks != 1 || inst.m != inst.n ||
      waveSize != mma::kMfmaWaveSize || !mma::hasLayout(inst)) {
    emitError() << "codegen supports single-block MFMA instructions in "
                   "wave64; "
                << inst.mnemonic << " is not one";
    return failure();
  }
  return std::unique_ptr<MmaEmitter>(
      std::make_unique<MfmaEmitter>(inst, reducedPrecision));
}
