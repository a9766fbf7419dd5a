//===- PrintToGPU.cpp - tile.print from the threads holding each element --===//
//
// Each element of a printed tile is printed by the one thread that owns it
// (replicas held by other lanes, warps or registers stay silent), with its
// coordinates in the tile computed from the layout; a scalar, held by every
// thread, is printed by the program's first thread.
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/PrintToLLVM.h"
#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {

struct PrintLowering : OpConversionPattern<tile::PrintOp> {
  PrintLowering(const TypeConverter &converter, MLIRContext *ctx,
                GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> pids;
    for (unsigned axis = 0; axis < 3; ++axis)
      pids.push_back(state.hooks->getProgramId(rewriter, loc, axis));
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    bool several = op.getArgs().size() > 1;
    bool hex = op.getHex();
    // printf(format, pid..., coords..., value) where `guard` holds.
    auto emitLine = [&](const std::string &format, ValueRange coords,
                        Value value, Value guard) {
      OpBuilder::InsertionGuard insertion(rewriter);
      if (guard) {
        auto ifOp =
            scf::IfOp::create(rewriter, loc, guard, /*withElseRegion=*/false);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
      }
      SmallVector<Value> args(pids);
      args.append(coords.begin(), coords.end());
      args.push_back(getPrintArgument(rewriter, loc, value, hex));
      state.hooks->printf(rewriter, loc, format, args);
    };
    for (auto [k, arg, converted] :
         llvm::enumerate(op.getArgs(), adaptor.getArgs())) {
      auto tensor = dyn_cast<RankedTensorType>(arg.getType());
      std::string format =
          getPrintFormat(op.getPrefix(), tensor ? tensor.getRank() : 0,
                         several ? std::optional<unsigned>(k) : std::nullopt,
                         getElementTypeOrSelf(arg.getType()), hex);
      if (!tensor) {
        emitLine(format, {}, converted,
                 emitIsFirstThread(rewriter, loc, state));
        continue;
      }
      LinearLayout layout = getTileLayout(tensor);
      Value owner = emitIsElementOwner(rewriter, loc, layout, thread);
      SmallVector<Value> laneWarp =
          emitLaneWarpCoords(rewriter, loc, layout, thread);
      uint64_t duplicateRegs = layout.getDuplicateMask(HWDim::Register);
      for (auto [r, value] :
           llvm::enumerate(unpackRegisters(rewriter, loc, converted))) {
        if (int64_t(r) & duplicateRegs)
          continue;
        emitLine(format, emitCoords(rewriter, loc, layout, r, laneWarp), value,
                 owner);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populatePrintToGPUPatterns(TileToGPUTypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     GPULoweringState &state) {
  patterns.add<PrintLowering>(converter, patterns.getContext(), state);
}
