//===- KernelResourcesTest.cpp - The LDS layout of GEMM kernels -----------===//

#include "crest/Target/KernelResources.h"

#include "gtest/gtest.h"

using namespace crest;

namespace {

GemmLdsShape shape(int64_t m, int64_t n, int64_t k, int64_t stages,
                   unsigned bits, bool staged = true) {
  GemmLdsShape s;
  s.tileM = m;
  s.tileN = n;
  s.tileK = k;
  s.stages = stages;
  s.lhsBits = s.rhsBits = bits;
  s.accBits = 32;
  s.staged = staged;
  return s;
}

TEST(GemmLdsLayoutTest, RowsArePaddedBySixteenBytes) {
  // The example: a 64x64x16 f16 tile in two stages is 8192 bytes
  // unpadded, 12288 with each 16-element row padded to 24.
  GemmLdsLayout f16 = computeGemmLdsLayout(shape(64, 64, 16, 2, 16));
  EXPECT_EQ(f16.lhs.padElements, 8);
  EXPECT_EQ(f16.lhs.rowElements, 24);
  EXPECT_EQ(f16.lhs.rows, 64);
  EXPECT_EQ(f16.lhs.getBytes(), 2 * 64 * 24 * 2);
  EXPECT_EQ(f16.getStagingBytes(), 12288);
  EXPECT_EQ(f16.getTotalBytes(), 12288);

  // f32 pads 4 elements, fp8 16; the two operands may differ.
  EXPECT_EQ(getLdsRowPadElements(32), 4);
  EXPECT_EQ(getLdsRowPadElements(8), 16);
  GemmLdsShape mixed = shape(32, 128, 32, 1, 8);
  mixed.rhsBits = 32;
  GemmLdsLayout layout = computeGemmLdsLayout(mixed);
  EXPECT_EQ(layout.lhs.getBytes(), 32 * (32 + 16) * 1);
  EXPECT_EQ(layout.rhs.getBytes(), 128 * (32 + 4) * 4);
}

TEST(GemmLdsLayoutTest, WavefrontScopeStagesNothing) {
  GemmLdsLayout layout =
      computeGemmLdsLayout(shape(128, 128, 32, 3, 16, /*staged=*/false));
  EXPECT_EQ(layout.getStagingBytes(), 0);
  EXPECT_EQ(layout.getTotalBytes(), 0);
}

TEST(GemmLdsLayoutTest, SplitKPartialSums) {
  // split_k = 4: three groups of waves keep a 16x64 f32 tile each.
  GemmLdsShape s = shape(16, 64, 32, 1, 16, /*staged=*/false);
  s.splitK = 4;
  GemmLdsLayout layout = computeGemmLdsLayout(s);
  EXPECT_EQ(layout.splitKBytes, 3 * 16 * 64 * 4);
  EXPECT_EQ(layout.getTotalBytes(), 12288);
  // Staged and split: both allocations count.
  s.staged = true;
  EXPECT_EQ(computeGemmLdsLayout(s).getTotalBytes(),
            12288 + 16 * 40 * 2 + 64 * 40 * 2);
}

TEST(AccRegistersTest, PerLane) {
  // A 64x64 f32 wave tile in wave64: 64 registers; f64 takes pairs.
  EXPECT_EQ(getAccRegistersPerLane(64, 64, 64, 32), 64);
  EXPECT_EQ(getAccRegistersPerLane(32, 32, 64, 64), 32);
  // f16 accumulators still take a register each; wave32 doubles the count.
  EXPECT_EQ(getAccRegistersPerLane(16, 16, 64, 16), 4);
  EXPECT_EQ(getAccRegistersPerLane(16, 16, 32, 32), 8);
}

} // namespace
