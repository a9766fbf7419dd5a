//===- LayoutAttrs.h - tile layout attributes as linear layouts -*- C++ -*-===//
#ifndef KDA_LAYOUT_LAYOUTATTRS_H
#define KDA_LAYOUT_LAYOUTATTRS_H

#include "kda/Layout/LinearLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kda {
/// The linear layout of a distributed layout attribute (blocked, slice, mma)
/// over a tile of `shape`. The one place layout attributes get their meaning.
LinearLayout toLinearLayout(mlir::Attribute layout,
                            llvm::ArrayRef<int64_t> shape);
/// The linear layout of a tile type, which must carry a distributed layout.
LinearLayout toLinearLayout(mlir::RankedTensorType type);

/// The layout chosen for a tile nobody gave one: each thread holds up to 128
/// contiguous bits of the fastest dimension (vector loads) but no more
/// elements than spread the tile over every thread, lanes fill the fastest
/// dimensions first and warps the slowest, so a warp reads contiguous memory.
mlir::Attribute getDefaultBlockedLayout(mlir::MLIRContext *ctx,
                                        llvm::ArrayRef<int64_t> shape,
                                        unsigned elementBits, unsigned numWarps,
                                        unsigned waveSize);
} // namespace kda

#endif // KDA_LAYOUT_LAYOUTATTRS_H
