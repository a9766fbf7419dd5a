//===- MatrixLayouts.cpp - operand layouts of matrix instructions ---------===//
//
// The fragments below are the tables of the ISA documents written as bases:
//  - NVIDIA PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point
//    type" and "Register Fragments" of wgmma .m64nNk16: with groupID =
//    lane / 4 and t = lane % 4, C element i is at (groupID + 8 * (i / 2),
//    2t + i % 2); A element i at (groupID + 8 * (i / 2 % 2),
//    2t + i % 2 + 8 * (i / 4)); B element i at (2t + i % 2 + 8 * (i / 2),
//    groupID).
//  - AMD CDNA ISA (gfx950), dense MFMA register layouts: the 32x32
//    accumulator's register i of lane l is row 8 * (i / 4) + 4 * (l / 32) +
//    i % 4, column l % 32; the 16x16 one's is row 4 * (l / 16) + i, column
//    l % 16; an input lane holds 8 consecutive K of one row (A) or column
//    (B), K group l / 32 (32x32x16) or l / 16 (16x16x32);
//    v_mfma_f32_16x16x4_f32 the same with one fp32 element per lane
//    (K = l / 16).
//  - mma.m16n8k8 with .tf32 inputs: A element i at (groupID + 8 * (i % 2),
//    t + 4 * (i / 2)), B element i at (t + 4 * i, groupID), C as above.
//  - wgmma .m64nNk16's accumulator: warp w of the warpgroup holds rows 16w
//    to 16w + 15 as m16n8's C, repeated along N (the register order of
//    "Register Fragments": element i at column 8 * (i / 4) + 2t + i % 2).
//  - AMD gfx1250 (CDNA5 ISA, "Dense Matrix Layouts" of
//    v_wmma_f32_16x16x32_{bf16,f16}, wave32): D register i of lane l is row
//    8 * (l / 16) + i, column l % 16; element e of an A lane is row l % 16
//    (B: column l % 16), K = 16 * (e / 8) + 8 * (l / 16) + e % 8, so lanes
//    0-15 hold K 0-7 and 16-23, lanes 16-31 K 8-15 and 24-31.
//
//===----------------------------------------------------------------------===//
#include "kda/Layout/MatrixLayouts.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

using namespace kda;

std::array<int64_t, 3> kda::getMatrixInstructionShape(MatrixInstr instr) {
  switch (instr) {
  case MatrixInstr::MmaM16N8K16:
    return {16, 8, 16};
  case MatrixInstr::Mfma32x32x16:
    return {32, 32, 16};
  case MatrixInstr::Mfma16x16x32:
  case MatrixInstr::Wmma16x16x32:
    return {16, 16, 32};
  case MatrixInstr::MmaM16N8K8Tf32:
    return {16, 8, 8};
  case MatrixInstr::Mfma16x16x16:
    return {16, 16, 16};
  case MatrixInstr::Mfma16x16x4F32:
    return {16, 16, 4};
  case MatrixInstr::WgmmaM64K16:
    return {64, 8, 16};
  }
  llvm_unreachable("unknown matrix instruction");
}

int64_t kda::getMatrixKSteps(MatrixInstr instr, int64_t k) {
  int64_t instrK = getMatrixInstructionShape(instr)[2];
  if (k > 0 && k % instrK == 0)
    return k / instrK;
  if (k <= 0 || k > instrK || !llvm::isPowerOf2_64(k) ||
      instr == MatrixInstr::WgmmaM64K16)
    return 0;
  for (auto [operand, kDim] :
       {std::pair(MatrixOperand::A, 1u), std::pair(MatrixOperand::B, 0u)}) {
    LinearLayout fragment = getMatrixFragmentLayout(instr, operand);
    for (unsigned bit = 0; bit < fragment.getNumBits(HWDim::Lane); ++bit)
      if (fragment.getBasis(HWDim::Lane, bit)[kDim] >= k)
        return 0;
  }
  return 1;
}

unsigned kda::getMatrixInstructionLanes(MatrixInstr instr) {
  switch (instr) {
  case MatrixInstr::MmaM16N8K16:
  case MatrixInstr::MmaM16N8K8Tf32:
  case MatrixInstr::Wmma16x16x32:
  case MatrixInstr::WgmmaM64K16: // each warp of the warpgroup
    return 32;
  case MatrixInstr::Mfma32x32x16:
  case MatrixInstr::Mfma16x16x32:
  case MatrixInstr::Mfma16x16x16:
  case MatrixInstr::Mfma16x16x4F32:
    return 64;
  }
  llvm_unreachable("unknown matrix instruction");
}

namespace {
/// The tile dimensions of `operand` in the instruction's [M, N, K] order:
/// A is [M, K], B [K, N], C [M, N].
std::array<unsigned, 2> operandDims(MatrixOperand operand) {
  switch (operand) {
  case MatrixOperand::A:
    return {0, 2};
  case MatrixOperand::B:
    return {2, 1};
  case MatrixOperand::C:
    return {0, 1};
  }
  llvm_unreachable("unknown matrix operand");
}

/// Adds one basis per bit of `count` (a power of two), stepping `step` along
/// tile dimension `dim` (of two).
void addStrided(LinearLayout &layout, HWDim hw, unsigned dim, int64_t step,
                int64_t count) {
  for (int64_t s = step; s < step * count; s *= 2) {
    int64_t basis[2] = {0, 0};
    basis[dim] = s;
    layout.addBasis(hw, basis);
  }
}

/// The 32 lanes of an NVIDIA m16n8 fragment: t = lane % 4 steps `tStep`
/// (two bits), groupID = lane / 4 steps `groupStep` (three bits).
void addNvidiaLanes(LinearLayout &layout, unsigned tDim, unsigned groupDim) {
  addStrided(layout, HWDim::Lane, tDim, 2, 4);
  addStrided(layout, HWDim::Lane, groupDim, 1, 8);
}
} // namespace

LinearLayout kda::getMatrixFragmentLayout(MatrixInstr instr,
                                          MatrixOperand operand) {
  if (instr == MatrixInstr::WgmmaM64K16) {
    // One warp's 16 rows of the accumulator, 8 columns: m16n8k16's.
    assert(operand == MatrixOperand::C &&
           "wgmma operands are in shared memory");
    return getMatrixFragmentLayout(MatrixInstr::MmaM16N8K16, operand);
  }
  std::array<int64_t, 3> mnk = getMatrixInstructionShape(instr);
  std::array<unsigned, 2> dims = operandDims(operand);
  LinearLayout layout({mnk[dims[0]], mnk[dims[1]]});
  switch (instr) {
  case MatrixInstr::MmaM16N8K16:
    switch (operand) {
    case MatrixOperand::C: // [M, N]: 2t + i % 2, groupID + 8 * (i / 2)
      layout.addBasis(HWDim::Register, {0, 1});
      layout.addBasis(HWDim::Register, {8, 0});
      addNvidiaLanes(layout, /*tDim=*/1, /*groupDim=*/0);
      break;
    case MatrixOperand::A: // [M, K]: the C pattern, and K + 8 for i >= 4
      layout.addBasis(HWDim::Register, {0, 1});
      layout.addBasis(HWDim::Register, {8, 0});
      layout.addBasis(HWDim::Register, {0, 8});
      addNvidiaLanes(layout, /*tDim=*/1, /*groupDim=*/0);
      break;
    case MatrixOperand::B: // [K, N]: K = 2t + i % 2 + 8 * (i / 2), N = groupID
      layout.addBasis(HWDim::Register, {1, 0});
      layout.addBasis(HWDim::Register, {8, 0});
      addNvidiaLanes(layout, /*tDim=*/0, /*groupDim=*/1);
      break;
    }
    return layout;
  case MatrixInstr::MmaM16N8K8Tf32:
    switch (operand) {
    case MatrixOperand::C: // as m16n8k16's
      layout.addBasis(HWDim::Register, {0, 1});
      layout.addBasis(HWDim::Register, {8, 0});
      addNvidiaLanes(layout, /*tDim=*/1, /*groupDim=*/0);
      break;
    case MatrixOperand::A: // [M, K]: row groupID (+ 8 for i odd), col t (+ 4)
      layout.addBasis(HWDim::Register, {8, 0});
      layout.addBasis(HWDim::Register, {0, 4});
      addStrided(layout, HWDim::Lane, 1, 1, 4);
      addStrided(layout, HWDim::Lane, 0, 1, 8);
      break;
    case MatrixOperand::B: // [K, N]: row t (+ 4 for b1), col groupID
      layout.addBasis(HWDim::Register, {4, 0});
      addStrided(layout, HWDim::Lane, 0, 1, 4);
      addStrided(layout, HWDim::Lane, 1, 1, 8);
      break;
    }
    return layout;
  case MatrixInstr::Mfma32x32x16:
  case MatrixInstr::Mfma16x16x32:
  case MatrixInstr::Mfma16x16x16:
  case MatrixInstr::Mfma16x16x4F32: {
    // Lanes: the low lanes walk the accumulator's columns, or the row of A
    // and the column of B; the high lane bits are the row group (C) or the
    // K group (A, B).
    int64_t width = mnk[0]; // 32 or 16 lanes per row group
    unsigned groupBits = llvm::Log2_64(64 / width);
    if (operand == MatrixOperand::C) {
      // Registers: i % 4, then (32x32 only) 8 * (i / 4); lane groups: + 4.
      layout.addBasis(HWDim::Register, {1, 0});
      layout.addBasis(HWDim::Register, {2, 0});
      if (width == 32) {
        layout.addBasis(HWDim::Register, {8, 0});
        layout.addBasis(HWDim::Register, {16, 0});
      }
      addStrided(layout, HWDim::Lane, 1, 1, width);
      addStrided(layout, HWDim::Lane, 0, 4, int64_t(1) << groupBits);
      return layout;
    }
    // A [M, K] or B [K, N]: consecutive K per lane (8; 4 for 16x16x16, 1 for
    // 16x16x4_f32),
    // K groups of as many across the high lane bits.
    unsigned kDim = operand == MatrixOperand::A ? 1 : 0;
    int64_t perLane = mnk[2] >> groupBits;
    addStrided(layout, HWDim::Register, kDim, 1, perLane);
    addStrided(layout, HWDim::Lane, 1 - kDim, 1, width);
    addStrided(layout, HWDim::Lane, kDim, perLane, int64_t(1) << groupBits);
    return layout;
  }
  case MatrixInstr::Wmma16x16x32: {
    if (operand == MatrixOperand::C) {
      // Registers: rows 0-7; lanes: columns, then the row half (+ 8).
      addStrided(layout, HWDim::Register, 0, 1, 8);
      addStrided(layout, HWDim::Lane, 1, 1, 16);
      layout.addBasis(HWDim::Lane, {8, 0});
      return layout;
    }
    // A [M, K] or B [K, N]: registers K 0-7 then + 16; the low lanes the
    // row of A or the column of B, the high lane K + 8.
    unsigned kDim = operand == MatrixOperand::A ? 1 : 0;
    addStrided(layout, HWDim::Register, kDim, 1, 8);
    addStrided(layout, HWDim::Register, kDim, 16, 2);
    addStrided(layout, HWDim::Lane, 1 - kDim, 1, 16);
    addStrided(layout, HWDim::Lane, kDim, 8, 2);
    return layout;
  }
  case MatrixInstr::WgmmaM64K16: // m16n8k16's C, returned above
    break;
  }
  llvm_unreachable("unknown matrix instruction");
}

LinearLayout kda::getWgmmaAccumulatorLayout(int64_t n) {
  assert(n >= 8 && n <= 256 && llvm::isPowerOf2_64(n) && "wgmma N");
  LinearLayout layout({64, n});
  layout.addBasis(HWDim::Register, {0, 1});
  layout.addBasis(HWDim::Register, {8, 0});
  addStrided(layout, HWDim::Register, 1, 8, n / 8);
  addNvidiaLanes(layout, /*tDim=*/1, /*groupDim=*/0);
  addStrided(layout, HWDim::Warp, 0, 16, 4);
  return layout;
}

LinearLayout kda::makeMatrixLayout(MatrixInstr instr, MatrixOperand operand,
                                   llvm::ArrayRef<int64_t> shape,
                                   std::array<unsigned, 2> warps) {
  assert(shape.size() == 2 && "matrix operands are 2-d");
  std::array<unsigned, 2> dims = operandDims(operand);
  LinearLayout fragment = getMatrixFragmentLayout(instr, operand);
  LinearLayout layout(shape);
  for (HWDim hw : {HWDim::Register, HWDim::Lane})
    for (unsigned bit = 0; bit < fragment.getNumBits(hw); ++bit)
      layout.addBasis(hw, fragment.getBasis(hw, bit));
  // Warps along M, then along N; an operand without that dimension (B has
  // no M, A no N) is replicated across those warps.
  int64_t covered[2] = {fragment.getShape()[0], fragment.getShape()[1]};
  for (unsigned w = 0; w < 2; ++w) {
    unsigned mnDim = w; // 0: M, 1: N
    int64_t count = warps[w];
    assert(count > 0 && llvm::isPowerOf2_64(count) && "warps: powers of two");
    int tileDim = dims[0] == mnDim ? 0 : dims[1] == mnDim ? 1 : -1;
    if (tileDim < 0) {
      for (int64_t c = 1; c < count; c *= 2)
        layout.addBasis(HWDim::Warp, {0, 0});
      continue;
    }
    addStrided(layout, HWDim::Warp, tileDim, covered[tileDim], count);
    covered[tileDim] *= count;
  }
  // Registers repeat the block: columns first, then rows.
  for (unsigned d : {1u, 0u})
    addStrided(layout, HWDim::Register, d, covered[d],
               std::max<int64_t>(1, shape[d] / covered[d]));
  return layout;
}

std::optional<MatrixLoadPlan>
kda::getMatrixLoadPlan(const LinearLayout &layout) {
  if (layout.getRank() != 2 || layout.getNumBits(HWDim::Lane) != 5 ||
      layout.getNumBits(HWDim::Register) < 1)
    return std::nullopt;
  // Register bit 0 and lane bits 0-4, as [row, column] steps.
  using Pattern = std::array<std::array<int64_t, 2>, 6>;
  static constexpr Pattern plain = {
      {{0, 1}, {0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}};
  static constexpr Pattern transposed = {
      {{1, 0}, {2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}}};
  auto matches = [&](const Pattern &pattern) {
    for (unsigned i = 0; i < 6; ++i) {
      llvm::ArrayRef<int64_t> basis = i == 0
                                          ? layout.getBasis(HWDim::Register, 0)
                                          : layout.getBasis(HWDim::Lane, i - 1);
      if (basis[0] != pattern[i][0] || basis[1] != pattern[i][1])
        return false;
    }
    return true;
  };
  bool isPlain = matches(plain);
  if (!isPlain && !matches(transposed))
    return std::nullopt;
  auto wholeBlocks = [&](HWDim hw, unsigned first) {
    for (unsigned bit = first; bit < layout.getNumBits(hw); ++bit) {
      llvm::ArrayRef<int64_t> basis = layout.getBasis(hw, bit);
      if (basis[0] % 8 || basis[1] % 8)
        return false;
    }
    return true;
  };
  if (!wholeBlocks(HWDim::Register, 1) || !wholeBlocks(HWDim::Warp, 0))
    return std::nullopt;
  unsigned blocks = layout.getSize(HWDim::Register) / 2;
  return MatrixLoadPlan{!isPlain, std::min(4u, blocks)};
}

std::optional<LinearLayout>
kda::getTransposedLoadSources(const LinearLayout &layout, TransposedLoad load) {
  unsigned regBits = llvm::Log2_32(load.elements),
           laneBits = llvm::Log2_32(load.groupLanes);
  if (layout.getRank() != 2 || layout.getNumBits(HWDim::Register) < regBits ||
      layout.getNumBits(HWDim::Lane) < laneBits)
    return std::nullopt;
  for (unsigned bit = 0; bit < regBits; ++bit) {
    llvm::ArrayRef<int64_t> basis = layout.getBasis(HWDim::Register, bit);
    if (basis[0] != int64_t(1) << bit || basis[1] != 0)
      return std::nullopt;
  }
  for (unsigned bit = 0; bit < laneBits; ++bit) {
    llvm::ArrayRef<int64_t> basis = layout.getBasis(HWDim::Lane, bit);
    if (basis[0] != 0 || basis[1] != int64_t(1) << bit)
      return std::nullopt;
  }
  // Lane s of a group points at row s / segments, column elements *
  // (s % segments): its low bits step columns by whole segments, the rest
  // rows.
  unsigned segmentBits = laneBits - regBits;
  LinearLayout sources(layout.getShape());
  for (HWDim hw : {HWDim::Register, HWDim::Lane, HWDim::Warp})
    for (unsigned bit = 0; bit < layout.getNumBits(hw); ++bit) {
      llvm::ArrayRef<int64_t> basis = layout.getBasis(hw, bit);
      if (hw == HWDim::Register && bit < regBits) {
        sources.addBasis(hw, {0, 0}); // within one load
      } else if (hw == HWDim::Lane && bit < laneBits) {
        if (bit < segmentBits)
          sources.addBasis(hw, {0, int64_t(load.elements) << bit});
        else
          sources.addBasis(hw, {int64_t(1) << (bit - segmentBits), 0});
      } else {
        if (basis[0] % load.elements || basis[1] % load.groupLanes)
          return std::nullopt;
        sources.addBasis(hw, basis);
      }
    }
  return sources;
}
