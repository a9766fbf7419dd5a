//===- TensorDescriptor.h - gfx1250 Tensor Data Mover descriptors -*- C++
//-*-===//
//
// The descriptor (D#) of tensor_load_to_lds / tensor_store_from_lds: four
// groups of 4, 8, 4 and 4 dwords holding the fields below (dimension 0 is the
// innermost; sizes and strides count elements):
//   group 0: predicate (the wave copies) bit 0; LDS byte address 32-63; global
//            byte address 64-120; type 126-127 (2: tensor).
//   group 1: data size (log2 of the element bytes) 16-17; LDS padding
//            enable 20, interval 22-24, amount 25-31; tensor_dim0 48-79;
//            tensor_dim1 80-111; tile_dim0 112-127; tile_dim1 128-143;
//            tile_dim2 144-159; stride of dim 1 160-207; stride of dim 2
//            208-255.
//   group 2: tensor_dim2 0-31; tensor_dim3 32-63; stride of dim 3 64-111;
//            tile_dim3 112-127.
//   group 3: stride of dim 4 0-47; tensor_dim4 48-79; tile_dim4 80-95.
// The multicast mask, atomic barrier and iteration fields stay 0 (off).
// Elements of the tile past tensor_dim read as zeros and are not
// written by stores.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_GPUTOROCDL_GFX1250_TENSORDESCRIPTOR_H
#define KDA_CONVERSION_GPUTOROCDL_GFX1250_TENSORDESCRIPTOR_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cstdint>
#include <optional>

namespace kda::gfx1250 {

/// `width` bits from bit `first` of descriptor group `group`.
struct TDMField {
  unsigned group;
  unsigned first;
  unsigned width;
};

/// Dwords of each descriptor group.
inline constexpr unsigned kTDMGroupDwords[4] = {4, 8, 4, 4};
/// Dimensions a descriptor describes.
inline constexpr unsigned kTDMMaxRank = 5;
/// Largest tile dimension (16-bit fields).
inline constexpr int64_t kTDMMaxTileDim = 0xFFFF;
/// The type field's value for tensor (not gather) copies.
inline constexpr uint64_t kTDMTensorType = 2;

namespace tdm {
inline constexpr TDMField kPredicate{0, 0, 1};
inline constexpr TDMField kLDSAddress{0, 32, 32};
inline constexpr TDMField kGlobalAddress{0, 64, 57};
inline constexpr TDMField kType{0, 126, 2};
inline constexpr TDMField kDataSize{1, 16, 2};
/// LDS padding on loads: after every 2^(interval + 1) dwords written, skip
/// amount + 1 dwords (getPaddingEncoding).
inline constexpr TDMField kPadEnable{1, 20, 1};
inline constexpr TDMField kPadInterval{1, 22, 3};
inline constexpr TDMField kPadAmount{1, 25, 7};
/// tensor_dim i and tile_dim i, i = 0 the innermost dimension.
inline constexpr TDMField kTensorDim[kTDMMaxRank] = {
    {1, 48, 32}, {1, 80, 32}, {2, 0, 32}, {2, 32, 32}, {3, 48, 32}};
inline constexpr TDMField kTileDim[kTDMMaxRank] = {
    {1, 112, 16}, {1, 128, 16}, {1, 144, 16}, {2, 112, 16}, {3, 80, 16}};
/// The stride of dimension i + 1 (the innermost's is 1).
inline constexpr TDMField kTensorStride[kTDMMaxRank - 1] = {
    {1, 160, 48}, {1, 208, 48}, {2, 64, 48}, {3, 0, 48}};
} // namespace tdm

/// One dword's share of a field: `bits` bits of the value from bit
/// `valueBit` land at bit `dwordBit` of dword `dword` of the field's group.
struct TDMFieldSlice {
  unsigned dword;
  unsigned dwordBit;
  unsigned valueBit;
  unsigned bits;
};

/// The dwords `field` spans, lowest first. The compiler packs run-time
/// values through these slices and the constant packing below uses them too,
/// so the field positions live here alone.
llvm::SmallVector<TDMFieldSlice, 3> getFieldSlices(TDMField field);

/// A descriptor's groups as dwords (group 0 uses 4 of its 8, groups 2-3 too).
using TDMGroups = std::array<std::array<uint32_t, 8>, 4>;
/// Writes `value`'s low `field.width` bits into `field` of `groups`.
void setField(TDMGroups &groups, TDMField field, uint64_t value);
/// Reads `field` of `groups`.
uint64_t getField(const TDMGroups &groups, TDMField field);

/// The kPadInterval and kPadAmount values of LDS padding of `paddingBytes`
/// after every `intervalBytes`, when the engine can pad so: whole dwords,
/// an interval of a power of two from 2 to 256 dwords, padding of 1 to 128
/// dwords. Only loads pad.
struct TDMPadding {
  uint64_t interval;
  uint64_t amount;
};
inline std::optional<TDMPadding> getPaddingEncoding(int64_t intervalBytes,
                                                    int64_t paddingBytes) {
  if (intervalBytes <= 0 || paddingBytes <= 0 || intervalBytes % 4 ||
      paddingBytes % 4)
    return std::nullopt;
  int64_t interval = intervalBytes / 4, amount = paddingBytes / 4;
  if (!llvm::isPowerOf2_64(interval) || interval < 2 || interval > 256 ||
      amount > 128)
    return std::nullopt;
  return TDMPadding{llvm::Log2_64(interval) - 1, uint64_t(amount - 1)};
}

/// The s_wait_tensorcnt operand that leaves at most `pending` of the wave's
/// tensor copies in flight (one per copy op): `pending`, clamped to the
/// counter's 6 bits (a larger bound always holds).
unsigned getTensorCountWait(unsigned pending);

} // namespace kda::gfx1250

#endif // KDA_CONVERSION_GPUTOROCDL_GFX1250_TENSORDESCRIPTOR_H
