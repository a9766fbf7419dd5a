//===- NarrowFloatsToIntegers.cpp - bf16/f16 as i16 in host code ----------===//
//
// x86-64 CPUs without native bf16/f16 conversions (everything below
// AVX512-BF16, resp. F16C) lower an LLVM `fptrunc` to bfloat, an `fpext`
// from half, and the selects and phis of such values to calls of libgcc /
// compiler-rt helpers (`__truncsfbf2`, `__extendhfsf2`, ...) that the kernel
// library does not link. After kda-cpu-lower has moved every narrow-float
// computation to f32, this pass rewrites what is left: conversions become
// integer code and every remaining bf16/f16 value becomes the i16 holding
// its bits, so the emitted code never depends on the CPU's conversion
// instructions or on a helper library.
//
//===----------------------------------------------------------------------===//
#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace kda {
#define GEN_PASS_DEF_LEGALIZEHOSTNARROWFLOATS
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

using namespace mlir;

namespace {

bool isNarrowFloat(Type type) { return isa<BFloat16Type, Float16Type>(type); }

/// `type` with every bf16/f16 inside it (scalars, vectors, arrays, structs,
/// function types) replaced by i16.
Type toBits(Type type) {
  MLIRContext *ctx = type.getContext();
  if (isNarrowFloat(type))
    return IntegerType::get(ctx, 16);
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.clone(toBits(vec.getElementType()));
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type))
    return LLVM::LLVMArrayType::get(toBits(array.getElementType()),
                                    array.getNumElements());
  if (auto st = dyn_cast<LLVM::LLVMStructType>(type)) {
    if (st.isIdentified())
      return type;
    SmallVector<Type> body;
    for (Type t : st.getBody())
      body.push_back(toBits(t));
    return LLVM::LLVMStructType::getLiteral(ctx, body, st.isPacked());
  }
  if (auto fn = dyn_cast<LLVM::LLVMFunctionType>(type)) {
    SmallVector<Type> params;
    for (Type t : fn.getParams())
      params.push_back(toBits(t));
    return LLVM::LLVMFunctionType::get(toBits(fn.getReturnType()), params,
                                       fn.isVarArg());
  }
  return type;
}

bool containsNarrowFloat(Type type) { return toBits(type) != type; }

/// Ops that only move bits: they stay as they are with i16 in place of the
/// narrow float. Anything else that still sees a bf16/f16 value would
/// compute in it, which kda-cpu-lower must never leave behind. (Types held in
/// attributes, of functions, globals, GEPs and allocas, are rewritten as
/// they are.)
bool movesBitsOnly(Operation *op) {
  return isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::SelectOp, LLVM::BitcastOp,
             LLVM::ConstantOp, LLVM::ZeroOp, LLVM::UndefOp, LLVM::PoisonOp,
             LLVM::FreezeOp, LLVM::InsertElementOp, LLVM::ExtractElementOp,
             LLVM::ShuffleVectorOp, LLVM::InsertValueOp, LLVM::ExtractValueOp,
             LLVM::BrOp, LLVM::CondBrOp, LLVM::SwitchOp, LLVM::ReturnOp,
             LLVM::CallOp, LLVM::MaskedLoadOp, LLVM::MaskedStoreOp,
             LLVM::masked_gather, LLVM::masked_scatter>(op);
}

/// Integer code for the conversions between f32/f64 and bf16/f16, with the
/// rounding of IEEE `fptrunc` (to nearest, ties to even; NaN stays a quiet
/// NaN of the same sign).
class ConversionExpander {
public:
  ConversionExpander(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// `value` (bf16/f16, or vectors of them) widened to `resultType`.
  Value extend(Value value, Type resultType) {
    Type narrow = getElementTypeOrSelf(value.getType());
    Value bits = LLVM::BitcastOp::create(b, loc, like(value, 16), value);
    Value wide = LLVM::ZExtOp::create(b, loc, like(value, 32), bits);
    Value f32 =
        isa<BFloat16Type>(narrow) ? bf16BitsToF32(wide) : f16BitsToF32(wide);
    if (getElementTypeOrSelf(resultType).isF32())
      return f32;
    return LLVM::FPExtOp::create(b, loc, resultType, f32);
  }

  /// `value` (f32/f64, or vectors of them) rounded to `resultType`.
  Value truncate(Value value, Type resultType) {
    Value f32 = getElementTypeOrSelf(value.getType()).isF64()
                    ? f64ToF32RoundToOdd(value)
                    : value;
    Value bits = LLVM::BitcastOp::create(b, loc, like(f32, 32), f32);
    Value narrow = isa<BFloat16Type>(getElementTypeOrSelf(resultType))
                       ? f32BitsToBF16Bits(bits)
                       : f32BitsToF16Bits(bits);
    Value i16 = LLVM::TruncOp::create(b, loc, like(f32, 16), narrow);
    return LLVM::BitcastOp::create(b, loc, resultType, i16);
  }

private:
  OpBuilder &b;
  Location loc;

  /// An integer (or integer vector) type of `bits` shaped like `value`.
  Type like(Value value, unsigned bits) {
    Type i = b.getIntegerType(bits);
    if (auto vec = dyn_cast<VectorType>(value.getType()))
      return vec.clone(i);
    return i;
  }
  Type likeFloat(Value value, Type element) {
    if (auto vec = dyn_cast<VectorType>(value.getType()))
      return vec.clone(element);
    return element;
  }
  Value constant(Type type, uint64_t v) {
    Type element = getElementTypeOrSelf(type);
    APInt bits(element.getIntOrFloatBitWidth(), v);
    if (auto vec = dyn_cast<VectorType>(type))
      return LLVM::ConstantOp::create(b, loc, type,
                                      DenseElementsAttr::get(vec, bits));
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, bits));
  }
  Value c(Value like, uint64_t v) { return constant(like.getType(), v); }
  Value andI(Value x, uint64_t m) {
    return LLVM::AndOp::create(b, loc, x, c(x, m));
  }
  Value addI(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
  Value addI(Value x, uint64_t y) { return addI(x, c(x, y)); }
  Value shl(Value x, uint64_t s) {
    return LLVM::ShlOp::create(b, loc, x, c(x, s));
  }
  Value lshr(Value x, uint64_t s) {
    return LLVM::LShrOp::create(b, loc, x, c(x, s));
  }
  Value cmp(LLVM::ICmpPredicate p, Value x, uint64_t y) {
    return LLVM::ICmpOp::create(b, loc, p, x, c(x, y));
  }
  Value select(Value cond, Value t, Value f) {
    return LLVM::SelectOp::create(b, loc, cond, t, f);
  }
  Value asFloat(Value bits) {
    return LLVM::BitcastOp::create(b, loc, likeFloat(bits, b.getF32Type()),
                                   bits);
  }
  Value asBits(Value f) {
    return LLVM::BitcastOp::create(b, loc, like(f, 32), f);
  }

  /// bf16 is the upper half of an f32.
  Value bf16BitsToF32(Value bits) { return asFloat(shl(bits, 16)); }

  /// Rounds the low 16 bits away, to nearest even; a NaN keeps its sign and
  /// top mantissa bits and is made quiet.
  Value f32BitsToBF16Bits(Value bits) {
    Value isNaN =
        cmp(LLVM::ICmpPredicate::ugt, andI(bits, 0x7fffffff), 0x7f800000);
    Value quiet = LLVM::OrOp::create(b, loc, lshr(bits, 16), c(bits, 0x40));
    Value odd = andI(lshr(bits, 16), 1);
    Value rounded = lshr(addI(addI(bits, 0x7fff), odd), 16);
    return select(isNaN, quiet, rounded);
  }

  /// f16 fields moved into f32 position and re-biased; subnormals are
  /// normalized by an exact f32 subtraction, Inf/NaN get the f32 exponent.
  Value f16BitsToF32(Value bits) {
    Value magnitude = shl(andI(bits, 0x7fff), 13);
    Value exponent = andI(magnitude, 0x0f800000);
    Value rebiased = addI(magnitude, (127 - 15) << 23);
    Value infNaN = addI(rebiased, (128 - 16) << 23);
    // A subnormal m * 2^-24 is (2^-14 + m * 2^-24) - 2^-14, both exact.
    Value subnormal = LLVM::FSubOp::create(
        b, loc, asFloat(addI(rebiased, 1 << 23)), asFloat(c(bits, 113u << 23)));
    Value normal = select(cmp(LLVM::ICmpPredicate::eq, exponent, 0x0f800000),
                          infNaN, rebiased);
    Value unsignedBits = select(cmp(LLVM::ICmpPredicate::eq, exponent, 0),
                                asBits(subnormal), normal);
    Value sign = shl(andI(bits, 0x8000), 16);
    return asFloat(LLVM::OrOp::create(b, loc, unsignedBits, sign));
  }

  /// Round to nearest even into f16; beyond the largest f16 the result is
  /// Inf, a NaN becomes the quiet NaN of its sign, subnormals are rounded by
  /// an exact f32 addition that aligns their last place.
  Value f32BitsToF16Bits(Value bits) {
    Value sign = andI(bits, 0x80000000);
    Value magnitude = andI(bits, 0x7fffffff);
    Value tooLarge =
        select(cmp(LLVM::ICmpPredicate::ugt, magnitude, 0x7f800000),
               c(bits, 0x7e00), c(bits, 0x7c00));
    const uint64_t denormMagic = ((127 - 15) + (23 - 10) + 1) << 23;
    // (15 - 127) << 23 modulo 2^32: moves the exponent to the f16 bias.
    const uint64_t kRebiasToF16 = 0xc8000000;
    Value aligned = LLVM::FAddOp::create(b, loc, asFloat(magnitude),
                                         asFloat(c(bits, denormMagic)));
    Value subnormal =
        LLVM::SubOp::create(b, loc, asBits(aligned), c(bits, denormMagic));
    Value odd = andI(lshr(magnitude, 13), 1);
    Value normal = lshr(addI(addI(magnitude, kRebiasToF16 + 0xfff), odd), 13);
    Value isLarge = cmp(LLVM::ICmpPredicate::uge, magnitude, (127 + 16) << 23);
    Value isSmall = cmp(LLVM::ICmpPredicate::ult, magnitude, 113 << 23);
    Value result =
        select(isLarge, tooLarge, select(isSmall, subnormal, normal));
    return LLVM::OrOp::create(b, loc, result, lshr(sign, 16));
  }

  /// f64 to f32 rounded to odd (truncated, last bit set when inexact), so
  /// that rounding the f32 on to bf16/f16 rounds once, as a direct
  /// conversion would.
  Value f64ToF32RoundToOdd(Value value) {
    Type f32Type = likeFloat(value, b.getF32Type());
    Value nearest = LLVM::FPTruncOp::create(b, loc, f32Type, value);
    Value back = LLVM::FPExtOp::create(b, loc, value.getType(), nearest);
    Value absBack = LLVM::FAbsOp::create(b, loc, back);
    Value absValue = LLVM::FAbsOp::create(b, loc, value);
    Value roundedUp = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::ogt,
                                           absBack, absValue);
    Value inexact =
        LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::one, back, value);
    Value bits = asBits(nearest);
    Value truncated = select(roundedUp, addI(bits, c(bits, 0xffffffff)), bits);
    Value odd = LLVM::OrOp::create(b, loc, truncated, c(bits, 1));
    return asFloat(select(inexact, odd, truncated));
  }
};

/// An attribute with every narrow float in it as bits: constants' values,
/// globals' initializers and the types ops carry as attributes (function
/// types, GEP and alloca element types, global types).
Attribute toBitsAttr(Attribute attr) {
  MLIRContext *ctx = attr.getContext();
  if (auto f = dyn_cast<FloatAttr>(attr); f && isNarrowFloat(f.getType()))
    return IntegerAttr::get(IntegerType::get(ctx, 16),
                            f.getValue().bitcastToAPInt());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr);
      dense && isNarrowFloat(dense.getElementType()))
    return dense.bitcast(IntegerType::get(ctx, 16));
  if (auto type = dyn_cast<TypeAttr>(attr))
    return TypeAttr::get(toBits(type.getValue()));
  return attr;
}

struct LegalizeHostNarrowFloatsPass
    : kda::impl::LegalizeHostNarrowFloatsBase<LegalizeHostNarrowFloatsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Conversions first, while their types still say which format they are.
    SmallVector<Operation *> conversions;
    module.walk([&](Operation *op) {
      if (isa<LLVM::FPExtOp>(op) &&
          isNarrowFloat(getElementTypeOrSelf(op->getOperand(0).getType())))
        conversions.push_back(op);
      if (isa<LLVM::FPTruncOp>(op) &&
          isNarrowFloat(getElementTypeOrSelf(op->getResult(0).getType())))
        conversions.push_back(op);
    });
    for (Operation *op : conversions) {
      OpBuilder b(op);
      ConversionExpander expand(b, op->getLoc());
      Value replacement =
          isa<LLVM::FPExtOp>(op)
              ? expand.extend(op->getOperand(0), op->getResult(0).getType())
              : expand.truncate(op->getOperand(0), op->getResult(0).getType());
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }

    WalkResult checked = module.walk([&](Operation *op) {
      bool narrow = llvm::any_of(op->getOperandTypes(), containsNarrowFloat) ||
                    llvm::any_of(op->getResultTypes(), containsNarrowFloat);
      if (narrow && !movesBitsOnly(op)) {
        op->emitOpError("computes in a 16-bit float on the host; "
                        "kda-cpu-lower must widen it to f32 first");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    // Retype every value and block argument, and the attributes that hold
    // narrow floats or their types.
    module.walk([&](Operation *op) {
      for (Value result : op->getResults())
        result.setType(toBits(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(toBits(arg.getType()));
      for (NamedAttribute attr : op->getAttrs())
        if (Attribute bits = toBitsAttr(attr.getValue());
            bits != attr.getValue())
          op->setAttr(attr.getName(), bits);
    });
    // Bitcasts between a narrow float and its bits are now i16 to i16.
    module.walk([&](LLVM::BitcastOp cast) {
      if (cast.getArg().getType() == cast.getType()) {
        cast.replaceAllUsesWith(cast.getArg());
        cast.erase();
      }
    });
  }
};
} // namespace
