//===- TargetHooks.h - what the distributed lowering asks a GPU -*- C++ -*-===//
//
// The distributed lowering is shared by every GPU; the few things that differ
// (special registers, cross-lane exchange, barriers, kernel attributes) are
// asked of a TargetHooks object implemented per target in GPUToNVVM/ and
// GPUToROCDL/{GFX950,GFX1250}/.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_TILETOGPU_TARGETHOOKS_H
#define KDA_CONVERSION_TILETOGPU_TARGETHOOKS_H

#include "Tile/TileDialect.h"
#include "kda/Layout/MatrixLayouts.h"
#include "kda/Target/GPUTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/Support/ErrorHandling.h"

#include <memory>

namespace mlir::LLVM {
class LLVMFuncOp;
}

namespace kda {

class TargetHooks {
public:
  explicit TargetHooks(GPUTargetInfo info) : info(std::move(info)) {}
  virtual ~TargetHooks();

  /// The target's facts (wave size, shared memory), kept in one place.
  const GPUTargetInfo &getInfo() const { return info; }
  /// Threads per warp (wavefront).
  unsigned getWaveSize() const { return info.waveSize; }
  /// Largest static shared memory a program may use, in bytes.
  int64_t getMaxSharedBytes() const { return info.staticSharedMemoryBytes; }
  /// Shared memory a kernel may take through a dynamically sized allocation
  /// (0: none; the static limit is the limit).
  int64_t getMaxDynamicSharedBytes() const {
    return info.dynamicSharedMemoryBytes;
  }
  /// Address spaces of global and shared memory.
  virtual unsigned getGlobalAddressSpace() const { return 1; }
  virtual unsigned getSharedAddressSpace() const { return 3; }

  /// The thread's index in the program (x dimension), i32.
  virtual mlir::Value getThreadId(mlir::OpBuilder &b, mlir::Location loc) = 0;
  /// The program's index and the program count along `axis`, i32.
  virtual mlir::Value getProgramId(mlir::OpBuilder &b, mlir::Location loc,
                                   unsigned axis) = 0;
  virtual mlir::Value getNumPrograms(mlir::OpBuilder &b, mlir::Location loc,
                                     unsigned axis) = 0;
  /// The i32 `value` of the lane whose id is this lane's XOR `laneMask`.
  virtual mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value, unsigned laneMask) = 0;
  /// A barrier for every thread of the program that also orders shared
  /// memory accesses around it.
  virtual void barrier(mlir::OpBuilder &b, mlir::Location loc) = 0;
  /// Prints one line from this thread: C's printf of `format` (see
  /// kda/Conversion/PrintToLLVM.h) with `args` (i32, i64 or f64).
  virtual void printf(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::StringRef format, mlir::ValueRange args) = 0;
  /// A barrier that orders only shared memory accesses around it (the
  /// scratch exchanges, the waits for copies into shared memory): on AMD it
  /// need not wait for the wave's global loads and stores in flight.
  virtual void sharedMemoryBarrier(mlir::OpBuilder &b, mlir::Location loc) {
    barrier(b, loc);
  }
  /// Whether sharedMemoryBarrier orders global memory too (as barrier does),
  /// so that the global-memory hazards before a tile.async_wait end at it.
  virtual bool sharedMemoryBarrierOrdersGlobalMemory() const { return true; }
  /// Whether the target copies global to shared memory without registers
  /// (asyncCopy and the two below); without, copies go through registers.
  virtual bool hasAsyncCopies() const { return false; }
  /// Starts copying `bytes` (4, 8 or 16) from global `src` to shared `dst`,
  /// reading `srcBytes` (i32, `bytes` or 0) of them and zero-filling the
  /// rest.
  virtual void asyncCopy(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value dst, mlir::Value src, unsigned bytes,
                         mlir::Value srcBytes) {}
  /// Closes the group of the asynchronous copies started since the last one.
  virtual void commitAsyncCopies(mlir::OpBuilder &b, mlir::Location loc) {}
  /// Waits until at most `pending` groups of this thread's asynchronous
  /// copies are in flight (no barrier).
  virtual void waitAsyncCopies(mlir::OpBuilder &b, mlir::Location loc,
                               unsigned pending) {}
  /// Whether every active lane of a wave can copy `bytes` from its own
  /// global address into shared memory at the wave's base + lane * `bytes`
  /// without registers (AMD's LDS DMA): lane-ordered copies, for copies
  /// whose layout puts consecutive lanes' elements consecutively in the
  /// buffer.
  virtual bool hasLaneOrderedCopies(unsigned bytes) const { return false; }
  /// Starts this lane's lane-ordered copy of `bytes` from global `src`;
  /// `waveBase` (shared) is the same in every lane of the wave.
  virtual void copyLaneOrdered(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value waveBase, mlir::Value src,
                               unsigned bytes) {}
  /// Whether the block-copy engine's loads are lane-ordered copies, counted
  /// and waited for with them (waitLaneOrderedCopies, not waitBlockCopies).
  virtual bool hasLaneOrderedBlockCopies() const { return false; }
  /// The lane-ordered instructions a wave's block copy of `bytes` issues at
  /// `vectorBytes` per lane (hasLaneOrderedBlockCopies).
  virtual int64_t getBlockCopyInstructions(int64_t bytes,
                                           int64_t vectorBytes) const {
    llvm_unreachable("no lane-ordered block copies on this target");
  }
  /// Whether `op` (lowered) is one of the lane-ordered copies above or of
  /// the block-copy engine's (scopeLaneOrderedCopies).
  virtual bool isLaneOrderedCopy(mlir::Operation *op) const { return false; }
  /// Waits until at most `pending` of this wave's lane-ordered copy
  /// instructions (and of the block-copy engine's, where it issues them:
  /// "buffer") are in flight (no barrier).
  virtual void waitLaneOrderedCopies(mlir::OpBuilder &b, mlir::Location loc,
                                     unsigned pending) {}
  /// The engine that copies blocks of described tensors between global and
  /// shared memory ("tdm": gfx1250's Tensor Data Mover; "tma": sm_90a's
  /// tensor memory accelerator; "buffer": gfx950's bounds-checked buffer
  /// loads into LDS and buffer stores, per lane), or "" where blocks are
  /// copied element by element (tile-expand-tensor-descs).
  virtual llvm::StringRef getBlockCopyEngine() const { return ""; }
  /// `value` (i32, the same in every lane of the wave) as the target's
  /// compiler sees uniform values (AMD: readfirstlane, so that what is
  /// computed from it stays in scalar registers).
  virtual mlir::Value getWaveUniform(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value value) {
    return value;
  }
  /// One wave's part of a block copy: the `tile` (row-major in shared
  /// memory) whose first element is at `global` and `shared`, with `extents`
  /// (i32, >= 0) elements per dimension from there to the tensor's end and
  /// `strides` (i64, in elements; the last is 1). Loads read elements past an
  /// extent as zeros; stores leave them alone. `active` (i1, wave-uniform):
  /// this wave copies.
  struct BlockCopy {
    mlir::Value global;
    mlir::Value shared;
    llvm::SmallVector<mlir::Value> extents;
    llvm::SmallVector<mlir::Value> strides;
    llvm::SmallVector<int64_t> tile;
    mlir::Type elementType;
    mlir::Value active;
    bool isLoad;
    /// Loads into a padded buffer: `padding` elements skipped in shared
    /// memory after every `padInterval` written (0: no padding).
    int64_t padInterval = 0;
    int64_t padding = 0;
    /// Per-lane engines ("buffer"): the bytes each lane moves at once, as
    /// tile-expand-tensor-descs proved aligned (kda.copy_vector_bytes).
    int64_t vectorBytes = 0;
  };
  /// Starts `copy` on the engine; every wave issues one per block copy
  /// (active or not), so each wave's count of copies in flight is the same.
  virtual void copyBlock(mlir::OpBuilder &b, mlir::Location loc,
                         const BlockCopy &copy) {
    llvm_unreachable("no block-copy engine on this target");
  }
  /// Waits until at most `pending` of this wave's block copies are in
  /// flight (no barrier).
  virtual void waitBlockCopies(mlir::OpBuilder &b, mlir::Location loc,
                               unsigned pending) {}
  /// Tensor-map engines (getBlockCopyEngine() == "tma"): one thread copies
  /// a whole block, described by a tensor map the runtime built (`map`, a
  /// generic pointer to the kernel parameter), at `coords` (i32, innermost
  /// first). A load signals the shared-memory barrier `barrier` (8 bytes)
  /// when its bytes have landed; a store is one bulk group.
  virtual void copyBlockWithTensorMap(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value map, mlir::ValueRange coords,
                                      mlir::Value shared, mlir::Value barrier,
                                      bool isLoad) {
    llvm_unreachable("no tensor-map copies on this target");
  }
  /// Target attributes of a kernel's parameter holding a tensor map (the
  /// function is a kernel already: markKernel).
  virtual void addTensorMapArgAttrs(mlir::MLIRContext *ctx,
                                    mlir::NamedAttrList &attrs) {}
  /// Initializes a completion barrier for one arrival.
  virtual void initCopyBarrier(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier) {
    llvm_unreachable("no tensor-map copies on this target");
  }
  /// Makes initialized barriers visible to the copy engine (before the
  /// program's barrier).
  virtual void fenceCopyBarrierInit(mlir::OpBuilder &b, mlir::Location loc) {}
  /// Arrives on `barrier` expecting `bytes` more bytes of copies.
  virtual void expectCopyBytes(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier, int64_t bytes) {
    llvm_unreachable("no tensor-map copies on this target");
  }
  /// Waits until the phase of parity `parity` (i32, 0 or 1) of `barrier` has
  /// completed.
  virtual void waitCopyBarrier(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier, mlir::Value parity) {
    llvm_unreachable("no tensor-map copies on this target");
  }
  /// Orders this thread's earlier shared-memory accesses before the copy
  /// engine's (which run in another memory proxy).
  virtual void fenceSharedForCopies(mlir::OpBuilder &b, mlir::Location loc) {}
  /// Waits until this thread's tensor-map stores have completed.
  virtual void waitTensorMapStores(mlir::OpBuilder &b, mlir::Location loc) {
    llvm_unreachable("no tensor-map copies on this target");
  }
  /// LLVM's synchronization scope name for atomics and fences ordered
  /// towards one program's threads, the device, or the system ("").
  virtual llvm::StringRef getSyncScope(tile::MemoryScope scope) const = 0;
  /// log2 of a float scalar. LLVM's intrinsic is native on AMD; NVPTX
  /// selects it only as a library call, so NVIDIA uses lg2.approx.
  virtual mlir::Value log2(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x);
  /// sin or cos of a float scalar; NVIDIA uses the approximate instructions
  /// for the same reason as log2.
  virtual mlir::Value sinOrCos(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, bool isSin);
  /// lhs / rhs, sqrt(x) and 1 / sqrt(x) of float scalars, for the ops that
  /// allow approximation (`afn`; the others are lowered IEEE without asking):
  /// IEEE by default; NVIDIA's fp32 uses the fast instructions Triton uses
  /// (div.full, sqrt.approx, rsqrt.approx: within 2 ulp), whose IEEE forms run
  /// a refinement with a slow-path branch on every call.
  virtual mlir::Value divide(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value lhs, mlir::Value rhs);
  virtual mlir::Value sqrt(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x);
  virtual mlir::Value rsqrt(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x);
  /// Waits for the kernels launched before this one on the stream (where a
  /// kernel can be launched before they finish); by default launches run one
  /// after another and there is nothing to wait for.
  virtual void waitPriorLaunches(mlir::OpBuilder &b, mlir::Location loc) {}
  /// Lets the next kernel on the stream start launching (where a kernel can
  /// start early); nothing by default.
  virtual void launchDependents(mlir::OpBuilder &b, mlir::Location loc) {}
  /// Whether programs can run in thread-block clusters that exchange
  /// through each other's shared memory (tile.cluster_sum).
  virtual bool hasClusters() const { return false; }
  /// At the kernel's entry: prepares the exchange buffers of its cluster sums
  /// (each an 8-byte barrier followed by one 4-byte slot per program) and
  /// announces it to the cluster. `isFirstThread`: i1, this is thread 0.
  virtual void initClusterExchanges(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::ValueRange buffers,
                                    mlir::Value isFirstThread) {}
  /// Waits until every program of the cluster has prepared its buffers (once,
  /// by every thread, before the first cluster sum), so any may then send.
  virtual void waitForClusterExchanges(mlir::OpBuilder &b, mlir::Location loc) {
  }
  /// The sum of `value` (f32, the same in every thread) over the `size`
  /// programs of the cluster, added in rank order, through `buffer`;
  /// `isFirstThread` as for initClusterExchanges.
  virtual mlir::Value clusterSum(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value, mlir::Value buffer,
                                 unsigned size, mlir::Value isFirstThread) {
    return {};
  }
  /// The matrix instructions tile.dot may use on this target, preferred
  /// first (tile-assign-layouts picks the first that fits a dot).
  virtual llvm::ArrayRef<tile::MatrixInstr> getMatrixInstrs() const {
    return {};
  }
  /// D = A * B + C of one matrix instruction of getMatrixInstrs(): the
  /// operands and the result as the elements of their fragments in register
  /// order (kda/Layout/MatrixLayouts.h); A and B are bf16 or f16, C and D
  /// f32.
  virtual llvm::SmallVector<mlir::Value>
  matrixMultiply(mlir::OpBuilder &b, mlir::Location loc,
                 tile::MatrixInstr instr, mlir::ValueRange a,
                 mlir::ValueRange bOperand, mlir::ValueRange c) {
    llvm_unreachable("no matrix instructions on this target");
  }
  /// Whether loadMatrices exists (8x8 16-bit matrix loads from shared
  /// memory, kda/Layout/MatrixLayouts.h: getMatrixLoadPlan).
  virtual bool hasMatrixLoads() const { return false; }
  /// Loads `count` (1, 2 or 4) 8x8 matrices of 16-bit elements, each lane
  /// giving one row address (`rowAddress`, shared memory, 16-byte aligned);
  /// returns one i32 per matrix (two elements, the first in the low half).
  virtual llvm::SmallVector<mlir::Value>
  loadMatrices(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rowAddress,
               unsigned count, bool transposed) {
    llvm_unreachable("no matrix loads on this target");
  }
  /// The target's transposing 16-bit shared-memory load, if it has one
  /// (kda/Layout/MatrixLayouts.h: TransposedLoad, getTransposedLoadSources).
  virtual std::optional<TransposedLoad> getTransposedLoad() const {
    return std::nullopt;
  }
  /// One transposing load: `address` (shared memory, aligned to its
  /// elements) is where this lane's consecutive elements start; returns the
  /// lane's elements of `elementType` (16-bit) in register order.
  virtual llvm::SmallVector<mlir::Value>
  loadTransposed(mlir::OpBuilder &b, mlir::Location loc, mlir::Value address,
                 mlir::Type elementType) {
    llvm_unreachable("no transposing loads on this target");
  }
  /// An operand of a warpgroup matrix instruction where it lies in shared
  /// memory (#tile.nvmma_shared): the address of its first element before
  /// the swizzle, the bytes from one 8-row group of its buffer to the next
  /// and from one column block to the next, the swizzle, and whether the
  /// buffer's rows run along K (A [M, K]) or along N (B [K, N]).
  struct SharedMatrixOperand {
    mlir::Value address;
    int64_t rowGroupBytes;
    int64_t blockBytes;
    unsigned swizzleBytes;
    bool kContiguous;
  };
  /// D = A * B + C on the warpgroup's 64 x `n` accumulator (`c`, fp32
  /// registers in the order of getWgmmaAccumulatorLayout), A [64, 16] and B
  /// [16, n] of `elementType` (bf16 or f16) read from shared memory: issued
  /// between beginSharedMatrixMultiplies and commitSharedMatrixMultiplies;
  /// waitSharedMatrixMultiplies returns the registers once they may be read.
  virtual llvm::SmallVector<mlir::Value>
  sharedMatrixMultiply(mlir::OpBuilder &b, mlir::Location loc,
                       const SharedMatrixOperand &a,
                       const SharedMatrixOperand &bOperand, mlir::ValueRange c,
                       int64_t n, mlir::Type elementType) {
    llvm_unreachable("no shared-memory matrix instructions on this target");
  }
  /// Orders the shared-memory writes before it (seen through barriers)
  /// before the matrix unit's reads, and opens a batch of multiplies.
  virtual void beginSharedMatrixMultiplies(mlir::OpBuilder &b,
                                           mlir::Location loc) {
    llvm_unreachable("no shared-memory matrix instructions on this target");
  }
  /// Closes the batch as one group of matrix instructions in flight.
  virtual void commitSharedMatrixMultiplies(mlir::OpBuilder &b,
                                            mlir::Location loc) {
    llvm_unreachable("no shared-memory matrix instructions on this target");
  }
  /// Waits until at most `pending` groups are in flight; returns `acc`,
  /// readable from there on (for the groups waited for).
  virtual llvm::SmallVector<mlir::Value>
  waitSharedMatrixMultiplies(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ValueRange acc, unsigned pending) {
    llvm_unreachable("no shared-memory matrix instructions on this target");
  }
  /// Marks `func` as a kernel launched with `numThreads` threads, in
  /// clusters of `clusterShape` programs (x, y, z) when that is not 1x1x1.
  virtual void markKernel(mlir::LLVM::LLVMFuncOp func, unsigned numThreads,
                          llvm::ArrayRef<int32_t> clusterShape) = 0;

private:
  GPUTargetInfo info;
};

/// Hooks for a target name ("sm_90a", "gfx950", "gfx1250"; looked up with
/// lookupGPUTarget), or null.
std::unique_ptr<TargetHooks> createTargetHooks(llvm::StringRef target);

std::unique_ptr<TargetHooks> createNVVMTargetHooks(const GPUTargetInfo &info);
std::unique_ptr<TargetHooks> createGFX950TargetHooks(const GPUTargetInfo &info);
std::unique_ptr<TargetHooks>
createGFX1250TargetHooks(const GPUTargetInfo &info);

} // namespace kda

#endif // KDA_CONVERSION_TILETOGPU_TARGETHOOKS_H
