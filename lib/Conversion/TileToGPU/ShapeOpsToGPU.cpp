//===- ShapeOpsToGPU.cpp - broadcast, reshape, transpose, conversions -----===//
//
// Each of these ops relabels coordinates. When the relabelling leaves every
// element in the thread that holds it, the op is a register permutation;
// otherwise the tile goes through scratch memory.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kda;

namespace {
using Coord = LinearLayout::Coord;

/// The destination-to-source coordinate map of each shape op.
std::function<Coord(ArrayRef<int64_t>)> getSourceCoordMap(Operation *op) {
  auto srcShape =
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  auto dstShape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  SmallVector<int64_t> src(srcShape), dst(dstShape);
  if (isa<tile::BroadcastOp>(op))
    return [src](ArrayRef<int64_t> c) {
      Coord out(c);
      for (unsigned d = 0; d < src.size(); ++d)
        if (src[d] == 1)
          out[d] = 0;
      return out;
    };
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    int64_t axis = expand.getAxisAttr().getInt();
    return [axis](ArrayRef<int64_t> c) {
      Coord out(c);
      out.erase(out.begin() + axis);
      return out;
    };
  }
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    SmallVector<int32_t> order(trans.getOrder());
    return [order](ArrayRef<int64_t> c) {
      Coord out(c.size());
      for (auto [i, d] : llvm::enumerate(order))
        out[d] = c[i];
      return out;
    };
  }
  if (isa<tile::ReshapeOp>(op))
    // Power-of-two shapes: the row-major index is the coordinate bits laid
    // end to end, so this map is linear over bits.
    return [src, dst](ArrayRef<int64_t> c) {
      int64_t linear = 0;
      for (auto [x, s] : llvm::zip_equal(c, dst))
        linear = linear * s + x;
      Coord out(src.size());
      for (unsigned d = src.size(); d-- > 0;) {
        out[d] = linear % src[d];
        linear /= src[d];
      }
      return out;
    };
  return [](ArrayRef<int64_t> c) { return Coord(c); }; // convert_layout
}

template <typename OpTy> struct RelabelLowering : OpConversionPattern<OpTy> {
  RelabelLowering(const TypeConverter &converter, MLIRContext *ctx,
                  GPULoweringState &state)
      : OpConversionPattern<OpTy>(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    Type structType = this->getTypeConverter()->convertType(dstType);
    if (!structType || !tile::isDistributedLayout(srcType.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    LinearLayout src = getTileLayout(srcType), dst = getTileLayout(dstType);
    SmallVector<Value> srcRegs =
        unpackRegisters(rewriter, loc, adaptor.getSrc());
    auto toSource = getSourceCoordMap(op);
    SmallVector<Value> dstRegs;
    if (auto remap = getRegisterRemap(src, dst, toSource)) {
      for (int64_t r : *remap)
        dstRegs.push_back(srcRegs[r]);
    } else if (isa<tile::BroadcastOp, tile::ExpandDimsOp, tile::TransOp>(
                   op.getOperation())) {
      // The layout assignment keeps these thread-local; anything else means
      // the IR was built with layouts that need an explicit conversion.
      return op.emitOpError("moves elements between threads: convert its "
                            "operand to a compatible layout first");
    } else {
      Type elemType = cast<LLVM::LLVMStructType>(structType).getBody()[0];
      dstRegs = exchangeThroughScratch(rewriter, loc, state, srcRegs, src, dst,
                                       elemType);
    }
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, dstRegs));
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateShapeOpsToGPUPatterns(TileToGPUTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        GPULoweringState &state) {
  patterns.add<RelabelLowering<tile::BroadcastOp>,
               RelabelLowering<tile::ExpandDimsOp>,
               RelabelLowering<tile::TransOp>, RelabelLowering<tile::ReshapeOp>,
               RelabelLowering<tile::ConvertLayoutOp>>(
      converter, patterns.getContext(), state);
}
