//===- LinearLayout.h - layouts as linear maps over bits --------*- C++ -*-===//
//
// Every distributed layout is turned into one representation, and all layout
// math (which thread holds which element, what a reduction or a conversion
// must move) is done on it. A LinearLayout maps the bits of a hardware index
// (register, lane, warp) to the bits of a tile coordinate: each input bit
// has a basis vector (one coordinate per tile dimension) and the coordinate
// of an index is the XOR of the bases of its set bits. Sizes are powers of
// two; a zero basis means the bit duplicates data (broadcast/replication).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_LAYOUT_LINEARLAYOUT_H
#define KDA_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>
#include <string>

namespace kda {

/// The hardware index spaces a layout maps from.
enum class HWDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
constexpr unsigned kNumHWDims = 3;

class LinearLayout {
public:
  using Coord = llvm::SmallVector<int64_t, 4>;

  /// A layout over a tile of `shape` (powers of two) with no input bits.
  explicit LinearLayout(llvm::ArrayRef<int64_t> shape);

  /// Appends a bit to `dim` whose basis is `basis` (one entry per tile
  /// dimension, each below the dimension's size).
  void addBasis(HWDim dim, llvm::ArrayRef<int64_t> basis);

  unsigned getRank() const { return shape.size(); }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getNumBits(HWDim dim) const { return bases[unsigned(dim)].size(); }
  int64_t getSize(HWDim dim) const { return int64_t(1) << getNumBits(dim); }
  llvm::ArrayRef<int64_t> getBasis(HWDim dim, unsigned bit) const {
    return bases[unsigned(dim)][bit];
  }

  /// The tile coordinate held at (register, lane, warp).
  Coord apply(int64_t reg, int64_t lane, int64_t warp) const;
  /// The coordinate contributed by one hardware dimension alone.
  Coord applyDim(HWDim dim, int64_t index) const;

  /// Bits of `dim` whose basis is zero: indices differing only in them hold
  /// the same elements.
  uint64_t getDuplicateMask(HWDim dim) const;
  /// Bits of `dim` whose basis is non-zero only in tile dimension `axis`.
  uint64_t getMaskAlongAxis(HWDim dim, unsigned axis) const;
  /// Bits of `dim` whose basis is non-zero in tile dimension `axis` (and
  /// maybe others).
  uint64_t getMaskTouchingAxis(HWDim dim, unsigned axis) const;

  /// The register (in this layout, for the same lane and warp) holding the
  /// element whose register-part coordinate is `coord`, when it exists.
  /// Lane and warp contributions must already be removed from `coord`.
  std::optional<int64_t> findRegister(llvm::ArrayRef<int64_t> coord) const;

  /// The layout with tile dimension `dim` removed (bases lose that entry).
  LinearLayout dropDim(unsigned dim) const;
  /// The layout with a size-1 tile dimension inserted at `dim`.
  LinearLayout insertUnitDim(unsigned dim) const;
  /// The layout with tile dimensions permuted: new dim i = old order[i].
  LinearLayout permuteDims(llvm::ArrayRef<int32_t> order) const;

  /// Number of consecutive elements along `dim` held in consecutive
  /// registers starting at register 0 (the widest contiguous vector).
  int64_t getContiguousRegisters(unsigned dim) const;

  /// Whether lanes and warps map to the same coordinates in both layouts
  /// (so converting between them only permutes registers).
  bool hasSameLanesAndWarps(const LinearLayout &other) const;

  bool operator==(const LinearLayout &other) const {
    return shape == other.shape && bases == other.bases;
  }
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  std::array<llvm::SmallVector<Coord>, kNumHWDims> bases;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const LinearLayout &layout) {
  layout.print(os);
  return os;
}

/// The blocked layout (Triton/Gluon semantics) over `shape` as a linear
/// layout: sizePerThread contiguous elements per register group, lanes and
/// warps tiled fastest-dimension first along `order`; a tile larger than the
/// block repeats it in further registers, a smaller one wraps (replication).
LinearLayout makeBlockedLinearLayout(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<unsigned> sizePerThread,
                                     llvm::ArrayRef<unsigned> threadsPerWarp,
                                     llvm::ArrayRef<unsigned> warpsPerCTA,
                                     llvm::ArrayRef<unsigned> order);

} // namespace kda

#endif // KDA_LAYOUT_LINEARLAYOUT_H
