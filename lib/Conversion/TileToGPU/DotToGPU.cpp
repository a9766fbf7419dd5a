//===- DotToGPU.cpp - matrix products with fused multiply-adds ------------===//
//
// The portable form of tile.dot: both operands go to scratch memory as fp32
// (row-major), then each thread accumulates its result registers over K.
// Matrix-core (MFMA/WMMA/wgmma) lowerings come with MMA layouts.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {

Value toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  if (v.getType().getIntOrFloatBitWidth() > 32)
    return LLVM::FPTruncOp::create(b, loc, f32, v);
  return LLVM::FPExtOp::create(b, loc, f32, v);
}

struct DotLowering : OpConversionPattern<tile::DotOp> {
  DotLowering(const TypeConverter &converter, MLIRContext *ctx,
              GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  /// Writes every element of a tile to scratch at base + row-major index.
  void spill(OpBuilder &b, Location loc, Value base, Value offset, Value packed,
             RankedTensorType type, ThreadIndex thread) const {
    LinearLayout layout = getTileLayout(type);
    SmallVector<Value> laneWarp = emitLaneWarpCoords(b, loc, layout, thread);
    uint64_t dup = layout.getDuplicateMask(HWDim::Register);
    for (auto [r, v] : llvm::enumerate(unpackRegisters(b, loc, packed))) {
      if (int64_t(r) & dup)
        continue;
      Value index = emitLinearIndex(
          b, loc, emitCoords(b, loc, layout, r, laneWarp), type.getShape());
      storeScratch(b, loc, base, LLVM::AddOp::create(b, loc, offset, index),
                   toF32(b, loc, v));
    }
  }

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto cType = op.getAcc().getType();
    if (!tile::isDistributedLayout(aType.getEncoding()) ||
        !tile::isDistributedLayout(bType.getEncoding()) ||
        !tile::isDistributedLayout(cType.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
            n = bType.getDimSize(1);
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Value base = getScratch(rewriter, loc, state, (m * k + k * n) * 4);
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    state.hooks->barrier(rewriter, loc);
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
    Value bOffset = LLVM::ConstantOp::create(rewriter, loc, i32, m * k);
    spill(rewriter, loc, base, zero, adaptor.getA(), aType, thread);
    spill(rewriter, loc, base, bOffset, adaptor.getB(), bType, thread);
    state.hooks->barrier(rewriter, loc);

    LinearLayout cLayout = getTileLayout(cType);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, cLayout, thread);
    SmallVector<Value> acc = unpackRegisters(rewriter, loc, adaptor.getAcc());
    SmallVector<Value> rowBase, col;
    for (int64_t r = 0; r < int64_t(acc.size()); ++r) {
      SmallVector<Value> c = emitCoords(rewriter, loc, cLayout, r, laneWarp);
      rowBase.push_back(
          LLVM::MulOp::create(rewriter, loc, c[0],
                              LLVM::ConstantOp::create(rewriter, loc, i32, k)));
      col.push_back(LLVM::AddOp::create(rewriter, loc, c[1], bOffset));
    }
    // One loop over K carries every accumulator register.
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, acc,
        [&](OpBuilder &b, Location l, Value iv, ValueRange carried) {
          Value kk = arith::IndexCastOp::create(b, l, i32, iv);
          Value kRow = LLVM::MulOp::create(
              b, l, kk, LLVM::ConstantOp::create(b, l, i32, n));
          SmallVector<Value> next;
          for (auto [r, a] : llvm::enumerate(carried)) {
            Value av = loadScratch(
                b, l, base, LLVM::AddOp::create(b, l, rowBase[r], kk), f32);
            Value bv = loadScratch(
                b, l, base, LLVM::AddOp::create(b, l, kRow, col[r]), f32);
            next.push_back(LLVM::FMAOp::create(b, l, av, bv, a));
          }
          scf::YieldOp::create(b, l, next);
        });
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(
        op, packRegisters(rewriter, loc, structType, loop.getResults()));
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateDotToGPUPatterns(TileToGPUTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   GPULoweringState &state) {
  patterns.add<DotLowering>(converter, patterns.getContext(), state);
}
