//===- TensorDescsToGPU.cpp - block copies on a block-copy engine ---------===//
//
// On targets with a block-copy engine (TargetHooks::getBlockCopyEngine), the
// tensor-descriptor copies tile-expand-tensor-descs kept reach this lowering:
// a descriptor is an LLVM struct {base, shape..., strides...}, and each
// tile.async_load / tile.async_store is one engine copy per wave, the waves
// splitting the block along its outer dimensions so that each wave's tile is
// contiguous in the row-major buffer (and, in a padded buffer, whole padding
// intervals, which the engine pads as it writes).
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <numeric>

using namespace mlir;
using namespace kda;

SmallVector<int64_t> kda::splitBlockOverWaves(ArrayRef<int64_t> block,
                                              int64_t waves) {
  SmallVector<int64_t> split(block.size(), 1);
  for (size_t d = 0; d + 1 < block.size() && waves > 1; ++d) {
    split[d] = std::gcd(block[d], waves);
    waves /= split[d];
    // An inner dimension splits only under single rows of this one, or the
    // waves' tiles would interleave in the buffer.
    if (split[d] != block[d])
      break;
  }
  return split;
}

namespace {

template <typename CopyOp>
struct BlockCopyLowering : OpConversionPattern<CopyOp> {
  BlockCopyLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern<CopyOp>(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(CopyOp op, typename CopyOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::TensorDescType descType = op.getDesc().getType();
    ArrayRef<int64_t> block = descType.getBlockShape();
    size_t rank = block.size();
    Type elem = descType.getElementType();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto constant = [&](Type type, int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, type, v).getResult();
    };
    // {base, shape..., strides...}
    SmallVector<Value> fields =
        unpackRegisters(rewriter, loc, adaptor.getDesc());
    auto field = [&](int64_t i) { return fields[i]; };

    auto padded = dyn_cast_or_null<tile::PaddedSharedLayoutAttr>(
        op.getBuffer().getType().getLayout());
    // Each wave's tile starts a padding interval: fewer waves copy larger
    // tiles until the tiles hold whole intervals (one wave copies all).
    SmallVector<int64_t> split;
    int64_t usedWaves = 0;
    for (int64_t waves = state.numWarps; !usedWaves; waves /= 2) {
      split = splitBlockOverWaves(block, waves);
      int64_t used = 1, tileElements = 1;
      for (size_t d = 0; d < rank; ++d) {
        used *= split[d];
        tileElements *= block[d] / split[d];
      }
      if (!padded || tileElements % padded.getInterval() == 0 || waves == 1)
        usedWaves = used;
    }
    Value wave = state.hooks->getWaveUniform(
        rewriter, loc, getThreadIndex(rewriter, loc, state).warp);
    Value active =
        usedWaves == int64_t(state.numWarps)
            ? constant(rewriter.getI1Type(), 1)
            : LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult,
                                   wave, constant(i32, usedWaves))
                  .getResult();

    TargetHooks::BlockCopy copy;
    copy.elementType = elem;
    copy.active = active;
    copy.isLoad = std::is_same_v<CopyOp, tile::AsyncLoadOp>;
    Value globalOffset = constant(i64, 0), sharedOffset = constant(i32, 0);
    Value rest = wave;
    int64_t bufferStride = 1;
    SmallVector<Value> firsts(rank);
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t tileDim = block[d] / split[d];
      Value first = adaptor.getOffsets()[d];
      if (split[d] > 1) {
        // The wave's coordinate along d (waves numbered row-major).
        Value coord =
            LLVM::URemOp::create(rewriter, loc, rest, constant(i32, split[d]));
        rest =
            LLVM::UDivOp::create(rewriter, loc, rest, constant(i32, split[d]));
        Value start =
            LLVM::MulOp::create(rewriter, loc, coord, constant(i32, tileDim));
        first = LLVM::AddOp::create(rewriter, loc, first, start);
        sharedOffset = LLVM::AddOp::create(
            rewriter, loc, sharedOffset,
            LLVM::MulOp::create(rewriter, loc, start,
                                constant(i32, bufferStride)));
      }
      bufferStride *= block[d];
      Value stride = field(1 + rank + d);
      globalOffset = LLVM::AddOp::create(
          rewriter, loc, globalOffset,
          LLVM::MulOp::create(rewriter, loc,
                              LLVM::SExtOp::create(rewriter, loc, i64, first),
                              stride));
      Value left = LLVM::SubOp::create(rewriter, loc, field(1 + d), first);
      Value extent =
          LLVM::SMaxOp::create(rewriter, loc, left, constant(i32, 0));
      copy.extents.insert(copy.extents.begin(), extent);
      copy.strides.insert(copy.strides.begin(), stride);
      copy.tile.insert(copy.tile.begin(), tileDim);
    }
    copy.global = LLVM::GEPOp::create(rewriter, loc, field(0).getType(), elem,
                                      field(0), ValueRange{globalOffset});
    if (padded) {
      sharedOffset = emitPaddedIndex(rewriter, loc, padded, sharedOffset);
      copy.padInterval = padded.getInterval();
      copy.padding = padded.getPadding();
    }
    copy.shared =
        LLVM::GEPOp::create(rewriter, loc, adaptor.getBuffer().getType(), elem,
                            adaptor.getBuffer(), ValueRange{sharedOffset});
    state.hooks->copyBlock(rewriter, loc, copy);
    // A store has finished when the op returns: the buffer may be written
    // again, and the program's end frees it.
    if (!copy.isLoad)
      state.hooks->waitBlockCopies(rewriter, loc, 0);
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

struct MakeTensorDescLowering : OpConversionPattern<tile::MakeTensorDescOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MakeTensorDescOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> fields = {adaptor.getBase()};
    llvm::append_range(fields, adaptor.getShape());
    llvm::append_range(fields, adaptor.getStrides());
    rewriter.replaceOp(
        op,
        packRegisters(rewriter, op.getLoc(),
                      getTypeConverter()->convertType(op.getType()), fields));
    return success();
  }
};

} // namespace

void kda::populateTensorDescsToGPUPatterns(TileToGPUTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MakeTensorDescLowering>(converter, ctx);
  patterns.add<BlockCopyLowering<tile::AsyncLoadOp>,
               BlockCopyLowering<tile::AsyncStoreOp>>(converter, ctx, state);
}
