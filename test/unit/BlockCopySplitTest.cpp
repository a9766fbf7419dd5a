//===- BlockCopySplitTest.cpp - waves sharing a block copy ----------------===//
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include <gtest/gtest.h>

using kda::splitBlockOverWaves;

TEST(BlockCopySplit, OuterDimensionsFirst) {
  // 32 rows over 4 waves: 8 rows each.
  EXPECT_EQ(splitBlockOverWaves({32, 64}, 4),
            (llvm::SmallVector<int64_t>{4, 1}));
  // 2 rows over 4 waves: two waves copy a row each, the others nothing (the
  // last dimension is never split).
  EXPECT_EQ(splitBlockOverWaves({2, 128}, 4),
            (llvm::SmallVector<int64_t>{2, 1}));
  // A leading 1 passes the waves on to the rows.
  EXPECT_EQ(splitBlockOverWaves({1, 32, 128}, 8),
            (llvm::SmallVector<int64_t>{1, 8, 1}));
  // Single rows of dimension 0 let dimension 1 split too.
  EXPECT_EQ(splitBlockOverWaves({2, 4, 16}, 8),
            (llvm::SmallVector<int64_t>{2, 4, 1}));
  // A partly split dimension stops there: [3 of 6, whole 4] tiles stay
  // contiguous, splitting the 4 would interleave them.
  EXPECT_EQ(splitBlockOverWaves({6, 4, 16}, 4),
            (llvm::SmallVector<int64_t>{2, 1, 1}));
  // One dimension: one wave.
  EXPECT_EQ(splitBlockOverWaves({256}, 4), (llvm::SmallVector<int64_t>{1}));
}
