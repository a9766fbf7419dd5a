//===- TensorDescriptorTest.cpp - gfx1250 tensor descriptors --------------===//
//
// Field by field against the gfx1250 ISA's tensor descriptor (D#) table,
// dword by dword: group 0 {pred [0], lds_addr [63:32], global_addr [120:64],
// type [127:126]}; group 1 {data_size [17:16], pad_enable [20],
// pad_interval [24:22], pad_amount [31:25], tensor_dim0 [79:48],
// tensor_dim1 [111:80], tile_dim0 [127:112], tile_dim1 [143:128], tile_dim2
// [159:144], dim0_stride [207:160], dim1_stride [255:208]}; group 2
// {tensor_dim2 [31:0], tensor_dim3 [63:32], dim2_stride [111:64], tile_dim3
// [127:112]}; group 3 {dim3_stride [47:0], tensor_dim4 [79:48], tile_dim4
// [95:80]}.
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/GPUToROCDL/GFX1250/TensorDescriptor.h"

#include <gtest/gtest.h>

using namespace kda::gfx1250;

namespace {
TDMGroups zeros() { return TDMGroups{}; }
} // namespace

TEST(TensorDescriptor, GroupZero) {
  TDMGroups g = zeros();
  setField(g, tdm::kPredicate, 1);
  setField(g, tdm::kLDSAddress, 0x1200);
  setField(g, tdm::kGlobalAddress, 0x01AB'CDEF'0123'4567);
  setField(g, tdm::kType, kTDMTensorType);
  EXPECT_EQ(g[0][0], 1u);
  EXPECT_EQ(g[0][1], 0x1200u);
  EXPECT_EQ(g[0][2], 0x0123'4567u);
  // Address bits 32-56 in bits 0-24, the type in bits 30-31.
  EXPECT_EQ(g[0][3], 0x01AB'CDEFu | (2u << 30));
  // A 57-bit address loses nothing; bit 57 and up are not the address's.
  setField(g, tdm::kGlobalAddress, ~uint64_t(0));
  EXPECT_EQ(g[0][3], 0x01FF'FFFFu | (2u << 30));
  EXPECT_EQ(getField(g, tdm::kGlobalAddress), (uint64_t(1) << 57) - 1);
}

TEST(TensorDescriptor, GroupOne) {
  TDMGroups g = zeros();
  setField(g, tdm::kDataSize, 1); // 2-byte elements
  setField(g, tdm::kTensorDim[0], 0x1234'5678);
  setField(g, tdm::kTensorDim[1], 0x9ABC'DEF0);
  setField(g, tdm::kTileDim[0], 32);
  setField(g, tdm::kTileDim[1], 64);
  setField(g, tdm::kTileDim[2], 3);
  setField(g, tdm::kTensorStride[0], 0x0000'BEEF'0000'CAFE);
  setField(g, tdm::kTensorStride[1], 0x0000'1357'2468'ACE0);
  EXPECT_EQ(g[1][0], 1u << 16);
  EXPECT_EQ(g[1][1], 0x5678u << 16);
  EXPECT_EQ(g[1][2], 0x1234u | (0xDEF0u << 16));
  EXPECT_EQ(g[1][3], 0x9ABCu | (32u << 16));
  EXPECT_EQ(g[1][4], 64u | (3u << 16));
  EXPECT_EQ(g[1][5], 0x0000'CAFEu);
  EXPECT_EQ(g[1][6], 0xBEEFu | (0xACE0u << 16));
  EXPECT_EQ(g[1][7], 0x1357'2468u);
}

TEST(TensorDescriptor, GroupsTwoAndThree) {
  TDMGroups g = zeros();
  setField(g, tdm::kTensorDim[2], 0xAAAA'5555);
  setField(g, tdm::kTensorDim[3], 7);
  setField(g, tdm::kTensorStride[2], 0x0000'0102'0304'0506);
  setField(g, tdm::kTileDim[3], 9);
  EXPECT_EQ(g[2][0], 0xAAAA'5555u);
  EXPECT_EQ(g[2][1], 7u);
  EXPECT_EQ(g[2][2], 0x0304'0506u);
  EXPECT_EQ(g[2][3], 0x0102u | (9u << 16));
  setField(g, tdm::kTensorStride[3], 0x0000'0A0B'0C0D'0E0Fu);
  setField(g, tdm::kTensorDim[4], 0x1122'3344);
  setField(g, tdm::kTileDim[4], 5);
  EXPECT_EQ(g[3][0], 0x0C0D'0E0Fu);
  EXPECT_EQ(g[3][1], 0x0A0Bu | (0x3344u << 16));
  EXPECT_EQ(g[3][2], 0x1122u | (5u << 16));
  EXPECT_EQ(g[3][3], 0u);
}

TEST(TensorDescriptor, FieldsDoNotOverlap) {
  // Every field set to all ones leaves the others' bits alone.
  std::vector<TDMField> fields = {
      tdm::kPredicate, tdm::kLDSAddress, tdm::kGlobalAddress, tdm::kType,
      tdm::kDataSize,  tdm::kPadEnable,  tdm::kPadInterval,   tdm::kPadAmount};
  for (unsigned d = 0; d < kTDMMaxRank; ++d)
    fields.insert(fields.end(), {tdm::kTensorDim[d], tdm::kTileDim[d]});
  for (unsigned d = 0; d + 1 < kTDMMaxRank; ++d)
    fields.push_back(tdm::kTensorStride[d]);
  for (const TDMField &f : fields) {
    unsigned dwords = kTDMGroupDwords[f.group];
    EXPECT_LE(f.first + f.width, dwords * 32);
    TDMGroups g = zeros();
    setField(g, f, ~uint64_t(0));
    for (const TDMField &other : fields)
      if (&other != &f && (other.group != f.group || other.first != f.first))
        EXPECT_EQ(getField(g, other), 0u)
            << "field at " << f.group << ":" << f.first << " spills into "
            << other.group << ":" << other.first;
  }
}

TEST(TensorDescriptor, Slices) {
  auto slices = getFieldSlices(tdm::kTensorStride[0]);
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[0].dword, 5u);
  EXPECT_EQ(slices[0].bits, 32u);
  EXPECT_EQ(slices[1].dword, 6u);
  EXPECT_EQ(slices[1].valueBit, 32u);
  EXPECT_EQ(slices[1].bits, 16u);
}

TEST(TensorDescriptor, WaitCount) {
  EXPECT_EQ(getTensorCountWait(0), 0u);
  EXPECT_EQ(getTensorCountWait(2), 2u);
  EXPECT_EQ(getTensorCountWait(1000), 63u);
}

TEST(TensorDescriptor, Padding) {
  // 4-byte elements, 8 dwords of padding after every 64: the dword
  // upstream's amdgpu.make_dma_descriptor lowering builds for padShared(8
  // every 64), 0x0F520000.
  std::optional<TDMPadding> pad = getPaddingEncoding(64 * 4, 8 * 4);
  ASSERT_TRUE(pad);
  EXPECT_EQ(pad->interval, 5u);
  EXPECT_EQ(pad->amount, 7u);
  TDMGroups g = zeros();
  setField(g, tdm::kDataSize, 2);
  setField(g, tdm::kPadEnable, 1);
  setField(g, tdm::kPadInterval, pad->interval);
  setField(g, tdm::kPadAmount, pad->amount);
  EXPECT_EQ(g[1][0], 0x0F52'0000u);
  // The extremes: 2 and 256 dwords, 1 and 128 dwords.
  EXPECT_EQ(getPaddingEncoding(8, 4)->interval, 0u);
  EXPECT_EQ(getPaddingEncoding(8, 4)->amount, 0u);
  EXPECT_EQ(getPaddingEncoding(1024, 512)->interval, 7u);
  EXPECT_EQ(getPaddingEncoding(1024, 512)->amount, 127u);
  // Not dwords, a 1-dword or 512-dword interval, 129 dwords of padding.
  EXPECT_FALSE(getPaddingEncoding(64, 2));
  EXPECT_FALSE(getPaddingEncoding(66, 4));
  EXPECT_FALSE(getPaddingEncoding(4, 4));
  EXPECT_FALSE(getPaddingEncoding(2048, 4));
  EXPECT_FALSE(getPaddingEncoding(96, 4));
  EXPECT_FALSE(getPaddingEncoding(64, 129 * 4));
}
