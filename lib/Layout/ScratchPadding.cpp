//===- ScratchPadding.cpp - bank-conflict-aware scratch rows --------------===//
#include "kda/Layout/ScratchPadding.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace kda;

namespace {
constexpr int64_t kWordBytes = 4;
constexpr int64_t kWarpLanes = 32;
constexpr int64_t kMaxVectorBytes = 16;
} // namespace

int64_t kda::getScratchVectorElements(const LinearLayout &layout,
                                      int64_t elementBytes,
                                      int64_t rowPadding) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  if (shape.empty())
    return 1;
  int64_t vectorBytes =
      std::min(kMaxVectorBytes,
               layout.getContiguousRegisters(shape.size() - 1) * elementBytes);
  // Every row's first element must stay aligned to the vector.
  int64_t rowBytes = (shape.back() + rowPadding) * elementBytes;
  while (vectorBytes > elementBytes && rowBytes % vectorBytes)
    vectorBytes /= 2;
  return std::max<int64_t>(1, vectorBytes / elementBytes);
}

int64_t kda::getScratchAccessCycles(const LinearLayout &layout,
                                    int64_t elementBytes, int64_t rowPadding,
                                    bool skipDuplicates) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  int64_t rowLength = shape.empty() ? 1 : shape.back();
  uint64_t duplicates =
      skipDuplicates ? layout.getDuplicateMask(HWDim::Register) : 0;
  int64_t lanes = std::min(kWarpLanes, layout.getSize(HWDim::Lane));
  int64_t vector = getScratchVectorElements(layout, elementBytes, rowPadding);
  int64_t vectorBytes = vector * elementBytes;
  // Banks serve 32 words a cycle: 16-byte accesses 8 lanes at a time.
  int64_t phaseLanes = std::max<int64_t>(
      1, kWarpLanes * kWordBytes / std::max(kWordBytes, vectorBytes));
  int64_t cycles = 0;
  for (int64_t r = 0; r < layout.getSize(HWDim::Register); r += vector) {
    if (r & duplicates)
      continue;
    for (int64_t first = 0; first < lanes; first += phaseLanes) {
      llvm::DenseSet<int64_t> words;
      for (int64_t lane = first; lane < std::min(lanes, first + phaseLanes);
           ++lane) {
        LinearLayout::Coord c = layout.apply(r, lane, 0);
        int64_t linear = 0;
        for (auto [x, size] : llvm::zip_equal(c, shape))
          linear = linear * size + x;
        int64_t byte =
            getPaddedScratchIndex(linear, rowLength, rowPadding) * elementBytes;
        for (int64_t w = byte / kWordBytes;
             w <= (byte + vectorBytes - 1) / kWordBytes; ++w)
          words.insert(w);
      }
      llvm::DenseMap<int64_t, int64_t> perBank;
      int64_t worst = 0;
      for (int64_t w : words)
        worst = std::max(worst, ++perBank[w % kScratchBanks]);
      cycles += worst;
    }
  }
  return cycles;
}

int64_t kda::getScratchRowPadding(const LinearLayout &src,
                                  const LinearLayout &dst,
                                  int64_t elementBytes) {
  llvm::ArrayRef<int64_t> shape = src.getShape();
  int64_t bytes = elementBytes;
  for (int64_t s : shape)
    bytes *= s;
  // A reshape's two sides index one linear order over different rows; large
  // tiles keep every byte of shared memory for the kernel's buffers.
  if (shape != dst.getShape() || shape.size() < 2 ||
      shape.back() * elementBytes < kWordBytes ||
      bytes > kMaxPaddedScratchBytes)
    return 0;
  int64_t wordElements = std::max<int64_t>(1, kWordBytes / elementBytes);
  int64_t best = 0, bestCycles = -1;
  for (int64_t words : {0, 1, 2, 4, 8}) {
    int64_t padding = words * wordElements;
    int64_t cycles = getScratchAccessCycles(src, elementBytes, padding, true) +
                     getScratchAccessCycles(dst, elementBytes, padding, false);
    if (bestCycles < 0 || cycles < bestCycles) {
      best = padding;
      bestCycles = cycles;
    }
  }
  return best;
}
