//===- LinearLayoutTest.cpp - layout math ---------------------------------===//
#include "kda/Layout/LinearLayout.h"
#include "Tile/TileDialect.h"
#include "kda/Layout/LayoutAttrs.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace kda;
using Coord = LinearLayout::Coord;

namespace {

/// Reference semantics of a blocked layout, written from its definition
/// rather than from the bit construction: the coordinate of (reg, lane,
/// warp) along each dimension, dimensions visited fastest first.
Coord blockedReference(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<unsigned> spt,
                       llvm::ArrayRef<unsigned> tpw,
                       llvm::ArrayRef<unsigned> wpc,
                       llvm::ArrayRef<unsigned> order, int64_t reg,
                       int64_t lane, int64_t warp) {
  unsigned rank = shape.size();
  Coord laneIdx(rank), warpIdx(rank), inBlock(rank), rep(rank);
  for (unsigned d : order) {
    laneIdx[d] = lane % tpw[d];
    lane /= tpw[d];
    warpIdx[d] = warp % wpc[d];
    warp /= wpc[d];
  }
  // Registers: the sizePerThread block first, then block repetitions.
  for (unsigned d : order) {
    inBlock[d] = reg % spt[d];
    reg /= spt[d];
  }
  for (unsigned d : order) {
    int64_t block = int64_t(spt[d]) * tpw[d] * wpc[d];
    int64_t reps = std::max<int64_t>(1, shape[d] / block);
    rep[d] = reg % reps;
    reg /= reps;
  }
  Coord coord(rank);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t block = int64_t(spt[d]) * tpw[d] * wpc[d];
    coord[d] = (rep[d] * block + (warpIdx[d] * tpw[d] + laneIdx[d]) * spt[d] +
                inBlock[d]) %
               shape[d];
  }
  return coord;
}

struct BlockedCase {
  std::vector<int64_t> shape;
  std::vector<unsigned> spt, tpw, wpc, order;
};

class BlockedLayoutTest : public ::testing::TestWithParam<BlockedCase> {};

TEST_P(BlockedLayoutTest, MatchesReferenceAndCoversTile) {
  const BlockedCase &c = GetParam();
  LinearLayout layout =
      makeBlockedLinearLayout(c.shape, c.spt, c.tpw, c.wpc, c.order);
  std::set<Coord> covered;
  for (int64_t w = 0; w < layout.getSize(HWDim::Warp); ++w)
    for (int64_t l = 0; l < layout.getSize(HWDim::Lane); ++l)
      for (int64_t r = 0; r < layout.getSize(HWDim::Register); ++r) {
        Coord got = layout.apply(r, l, w);
        EXPECT_EQ(got, blockedReference(c.shape, c.spt, c.tpw, c.wpc, c.order,
                                        r, l, w))
            << "reg " << r << " lane " << l << " warp " << w << " in "
            << layout.str();
        covered.insert(got);
      }
  int64_t numElements = 1;
  for (int64_t s : c.shape)
    numElements *= s;
  EXPECT_EQ(int64_t(covered.size()), numElements) << layout.str();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BlockedLayoutTest,
    ::testing::Values(
        // 1-D: exact fit, repetition, replication.
        BlockedCase{{128}, {4}, {32}, {1}, {0}},
        BlockedCase{{1024}, {4}, {32}, {4}, {0}},
        BlockedCase{{16}, {1}, {32}, {4}, {0}},
        // 2-D row-major decode state tile, wave32 and wave64.
        BlockedCase{{128, 128}, {1, 4}, {1, 32}, {4, 1}, {1, 0}},
        BlockedCase{{128, 128}, {1, 4}, {2, 32}, {4, 1}, {1, 0}},
        BlockedCase{{32, 64}, {2, 2}, {4, 8}, {2, 2}, {1, 0}},
        // Column-major order and a tile smaller than the block.
        BlockedCase{{64, 16}, {4, 1}, {8, 4}, {1, 4}, {0, 1}},
        BlockedCase{{4, 8}, {1, 4}, {8, 4}, {4, 1}, {1, 0}},
        // 3-D.
        BlockedCase{{4, 8, 16}, {1, 1, 4}, {2, 4, 4}, {2, 2, 1}, {2, 1, 0}}));

TEST(LinearLayoutTest, SliceDuplicatesAcrossTheSlicedDimension) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  auto parent =
      tile::BlockedLayoutAttr::get(&ctx, {1, 4}, {4, 8}, {2, 1}, {1, 0});
  auto slice = tile::SliceLayoutAttr::get(&ctx, 1, parent);
  LinearLayout rows = toLinearLayout(slice, {16});
  LinearLayout full = toLinearLayout(parent, {16, 32});
  // A row-slice element lives where its row lived in the parent.
  for (int64_t w = 0; w < 2; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < rows.getSize(HWDim::Register); ++r)
        EXPECT_EQ(rows.apply(r, l, w)[0],
                  full.apply(0, l, w)[0] ^
                      rows.applyDim(HWDim::Register, r)[0]);
  // The 8 lanes along dimension 1 and the 4 registers there hold copies.
  EXPECT_EQ(rows.getDuplicateMask(HWDim::Lane), 0b00111u);
  EXPECT_EQ(rows.getDuplicateMask(HWDim::Register), 0b11u);
}

TEST(LinearLayoutTest, FindRegisterInvertsRegisterBases) {
  LinearLayout layout =
      makeBlockedLinearLayout({64, 64}, {2, 4}, {4, 8}, {2, 2}, {1, 0});
  for (int64_t r = 0; r < layout.getSize(HWDim::Register); ++r) {
    Coord c = layout.applyDim(HWDim::Register, r);
    std::optional<int64_t> found = layout.findRegister(c);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(layout.applyDim(HWDim::Register, *found), c);
  }
  // An element held by another lane is not in this thread's registers.
  EXPECT_FALSE(layout.findRegister({0, 4}).has_value());
}

TEST(LinearLayoutTest, ContiguousRegistersGiveVectorWidth) {
  EXPECT_EQ(makeBlockedLinearLayout({128, 128}, {1, 4}, {1, 32}, {4, 1}, {1, 0})
                .getContiguousRegisters(1),
            4);
  EXPECT_EQ(makeBlockedLinearLayout({128}, {8}, {32}, {1}, {0})
                .getContiguousRegisters(0),
            8);
  EXPECT_EQ(makeBlockedLinearLayout({64, 16}, {4, 1}, {8, 4}, {1, 4}, {0, 1})
                .getContiguousRegisters(1),
            1);
}

TEST(LinearLayoutTest, AxisMasksSeparateReductionWork) {
  LinearLayout layout =
      makeBlockedLinearLayout({128, 128}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  // Along dim 1: 2 register bits in the block, 1 repetition bit; 4 lanes.
  EXPECT_EQ(layout.getMaskAlongAxis(HWDim::Register, 1), 0b111u);
  EXPECT_EQ(layout.getMaskAlongAxis(HWDim::Lane, 1), 0b1111u);
  EXPECT_EQ(layout.getMaskAlongAxis(HWDim::Lane, 0), 0b10000u);
  EXPECT_EQ(layout.getMaskAlongAxis(HWDim::Warp, 0), 0b11u);
}

TEST(LinearLayoutTest, PermuteAndUnitDims) {
  LinearLayout layout =
      makeBlockedLinearLayout({16, 32}, {1, 4}, {4, 8}, {1, 1}, {1, 0});
  LinearLayout t = layout.permuteDims({1, 0});
  EXPECT_EQ(t.getShape(), llvm::ArrayRef<int64_t>({32, 16}));
  for (int64_t l = 0; l < 32; ++l) {
    Coord a = layout.apply(1, l, 0), b = t.apply(1, l, 0);
    EXPECT_EQ(a[0], b[1]);
    EXPECT_EQ(a[1], b[0]);
  }
  LinearLayout e = layout.insertUnitDim(0);
  EXPECT_EQ(e.getRank(), 3u);
  EXPECT_EQ(e.dropDim(0), layout);
}

TEST(LinearLayoutTest, DefaultLayoutIsCoalescedAndCoversTile) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  auto layout = mlir::cast<tile::BlockedLayoutAttr>(
      getDefaultBlockedLayout(&ctx, {128, 128}, 32, 4, 32));
  EXPECT_EQ(layout.getSizePerThread(), llvm::ArrayRef<unsigned>({1, 4}));
  EXPECT_EQ(layout.getThreadsPerWarp(), llvm::ArrayRef<unsigned>({1, 32}));
  EXPECT_EQ(layout.getWarpsPerCTA(), llvm::ArrayRef<unsigned>({4, 1}));
  auto wave64 = mlir::cast<tile::BlockedLayoutAttr>(
      getDefaultBlockedLayout(&ctx, {4096}, 16, 4, 64));
  EXPECT_EQ(wave64.getWaveSize(), 64u);
  EXPECT_EQ(wave64.getNumWarps(), 4u);
  EXPECT_EQ(wave64.getSizePerThread(), llvm::ArrayRef<unsigned>({8}));
  // A tile smaller than 128 bits per thread spreads over every thread rather
  // than giving 128 bits to a few of them (which would repeat its arithmetic).
  auto vector = mlir::cast<tile::BlockedLayoutAttr>(
      getDefaultBlockedLayout(&ctx, {128}, 16, 4, 32));
  EXPECT_EQ(vector.getSizePerThread(), llvm::ArrayRef<unsigned>({1}));
  EXPECT_EQ(vector.getThreadsPerWarp(), llvm::ArrayRef<unsigned>({32}));
  EXPECT_EQ(vector.getWarpsPerCTA(), llvm::ArrayRef<unsigned>({4}));
  auto pairs = mlir::cast<tile::BlockedLayoutAttr>(
      getDefaultBlockedLayout(&ctx, {4, 64}, 32, 4, 32));
  EXPECT_EQ(pairs.getSizePerThread(), llvm::ArrayRef<unsigned>({1, 2}));
  auto tiny = mlir::cast<tile::BlockedLayoutAttr>(
      getDefaultBlockedLayout(&ctx, {16}, 32, 4, 32));
  EXPECT_EQ(tiny.getSizePerThread(), llvm::ArrayRef<unsigned>({1}));
}

} // namespace
