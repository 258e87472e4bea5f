//===- SelectConfigTuneTest.cpp - crest-select-config{tune} --------------===//
//
// The pass's side of tuning with a scripted ConfigMeasurer: which
// candidates it asks for, in which order, what it keeps, what it records,
// and what it says when measuring fails.
//
//===----------------------------------------------------------------------===//

#include "crest/Dialect/Crest/IR/CrestOps.h"
#include "crest/Dialect/Crest/IR/Tuning.h"
#include "crest/Codegen/Transforms/ConfigMeasurer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

#include <functional>

using namespace mlir;
using namespace crest;

namespace {

/// Answers measure() from a script: the i-th call gets script(i).
class ScriptedMeasurer : public ConfigMeasurer {
public:
  using Script = std::function<llvm::Expected<ConfigMeasurement>(unsigned)>;
  explicit ScriptedMeasurer(Script script) : script(std::move(script)) {}

  llvm::Error checkTarget(TargetAttr target) override {
    if (!targetError.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     targetError);
    return llvm::Error::success();
  }
  llvm::Expected<ConfigMeasurement> measure(ContractionOpInterface op,
                                            ConfigAttr config) override {
    calls.push_back(config);
    return script(calls.size() - 1);
  }

  Script script;
  std::string targetError;
  std::vector<ConfigAttr> calls;
};

llvm::Expected<ConfigMeasurement> us(double microseconds, bool cached = false) {
  return ConfigMeasurement{microseconds, cached};
}
llvm::Expected<ConfigMeasurement> failure(const char *why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

constexpr const char *kSquare = R"mlir(
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @f(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32>
           : tensor<256x256xf16>, tensor<256x256xf16> -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}
)mlir";

constexpr const char *kSkinny = R"mlir(
module attributes {crest.target = #crest.target<chip = "gfx942">} {
  func.func @f(%a: tensor<16x1024xf16>, %b: tensor<1024x1024xf16>) -> tensor<16x1024xf32> {
    %0 = crest.matmul %a, %b precision <lhs = f16, rhs = f16, acc = f32, out = f32> SYNC
           : tensor<16x1024xf16>, tensor<1024x1024xf16> -> tensor<16x1024xf32>
    return %0 : tensor<16x1024xf32>
  }
}
)mlir";

class SelectConfigTuneTest : public ::testing::Test {
protected:
  SelectConfigTuneTest() {
    context.loadDialect<CrestDialect, func::FuncDialect>();
    context.printOpOnDiagnostic(false);
  }

  /// Runs the pass on `source`; returns the contraction, or null when the
  /// pass failed. Diagnostics go to `diagnostics`, one per line.
  ContractionOpInterface run(llvm::StringRef source, bool tune,
                             std::shared_ptr<ConfigMeasurer> measurer,
                             unsigned candidates = 4, bool explain = false) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return {};
    PassManager pm(&context);
    CrestSelectConfigPassOptions options;
    options.tune = tune;
    options.tuneCandidates = candidates;
    options.explain = explain;
    pm.addPass(createCrestSelectConfigPass(options, std::move(measurer)));
    if (failed(pm.run(*module)))
      return {};
    ContractionOpInterface op;
    module->walk([&](ContractionOpInterface c) { op = c; });
    return op;
  }

  /// The configuration the heuristic selects for `source`.
  ConfigAttr heuristic(llvm::StringRef source) {
    ContractionOpInterface op = run(source, /*tune=*/false, nullptr);
    EXPECT_TRUE(op);
    ConfigAttr config = op ? op.getConfigAttr() : ConfigAttr();
    diagnostics.clear();
    return config;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
};

TEST_F(SelectConfigTuneTest, KeepsTheFastestAndRecordsEveryCandidate) {
  ConfigAttr expected = heuristic(kSquare);
  auto measurer = std::make_shared<ScriptedMeasurer>([](unsigned i) {
    double times[] = {5.0, 3.0, 4.0, 3.0};
    return us(times[i], /*cached=*/i == 2);
  });
  ContractionOpInterface op = run(kSquare, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(diagnostics, "");
  ASSERT_EQ(measurer->calls.size(), 4u);
  // The heuristic's choice is measured first; every candidate once.
  EXPECT_EQ(measurer->calls[0], expected);
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = i + 1; j < 4; ++j)
      EXPECT_NE(measurer->calls[i], measurer->calls[j]);
  // The fastest wins; of two equal times, the earlier.
  EXPECT_EQ(op.getConfigAttr(), measurer->calls[1]);
  std::optional<TuningRecord> record = getTuningRecord(op);
  ASSERT_TRUE(record);
  ASSERT_EQ(record->candidates.size(), 4u);
  EXPECT_EQ(record->chosen, 1u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(record->candidates[i].config, measurer->calls[i]);
  EXPECT_EQ(record->getHeuristic().microseconds, 5.0);
  EXPECT_EQ(record->getChosen().microseconds, 3.0);
  EXPECT_TRUE(record->candidates[2].cached);
  EXPECT_FALSE(record->candidates[1].cached);
  EXPECT_DOUBLE_EQ(record->getGain(), 5.0 / 3.0);
}

TEST_F(SelectConfigTuneTest, TheHeuristicWinsTies) {
  ConfigAttr expected = heuristic(kSquare);
  auto measurer =
      std::make_shared<ScriptedMeasurer>([](unsigned) { return us(2.0); });
  ContractionOpInterface op = run(kSquare, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(op.getConfigAttr(), expected);
  EXPECT_EQ(getTuningRecord(op)->chosen, 0u);
}

TEST_F(SelectConfigTuneTest, TuneCandidatesBoundsTheMeasurements) {
  auto measurer = std::make_shared<ScriptedMeasurer>(
      [](unsigned i) { return us(10.0 - i); });
  ContractionOpInterface op = run(kSquare, true, measurer, /*candidates=*/2);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(measurer->calls.size(), 2u);
  EXPECT_EQ(op.getConfigAttr(), measurer->calls[1]);
}

TEST_F(SelectConfigTuneTest, ZeroCandidatesIsAnError) {
  auto measurer =
      std::make_shared<ScriptedMeasurer>([](unsigned) { return us(1.0); });
  EXPECT_FALSE(run(kSquare, true, measurer, /*candidates=*/0));
  EXPECT_EQ(diagnostics,
            "crest-select-config: 'tune-candidates' must be at least 1\n");
}

TEST_F(SelectConfigTuneTest, AFailedCandidateIsLeftOut) {
  auto measurer = std::make_shared<ScriptedMeasurer>([](unsigned i) {
    if (i == 1)
      return failure("does not compile: LDS");
    return us(4.0 - i);
  });
  ContractionOpInterface op = run(kSquare, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(diagnostics, "tuning leaves out " +
                             describeConfig(measurer->calls[1]) +
                             ": does not compile: LDS\n");
  std::optional<TuningRecord> record = getTuningRecord(op);
  ASSERT_EQ(record->candidates.size(), 3u);
  EXPECT_EQ(record->candidates[1].config, measurer->calls[2]);
  EXPECT_EQ(op.getConfigAttr(), measurer->calls[3]);
  EXPECT_EQ(record->chosen, 2u);
}

TEST_F(SelectConfigTuneTest, AFailedHeuristicIsKeptUntuned) {
  ConfigAttr expected = heuristic(kSquare);
  auto measurer = std::make_shared<ScriptedMeasurer>([](unsigned i) {
    if (i == 0)
      return failure("the emulator fails");
    return us(1.0);
  });
  ContractionOpInterface op = run(kSquare, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(measurer->calls.size(), 1u);
  EXPECT_EQ(op.getConfigAttr(), expected);
  EXPECT_FALSE(getTuningRecord(op));
  EXPECT_EQ(diagnostics, "not tuned: the heuristic's configuration (" +
                             describeConfig(expected) +
                             ") could not be measured: the emulator fails\n");
}

TEST_F(SelectConfigTuneTest, TheOtherScopeComesAfterTheHeuristicsOwn) {
  // A transposed (N x K) rhs: not the skinny path, whose candidates would
  // come first.
  std::string source = kSkinny;
  source.replace(source.find("SYNC"), 4, "");
  source.replace(source.find("%b precision"), 12,
                 "%b transpose_rhs precision");
  ConfigAttr expected = heuristic(source);
  ASSERT_EQ(expected.getScope(), SyncScope::Wavefront);
  auto measurer = std::make_shared<ScriptedMeasurer>(
      [](unsigned i) { return us(1.0 + i); });
  ContractionOpInterface op = run(source, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  ASSERT_EQ(measurer->calls.size(), 4u);
  EXPECT_EQ(measurer->calls[0], expected);
  // Three of the four measurements go to the heuristic's own (wavefront)
  // scope, the last to the other scope's best.
  EXPECT_EQ(measurer->calls[1].getScope(), SyncScope::Wavefront);
  EXPECT_EQ(measurer->calls[2].getScope(), SyncScope::Wavefront);
  EXPECT_EQ(measurer->calls[3].getScope(), SyncScope::Workgroup);
  EXPECT_EQ(measurer->calls[3].getStages(), 2u);
}

TEST_F(SelectConfigTuneTest, ASyncAttributeFixesTheScope) {
  std::string source = kSkinny;
  source.replace(source.find("SYNC"), 4,
                 "sync <scope = wavefront, stages = 1>");
  auto measurer = std::make_shared<ScriptedMeasurer>(
      [](unsigned i) { return us(1.0 + i); });
  ContractionOpInterface op = run(source, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  // The four measured are all wavefront-scope candidates.
  ASSERT_EQ(measurer->calls.size(), 4u);
  for (ConfigAttr config : measurer->calls)
    EXPECT_EQ(config.getScope(), SyncScope::Wavefront);
}

TEST_F(SelectConfigTuneTest, AnExplicitConfigIsNotMeasured) {
  std::string source = kSquare;
  source.replace(source.find("out = f32>") + 10, 0,
                 " config <mma = \"v_mfma_f32_32x32x8_f16\", workgroup_tile "
                 "= [64, 64, 32], wave_tile = [32, 32], scope = workgroup, "
                 "stages = 2>");
  auto measurer =
      std::make_shared<ScriptedMeasurer>([](unsigned) { return us(1.0); });
  ContractionOpInterface op = run(source, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_TRUE(measurer->calls.empty());
  EXPECT_FALSE(getTuningRecord(op));
}

TEST_F(SelectConfigTuneTest, ExplainSaysWhatTuningChose) {
  auto measurer = std::make_shared<ScriptedMeasurer>([](unsigned i) {
    double times[] = {5.0, 4.0, 2.5, 6.0};
    return us(times[i]);
  });
  ContractionOpInterface op = run(kSquare, true, measurer, 4, /*explain=*/true);
  ASSERT_TRUE(op) << diagnostics;
  std::string tuned = "tuned over 4 candidate(s): the heuristic's " +
                      describeConfig(measurer->calls[0]) + " takes 5.000 us, " +
                      describeConfig(measurer->calls[2]) +
                      " 2.500 us (2.00x)\n";
  EXPECT_NE(diagnostics.find(tuned), std::string::npos) << diagnostics;
  // The choice remark describes the tuned configuration.
  ConfigAttr chosen = measurer->calls[2];
  EXPECT_NE(diagnostics.find("selected " + chosen.getMma().str() + ", tiles " +
                             std::to_string(chosen.getTileM()) + "x" +
                             std::to_string(chosen.getTileN())),
            std::string::npos)
      << diagnostics;
}

TEST_F(SelectConfigTuneTest, WithoutAMeasurerTheHeuristicStays) {
  ConfigAttr expected = heuristic(kSquare);
  ContractionOpInterface op = run(kSquare, true, nullptr);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_EQ(op.getConfigAttr(), expected);
  EXPECT_FALSE(getTuningRecord(op));
  EXPECT_EQ(diagnostics,
            "crest-select-config: 'tune' has no measurer to time candidates "
            "with (crest-compile --tune provides the emulator's timing "
            "model); keeping the heuristic's choices\n");
}

TEST_F(SelectConfigTuneTest, AnUntimedTargetIsAWarning) {
  ConfigAttr expected = heuristic(kSquare);
  auto measurer =
      std::make_shared<ScriptedMeasurer>([](unsigned) { return us(1.0); });
  measurer->targetError = "gfx942 has no timing model here";
  ContractionOpInterface op = run(kSquare, true, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_TRUE(measurer->calls.empty());
  EXPECT_EQ(op.getConfigAttr(), expected);
  EXPECT_EQ(diagnostics, "not tuning: gfx942 has no timing model here; "
                         "keeping the heuristic's choices\n");
}

TEST_F(SelectConfigTuneTest, TuneOffMeasuresNothing) {
  auto measurer =
      std::make_shared<ScriptedMeasurer>([](unsigned) { return us(1.0); });
  ContractionOpInterface op = run(kSquare, false, measurer);
  ASSERT_TRUE(op) << diagnostics;
  EXPECT_TRUE(measurer->calls.empty());
  EXPECT_FALSE(getTuningRecord(op));
}

} // namespace
