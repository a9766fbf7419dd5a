//===- ScratchPaddingTest.cpp - bank-conflict-aware scratch rows ----------===//
#include "kda/Layout/ScratchPadding.h"

#include <gtest/gtest.h>

using namespace kda;

namespace {

/// [rows, cols] with the lanes along the rows first (`laneRows` of them),
/// then along the columns; registers hold the remaining columns and rows.
LinearLayout rowsAcrossLanes(int64_t rows, int64_t cols, int64_t laneRows) {
  LinearLayout l({rows, cols});
  for (int64_t r = 1; r < laneRows; r *= 2)
    l.addBasis(HWDim::Lane, {r, 0});
  int64_t c = 1;
  for (; l.getNumBits(HWDim::Lane) < 5; c *= 2)
    l.addBasis(HWDim::Lane, {0, c});
  for (; c < cols; c *= 2)
    l.addBasis(HWDim::Register, {0, c});
  for (int64_t r = laneRows; r < rows; r *= 2)
    l.addBasis(HWDim::Register, {r, 0});
  return l;
}

/// [rows, cols] with each lane holding `vector` contiguous columns, the 32
/// lanes along one row.
LinearLayout rowMajor(int64_t rows, int64_t cols, int64_t vector) {
  LinearLayout l({rows, cols});
  for (int64_t c = 1; c < vector; c *= 2)
    l.addBasis(HWDim::Register, {0, c});
  for (int64_t c = vector; c < vector * 32; c *= 2)
    l.addBasis(HWDim::Lane, {0, c});
  for (int64_t r = 1; r < rows; r *= 2)
    l.addBasis(HWDim::Register, {r, 0});
  return l;
}

TEST(ScratchPadding, PaddedIndex) {
  EXPECT_EQ(getPaddedScratchIndex(0, 32, 2), 0);
  EXPECT_EQ(getPaddedScratchIndex(31, 32, 2), 31);
  EXPECT_EQ(getPaddedScratchIndex(32, 32, 2), 34);
  EXPECT_EQ(getPaddedScratchIndex(65, 32, 2), 69);
  EXPECT_EQ(getPaddedScratchIndex(65, 32, 0), 65);
}

TEST(ScratchPadding, ColumnAccessesConflictWithoutPadding) {
  // 32 lanes down the rows of [32, 32] f32, a row per lane: unpadded, 8
  // 16-byte accesses, each 4 groups of 8 lanes whose rows share 4 banks.
  LinearLayout column = rowsAcrossLanes(32, 32, 32);
  EXPECT_EQ(getScratchAccessCycles(column, 4, 0, false), 8 * 4 * 8);
  // One word of padding moves each row to the next bank (32 4-byte accesses,
  // conflict-free).
  EXPECT_EQ(getScratchVectorElements(column, 4, 1), 1);
  EXPECT_EQ(getScratchAccessCycles(column, 4, 1, false), 32);
  // Row-major, a row per register: conflict-free either way.
  LinearLayout rows = rowMajor(32, 32, 1);
  EXPECT_EQ(getScratchAccessCycles(rows, 4, 0, true), 32);
  EXPECT_EQ(getScratchAccessCycles(rows, 4, 1, true), 32);
  EXPECT_EQ(getScratchRowPadding(rows, column, 4), 1);
}

TEST(ScratchPadding, SixteenBitColumns) {
  // [16, 128] bf16 read 8 rows x 4 word-columns a register pair (mma.sync's
  // A operand): rows 64 words apart share banks, 8 lanes a bank unpadded;
  // one word of padding still leaves 4 (row + column word repeats), four
  // words spread all 32 over the banks.
  LinearLayout operand({16, 128});
  operand.addBasis(HWDim::Register, {0, 1});
  operand.addBasis(HWDim::Lane, {0, 2});
  operand.addBasis(HWDim::Lane, {0, 4});
  operand.addBasis(HWDim::Lane, {1, 0});
  operand.addBasis(HWDim::Lane, {2, 0});
  operand.addBasis(HWDim::Lane, {4, 0});
  operand.addBasis(HWDim::Register, {8, 0});
  for (int64_t c = 8; c < 128; c *= 2)
    operand.addBasis(HWDim::Register, {0, c});
  EXPECT_EQ(getScratchVectorElements(operand, 2, 0), 2);
  EXPECT_EQ(getScratchAccessCycles(operand, 2, 0, false), 32 * 8);
  EXPECT_EQ(getScratchAccessCycles(operand, 2, 2, false), 32 * 4);
  EXPECT_EQ(getScratchAccessCycles(operand, 2, 8, false), 32);
  EXPECT_EQ(getScratchRowPadding(rowMajor(16, 128, 4), operand, 2), 8);
}

TEST(ScratchPadding, VectorsStayAligned) {
  LinearLayout rows = rowMajor(8, 128, 4);
  EXPECT_EQ(getScratchVectorElements(rows, 4, 0), 4);
  EXPECT_EQ(getScratchVectorElements(rows, 4, 1), 1);
  EXPECT_EQ(getScratchVectorElements(rows, 4, 2), 2);
  EXPECT_EQ(getScratchVectorElements(rows, 4, 4), 4);
  // 16-byte accesses: 8 lanes a cycle, 4 cycles a register group.
  EXPECT_EQ(getScratchAccessCycles(rows, 4, 0, true), 8 * 4);
  // Row-major on both sides needs no padding.
  EXPECT_EQ(getScratchRowPadding(rows, rows, 4), 0);
}

TEST(ScratchPadding, NoPaddingWhereRowsDifferOrTilesAreLarge) {
  LinearLayout flat({1024});
  for (int64_t c = 1; c < 1024; c *= 2)
    flat.addBasis(c < 32 ? HWDim::Lane : HWDim::Register, {c});
  EXPECT_EQ(getScratchRowPadding(flat, flat, 4), 0);
  LinearLayout column = rowsAcrossLanes(32, 32, 32);
  EXPECT_EQ(getScratchRowPadding(rowMajor(32, 32, 1), column, 4), 1);
  LinearLayout wide = rowsAcrossLanes(32, 32, 32);
  EXPECT_EQ(getScratchRowPadding(rowsAcrossLanes(16, 64, 16), wide, 4), 0);
  // 128 x 128 f32 = 64 KiB: over kMaxPaddedScratchBytes.
  EXPECT_EQ(getScratchRowPadding(rowMajor(128, 128, 1),
                                 rowsAcrossLanes(128, 128, 32), 4),
            0);
}

} // namespace
