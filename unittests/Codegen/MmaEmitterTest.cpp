//===- MmaEmitterTest.cpp - The kernels' view of the MFMA lane layouts ----===//
//
// The index arithmetic MfmaEmitter generates, folded for every lane, must
// name exactly the elements the layout description (crest/Target/MmaLayout.h,
// itself checked against AMD's calculator data) puts in that lane: the A and
// B fragments' row/column and K range, and the accumulator's rows and
// column. Every chip's every MFMA is tried: the single-block M = N forms
// must get an emitter that agrees, the others a diagnostic; WMMA gets a
// diagnostic naming the instruction.
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "crest/Target/MmaLayout.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir;
using namespace crest;
using namespace crest::codegen;

namespace {

class MmaEmitterTest : public ::testing::Test {
protected:
  MmaEmitterTest() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    amdgpu::AMDGPUDialect>();
  }

  /// The emitter of `inst`, or null with the diagnostic in `message`.
  std::unique_ptr<MmaEmitter> create(const MmaInstruction &inst,
                                     unsigned waveSize, std::string &message) {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    FailureOr<std::unique_ptr<MmaEmitter>> emitter = createMmaEmitter(
        inst, waveSize, /*reducedPrecision=*/false,
        [&] { return emitError(UnknownLoc::get(&ctx)); });
    if (failed(emitter))
      return nullptr;
    return std::move(*emitter);
  }

  /// Evaluates `build(b, lane)`'s index values for lanes 0..63 by emitting
  /// them into a function and letting MLIR fold it: result[lane][i].
  std::vector<std::vector<int64_t>>
  evaluate(function_ref<SmallVector<Value>(OpBuilder &, Value)> build) {
    Location loc = UnknownLoc::get(&ctx);
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    auto func = func::FuncOp::create(b, loc, "lanes",
                                     b.getFunctionType({}, {}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    SmallVector<Value> all;
    size_t perLane = 0;
    for (int64_t lane = 0; lane < 64; ++lane) {
      SmallVector<Value> values =
          build(b, arith::ConstantIndexOp::create(b, loc, lane));
      perLane = values.size();
      llvm::append_range(all, values);
    }
    auto ret = func::ReturnOp::create(b, loc, all);
    func.setType(b.getFunctionType({}, ValueRange(all).getTypes()));
    EXPECT_TRUE(succeeded(applyPatternsGreedily(func, RewritePatternSet(&ctx))));
    std::vector<std::vector<int64_t>> result(64);
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      APInt value;
      EXPECT_TRUE(matchPattern(v, m_ConstantInt(&value)))
          << "lane " << i / perLane << " value " << i % perLane
          << " did not fold to a constant";
      result[i / perLane].push_back(value.getSExtValue());
    }
    return result;
  }

  MLIRContext ctx;
};

TEST_F(MmaEmitterTest, MfmaIndicesMatchTheLayouts) {
  unsigned checked = 0;
  for (const ChipInfo &chip : getAllChips()) {
    for (const MmaInstruction &inst : chip.mmaInstructions) {
      if (inst.kind != MmaKind::MFMA)
        continue;
      SCOPED_TRACE(chip.name.str() + " " + inst.mnemonic.str());
      std::string message;
      std::unique_ptr<MmaEmitter> emitter = create(inst, 64, message);
      bool supported = inst.blocks == 1 && inst.m == inst.n;
      ASSERT_EQ(bool(emitter), supported) << message;
      if (!emitter) {
        EXPECT_NE(message.find(inst.mnemonic.str()), std::string::npos);
        EXPECT_NE(message.find("single-block MFMA"), std::string::npos);
        continue;
      }
      mma::InputLayout a = mma::getALayout(inst), bl = mma::getBLayout(inst);
      mma::AccLayout d = mma::getDLayout(inst);
      ASSERT_EQ(emitter->getOperandElementsPerLane(MmaOperand::A), a.perLane);
      ASSERT_EQ(emitter->getOperandElementsPerLane(MmaOperand::B), bl.perLane);
      ASSERT_EQ(emitter->getAccElementsPerLane(), d.elementsPerLane);
      ASSERT_EQ(int64_t(d.elementsPerLane) * 64, int64_t(inst.m) * inst.n);

      Location loc = UnknownLoc::get(&ctx);
      int64_t accElements = emitter->getAccElementsPerLane();
      auto lanes = evaluate([&](OpBuilder &b, Value lane) {
        SmallVector<Value> v = {
            emitter->getOperandIndex(b, loc, lane, MmaOperand::A),
            emitter->getOperandFirstK(b, loc, lane, MmaOperand::A),
            emitter->getOperandIndex(b, loc, lane, MmaOperand::B),
            emitter->getOperandFirstK(b, loc, lane, MmaOperand::B),
            emitter->getAccColumn(b, loc, lane)};
        for (int64_t e = 0; e < accElements; ++e)
          v.push_back(emitter->getAccRow(b, loc, lane, e));
        return v;
      });
      // Every element of A, B and D is claimed exactly once.
      std::set<std::pair<int64_t, int64_t>> seenA, seenB, seenD;
      for (unsigned lane = 0; lane < 64; ++lane) {
        const std::vector<int64_t> &v = lanes[lane];
        for (unsigned e = 0; e < a.perLane; ++e) {
          mma::ElementLoc loc = mma::getALoc(inst, 0, v[0], v[1] + e);
          EXPECT_EQ(loc.lane, lane) << "A element " << e;
          EXPECT_EQ(loc.reg * 32 + loc.bit, e * a.bits) << "A element " << e;
          EXPECT_TRUE(seenA.insert({v[0], v[1] + e}).second);
        }
        for (unsigned e = 0; e < bl.perLane; ++e) {
          mma::ElementLoc loc = mma::getBLoc(inst, 0, v[3] + e, v[2]);
          EXPECT_EQ(loc.lane, lane) << "B element " << e;
          EXPECT_EQ(loc.reg * 32 + loc.bit, e * bl.bits) << "B element " << e;
          EXPECT_TRUE(seenB.insert({v[3] + e, v[2]}).second);
        }
        for (int64_t e = 0; e < accElements; ++e) {
          mma::ElementLoc loc = mma::getDLoc(inst, 0, v[5 + e], v[4]);
          EXPECT_EQ(loc.lane, lane) << "D element " << e;
          EXPECT_EQ(loc.reg, e * d.bits / 32) << "D element " << e;
          EXPECT_TRUE(seenD.insert({v[5 + e], v[4]}).second);
        }
      }
      EXPECT_EQ(seenA.size(), size_t(inst.m) * inst.k);
      EXPECT_EQ(seenB.size(), size_t(inst.k) * inst.n);
      EXPECT_EQ(seenD.size(), size_t(inst.m) * inst.n);
      ++checked;
    }
  }
  // gfx908, gfx90a, gfx942 and gfx950 each have a dozen or more such forms.
  EXPECT_GE(checked, 40u);
}

TEST_F(MmaEmitterTest, MfmaEmitsTheInstruction) {
  const ChipInfo *chip = lookupChip("gfx942");
  ASSERT_TRUE(chip);
  const MmaInstruction *inst = chip->lookupMma("v_mfma_f32_32x32x8_f16");
  ASSERT_TRUE(inst);
  for (bool reduced : {false, true}) {
    FailureOr<std::unique_ptr<MmaEmitter>> emitter = createMmaEmitter(
        *inst, 64, reduced, [&] { return emitError(UnknownLoc::get(&ctx)); });
    ASSERT_TRUE(succeeded(emitter));
    Location loc = UnknownLoc::get(&ctx);
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    Type f16 = b.getF16Type(), f32 = b.getF32Type();
    Type operand = (*emitter)->getOperandType(MmaOperand::A, f16);
    EXPECT_EQ(operand, VectorType::get({4}, f16));
    VectorType acc = (*emitter)->getAccType(f32);
    EXPECT_EQ(acc, VectorType::get({16}, f32));
    auto func = func::FuncOp::create(
        b, loc, "mma", b.getFunctionType({operand, operand, acc}, {acc}));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    Value d = (*emitter)->emitMma(b, loc, entry->getArgument(0),
                                  entry->getArgument(1), entry->getArgument(2));
    auto mfma = d.getDefiningOp<amdgpu::MFMAOp>();
    ASSERT_TRUE(mfma);
    EXPECT_EQ(mfma.getM(), 32u);
    EXPECT_EQ(mfma.getN(), 32u);
    EXPECT_EQ(mfma.getK(), 8u);
    EXPECT_EQ(mfma.getBlocks(), 1u);
    EXPECT_EQ(mfma.getReducePrecision(), reduced);
    EXPECT_EQ(d.getType(), acc);
  }
}

TEST_F(MmaEmitterTest, OtherFamiliesAndWaveSizesAreDiagnosed) {
  const ChipInfo *rdna = lookupChip("gfx1100");
  ASSERT_TRUE(rdna);
  const MmaInstruction *wmma = rdna->lookupMma("v_wmma_f32_16x16x16_f16");
  ASSERT_TRUE(wmma);
  std::string message;
  EXPECT_FALSE(create(*wmma, 32, message));
  EXPECT_NE(message.find("no emitter for v_wmma_f32_16x16x16_f16"),
            std::string::npos)
      << message;

  const MmaInstruction *mfma =
      lookupChip("gfx942")->lookupMma("v_mfma_f32_16x16x16_f16");
  ASSERT_TRUE(mfma);
  message.clear();
  EXPECT_FALSE(create(*mfma, 32, message));
  EXPECT_NE(message.find("wave64"), std::string::npos) << message;
}

} // namespace
