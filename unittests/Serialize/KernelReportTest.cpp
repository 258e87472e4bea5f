//===- KernelReportTest.cpp - The --report model --------------------------===//
//
// Occupancy numbers are the ones llc-22 prints ("; Occupancy:") for the same
// register and LDS usage; the lit tests (test/tools/crest-compile/report.test)
// compare them on compiled kernels too.
//
//===----------------------------------------------------------------------===//

#include "crest/Serialize/KernelReport.h"

#include "gtest/gtest.h"

using namespace crest;

namespace {

const ChipInfo &chip(llvm::StringRef name) {
  const ChipInfo *info = lookupChip(name);
  EXPECT_NE(info, nullptr) << name.str();
  return *info;
}

TEST(OccupancyTest, RegistersGfx908TakeTheLargerFile) {
  // 36 VGPRs and 16 AGPRs in separate files: 256 / 36 = 7 waves.
  Occupancy occupancy = computeOccupancy(chip("gfx908"), 64, 36, 16, 8192, 256);
  EXPECT_EQ(occupancy.byRegisters, 7u);
  EXPECT_EQ(occupancy.wavesPerSimd, 7u);
  EXPECT_EQ(occupancy.limiter, "registers");
  // 64 AGPRs outweigh 20 VGPRs.
  EXPECT_EQ(computeOccupancy(chip("gfx908"), 64, 20, 64, 0, 64).byRegisters,
            4u);
}

TEST(OccupancyTest, RegistersUnifiedFile) {
  // gfx90a+: .vgpr_count already holds arch + acc; 512 / 456 = 1.
  EXPECT_EQ(computeOccupancy(chip("gfx90a"), 64, 454, 198, 0, 256).wavesPerSimd,
            1u);
  // 128 registers, granule 8: 512 / 128 = 4.
  EXPECT_EQ(computeOccupancy(chip("gfx942"), 64, 128, 0, 0, 1024).wavesPerSimd,
            4u);
  // Few registers: the chip's maximum of 8 waves.
  Occupancy small = computeOccupancy(chip("gfx942"), 64, 3, 0, 0, 64);
  EXPECT_EQ(small.wavesPerSimd, 8u);
  EXPECT_EQ(small.limiter, "waves");
}

TEST(OccupancyTest, Lds) {
  // 24000 bytes per workgroup of 2 waves: 2 groups per 64 KiB CU = 4 waves
  // over 4 SIMDs.
  Occupancy cdna3 = computeOccupancy(chip("gfx942"), 64, 3, 0, 24000, 128);
  EXPECT_EQ(cdna3.byLds, 1u);
  EXPECT_EQ(cdna3.limiter, "LDS");
  // gfx950: 160 KiB in 1280-byte granules: 6 groups.
  EXPECT_EQ(computeOccupancy(chip("gfx950"), 64, 3, 0, 24000, 128).byLds, 3u);
  // 8000 bytes, 64 work-items: 8 groups of one wave over 4 SIMDs.
  EXPECT_EQ(computeOccupancy(chip("gfx942"), 64, 3, 0, 8000, 64).byLds, 2u);
}

TEST(OccupancyTest, RdnaWaveSizes) {
  // gfx1100: 1536 registers in granules of 24 in wave32, 768 / 12 in wave64.
  EXPECT_EQ(computeOccupancy(chip("gfx1100"), 32, 100, 0, 0, 32).byRegisters,
            12u);
  EXPECT_EQ(computeOccupancy(chip("gfx1100"), 64, 100, 0, 0, 64).byRegisters,
            7u);
}

TEST(InstructionCountsTest, CountsOneKernel) {
  const char *assembly = R"(	.text
	.globl	first                           ; -- Begin function first
first:                                  ; @first
; %bb.0:
	s_barrier
	v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15] ; comment
.LBB0_1:
	v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]
	s_cbranch_scc1 .LBB0_1
	; v_mfma_f32_32x32x8_f16 in a comment does not count
	s_endpgm
.Lfunc_end0:
	.size	first, .Lfunc_end0-first
second:
	v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[8:15], v[0:7]
	s_barrier_signal -1
	s_barrier_wait -1
	s_endpgm
.Lfunc_end1:
)";
  InstructionCounts first = countInstructions(assembly, "first");
  EXPECT_TRUE(first.found);
  EXPECT_EQ(first.instructions, 5u);
  EXPECT_EQ(first.matrix, 2u);
  EXPECT_EQ(first.barriers, 1u);
  InstructionCounts second = countInstructions(assembly, "second");
  EXPECT_EQ(second.matrix, 1u);
  EXPECT_EQ(second.barriers, 1u);
  EXPECT_FALSE(countInstructions(assembly, "third").found);
}

TEST(KernelReportTest, MalformedCodeObjectIsAnError) {
  // The report reads code objects with the shared reader
  // (crest/Format/CodeObject.h), so its diagnostics name the module.
  const char *assembly = "k:\n s_endpgm\n.Lfunc_end0:\n";
  for (llvm::StringRef bytes :
       {llvm::StringRef(""), llvm::StringRef("\x7f"
                                             "ELF garbage")}) {
    auto reports = buildKernelReports("m", bytes, assembly, chip("gfx942"), 64);
    ASSERT_FALSE(static_cast<bool>(reports));
    EXPECT_EQ(llvm::toString(reports.takeError()),
              "code object of gpu.module @m: not an ELF file");
  }
}

TEST(OccupancyTest, PartialWorkgroupsPerSimdRoundUp) {
  // One 40000-byte workgroup of 2 waves fits a 64 KiB CU: its 2 waves sit
  // on 2 of the 4 SIMDs, so those run 1 wave each. The config cost model
  // used to divide 1 * 2 / 4 = 0 waves per SIMD here while --report said 1;
  // both now call computeOccupancy.
  Occupancy occupancy = computeOccupancy(chip("gfx942"), 64, 32, 0, 40000, 128);
  EXPECT_EQ(occupancy.byLds, 1u);
  EXPECT_EQ(occupancy.wavesPerSimd, 1u);
  EXPECT_EQ(occupancy.workgroupsPerCu, 1u);
  EXPECT_EQ(occupancy.limiter, "LDS");
}

} // namespace
