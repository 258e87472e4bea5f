//===- ScalarTest.h - Helpers for the scalar-instruction tests --*- C++ -*-===//
//
// ScalarKernel builds a kernel body step by step: set SGPRs and SCC, run the
// instructions under test, then record SGPR values (or SCC) together with
// the value the test expects, computed independently by the test. Each
// recorded value is stored by lane-uniform VALU code (v_mov_b32 from the
// SGPR, global_store_dword at a VGPR byte offset from s[4:5]) into its own
// slot of buffer 0, so a single kernel checks hundreds of cases.
//
// The body owns s[10:94]; s95 is scratch for SCC captures. The store
// sequence needs a non-zero EXEC: tests that change EXEC restore it first.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_UNITTESTS_EMULATOR_SCALARTEST_H
#define CREST_UNITTESTS_EMULATOR_SCALARTEST_H

#include "AsmKernel.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace crest::emu::test {

/// The chips every scalar test runs on.
inline const char *const kScalarChips[] = {"gfx942", "gfx90a"};

inline std::string hex(uint64_t value) {
  return llvm::formatv("{0:x-}", value).str();
}

class ScalarKernel {
public:
  explicit ScalarKernel(std::string chip) { kernel.chip = std::move(chip); }

  AsmKernel kernel;
  /// Extra buffers after the result buffer (loaded into s[6:7], s[8:9]).
  std::vector<std::vector<uint8_t>> inputs;

  /// Appends assembly lines.
  ScalarKernel &operator<<(const std::string &text) {
    body += text;
    body += '\n';
    return *this;
  }

  void set(const std::string &reg, uint32_t value) {
    *this << "  s_mov_b32 " + reg + ", 0x" + hex(value);
  }
  /// Sets s[lo:lo+1] with two 32-bit moves.
  void set64(unsigned lo, uint64_t value) {
    set(sgpr(lo), uint32_t(value));
    set(sgpr(lo + 1), uint32_t(value >> 32));
  }
  void setScc(bool value) {
    *this << (value ? "  s_cmp_eq_u32 0, 0" : "  s_cmp_eq_u32 0, 1");
  }

  /// Records `reg` (any VOP1 source: sN, vcc_lo, exec_hi, m0, ...) and
  /// expects `expected`.
  void expect(const std::string &reg, uint32_t expected,
              const std::string &what) {
    unsigned slot = static_cast<unsigned>(expected_.size());
    *this << "  v_mov_b32 v1, " + reg;
    *this << "  v_mov_b32 v2, " + std::to_string(4 * slot);
    *this << "  global_store_dword v2, v1, s[4:5]";
    expected_.push_back(expected);
    what_.push_back(what + " [" + reg + "]");
  }
  void expect64(unsigned lo, uint64_t expected, const std::string &what) {
    expect(sgpr(lo), uint32_t(expected), what + " (low)");
    expect(sgpr(lo + 1), uint32_t(expected >> 32), what + " (high)");
  }
  /// Records SCC (through s95) and expects `expected`.
  void expectScc(bool expected, const std::string &what) {
    *this << "  s_cselect_b32 s95, 1, 0";
    expect("s95", expected, what + " SCC");
  }

  static std::string sgpr(unsigned n) { return "s" + std::to_string(n); }
  static std::string pair(unsigned lo) {
    return "s[" + std::to_string(lo) + ":" + std::to_string(lo + 1) + "]";
  }

  /// Assembles and runs the kernel on one wave of `lanes` work-items and
  /// checks every recorded value.
  void run(unsigned lanes = 64) {
    std::vector<uint32_t> out;
    std::string error = launch(lanes, out);
    ASSERT_TRUE(error.empty()) << error;
    for (size_t i = 0; i < expected_.size(); ++i)
      EXPECT_EQ(hex(out[i]), hex(expected_[i]))
          << kernel.chip << ": " << what_[i];
  }

  /// Runs a kernel that must fail; returns the error message ("" if it did
  /// not fail).
  std::string runExpectingFailure(unsigned lanes = 64) {
    std::vector<uint32_t> out;
    return launch(lanes, out);
  }

  /// The values recorded by the last run (for tests that check relations).
  std::vector<uint32_t> results;

  size_t numExpectations() const { return expected_.size(); }

private:
  std::string launch(unsigned lanes, std::vector<uint32_t> &out) {
    kernel.numBuffers = 1 + static_cast<unsigned>(inputs.size());
    kernel.body = body;
    auto loaded = LoadedKernel::build(kernel);
    if (!loaded)
      return "build: " + llvm::toString(loaded.takeError());
    // Poison the result slots so unwritten ones show.
    std::vector<uint32_t> poison(std::max<size_t>(expected_.size(), 1),
                                 0xbadc0de5u);
    std::vector<std::vector<uint8_t>> buffers = {toBytes(poison)};
    for (const auto &input : inputs)
      buffers.push_back(input);
    LaunchConfig config;
    config.block = {lanes, 1, 1};
    auto result = (*loaded)->run(buffers, config);
    if (!result)
      return llvm::toString(result.takeError());
    out = fromBytes<uint32_t>(buffers[0]);
    results = out;
    inputs.assign(buffers.begin() + 1, buffers.end());
    return "";
  }

  std::string body;
  std::vector<uint32_t> expected_;
  std::vector<std::string> what_;
};

/// Fixture parameterised by chip name.
class ScalarChipTest : public ::testing::TestWithParam<const char *> {
protected:
  ScalarKernel kernel() const { return ScalarKernel(GetParam()); }
};

/// Runs the TEST_Ps of `Fixture` (derived from ScalarChipTest) on every
/// chip, named Scalar/<Fixture>.<Test>/<chip>.
#define INSTANTIATE_SCALAR_CHIP_TESTS(Fixture)                                 \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      Scalar, Fixture, ::testing::ValuesIn(kScalarChips),                      \
      [](const ::testing::TestParamInfo<const char *> &info) {                 \
        return std::string(info.param);                                        \
      })

} // namespace crest::emu::test

#endif // CREST_UNITTESTS_EMULATOR_SCALARTEST_H
