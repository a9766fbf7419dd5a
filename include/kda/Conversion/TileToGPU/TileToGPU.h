//===- TileToGPU.h - the distributed lowering's shared pieces ---*- C++ -*-===//
//
// Tiles with a distributed layout become, in each thread, the registers the
// layout gives that thread: an LLVM struct with one member per register
// (LinearLayout register index order). Patterns unpack their operands into
// registers, compute per register, and pack the results.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_TILETOGPU_TILETOGPU_H
#define KDA_CONVERSION_TILETOGPU_TILETOGPU_H

#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Layout/LinearLayout.h"

#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"

namespace kda {
class AxisInfoAnalysis;

/// What the patterns share while lowering one module.
struct GPULoweringState {
  TargetHooks *hooks = nullptr;
  /// Contiguity and alignment of the tile IR being lowered (vector widths).
  const AxisInfoAnalysis *axisInfo = nullptr;
  unsigned numWarps = 4;
  /// Largest scratch (shared memory) any op needs; every op's scratch use is
  /// transient, so all of them reuse one buffer at offset 0.
  int64_t scratchBytes = 0;
  static constexpr llvm::StringLiteral kScratchSymbol = "kda_scratch";
  /// The kernel's shared buffers (tile.alloc_shared and the lowering's own),
  /// each a module global of its own named by number: bytes and alignment.
  struct SharedBuffer {
    int64_t bytes;
    int64_t alignment;
  };
  llvm::SmallVector<SharedBuffer> sharedBuffers;
  /// The largest alignment any of them needs (the dynamic allocation's).
  int64_t sharedBufferAlignment = 16;
  /// Each buffer's offset when they share one allocation, and the bytes they
  /// take: the most aligned first, so that alignment pads as little as it
  /// can.
  std::pair<llvm::SmallVector<int64_t>, int64_t> placeSharedBuffers() const;
  static std::string getSharedBufferSymbol(unsigned index) {
    return "kda_smem_" + std::to_string(index);
  }
  /// With more shared memory than a static allocation may take, all of it
  /// lives in this dynamically sized one (scratch first, then the buffers),
  /// and the module records its size in kDynamicSharedBytesAttr.
  static constexpr llvm::StringLiteral kDynamicSharedSymbol =
      "kda_dynamic_smem";
  static constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
      "kda.dynamic_shared_bytes";
  /// Each kernel's cluster-sum exchange buffers (symbols of shared buffers),
  /// which its entry prepares (TargetHooks::initClusterExchanges).
  llvm::MapVector<mlir::Operation *, llvm::SmallVector<std::string>>
      clusterExchanges;
  /// Tensor-map copies (prepareTensorMaps): the hidden kernel parameter of
  /// each tile.make_tensor_desc kept for them, and per kernel the ring of
  /// completion barriers and the counters of copies issued and waited for.
  llvm::DenseMap<mlir::Operation *, unsigned> tensorMapArguments;
  struct TensorMapCopies {
    mlir::Value ring;
    mlir::Value issued;
    mlir::Value waited;
    /// The kernel also has per-thread asynchronous copies, whose waits
    /// count apart: every wait then waits for everything.
    bool mixed = false;
  };
  llvm::DenseMap<mlir::Operation *, TensorMapCopies> tensorMapCopies;
  /// The tile.alloc_shared ops tensor-map copies read or write: aligned to
  /// tma::kSharedAlignment.
  llvm::DenseSet<mlir::Operation *> tensorMapBuffers;
  /// Barriers in a kernel's ring: at most this many tensor-map loads are in
  /// flight (an issue past it first waits for the oldest).
  static constexpr int64_t kTensorMapRing = 8;
  /// Kernels with lane-ordered copies (prepareLaneOrderedCopies): the fewest
  /// instructions a wave issues for one group of them, by which a wait for
  /// all but n groups leaves n times as many instructions in flight.
  llvm::DenseMap<mlir::Operation *, int64_t> laneCopyInstructions;
  unsigned getNumThreads() const { return numWarps * hooks->getWaveSize(); }
};

/// A new shared buffer of `bytes` aligned to `alignment` (a module global,
/// or a slice of the dynamic allocation once placed) and its symbol.
std::string createSharedBuffer(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ModuleOp module, GPULoweringState &state,
                               int64_t bytes, int64_t alignment = 16);

/// The index of the element at `coords` (i32 per dimension) of a shared
/// buffer as laid out before any swizzle: row-major, except that an
/// nvmma_shared buffer stores its last two dimensions [R, C] as C / W column
/// blocks of R rows of W elements (#tile.nvmma_shared).
mlir::Value emitSharedLinearIndex(mlir::OpBuilder &b, mlir::Location loc,
                                  tile::SharedBufferType buffer,
                                  mlir::ValueRange coords);

/// Where the element of row-major index `index` (i32) of a padded buffer is
/// stored: index + (index / interval) * padding (#tile.padded_shared).
mlir::Value emitPaddedIndex(mlir::OpBuilder &b, mlir::Location loc,
                            tile::PaddedSharedLayoutAttr padded,
                            mlir::Value index);

/// How many consecutive elements of a row of `buffer`, from a multiple of
/// that count, its layout keeps contiguous and aligned in memory: the
/// swizzle's group, 16 bytes of an nvmma_shared row, the padding's interval
/// (down to the power of two dividing the padding), or the whole row.
int64_t getSharedRunElements(tile::SharedBufferType buffer);

/// Tiles become structs of registers and pointers LLVM pointers in their
/// address space; other types stay for the standard LLVM lowerings.
/// Shared buffers become pointers to their first element.
class TileToGPUTypeConverter : public mlir::TypeConverter {
public:
  TileToGPUTypeConverter(mlir::MLIRContext *ctx, unsigned sharedAddressSpace);
};

/// The tile type's layout as a linear layout (it must have one).
LinearLayout getTileLayout(mlir::Type tensorType);

// Registers of a packed tile.
llvm::SmallVector<mlir::Value>
unpackRegisters(mlir::OpBuilder &b, mlir::Location loc, mlir::Value packed);
mlir::Value packRegisters(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type structType, mlir::ValueRange regs);

/// The calling thread's lane and warp (i32).
struct ThreadIndex {
  mlir::Value lane, warp;
};
ThreadIndex getThreadIndex(mlir::OpBuilder &b, mlir::Location loc,
                           GPULoweringState &state);
/// i1: whether this is the program's thread 0 (the one that stores a scalar
/// or performs a program's atomic).
mlir::Value emitIsFirstThread(mlir::OpBuilder &b, mlir::Location loc,
                              GPULoweringState &state);
/// i1: whether this thread owns its elements of a tile in `layout`: of the
/// threads holding copies of an element, the one whose duplicate lane and warp
/// bits are zero (it stores the element, or performs its atomic). Null when
/// the layout has no copies in other threads.
mlir::Value emitIsElementOwner(mlir::OpBuilder &b, mlir::Location loc,
                               const LinearLayout &layout, ThreadIndex thread);
/// i1 `x && y`; either may be null (no condition).
mlir::Value andGuards(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y);

/// The part of every element coordinate that depends on the lane and warp
/// (i32 per tile dimension); XOR it with a register's constant part.
llvm::SmallVector<mlir::Value> emitLaneWarpCoords(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  const LinearLayout &layout,
                                                  ThreadIndex thread);
/// The coordinate (i32 per dimension) of register `reg`.
llvm::SmallVector<mlir::Value>
emitCoords(mlir::OpBuilder &b, mlir::Location loc, const LinearLayout &layout,
           int64_t reg, mlir::ValueRange laneWarpCoords);
/// Whether register `reg`'s constant coordinate shares no bit with any lane
/// or warp contribution in dimension `dim`: then its XOR is a sum.
bool isRegisterOffsetDisjoint(const LinearLayout &layout, int64_t reg,
                              unsigned dim);
/// Row-major linear index (i32) of a coordinate in a tile of `shape`.
mlir::Value emitLinearIndex(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ValueRange coords,
                            llvm::ArrayRef<int64_t> shape);
/// The bits of `value` selected by `mask`, packed to the low end (i32).
mlir::Value emitExtractBits(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value, uint64_t mask);

/// The scratch buffer in shared memory, reserving `bytes` of it for the
/// calling op.
mlir::Value getScratch(mlir::OpBuilder &b, mlir::Location loc,
                       GPULoweringState &state, int64_t bytes);
/// Bytes one element of `type` takes in scratch (i1 as a byte).
int64_t getScratchElementBytes(mlir::Type type);
/// Stores/loads one register to/from scratch element `index`.
void storeScratch(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                  mlir::Value index, mlir::Value value);
mlir::Value loadScratch(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value base, mlir::Value index, mlir::Type type);

/// Moves registers of a tile to another layout of the same (or a
/// relabelled) coordinate space. `toSourceCoord` maps a destination
/// coordinate to the source coordinate holding its value and must be linear
/// over bits (projection, permutation, reshape of power-of-two shapes).
/// Returns, per destination register, the source register holding its
/// value, when lanes and warps agree so no data crosses threads.
std::optional<llvm::SmallVector<int64_t>> getRegisterRemap(
    const LinearLayout &src, const LinearLayout &dst,
    llvm::function_ref<LinearLayout::Coord(llvm::ArrayRef<int64_t>)>
        toSourceCoord);

/// Moves a tile through scratch: every thread writes its registers at their
/// linear index (by `srcShape` row-major), then reads the registers of the
/// destination layout (same linear order over `dstShape`); rows are padded
/// against bank conflicts (getScratchRowPadding).
llvm::SmallVector<mlir::Value>
exchangeThroughScratch(mlir::OpBuilder &b, mlir::Location loc,
                       GPULoweringState &state, mlir::ValueRange srcRegs,
                       const LinearLayout &src, const LinearLayout &dst,
                       mlir::Type elementType);

/// `compute()` (a value of `type`, emitted under the guard) when `guard`
/// holds or is null, else `otherwise`.
mlir::Value
emitGuardedValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value guard,
                 mlir::Type type,
                 llvm::function_ref<mlir::Value(mlir::OpBuilder &)> compute,
                 mlir::Value otherwise);
/// `*ptr` (a scalar of `type`) when `mask` holds or is null, else
/// `otherwise`; a masked lane does not touch memory.
mlir::Value emitGuardedLoad(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value ptr, mlir::Type type, mlir::Value mask,
                            mlir::Value otherwise);
/// The same for a vector of consecutive elements sharing one mask.
mlir::Value emitGuardedVectorLoad(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value ptr, mlir::VectorType type,
                                  mlir::Value mask, mlir::Value otherwise);
/// Stores one register, or consecutive registers as one vector, at `ptr`
/// when `guard` holds (always when null); i1 is stored as a byte.
void emitGuardedStore(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                      llvm::ArrayRef<mlir::Value> regs, mlir::Value guard);
/// The elements of a vector value.
llvm::SmallVector<mlir::Value>
unpackVector(mlir::OpBuilder &b, mlir::Location loc, mlir::Value vec);
/// A vector of `type` holding `elems`.
mlir::Value packVector(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::VectorType type,
                       llvm::ArrayRef<mlir::Value> elems);
/// How many consecutive registers one global access of a tile of
/// `tileType` through `ptr` (under `mask`) may move, and along which
/// dimension: registers contiguous in the layout, at most 128 bits, as far as
/// the pointers' contiguity and alignment and the mask's constancy allow.
std::pair<unsigned, unsigned> getAccessWidth(const GPULoweringState &state,
                                             mlir::RankedTensorType tileType,
                                             mlir::Value ptr, mlir::Value mask);

void populateElementwiseToGPUPatterns(TileToGPUTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      GPULoweringState &state);
void populateShapeOpsToGPUPatterns(TileToGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   GPULoweringState &state);
void populateMemoryOpsToGPUPatterns(TileToGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    GPULoweringState &state);
/// tile.print: each element by the thread owning it, a scalar by the first.
void populatePrintToGPUPatterns(TileToGPUTypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                GPULoweringState &state);
/// tile.atomic_rmw: a scalar once per program (thread 0, result broadcast), a
/// tile once per element (by its owner thread), with the program-wide fences
/// its semantic asks for.
void populateAtomicsToGPUPatterns(TileToGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  GPULoweringState &state);
/// Shared buffers (one module global each), their loads and stores,
/// asynchronous copies into them, waits and barriers.
void populateSharedMemoryToGPUPatterns(TileToGPUTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       GPULoweringState &state);
/// Tensor descriptors (LLVM structs {base, shape..., strides...}) and the
/// block copies tile-expand-tensor-descs left to the target's engine.
void populateTensorDescsToGPUPatterns(TileToGPUTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      GPULoweringState &state);
/// For the tensor-map copies tile-expand-tensor-descs kept (descriptors
/// with tile::kTensorMapAttrName): adds each descriptor's tensor map as a
/// hidden kernel parameter (128 bytes by value, 128-byte aligned), records
/// the recipes on the kernel (tile::kTensorMapsAttrName), and emits the
/// kernel's completion-barrier ring and counters at its entry.
mlir::LogicalResult prepareTensorMaps(mlir::ModuleOp module,
                                      GPULoweringState &state);
/// How a tile.async_copy moves its elements: `width` of them per access,
/// and either per thread without registers (`perThread`: cp.async), or per
/// wave in `instructions` lane-ordered copies (`laneOrdered`: LDS DMA), or
/// through registers.
struct AsyncCopyPlan {
  unsigned width = 1;
  bool perThread = false;
  bool laneOrdered = false;
  int64_t instructions = 0;
};
AsyncCopyPlan planAsyncCopy(const GPULoweringState &state,
                            tile::AsyncCopyOp op);
/// Records, per kernel with lane-ordered copies (its tile.async_copy ops or
/// the "buffer" engine's block loads), the fewest instructions of one copy
/// (GPULoweringState::laneCopyInstructions); copies through registers
/// count 0.
void prepareLaneOrderedCopies(mlir::ModuleOp module, GPULoweringState &state);
/// Tells LLVM that the lane-ordered copies of a kernel (in one alias scope)
/// and its other shared-memory accesses (in another, not aliasing the
/// first) touch different bytes: a buffer being copied into is only read
/// after the kernel's own wait for the copy, so LLVM need not wait for every
/// copy in flight before each shared-memory access (AMD: vmcnt(0)).
void scopeLaneOrderedCopies(mlir::ModuleOp module, const TargetHooks &hooks);
/// The ring barrier of tensor-map load number `index` (i32).
mlir::Value getRingBarrier(mlir::OpBuilder &b, mlir::Location loc,
                           const GPULoweringState::TensorMapCopies &copies,
                           mlir::Value index);
/// Waits for the oldest tensor-map load in flight and counts it waited for.
void emitWaitOldest(mlir::OpBuilder &b, mlir::Location loc,
                    GPULoweringState &state,
                    const GPULoweringState::TensorMapCopies &copies);
/// Waits until at most `pending` tensor-map loads are in flight.
void emitWaitTensorMapCopies(mlir::OpBuilder &b, mlir::Location loc,
                             GPULoweringState &state,
                             const GPULoweringState::TensorMapCopies &copies,
                             unsigned pending);
/// How `waves` waves share a block copy: split[d] waves along dimension d,
/// outer dimensions first and never the last, each wave's tile contiguous in
/// the row-major buffer; waves past the product copy nothing.
llvm::SmallVector<int64_t> splitBlockOverWaves(llvm::ArrayRef<int64_t> block,
                                               int64_t waves);
/// tile.wait_prior_launches and tile.launch_dependents, through the target.
void populateLaunchOrderToGPUPatterns(TileToGPUTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      GPULoweringState &state);
void populateClusterToGPUPatterns(TileToGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  GPULoweringState &state);
/// Checks that the target has clusters where a kernel sums over them and
/// records each kernel's cluster shape (tile::kClusterShapeAttrName).
mlir::LogicalResult prepareClusters(mlir::ModuleOp module,
                                    GPULoweringState &state);
/// Emits the entry of each kernel with cluster sums (after conversion).
void emitClusterEntries(mlir::ModuleOp module, GPULoweringState &state);
void populateReduceToGPUPatterns(TileToGPUTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 GPULoweringState &state);
void populateDotToGPUPatterns(TileToGPUTypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              GPULoweringState &state);
/// Scalar math to LLVM intrinsics every GPU backend lowers natively (exp via
/// exp2, log via log2, ...), never to device-library calls.
void populateMathToGPUIntrinsicsPatterns(TileToGPUTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         GPULoweringState &state);

} // namespace kda

#endif // KDA_CONVERSION_TILETOGPU_TILETOGPU_H
