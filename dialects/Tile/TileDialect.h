//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef KDA_TILE_TILEDIALECT_H
#define KDA_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Support/LogicalResult.h"

#include <array>

#include "Tile/TileDialect.h.inc"
#include "Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/TileTypes.h.inc"

namespace kda::tile {
/// The pointee type of a pointer, or a tensor of pointees shaped like a tensor
/// of pointers.
mlir::Type getPointeeLikeType(mlir::Type ptrLike);
/// i1, or a tensor of i1 shaped like `type` when it is a tensor.
mlir::Type getI1LikeType(mlir::Type type);
/// Whether `attr` says which thread holds which element (blocked, slice).
bool isDistributedLayout(mlir::Attribute attr);
/// Whether a matrix instruction multiplies fp32 operands (tf32 on NVIDIA,
/// fp32 on gfx950): the one dots that allow tf32 take.
bool takesFloat32Operands(MatrixInstr instr);
/// Whether `attr` is a shared-memory layout (swizzled, nvmma, padded).
bool isSharedLayout(mlir::Attribute attr);
/// The rank of the tiles a distributed layout applies to.
unsigned getLayoutRank(mlir::Attribute layout);
} // namespace kda::tile

#define GET_OP_CLASSES
#include "Tile/TileOps.h.inc"

namespace kda::tile {
/// Programs per cluster along x, y and z that `kernel`'s tile.cluster_sum ops
/// ask for ({1, 1, 1} without any). Fails, with an error at the op, when two
/// of them disagree.
mlir::FailureOr<std::array<int32_t, 3>>
getClusterShape(mlir::Operation *kernel);
/// The module attribute (i32 array x, y, z) with which the lowerings record
/// the cluster shape of a kernel launched in clusters, for the launches.
constexpr llvm::StringLiteral kClusterShapeAttrName = "kda.cluster_shape";
/// Whether `kernel` waits for the kernels launched before it
/// (tile.wait_prior_launches), which lets the runtime launch it before they
/// finish.
bool waitsForPriorLaunches(mlir::Operation *kernel);
/// The first operation before `wait` in its block (or nested in one) that
/// reads or writes memory; null when there is none, as there must not be.
mlir::Operation *findAccessBeforeWait(WaitPriorLaunchesOp wait);
/// Another tile.wait_prior_launches before `wait` in its block (or nested in
/// an op there); null when `wait` is the first.
WaitPriorLaunchesOp findEarlierWait(WaitPriorLaunchesOp wait);
/// On a tile.make_tensor_desc whose copies run on the tensor memory
/// accelerator: the recipe (i64 array, kda/Runtime/TensorMap.h) by which the
/// runtime builds its tensor map, a hidden kernel parameter; on a lowered
/// kernel, the array of its tensor-map parameters' recipes, in order.
constexpr llvm::StringLiteral kTensorMapAttrName = "kda.tensor_map";
/// On a tile.make_tensor_desc (kt.make_tensor_descriptor(copies="elements")):
/// its copies run on the program's lanes, never on a copy engine.
constexpr llvm::StringLiteral kElementCopiesAttrName = "tile.element_copies";
constexpr llvm::StringLiteral kTensorMapsAttrName = "kda.tensor_maps";
/// Alignment hints (kt.multiple_of, kt.max_contiguous) on the op defining a
/// value, one i64 per dimension (scalars: one): every element of a run is a
/// multiple of that power of two (bytes for pointers); values come in runs of
/// that many consecutive integers or elements. Facts the axis analysis takes
/// as given, as Triton's tt.divisibility / tt.contiguity.
constexpr llvm::StringLiteral kMultipleOfAttrName = "tile.multiple_of";
constexpr llvm::StringLiteral kMaxContiguousAttrName = "tile.max_contiguous";
/// On a tile.async_load / async_store left to a per-lane block-copy engine
/// ("buffer"): the bytes each lane moves at once, which
/// tile-expand-tensor-descs proved aligned in both memories.
constexpr llvm::StringLiteral kCopyVectorBytesAttrName =
    "kda.copy_vector_bytes";
/// `lhs` combined with `rhs` by `kind` (arith ops, scalars or tensors). Float
/// max/min propagate NaN; on i1, max is "any" and min is "all".
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc,
                         ReduceKind kind, mlir::Value lhs, mlir::Value rhs);
/// `x` (f32 scalars or tensors) rounded to tf32: 10 mantissa bits, to
/// nearest, ties away from zero (as cvt.rna.tf32.f32), kept as f32.
mlir::Value buildRoundToTF32(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x);
/// The value `x` for which combining by `kind` with `x` changes nothing.
mlir::TypedAttr getCombineIdentity(mlir::OpBuilder &b, ReduceKind kind,
                                   mlir::Type type);
} // namespace kda::tile

#endif // KDA_TILE_TILEDIALECT_H
