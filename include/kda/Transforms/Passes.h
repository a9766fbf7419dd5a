//===- Passes.h - target-independent tile passes ----------------*- C++ -*-===//
#ifndef KDA_TRANSFORMS_PASSES_H
#define KDA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace kda {
/// Unit attribute on a `tile.convert_layout` the compiler inserted (layout
/// assignment). Converts without it were written by the user
/// (`kt.convert_layout`) and are only removed when they move no data.
constexpr llvm::StringLiteral kImplicitConvertAttr = "tile.implicit";
/// Module attributes recording the distribution every layout assumes.
constexpr llvm::StringLiteral kNumWarpsAttr = "tile.num_warps";
constexpr llvm::StringLiteral kWaveSizeAttr = "tile.wave_size";

#define GEN_PASS_DECL
#include "kda/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

#endif // KDA_TRANSFORMS_PASSES_H
