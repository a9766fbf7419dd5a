//===- ReduceToGPU.cpp - reductions and scans across threads --------------===//
//
// The layout says which hardware bits run along the reduced axis: registers
// are combined in the thread, lanes by XOR shuffles (recursive halving and
// doubling when a thread holds several results, so every lane ends with
// every result), warps through scratch memory. The result keeps
// the source's register numbering (a slice layout), so registers that
// differed only along the axis now hold the same value.
//
// A scan is portable for now: log2(n) rounds through scratch memory
// (Hillis-Steele), each element combined with the one 2^k before it (after
// it, reversed) along the axis, whatever the layout.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kda;

namespace {

Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value lhs,
              Value rhs) {
  Type type = lhs.getType();
  bool isFloat = isa<FloatType>(type);
  if (type.isInteger(1))
    return kind == tile::ReduceKind::Max
               ? Value(LLVM::OrOp::create(b, loc, lhs, rhs))
               : Value(LLVM::AndOp::create(b, loc, lhs, rhs));
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? Value(LLVM::FAddOp::create(b, loc, lhs, rhs))
                   : Value(LLVM::AddOp::create(b, loc, lhs, rhs));
  case tile::ReduceKind::Max:
    return isFloat ? Value(LLVM::MaximumOp::create(b, loc, lhs, rhs))
                   : Value(LLVM::SMaxOp::create(b, loc, lhs, rhs));
  case tile::ReduceKind::Min:
    return isFloat ? Value(LLVM::MinimumOp::create(b, loc, lhs, rhs))
                   : Value(LLVM::SMinOp::create(b, loc, lhs, rhs));
  }
  llvm_unreachable("unknown reduction kind");
}

/// Shuffles any scalar of at most 64 bits through 32-bit lane exchanges.
Value shuffleXor(OpBuilder &b, Location loc, TargetHooks &hooks, Value v,
                 unsigned laneMask) {
  Type type = v.getType(), i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? Value(LLVM::BitcastOp::create(b, loc, intType, v))
                    : v;
  Value result;
  if (bits == 64) {
    Type i64 = b.getI64Type();
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32,
        LLVM::LShrOp::create(b, loc, asInt,
                             LLVM::ConstantOp::create(b, loc, i64, 32)));
    lo = LLVM::ZExtOp::create(b, loc, i64,
                              hooks.shuffleXor(b, loc, lo, laneMask));
    hi = LLVM::ZExtOp::create(b, loc, i64,
                              hooks.shuffleXor(b, loc, hi, laneMask));
    result = LLVM::OrOp::create(
        b, loc, lo,
        LLVM::ShlOp::create(b, loc, hi,
                            LLVM::ConstantOp::create(b, loc, i64, 32)));
  } else {
    Value wide =
        bits == 32 ? asInt : Value(LLVM::ZExtOp::create(b, loc, i32, asInt));
    Value got = hooks.shuffleXor(b, loc, wide, laneMask);
    result =
        bits == 32 ? got : Value(LLVM::TruncOp::create(b, loc, intType, got));
  }
  return isa<FloatType>(type)
             ? Value(LLVM::BitcastOp::create(b, loc, type, result))
             : result;
}

/// Combines `values` (one per result the thread holds) over the lanes whose
/// ids differ in `laneAxis` bits, leaving every result in every lane.
///
/// A butterfly per value costs values x lane bits shuffles. With several
/// values, recursive halving does better: at each lane bit the lane keeps
/// half of its list and sends the other half to its partner (the lower lane
/// keeps the first half), so after k bits each lane holds 1/2^k of the
/// results, fully combined over those bits; the remaining bits run a
/// butterfly on what is left, and recursive doubling gathers the lists back.
/// For 32 values over 32 lanes that is 62 shuffles instead of 160 (shuffles
/// issue at a quarter of the ALU rate), at the price of two selects per
/// value moved.
SmallVector<Value> allReduceAcrossLanes(OpBuilder &b, Location loc,
                                        tile::ReduceKind kind,
                                        SmallVector<Value> values,
                                        uint64_t laneAxis, TargetHooks &hooks,
                                        Value lane) {
  Type i32 = b.getI32Type();
  auto isUpper = [&](unsigned bit) -> Value {
    Value masked = LLVM::AndOp::create(
        b, loc, lane,
        LLVM::ConstantOp::create(b, loc, i32, int32_t(1u << bit)));
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, masked,
                                LLVM::ConstantOp::create(b, loc, i32, 0));
  };
  SmallVector<unsigned> halved;
  for (unsigned bit = 0; bit < 32; ++bit) {
    if (!(laneAxis & (uint64_t(1) << bit)))
      continue;
    unsigned mask = 1u << bit;
    if (values.size() >= 2) {
      Value upper = isUpper(bit);
      size_t half = values.size() / 2;
      SmallVector<Value> kept;
      for (size_t j = 0; j < half; ++j) {
        Value lo = values[j], hi = values[half + j];
        Value send = LLVM::SelectOp::create(b, loc, upper, lo, hi);
        Value keep = LLVM::SelectOp::create(b, loc, upper, hi, lo);
        kept.push_back(
            combine(b, loc, kind, keep, shuffleXor(b, loc, hooks, send, mask)));
      }
      values = std::move(kept);
      halved.push_back(bit);
      continue;
    }
    values[0] = combine(b, loc, kind, values[0],
                        shuffleXor(b, loc, hooks, values[0], mask));
  }
  for (unsigned bit : llvm::reverse(halved)) {
    Value upper = isUpper(bit);
    SmallVector<Value> lower, higher;
    for (Value mine : values) {
      Value theirs = shuffleXor(b, loc, hooks, mine, 1u << bit);
      lower.push_back(LLVM::SelectOp::create(b, loc, upper, theirs, mine));
      higher.push_back(LLVM::SelectOp::create(b, loc, upper, mine, theirs));
    }
    values = std::move(lower);
    llvm::append_range(values, higher);
  }
  return values;
}

struct ReduceLowering : OpConversionPattern<tile::ReduceOp> {
  ReduceLowering(const TypeConverter &converter, MLIRContext *ctx,
                 GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType();
    if (!tile::isDistributedLayout(srcType.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    unsigned axis = op.getAxisAttr().getInt();
    tile::ReduceKind kind = op.getKind();
    LinearLayout src = getTileLayout(srcType);
    for (HWDim hw : {HWDim::Register, HWDim::Lane, HWDim::Warp})
      if (src.getMaskAlongAxis(hw, axis) != src.getMaskTouchingAxis(hw, axis))
        return op.emitOpError("layout mixes the reduced axis with others");
    uint64_t regAxis = src.getMaskAlongAxis(HWDim::Register, axis);
    uint64_t laneAxis = src.getMaskAlongAxis(HWDim::Lane, axis);
    uint64_t warpAxis = src.getMaskAlongAxis(HWDim::Warp, axis);
    SmallVector<Value> regs = unpackRegisters(rewriter, loc, adaptor.getSrc());
    int64_t numRegs = regs.size();

    // 1. In the thread: fold registers along the axis into the register
    // whose axis bits are zero.
    DenseMap<int64_t, Value> partial;
    for (int64_t r = 0; r < numRegs; ++r) {
      int64_t rep = r & ~int64_t(regAxis);
      auto it = partial.find(rep);
      if (it == partial.end())
        partial[rep] = regs[r];
      else
        it->second = combine(rewriter, loc, kind, it->second, regs[r]);
    }
    SmallVector<int64_t> reps;
    for (int64_t r = 0; r < numRegs; ++r)
      if ((r & int64_t(regAxis)) == 0)
        reps.push_back(r);

    // 2. Across lanes: every lane ends with every result.
    if (laneAxis) {
      SmallVector<Value> values;
      for (int64_t rep : reps)
        values.push_back(partial[rep]);
      values = allReduceAcrossLanes(rewriter, loc, kind, std::move(values),
                                    laneAxis, *state.hooks,
                                    getThreadIndex(rewriter, loc, state).lane);
      for (auto [rep, v] : llvm::zip_equal(reps, values))
        partial[rep] = v;
    }

    // 3. Across warps: each warp writes its partials, then every thread
    // combines the partials of its elements in warp order.
    if (warpAxis) {
      Type elemType = regs.front().getType();
      // Coordinates of the partials, numbered by source register.
      LinearLayout result = src.dropDim(axis);
      int64_t resultElems = 1;
      for (int64_t s : result.getShape())
        resultElems *= s;
      int64_t numWarpsAlong = int64_t(1) << llvm::popcount(warpAxis);
      Value base = getScratch(rewriter, loc, state,
                              numWarpsAlong * resultElems *
                                  getScratchElementBytes(elemType));
      ThreadIndex thread = getThreadIndex(rewriter, loc, state);
      Type i32 = rewriter.getI32Type();
      state.hooks->barrier(rewriter, loc);
      SmallVector<Value> laneWarp =
          emitLaneWarpCoords(rewriter, loc, result, thread);
      Value warpSlot = LLVM::MulOp::create(
          rewriter, loc, emitExtractBits(rewriter, loc, thread.warp, warpAxis),
          LLVM::ConstantOp::create(rewriter, loc, i32, resultElems));
      SmallVector<Value> elementIndex;
      for (int64_t rep : reps) {
        Value index = emitLinearIndex(
            rewriter, loc, emitCoords(rewriter, loc, result, rep, laneWarp),
            result.getShape());
        elementIndex.push_back(index);
        storeScratch(rewriter, loc, base,
                     LLVM::AddOp::create(rewriter, loc, warpSlot, index),
                     partial[rep]);
      }
      state.hooks->barrier(rewriter, loc);
      for (auto [i, rep] : llvm::enumerate(reps)) {
        Value acc;
        for (int64_t w = 0; w < numWarpsAlong; ++w) {
          Value slot = LLVM::AddOp::create(
              rewriter, loc, elementIndex[i],
              LLVM::ConstantOp::create(rewriter, loc, i32, w * resultElems));
          Value v = loadScratch(rewriter, loc, base, slot, elemType);
          acc = acc ? combine(rewriter, loc, kind, acc, v) : v;
        }
        partial[rep] = acc;
      }
    }

    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, partial[0]);
      return success();
    }
    // The result's slice layout has no registers for repetitions along the
    // axis: find, for each of its registers, the source register holding
    // that element at axis coordinate 0.
    Type structType = getTypeConverter()->convertType(op.getType());
    LinearLayout resultLayout = getTileLayout(op.getType());
    SmallVector<Value> out;
    for (int64_t r = 0; r < resultLayout.getSize(HWDim::Register); ++r) {
      LinearLayout::Coord c = resultLayout.applyDim(HWDim::Register, r);
      c.insert(c.begin() + axis, 0);
      std::optional<int64_t> srcReg = src.findRegister(c);
      if (!srcReg)
        return op.emitOpError("result layout is not the slice of the source");
      out.push_back(partial[*srcReg & ~int64_t(regAxis)]);
    }
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, out));
    return success();
  }
  GPULoweringState &state;
};

struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  ScanLowering(const TypeConverter &converter, MLIRContext *ctx,
               GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getSrc().getType();
    if (!tile::isDistributedLayout(type.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    Type elem = type.getElementType(), i32 = rewriter.getI32Type();
    ArrayRef<int64_t> shape = type.getShape();
    unsigned axis = op.getAxisAttr().getInt();
    int64_t n = shape[axis], stride = 1;
    for (int64_t s : shape.drop_front(axis + 1))
      stride *= s;
    bool reverse = op.getReverse();
    LinearLayout layout = getTileLayout(type);
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, layout, thread);
    SmallVector<Value> regs = unpackRegisters(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> index, along;
    for (int64_t r = 0; r < int64_t(regs.size()); ++r) {
      SmallVector<Value> c = emitCoords(rewriter, loc, layout, r, laneWarp);
      index.push_back(emitLinearIndex(rewriter, loc, c, shape));
      along.push_back(c[axis]);
    }
    Value base =
        getScratch(rewriter, loc, state,
                   type.getNumElements() * getScratchElementBytes(elem));
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i32, v);
    };
    for (int64_t d = 1; d < n; d *= 2) {
      // The previous round's (or op's) reads are done before the writes.
      state.hooks->barrier(rewriter, loc);
      for (auto [r, v] : llvm::enumerate(regs))
        storeScratch(rewriter, loc, base, index[r], v);
      state.hooks->barrier(rewriter, loc);
      for (auto [r, v] : llvm::enumerate(regs)) {
        Value has =
            reverse
                ? LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                       along[r], constant(n - d))
                : LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge,
                                       along[r], constant(d));
        Value step = constant(reverse ? d * stride : -d * stride);
        Value from = LLVM::SelectOp::create(
            rewriter, loc, has,
            LLVM::AddOp::create(rewriter, loc, index[r], step), index[r]);
        Value other = loadScratch(rewriter, loc, base, from, elem);
        Value combined = reverse
                             ? combine(rewriter, loc, op.getKind(), v, other)
                             : combine(rewriter, loc, op.getKind(), other, v);
        regs[r] = LLVM::SelectOp::create(rewriter, loc, has, combined, v);
      }
    }
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, regs));
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateReduceToGPUPatterns(TileToGPUTypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      GPULoweringState &state) {
  patterns.add<ReduceLowering, ScanLowering>(converter, patterns.getContext(),
                                             state);
}
