//===- RemoveLayoutConversions.cpp - fewer tile.convert_layout ops --------===//
//
// Rewrite patterns on tile.convert_layout, run to a fixed point by the
// greedy driver (which also erases what they leave dead):
//   - convert(convert(x)) -> convert(x) (or x);
//   - convert(cheap chain) -> the chain recomputed in the target layout.
// Conversions with the same types fold away (ConvertLayoutOp::fold).
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Layout/LayoutAttrs.h"
#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace kda {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

namespace {

/// How far back (in ops) and how much (ops recomputed) rematerialization
/// may go.
constexpr unsigned kMaxRematDepth = 12;
constexpr int kMaxRematOps = 32;

Attribute layoutOf(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return tensor.getEncoding();
  return {};
}

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

/// Whether converting between the two types moves no data: the same
/// register/lane/warp -> element map.
bool movesNothing(RankedTensorType a, RankedTensorType b) {
  if (a == b)
    return true;
  if (!tile::isDistributedLayout(a.getEncoding()) ||
      !tile::isDistributedLayout(b.getEncoding()) ||
      a.getShape() != b.getShape())
    return false;
  for (int64_t size : a.getShape())
    if (size <= 0 || !llvm::isPowerOf2_64(size))
      return false;
  return toLinearLayout(a) == toLinearLayout(b);
}

/// Conversions the compiler inserted may go; the user's only when they move
/// nothing.
bool mayRemove(tile::ConvertLayoutOp op) {
  return op->hasAttr(kImplicitConvertAttr) ||
         movesNothing(op.getSrc().getType(), op.getType());
}

bool isElementwise(Operation *op) {
  if (isa<tile::AddPtrOp>(op))
    return true;
  return op->hasTrait<OpTrait::Elementwise>() &&
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// convert(convert(x)) -> convert(x), or x when that is where it started.
struct FoldConvertOfConvert : OpRewritePattern<tile::ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tile::ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<tile::ConvertLayoutOp>();
    if (!inner || !mayRemove(inner))
      return failure();
    Value src = inner.getSrc();
    if (src.getType() == op.getType()) {
      rewriter.replaceOp(op, src);
      return success();
    }
    rewriter.modifyOpInPlace(op, [&] { op.getSrcMutable().assign(src); });
    return success();
  }
};

/// convert(f(g(splat, range, ...))) -> f'(g'(splat', range', ...)) built in
/// the target layout. Each recomputed op sits right after its original, so
/// it stays at the same loop depth.
class Rematerialize : public OpRewritePattern<tile::ConvertLayoutOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tile::ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    if (!mayRemove(op) || !tile::isDistributedLayout(layoutOf(op)))
      return failure();
    Attribute target = layoutOf(op);
    int budget = kMaxRematOps;
    if (!canRemat(op.getSrc(), target, 0, budget))
      return failure();
    DenseMap<std::pair<Value, Attribute>, Value> done;
    Value result = remat(op.getSrc(), target, rewriter, done);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// The layout operand `operand` of `user` needs for `user` to produce
  /// `layout`.
  static Attribute operandLayout(Operation *user, Attribute layout) {
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(user))
      return tile::SliceLayoutAttr::get(user->getContext(), expand.getAxis(),
                                        layout);
    return layout;
  }

  static bool canRemat(Value value, Attribute layout, unsigned depth,
                       int &budget) {
    if (layoutOf(value) == layout)
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || depth > kMaxRematDepth || --budget < 0 ||
        def->getNumResults() != 1)
      return false;
    if (auto cvt = dyn_cast<tile::ConvertLayoutOp>(def))
      return mayRemove(cvt) &&
             canRemat(cvt.getSrc(), layout, depth + 1, budget);
    if (isa<tile::SplatOp, tile::RangeOp>(def))
      return true;
    if (auto constant = dyn_cast<arith::ConstantOp>(def))
      return isa<DenseElementsAttr>(constant.getValue());
    if (isa<tile::ExpandDimsOp>(def) && tile::getLayoutRank(layout) < 2)
      return false;
    if (!isElementwise(def) && !isa<tile::BroadcastOp, tile::ExpandDimsOp>(def))
      return false;
    Attribute needed = operandLayout(def, layout);
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isa<RankedTensorType>(operand.getType()) ||
             canRemat(operand, needed, depth + 1, budget);
    });
  }

  static Value remat(Value value, Attribute layout, PatternRewriter &rewriter,
                     DenseMap<std::pair<Value, Attribute>, Value> &done) {
    if (layoutOf(value) == layout)
      return value;
    auto key = std::make_pair(value, layout);
    if (Value known = done.lookup(key))
      return known;
    Operation *def = value.getDefiningOp();
    if (auto cvt = dyn_cast<tile::ConvertLayoutOp>(def))
      return done[key] = remat(cvt.getSrc(), layout, rewriter, done);

    Attribute needed = operandLayout(def, layout);
    SmallVector<Value> operands;
    for (Value operand : def->getOperands())
      operands.push_back(isa<RankedTensorType>(operand.getType())
                             ? remat(operand, needed, rewriter, done)
                             : operand);
    auto type = withLayout(value.getType(), layout);
    Attribute constantValue;
    if (auto constant = dyn_cast<arith::ConstantOp>(def))
      constantValue =
          cast<DenseElementsAttr>(constant.getValue()).reshape(type);
    if (Value existing = findRecomputed(def, operands, type, constantValue))
      return done[key] = existing;

    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(def);
    Operation *clone;
    if (constantValue) {
      clone = arith::ConstantOp::create(rewriter, def->getLoc(), type,
                                        cast<TypedAttr>(constantValue));
    } else {
      clone = rewriter.clone(*def);
      clone->setOperands(operands);
      clone->getResult(0).setType(type);
    }
    return done[key] = clone->getResult(0);
  }

  /// A copy of `def` computed in another layout by an earlier rewrite: they
  /// sit in a row right after `def`.
  static Value findRecomputed(Operation *def, ArrayRef<Value> operands,
                              Type type, Attribute constantValue) {
    for (Operation *next = def->getNextNode(); next;
         next = next->getNextNode()) {
      if (next->getName() != def->getName() || next->getNumResults() != 1)
        return {};
      if (constantValue) {
        if (cast<arith::ConstantOp>(next).getValue() == constantValue)
          return next->getResult(0);
        continue;
      }
      if (next->getResult(0).getType() == type &&
          llvm::equal(next->getOperands(), operands) &&
          next->getAttrDictionary() == def->getAttrDictionary() &&
          next->getNumRegions() == 0)
        return next->getResult(0);
    }
    return {};
  }
};

struct TileRemoveLayoutConversionsPass
    : kda::impl::TileRemoveLayoutConversionsBase<
          TileRemoveLayoutConversionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldConvertOfConvert, Rematerialize>(&getContext());
    // Keep constants where they are: this pass moves layouts, not code.
    GreedyRewriteConfig config;
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
