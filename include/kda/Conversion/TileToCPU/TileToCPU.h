//===- TileToCPU.h - tile to host lowering patterns -------------*- C++ -*-===//
#ifndef KDA_CONVERSION_TILETOCPU_TILETOCPU_H
#define KDA_CONVERSION_TILETOCPU_TILETOCPU_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kda {
/// Pointers (and tiles of pointers) and shared buffers become i64 addresses
/// (tiles of i64).
void populateTileToCPUTypeConversions(mlir::TypeConverter &converter);

/// range, splat, broadcast, expand_dims, reshape, trans -> tensor/linalg.
void populateTileShapeToTensorPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
/// addptr, load, store -> arith on addresses, masked llvm.load/llvm.store;
/// shared buffers -> stack arrays, copies into them done at once.
/// Declares llvm.atomicrmw's memory effects (read and write of its pointer),
/// which the LLVM dialect leaves unknown: One-Shot Bufferize rejects ops with
/// unknown effects, and the host lowering emits atomics before bufferizing.
void registerAtomicRMWMemoryEffects(mlir::DialectRegistry &registry);

void populateTileMemoryToCPUPatterns(const mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);
/// reduce, scan, dot -> linalg.reduce, a loop of slices, linalg.matmul.
void populateTileReduceDotToLinalgPatterns(const mlir::TypeConverter &converter,
                                           mlir::RewritePatternSet &patterns);

/// Replaces each tile.print in `kernel` by loops of printf calls, reading the
/// program ids through tile.program_id (so it runs before they become the
/// kernel's grid arguments).
void lowerPrintsForHost(mlir::func::FuncOp kernel);

/// Bounds checks (BoundsChecks.cpp). Marks every global-memory access of
/// `kernel` with the pointer arguments it may derive from; runs while the
/// arguments are the kernel's runtime ones.
void prepareBoundsChecks(mlir::func::FuncOp kernel);
/// Appends the hidden argument holding the bounds table.
void addBoundsTableArgument(mlir::func::FuncOp kernel);
/// Emits `access` (an access of `bytes` at `address` by `op`) under a check
/// that it stays in an array it may reach, reporting it and emitting
/// `skipped` instead otherwise; with no result type, neither yields. Just
/// `access` where `op` is not checked.
mlir::Value guardAccess(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
    mlir::Value address, int64_t bytes, mlir::Type resultType,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location)> access,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location)> skipped);

/// Size in bytes of one element of `type` in memory (i1 is stored as a byte).
int64_t getStorageSizeInBytes(mlir::Type type);
} // namespace kda

#endif // KDA_CONVERSION_TILETOCPU_TILETOCPU_H
