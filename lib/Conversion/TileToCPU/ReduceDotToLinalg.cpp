//===- ReduceDotToLinalg.cpp - reductions, scans and dots for the host ----===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

using namespace mlir;
using namespace kda;

namespace {

struct ReduceLowering : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType();
    Type elem = srcType.getElementType();
    int64_t axis = op.getAxisAttr().getInt();
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + axis);
    auto initType = RankedTensorType::get(shape, elem);
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, elem);
    Value identity = arith::ConstantOp::create(
        rewriter, loc, tile::getCombineIdentity(rewriter, op.getKind(), elem));
    Value init =
        linalg::FillOp::create(rewriter, loc, identity, empty).getResult(0);
    tile::ReduceKind kind = op.getKind();
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, adaptor.getSrc(), init, SmallVector<int64_t>{axis},
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, tile::buildCombine(b, l, kind, args[0], args[1]));
        });
    Value result = reduce.getResult(0);
    if (initType.getRank() == 0)
      result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An inclusive scan as loops over its elements, the axis innermost: the
/// combiner, cloned, takes the running values (the elements before, or after
/// when reversed) and the next elements. Scalar extracts and inserts
/// bufferize in place.
struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> srcs(adaptor.getSrcs());
    auto type = cast<RankedTensorType>(srcs.front().getType());
    unsigned rank = type.getRank(), axis = op.getAxisAttr().getInt();
    int64_t n = type.getDimSize(axis);
    bool reverse = op.getReverse();
    Block &combiner = op.getCombiner().front();
    SmallVector<Value> index(rank);
    // Loops over the other dimensions, outermost first, then the axis.
    SmallVector<unsigned> order;
    for (unsigned d = 0; d < rank; ++d)
      if (d != axis)
        order.push_back(d);
    order.push_back(axis);
    std::function<SmallVector<Value>(OpBuilder &, Location, unsigned,
                                     ValueRange)>
        nest = [&](OpBuilder &b, Location l, unsigned depth,
                   ValueRange running) -> SmallVector<Value> {
      unsigned d = order[depth];
      bool innermost = depth + 1 == order.size();
      int64_t lo = innermost ? 1 : 0, size = type.getDimSize(d);
      Value one = arith::ConstantIndexOp::create(b, l, 1);
      auto loop = scf::ForOp::create(
          b, l, arith::ConstantIndexOp::create(b, l, lo),
          arith::ConstantIndexOp::create(b, l, size), one, running,
          [&](OpBuilder &lb, Location ll, Value iv, ValueRange carried) {
            if (!innermost) {
              index[d] = iv;
              scf::YieldOp::create(lb, ll, nest(lb, ll, depth + 1, carried));
              return;
            }
            // Reversed, step k visits n - 1 - k after n - k.
            Value last = arith::ConstantIndexOp::create(lb, ll, n - 1);
            Value at =
                reverse ? Value(arith::SubIOp::create(lb, ll, last, iv)) : iv;
            Value before = reverse
                               ? Value(arith::AddIOp::create(lb, ll, at, one))
                               : Value(arith::SubIOp::create(lb, ll, at, one));
            IRMapping map;
            for (auto [i, t] : llvm::enumerate(carried)) {
              index[axis] = before;
              map.map(combiner.getArgument(i),
                      tensor::ExtractOp::create(lb, ll, t, index));
              index[axis] = at;
              map.map(combiner.getArgument(carried.size() + i),
                      tensor::ExtractOp::create(lb, ll, t, index));
            }
            for (Operation &o : combiner.without_terminator())
              lb.clone(o, map);
            SmallVector<Value> next;
            for (auto [t, v] : llvm::zip_equal(
                     carried, combiner.getTerminator()->getOperands()))
              next.push_back(tensor::InsertOp::create(
                  lb, ll, map.lookupOrDefault(v), t, index));
            scf::YieldOp::create(lb, ll, next);
          });
      return SmallVector<Value>(loop.getResults());
    };
    rewriter.replaceOp(op, n == 1 ? srcs : nest(rewriter, loc, 0, srcs));
    return success();
  }
};

struct DotLowering : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto widen = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getElementType().isF32())
        return v;
      auto f32Type = type.clone(rewriter.getF32Type());
      if (type.getElementType().getIntOrFloatBitWidth() > 32)
        return arith::TruncFOp::create(rewriter, loc, f32Type, v);
      return arith::ExtFOp::create(rewriter, loc, f32Type, v);
    };
    Value a = widen(adaptor.getA()), b = widen(adaptor.getB());
    if (op.getInputPrecision() == tile::InputPrecision::TF32) {
      a = tile::buildRoundToTF32(rewriter, loc, a);
      b = tile::buildRoundToTF32(rewriter, loc, b);
    }
    auto matmul = linalg::MatmulOp::create(
        rewriter, loc, TypeRange{op.getType()}, ValueRange{a, b},
        ValueRange{adaptor.getAcc()});
    rewriter.replaceOp(op, matmul.getResult(0));
    return success();
  }
};

/// Products complete at once on the host: nothing to wait for.
struct DotWaitLowering : OpConversionPattern<tile::DotWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getAcc());
    return success();
  }
};

} // namespace

void kda::populateTileReduceDotToLinalgPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering, DotLowering, DotWaitLowering>(
      converter, patterns.getContext());
}
