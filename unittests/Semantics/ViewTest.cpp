//===- ViewTest.cpp - crest/Semantics/View.h --------------------*- C++ -*-===//
//
// Each expectation is the first flat (row-major) index of the slice's
// elements when they form one run, worked out by hand from the shapes; a
// brute-force enumeration of the elements checks every small case too.
//
//===----------------------------------------------------------------------===//

#include "crest/Semantics/View.h"

#include "gtest/gtest.h"

#include <vector>

using crest::getContiguousWindowByteOffset;
using crest::getContiguousWindowOffset;
using crest::isAliasableWindowOffset;

namespace {

TEST(ViewTest, Examples) {
  // The identity.
  EXPECT_EQ(getContiguousWindowOffset({4, 6}, {4, 6}, {0, 0}, {}), 0);
  // Whole rows 2-4 of a 6x8: row 2 starts at element 16.
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3, 8}, {2, 0}, {}), 16);
  // The first token of [1, 128, 256] (offset 0) and token 5 (5 * 256).
  EXPECT_EQ(getContiguousWindowOffset({1, 128, 256}, {1, 1, 256},
                                      {0, 0, 0}, {}), 0);
  EXPECT_EQ(getContiguousWindowOffset({1, 128, 256}, {1, 1, 256},
                                      {0, 5, 0}, {}), 1280);
  // Part of one row: row 3, columns 2-5 of a 6x8 = 3 * 8 + 2.
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {1, 4}, {3, 2}, {}), 26);
  // A stride on an extent-1 dimension does not matter.
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {1, 8}, {3, 0}, {5, 1}), 24);
  // x[2] of [4, 8, 16]: 2 * 128.
  EXPECT_EQ(getContiguousWindowOffset({4, 8, 16}, {1, 8, 16}, {2, 0, 0}, {}),
            256);
}

TEST(ViewTest, Bytes) {
  // Row 3, columns 2-5 of a 6x8 f32: element 26, byte 104 (not a multiple
  // of 16: a kernel); of f16, byte 52.
  EXPECT_EQ(getContiguousWindowByteOffset({6, 8}, {1, 4}, {3, 2}, {}, 4), 104);
  EXPECT_EQ(getContiguousWindowByteOffset({6, 8}, {1, 4}, {3, 2}, {}, 2), 52);
  EXPECT_FALSE(isAliasableWindowOffset(104));
  // Token 5 of [1, 128, 256] f16: 1280 elements, 2560 bytes, aligned.
  EXPECT_EQ(getContiguousWindowByteOffset({1, 128, 256}, {1, 1, 256},
                                          {0, 5, 0}, {}, 2),
            2560);
  EXPECT_TRUE(isAliasableWindowOffset(2560));
  EXPECT_TRUE(isAliasableWindowOffset(0));
  EXPECT_FALSE(isAliasableWindowOffset(8));
  // Not a window, a bad element size, an offset that overflows int64.
  EXPECT_EQ(getContiguousWindowByteOffset({6, 8}, {6, 4}, {0, 2}, {}, 4),
            std::nullopt);
  EXPECT_EQ(getContiguousWindowByteOffset({6, 8}, {1, 8}, {3, 0}, {}, 0),
            std::nullopt);
  int64_t big = int64_t(1) << 40;
  EXPECT_EQ(getContiguousWindowByteOffset({big, big}, {1, big}, {big - 1, 0},
                                          {}, 4),
            std::nullopt);
}

TEST(ViewTest, NotOneRun) {
  // Columns of every row, every other row, two partial rows.
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {6, 4}, {0, 2}, {}),
            std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3, 8}, {1, 0}, {2, 1}),
            std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {2, 4}, {0, 0}, {}),
            std::nullopt);
  // Strided within the row.
  EXPECT_EQ(getContiguousWindowOffset({8}, {4}, {0}, {2}), std::nullopt);
}

TEST(ViewTest, Malformed) {
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3}, {0, 0}, {}), std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3, 8}, {0}, {}), std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3, 8}, {4, 0}, {}),
            std::nullopt); // rows 4-6 of 6
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {3, 8}, {-1, 0}, {}),
            std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {0, 8}, {0, 0}, {}),
            std::nullopt);
  EXPECT_EQ(getContiguousWindowOffset({6, 8}, {1, 8}, {0, 0}, {0, 1}),
            std::nullopt);
}

/// Every slice of a 3x4x5 tensor with offsets, extents and strides up to
/// small bounds against enumerating its elements.
TEST(ViewTest, BruteForce) {
  const std::vector<int64_t> in = {3, 4, 5};
  int checked = 0;
  for (int64_t o0 = 0; o0 < 3; ++o0)
    for (int64_t o1 = 0; o1 < 4; ++o1)
      for (int64_t o2 = 0; o2 < 5; ++o2)
        for (int64_t e0 = 1; o0 + e0 <= 3; ++e0)
          for (int64_t e1 = 1; o1 + e1 <= 4; ++e1)
            for (int64_t e2 = 1; o2 + e2 <= 5; ++e2)
              for (int64_t s1 = 1; s1 <= 2; ++s1) {
                if (o1 + (e1 - 1) * s1 >= 4)
                  continue;
                std::vector<int64_t> flat;
                for (int64_t i = 0; i < e0; ++i)
                  for (int64_t j = 0; j < e1; ++j)
                    for (int64_t k = 0; k < e2; ++k)
                      flat.push_back(((o0 + i) * 4 + o1 + j * s1) * 5 + o2 +
                                     k);
                bool run = true;
                for (size_t n = 1; n < flat.size(); ++n)
                  run &= flat[n] == flat[0] + int64_t(n);
                std::optional<int64_t> got = getContiguousWindowOffset(
                    in, {e0, e1, e2}, {o0, o1, o2}, {1, s1, 1});
                if (run)
                  EXPECT_EQ(got, flat[0]);
                else
                  EXPECT_EQ(got, std::nullopt);
                ++checked;
              }
  EXPECT_GT(checked, 1000);
}

} // namespace
