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
//
// On tensor-map engines (TMA) one thread copies the whole block, described by
// a tensor map the runtime builds from the kernel's arguments and passes as a
// hidden parameter. Loads complete on a ring of shared-memory barriers, one
// per load in flight: load i arrives on barrier i % R expecting the block's
// bytes, and tile.async_wait(n) waits, in order, on the barriers of all but
// the n newest loads (phase i / R of each), so waits count as cp.async's.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "kda/Runtime/TensorMap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

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

bool usesTensorMap(Value desc) {
  Operation *def = desc.getDefiningOp();
  return def && def->hasAttr(tile::kTensorMapAttrName);
}

/// Emits `body` under `scf.if cond` (no results, no else).
void emitIf(OpBuilder &b, Location loc, Value cond, function_ref<void()> body) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false).thenBlock());
  body();
}

template <typename CopyOp>
struct BlockCopyLowering : OpConversionPattern<CopyOp> {
  BlockCopyLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern<CopyOp>(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(CopyOp op, typename CopyOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (usesTensorMap(op.getDesc()))
      return rewriter.notifyMatchFailure(op, "a tensor-map copy");
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
    if (auto bytes = op->template getAttrOfType<IntegerAttr>(
            tile::kCopyVectorBytesAttrName))
      copy.vectorBytes = bytes.getInt();
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

/// A tile.async_load / async_store of a descriptor with a tensor map.
template <typename CopyOp>
struct TensorMapCopyLowering : OpConversionPattern<CopyOp> {
  TensorMapCopyLowering(const TypeConverter &converter, MLIRContext *ctx,
                        GPULoweringState &state)
      : OpConversionPattern<CopyOp>(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(CopyOp op, typename CopyOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *desc = op.getDesc().getDefiningOp();
    if (!usesTensorMap(op.getDesc()))
      return rewriter.notifyMatchFailure(op, "not a tensor-map copy");
    Location loc = op.getLoc();
    auto func = op->template getParentOfType<func::FuncOp>();
    const GPULoweringState::TensorMapCopies &copies =
        state.tensorMapCopies.at(func);
    Value map = func.getArgument(state.tensorMapArguments.at(desc));
    SmallVector<Value> coords(llvm::reverse(adaptor.getOffsets()));
    Value shared = adaptor.getBuffer();
    TargetHooks &hooks = *state.hooks;
    // Into an nvmma_shared buffer, one copy per column block (the tensor
    // map's box, tile-expand-tensor-descs: getTensorMapBox): block j starts
    // j * W columns in and R * W elements into the buffer.
    tile::TensorDescType type = op.getDesc().getType();
    ArrayRef<int64_t> block = type.getBlockShape();
    int64_t columnBlock = block.back();
    if (auto nvmma = dyn_cast_or_null<tile::NVMMASharedLayoutAttr>(
            op.getBuffer().getType().getLayout()))
      columnBlock = nvmma.getBlockColumns();
    auto copyBlocks = [&](Value barrier, bool isLoad) {
      Type i32 = rewriter.getI32Type();
      int64_t rows = block.size() > 1 ? block[block.size() - 2] : 1;
      for (int64_t j = 0; j < block.back() / columnBlock; ++j) {
        SmallVector<Value> at(coords);
        Value slot = shared;
        if (j) {
          at[0] = LLVM::AddOp::create(
              rewriter, loc, at[0],
              LLVM::ConstantOp::create(rewriter, loc, i32, j * columnBlock));
          slot = LLVM::GEPOp::create(
              rewriter, loc, shared.getType(), type.getElementType(), shared,
              ArrayRef<LLVM::GEPArg>{int32_t(j * rows * columnBlock)});
        }
        hooks.copyBlockWithTensorMap(rewriter, loc, map, at, slot, barrier,
                                     isLoad);
      }
    };
    auto inFirstThread = [&](function_ref<void()> body) {
      emitIf(rewriter, loc, emitIsFirstThread(rewriter, loc, state), body);
    };
    if constexpr (std::is_same_v<CopyOp, tile::AsyncStoreOp>) {
      // The threads' writes of the buffer reach the engine's proxy, then one
      // thread stores and waits, and no thread writes the buffer before.
      hooks.fenceSharedForCopies(rewriter, loc);
      hooks.barrier(rewriter, loc);
      inFirstThread([&] {
        copyBlocks(Value(), /*isLoad=*/false);
        hooks.waitTensorMapStores(rewriter, loc);
      });
      hooks.barrier(rewriter, loc);
    } else {
      Type i32 = rewriter.getI32Type();
      auto constant = [&](int64_t v) {
        return LLVM::ConstantOp::create(rewriter, loc, i32, v);
      };
      int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
      for (int64_t n : type.getBlockShape())
        bytes *= n;
      // A full ring first retires its oldest load.
      Value issued = LLVM::LoadOp::create(rewriter, loc, i32, copies.issued);
      Value waited = LLVM::LoadOp::create(rewriter, loc, i32, copies.waited);
      Value full = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::eq,
          LLVM::SubOp::create(rewriter, loc, issued, waited),
          constant(GPULoweringState::kTensorMapRing));
      emitIf(rewriter, loc, full,
             [&] { emitWaitOldest(rewriter, loc, state, copies); });
      Value barrier = getRingBarrier(rewriter, loc, copies, issued);
      inFirstThread([&] {
        hooks.fenceSharedForCopies(rewriter, loc);
        hooks.expectCopyBytes(rewriter, loc, barrier, bytes);
        copyBlocks(barrier, /*isLoad=*/true);
      });
      LLVM::StoreOp::create(
          rewriter, loc,
          LLVM::AddOp::create(rewriter, loc, issued, constant(1)),
          copies.issued);
    }
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

Value kda::getRingBarrier(OpBuilder &b, Location loc,
                          const GPULoweringState::TensorMapCopies &copies,
                          Value index) {
  Value slot = LLVM::AndOp::create(
      b, loc, index,
      LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                               GPULoweringState::kTensorMapRing - 1));
  return LLVM::GEPOp::create(b, loc, copies.ring.getType(), b.getI64Type(),
                             copies.ring, ValueRange{slot});
}

void kda::emitWaitOldest(OpBuilder &b, Location loc, GPULoweringState &state,
                         const GPULoweringState::TensorMapCopies &copies) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, v);
  };
  Value waited = LLVM::LoadOp::create(b, loc, i32, copies.waited);
  Value parity = LLVM::AndOp::create(
      b, loc,
      LLVM::LShrOp::create(
          b, loc, waited,
          constant(llvm::Log2_64(GPULoweringState::kTensorMapRing))),
      constant(1));
  state.hooks->waitCopyBarrier(b, loc, getRingBarrier(b, loc, copies, waited),
                               parity);
  LLVM::StoreOp::create(
      b, loc, LLVM::AddOp::create(b, loc, waited, constant(1)), copies.waited);
}

void kda::emitWaitTensorMapCopies(
    OpBuilder &b, Location loc, GPULoweringState &state,
    const GPULoweringState::TensorMapCopies &copies, unsigned pending) {
  Type i32 = b.getI32Type();
  // At most a ring of loads is in flight: as many conditional waits.
  for (int64_t i = pending; i < GPULoweringState::kTensorMapRing; ++i) {
    Value issued = LLVM::LoadOp::create(b, loc, i32, copies.issued);
    Value waited = LLVM::LoadOp::create(b, loc, i32, copies.waited);
    Value more =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt,
                             LLVM::SubOp::create(b, loc, issued, waited),
                             LLVM::ConstantOp::create(b, loc, i32, pending));
    emitIf(b, loc, more, [&] { emitWaitOldest(b, loc, state, copies); });
  }
}

LogicalResult kda::prepareTensorMaps(ModuleOp module, GPULoweringState &state) {
  MLIRContext *ctx = module.getContext();
  for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
    SmallVector<tile::MakeTensorDescOp> descs;
    bool perThreadCopies = false;
    func.walk([&](Operation *op) {
      if (auto desc = dyn_cast<tile::MakeTensorDescOp>(op);
          desc && desc->hasAttr(tile::kTensorMapAttrName))
        descs.push_back(desc);
      perThreadCopies |= isa<tile::AsyncCopyOp>(op);
      // The buffers of tensor-map copies (slices of whole aligned units, as
      // tile-expand-tensor-descs checked).
      if (isa<tile::AsyncLoadOp, tile::AsyncStoreOp>(op) &&
          usesTensorMap(op->getOperand(0))) {
        Value buffer = op->getOperand(op->getNumOperands() - 1);
        while (auto index = buffer.getDefiningOp<tile::SmemIndexOp>())
          buffer = index.getBuffer();
        state.tensorMapBuffers.insert(buffer.getDefiningOp());
      }
    });
    if (descs.empty())
      continue;
    if (!func->hasAttr("tile.kernel"))
      return func.emitError("tensor-map copies outside a kernel");
    SmallVector<Attribute> recipes;
    for (tile::MakeTensorDescOp desc : descs) {
      NamedAttrList attrs;
      attrs.set(LLVM::LLVMDialect::getByValAttrName(),
                TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                                       tma::kTensorMapBytes)));
      attrs.set(LLVM::LLVMDialect::getAlignAttrName(),
                IntegerAttr::get(IntegerType::get(ctx, 64),
                                 tma::kTensorMapAlignment));
      unsigned index = func.getNumArguments();
      if (failed(func.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                                     attrs.getDictionary(ctx), desc.getLoc())))
        return func.emitError("cannot add a tensor-map parameter");
      state.tensorMapArguments[desc] = index;
      recipes.push_back(desc->getAttr(tile::kTensorMapAttrName));
    }
    func->setAttr(tile::kTensorMapsAttrName, ArrayAttr::get(ctx, recipes));

    // The entry: the counters (registers once promoted), the ring, its
    // barriers initialized by one thread and shown to all.
    Location loc = func.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Type i32 = b.getI32Type();
    Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
    Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    GPULoweringState::TensorMapCopies copies;
    copies.mixed = perThreadCopies;
    copies.issued = LLVM::AllocaOp::create(b, loc, ptr, i32, one);
    copies.waited = LLVM::AllocaOp::create(b, loc, ptr, i32, one);
    LLVM::StoreOp::create(b, loc, zero, copies.issued);
    LLVM::StoreOp::create(b, loc, zero, copies.waited);
    std::string ring = createSharedBuffer(
        b, loc, module, state, 8 * GPULoweringState::kTensorMapRing, 8);
    copies.ring = LLVM::AddressOfOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(ctx, state.hooks->getSharedAddressSpace()),
        ring);
    emitIf(b, loc, emitIsFirstThread(b, loc, state), [&] {
      for (int64_t i = 0; i < GPULoweringState::kTensorMapRing; ++i)
        state.hooks->initCopyBarrier(
            b, loc,
            getRingBarrier(b, loc, copies,
                           LLVM::ConstantOp::create(b, loc, i32, i)));
      state.hooks->fenceCopyBarrierInit(b, loc);
    });
    state.hooks->barrier(b, loc);
    state.tensorMapCopies[func] = copies;
  }
  return success();
}

void kda::populateTensorDescsToGPUPatterns(TileToGPUTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MakeTensorDescLowering>(converter, ctx);
  patterns.add<BlockCopyLowering<tile::AsyncLoadOp>,
               BlockCopyLowering<tile::AsyncStoreOp>,
               TensorMapCopyLowering<tile::AsyncLoadOp>,
               TensorMapCopyLowering<tile::AsyncStoreOp>>(converter, ctx,
                                                          state);
}
