//===- TileToGPU.cpp - the convert-tile-to-gpu pass -----------------------===//
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "Tile/TileDialect.h"
#include "kda/Analysis/AxisInfo.h"
#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kda {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#define GEN_PASS_DEF_FINALIZEGPUKERNELS
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

TargetHooks::~TargetHooks() = default;

Value TargetHooks::log2(OpBuilder &b, Location loc, Value x) {
  return LLVM::Log2Op::create(b, loc, x.getType(), x);
}

Value TargetHooks::sinOrCos(OpBuilder &b, Location loc, Value x, bool isSin) {
  if (isSin)
    return LLVM::SinOp::create(b, loc, x.getType(), x);
  return LLVM::CosOp::create(b, loc, x.getType(), x);
}

Value TargetHooks::divide(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return LLVM::FDivOp::create(b, loc, lhs, rhs);
}

Value TargetHooks::sqrt(OpBuilder &b, Location loc, Value x) {
  return LLVM::SqrtOp::create(b, loc, x.getType(), x);
}

Value TargetHooks::rsqrt(OpBuilder &b, Location loc, Value x) {
  // The IEEE forms, whatever a target overrides: this is also the lowering of
  // the ops that do not allow approximation.
  Value root = TargetHooks::sqrt(b, loc, x);
  Value one = LLVM::ConstantOp::create(b, loc, x.getType(),
                                       b.getFloatAttr(x.getType(), 1.0));
  return TargetHooks::divide(b, loc, one, root);
}

std::unique_ptr<TargetHooks> kda::createTargetHooks(StringRef target) {
  std::optional<GPUTargetInfo> info = lookupGPUTarget(target);
  if (!info)
    return nullptr;
  if (info->isNVIDIA())
    return createNVVMTargetHooks(*info);
  if (info->chip == "gfx950")
    return createGFX950TargetHooks(*info);
  if (info->chip == "gfx1250")
    return createGFX1250TargetHooks(*info);
  return nullptr;
}

namespace {

/// Whether `type` is something this pass rewrites (tiles, tile pointers).
bool isTileType(Type type) {
  return isa<RankedTensorType, tile::PointerType, tile::SharedBufferType>(type);
}

bool hasTileTypes(Operation *op) {
  auto check = [](TypeRange types) { return llvm::any_of(types, isTileType); };
  if (check(op->getOperandTypes()) || check(op->getResultTypes()))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (check(block.getArgumentTypes()))
        return true;
  return false;
}

unsigned getNumWarps(ModuleOp module) {
  if (auto attr = module->getAttrOfType<IntegerAttr>("tile.num_warps"))
    return attr.getInt();
  return 4;
}

/// Where to report a problem with `op`'s types: `op` itself, or, when it has
/// no source location (constants the folder merges lose theirs), the first
/// user that has one, so that the error points at the DSL line.
Operation *getReportableOp(Operation *op) {
  if (!isa<UnknownLoc>(op->getLoc()))
    return op;
  for (Operation *user : op->getUsers())
    if (!isa<UnknownLoc>(user->getLoc()))
      return user;
  return op;
}

/// Every blocked layout must describe this target's warps and lanes.
LogicalResult verifyLayouts(ModuleOp module, const GPULoweringState &state) {
  unsigned wave = state.hooks->getWaveSize();
  WalkResult result = module.walk([&](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    for (Type type : types) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        continue;
      Attribute layout = tensor.getEncoding();
      while (auto slice = dyn_cast_or_null<tile::SliceLayoutAttr>(layout))
        layout = slice.getParent();
      if (auto mma = dyn_cast_or_null<tile::MmaLayoutAttr>(layout)) {
        if (!llvm::is_contained(state.hooks->getMatrixInstrs(),
                                mma.getInstr())) {
          getReportableOp(op)->emitError("layout ")
              << mma << " needs " << tile::stringifyMatrixInstr(mma.getInstr())
              << ", which " << state.hooks->getInfo().name << " does not have";
          return WalkResult::interrupt();
        }
        if (mma.getNumWarps() != state.numWarps) {
          getReportableOp(op)->emitError("layout ")
              << mma << " spreads over " << mma.getNumWarps()
              << " warps, but the target runs " << state.numWarps << " warps";
          return WalkResult::interrupt();
        }
        continue;
      }
      auto blocked = dyn_cast_or_null<tile::BlockedLayoutAttr>(layout);
      if (!blocked) {
        op->emitOpError("tile without a distributed layout: ")
            << type << " (run tile-assign-layouts first)";
        return WalkResult::interrupt();
      }
      if (blocked.getWaveSize() != wave ||
          blocked.getNumWarps() != state.numWarps) {
        InFlightDiagnostic diag = getReportableOp(op)->emitError("layout ");
        diag << blocked << " spreads over " << blocked.getWaveSize()
             << " lanes x " << blocked.getNumWarps() << " warps, but the target"
             << " runs " << wave << " lanes x " << state.numWarps << " warps";
        if (blocked.getNumWarps() != state.numWarps)
          diag << " (a written layout must span the launch's num_warps)";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether every element a memory op touches is handled by exactly one
/// thread: scalars are loaded by every thread, and layouts that replicate a
/// tile over lanes or warps load each element in several threads.
bool isReplicated(Value tileOrScalar) {
  auto tensor = dyn_cast<RankedTensorType>(tileOrScalar.getType());
  if (!tensor)
    return true;
  LinearLayout layout = getTileLayout(tensor);
  return layout.getDuplicateMask(HWDim::Lane) ||
         layout.getDuplicateMask(HWDim::Warp);
}

bool containsMemoryOps(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp,
                   tile::SmemLoadOp, tile::SmemStoreOp, tile::AsyncCopyOp,
                   tile::AsyncLoadOp, tile::AsyncStoreOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The kernel argument a pointer (tile) is derived from, or the
/// tile.alloc_shared a shared buffer slice is from, or null when it cannot be
/// told (selects, loop-carried pointers).
Value getBasePointer(Value ptr) {
  while (true) {
    if (isa<tile::SharedBufferType>(ptr.getType())) {
      Operation *def = ptr.getDefiningOp();
      if (auto index = dyn_cast_or_null<tile::SmemIndexOp>(def))
        ptr = index.getBuffer();
      else
        return isa_and_nonnull<tile::AllocSharedOp>(def) ? ptr : Value();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(ptr))
      return isa<FunctionOpInterface>(arg.getOwner()->getParentOp()) ? ptr
                                                                     : Value();
    Operation *def = ptr.getDefiningOp();
    if (auto add = dyn_cast_or_null<tile::AddPtrOp>(def))
      ptr = add.getPtr();
    else if (isa_and_nonnull<tile::SplatOp, tile::BroadcastOp,
                             tile::ExpandDimsOp, tile::ReshapeOp, tile::TransOp,
                             tile::ConvertLayoutOp>(def))
      ptr = def->getOperand(0);
    else
      return Value();
  }
}

/// Orders global memory between the threads of a program. Threads run
/// unsynchronized, so a load and a store through the same kernel argument
/// race unless every element is touched by the same thread both times: that
/// holds only for the same pointer tile in a layout that does not replicate it
/// (each thread then rereads or overwrites its own elements). Replicated tiles
/// are loaded by every thread holding a copy but stored by one, scalars loaded
/// by all threads and stored by thread 0, and two different pointer tiles may
/// hand an element to different threads (a shift by one, another layout), so a
/// barrier goes before such an access. Distinct pointer arguments are assumed
/// not to overlap (as kernels are written); pointers of unknown origin may
/// alias anything, and loops are entered and left assuming every hazard.
/// Shared buffers are ordered the same way, each tile.alloc_shared its own
/// base (the same buffer read and written in one layout needs no barrier).
/// An asynchronous copy reads global memory like a load and must not start
/// writing its buffer before every earlier access of the buffer is done; its
/// data is seen after tile.async_wait, whose barrier ends every hazard (only
/// the shared-memory ones where the target's shared-memory barrier leaves
/// global accesses in flight: AMD).
struct MemoryOrdering {
  struct Access {
    Value base; // the kernel argument, or null when unknown
    Value ptr;  // the pointer (tile) or shared buffer accessed
    Type tile;  // the tile moved (its layout says which thread has what)
    bool isStore;
    bool sameThreadsOnly; // not replicated: each element has one thread
    // An asynchronous copy's global read: done once the copy is waited for.
    bool doneAtWait = false;
  };
  SmallVector<Access> accesses; // since the last barrier
  bool everything = false;      // after loops: assume any access conflicts

  static MemoryOrdering all() {
    MemoryOrdering state;
    state.everything = true;
    return state;
  }
  bool conflicts(const Access &next) const {
    if (everything)
      return true;
    for (const Access &prev : accesses) {
      // Only a load and a store race: two loads never do, and two stores to
      // one element from one program are not ordered (as in Triton).
      if (prev.isStore == next.isStore)
        continue;
      if (prev.base && next.base && prev.base != next.base)
        continue;
      if (prev.ptr == next.ptr && prev.tile == next.tile &&
          prev.sameThreadsOnly && next.sameThreadsOnly)
        continue;
      return true;
    }
    return false;
  }
  void join(const MemoryOrdering &other) {
    everything |= other.everything;
    llvm::append_range(accesses, other.accesses);
  }
};

/// Orders the accesses of `block` after those of `state` (barriers where
/// they conflict), leaving in `state` those still unordered at its end. With
/// `insert` false it only follows what they would be (no barrier is made).
void orderGlobalMemory(Block &block, MemoryOrdering &state, TargetHooks &hooks,
                       bool insert = true) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto barrierIfConflict = [&](const MemoryOrdering::Access &next) {
      if (!state.conflicts(next))
        return;
      if (insert) {
        OpBuilder b(&op);
        hooks.barrier(b, op.getLoc());
      }
      state = MemoryOrdering();
    };
    auto access = [&](Value ptr, Value value, bool isStore) {
      MemoryOrdering::Access next{getBasePointer(ptr), ptr, value.getType(),
                                  isStore, !isReplicated(value)};
      barrierIfConflict(next);
      state.accesses.push_back(next);
    };
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      access(load.getPtr(), load.getResult(), /*isStore=*/false);
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      access(store.getPtr(), store.getValue(), /*isStore=*/true);
    } else if (auto load = dyn_cast<tile::SmemLoadOp>(op)) {
      access(load.getBuffer(), load.getResult(), /*isStore=*/false);
    } else if (auto store = dyn_cast<tile::SmemStoreOp>(op)) {
      access(store.getBuffer(), store.getValue(), /*isStore=*/true);
    } else if (auto copy = dyn_cast<tile::AsyncCopyOp>(op)) {
      Value buffer = copy.getBuffer();
      for (bool isStore : {false, true})
        barrierIfConflict({getBasePointer(buffer), buffer, Type(), isStore,
                           /*sameThreadsOnly=*/false});
      access(copy.getPtr(), copy.getPtr(), /*isStore=*/false);
      state.accesses.back().doneAtWait = true;
    } else if (isa<tile::AsyncLoadOp, tile::AsyncStoreOp>(op)) {
      // A block copy (kept for the target's engine): its waves split the
      // block, so no element is sure to stay with one thread.
      bool isLoad = isa<tile::AsyncLoadOp>(op);
      Value buffer = op.getOperand(op.getNumOperands() - 1);
      // A descriptor of unknown origin may alias anything (null base).
      auto desc = op.getOperand(0).getDefiningOp<tile::MakeTensorDescOp>();
      Value base = desc ? getBasePointer(desc.getBase()) : Value();
      MemoryOrdering::Access global{base,
                                    op.getOperand(0),
                                    Type(),
                                    /*isStore=*/!isLoad,
                                    /*sameThreadsOnly=*/false,
                                    /*doneAtWait=*/isLoad};
      if (isLoad)
        for (bool isStore : {false, true})
          barrierIfConflict({getBasePointer(buffer), buffer, Type(), isStore,
                             /*sameThreadsOnly=*/false});
      barrierIfConflict(global);
      state.accesses.push_back(global);
      if (!isLoad) {
        // A store has read its buffer when it returns (a load's writes are
        // seen after tile.async_wait, whose barrier ends every hazard).
        MemoryOrdering::Access read{getBasePointer(buffer), buffer, Type(),
                                    /*isStore=*/false,
                                    /*sameThreadsOnly=*/false};
        barrierIfConflict(read);
        state.accesses.push_back(read);
      }
    } else if (isa<tile::AtomicRMWOp, tile::BarrierOp>(op) ||
               (isa<tile::AsyncWaitOp>(op) &&
                hooks.sharedMemoryBarrierOrdersGlobalMemory())) {
      // Barriers on both sides (AtomicsToGPU.cpp), or a barrier.
      state = MemoryOrdering();
    } else if (isa<tile::AsyncWaitOp>(op)) {
      // The wait's barrier orders shared memory only, after every wave has
      // waited for its copies (their reads are done): the hazards of other
      // global accesses stay.
      llvm::erase_if(state.accesses, [](const MemoryOrdering::Access &a) {
        return a.doneAtWait || isa<tile::SharedBufferType>(a.ptr.getType());
      });
    } else if (isa<scf::ForOp, scf::WhileOp>(op)) {
      if (!containsMemoryOps(&op))
        continue;
      // An iteration starts after the accesses before the loop or those an
      // iteration leaves unordered at its end (followed without barriers,
      // which only makes them more); after the loop, either.
      MemoryOrdering carried;
      for (Region &region : op.getRegions())
        for (Block &body : region)
          orderGlobalMemory(body, carried, hooks, /*insert=*/false);
      // A pointer the body computes may differ from one iteration to the
      // next: the same tile then no longer keeps each element in one thread.
      for (MemoryOrdering::Access &a : carried.accesses)
        a.sameThreadsOnly = false;
      MemoryOrdering after = state;
      after.join(carried);
      for (Region &region : op.getRegions())
        for (Block &body : region) {
          MemoryOrdering inside = after;
          orderGlobalMemory(body, inside, hooks, insert);
        }
      state = after;
    } else if (op.getNumRegions() != 0) {
      MemoryOrdering merged = state;
      for (Region &region : op.getRegions())
        for (Block &body : region) {
          MemoryOrdering inside = state;
          orderGlobalMemory(body, inside, hooks, insert);
          merged.join(inside);
        }
      state = merged;
    }
  }
}

/// Places the kernel's shared memory: the scratch buffer and the shared
/// buffers stay static globals while they fit the target's static limit;
/// beyond it (NVIDIA: 48 KiB) they move into one dynamically sized global,
/// scratch at offset 0 and the buffers after it, and the module records the
/// bytes each launch must provide (a module holds one kernel: the frontend
/// compiles one per request).
static LogicalResult placeSharedMemory(ModuleOp module, GPULoweringState &state,
                                       LLVM::GlobalOp scratch,
                                       StringRef target) {
  TargetHooks &hooks = *state.hooks;
  int64_t scratchBytes =
      llvm::alignTo(state.scratchBytes, state.sharedBufferAlignment);
  auto [bufferOffsets, bufferBytes] = state.placeSharedBuffers();
  int64_t total = scratchBytes + bufferBytes;
  int64_t staticLimit = hooks.getMaxSharedBytes();
  int64_t limit = std::max(staticLimit, hooks.getMaxDynamicSharedBytes());
  if (total > limit) {
    return module.emitError("kernel needs ")
           << total << " bytes of shared memory; " << target << " allows "
           << limit << " (" << scratchBytes
           << " for layout conversions and reductions, " << bufferBytes
           << " in shared buffers: use smaller buffers or layouts that need "
              "smaller conversions)";
  }
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  auto bytesType = [&](int64_t bytes) {
    return LLVM::LLVMArrayType::get(b.getI8Type(), bytes);
  };
  if (total <= staticLimit) {
    if (state.scratchBytes == 0)
      scratch.erase();
    else
      scratch.setGlobalType(bytesType(state.scratchBytes));
    return success();
  }
  b.setInsertionPointToStart(module.getBody());
  unsigned addressSpace = hooks.getSharedAddressSpace();
  LLVM::GlobalOp::create(b, module.getLoc(), bytesType(0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         GPULoweringState::kDynamicSharedSymbol, Attribute(),
                         state.sharedBufferAlignment, addressSpace);
  llvm::StringMap<int64_t> offsets;
  offsets[GPULoweringState::kScratchSymbol] = 0;
  for (auto [index, offset] : llvm::enumerate(bufferOffsets))
    offsets[GPULoweringState::getSharedBufferSymbol(index)] =
        scratchBytes + offset;
  SmallVector<LLVM::AddressOfOp> uses;
  module.walk([&](LLVM::AddressOfOp op) {
    if (offsets.count(op.getGlobalName()))
      uses.push_back(op);
  });
  auto ptrType = LLVM::LLVMPointerType::get(ctx, addressSpace);
  for (LLVM::AddressOfOp op : uses) {
    b.setInsertionPoint(op);
    Value base = LLVM::AddressOfOp::create(
        b, op.getLoc(), ptrType, GPULoweringState::kDynamicSharedSymbol);
    Value at = LLVM::GEPOp::create(b, op.getLoc(), ptrType, b.getI8Type(), base,
                                   ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(
                                       offsets.lookup(op.getGlobalName()))},
                                   LLVM::GEPNoWrapFlags::inbounds);
    op.replaceAllUsesWith(at);
    op.erase();
  }
  for (auto global :
       llvm::make_early_inc_range(module.getOps<LLVM::GlobalOp>()))
    if (offsets.count(global.getSymName()))
      global.erase();
  module->setAttr(GPULoweringState::kDynamicSharedBytesAttr,
                  b.getI64IntegerAttr(total));
  return success();
}

struct ConvertTileToGPUPass
    : kda::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::unique_ptr<TargetHooks> hooks = createTargetHooks(target);
    if (!hooks) {
      module.emitError("unknown GPU target '") << target << "'";
      return signalPassFailure();
    }
    GPULoweringState state;
    state.hooks = hooks.get();
    state.numWarps = getNumWarps(module);
    if (auto wave = module->getAttrOfType<IntegerAttr>("tile.wave_size"))
      if (wave.getInt() != hooks->getWaveSize()) {
        module.emitError("tiles were laid out for a wave of ")
            << wave.getInt() << " but " << target << " runs "
            << hooks->getWaveSize();
        return signalPassFailure();
      }

    if (failed(verifyLayouts(module, state)) ||
        failed(prepareClusters(module, state)))
      return signalPassFailure();
    AxisInfoAnalysis axisInfo(module);
    state.axisInfo = &axisInfo;
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &block : func.getBody()) {
        MemoryOrdering ordering;
        orderGlobalMemory(block, ordering, *hooks);
      }
    if (failed(prepareTensorMaps(module, state)))
      return signalPassFailure();
    prepareLaneOrderedCopies(module, state);

    // The scratch buffer is created up front so patterns can refer to it,
    // and sized once every pattern has said what it needs.
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto scratchType = [&](int64_t bytes) {
      return LLVM::LLVMArrayType::get(b.getI8Type(),
                                      std::max<int64_t>(bytes, 1));
    };
    auto scratch = LLVM::GlobalOp::create(
        b, module.getLoc(), scratchType(1), /*isConstant=*/false,
        LLVM::Linkage::Internal, GPULoweringState::kScratchSymbol, Attribute(),
        /*alignment=*/16, hooks->getSharedAddressSpace());

    TileToGPUTypeConverter converter(ctx, hooks->getSharedAddressSpace());
    ConversionTarget convTarget(*ctx);
    convTarget.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                               ROCDL::ROCDLDialect>();
    convTarget.addIllegalDialect<tile::TileDialect, math::MathDialect>();
    convTarget.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !hasTileTypes(op); });
    // Float division goes through the target's hooks, scalars included
    // (vectors, which no tile lowering makes, are left to ArithToLLVM).
    convTarget.addDynamicallyLegalOp<arith::DivFOp>([](arith::DivFOp op) {
      return !hasTileTypes(op) && !isa<FloatType>(op.getType());
    });
    convTarget.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });

    RewritePatternSet patterns(ctx);
    populateElementwiseToGPUPatterns(converter, patterns, state);
    populateShapeOpsToGPUPatterns(converter, patterns, state);
    populateMemoryOpsToGPUPatterns(converter, patterns, state);
    populatePrintToGPUPatterns(converter, patterns, state);
    populateAtomicsToGPUPatterns(converter, patterns, state);
    populateSharedMemoryToGPUPatterns(converter, patterns, state);
    populateTensorDescsToGPUPatterns(converter, patterns, state);
    populateClusterToGPUPatterns(converter, patterns, state);
    populateLaunchOrderToGPUPatterns(converter, patterns, state);
    populateReduceToGPUPatterns(converter, patterns, state);
    populateDotToGPUPatterns(converter, patterns, state);
    populateMathToGPUIntrinsicsPatterns(converter, patterns, state);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    if (failed(applyPartialConversion(module, convTarget, std::move(patterns))))
      return signalPassFailure();

    emitClusterEntries(module, state);
    scopeLaneOrderedCopies(module, *hooks);
    if (failed(placeSharedMemory(module, state, scratch, target)))
      return signalPassFailure();
  }
};

struct FinalizeGPUKernelsPass
    : kda::impl::FinalizeGPUKernelsBase<FinalizeGPUKernelsPass> {
  using FinalizeGPUKernelsBase::FinalizeGPUKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetHooks> hooks = createTargetHooks(target);
    if (!hooks) {
      module.emitError("unknown GPU target '") << target << "'";
      return signalPassFailure();
    }
    unsigned numThreads = getNumWarps(module) * hooks->getWaveSize();
    SmallVector<int32_t> clusterShape = {1, 1, 1};
    if (auto shape = module->getAttrOfType<DenseI32ArrayAttr>(
            tile::kClusterShapeAttrName))
      clusterShape.assign(shape.asArrayRef().begin(), shape.asArrayRef().end());
    MLIRContext *ctx = module.getContext();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto hint = func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility");
        if (!hint)
          continue;
        func.removeArgAttr(i, StringAttr::get(ctx, "tile.divisibility"));
        if (isa<LLVM::LLVMPointerType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, "llvm.align",
              IntegerAttr::get(IntegerType::get(ctx, 64), hint.getInt()));
      }
      if (!func->hasAttr("tile.kernel"))
        continue;
      func->removeAttr("tile.kernel");
      hooks->markKernel(func, numThreads, clusterShape);
      // The hidden tensor-map parameters come last.
      if (auto maps = func->getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName))
        for (unsigned i = func.getNumArguments() - maps.size();
             i < func.getNumArguments(); ++i) {
          NamedAttrList attrs(func.getArgAttrDict(i));
          hooks->addTensorMapArgAttrs(ctx, attrs);
          func.setArgAttrs(i, attrs.getDictionary(ctx));
        }
    }
    module->removeAttr("tile.num_warps");
    module->removeAttr("tile.wave_size");
  }
};

} // namespace
