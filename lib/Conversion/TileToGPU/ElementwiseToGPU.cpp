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
    Type structType = getTypeConverter()->convertType(op->getResult(0).getType());
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
        rewriter, op.getLoc(), cast<TypedAttr>(dense.getSplatValue<Attribute>()));
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
    Value v = isCount
                  ? state.hooks->getNumPrograms(rewriter, op.getLoc(), axis)
                  : state.hooks->getProgramId(rewriter, op.getLoc(), axis);
    rewriter.replaceOp(op, v);
    return success();
  }
  GPULoweringState &state;
};

//===----------------------------------------------------------------------===//
// Scalar math
//===----------------------------------------------------------------------===//

/// op(x) = scale_out * intrinsic(scale_in * x): exp through exp2, log
/// through log2.
template <typename MathOp, typename Intrinsic>
struct ScaledIntrinsicLowering : OpConversionPattern<MathOp> {
  ScaledIntrinsicLowering(const TypeConverter &converter, MLIRContext *ctx,
                          double scaleIn, double scaleOut)
      : OpConversionPattern<MathOp>(converter, ctx), scaleIn(scaleIn),
        scaleOut(scaleOut) {}
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    if (scaleIn != 1.0)
      x = LLVM::FMulOp::create(
          rewriter, loc, x,
          LLVM::ConstantOp::create(rewriter, loc, type,
                                   rewriter.getFloatAttr(type, scaleIn)));
    Value y = Intrinsic::create(rewriter, loc, type, x);
    if (scaleOut != 1.0)
      y = LLVM::FMulOp::create(
          rewriter, loc, y,
          LLVM::ConstantOp::create(rewriter, loc, type,
                                   rewriter.getFloatAttr(type, scaleOut)));
    rewriter.replaceOp(op, y);
    return success();
  }
  double scaleIn, scaleOut;
};

struct RsqrtLowering : OpConversionPattern<math::RsqrtOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::RsqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    Value root = LLVM::SqrtOp::create(rewriter, loc, type, adaptor.getOperand());
    Value one = LLVM::ConstantOp::create(rewriter, loc, type,
                                         rewriter.getFloatAttr(type, 1.0));
    rewriter.replaceOpWithNewOp<LLVM::FDivOp>(op, one, root);
    return success();
  }
};

/// log(x) = log2(x) * ln2, log2 through the target (no library calls).
template <typename MathOp>
struct LogLowering : OpConversionPattern<MathOp> {
  LogLowering(const TypeConverter &converter, MLIRContext *ctx,
              TargetHooks &hooks, double scale)
      : OpConversionPattern<MathOp>(converter, ctx), hooks(hooks),
        scale(scale) {}
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    Value y = hooks.log2(rewriter, loc, adaptor.getOperand());
    if (scale != 1.0)
      y = LLVM::FMulOp::create(
          rewriter, loc, y,
          LLVM::ConstantOp::create(rewriter, loc, type,
                                   rewriter.getFloatAttr(type, scale)));
    rewriter.replaceOp(op, y);
    return success();
  }
  TargetHooks &hooks;
  double scale;
};

/// sin and cos through the target.
template <typename MathOp, bool isSin>
struct SinCosLowering : OpConversionPattern<MathOp> {
  SinCosLowering(const TypeConverter &converter, MLIRContext *ctx,
                 TargetHooks &hooks)
      : OpConversionPattern<MathOp>(converter, ctx), hooks(hooks) {}
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    rewriter.replaceOp(op, hooks.sinOrCos(rewriter, op.getLoc(),
                                          adaptor.getOperand(), isSin));
    return success();
  }
  TargetHooks &hooks;
};

/// tanh(x) = 1 - 2 / (exp(2x) + 1): saturates to +-1 without inf/inf.
struct TanhLowering : OpConversionPattern<math::TanhOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::TanhOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    auto c = [&](double v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, type,
                                      rewriter.getFloatAttr(type, v));
    };
    Value e = LLVM::Exp2Op::create(
        rewriter, loc, type,
        LLVM::FMulOp::create(rewriter, loc, adaptor.getOperand(),
                             c(2.0 * 1.4426950408889634)));
    Value frac = LLVM::FDivOp::create(
        rewriter, loc, c(2.0), LLVM::FAddOp::create(rewriter, loc, e, c(1.0)));
    rewriter.replaceOpWithNewOp<LLVM::FSubOp>(op, c(1.0), frac);
    return success();
  }
};

/// erf through Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7):
/// GPUs have no erf instruction and device libraries are not linked.
struct ErfLowering : OpConversionPattern<math::ErfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::ErfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    auto c = [&](double v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, type,
                                      rewriter.getFloatAttr(type, v));
    };
    Value x = adaptor.getOperand();
    Value ax = LLVM::FAbsOp::create(rewriter, loc, type, x);
    Value t = LLVM::FDivOp::create(
        rewriter, loc, c(1.0),
        LLVM::FMAOp::create(rewriter, loc, ax, c(0.3275911), c(1.0)));
    Value poly = c(1.061405429);
    for (double coeff : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
      poly = LLVM::FMAOp::create(rewriter, loc, poly, t, c(coeff));
    poly = LLVM::FMulOp::create(rewriter, loc, poly, t);
    Value gauss = LLVM::Exp2Op::create(
        rewriter, loc, type,
        LLVM::FMulOp::create(rewriter, loc,
                             LLVM::FMulOp::create(rewriter, loc, ax, ax),
                             c(-1.4426950408889634)));
    Value mag = LLVM::FSubOp::create(
        rewriter, loc, c(1.0), LLVM::FMulOp::create(rewriter, loc, poly, gauss));
    rewriter.replaceOpWithNewOp<LLVM::CopySignOp>(op, mag, x);
    return success();
  }
};

struct FmaLowering : OpConversionPattern<math::FmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::FmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, adaptor.getA(), adaptor.getB(),
                                             adaptor.getC());
    return success();
  }
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

void kda::populateMathToGPUIntrinsicsPatterns(
    TileToGPUTypeConverter &converter, RewritePatternSet &patterns,
    GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LogLowering<math::LogOp>>(converter, ctx, *state.hooks,
                                         0.6931471805599453);
  patterns.add<LogLowering<math::Log2Op>>(converter, ctx, *state.hooks, 1.0);
  patterns.add<SinCosLowering<math::SinOp, true>,
               SinCosLowering<math::CosOp, false>>(converter, ctx,
                                                   *state.hooks);
  constexpr double log2e = 1.4426950408889634;
  patterns.add<ScaledIntrinsicLowering<math::ExpOp, LLVM::Exp2Op>>(
      converter, ctx, log2e, 1.0);
  patterns.add<ScaledIntrinsicLowering<math::Exp2Op, LLVM::Exp2Op>>(
      converter, ctx, 1.0, 1.0);
  patterns.add<ScaledIntrinsicLowering<math::SqrtOp, LLVM::SqrtOp>>(
      converter, ctx, 1.0, 1.0);
  patterns.add<ScaledIntrinsicLowering<math::AbsFOp, LLVM::FAbsOp>>(
      converter, ctx, 1.0, 1.0);
  patterns.add<ScaledIntrinsicLowering<math::FloorOp, LLVM::FFloorOp>>(
      converter, ctx, 1.0, 1.0);
  patterns.add<ScaledIntrinsicLowering<math::CeilOp, LLVM::FCeilOp>>(
      converter, ctx, 1.0, 1.0);
  patterns.add<RsqrtLowering, TanhLowering, ErfLowering, FmaLowering>(converter,
                                                                    ctx);
}
