//===- MemoryOpsToGPU.cpp - pointer arithmetic, loads and stores ----------===//
//
// Each register of a pointer tile is an address; loads and stores touch the
// addresses of their own registers, guarded by the mask register, so masked
// lanes never access memory. Elements held by several threads (replicated
// layouts) are stored once.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Analysis/AxisInfo.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

static Type getPointeeElementType(Type ptrLike) {
  return mlir::getElementTypeOrSelf(tile::getPointeeLikeType(ptrLike));
}

/// Loads `type` (i1 as a byte) from `ptr`.
static Value loadElement(OpBuilder &b, Location loc, Value ptr, Type type) {
  Type memType = type.isInteger(1) ? b.getI8Type() : type;
  Value v =
      LLVM::LoadOp::create(b, loc, memType, ptr, getScratchElementBytes(type));
  if (memType != type)
    v = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v,
                             LLVM::ConstantOp::create(b, loc, memType, 0));
  return v;
}

static void storeElement(OpBuilder &b, Location loc, Value ptr, Value value) {
  Type type = value.getType();
  if (type.isInteger(1))
    value = LLVM::ZExtOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, ptr, getScratchElementBytes(type));
}

static Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return LLVM::ZeroOp::create(b, loc, type);
}

Value kda::emitGuardedValue(OpBuilder &b, Location loc, Value guard, Type type,
                            function_ref<Value(OpBuilder &)> compute,
                            Value otherwise) {
  if (!guard)
    return compute(b);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, guard,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, compute(b));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise);
  return ifOp.getResult(0);
}

Value kda::emitGuardedLoad(OpBuilder &b, Location loc, Value ptr, Type type,
                           Value mask, Value otherwise) {
  return emitGuardedValue(
      b, loc, mask, type,
      [&](OpBuilder &ib) { return loadElement(ib, loc, ptr, type); },
      otherwise);
}

void kda::emitGuardedStore(OpBuilder &b, Location loc, Value ptr,
                           ArrayRef<Value> regs, Value guard) {
  OpBuilder::InsertionGuard insertion(b);
  if (guard) {
    auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  if (regs.size() == 1) {
    storeElement(b, loc, ptr, regs[0]);
    return;
  }
  Type elem = regs[0].getType();
  auto vecType = VectorType::get({int64_t(regs.size())}, elem);
  LLVM::StoreOp::create(b, loc, packVector(b, loc, vecType, regs), ptr,
                        regs.size() * getScratchElementBytes(elem));
}

SmallVector<Value> kda::unpackVector(OpBuilder &b, Location loc, Value vec) {
  Type i32 = b.getI32Type();
  SmallVector<Value> elems;
  for (int64_t i = 0, e = cast<VectorType>(vec.getType()).getNumElements();
       i < e; ++i)
    elems.push_back(LLVM::ExtractElementOp::create(
        b, loc, vec, LLVM::ConstantOp::create(b, loc, i32, int(i))));
  return elems;
}

/// How many consecutive registers one memory access moves: registers
/// contiguous along the layout's fastest dimension, at most 128 bits, and as
/// many as the pointers' contiguity and alignment and the mask's constancy
/// allow. Returns the width and the dimension.
std::pair<unsigned, unsigned> kda::getAccessWidth(const GPULoweringState &state,
                                                  RankedTensorType tileType,
                                                  Value ptr, Value mask) {
  Type elem = tileType.getElementType();
  if (!elem.isIntOrFloat() || elem.isInteger(1) || !state.axisInfo)
    return {1, 0};
  LinearLayout layout = getTileLayout(tileType);
  unsigned best = 1, bestDim = 0;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    unsigned regs = layout.getContiguousRegisters(d);
    if (regs > best) {
      best = regs;
      bestDim = d;
    }
  }
  unsigned maxElems =
      std::min<unsigned>(best, 128 / elem.getIntOrFloatBitWidth());
  if (maxElems <= 1)
    return {1, 0};
  return {state.axisInfo->getVectorWidth(ptr, mask, bestDim, maxElems),
          bestDim};
}

Value kda::emitGuardedVectorLoad(OpBuilder &b, Location loc, Value ptr,
                                 VectorType type, Value mask, Value otherwise) {
  return emitGuardedValue(
      b, loc, mask, type,
      [&](OpBuilder &ib) -> Value {
        return LLVM::LoadOp::create(
            ib, loc, type, ptr,
            type.getNumElements() *
                getScratchElementBytes(type.getElementType()));
      },
      otherwise);
}

Value kda::packVector(OpBuilder &b, Location loc, VectorType type,
                      ArrayRef<Value> elems) {
  Value v = LLVM::PoisonOp::create(b, loc, type);
  Type i32 = b.getI32Type();
  for (auto [i, e] : llvm::enumerate(elems))
    v = LLVM::InsertElementOp::create(
        b, loc, v, e, LLVM::ConstantOp::create(b, loc, i32, int(i)));
  return v;
}

namespace {

struct AddPtrLowering : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elemType = getPointeeElementType(op.getPtr().getType());
    if (elemType.isInteger(1))
      elemType = rewriter.getI8Type();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    auto advance = [&](Value ptr, Value offset) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptr.getType(), elemType, ptr,
                                 ValueRange{offset});
    };
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, advance(adaptor.getPtr(), adaptor.getOffset()));
      return success();
    }
    SmallVector<Value> ptrs = unpackRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offs =
        unpackRegisters(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> results;
    for (auto [p, o] : llvm::zip_equal(ptrs, offs))
      results.push_back(advance(p, o));
    rewriter.replaceOp(op, packRegisters(rewriter, loc, resultType, results));
    return success();
  }
};

struct LoadLowering : OpConversionPattern<tile::LoadOp> {
  LoadLowering(const TypeConverter &converter, MLIRContext *ctx,
               GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  GPULoweringState &state;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    if (!isa<RankedTensorType>(op.getType())) {
      Value otherwise = adaptor.getOther() ? adaptor.getOther()
                                           : zeroOf(rewriter, loc, resultType);
      rewriter.replaceOp(op, emitGuardedLoad(rewriter, loc, adaptor.getPtr(),
                                             resultType, adaptor.getMask(),
                                             otherwise));
      return success();
    }
    Type elemType = cast<LLVM::LLVMStructType>(resultType).getBody()[0];
    SmallVector<Value> ptrs = unpackRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackRegisters(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpackRegisters(rewriter, loc, adaptor.getOther());
    auto width = getAccessWidth(state, cast<RankedTensorType>(op.getType()),
                                op.getPtr(), op.getMask())
                     .first;
    SmallVector<Value> results;
    for (size_t r = 0; r < ptrs.size(); r += width) {
      Value mask = masks.empty() ? Value() : masks[r];
      if (width == 1) {
        Value otherwise =
            others.empty() ? zeroOf(rewriter, loc, elemType) : others[r];
        results.push_back(
            emitGuardedLoad(rewriter, loc, ptrs[r], elemType, mask, otherwise));
        continue;
      }
      // The group's mask is one value (the mask is constant over it).
      auto vecType = VectorType::get({int64_t(width)}, elemType);
      Value otherwise =
          others.empty() ? zeroOf(rewriter, loc, vecType)
                         : packVector(rewriter, loc, vecType,
                                      ArrayRef<Value>(others).slice(r, width));
      llvm::append_range(results, unpackVector(rewriter, loc,
                                               emitGuardedVectorLoad(
                                                   rewriter, loc, ptrs[r],
                                                   vecType, mask, otherwise)));
    }
    rewriter.replaceOp(op, packRegisters(rewriter, loc, resultType, results));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<tile::StoreOp> {
  StoreLowering(const TypeConverter &converter, MLIRContext *ctx,
                GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto valueType = dyn_cast<RankedTensorType>(op.getValue().getType());
    if (!valueType) {
      // Every thread holds the scalar: the first one stores it.
      Value first = emitIsFirstThread(rewriter, loc, state);
      emitGuardedStore(rewriter, loc, adaptor.getPtr(), adaptor.getValue(),
                       andGuards(rewriter, loc, first, adaptor.getMask()));
      rewriter.eraseOp(op);
      return success();
    }
    LinearLayout layout = getTileLayout(valueType);
    Value owner = emitIsElementOwner(rewriter, loc, layout,
                                     getThreadIndex(rewriter, loc, state));
    uint64_t dupRegs = layout.getDuplicateMask(HWDim::Register);
    SmallVector<Value> ptrs = unpackRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values =
        unpackRegisters(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackRegisters(rewriter, loc, adaptor.getMask());
    unsigned width =
        getAccessWidth(state, valueType, op.getPtr(), op.getMask()).first;
    for (size_t r = 0; r < ptrs.size(); r += width) {
      if (int64_t(r) & dupRegs)
        continue;
      Value guard =
          andGuards(rewriter, loc, owner, masks.empty() ? Value() : masks[r]);
      emitGuardedStore(rewriter, loc, ptrs[r],
                       ArrayRef<Value>(values).slice(r, width), guard);
    }
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateMemoryOpsToGPUPatterns(TileToGPUTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<AddPtrLowering>(converter, ctx);
  patterns.add<LoadLowering, StoreLowering>(converter, ctx, state);
}
