//===- ShapeOpsToTensor.cpp - tile shape ops to tensor/linalg -------------===//
//
// Tiles are value-semantic tensors already; these patterns only replace the
// tile ops that have no upstream equivalent with ones that bufferize.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kda;

namespace {

/// Builds a tensor.generate of `type` whose body computes each element from
/// its indices.
Value buildGenerate(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element) {
  auto gen = tensor::GenerateOp::create(b, loc, type, ValueRange{});
  Block *body = b.createBlock(
      &gen.getBody(), {}, SmallVector<Type>(type.getRank(), b.getIndexType()),
      SmallVector<Location>(type.getRank(), loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value v = element(b, loc, body->getArguments());
  tensor::YieldOp::create(b, loc, v);
  return gen;
}

/// Reshapes a static tensor in row-major order through a 1-D view.
Value reshapeRowMajor(OpBuilder &b, Location loc, Value src,
                      RankedTensorType dstType) {
  auto srcType = cast<RankedTensorType>(src.getType());
  Value flat = src;
  if (srcType.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < srcType.getRank(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, src,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (dstType.getRank() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t i = 0; i < dstType.getRank(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, dstType, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

struct RangeLowering : OpConversionPattern<tile::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t start = op.getStartAttr().getInt();
    Value result = buildGenerate(
        rewriter, op.getLoc(), op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange idx) -> Value {
          Value i = arith::IndexCastOp::create(b, loc, b.getI32Type(), idx[0]);
          Value s = arith::ConstantIntOp::create(b, loc, b.getI32Type(), start);
          return arith::AddIOp::create(b, loc, i, s);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplatLowering : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<tensor::SplatOp>(op, type, adaptor.getSrc());
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value src = adaptor.getSrc();
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    Value result =
        buildGenerate(rewriter, op.getLoc(), type,
                      [&](OpBuilder &b, Location loc, ValueRange idx) -> Value {
                        SmallVector<Value> srcIdx;
                        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
                        for (auto [i, dim] : llvm::enumerate(srcShape))
                          srcIdx.push_back(dim == 1 ? zero : idx[i]);
                        return tensor::ExtractOp::create(b, loc, src, srcIdx);
                      });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy>
struct ReshapeLikeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOp(
        op, reshapeRowMajor(rewriter, op.getLoc(), adaptor.getSrc(), type));
    return success();
  }
};

struct TransLowering : OpConversionPattern<tile::TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    SmallVector<int64_t> perm(op.getOrder().begin(), op.getOrder().end());
    auto trans = linalg::TransposeOp::create(rewriter, op.getLoc(),
                                             adaptor.getSrc(), init, perm);
    rewriter.replaceOp(op, trans.getResult());
    return success();
  }
};

} // namespace

void kda::populateTileShapeToTensorPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<RangeLowering, SplatLowering, BroadcastLowering,
               ReshapeLikeLowering<tile::ExpandDimsOp>,
               ReshapeLikeLowering<tile::ReshapeOp>, TransLowering>(
      converter, patterns.getContext());
}
