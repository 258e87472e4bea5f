//===- VALUTest.h - Harness of the VALU instruction tests -------*- C++ -*-===//
//
// Runs a few VALU instructions on one full wave (64 lanes) with per-lane
// inputs and returns the per-lane outputs:
//
//   ValuCase c;
//   c.inputs = {a, b};                 // a[lane] -> v10, b[lane] -> v11
//   c.body = "v_add_f32_e32 v40, v10, v11";
//   auto out = runValu(c);             // (*out)[0][lane] = v40
//
// Inputs are loaded with s_load_dwordx16 and v_writelane_b32 (so the tests
// depend on no vector-memory load); outputs v40, v41, ... are poisoned with
// `poison` before the body runs, with EXEC set to `exec` for the body only;
// `epilogue` runs with full EXEC before the stores (to copy SGPR results
// into output VGPRs). The body may use v10-v39 freely and s16-s95; v0-v9 and
// s0-s15 belong to the harness.
//
// Expected values in the tests are computed from the ISA definition by the
// tests themselves, never by calling the emulator's helpers.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_UNITTESTS_EMULATOR_VALUTEST_H
#define CREST_UNITTESTS_EMULATOR_VALUTEST_H

#include "AsmKernel.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace crest::emu::test {

constexpr unsigned kLanes = 64;
using LaneValues = std::vector<uint32_t>;

struct ValuCase {
  std::string chip = "gfx942";
  /// inputs[i][lane] is loaded into v[10 + i].
  std::vector<LaneValues> inputs;
  std::string body;
  /// Outputs v40 .. v[40 + numOutputs - 1] (at most 16).
  unsigned numOutputs = 1;
  uint32_t poison = 0xdeadbeef;
  /// EXEC while the body runs.
  uint64_t exec = ~uint64_t(0);
  /// Runs after the body with full EXEC, before the stores.
  std::string epilogue;
  /// Extra `.amdhsa_*` directives (MODE: denormals, IEEE, round modes).
  std::string directives;
};

/// Runs `c` and returns out[k][lane] = v[40 + k] of each lane.
llvm::Expected<std::vector<LaneValues>> runValu(const ValuCase &c);

/// Assembles `body` into a kernel for `chip` and decodes it (for operand
/// layout checks); the harness's own instructions come first.
llvm::Expected<std::unique_ptr<LoadedKernel>>
buildValuKernel(const std::string &chip, const std::string &body);

/// How an expected value is compared with the result.
enum class Compare : uint8_t {
  Exact,
  F32Ulps, ///< f32 bits within `ulps` units in the last place
  F16Ulps, ///< f16 bits (low half; the high half exact)
  F64Ulps, ///< f64 bits
};

/// One instruction to check: `asmLine` with placeholders {d} (the output
/// VGPR; {D} the output pair for 64-bit results), {a} {b} {c} (v10, v11,
/// v12) and {A} {B} {C} (the pairs v[10:11], v[12:13], v[14:15]).
/// `expect(lane, in)` returns the expected destination (64 bits for a pair);
/// `in` holds the lane's inputs in input order.
struct OpCheck {
  std::string asmLine;
  std::function<uint64_t(unsigned lane, const uint32_t *in)> expect;
  bool wide = false; ///< 64-bit destination {D}
  Compare compare = Compare::Exact;
  unsigned ulps = 0;
};

/// Runs `checks` (up to 16 destination registers per kernel) on `inputs`
/// and reports every mismatch with gtest. Inactive lanes (per `exec`) must
/// keep the poison value.
void checkOps(const std::vector<OpCheck> &checks,
              const std::vector<LaneValues> &inputs,
              const std::string &chip = "gfx942",
              const std::string &directives = "", uint64_t exec = ~uint64_t(0));

/// Lane values from a function of the lane index.
LaneValues lanes(const std::function<uint32_t(unsigned)> &f);
/// Lane values cycling through `values`.
LaneValues cycle(const std::vector<uint32_t> &values);

inline uint32_t bitsOf(float f) { return llvm::bit_cast<uint32_t>(f); }
inline float floatOf(uint32_t b) { return llvm::bit_cast<float>(b); }
inline uint64_t bitsOf(double d) { return llvm::bit_cast<uint64_t>(d); }
inline double doubleOf(uint64_t b) { return llvm::bit_cast<double>(b); }

/// Splits 64-bit lane values into the low and high dwords (two inputs).
std::vector<LaneValues> split64(const std::vector<uint64_t> &values);
/// Joins two output dwords into 64-bit values.
std::vector<uint64_t> join64(const LaneValues &lo, const LaneValues &hi);

/// A deterministic pseudo-random 32-bit sequence (xorshift).
class Random {
public:
  explicit Random(uint64_t seed) : state(seed ? seed : 1) {}
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return uint32_t(state >> 11);
  }

private:
  uint64_t state;
};

} // namespace crest::emu::test

#endif // CREST_UNITTESTS_EMULATOR_VALUTEST_H
