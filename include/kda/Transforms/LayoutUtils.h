//===- LayoutUtils.h - layout choices of the tile passes --------*- C++ -*-===//
#ifndef KDA_TRANSFORMS_LAYOUTUTILS_H
#define KDA_TRANSFORMS_LAYOUTUTILS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kda {
/// The layout of `tile.trans`'s result when no data moves: `src` (a blocked
/// layout) with its dimensions permuted like the tile's (result dimension i
/// is source dimension order[i]).
mlir::Attribute getTransposedBlockedLayout(mlir::Attribute src,
                                           llvm::ArrayRef<int32_t> order);
/// Bits per element that the default layout assumes for `elementType`:
/// 64 for pointers, 8 for i1, else the type's width.
unsigned getLayoutElementBits(mlir::Type elementType);
} // namespace kda

#endif // KDA_TRANSFORMS_LAYOUTUTILS_H
