//===- LaunchOrderToGPU.cpp - waiting for the previous kernel on a stream -===//
//
// tile.wait_prior_launches and tile.launch_dependents become the target's
// grid dependency control (sm_90a: griddepcontrol); where launches on a
// stream always run one after another (AMD) they are dropped.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

using namespace mlir;
using namespace kda;

namespace {

template <typename Op> struct LaunchOrderLowering : OpConversionPattern<Op> {
  LaunchOrderLowering(const TypeConverter &converter, MLIRContext *ctx,
                      GPULoweringState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<Op, tile::WaitPriorLaunchesOp>)
      state.hooks->waitPriorLaunches(rewriter, op.getLoc());
    else
      state.hooks->launchDependents(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateLaunchOrderToGPUPatterns(TileToGPUTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           GPULoweringState &state) {
  patterns.add<LaunchOrderLowering<tile::WaitPriorLaunchesOp>,
               LaunchOrderLowering<tile::LaunchDependentsOp>>(
      converter, patterns.getContext(), state);
}
