//===- ElementwiseToGPU.cpp - per-register ops, constants, ids ------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace kda;

namespace {

/// arith/math ops on tiles: the same op on each register. The layout
/// assignment gave every operand the result's layout.
struct ElementwiseOnRegisters : ConversionPattern {
  ElementwiseOnRegisters(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()) ||
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return failure();
    Location loc = op->getLoc();
    Type structType =
        getTypeConverter()->convertType(op->getResult(0).getType());
    if (!structType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    Type elemType = cast<LLVM::LLVMStructType>(structType).getBody()[0];
    SmallVector<SmallVector<Value>> operandRegs;
    for (Value operand : operands) {
      if (!isa<LLVM::LLVMStructType>(operand.getType()))
        return rewriter.notifyMatchFailure(op, "scalar operand on a tile op");
      operandRegs.push_back(unpackRegisters(rewriter, loc, operand));
    }
    SmallVector<Value> results;
    size_t numRegs = cast<LLVM::LLVMStructType>(structType).getBody().size();
    for (size_t r = 0; r < numRegs; ++r) {
      OperationState state(loc, op->getName());
      for (auto &regs : operandRegs)
        state.addOperands(regs[r]);
      state.addTypes(elemType);
      state.addAttributes(op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, results));
    return success();
  }
};

/// Splat constants: the scalar in every register.
struct SplatConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense || !isa<RankedTensorType>(op.getType()))
      return failure();
    Type structType = getTypeConverter()->convertType(op.getType());
    if (!structType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    size_t n = cast<LLVM::LLVMStructType>(structType).getBody().size();
    rewriter.replaceOp(op, packRegisters(rewriter, op.getLoc(), structType,
                                         SmallVector<Value>(n, scalar)));
    return success();
  }
};

struct SplatLowering : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type structType = getTypeConverter()->convertType(op.getType());
    if (!structType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    size_t n = cast<LLVM::LLVMStructType>(structType).getBody().size();
    rewriter.replaceOp(op,
                       packRegisters(rewriter, op.getLoc(), structType,
                                     SmallVector<Value>(n, adaptor.getSrc())));
    return success();
  }
};

/// The range value of a register is its coordinate plus the start.
struct RangeLowering : OpConversionPattern<tile::RangeOp> {
  RangeLowering(const TypeConverter &converter, MLIRContext *ctx,
                GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    if (!structType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    LinearLayout layout = getTileLayout(op.getType());
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, layout, thread);
    Value start = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                           op.getStartAttr().getInt());
    SmallVector<Value> regs;
    for (int64_t r = 0; r < layout.getSize(HWDim::Register); ++r)
      regs.push_back(LLVM::AddOp::create(
          rewriter, loc, emitCoords(rewriter, loc, layout, r, laneWarp)[0],
          start));
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, regs));
    return success();
  }
  GPULoweringState &state;
};

template <typename OpTy, bool isCount>
struct GridQueryLowering : OpConversionPattern<OpTy> {
  GridQueryLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern<OpTy>(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    Value v = isCount ? state.hooks->getNumPrograms(rewriter, op.getLoc(), axis)
                      : state.hooks->getProgramId(rewriter, op.getLoc(), axis);
    rewriter.replaceOp(op, v);
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateElementwiseToGPUPatterns(TileToGPUTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOnRegisters, SplatConstantLowering, SplatLowering>(
      converter, ctx);
  patterns.add<RangeLowering, GridQueryLowering<tile::ProgramIdOp, false>,
               GridQueryLowering<tile::NumProgramsOp, true>>(converter, ctx,
                                                             state);
}
