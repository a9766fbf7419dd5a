//===- ReduceToGPU.cpp - reductions and scans across threads --------------===//
//
// The layout says which hardware bits run along the reduced axis: registers
// are combined in the thread, lanes by XOR shuffles (recursive halving and
// doubling when a thread holds several results, so every lane ends with
// every result), warps through scratch memory. The result keeps
// the source's register numbering (a slice layout), so registers that
// differed only along the axis now hold the same value.
//
// A scan walks the bits of the scanned coordinate from the lowest, each
// held by registers (combined in the thread), lanes (XOR shuffles) or warps
// (scratch memory), doubling the blocks whose prefix is known.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace kda;

namespace {

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
        kept.push_back(tile::buildCombine(
            b, loc, kind, keep, shuffleXor(b, loc, hooks, send, mask)));
      }
      values = std::move(kept);
      halved.push_back(bit);
      continue;
    }
    values[0] = tile::buildCombine(b, loc, kind, values[0],
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
        it->second =
            tile::buildCombine(rewriter, loc, kind, it->second, regs[r]);
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
      state.hooks->sharedMemoryBarrier(rewriter, loc);
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
      state.hooks->sharedMemoryBarrier(rewriter, loc);
      for (auto [i, rep] : llvm::enumerate(reps)) {
        Value acc;
        for (int64_t w = 0; w < numWarpsAlong; ++w) {
          Value slot = LLVM::AddOp::create(
              rewriter, loc, elementIndex[i],
              LLVM::ConstantOp::create(rewriter, loc, i32, w * resultElems));
          Value v = loadScratch(rewriter, loc, base, slot, elemType);
          acc = acc ? tile::buildCombine(rewriter, loc, kind, acc, v) : v;
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

/// Scans along an axis whose coordinate bits each come from one hardware
/// bit. Processing the axis bits from the lowest, every element keeps the
/// combination of its block so far (prefix) and its block's total; at bit j
/// it meets the block whose bit j differs: registers of the thread directly,
/// lanes by one XOR shuffle, warps through scratch. The later block (in scan
/// order) puts the partner's total in front of its prefix, and both blocks
/// take the combined total. Totals that are the same values are exchanged
/// and combined once, so registers along the lowest bits cost no shuffles.
struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  ScanLowering(const TypeConverter &converter, MLIRContext *ctx,
               GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSrcs().front().getType());
    if (!tile::isDistributedLayout(type.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    ArrayRef<int64_t> shape = type.getShape();
    unsigned axis = op.getAxisAttr().getInt();
    LinearLayout layout = getTileLayout(type);
    // The hardware bit behind each bit of the axis coordinate.
    struct AxisBit {
      HWDim dim;
      unsigned bit;
    };
    SmallVector<std::optional<AxisBit>> axisBits(llvm::Log2_64(shape[axis]));
    for (HWDim hw : {HWDim::Register, HWDim::Lane, HWDim::Warp}) {
      for (unsigned bit = 0; bit < layout.getNumBits(hw); ++bit) {
        ArrayRef<int64_t> basis = layout.getBasis(hw, bit);
        if (basis[axis] == 0)
          continue;
        bool alone = llvm::all_of(llvm::enumerate(basis), [&](auto e) {
          return e.index() == axis || e.value() == 0;
        });
        unsigned j = llvm::Log2_64(basis[axis]);
        if (!alone || !llvm::isPowerOf2_64(basis[axis]) || axisBits[j])
          return op.emitOpError("layout mixes the scanned axis with others");
        axisBits[j] = AxisBit{hw, bit};
      }
    }
    Block &combiner = op.getCombiner().front();
    size_t numSrcs = adaptor.getSrcs().size();
    SmallVector<SmallVector<Value>> srcRegs;
    for (Value src : adaptor.getSrcs())
      srcRegs.push_back(unpackRegisters(rewriter, loc, src));
    int64_t numRegs = srcRegs.front().size();

    // Tuples (one value per source) by id, so equal tuples are moved and
    // combined once.
    SmallVector<SmallVector<Value>> tuples;
    auto addTuple = [&](SmallVector<Value> values) -> int {
      tuples.push_back(std::move(values));
      return tuples.size() - 1;
    };
    DenseMap<std::pair<int, int>, int> combined;
    auto combine = [&](int lhs, int rhs) -> int {
      auto [it, inserted] = combined.try_emplace({lhs, rhs}, 0);
      if (!inserted)
        return it->second;
      IRMapping map;
      for (size_t k = 0; k < numSrcs; ++k) {
        map.map(combiner.getArgument(k), tuples[lhs][k]);
        map.map(combiner.getArgument(numSrcs + k), tuples[rhs][k]);
      }
      for (Operation &o : combiner.without_terminator())
        rewriter.clone(o, map);
      SmallVector<Value> out;
      for (Value v : combiner.getTerminator()->getOperands())
        out.push_back(map.lookupOrDefault(v));
      int id = addTuple(std::move(out));
      combined[{lhs, rhs}] = id;
      return id;
    };
    SmallVector<int> prefix(numRegs), total(numRegs);
    for (int64_t r = 0; r < numRegs; ++r) {
      SmallVector<Value> values;
      for (auto &regs : srcRegs)
        values.push_back(regs[r]);
      prefix[r] = total[r] = addTuple(std::move(values));
    }

    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i32, v);
    };
    auto bitIsSet = [&](Value index, unsigned bit) -> Value {
      Value masked = LLVM::AndOp::create(rewriter, loc, index,
                                         constant(int64_t(1) << bit));
      return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                  masked, constant(0));
    };
    // Element indices in scratch, for exchanges across warps.
    SmallVector<Value> elementIndex;
    SmallVector<Value> srcBase;
    int64_t stride = 1;
    for (int64_t s : shape.drop_front(axis + 1))
      stride *= s;
    bool reverse = op.getReverse();

    for (auto [j, axisBit] : llvm::enumerate(axisBits)) {
      if (!axisBit)
        return op.emitOpError("layout does not cover the scanned axis");
      auto [dim, bit] = *axisBit;
      SmallVector<int> partner(numRegs);
      Value later; // i1 for lane and warp bits: this block comes second
      if (dim == HWDim::Register) {
        for (int64_t r = 0; r < numRegs; ++r)
          partner[r] = total[r ^ (int64_t(1) << bit)];
      } else if (dim == HWDim::Lane) {
        DenseMap<int, int> shuffled;
        for (int64_t r = 0; r < numRegs; ++r) {
          auto [it, inserted] = shuffled.try_emplace(total[r], 0);
          if (inserted) {
            SmallVector<Value> values;
            for (Value v : tuples[total[r]])
              values.push_back(
                  shuffleXor(rewriter, loc, *state.hooks, v, 1u << bit));
            it->second = addTuple(std::move(values));
          }
          partner[r] = it->second;
        }
        later = bitIsSet(thread.lane, bit);
      } else {
        if (elementIndex.empty()) {
          SmallVector<Value> laneWarp =
              emitLaneWarpCoords(rewriter, loc, layout, thread);
          for (int64_t r = 0; r < numRegs; ++r)
            elementIndex.push_back(emitLinearIndex(
                rewriter, loc, emitCoords(rewriter, loc, layout, r, laneWarp),
                shape));
          SmallVector<int64_t> offsets;
          int64_t bytes = 0;
          for (auto &regs : srcRegs) {
            offsets.push_back(bytes);
            bytes += llvm::alignTo(
                type.getNumElements() *
                    getScratchElementBytes(regs.front().getType()),
                8);
          }
          Value base = getScratch(rewriter, loc, state, bytes);
          for (int64_t offset : offsets)
            srcBase.push_back(LLVM::GEPOp::create(
                rewriter, loc, base.getType(), rewriter.getI8Type(), base,
                ArrayRef<LLVM::GEPArg>{int32_t(offset)}));
        }
        // One element per distinct total goes through scratch: the partner
        // warp's registers share their totals the same way.
        DenseMap<int, int64_t> sender;
        for (int64_t r = 0; r < numRegs; ++r)
          sender.try_emplace(total[r], r);
        // The previous exchange's (or op's) reads are done before the writes.
        state.hooks->sharedMemoryBarrier(rewriter, loc);
        for (int64_t r = 0; r < numRegs; ++r)
          if (sender[total[r]] == r)
            for (size_t k = 0; k < numSrcs; ++k)
              storeScratch(rewriter, loc, srcBase[k], elementIndex[r],
                           tuples[total[r]][k]);
        state.hooks->sharedMemoryBarrier(rewriter, loc);
        Value flip = constant((int64_t(1) << j) * stride);
        DenseMap<int, int> received;
        for (int64_t r = 0; r < numRegs; ++r) {
          auto [it, inserted] = received.try_emplace(total[r], 0);
          if (inserted) {
            Value from = LLVM::XOrOp::create(
                rewriter, loc, elementIndex[sender[total[r]]], flip);
            SmallVector<Value> values;
            for (size_t k = 0; k < numSrcs; ++k)
              values.push_back(loadScratch(rewriter, loc, srcBase[k], from,
                                           srcRegs[k].front().getType()));
            it->second = addTuple(std::move(values));
          }
          partner[r] = it->second;
        }
        later = bitIsSet(thread.warp, bit);
      }
      if (later && reverse)
        later = LLVM::XOrOp::create(
            rewriter, loc, later,
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(), 1));

      DenseMap<std::pair<int, int>, int> selected;
      auto select = [&](int ifLater, int otherwise) -> int {
        auto [it, inserted] = selected.try_emplace({ifLater, otherwise}, 0);
        if (inserted) {
          SmallVector<Value> values;
          for (size_t k = 0; k < numSrcs; ++k)
            values.push_back(LLVM::SelectOp::create(rewriter, loc, later,
                                                    tuples[ifLater][k],
                                                    tuples[otherwise][k]));
          it->second = addTuple(std::move(values));
        }
        return it->second;
      };
      SmallVector<int> newPrefix(numRegs), newTotal(numRegs);
      for (int64_t r = 0; r < numRegs; ++r) {
        if (!later) {
          bool second = ((r >> bit) & 1) != int64_t(reverse);
          newTotal[r] = second ? combine(partner[r], total[r])
                               : combine(total[r], partner[r]);
          newPrefix[r] = second ? combine(partner[r], prefix[r]) : prefix[r];
          continue;
        }
        newTotal[r] =
            combine(select(partner[r], total[r]), select(total[r], partner[r]));
        newPrefix[r] = select(combine(partner[r], prefix[r]), prefix[r]);
      }
      prefix = std::move(newPrefix);
      total = std::move(newTotal);
    }

    SmallVector<Value> results;
    for (auto [k, result] : llvm::enumerate(op.getResults())) {
      SmallVector<Value> regs;
      for (int p : prefix)
        regs.push_back(tuples[p][k]);
      results.push_back(packRegisters(
          rewriter, loc, getTypeConverter()->convertType(result.getType()),
          regs));
    }
    rewriter.replaceOp(op, results);
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
