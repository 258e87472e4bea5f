//===- TimingTest.cpp - The timing model against microbenchmarks ----------===//
//
// Hand-written kernels whose time is known from the chip table, the ISA's
// wait-state rules or published measurements (docs/Timing.md,
// "Validation"), and relations that hold for any parameters: more work
// never costs less, a bank conflict or an unneeded barrier never speeds a
// kernel up, the same input gives the same time.
//
//===----------------------------------------------------------------------===//

#include "AsmKernel.h"

#include "crest/Target/ChipTable.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace crest;
using namespace crest::emu;
using namespace crest::emu::test;

namespace {

struct Timed {
  KernelTiming timing;
  LaunchResult result;
};

/// Runs `k` with the timing model on `buffers` (one 4 KiB buffer when
/// empty).
Timed timeKernel(const AsmKernel &k, LaunchConfig config = {},
                 std::vector<std::vector<uint8_t>> buffers = {},
                 TimingOptions options = {}) {
  auto kernel = LoadedKernel::build(k);
  if (!kernel) {
    ADD_FAILURE() << llvm::toString(kernel.takeError());
    return {};
  }
  if (buffers.empty())
    buffers.assign(k.numBuffers, std::vector<uint8_t>(4096, 1));
  config.timing = options;
  config.detectRaces = false;
  auto result = (*kernel)->run(buffers, config);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  if (!result->timing) {
    ADD_FAILURE() << "no timing";
    return {};
  }
  return {*result->timing, *result};
}

const TimingParams &params(llvm::StringRef chip) {
  return *lookupChip(chip)->timing;
}

/// The 32x32x8 f16 MFMA as `chip` spells it.
std::string mfma32(llvm::StringRef chip) {
  return chip == "gfx942" ? "v_mfma_f32_32x32x8_f16" : "v_mfma_f32_32x32x8f16";
}

unsigned mfma32Cycles(llvm::StringRef chip) {
  const ChipInfo *c = lookupChip(chip);
  for (const MmaInstruction &inst : c->mmaInstructions)
    if (inst.mnemonic == mfma32(chip))
      return inst.cycles;
  ADD_FAILURE() << "no 32x32x8 f16 MFMA on " << chip.str();
  return 0;
}

/// A loop of `iterations` around `body`.
std::string loop(unsigned iterations, const std::string &body) {
  return llvm::formatv(R"(
  s_mov_b32 s20, {0}
.Lloop:
{1}
  s_sub_u32 s20, s20, 1
  s_cmp_lg_u32 s20, 0
  s_cbranch_scc1 .Lloop
)",
                       iterations, body)
      .str();
}

/// `count` independent MFMAs, each accumulating into its own AGPRs.
std::string independentMfmas(llvm::StringRef chip, unsigned count) {
  std::string s;
  for (unsigned i = 0; i < count; ++i)
    s += llvm::formatv("  {0} a[{1}:{2}], v[0:1], v[2:3], a[{1}:{2}]\n",
                       mfma32(chip), 16 * i, 16 * i + 15)
             .str();
  return s;
}

class TimingChip : public ::testing::TestWithParam<const char *> {};

//===----------------------------------------------------------------------===//
// MFMA pipes
//===----------------------------------------------------------------------===//

// Independent MFMAs issue back to back: the SIMD's matrix pipe is busy all
// the time, one instruction per the chip table's cycles.
TEST_P(TimingChip, IndependentMfmasReachTheChipTableRate) {
  std::string chip = GetParam();
  AsmKernel k;
  k.chip = chip;
  k.body = loop(64, independentMfmas(chip, 8));
  Timed t = timeKernel(k);
  unsigned cycles = mfma32Cycles(chip);
  uint64_t mfmas = 64 * 8;
  EXPECT_EQ(t.timing.mfmaInstructions, mfmas);
  double perMfma = double(t.timing.cycles) / double(mfmas);
  EXPECT_NEAR(perMfma, cycles, 0.05 * cycles) << t.timing.cycles;
  // One wave on one SIMD of one CU: that SIMD's pipe is busy > 95 %.
  EXPECT_GT(double(t.timing.mfmaBusyCycles) / double(t.timing.cycles), 0.95);
  EXPECT_TRUE(t.timing.hazards.empty());
  EXPECT_EQ(t.timing.bound, "MFMA");
}

// Four waves of one workgroup land on the four SIMDs and run in parallel.
TEST_P(TimingChip, FourWavesUseFourSimds) {
  std::string chip = GetParam();
  AsmKernel k;
  k.chip = chip;
  k.body = loop(32, independentMfmas(chip, 8));
  Timed one = timeKernel(k);
  LaunchConfig four;
  four.block = {256, 1, 1};
  Timed all = timeKernel(k, four);
  EXPECT_EQ(all.timing.mfmaInstructions, 4 * one.timing.mfmaInstructions);
  EXPECT_NEAR(double(all.timing.cycles), double(one.timing.cycles),
              0.05 * double(one.timing.cycles));
}

// An MFMA whose A operand is the previous MFMA's result needs passes + 3
// wait states (LLVM GCNHazardRecognizer). Without them the hardware would
// read a stale value: the model reports the hazard and holds the consumer
// back as long as the rule says, so the code padded with s_nop takes the
// same time and reports nothing.
TEST_P(TimingChip, DependentMfmasPayTheDocumentedWait) {
  std::string chip = GetParam();
  unsigned passes = mfma32Cycles(chip) / 4;
  unsigned required = passes + params(chip).xdlSrcABOffset;
  std::string dependent =
      llvm::formatv("  {0} v[16:31], v[16:17], v[2:3], v[32:47]\n",
                    mfma32(chip))
          .str();
  std::string padded = dependent;
  for (unsigned left = required; left > 0;) {
    unsigned n = std::min(left, 8u);
    padded += llvm::formatv("  s_nop {0}\n", n - 1).str();
    left -= n;
  }
  AsmKernel hazardous;
  hazardous.chip = chip;
  hazardous.body = loop(32, dependent + dependent);
  AsmKernel safe = hazardous;
  safe.body = loop(32, padded + padded);
  Timed bad = timeKernel(hazardous);
  Timed good = timeKernel(safe);
  ASSERT_FALSE(bad.timing.hazards.empty());
  EXPECT_EQ(bad.timing.hazards[0].required, required);
  EXPECT_EQ(bad.timing.hazards[0].rule, "MFMA write VGPR -> MFMA SrcA/B read");
  EXPECT_TRUE(good.timing.hazards.empty());
  // Each MFMA waits for `required` wait states (4 cycles each) after the
  // previous one's issue: slower than the pipe alone.
  double perMfma = double(bad.timing.cycles) / 64;
  EXPECT_GE(perMfma, 4.0 * (required + 1) * 0.95);
  EXPECT_GT(perMfma, mfma32Cycles(chip));
  // Held back exactly as the rule says, the hazardous code is never faster
  // than the padded one, which also pays for its loop instructions (3
  // SALU issues and a taken branch per two MFMAs) on top of the nops.
  EXPECT_LE(bad.timing.cycles, good.timing.cycles);
  EXPECT_LE(double(good.timing.cycles - bad.timing.cycles) / 32,
            4.0 * 3 + params(chip).branchCycles + 4);
  EXPECT_GT(good.timing.stallCycles[unsigned(Stall::Sleep)], 0u);
  EXPECT_GT(bad.timing.stallCycles[unsigned(Stall::Dependency)], 0u);
}

// A VALU reading an MFMA result also waits (passes + 3 on both chips for
// XDL MFMAs).
TEST_P(TimingChip, ValuReadOfMfmaResultIsAHazardWithoutWaitStates) {
  std::string chip = GetParam();
  AsmKernel k;
  k.chip = chip;
  k.body = llvm::formatv("  {0} v[16:31], v[0:1], v[2:3], v[32:47]\n"
                         "  v_add_f32_e32 v50, v16, v16\n",
                         mfma32(chip))
               .str();
  Timed t = timeKernel(k);
  ASSERT_EQ(t.timing.hazards.size(), 1u);
  EXPECT_EQ(t.timing.hazards[0].rule, "MFMA write VGPR -> VALU/VMEM/LDS read");
  EXPECT_EQ(t.timing.hazards[0].required,
            mfma32Cycles(chip) / 4 + params(chip).xdlReadOffset);
  EXPECT_EQ(t.timing.hazards[0].actual, 0u);
}

//===----------------------------------------------------------------------===//
// LDS
//===----------------------------------------------------------------------===//

/// `waves` waves each reading LDS with `op` (lane address lane * `stride`
/// bytes) in `blocks` blocks of `perBlock` reads, each block closed by an
/// s_waitcnt.
Timed ldsReads(const std::string &chip, const std::string &op,
               unsigned stride, unsigned blocks, unsigned perBlock,
               unsigned waves = 1) {
  AsmKernel k;
  k.chip = chip;
  k.ldsBytes = 65536;
  std::string body = llvm::formatv("  v_and_b32_e32 v1, 63, v0\n"
                                   "  v_mul_u32_u24_e32 v1, {0}, v1\n",
                                   stride)
                         .str();
  std::string block;
  for (unsigned i = 0; i < perBlock; ++i)
    block += "  " + op + "\n";
  body += loop(blocks, block + "  s_waitcnt lgkmcnt(0)\n");
  k.body = body;
  LaunchConfig config;
  config.block = {64 * waves, 1, 1};
  return timeKernel(k, config);
}

/// Cycles per read in the steady state: the difference between blocks of
/// 12 and of 6 reads, so that the latency of each block's last read, the
/// loop and the launch drop out.
double cyclesPerRead(const std::string &chip, const std::string &op,
                     unsigned stride, unsigned waves = 1) {
  unsigned blocks = 16;
  Timed six = ldsReads(chip, op, stride, blocks, 6, waves);
  Timed twelve = ldsReads(chip, op, stride, blocks, 12, waves);
  return double(twelve.timing.cycles - six.timing.cycles) / (blocks * 6);
}

// One wave moves at most 64 bytes per cycle: ds_read_b32 takes 4 cycles,
// ds_read_b128 16; a read whose 64 lanes all hit one bank is serialised to
// 64 cycles (tingqli/pyhip mem_latency, MI308X: 4, 16 and 64 cycles per
// instruction).
TEST_P(TimingChip, LdsBandwidthAndConflictsPerInstruction) {
  std::string chip = GetParam();
  EXPECT_NEAR(cyclesPerRead(chip, "ds_read_b32 v2, v1", 4), 4, 0.5);
  EXPECT_NEAR(cyclesPerRead(chip, "ds_read_b128 v[2:5], v1", 16), 16, 1.0);
  EXPECT_NEAR(cyclesPerRead(chip, "ds_read_b32 v2, v1", 128), 64, 4.0);
  Timed clean = ldsReads(chip, "ds_read_b32 v2, v1", 4, 4, 8);
  Timed conflict = ldsReads(chip, "ds_read_b32 v2, v1", 128, 4, 8);
  EXPECT_EQ(clean.timing.ldsBankConflictRate, 0);
  EXPECT_GT(conflict.timing.ldsBankConflictRate, 0.9);
}

// Four waves share the CU's 128 bytes per cycle: a ds_read_b128 each
// (1 KiB) takes 8 cycles of the CU's LDS, so four waves reading together
// take 32 cycles per round, not 16. (The model reaches about 89 % of the
// peak: a wave whose SIMD's issue cycle comes one cycle after the pipe
// frees leaves that cycle idle.)
TEST_P(TimingChip, LdsBandwidthIsSharedByTheCu) {
  std::string chip = GetParam();
  double one = cyclesPerRead(chip, "ds_read_b128 v[2:5], v1", 16, 1);
  double four = cyclesPerRead(chip, "ds_read_b128 v[2:5], v1", 16, 4);
  double bytesPerCycle = 4.0 * 1024 / four;
  EXPECT_LE(bytesPerCycle, params(chip).ldsBytesPerCycle * 1.01);
  EXPECT_GT(bytesPerCycle, params(chip).ldsBytesPerCycle * 0.85);
  EXPECT_GT(four, one);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// A single lane chasing `steps` pointers through `buffer` (each dword is
/// the byte offset of the next), eight loads per loop iteration.
Timed chase(const std::string &chip, std::vector<uint32_t> buffer,
            unsigned steps) {
  EXPECT_TRUE(steps >= 8 && steps % 8 == 0) << "the loop runs steps / 8 times";
  AsmKernel k;
  k.chip = chip;
  std::string eight;
  for (unsigned i = 0; i < 8; ++i)
    eight += "  global_load_dword v1, v1, s[4:5]\n  s_waitcnt vmcnt(0)\n";
  k.body = "  v_mov_b32_e32 v1, 0\n" + loop(steps / 8, eight);
  LaunchConfig config;
  config.block = {1, 1, 1};
  std::vector<std::vector<uint8_t>> buffers = {toBytes(buffer)};
  return timeKernel(k, config, buffers);
}

/// A chain visiting `lines` cache lines of `lineBytes` in a fixed
/// pseudo-random order, `passes` times over.
std::vector<uint32_t> chain(unsigned lines, unsigned lineBytes) {
  std::vector<uint32_t> order(lines);
  for (unsigned i = 0; i < lines; ++i)
    order[i] = i;
  uint64_t state = 12345;
  for (unsigned i = lines - 1; i > 0; --i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[(state >> 33) % (i + 1)]);
  }
  std::vector<uint32_t> buffer(size_t(lines) * lineBytes / 4, 0xdeadbeef);
  for (unsigned i = 0; i < lines; ++i)
    buffer[size_t(order[i]) * lineBytes / 4] =
        order[(i + 1) % lines] * lineBytes;
  return buffer;
}

// Pointer-chase latencies per level (RRZE gpu-benches gpu-latency on
// MI300X at 2.09 GHz: L1 ~118 cycles = 56 ns, L2 ~212 = 101 ns, Infinity
// Cache 454-534 = 217-256 ns, HBM 876-907 = 419-434 ns). The time per step
// is measured as the difference of two chases, so the launch and the first
// pass drop out; it must be within 25 % of the measurement.
TEST(Timing, PointerChaseReproducesTheCacheLatencies) {
  std::string chip = "gfx942";
  const TimingParams &p = params(chip);
  unsigned line = p.cacheLineBytes;
  double clock = p.effectiveClockMhz;
  auto stepNs = [&](unsigned lines, unsigned warmSteps, unsigned steps) {
    std::vector<uint32_t> buffer = chain(lines, line);
    Timed a = chase(chip, buffer, warmSteps);
    Timed b = chase(chip, buffer, warmSteps + steps);
    return double(b.timing.cycles - a.timing.cycles) / steps / clock * 1e3;
  };
  // 64 lines (8 KiB) stay in the L1.
  EXPECT_NEAR(stepNs(64, 64, 256), 56, 0.25 * 56);
  // 8192 lines (1 MiB) overflow the 32 KiB L1 and stay in the 4 MiB L2.
  EXPECT_NEAR(stepNs(8192, 8192, 4096), 101, 0.25 * 101);
  // 65536 lines (8 MiB) overflow the L2 and stay in the Infinity Cache.
  EXPECT_NEAR(stepNs(65536, 65536, 8192), 236, 0.25 * 236);
  // Lines touched for the first time come from HBM.
  EXPECT_NEAR(stepNs(65536, 8, 8192), 426, 0.25 * 426);
}

/// A read kernel: each work-item loads 8 bytes per iteration from its own
/// stream and adds it up, `iterations` times, with `mfmas` independent
/// 32x32x8 f16 MFMAs per load (32 FLOP per loaded byte each); the
/// workgroup's LDS allocation sets how many workgroups (of 4 waves) a CU
/// holds.
Timed stream(unsigned workgroups, unsigned ldsBytes, unsigned iterations,
             unsigned mfmas = 0) {
  std::string work;
  for (unsigned i = 0; i < mfmas; ++i)
    work += llvm::formatv("  v_mfma_f32_32x32x8_f16 v[{0}:{1}], v[10:11], "
                          "v[12:13], v[{0}:{1}]\n",
                          16 + 16 * (i % 2), 31 + 16 * (i % 2))
                .str();
  AsmKernel k;
  k.chip = "gfx942";
  k.ldsBytes = ldsBytes;
  k.vgprs = 64; // registers do not limit occupancy
  k.body = llvm::formatv(R"(
  v_and_b32_e32 v5, 0x3ff, v0
  s_lshl_b32 s21, s2, 8
  v_add_u32_e32 v5, s21, v5
  v_and_b32_e32 v6, 63, v5
  v_and_b32_e32 v7, 0xffffffc0, v5
  v_mul_lo_u32 v7, v7, {0}
  v_add_u32_e32 v7, v7, v6
  v_lshlrev_b32_e32 v1, 3, v7
  v_mov_b32_e32 v8, 0
)",
                         iterations)
               .str() +
           loop(iterations, R"(
  global_load_dwordx2 v[2:3], v1, s[4:5]
)" + work + R"(
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v8, v8, v2
  v_add_u32_e32 v1, 0x200, v1
)");
  LaunchConfig config;
  config.grid = {workgroups, 1, 1};
  config.block = {256, 1, 1};
  std::vector<std::vector<uint8_t>> buffers = {
      std::vector<uint8_t>(size_t(workgroups) * 256 * 8 * iterations, 1)};
  TimingOptions options;
  options.sampleOnly = true;
  return timeKernel(k, config, buffers, options);
}

// Read bandwidth against occupancy (RRZE gpu-benches gpu-stream on MI300X:
// 12.5 % occupancy 1.05 TB/s, 25 % 1.96, 50 % 3.10, 100 % 4.2): within
// 25 %. Occupancy is set through LDS: 64, 32, 16 and 8 KiB per workgroup of
// 4 waves give 1, 2, 4 and 8 waves per SIMD.
TEST(Timing, StreamingBandwidthFollowsOccupancy) {
  const unsigned cus = params("gfx942").computeUnits;
  struct Point {
    unsigned wavesPerSimd;
    double terabytesPerSecond;
  } points[] = {{1, 1.05}, {2, 1.96}, {4, 3.10}, {8, 4.2}};
  unsigned iterations = 32;
  double previous = 0;
  for (const Point &point : points) {
    unsigned workgroups = cus * point.wavesPerSimd;
    Timed t = stream(workgroups, 65536 / point.wavesPerSimd, iterations);
    EXPECT_EQ(t.timing.wavesPerSimd, point.wavesPerSimd);
    double bytes = double(workgroups) * 256 * 8 * iterations;
    double tbs = bytes / (t.timing.microseconds * 1e-6) / 1e12;
    EXPECT_NEAR(tbs, point.terabytesPerSecond,
                0.25 * point.terabytesPerSecond)
        << point.wavesPerSimd << " waves per SIMD";
    EXPECT_GT(tbs, previous) << "more occupancy never lowers bandwidth here";
    previous = tbs;
  }
}

// A kernel that re-reads L1-resident lines with 16-byte loads is limited by
// the CU's texture path (64 lanes / 4 addresses per cycle: 16 cycles per
// load), a bandwidth, and the report says so.
TEST(Timing, TexturePathBoundKernelIsReportedBandwidthBound) {
  AsmKernel k;
  k.chip = "gfx942";
  k.vgprs = 64;
  k.body = R"(
  v_and_b32_e32 v5, 63, v0
  v_lshlrev_b32_e32 v1, 4, v5
)" + loop(64, R"(
  global_load_dwordx4 v[2:5], v1, s[4:5]
  global_load_dwordx4 v[6:9], v1, s[4:5]
  global_load_dwordx4 v[10:13], v1, s[4:5]
  global_load_dwordx4 v[14:17], v1, s[4:5]
  s_waitcnt vmcnt(0)
)");
  LaunchConfig config;
  config.grid = {1, 1, 1};
  config.block = {1024, 1, 1};
  Timed t = timeKernel(k, config);
  // 16 waves x 64 iterations x 4 loads, 16 cycles each.
  EXPECT_GE(t.timing.cycles, 16u * 64 * 4 * 16);
  EXPECT_EQ(t.timing.bound, "bandwidth") << t.timing.boundReason;
  EXPECT_NE(t.timing.boundReason.find("texture path busy"), std::string::npos)
      << t.timing.boundReason;
}

// The roofline: at full occupancy, a kernel that does more matrix work per
// byte it streams from HBM takes as long as its bytes need until its
// arithmetic intensity reaches the ridge, peak FLOP rate / bandwidth, and
// then grows with the work. The measured MI300X figures put the ridge at
// 654 TFLOP/s / 4.2 TB/s, about 160 FLOP per byte (the notes' 170-250 with
// the peak clock): here 32 FLOP per byte per MFMA, so the bend comes between
// 4 and 8 MFMAs per load.
TEST(Timing, RooflineIsFlatWhileMemoryBoundThenBendsAtTheRidge) {
  unsigned iterations = 16;
  std::vector<std::pair<unsigned, Timed>> points;
  for (unsigned mfmas : {0u, 1u, 2u, 16u, 32u})
    points.emplace_back(
        mfmas, stream(params("gfx942").computeUnits * 8, 8192, iterations,
                      mfmas));
  double base = points[0].second.timing.microseconds;
  // Flat while memory-bound: 0, 1 and 2 MFMAs per load (64 FLOP/byte).
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_NEAR(points[i].second.timing.microseconds, base, 0.15 * base)
        << points[i].first << " MFMAs per load";
    EXPECT_NE(points[i].second.timing.bound, "MFMA") << points[i].first;
  }
  // Past the ridge: MFMA-bound, time proportional to the work.
  const Timed &t16 = points[3].second, &t32 = points[4].second;
  EXPECT_EQ(t16.timing.bound, "MFMA");
  EXPECT_EQ(t32.timing.bound, "MFMA");
  EXPECT_NEAR(t32.timing.microseconds / t16.timing.microseconds, 2.0, 0.2);
  // The ridge: extrapolating the MFMA-bound line back to the memory-bound
  // time gives the intensity where they meet.
  double perMfma = (t32.timing.microseconds - t16.timing.microseconds) / 16;
  double ridgeMfmas = base / perMfma;
  double ridgeFlopPerByte = 32 * ridgeMfmas;
  // The figures, for the record (--gtest_output=xml).
  for (auto &[mfmas, t] : points)
    RecordProperty("us_at_" + std::to_string(mfmas) + "_mfmas",
                   std::to_string(t.timing.microseconds));
  RecordProperty("ridge_flop_per_byte", std::to_string(ridgeFlopPerByte));
  EXPECT_GT(ridgeFlopPerByte, 100);
  EXPECT_LT(ridgeFlopPerByte, 300);
}

//===----------------------------------------------------------------------===//
// Launch and the device
//===----------------------------------------------------------------------===//

// An empty kernel costs the launch overhead and next to nothing else.
TEST_P(TimingChip, EmptyKernelCostsTheLaunchOverhead) {
  std::string chip = GetParam();
  AsmKernel k;
  k.chip = chip;
  k.body = "";
  Timed t = timeKernel(k);
  EXPECT_LT(t.timing.microseconds, 0.1);
  EXPECT_NEAR(t.timing.totalMicroseconds(), params(chip).launchOverheadUs,
              0.1);
  EXPECT_EQ(t.timing.bound, "launch");
}

// A tight MFMA loop on every CU reaches the measured "max achievable" rate:
// on gfx942 654 TFLOP/s in f16 (AMD's max-achievable-FLOPs blog), on gfx90a
// 88.7 % of peak (160.5 of 181 TFLOP/s for the MI200 bf16 loop).
TEST_P(TimingChip, TightMfmaLoopReachesTheMeasuredRate) {
  std::string chip = GetParam();
  const TimingParams &p = params(chip);
  AsmKernel k;
  k.chip = chip;
  k.body = loop(128, independentMfmas(chip, 8));
  LaunchConfig config;
  config.grid = {p.computeUnits, 1, 1};
  config.block = {256, 1, 1};
  TimingOptions options;
  options.sampleOnly = true;
  Timed t = timeKernel(k, config, {}, options);
  double tflops = t.timing.flops / (t.timing.microseconds * 1e-6) / 1e12;
  double peak = 0;
  const ChipInfo &c = *lookupChip(chip);
  for (const MmaInstruction &inst : c.mmaInstructions)
    if (inst.mnemonic == mfma32(chip))
      peak = double(inst.getOps()) / inst.cycles * c.simdsPerComputeUnit *
             p.computeUnits * p.peakClockMhz * 1e-6;
  double measured = chip == "gfx942" ? 654 : peak * 160.5 / 181;
  EXPECT_NEAR(tflops, measured, 0.03 * measured);
  EXPECT_GT(t.timing.mfmaUtilization, 0.97);
  EXPECT_EQ(t.timing.bound, "MFMA");
}

//===----------------------------------------------------------------------===//
// Relations that hold for any parameters
//===----------------------------------------------------------------------===//

/// A kernel with some of everything: global loads, LDS traffic, VALU and
/// MFMA work, and (optionally) a barrier per iteration.
AsmKernel mixed(const std::string &chip, unsigned iterations, unsigned stride,
                bool barrier) {
  AsmKernel k;
  k.chip = chip;
  k.ldsBytes = 16384;
  std::string body = llvm::formatv(R"(
  v_and_b32_e32 v1, 63, v0
  v_mul_u32_u24_e32 v1, {0}, v1
  v_and_b32_e32 v9, 0x3ff, v0
  v_lshlrev_b32_e32 v9, 2, v9
)",
                                   stride)
                         .str();
  std::string iteration = llvm::formatv(R"(
  global_load_dword v10, v9, s[4:5]
  ds_read_b32 v2, v1
  ds_read_b32 v3, v1 offset:4
  {0} a[0:15], v[4:5], v[6:7], a[0:15]
  v_add_f32_e32 v11, v11, v11
  v_mul_f32_e32 v12, v11, v11
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_write_b32 v1, v10
{1}
)",
                                        mfma32(chip),
                                        barrier ? "  s_waitcnt lgkmcnt(0)\n"
                                                  "  s_barrier"
                                                : "")
                              .str();
  k.body = body + loop(iterations, iteration);
  return k;
}

TEST_P(TimingChip, MoreWorkNeverCostsLess) {
  std::string chip = GetParam();
  LaunchConfig config;
  config.block = {256, 1, 1};
  uint64_t previous = 0;
  for (unsigned iterations : {1u, 2u, 8u, 32u}) {
    Timed t = timeKernel(mixed(chip, iterations, 4, false), config);
    EXPECT_GE(t.timing.cycles, previous) << iterations << " iterations";
    previous = t.timing.cycles;
  }
  // More workgroups, too (up to several rounds over the CUs).
  previous = 0;
  for (unsigned workgroups : {1u, 64u, 400u, 1200u}) {
    LaunchConfig grid = config;
    grid.grid = {workgroups, 1, 1};
    TimingOptions options;
    options.sampleOnly = true;
    Timed t = timeKernel(mixed(chip, 4, 4, false), grid, {}, options);
    EXPECT_GE(t.timing.cycles, previous) << workgroups << " workgroups";
    previous = t.timing.cycles;
  }
}

TEST_P(TimingChip, BankConflictsNeverSpeedAKernelUp) {
  std::string chip = GetParam();
  LaunchConfig config;
  config.block = {256, 1, 1};
  Timed clean = timeKernel(mixed(chip, 16, 4, false), config);
  for (unsigned stride : {8u, 32u, 128u}) {
    Timed conflicted = timeKernel(mixed(chip, 16, stride, false), config);
    EXPECT_GE(conflicted.timing.cycles, clean.timing.cycles)
        << "stride " << stride;
    EXPECT_GT(conflicted.timing.ldsBankConflictRate, 0) << stride;
  }
}

TEST_P(TimingChip, AnUnneededBarrierNeverMakesAKernelFaster) {
  std::string chip = GetParam();
  LaunchConfig config;
  config.block = {256, 1, 1};
  Timed without = timeKernel(mixed(chip, 16, 4, false), config);
  Timed with = timeKernel(mixed(chip, 16, 4, true), config);
  EXPECT_GE(with.timing.cycles, without.timing.cycles);
  EXPECT_GT(with.timing.stallCycles[unsigned(Stall::Barrier)], 0u);
}

TEST_P(TimingChip, TheSameInputGivesTheSameTime) {
  std::string chip = GetParam();
  LaunchConfig config;
  config.block = {256, 1, 1};
  config.grid = {8, 1, 1};
  TimingOptions options;
  options.perPc = true;
  Timed a = timeKernel(mixed(chip, 8, 8, true), config, {}, options);
  Timed b = timeKernel(mixed(chip, 8, 8, true), config, {}, options);
  EXPECT_EQ(a.timing.cycles, b.timing.cycles);
  EXPECT_EQ(a.timing.stallCycles, b.timing.stallCycles);
  ASSERT_EQ(a.timing.perPc.size(), b.timing.perPc.size());
  for (size_t i = 0; i < a.timing.perPc.size(); ++i)
    EXPECT_EQ(a.timing.perPc[i].stallCycles, b.timing.perPc[i].stallCycles);
}

// The per-instruction table accounts for every issue and every stall.
TEST_P(TimingChip, PerPcTableAddsUpToTheTotals) {
  std::string chip = GetParam();
  LaunchConfig config;
  config.block = {256, 1, 1};
  TimingOptions options;
  options.perPc = true;
  Timed t = timeKernel(mixed(chip, 8, 32, true), config, {}, options);
  uint64_t issued = 0, stalls = 0;
  for (const PcStats &row : t.timing.perPc) {
    issued += row.issued;
    stalls += row.totalStallCycles();
  }
  uint64_t totalStalls = 0;
  for (uint64_t s : t.timing.stallCycles)
    totalStalls += s;
  EXPECT_EQ(issued * lookupChip(chip)->simdsPerComputeUnit,
            t.timing.issueCycles);
  EXPECT_EQ(stalls, totalStalls);
  EXPECT_EQ(t.timing.issueCycles + totalStalls, t.timing.waveCycles);
  EXPECT_EQ(issued, t.result.waveInstructions);
}

INSTANTIATE_TEST_SUITE_P(Chips, TimingChip,
                         ::testing::Values("gfx90a", "gfx942"));

// A kernel that never ends fails cleanly once the records reach their
// budget, long before they could exhaust memory.
TEST(Timing, RecordBudgetStopsARunawayKernel) {
  AsmKernel k;
  k.body = ".Lspin:\n  s_branch .Lspin\n";
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(64, 1)};
  LaunchConfig config;
  TimingOptions options;
  options.maxRecords = 10000;
  config.timing = options;
  auto result = (*kernel)->run(buffers, config);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("recorded more than 10000 wave instructions"),
            std::string::npos)
      << message;
}

// Chips without parameters are refused with the chips that have them.
TEST(Timing, ChipWithoutParametersIsAnError) {
  AsmKernel k;
  k.chip = "gfx908";
  auto kernel = LoadedKernel::build(k);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(64, 1)};
  LaunchConfig config;
  config.timing = TimingOptions();
  auto result = (*kernel)->run(buffers, config);
  ASSERT_FALSE(bool(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("no parameters for gfx908"), std::string::npos)
      << message;
  EXPECT_NE(message.find("gfx90a, gfx942"), std::string::npos) << message;
}

} // namespace
