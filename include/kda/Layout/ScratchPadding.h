//===- ScratchPadding.h - bank-conflict-aware scratch rows ------*- C++ -*-===//
//
// A tile that changes layout goes through scratch shared memory: every thread
// stores its elements, then loads those of the new layout. Row-major with
// power-of-two rows, the threads of a warp that read down a column (the
// matrix units' operand layouts do) all hit one memory bank and are served
// one after another. Padding every row by a few 32-bit words spreads them
// over the banks; the padding is chosen from both layouts, per conversion.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_LAYOUT_SCRATCHPADDING_H
#define KDA_LAYOUT_SCRATCHPADDING_H

#include "kda/Layout/LinearLayout.h"

#include <cstdint>

namespace kda {

/// Shared-memory banks of 4-byte words on every GPU target (sm_90a, gfx950
/// and gfx1250 serve a warp's or a half-wave's access 32 words at a time).
constexpr int64_t kScratchBanks = 32;
/// Tiles beyond this many bytes go through unpadded scratch.
constexpr int64_t kMaxPaddedScratchBytes = 32 * 1024;

/// The elements of `layout` a thread moves with one scratch access: its
/// registers contiguous along the last dimension, up to 16 bytes, as far as
/// rows `rowPadding` elements longer keep them aligned.
int64_t getScratchVectorElements(const LinearLayout &layout,
                                 int64_t elementBytes, int64_t rowPadding);

/// The cycles a warp (lanes 0 .. 31 of warp 0) spends on its scratch
/// accesses, with rows of the row-major scratch `rowPadding` elements longer
/// than the tile's last dimension: for each access (getScratchVectorElements
/// registers; those holding duplicates skipped when `skipDuplicates`) and
/// each group of lanes the banks serve together (all 32 for accesses up to 4
/// bytes, 8 for 16 bytes), the largest number of distinct 4-byte words in one
/// bank, summed.
int64_t getScratchAccessCycles(const LinearLayout &layout, int64_t elementBytes,
                               int64_t rowPadding, bool skipDuplicates);

/// The row padding (elements) of the scratch through which a tile goes from
/// `src` to `dst`: the one of 0, 1, 2, 4 or 8 words that costs the fewest
/// store plus load cycles, the smallest among equals; 0 for tiles of rank 1,
/// tiles over kMaxPaddedScratchBytes and where the shapes differ (a
/// reshape).
int64_t getScratchRowPadding(const LinearLayout &src, const LinearLayout &dst,
                             int64_t elementBytes);

/// The scratch index of the element at row-major index `linear` of a tile
/// whose last dimension has `rowLength` elements.
inline int64_t getPaddedScratchIndex(int64_t linear, int64_t rowLength,
                                     int64_t rowPadding) {
  return linear + (linear / rowLength) * rowPadding;
}

} // namespace kda

#endif // KDA_LAYOUT_SCRATCHPADDING_H
