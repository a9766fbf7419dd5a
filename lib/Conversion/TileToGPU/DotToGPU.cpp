//===- DotToGPU.cpp - matrix products -------------------------------------===//
//
// tile.dot with #tile.mma operands and result (tile-assign-layouts gives them
// to 16-bit products a matrix instruction of the target tiles) is one matrix
// instruction per instruction tile of each warp, through the target hooks.
// tile.shared_dot reads its operands where they lie in shared memory
// (wgmma). The portable form, for every other dot: both operands go to scratch
// memory as fp32 (row-major), then each thread accumulates its result registers
// over K with fused multiply-adds.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "kda/Layout/MatrixLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {

Value toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  if (v.getType().getIntOrFloatBitWidth() > 32)
    return LLVM::FPTruncOp::create(b, loc, f32, v);
  return LLVM::FPExtOp::create(b, loc, f32, v);
}

struct DotLowering : OpConversionPattern<tile::DotOp> {
  DotLowering(const TypeConverter &converter, MLIRContext *ctx,
              GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  /// Writes every element of a tile to scratch at base + row-major index,
  /// rounded to tf32 when `tf32`.
  void spill(OpBuilder &b, Location loc, Value base, Value offset, Value packed,
             RankedTensorType type, ThreadIndex thread, bool tf32) const {
    LinearLayout layout = getTileLayout(type);
    SmallVector<Value> laneWarp = emitLaneWarpCoords(b, loc, layout, thread);
    uint64_t dup = layout.getDuplicateMask(HWDim::Register);
    for (auto [r, v] : llvm::enumerate(unpackRegisters(b, loc, packed))) {
      if (int64_t(r) & dup)
        continue;
      Value index = emitLinearIndex(
          b, loc, emitCoords(b, loc, layout, r, laneWarp), type.getShape());
      Value f = toF32(b, loc, v);
      storeScratch(b, loc, base, LLVM::AddOp::create(b, loc, offset, index),
                   tf32 ? tile::buildRoundToTF32(b, loc, f) : f);
    }
  }

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto cType = op.getAcc().getType();
    if (!tile::isDistributedLayout(aType.getEncoding()) ||
        !tile::isDistributedLayout(bType.getEncoding()) ||
        !tile::isDistributedLayout(cType.getEncoding()))
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
            n = bType.getDimSize(1);
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Value base = getScratch(rewriter, loc, state, (m * k + k * n) * 4);
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    state.hooks->sharedMemoryBarrier(rewriter, loc);
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
    Value bOffset = LLVM::ConstantOp::create(rewriter, loc, i32, m * k);
    bool tf32 = op.getInputPrecision() == tile::InputPrecision::TF32;
    spill(rewriter, loc, base, zero, adaptor.getA(), aType, thread, tf32);
    spill(rewriter, loc, base, bOffset, adaptor.getB(), bType, thread, tf32);
    state.hooks->sharedMemoryBarrier(rewriter, loc);

    LinearLayout cLayout = getTileLayout(cType);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, cLayout, thread);
    SmallVector<Value> acc = unpackRegisters(rewriter, loc, adaptor.getAcc());
    SmallVector<Value> rowBase, col;
    for (int64_t r = 0; r < int64_t(acc.size()); ++r) {
      SmallVector<Value> c = emitCoords(rewriter, loc, cLayout, r, laneWarp);
      rowBase.push_back(
          LLVM::MulOp::create(rewriter, loc, c[0],
                              LLVM::ConstantOp::create(rewriter, loc, i32, k)));
      col.push_back(LLVM::AddOp::create(rewriter, loc, c[1], bOffset));
    }
    // One loop over K carries every accumulator register.
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, acc,
        [&](OpBuilder &b, Location l, Value iv, ValueRange carried) {
          Value kk = arith::IndexCastOp::create(b, l, i32, iv);
          Value kRow = LLVM::MulOp::create(
              b, l, kk, LLVM::ConstantOp::create(b, l, i32, n));
          SmallVector<Value> next;
          for (auto [r, a] : llvm::enumerate(carried)) {
            Value av = loadScratch(
                b, l, base, LLVM::AddOp::create(b, l, rowBase[r], kk), f32);
            Value bv = loadScratch(
                b, l, base, LLVM::AddOp::create(b, l, kRow, col[r]), f32);
            next.push_back(LLVM::FMAOp::create(b, l, av, bv, a));
          }
          scf::YieldOp::create(b, l, next);
        });
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(
        op, packRegisters(rewriter, loc, structType, loop.getResults()));
    return success();
  }
  GPULoweringState &state;
};

/// A dot whose operands and result are #tile.mma layouts of one
/// instruction and warp arrangement: for each instruction tile (mi, ni) of
/// the warp's result and each step ki along K, one instruction on the
/// fragments' registers. Registers follow makeMatrixLayout: a fragment's
/// elements, then its repeats along the tile's columns, then its rows.
struct DotMatrixLowering : OpConversionPattern<tile::DotOp> {
  DotMatrixLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx, /*benefit=*/2), state(state) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto layoutOf = [](Value v) {
      return dyn_cast_or_null<tile::MmaLayoutAttr>(
          cast<RankedTensorType>(v.getType()).getEncoding());
    };
    tile::MmaLayoutAttr c = layoutOf(op.getAcc());
    if (!c || c.getOperand() != tile::MatrixOperand::C ||
        layoutOf(op.getA()) != c.withOperand(tile::MatrixOperand::A) ||
        layoutOf(op.getB()) != c.withOperand(tile::MatrixOperand::B))
      return rewriter.notifyMatchFailure(op, "not one instruction's layouts");
    tile::MatrixInstr instr = c.getInstr();
    auto [im, in, ik] = getMatrixInstructionShape(instr);
    RankedTensorType aType = op.getA().getType();
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
            n = op.getB().getType().getDimSize(1);
    int64_t kSteps = getMatrixKSteps(instr, k);
    if (m % im || n % in || kSteps == 0)
      return rewriter.notifyMatchFailure(op, "not a multiple of the tile");
    ArrayRef<unsigned> warps = c.getWarpsPerCTA();
    int64_t rowRepeats = std::max<int64_t>(1, m / (im * warps[0]));
    int64_t colRepeats = std::max<int64_t>(1, n / (in * warps[1]));
    auto fragmentSize = [&](tile::MatrixOperand operand) {
      return getMatrixFragmentLayout(instr, operand).getSize(HWDim::Register);
    };
    int64_t aSize = fragmentSize(tile::MatrixOperand::A),
            bSize = fragmentSize(tile::MatrixOperand::B),
            cSize = fragmentSize(tile::MatrixOperand::C);
    Location loc = op.getLoc();
    SmallVector<Value> a = unpackRegisters(rewriter, loc, adaptor.getA());
    SmallVector<Value> b = unpackRegisters(rewriter, loc, adaptor.getB());
    SmallVector<Value> acc = unpackRegisters(rewriter, loc, adaptor.getAcc());
    // tf32 instructions read the top 19 bits of each operand: round first,
    // once per register.
    if (op.getInputPrecision() == tile::InputPrecision::TF32)
      for (SmallVector<Value> *regs : {&a, &b})
        for (Value &v : *regs)
          v = tile::buildRoundToTF32(rewriter, loc, v);
    // A K shorter than the instruction's (getMatrixKSteps: past k only in
    // registers): the operands' layouts wrap along K, so the fragment
    // registers past k repeat the ones before; zero them in both operands
    // (0 * a repeated infinity would be a NaN).
    if (k < ik)
      for (auto [regs, operand, kDim] :
           {std::tuple(&a, tile::MatrixOperand::A, 1u),
            std::tuple(&b, tile::MatrixOperand::B, 0u)}) {
        LinearLayout fragment = getMatrixFragmentLayout(instr, operand);
        int64_t size = fragment.getSize(HWDim::Register);
        Value zero =
            LLVM::ZeroOp::create(rewriter, loc, regs->front().getType());
        for (int64_t r = 0; r < size; ++r)
          if (fragment.applyDim(HWDim::Register, r)[kDim] >= k)
            for (int64_t first = r; first < int64_t(regs->size());
                 first += size)
              (*regs)[first] = zero;
      }
    auto slice = [](ArrayRef<Value> regs, int64_t first, int64_t size) {
      return SmallVector<Value>(regs.slice(first, size));
    };
    for (int64_t mi = 0; mi < rowRepeats; ++mi)
      for (int64_t ni = 0; ni < colRepeats; ++ni) {
        int64_t cFirst = cSize * (ni + colRepeats * mi);
        SmallVector<Value> d = slice(acc, cFirst, cSize);
        for (int64_t ki = 0; ki < kSteps; ++ki)
          d = state.hooks->matrixMultiply(
              rewriter, loc, instr, slice(a, aSize * (ki + kSteps * mi), aSize),
              slice(b, bSize * (ni + colRepeats * ki), bSize), d);
        llvm::copy(d, acc.begin() + cFirst);
      }
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, acc));
    return success();
  }
  GPULoweringState &state;
};

/// A tile.shared_dot: the accumulator is #tile.mma<wgmma_m64k16> over
/// [num-warps, 1] warps (makeMatrixLayout: the m16n8 fragment, the warps
/// along M, then registers along N and then M), so warpgroup g holds rows
/// 64g + 16 * numWarps * mi of row repeat mi, each a run of wgmma
/// accumulators. Per repeat and per instruction-wide column block, one
/// instruction per k16 step, all in one batch.
struct SharedDotLowering : OpConversionPattern<tile::SharedDotOp> {
  SharedDotLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}

  /// The operand's first element at (row, col) of `buffer`, at `base`.
  TargetHooks::SharedMatrixOperand getOperand(OpBuilder &b, Location loc,
                                              Value base,
                                              tile::SharedBufferType buffer,
                                              Value row, int64_t col,
                                              bool kContiguous) const {
    auto layout = cast<tile::NVMMASharedLayoutAttr>(buffer.getLayout());
    Value index = emitSharedLinearIndex(
        b, loc, buffer,
        {row, LLVM::ConstantOp::create(b, loc, b.getI32Type(), col)});
    int64_t swizzle = layout.getSwizzleBytes();
    return {LLVM::GEPOp::create(b, loc, base.getType(), buffer.getElementType(),
                                base, ValueRange{index}),
            /*rowGroupBytes=*/8 * swizzle,
            /*blockBytes=*/buffer.getShape()[0] * swizzle, unsigned(swizzle),
            kContiguous};
  }

  LogicalResult
  matchAndRewrite(tile::SharedDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto layout = dyn_cast_or_null<tile::MmaLayoutAttr>(
        op.getAcc().getType().getEncoding());
    if (!layout || layout.getInstr() != tile::MatrixInstr::WgmmaM64K16)
      return rewriter.notifyMatchFailure(op, "accumulator not in wgmma layout");
    tile::SharedBufferType aType = op.getA().getType(),
                           bType = op.getB().getType();
    int64_t m = aType.getShape()[0], k = aType.getShape()[1],
            n = bType.getShape()[1];
    int64_t warps = layout.getWarpsPerCTA()[0];
    if (m % (16 * warps))
      return rewriter.notifyMatchFailure(op, "warpgroups do not divide M");
    // The widest instruction (N <= 256) made of whole column blocks of b.
    int64_t block =
        cast<tile::NVMMASharedLayoutAttr>(bType.getLayout()).getBlockColumns();
    int64_t width = block;
    while (n % (2 * width) == 0 && 2 * width <= 256)
      width *= 2;
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32, v);
    };
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    Value groupRow = LLVM::MulOp::create(
        rewriter, loc,
        LLVM::UDivOp::create(rewriter, loc, thread.warp, constant(4)),
        constant(64));
    SmallVector<Value> acc = unpackRegisters(rewriter, loc, adaptor.getAcc());
    int64_t perRepeat = n / 2; // a warp's registers per 16 rows
    TargetHooks &hooks = *state.hooks;
    hooks.beginSharedMatrixMultiplies(rewriter, loc);
    for (int64_t mi = 0, repeats = m / (16 * warps); mi < repeats; ++mi) {
      Value row = LLVM::AddOp::create(rewriter, loc, groupRow,
                                      constant(16 * warps * mi));
      for (int64_t n0 = 0; n0 < n; n0 += width) {
        auto first = acc.begin() + perRepeat * mi + n0 / 2;
        SmallVector<Value> d(first, first + width / 2);
        for (int64_t k0 = 0; k0 < k; k0 += 16) {
          TargetHooks::SharedMatrixOperand a =
              getOperand(rewriter, loc, adaptor.getA(), aType, row, k0,
                         /*kContiguous=*/true);
          TargetHooks::SharedMatrixOperand b =
              getOperand(rewriter, loc, adaptor.getB(), bType, constant(k0), n0,
                         /*kContiguous=*/false);
          d = hooks.sharedMatrixMultiply(rewriter, loc, a, b, d, width,
                                         aType.getElementType());
        }
        llvm::copy(d, first);
      }
    }
    hooks.commitSharedMatrixMultiplies(rewriter, loc);
    // An asynchronous product stays in flight until a tile.dot_wait.
    if (!op.getIsAsync())
      acc = hooks.waitSharedMatrixMultiplies(rewriter, loc, acc, 0);
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op, packRegisters(rewriter, loc, structType, acc));
    return success();
  }
  GPULoweringState &state;
};

/// A wait for asynchronous products: the target's wait where products run
/// asynchronously (shared-memory matrix instructions), else the accumulator.
struct DotWaitLowering : OpConversionPattern<tile::DotWaitOp> {
  DotWaitLowering(const TypeConverter &converter, MLIRContext *ctx,
                  GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!llvm::is_contained(state.hooks->getMatrixInstrs(),
                            tile::MatrixInstr::WgmmaM64K16)) {
      rewriter.replaceOp(op, adaptor.getAcc());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<Value> acc = state.hooks->waitSharedMatrixMultiplies(
        rewriter, loc, unpackRegisters(rewriter, loc, adaptor.getAcc()),
        op.getPending());
    rewriter.replaceOp(
        op, packRegisters(rewriter, loc,
                          getTypeConverter()->convertType(op.getType()), acc));
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateDotToGPUPatterns(TileToGPUTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   GPULoweringState &state) {
  patterns
      .add<DotLowering, DotMatrixLowering, SharedDotLowering, DotWaitLowering>(
          converter, patterns.getContext(), state);
}
