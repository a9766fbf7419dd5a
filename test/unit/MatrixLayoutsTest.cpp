//===- MatrixLayoutsTest.cpp - matrix instruction fragments ---------------===//
//
// Each fragment against its table in the ISA documents, written here as the
// documents state it (element index and lane to row and column), not from
// the bases; and the tiled layouts hold every element of their tile.
//
//===----------------------------------------------------------------------===//
#include "kda/Layout/MatrixLayouts.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

using namespace kda;
using Coord = LinearLayout::Coord;

namespace {

using Table = std::function<Coord(int64_t element, int64_t lane)>;

/// Every (element, lane) of the fragment maps as `table` says, and the
/// fragment holds each element of its tile exactly once.
void expectFragment(MatrixInstr instr, MatrixOperand operand, int64_t elements,
                    const Table &table) {
  LinearLayout layout = getMatrixFragmentLayout(instr, operand);
  unsigned lanes = getMatrixInstructionLanes(instr);
  ASSERT_EQ(layout.getSize(HWDim::Register), elements);
  ASSERT_EQ(layout.getSize(HWDim::Lane), lanes);
  EXPECT_EQ(layout.getNumBits(HWDim::Warp), 0u);
  std::set<Coord> seen;
  for (int64_t e = 0; e < elements; ++e)
    for (int64_t l = 0; l < lanes; ++l) {
      Coord expected = table(e, l);
      EXPECT_EQ(layout.apply(e, l, 0), expected)
          << "element " << e << ", lane " << l;
      seen.insert(expected);
    }
  auto shape = layout.getShape();
  EXPECT_EQ(int64_t(seen.size()), shape[0] * shape[1]);
}

TEST(MatrixLayouts, InstructionShapes) {
  using MI = MatrixInstr;
  EXPECT_EQ(getMatrixInstructionShape(MI::MmaM16N8K16),
            (std::array<int64_t, 3>{16, 8, 16}));
  EXPECT_EQ(getMatrixInstructionShape(MI::Mfma32x32x16),
            (std::array<int64_t, 3>{32, 32, 16}));
  EXPECT_EQ(getMatrixInstructionShape(MI::Mfma16x16x32),
            (std::array<int64_t, 3>{16, 16, 32}));
  EXPECT_EQ(getMatrixInstructionLanes(MI::MmaM16N8K16), 32u);
  EXPECT_EQ(getMatrixInstructionLanes(MI::Mfma16x16x32), 64u);
}

// PTX ISA, mma.m16n8k16 (.f16/.bf16 inputs, .f32 accumulators):
// groupID = %laneid >> 2, threadID_in_group = %laneid % 4.
TEST(MatrixLayouts, NvidiaMmaM16N8K16) {
  auto mma = MatrixInstr::MmaM16N8K16;
  // c0..c3: row = groupID (c0, c1) or groupID + 8 (c2, c3);
  // col = threadID_in_group * 2 + (i & 0x1).
  expectFragment(mma, MatrixOperand::C, 4, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    return Coord{i < 2 ? group : group + 8, t * 2 + (i & 1)};
  });
  // a0..a7: row = groupID for a0, a1, a4, a5, else groupID + 8;
  // col = threadID_in_group * 2 + (i & 0x1) for i < 4, + 8 for i >= 4.
  expectFragment(mma, MatrixOperand::A, 8, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    bool low = i < 2 || (i >= 4 && i < 6);
    return Coord{low ? group : group + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  });
  // b0..b3: row (K) = threadID_in_group * 2 + (i & 0x1) for i < 2, + 8 for
  // i >= 2; col (N) = groupID.
  expectFragment(mma, MatrixOperand::B, 4, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    return Coord{t * 2 + (i & 1) + (i >= 2 ? 8 : 0), group};
  });
}

// PTX ISA, mma.m16n8k8 with .tf32 inputs: a0..a3: row = groupID for a0 and
// a2, groupID + 8 for a1 and a3; col = threadID_in_group for a0 and a1, + 4
// for a2 and a3. b0, b1: row = threadID_in_group (b0), + 4 (b1); col =
// groupID. C as m16n8k16's.
TEST(MatrixLayouts, NvidiaMmaM16N8K8Tf32) {
  auto mma = MatrixInstr::MmaM16N8K8Tf32;
  EXPECT_EQ(getMatrixInstructionShape(mma), (std::array<int64_t, 3>{16, 8, 8}));
  expectFragment(mma, MatrixOperand::A, 4, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    return Coord{(i == 0 || i == 2) ? group : group + 8, i < 2 ? t : t + 4};
  });
  expectFragment(mma, MatrixOperand::B, 2, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    return Coord{i == 0 ? t : t + 4, group};
  });
  expectFragment(mma, MatrixOperand::C, 4, [](int64_t i, int64_t lane) {
    int64_t group = lane >> 2, t = lane % 4;
    return Coord{i < 2 ? group : group + 8, t * 2 + (i & 1)};
  });
}

// CDNA3/gfx950 ISA, dense MFMA: v_mfma_f32_32x32x16_bf16 (wave64).
TEST(MatrixLayouts, AmdMfma32x32x16) {
  auto mfma = MatrixInstr::Mfma32x32x16;
  // D: 16 VGPRs; VGPR i of lane l is D[8 * (i / 4) + 4 * (l / 32) + i % 4]
  // [l % 32].
  expectFragment(mfma, MatrixOperand::C, 16, [](int64_t i, int64_t l) {
    return Coord{8 * (i / 4) + 4 * (l / 32) + i % 4, l % 32};
  });
  // A: 8 bf16 in 4 VGPRs; element j of lane l is A[l % 32][8 * (l / 32) + j].
  expectFragment(mfma, MatrixOperand::A, 8, [](int64_t j, int64_t l) {
    return Coord{l % 32, 8 * (l / 32) + j};
  });
  // B: element j of lane l is B[8 * (l / 32) + j][l % 32].
  expectFragment(mfma, MatrixOperand::B, 8, [](int64_t j, int64_t l) {
    return Coord{8 * (l / 32) + j, l % 32};
  });
}

/// The 16x16 MFMAs (wave64) with `perLane` consecutive K per lane (8 for
/// 16x16x32, 4 for 16x16x16): D in 4 VGPRs, VGPR i of lane l is
/// D[4 * (l / 16) + i][l % 16]; element j of lane l is A[l % 16][perLane *
/// (l / 16) + j] and B[perLane * (l / 16) + j][l % 16].
static void expectMfma16x16(MatrixInstr mfma, int64_t perLane) {
  EXPECT_EQ(getMatrixInstructionShape(mfma),
            (std::array<int64_t, 3>{16, 16, 4 * perLane}));
  EXPECT_EQ(getMatrixInstructionLanes(mfma), 64u);
  expectFragment(mfma, MatrixOperand::C, 4, [](int64_t i, int64_t l) {
    return Coord{4 * (l / 16) + i, l % 16};
  });
  expectFragment(mfma, MatrixOperand::A, perLane,
                 [perLane](int64_t j, int64_t l) {
                   return Coord{l % 16, perLane * (l / 16) + j};
                 });
  expectFragment(mfma, MatrixOperand::B, perLane,
                 [perLane](int64_t j, int64_t l) {
                   return Coord{perLane * (l / 16) + j, l % 16};
                 });
}

// v_mfma_f32_16x16x32_bf16 and v_mfma_f32_16x16x16_bf16 (wave64).
TEST(MatrixLayouts, AmdMfma16x16x32) {
  expectMfma16x16(MatrixInstr::Mfma16x16x32, 8);
}
TEST(MatrixLayouts, AmdMfma16x16x16) {
  expectMfma16x16(MatrixInstr::Mfma16x16x16, 4);
}
// v_mfma_f32_16x16x4_f32 (wave64): one fp32 element of A and B per lane.
TEST(MatrixLayouts, AmdMfma16x16x4F32) {
  expectMfma16x16(MatrixInstr::Mfma16x16x4F32, 1);
}

// gfx1250 (CDNA5 ISA) v_wmma_f32_16x16x32_bf16 (wave32).
TEST(MatrixLayouts, AmdWmma16x16x32) {
  auto wmma = MatrixInstr::Wmma16x16x32;
  EXPECT_EQ(getMatrixInstructionLanes(wmma), 32u);
  // D: 8 VGPRs; VGPR i of lane l is D[8 * (l / 16) + i][l % 16].
  expectFragment(wmma, MatrixOperand::C, 8, [](int64_t i, int64_t l) {
    return Coord{8 * (l / 16) + i, l % 16};
  });
  // A: 16 bf16 in 8 VGPRs; lanes 0-15 hold K 0-7 (VGPRs 0-3) and 16-23
  // (VGPRs 4-7) of row l, lanes 16-31 K 8-15 and 24-31 of row l - 16.
  auto k = [](int64_t e, int64_t l) {
    return (e < 8 ? 0 : 16) + (l < 16 ? 0 : 8) + e % 8;
  };
  expectFragment(wmma, MatrixOperand::A, 16, [&](int64_t e, int64_t l) {
    return Coord{l % 16, k(e, l)};
  });
  expectFragment(wmma, MatrixOperand::B, 16, [&](int64_t e, int64_t l) {
    return Coord{k(e, l), l % 16};
  });
}

// PTX ISA, wgmma .m64nNk16 accumulator D: warp w of the warpgroup holds rows
// 16w .. 16w + 15; within it d[i] is at row groupID + 8 * ((i / 2) % 2),
// col (i / 4) * 8 + threadID_in_group * 2 + (i & 1).
TEST(MatrixLayouts, WgmmaAccumulator) {
  for (int64_t n : {8, 64, 256}) {
    LinearLayout layout = getWgmmaAccumulatorLayout(n);
    ASSERT_EQ(layout.getSize(HWDim::Register), n / 2);
    ASSERT_EQ(layout.getSize(HWDim::Lane), 32);
    ASSERT_EQ(layout.getSize(HWDim::Warp), 4);
    std::set<Coord> seen;
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < n / 2; ++i) {
          int64_t group = lane >> 2, t = lane % 4;
          Coord expected{16 * w + group + 8 * ((i / 2) % 2),
                         (i / 4) * 8 + t * 2 + (i & 1)};
          EXPECT_EQ(layout.apply(i, lane, w), expected)
              << "n " << n << ", warp " << w << ", lane " << lane << ", d" << i;
          seen.insert(expected);
        }
    EXPECT_EQ(int64_t(seen.size()), 64 * n);
  }
}

// The #tile.mma<wgmma_m64k16> layout of a tile.shared_dot accumulator is
// that table: on one warpgroup over [64, n] exactly, and on two warpgroups
// over [256, n] the second warpgroup holds rows 64 to 127 and each warp's
// registers repeat 128 rows down after their n / 2 of the table.
TEST(MatrixLayouts, WgmmaTileLayout) {
  for (int64_t n : {8, 64, 256}) {
    LinearLayout table = getWgmmaAccumulatorLayout(n);
    LinearLayout one = makeMatrixLayout(MatrixInstr::WgmmaM64K16,
                                        MatrixOperand::C, {64, n}, {4, 1});
    LinearLayout two = makeMatrixLayout(MatrixInstr::WgmmaM64K16,
                                        MatrixOperand::C, {256, n}, {8, 1});
    ASSERT_EQ(two.getSize(HWDim::Register), n);
    for (int64_t w = 0; w < 8; ++w)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < n / 2; ++i) {
          Coord expected = table.apply(i, lane, w % 4);
          if (w < 4)
            EXPECT_EQ(one.apply(i, lane, w), expected) << "n " << n;
          Coord shifted{expected[0] + 64 * (w / 4), expected[1]};
          EXPECT_EQ(two.apply(i, lane, w), shifted) << "n " << n;
          Coord repeated{shifted[0] + 128, shifted[1]};
          EXPECT_EQ(two.apply(i + n / 2, lane, w), repeated) << "n " << n;
        }
  }
}

/// How many (register, lane, warp) hold each element of the layout's tile.
std::map<Coord, int> holders(const LinearLayout &layout) {
  std::map<Coord, int> count;
  for (int64_t w = 0; w < layout.getSize(HWDim::Warp); ++w)
    for (int64_t l = 0; l < layout.getSize(HWDim::Lane); ++l)
      for (int64_t r = 0; r < layout.getSize(HWDim::Register); ++r)
        ++count[layout.apply(r, l, w)];
  return count;
}

TEST(MatrixLayouts, TiledAccumulatorHoldsEachElementOnce) {
  // [64, 64] over 2 x 2 warps of m16n8 tiles: the warps cover a 32 x 16
  // block (along M fastest), repeated 4 times along N and twice along M in
  // registers: 32 per thread.
  LinearLayout c = makeMatrixLayout(MatrixInstr::MmaM16N8K16, MatrixOperand::C,
                                    {64, 64}, {2, 2});
  EXPECT_EQ(c.getSize(HWDim::Register), 4 * 4 * 2);
  EXPECT_EQ(c.getSize(HWDim::Warp), 4);
  std::map<Coord, int> count = holders(c);
  EXPECT_EQ(count.size(), 64u * 64u);
  for (auto &[coord, n] : count)
    EXPECT_EQ(n, 1) << coord[0] << ", " << coord[1];
  // Warp 1 is the second along M: it starts at row 16; warp 2 at column 8;
  // register 4 (the first repeat) is the next 16 columns over, register 4 * 4
  // the next 32 rows.
  EXPECT_EQ(c.apply(0, 0, 1), (Coord{16, 0}));
  EXPECT_EQ(c.apply(0, 0, 2), (Coord{0, 8}));
  EXPECT_EQ(c.apply(4, 0, 0), (Coord{0, 16}));
  EXPECT_EQ(c.apply(16, 0, 0), (Coord{32, 0}));
}

TEST(MatrixLayouts, TiledOperandsReplicateAcrossTheOtherWarps) {
  // MFMA 32x32x16 on a [64, 32] A and a [32, 128] B with 2 x 2 waves: A is
  // split over the waves along M and replicated along N, B the other way,
  // and both span their whole K in registers.
  auto mfma = MatrixInstr::Mfma32x32x16;
  LinearLayout a = makeMatrixLayout(mfma, MatrixOperand::A, {64, 32}, {2, 2});
  LinearLayout b = makeMatrixLayout(mfma, MatrixOperand::B, {32, 128}, {2, 2});
  EXPECT_EQ(a.getDuplicateMask(HWDim::Warp), 0b10u);
  EXPECT_EQ(b.getDuplicateMask(HWDim::Warp), 0b01u);
  for (const LinearLayout *layout : {&a, &b}) {
    std::map<Coord, int> count = holders(*layout);
    auto shape = layout->getShape();
    EXPECT_EQ(int64_t(count.size()), shape[0] * shape[1]);
    for (auto &[coord, n] : count)
      EXPECT_EQ(n, 2); // once per wave of the other dimension
  }
  // A: 2 K blocks in registers (register 8 starts K = 16); the 2 waves
  // along M cover its 64 rows.
  EXPECT_EQ(a.getSize(HWDim::Register), 16);
  EXPECT_EQ(a.apply(8, 0, 0), (Coord{0, 16}));
  EXPECT_EQ(a.apply(0, 0, 1), (Coord{32, 0}));
  // B: 2 K blocks, columns repeat twice past the 2 waves' 64.
  EXPECT_EQ(b.getSize(HWDim::Register), 8 * 2 * 2);
  EXPECT_EQ(b.apply(8, 0, 0), (Coord{0, 64}));
  EXPECT_EQ(b.apply(16, 0, 0), (Coord{16, 0}));
  EXPECT_EQ(b.apply(0, 0, 2), (Coord{0, 32}));
}

} // namespace

TEST(MatrixLayouts, MatrixLoadPlans) {
  // mma.sync A [M, K]: plain 8x8 loads, four blocks per load once a warp
  // holds 16 x 16; B [K, N] transposed; a 16 x 8 B tile has two blocks.
  auto mma = MatrixInstr::MmaM16N8K16;
  std::optional<MatrixLoadPlan> a = getMatrixLoadPlan(
      makeMatrixLayout(mma, MatrixOperand::A, {64, 32}, {2, 2}));
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->transposed);
  EXPECT_EQ(a->matrices, 4u);
  std::optional<MatrixLoadPlan> b = getMatrixLoadPlan(
      makeMatrixLayout(mma, MatrixOperand::B, {32, 64}, {2, 2}));
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->transposed);
  EXPECT_EQ(b->matrices, 4u);
  std::optional<MatrixLoadPlan> small = getMatrixLoadPlan(
      makeMatrixLayout(mma, MatrixOperand::B, {16, 8}, {1, 1}));
  ASSERT_TRUE(small);
  EXPECT_EQ(small->matrices, 2u);
  // The accumulator's pattern is A's: a 16-bit tile in it loads the same
  // way (the lowering only plans loads of 16-bit elements). The MFMA
  // operands are wave64, with 8 consecutive K in a lane: no 8x8 loads.
  EXPECT_TRUE(getMatrixLoadPlan(
      makeMatrixLayout(mma, MatrixOperand::C, {64, 64}, {2, 2})));
  EXPECT_FALSE(getMatrixLoadPlan(makeMatrixLayout(
      MatrixInstr::Mfma16x16x32, MatrixOperand::A, {64, 64}, {2, 2})));
}

TEST(MatrixLayouts, MatrixLoadPlanNeedsWholeBlocks) {
  // The plain pattern, then a register bit stepping 4 columns: not a whole
  // 8x8 block, so no matrix loads.
  LinearLayout layout({8, 16});
  layout.addBasis(HWDim::Register, {0, 1});
  layout.addBasis(HWDim::Register, {0, 8});
  for (std::array<int64_t, 2> b :
       {std::array<int64_t, 2>{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}})
    layout.addBasis(HWDim::Lane, b);
  std::optional<MatrixLoadPlan> plan = getMatrixLoadPlan(layout);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->matrices, 2u);
  LinearLayout shifted({8, 16});
  shifted.addBasis(HWDim::Register, {0, 1});
  for (std::array<int64_t, 2> b :
       {std::array<int64_t, 2>{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}})
    shifted.addBasis(HWDim::Lane, b);
  shifted.addBasis(HWDim::Warp, {0, 4});
  EXPECT_FALSE(getMatrixLoadPlan(shifted));
}

// AMD's transposing LDS loads, as the ISA behaves (the CDNA4 and gfx1250
// transpose rules): in each group of G lanes each reading E elements,
// destination lane i's element e is the 16-bit value i % E elements past the
// address source lane e * (G / E) + i / E of the group supplies (gfx950
// ds_read_b64_tr_b16: E = 4, G = 16, lane 4e + i / 4, offset i % 4; gfx1250
// ds_load_tr16_b128: E = 8, G = 8, lane e, offset i). Every B operand
// layout the AMD instructions read from a K x N buffer must get exactly its
// own elements from the addresses getTransposedLoadSources gives.
namespace {
void checkTransposedLoads(const LinearLayout &layout, TransposedLoad load,
                          unsigned waveSize) {
  std::optional<LinearLayout> sources = getTransposedLoadSources(layout, load);
  ASSERT_TRUE(sources.has_value());
  int64_t segments = load.groupLanes / load.elements;
  for (int64_t w = 0; w < layout.getSize(HWDim::Warp); ++w)
    for (int64_t lane = 0; lane < waveSize; ++lane)
      for (int64_t r = 0; r < layout.getSize(HWDim::Register);
           r += load.elements)
        for (int64_t e = 0; e < load.elements; ++e) {
          int64_t i = lane % load.groupLanes;
          int64_t source = lane - i + e * segments + i / load.elements;
          Coord from = sources->apply(r, source, w);
          Coord got{from[0], from[1] + i % load.elements};
          EXPECT_EQ(got, layout.apply(r + e, lane, w))
              << "lane " << lane << ", register " << r + e;
        }
}
} // namespace

TEST(MatrixLayouts, TransposedLoadsOfMfmaOperands) {
  TransposedLoad gfx950{4, 16};
  checkTransposedLoads(makeMatrixLayout(MatrixInstr::Mfma32x32x16,
                                        MatrixOperand::B, {32, 64}, {2, 2}),
                       gfx950, 64);
  checkTransposedLoads(makeMatrixLayout(MatrixInstr::Mfma16x16x32,
                                        MatrixOperand::B, {64, 32}, {1, 4}),
                       gfx950, 64);
  checkTransposedLoads(makeMatrixLayout(MatrixInstr::Mfma32x32x16,
                                        MatrixOperand::B, {16, 128}, {4, 1}),
                       gfx950, 64);
}

TEST(MatrixLayouts, TransposedLoadsOfWmmaOperands) {
  checkTransposedLoads(makeMatrixLayout(MatrixInstr::Wmma16x16x32,
                                        MatrixOperand::B, {64, 64}, {2, 2}),
                       TransposedLoad{8, 8}, 32);
}

TEST(MatrixLayouts, TransposedLoadsNeedColumnsAcrossLanes) {
  // An A operand holds consecutive K along registers but rows across lanes:
  // not a transposing load (plain vector loads read it).
  EXPECT_FALSE(getTransposedLoadSources(
                   makeMatrixLayout(MatrixInstr::Mfma32x32x16, MatrixOperand::A,
                                    {32, 16}, {1, 1}),
                   TransposedLoad{4, 16})
                   .has_value());
  // mma.sync's B has pairs of K per register: not 4 along registers.
  EXPECT_FALSE(getTransposedLoadSources(
                   makeMatrixLayout(MatrixInstr::MmaM16N8K16, MatrixOperand::B,
                                    {16, 8}, {1, 1}),
                   TransposedLoad{4, 16})
                   .has_value());
}

// K steps: whole multiples of the instruction's K, or one padded step where
// the fragments hold the missing K in registers only (WMMA's K 16-31 in
// registers 8-15, mma.sync's K 8-15 in its upper registers); the MFMA
// fragments spread K over lane groups and never pad.
TEST(MatrixLayouts, KSteps) {
  using MI = MatrixInstr;
  EXPECT_EQ(getMatrixKSteps(MI::Wmma16x16x32, 64), 2);
  EXPECT_EQ(getMatrixKSteps(MI::Wmma16x16x32, 16), 1);
  EXPECT_EQ(getMatrixKSteps(MI::Wmma16x16x32, 8), 0); // lane 16+ holds K 8-15
  EXPECT_EQ(getMatrixKSteps(MI::Wmma16x16x32, 48), 0);
  EXPECT_EQ(getMatrixKSteps(MI::MmaM16N8K16, 8), 1);
  EXPECT_EQ(getMatrixKSteps(MI::MmaM16N8K16, 4), 0); // t = lane % 4 holds K 2-7
  EXPECT_EQ(getMatrixKSteps(MI::Mfma16x16x32, 16), 0);
  EXPECT_EQ(getMatrixKSteps(MI::Mfma16x16x16, 32), 2);
  EXPECT_EQ(getMatrixKSteps(MI::WgmmaM64K16, 8), 0);
}
