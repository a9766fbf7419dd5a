//===- MathToGPU.cpp - scalar math as instructions every GPU has ----------===//
//
// Device libraries (libdevice, ocml) are not linked, so every math op becomes
// LLVM intrinsics the back ends select natively, target instructions through
// the hooks (NVPTX selects llvm.log2/sin/cos only as library calls), or a
// short formula over them.
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Conversion/ArithCommon/AttrToLLVMConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <functional>
#include <type_traits>

using namespace mlir;
using namespace kda;

namespace {

constexpr double kLog2E = 1.4426950408889634, kLn2 = 0.6931471805599453;

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return LLVM::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// Builds the core of a unary math op on a float scalar.
using UnaryBuilder = std::function<Value(OpBuilder &, Location, Value)>;

/// op(x) = scaleOut * core(scaleIn * x): exp through exp2, log through log2.
template <typename MathOp>
struct UnaryMathLowering : OpConversionPattern<MathOp> {
  UnaryMathLowering(const TypeConverter &converter, MLIRContext *ctx,
                    UnaryBuilder core, double scaleIn = 1.0,
                    double scaleOut = 1.0)
      : OpConversionPattern<MathOp>(converter, ctx), core(std::move(core)),
        scaleIn(scaleIn), scaleOut(scaleOut) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    if (scaleIn != 1.0)
      x = LLVM::FMulOp::create(rewriter, loc, x,
                               floatConstant(rewriter, loc, type, scaleIn));
    Value y = core(rewriter, loc, x);
    if (scaleOut != 1.0)
      y = LLVM::FMulOp::create(rewriter, loc, y,
                               floatConstant(rewriter, loc, type, scaleOut));
    rewriter.replaceOp(op, y);
    return success();
  }

  UnaryBuilder core;
  double scaleIn, scaleOut;
};

template <typename Intrinsic> UnaryBuilder intrinsic() {
  return [](OpBuilder &b, Location loc, Value x) -> Value {
    return Intrinsic::create(b, loc, x.getType(), x);
  };
}

/// tanh(x) = 1 - 2 / (exp(2x) + 1): saturates to +-1 without inf/inf. Its
/// division (like erf's) is the target's: the formulas are approximations.
Value buildTanh(OpBuilder &b, Location loc, Value x, TargetHooks &hooks) {
  Type type = x.getType();
  auto c = [&](double v) { return floatConstant(b, loc, type, v); };
  Value e = LLVM::Exp2Op::create(
      b, loc, type, LLVM::FMulOp::create(b, loc, x, c(2 * kLog2E)));
  Value frac =
      hooks.divide(b, loc, c(2.0), LLVM::FAddOp::create(b, loc, e, c(1.0)));
  return LLVM::FSubOp::create(b, loc, c(1.0), frac);
}

/// erf through Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
Value buildErf(OpBuilder &b, Location loc, Value x, TargetHooks &hooks) {
  Type type = x.getType();
  auto c = [&](double v) { return floatConstant(b, loc, type, v); };
  Value ax = LLVM::FAbsOp::create(b, loc, type, x);
  Value t = hooks.divide(b, loc, c(1.0),
                         LLVM::FMAOp::create(b, loc, ax, c(0.3275911), c(1.0)));
  Value poly = c(1.061405429);
  for (double coeff : {-1.453152027, 1.421413741, -0.284496736, 0.254829592})
    poly = LLVM::FMAOp::create(b, loc, poly, t, c(coeff));
  poly = LLVM::FMulOp::create(b, loc, poly, t);
  Value gauss = LLVM::Exp2Op::create(
      b, loc, type,
      LLVM::FMulOp::create(b, loc, LLVM::FMulOp::create(b, loc, ax, ax),
                           c(-kLog2E)));
  Value mag = LLVM::FSubOp::create(b, loc, c(1.0),
                                   LLVM::FMulOp::create(b, loc, poly, gauss));
  return LLVM::CopySignOp::create(b, loc, mag, x);
}

/// Float division on scalars (a tile's division is one per register first):
/// as the target divides when the op allows approximate functions (`afn`,
/// what the DSL's `/` carries), else IEEE (floor division's quotient).
struct DivFLowering : OpConversionPattern<arith::DivFOp> {
  DivFLowering(const TypeConverter &converter, MLIRContext *ctx,
               TargetHooks *hooks)
      : OpConversionPattern(converter, ctx), hooks(hooks) {}
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    arith::FastMathFlags flags = op.getFastmath();
    if (!arith::bitEnumContainsAll(flags, arith::FastMathFlags::afn)) {
      rewriter.replaceOpWithNewOp<LLVM::FDivOp>(
          op, adaptor.getLhs(), adaptor.getRhs(),
          arith::convertArithFastMathFlagsToLLVM(flags));
      return success();
    }
    rewriter.replaceOp(op, hooks->divide(rewriter, op.getLoc(),
                                         adaptor.getLhs(), adaptor.getRhs()));
    return success();
  }
  TargetHooks *hooks;
};

/// sqrt and rsqrt of a float scalar: the target's (sm_90a: approximate) when
/// the op allows approximate functions (`afn`, what kt.sqrt and kt.rsqrt
/// carry), else IEEE (kt.sqrt_rn).
template <typename RootOp> struct RootLowering : OpConversionPattern<RootOp> {
  RootLowering(const TypeConverter &converter, MLIRContext *ctx,
               TargetHooks *hooks)
      : OpConversionPattern<RootOp>(converter, ctx), hooks(hooks) {}
  LogicalResult
  matchAndRewrite(RootOp op, typename RootOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    bool inverse = std::is_same_v<RootOp, math::RsqrtOp>;
    // Without `afn`, the base class's IEEE forms (not the target's).
    if (!arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      rewriter.replaceOp(op, inverse
                                 ? hooks->TargetHooks::rsqrt(rewriter, loc, x)
                                 : hooks->TargetHooks::sqrt(rewriter, loc, x));
    else
      rewriter.replaceOp(op, inverse ? hooks->rsqrt(rewriter, loc, x)
                                     : hooks->sqrt(rewriter, loc, x));
    return success();
  }
  TargetHooks *hooks;
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

void kda::populateMathToGPUIntrinsicsPatterns(TileToGPUTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  TargetHooks *hooks = state.hooks;
  UnaryBuilder log2 = [hooks](OpBuilder &b, Location loc, Value x) {
    return hooks->log2(b, loc, x);
  };
  auto sinOrCos = [hooks](bool isSin) -> UnaryBuilder {
    return [hooks, isSin](OpBuilder &b, Location loc, Value x) {
      return hooks->sinOrCos(b, loc, x, isSin);
    };
  };
  patterns.add<UnaryMathLowering<math::ExpOp>>(
      converter, ctx, intrinsic<LLVM::Exp2Op>(), kLog2E);
  patterns.add<UnaryMathLowering<math::Exp2Op>>(converter, ctx,
                                                intrinsic<LLVM::Exp2Op>());
  patterns.add<UnaryMathLowering<math::LogOp>>(converter, ctx, log2, 1.0, kLn2);
  patterns.add<UnaryMathLowering<math::Log2Op>>(converter, ctx, log2);
  patterns.add<UnaryMathLowering<math::SinOp>>(converter, ctx, sinOrCos(true));
  patterns.add<UnaryMathLowering<math::CosOp>>(converter, ctx, sinOrCos(false));
  patterns.add<RootLowering<math::SqrtOp>>(converter, ctx, hooks);
  patterns.add<UnaryMathLowering<math::AbsFOp>>(converter, ctx,
                                                intrinsic<LLVM::FAbsOp>());
  patterns.add<UnaryMathLowering<math::FloorOp>>(converter, ctx,
                                                 intrinsic<LLVM::FFloorOp>());
  patterns.add<UnaryMathLowering<math::CeilOp>>(converter, ctx,
                                                intrinsic<LLVM::FCeilOp>());
  patterns.add<RootLowering<math::RsqrtOp>>(converter, ctx, hooks);
  patterns.add<UnaryMathLowering<math::TanhOp>>(
      converter, ctx, [hooks](OpBuilder &b, Location loc, Value x) {
        return buildTanh(b, loc, x, *hooks);
      });
  patterns.add<UnaryMathLowering<math::ErfOp>>(
      converter, ctx, [hooks](OpBuilder &b, Location loc, Value x) {
        return buildErf(b, loc, x, *hooks);
      });
  patterns.add<FmaLowering>(converter, ctx);
  patterns.add<DivFLowering>(converter, ctx, hooks);
}
