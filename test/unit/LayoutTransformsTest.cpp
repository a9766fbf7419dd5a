//===- LayoutTransformsTest.cpp - layout choices of the tile passes -------===//
#include "Tile/TileDialect.h"
#include "kda/Layout/LayoutAttrs.h"
#include "kda/Layout/LinearLayout.h"
#include "kda/Transforms/LayoutUtils.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace kda;

namespace {

struct TransCase {
  std::vector<int64_t> shape;
  std::vector<int32_t> order;
};

/// Transposing a blocked tile with getTransposedBlockedLayout moves no data:
/// every (register, lane, warp) holds the transposed element it held before.
TEST(TransposedBlockedLayout, MovesNoData) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  std::vector<TransCase> cases = {
      {{16, 64}, {1, 0}},     {{64, 16}, {1, 0}},     {{2, 4, 8}, {2, 0, 1}},
      {{8, 2, 4}, {1, 2, 0}}, {{4, 4, 4}, {0, 2, 1}}, {{1, 128}, {1, 0}},
      {{32, 32}, {0, 1}},
  };
  for (unsigned wave : {32u, 64u})
    for (unsigned warps : {1u, 4u, 8u})
      for (unsigned bits : {16u, 32u, 64u})
        for (const TransCase &c : cases) {
          mlir::Attribute src =
              getDefaultBlockedLayout(&ctx, c.shape, bits, warps, wave);
          mlir::Attribute dst = getTransposedBlockedLayout(src, c.order);
          std::vector<int64_t> dstShape;
          for (int32_t d : c.order)
            dstShape.push_back(c.shape[d]);
          EXPECT_EQ(toLinearLayout(src, c.shape).permuteDims(c.order),
                    toLinearLayout(dst, dstShape))
              << "wave " << wave << " warps " << warps << " bits " << bits;
          // Transposing back gives the source layout.
          std::vector<int32_t> inverse(c.order.size());
          for (auto [i, d] : llvm::enumerate(c.order))
            inverse[d] = i;
          EXPECT_EQ(getTransposedBlockedLayout(dst, inverse), src);
        }
}

TEST(LayoutElementBits, PointersAndBools) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<tile::TileDialect>();
  mlir::Builder b(&ctx);
  EXPECT_EQ(getLayoutElementBits(tile::PointerType::get(b.getF32Type())), 64u);
  EXPECT_EQ(getLayoutElementBits(b.getI1Type()), 8u);
  EXPECT_EQ(getLayoutElementBits(b.getBF16Type()), 16u);
}

} // namespace
