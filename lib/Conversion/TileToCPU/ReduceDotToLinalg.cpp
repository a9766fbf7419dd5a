//===- ReduceDotToLinalg.cpp - reductions, scans and dots for the host ----===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

using namespace mlir;
using namespace kda;

namespace {

/// The identity of a reduction: 0 for sum, -inf/+inf (or the integer
/// extremes) for max/min.
TypedAttr getReductionIdentity(OpBuilder &b, tile::ReduceKind kind, Type type) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case tile::ReduceKind::Sum:
      return b.getFloatAttr(type, 0.0);
    case tile::ReduceKind::Max:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/true));
    case tile::ReduceKind::Min:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case tile::ReduceKind::Sum:
    return b.getIntegerAttr(type, 0);
  case tile::ReduceKind::Max:
    return b.getIntegerAttr(type, width == 1 ? APInt(1, 0)
                                             : APInt::getSignedMinValue(width));
  case tile::ReduceKind::Min:
    return b.getIntegerAttr(type, width == 1 ? APInt(1, 1)
                                             : APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown reduction kind");
}

/// lhs combined with rhs, scalars or tensors alike.
Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value lhs,
              Value rhs) {
  Type elem = getElementTypeOrSelf(lhs.getType());
  bool isFloat = isa<FloatType>(elem);
  // Signed max/min would treat true as -1: i1 max is "any", min is "all".
  if (elem.isInteger(1))
    return kind == tile::ReduceKind::Max
               ? Value(arith::OrIOp::create(b, loc, lhs, rhs))
               : Value(arith::AndIOp::create(b, loc, lhs, rhs));
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case tile::ReduceKind::Max:
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MaxSIOp::create(b, loc, lhs, rhs));
  case tile::ReduceKind::Min:
    return isFloat ? Value(arith::MinimumFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MinSIOp::create(b, loc, lhs, rhs));
  }
  llvm_unreachable("unknown reduction kind");
}

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
        rewriter, loc, getReductionIdentity(rewriter, op.getKind(), elem));
    Value init =
        linalg::FillOp::create(rewriter, loc, identity, empty).getResult(0);
    tile::ReduceKind kind = op.getKind();
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, adaptor.getSrc(), init, SmallVector<int64_t>{axis},
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, combine(b, l, kind, args[0], args[1]));
        });
    Value result = reduce.getResult(0);
    if (initType.getRank() == 0)
      result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An inclusive scan as loops over its elements, the axis innermost: each
/// element combined with the running value before it (after it, reversed),
/// in order. Scalar extracts and inserts bufferize in place.
struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSrc();
    auto type = cast<RankedTensorType>(src.getType());
    unsigned rank = type.getRank(), axis = op.getAxisAttr().getInt();
    int64_t n = type.getDimSize(axis);
    bool reverse = op.getReverse();
    tile::ReduceKind kind = op.getKind();
    SmallVector<Value> index(rank);
    // Loops over the other dimensions, outermost first, then the axis.
    SmallVector<unsigned> order;
    for (unsigned d = 0; d < rank; ++d)
      if (d != axis)
        order.push_back(d);
    order.push_back(axis);
    std::function<Value(OpBuilder &, Location, unsigned, Value)> nest =
        [&](OpBuilder &b, Location l, unsigned depth, Value running) -> Value {
      unsigned d = order[depth];
      bool innermost = depth + 1 == order.size();
      int64_t lo = innermost ? 1 : 0, size = type.getDimSize(d);
      Value one = arith::ConstantIndexOp::create(b, l, 1);
      auto loop = scf::ForOp::create(
          b, l, arith::ConstantIndexOp::create(b, l, lo),
          arith::ConstantIndexOp::create(b, l, size), one, ValueRange{running},
          [&](OpBuilder &lb, Location ll, Value iv, ValueRange carried) {
            if (!innermost) {
              index[d] = iv;
              scf::YieldOp::create(lb, ll, nest(lb, ll, depth + 1, carried[0]));
              return;
            }
            // Reversed, step k visits n - 1 - k after n - k.
            Value last = arith::ConstantIndexOp::create(lb, ll, n - 1);
            Value at =
                reverse ? Value(arith::SubIOp::create(lb, ll, last, iv)) : iv;
            Value before = reverse
                               ? Value(arith::AddIOp::create(lb, ll, at, one))
                               : Value(arith::SubIOp::create(lb, ll, at, one));
            auto element = [&](Value i) {
              index[axis] = i;
              return tensor::ExtractOp::create(lb, ll, carried[0], index);
            };
            Value prev = element(before);
            Value next = combine(lb, ll, kind, prev, element(at));
            index[axis] = at;
            scf::YieldOp::create(lb, ll,
                                 ValueRange{tensor::InsertOp::create(
                                     lb, ll, next, carried[0], index)});
          });
      return loop.getResult(0);
    };
    rewriter.replaceOp(op, n == 1 ? src : nest(rewriter, loc, 0, src));
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
    auto matmul = linalg::MatmulOp::create(
        rewriter, loc, TypeRange{op.getType()},
        ValueRange{widen(adaptor.getA()), widen(adaptor.getB())},
        ValueRange{adaptor.getAcc()});
    rewriter.replaceOp(op, matmul.getResult(0));
    return success();
  }
};

} // namespace

void kda::populateTileReduceDotToLinalgPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, ScanLowering, DotLowering>(
      converter, patterns.getContext());
}
