//===- AtomicsToGPU.cpp - atomics per program or per element --------------===//
//
// Scalars live in every thread, but a scalar tile.atomic_rmw must happen once
// per program: thread 0 performs it and passes the old value to the others
// through scratch memory. A tile's atomics happen once per element, by the
// thread that would store the element. The program's ordering is built
// around them: for release, every thread fences before the barrier that
// precedes the atomics (so all of the program's earlier accesses are ordered
// before them); for acquire, every thread fences after the barrier that
// follows them.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/AtomicsToLLVM.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {

/// `atomic()` where `guard` holds, else 0 (no guard: always).
Value emitGuardedAtomic(OpBuilder &b, Location loc, Value guard, Type type,
                        function_ref<Value(OpBuilder &)> atomic) {
  Value zero =
      guard ? LLVM::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult()
            : Value();
  return emitGuardedValue(b, loc, guard, type, atomic, zero);
}

struct AtomicRMWLowering : OpConversionPattern<tile::AtomicRMWOp> {
  AtomicRMWLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  GPULoweringState &state;

  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TargetHooks &hooks = *state.hooks;
    StringRef scope = hooks.getSyncScope(op.getScope());
    Type type = mlir::getElementTypeOrSelf(op.getValue().getType());
    auto atomicAt = [&](Value ptr, Value value) {
      return [&, ptr, value](OpBuilder &b) -> Value {
        return LLVM::AtomicRMWOp::create(
            b, loc, getAtomicBinOp(op.getKind(), type), ptr, value,
            getAtomicOrdering(op.getSem()), scope,
            getScratchElementBytes(type));
      };
    };
    if (hasRelease(op.getSem()))
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::release,
                            scope);
    // Orders every thread's earlier accesses before the atomics, and keeps
    // the scratch buffer from being overwritten while a previous user may
    // still read it.
    hooks.barrier(rewriter, loc);
    Type i32 = rewriter.getI32Type();
    Value result;
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      Value slot =
          getScratch(rewriter, loc, state, getScratchElementBytes(type));
      Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
      // Thread 0 does it and publishes the old value (0 when masked off).
      auto ifOp = scf::IfOp::create(
          rewriter, loc, emitIsFirstThread(rewriter, loc, state), false);
      {
        OpBuilder::InsertionGuard insertion(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        Value old =
            emitGuardedAtomic(rewriter, loc, adaptor.getMask(), type,
                              atomicAt(adaptor.getPtr(), adaptor.getValue()));
        storeScratch(rewriter, loc, slot, zero, old);
      }
      hooks.barrier(rewriter, loc);
      result = loadScratch(rewriter, loc, slot, zero, type);
    } else {
      result =
          lowerTileAtomic(rewriter, loc, op, adaptor, tensorType, atomicAt);
    }
    if (hasAcquire(op.getSem()))
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acquire,
                            scope);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// One atomic per unmasked element, by the thread whose duplicate lane and
  /// warp bits are zero (as a store picks its writer). When other threads
  /// hold copies of an element, the owner's old value reaches them through
  /// scratch. Ends with a barrier either way.
  template <typename AtomicAt>
  Value lowerTileAtomic(ConversionPatternRewriter &rewriter, Location loc,
                        tile::AtomicRMWOp op, OpAdaptor adaptor,
                        RankedTensorType tensorType, AtomicAt atomicAt) const {
    Type type = tensorType.getElementType();
    LinearLayout layout = getTileLayout(tensorType);
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    Value owner = emitIsElementOwner(rewriter, loc, layout, thread);
    uint64_t dupRegs = layout.getDuplicateMask(HWDim::Register);
    SmallVector<Value> ptrs = unpackRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values =
        unpackRegisters(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackRegisters(rewriter, loc, adaptor.getMask());
    SmallVector<Value> olds(ptrs.size());
    for (size_t r = 0; r < ptrs.size(); ++r) {
      if (int64_t(r) & dupRegs)
        continue;
      Value guard =
          andGuards(rewriter, loc, owner, masks.empty() ? Value() : masks[r]);
      olds[r] = emitGuardedAtomic(rewriter, loc, guard, type,
                                  atomicAt(ptrs[r], values[r]));
    }
    if (owner) {
      // Copies in other threads: the owner writes, everyone reads.
      int64_t numElements = tensorType.getNumElements();
      Value base = getScratch(rewriter, loc, state,
                              numElements * getScratchElementBytes(type));
      SmallVector<Value> laneWarp =
          emitLaneWarpCoords(rewriter, loc, layout, thread);
      SmallVector<Value> indices(ptrs.size());
      for (size_t r = 0; r < ptrs.size(); ++r)
        if (!(int64_t(r) & dupRegs))
          indices[r] = emitLinearIndex(
              rewriter, loc, emitCoords(rewriter, loc, layout, r, laneWarp),
              tensorType.getShape());
      auto ifOp = scf::IfOp::create(rewriter, loc, owner, false);
      {
        OpBuilder::InsertionGuard insertion(rewriter);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        for (size_t r = 0; r < ptrs.size(); ++r)
          if (!(int64_t(r) & dupRegs))
            storeScratch(rewriter, loc, base, indices[r], olds[r]);
      }
      state.hooks->barrier(rewriter, loc);
      for (size_t r = 0; r < ptrs.size(); ++r)
        if (!(int64_t(r) & dupRegs))
          olds[r] = loadScratch(rewriter, loc, base, indices[r], type);
    }
    state.hooks->barrier(rewriter, loc);
    for (size_t r = 0; r < ptrs.size(); ++r)
      if (int64_t(r) & dupRegs)
        olds[r] = olds[r & ~dupRegs];
    Type structType = getTypeConverter()->convertType(tensorType);
    return packRegisters(rewriter, loc, structType, olds);
  }
};

} // namespace

void kda::populateAtomicsToGPUPatterns(TileToGPUTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       GPULoweringState &state) {
  patterns.add<AtomicRMWLowering>(converter, patterns.getContext(), state);
}
