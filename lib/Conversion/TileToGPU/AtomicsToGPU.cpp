//===- AtomicsToGPU.cpp - one atomic per program --------------------------===//
//
// Scalars live in every thread, but a tile.atomic_rmw must happen once per
// program: thread 0 performs it and passes the old value to the others
// through scratch memory. The program's ordering is built around it: for
// release, every thread fences before the barrier that precedes the atomic
// (so all of the program's earlier accesses are ordered before it); for
// acquire, every thread fences after the barrier that publishes the result.
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
    bool release = hasRelease(op.getSem());
    bool acquire = hasAcquire(op.getSem());
    Type type = adaptor.getValue().getType();
    Value slot = getScratch(rewriter, loc, state, getScratchElementBytes(type));
    if (release)
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::release,
                            scope);
    // Also keeps the scratch slot from being overwritten while a previous
    // user may still read it.
    hooks.barrier(rewriter, loc);
    Type i32 = rewriter.getI32Type();
    Value first = emitIsFirstThread(rewriter, loc, state);
    auto ifOp = scf::IfOp::create(rewriter, loc, first,
                                  /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      Value old = LLVM::AtomicRMWOp::create(
          rewriter, loc, getAtomicBinOp(op.getKind(), type), adaptor.getPtr(),
          adaptor.getValue(), getAtomicOrdering(op.getSem()), scope,
          getScratchElementBytes(type));
      storeScratch(rewriter, loc, slot,
                   LLVM::ConstantOp::create(rewriter, loc, i32, 0), old);
    }
    hooks.barrier(rewriter, loc);
    Value result =
        loadScratch(rewriter, loc, slot,
                    LLVM::ConstantOp::create(rewriter, loc, i32, 0), type);
    if (acquire)
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acquire,
                            scope);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void kda::populateAtomicsToGPUPatterns(TileToGPUTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       GPULoweringState &state) {
  patterns.add<AtomicRMWLowering>(converter, patterns.getContext(), state);
}
