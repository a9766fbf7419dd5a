//===- MemoryOpsToLLVM.cpp - tile pointers and memory access on the host --===//
//
// On the host a pointer is an i64 address. Loads and stores visit their
// tile element by element and guard each access with its mask, so lanes that
// are masked off never touch memory. A program runs as one host thread, so a
// shared buffer is an array on its stack, an asynchronous copy copies at once
// and waits and barriers have nothing to do.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/AtomicsToLLVM.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kda;

int64_t kda::getStorageSizeInBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

namespace {

/// i1 lives in memory as a byte; everything else as itself.
Type getMemoryType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  return type;
}

Value loadScalar(OpBuilder &b, Location loc, Value address, Type type) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrTy, address);
  Type memType = getMemoryType(type);
  Value v =
      LLVM::LoadOp::create(b, loc, memType, ptr, getStorageSizeInBytes(type));
  if (memType != type) {
    Value zero = arith::ConstantIntOp::create(b, loc, memType, 0);
    v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  return v;
}

void storeScalar(OpBuilder &b, Location loc, Value address, Value value) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrTy, address);
  Type type = value.getType();
  Type memType = getMemoryType(type);
  if (memType != type)
    value = arith::ExtUIOp::create(b, loc, memType, value);
  LLVM::StoreOp::create(b, loc, value, ptr, getStorageSizeInBytes(type));
}

/// `then()` when `mask` is true, `otherwise()` when false; without a mask,
/// `then()` alone.
Value buildMasked(OpBuilder &b, Location loc, Value mask, Type type,
                  function_ref<Value(OpBuilder &, Location)> then,
                  function_ref<Value(OpBuilder &, Location)> otherwise) {
  if (!mask)
    return then(b, loc);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, mask,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, then(b, loc));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise(b, loc));
  return ifOp.getResult(0);
}

/// Constant bounds of a loop nest visiting every element of `shape`.
void getElementLoopBounds(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          SmallVectorImpl<Value> &lbs,
                          SmallVectorImpl<Value> &ubs,
                          SmallVectorImpl<Value> &steps) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t dim : shape) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
    steps.push_back(one);
  }
}

/// A tensor whose element at each index is `element(b, loc, index)`, filled by
/// an explicit loop nest rather than tensor.generate: upstream folds
/// tensor.extract(tensor.generate) by cloning the body to the use, which could
/// move a memory access past a store to the same address.
Value buildElementLoop(
    OpBuilder &b, Location loc, RankedTensorType type,
    function_ref<Value(OpBuilder &, Location, ValueRange)> element) {
  SmallVector<Value> lbs, ubs, steps;
  getElementLoopBounds(b, loc, type.getShape(), lbs, ubs, steps);
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, ValueRange{init},
                         [&](OpBuilder &lb, Location l, ValueRange idx,
                             ValueRange carried) -> scf::ValueVector {
                           return {tensor::InsertOp::create(
                               lb, l, element(lb, l, idx), carried[0], idx)};
                         });
  return nest.results[0];
}

/// Calls `body` with the indices of every element of `shape`.
void buildElementLoopNest(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  getElementLoopBounds(b, loc, shape, lbs, ubs, steps);
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// Element `idx` of the tile `ptrs` points to, or `other`'s (zero when null)
/// where `mask` (a tile, or null) is false, without a read; `op` is the
/// access, for its bounds check.
Value loadMaskedElement(OpBuilder &b, Location loc, Operation *op, Value ptrs,
                        Value mask, Value other, ValueRange idx,
                        Type elemType) {
  Value m =
      mask ? Value(tensor::ExtractOp::create(b, loc, mask, idx)) : Value();
  auto zero = [&](OpBuilder &zb, Location zl) -> Value {
    return arith::ConstantOp::create(zb, zl, zb.getZeroAttr(elemType));
  };
  return buildMasked(
      b, loc, m, elemType,
      [&](OpBuilder &tb, Location tl) {
        Value address = tensor::ExtractOp::create(tb, tl, ptrs, idx);
        return guardAccess(
            tb, tl, op, address, getStorageSizeInBytes(elemType), elemType,
            [&](OpBuilder &gb, Location gl) {
              return loadScalar(gb, gl, address, elemType);
            },
            zero);
      },
      [&](OpBuilder &eb, Location el) -> Value {
        if (other)
          return tensor::ExtractOp::create(eb, el, other, idx);
        return zero(eb, el);
      });
}

struct AddPtrLowering : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = mlir::getElementTypeOrSelf(
        tile::getPointeeLikeType(op.getPtr().getType()));
    Type addrType = adaptor.getPtr().getType();
    Type i64 = rewriter.getI64Type();
    Value offset = adaptor.getOffset();
    auto offTensor = dyn_cast<RankedTensorType>(offset.getType());
    Type offElem = mlir::getElementTypeOrSelf(offset.getType());
    if (offElem.getIntOrFloatBitWidth() < 64) {
      Type wide = offTensor ? Type(offTensor.clone(i64)) : i64;
      offset = offElem.isInteger(1)
                   ? Value(arith::ExtUIOp::create(rewriter, loc, wide, offset))
                   : Value(arith::ExtSIOp::create(rewriter, loc, wide, offset));
    }
    TypedAttr sizeAttr =
        rewriter.getI64IntegerAttr(getStorageSizeInBytes(pointee));
    if (offTensor)
      sizeAttr = DenseElementsAttr::get(offTensor.clone(i64), sizeAttr);
    Value size = arith::ConstantOp::create(rewriter, loc, sizeAttr);
    Value bytes = arith::MulIOp::create(rewriter, loc, offset, size);
    (void)addrType;
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getPtr(), bytes);
    return success();
  }
};

struct LoadLowering : OpConversionPattern<tile::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = op.getType();
    Type elemType = mlir::getElementTypeOrSelf(resultType);
    auto zeroOf = [&](OpBuilder &b, Location l) -> Value {
      return arith::ConstantOp::create(b, l, b.getZeroAttr(elemType));
    };
    Value mask = adaptor.getMask(), other = adaptor.getOther();
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    if (!tensorType) {
      Value v = buildMasked(
          rewriter, loc, mask, elemType,
          [&](OpBuilder &b, Location l) {
            return guardAccess(
                b, l, op, adaptor.getPtr(), getStorageSizeInBytes(elemType),
                elemType,
                [&](OpBuilder &gb, Location gl) {
                  return loadScalar(gb, gl, adaptor.getPtr(), elemType);
                },
                zeroOf);
          },
          [&](OpBuilder &b, Location l) {
            return other ? other : zeroOf(b, l);
          });
      rewriter.replaceOp(op, v);
      return success();
    }
    auto element = [&](OpBuilder &b, Location l, ValueRange idx) {
      return loadMaskedElement(b, l, op, adaptor.getPtr(), mask, other, idx,
                               elemType);
    };
    rewriter.replaceOp(op,
                       buildElementLoop(rewriter, loc, tensorType, element));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<tile::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mask = adaptor.getMask();
    int64_t bytes = getStorageSizeInBytes(
        mlir::getElementTypeOrSelf(op.getValue().getType()));
    auto emitStore = [&](OpBuilder &b, Location l, Value addr, Value value,
                         Value m) {
      auto store = [&](OpBuilder &sb, Location sl) {
        guardAccess(
            sb, sl, op, addr, bytes, Type(),
            [&](OpBuilder &gb, Location gl) {
              storeScalar(gb, gl, addr, value);
              return Value();
            },
            [](OpBuilder &, Location) { return Value(); });
      };
      if (!m) {
        store(b, l);
        return;
      }
      scf::IfOp::create(b, l, m, [&](OpBuilder &tb, Location tl) {
        store(tb, tl);
        scf::YieldOp::create(tb, tl);
      });
    };
    auto tensorType = dyn_cast<RankedTensorType>(op.getValue().getType());
    if (!tensorType) {
      emitStore(rewriter, loc, adaptor.getPtr(), adaptor.getValue(), mask);
      rewriter.eraseOp(op);
      return success();
    }
    // A loop nest over the tile, one guarded scalar store per element.
    buildElementLoopNest(
        rewriter, loc, tensorType.getShape(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value addr = tensor::ExtractOp::create(b, l, adaptor.getPtr(), ivs);
          Value value =
              tensor::ExtractOp::create(b, l, adaptor.getValue(), ivs);
          Value m = mask ? Value(tensor::ExtractOp::create(b, l, mask, ivs))
                         : Value();
          emitStore(b, l, addr, value, m);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// A program is one host thread, so each atomic is one LLVM atomicrmw at the
/// requested ordering (system scope: programs run on a thread pool); a tile
/// visits its elements in a loop nest, skipping masked ones (old value 0).
struct AtomicRMWLowering : OpConversionPattern<tile::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elemType = mlir::getElementTypeOrSelf(op.getValue().getType());
    auto zero = [&](OpBuilder &b, Location l) -> Value {
      return arith::ConstantOp::create(b, l, b.getZeroAttr(elemType));
    };
    auto atomic = [&](OpBuilder &b, Location l, Value address,
                      Value value) -> Value {
      int64_t bytes = getStorageSizeInBytes(elemType);
      return guardAccess(
          b, l, op, address, bytes, elemType,
          [&](OpBuilder &gb, Location gl) -> Value {
            auto ptrTy = LLVM::LLVMPointerType::get(gb.getContext());
            Value ptr = LLVM::IntToPtrOp::create(gb, gl, ptrTy, address);
            return LLVM::AtomicRMWOp::create(
                gb, gl, getAtomicBinOp(op.getKind(), elemType), ptr, value,
                getAtomicOrdering(op.getSem()), StringRef(), bytes);
          },
          zero);
    };
    Value mask = adaptor.getMask();
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      rewriter.replaceOp(op, buildMasked(
                                 rewriter, loc, mask, elemType,
                                 [&](OpBuilder &b, Location l) {
                                   return atomic(b, l, adaptor.getPtr(),
                                                 adaptor.getValue());
                                 },
                                 zero));
      return success();
    }
    auto element = [&](OpBuilder &b, Location l, ValueRange idx) {
      Value m =
          mask ? Value(tensor::ExtractOp::create(b, l, mask, idx)) : Value();
      return buildMasked(
          b, l, m, elemType,
          [&](OpBuilder &tb, Location tl) {
            return atomic(
                tb, tl,
                tensor::ExtractOp::create(tb, tl, adaptor.getPtr(), idx),
                tensor::ExtractOp::create(tb, tl, adaptor.getValue(), idx));
          },
          zero);
    };
    rewriter.replaceOp(op,
                       buildElementLoop(rewriter, loc, tensorType, element));
    return success();
  }
};

/// The address of element `idx` (index values) of a row-major buffer of
/// `shape` at `base`.
Value getBufferElementAddress(OpBuilder &b, Location loc, Value base,
                              ArrayRef<int64_t> shape, Type elemType,
                              ValueRange idx) {
  Type i64 = b.getI64Type();
  Value linear = arith::ConstantIntOp::create(b, loc, i64, 0);
  for (auto [i, dim] : llvm::zip_equal(idx, shape)) {
    linear = arith::MulIOp::create(
        b, loc, linear, arith::ConstantIntOp::create(b, loc, i64, dim));
    linear = arith::AddIOp::create(b, loc, linear,
                                   arith::IndexCastOp::create(b, loc, i64, i));
  }
  Value bytes =
      arith::MulIOp::create(b, loc, linear,
                            arith::ConstantIntOp::create(
                                b, loc, i64, getStorageSizeInBytes(elemType)));
  return arith::AddIOp::create(b, loc, base, bytes);
}

struct AllocSharedLowering : OpConversionPattern<tile::AllocSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AllocSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::SharedBufferType type = op.getType();
    Type i64 = rewriter.getI64Type();
    int64_t bytes =
        type.getNumElements() * getStorageSizeInBytes(type.getElementType());
    // The buffer lives on the stack of the thread running the program.
    constexpr int64_t kMaxHostBufferBytes = 1 << 20;
    if (bytes > kMaxHostBufferBytes)
      return op.emitOpError("needs ")
             << bytes << " bytes; shared buffers on the host are limited to "
             << kMaxHostBufferBytes << " bytes per program";
    Value size = LLVM::ConstantOp::create(rewriter, loc, i64, bytes);
    Value array = LLVM::AllocaOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(getContext()),
        rewriter.getI8Type(), size, /*alignment=*/16);
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, i64, array);
    return success();
  }
};

struct SmemIndexLowering : OpConversionPattern<tile::SmemIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SmemIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::SharedBufferType slice = op.getType();
    Type i64 = rewriter.getI64Type();
    Value index =
        arith::ExtSIOp::create(rewriter, loc, i64, adaptor.getIndex());
    Value sliceBytes = arith::ConstantIntOp::create(
        rewriter, loc, i64,
        slice.getNumElements() * getStorageSizeInBytes(slice.getElementType()));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(
        op, adaptor.getBuffer(),
        arith::MulIOp::create(rewriter, loc, index, sliceBytes));
    return success();
  }
};

struct SmemLoadLowering : OpConversionPattern<tile::SmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elemType = type.getElementType();
    auto element = [&](OpBuilder &b, Location l, ValueRange idx) {
      return loadScalar(b, l,
                        getBufferElementAddress(b, l, adaptor.getBuffer(),
                                                type.getShape(), elemType, idx),
                        elemType);
    };
    rewriter.replaceOp(op,
                       buildElementLoop(rewriter, op.getLoc(), type, element));
    return success();
  }
};

struct SmemStoreLowering : OpConversionPattern<tile::SmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    buildElementLoopNest(
        rewriter, op.getLoc(), type.getShape(),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          storeScalar(b, l,
                      getBufferElementAddress(b, l, adaptor.getBuffer(),
                                              type.getShape(),
                                              type.getElementType(), idx),
                      tensor::ExtractOp::create(b, l, adaptor.getValue(), idx));
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Copies at once: each element is loaded (zero where masked, without a
/// read) and stored into the buffer.
struct AsyncCopyLowering : OpConversionPattern<tile::AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    tile::SharedBufferType buffer = op.getBuffer().getType();
    Type elemType = buffer.getElementType();
    Value mask = adaptor.getMask();
    buildElementLoopNest(
        rewriter, op.getLoc(), buffer.getShape(),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          Value value = loadMaskedElement(b, l, op, adaptor.getPtr(), mask,
                                          /*other=*/Value(), idx, elemType);
          storeScalar(b, l,
                      getBufferElementAddress(b, l, adaptor.getBuffer(),
                                              buffer.getShape(), elemType, idx),
                      value);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// One host thread per program, and launches that run one after another:
/// nothing to wait for or meet.
template <typename Op> struct EraseSynchronization : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicRMWMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<AtomicRMWMemoryEffects,
                                             LLVM::AtomicRMWOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    auto atomic = cast<LLVM::AtomicRMWOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(), &atomic.getPtrMutable());
    effects.emplace_back(MemoryEffects::Write::get(), &atomic.getPtrMutable());
  }
};

} // namespace

void kda::registerAtomicRMWMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LLVM::LLVMDialect *) {
    LLVM::AtomicRMWOp::attachInterface<AtomicRMWMemoryEffects>(*ctx);
  });
}

void kda::populateTileMemoryToCPUPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering, LoadLowering, StoreLowering, AtomicRMWLowering,
               AllocSharedLowering, SmemIndexLowering, SmemLoadLowering,
               SmemStoreLowering, AsyncCopyLowering,
               EraseSynchronization<tile::AsyncWaitOp>,
               EraseSynchronization<tile::BarrierOp>,
               EraseSynchronization<tile::WaitPriorLaunchesOp>,
               EraseSynchronization<tile::LaunchDependentsOp>>(
      converter, patterns.getContext());
}
