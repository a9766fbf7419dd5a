//===- TileToGPU.cpp - the convert-tile-to-gpu pass -----------------------===//
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "Tile/TileDialect.h"
#include "kda/Analysis/AxisInfo.h"
#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace kda {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#define GEN_PASS_DEF_FINALIZEGPUKERNELS
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

TargetHooks::~TargetHooks() = default;

Value TargetHooks::log2(OpBuilder &b, Location loc, Value x) {
  return LLVM::Log2Op::create(b, loc, x.getType(), x);
}

Value TargetHooks::sinOrCos(OpBuilder &b, Location loc, Value x, bool isSin) {
  if (isSin)
    return LLVM::SinOp::create(b, loc, x.getType(), x);
  return LLVM::CosOp::create(b, loc, x.getType(), x);
}

std::unique_ptr<TargetHooks> kda::createTargetHooks(StringRef target) {
  if (target == "sm_90a" || target == "sm_90")
    return createNVVMTargetHooks();
  if (target == "gfx950")
    return createGFX950TargetHooks();
  if (target == "gfx1250")
    return createGFX1250TargetHooks();
  return nullptr;
}

namespace {

/// Whether `type` is something this pass rewrites (tiles, tile pointers).
bool isTileType(Type type) {
  return isa<RankedTensorType, tile::PointerType>(type);
}

bool hasTileTypes(Operation *op) {
  auto check = [](TypeRange types) { return llvm::any_of(types, isTileType); };
  if (check(op->getOperandTypes()) || check(op->getResultTypes()))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (check(block.getArgumentTypes()))
        return true;
  return false;
}

unsigned getNumWarps(ModuleOp module) {
  if (auto attr = module->getAttrOfType<IntegerAttr>("tile.num_warps"))
    return attr.getInt();
  return 4;
}

/// Every blocked layout must describe this target's warps and lanes.
LogicalResult verifyLayouts(ModuleOp module, const GPULoweringState &state) {
  unsigned wave = state.hooks->getWaveSize();
  WalkResult result = module.walk([&](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    for (Type type : types) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        continue;
      Attribute layout = tensor.getEncoding();
      while (auto slice = dyn_cast_or_null<tile::SliceLayoutAttr>(layout))
        layout = slice.getParent();
      auto blocked = dyn_cast_or_null<tile::BlockedLayoutAttr>(layout);
      if (!blocked) {
        op->emitOpError("tile without a distributed layout: ")
            << type << " (run tile-assign-layouts first)";
        return WalkResult::interrupt();
      }
      if (blocked.getWaveSize() != wave ||
          blocked.getNumWarps() != state.numWarps) {
        op->emitOpError("layout ")
            << blocked << " spreads over " << blocked.getWaveSize()
            << " lanes x " << blocked.getNumWarps() << " warps, but the target"
            << " runs " << wave << " lanes x " << state.numWarps << " warps";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertTileToGPUPass
    : kda::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::unique_ptr<TargetHooks> hooks = createTargetHooks(target);
    if (!hooks) {
      module.emitError("unknown GPU target '") << target << "'";
      return signalPassFailure();
    }
    GPULoweringState state;
    state.hooks = hooks.get();
    state.numWarps = getNumWarps(module);
    if (auto wave = module->getAttrOfType<IntegerAttr>("tile.wave_size"))
      if (wave.getInt() != hooks->getWaveSize()) {
        module.emitError("tiles were laid out for a wave of ")
            << wave.getInt() << " but " << target << " runs "
            << hooks->getWaveSize();
        return signalPassFailure();
      }

    if (failed(verifyLayouts(module, state)))
      return signalPassFailure();
    AxisInfoAnalysis axisInfo(module);
    state.axisInfo = &axisInfo;

    // The scratch buffer is created up front so patterns can refer to it,
    // and sized once every pattern has said what it needs.
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto scratchType = [&](int64_t bytes) {
      return LLVM::LLVMArrayType::get(b.getI8Type(),
                                      std::max<int64_t>(bytes, 1));
    };
    auto scratch = LLVM::GlobalOp::create(
        b, module.getLoc(), scratchType(1), /*isConstant=*/false,
        LLVM::Linkage::Internal, GPULoweringState::kScratchSymbol, Attribute(),
        /*alignment=*/16, hooks->getSharedAddressSpace());

    TileToGPUTypeConverter converter(ctx);
    ConversionTarget convTarget(*ctx);
    convTarget.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                               ROCDL::ROCDLDialect>();
    convTarget.addIllegalDialect<tile::TileDialect, math::MathDialect>();
    convTarget.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !hasTileTypes(op); });
    convTarget.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });

    RewritePatternSet patterns(ctx);
    populateElementwiseToGPUPatterns(converter, patterns, state);
    populateShapeOpsToGPUPatterns(converter, patterns, state);
    populateMemoryOpsToGPUPatterns(converter, patterns, state);
    populateReduceToGPUPatterns(converter, patterns, state);
    populateDotToGPUPatterns(converter, patterns, state);
    populateMathToGPUIntrinsicsPatterns(converter, patterns, state);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    if (failed(applyPartialConversion(module, convTarget, std::move(patterns))))
      return signalPassFailure();

    if (state.scratchBytes == 0) {
      scratch.erase();
      return;
    }
    if (state.scratchBytes > hooks->getMaxSharedBytes()) {
      module.emitError("kernel needs ")
          << state.scratchBytes << " bytes of shared memory; " << target
          << " allows " << hooks->getMaxSharedBytes()
          << " (use layouts that need smaller conversions)";
      return signalPassFailure();
    }
    scratch.setGlobalType(scratchType(state.scratchBytes));
  }
};

struct FinalizeGPUKernelsPass
    : kda::impl::FinalizeGPUKernelsBase<FinalizeGPUKernelsPass> {
  using FinalizeGPUKernelsBase::FinalizeGPUKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetHooks> hooks = createTargetHooks(target);
    if (!hooks) {
      module.emitError("unknown GPU target '") << target << "'";
      return signalPassFailure();
    }
    unsigned numThreads = getNumWarps(module) * hooks->getWaveSize();
    MLIRContext *ctx = module.getContext();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto hint = func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility");
        if (!hint)
          continue;
        func.removeArgAttr(i, StringAttr::get(ctx, "tile.divisibility"));
        if (isa<LLVM::LLVMPointerType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, "llvm.align",
              IntegerAttr::get(IntegerType::get(ctx, 64), hint.getInt()));
      }
      if (!func->hasAttr("tile.kernel"))
        continue;
      func->removeAttr("tile.kernel");
      hooks->markKernel(func, numThreads);
    }
    module->removeAttr("tile.num_warps");
    module->removeAttr("tile.wave_size");
  }
};

} // namespace
