//===- TileToCPU.cpp - the convert-tile-to-cpu pass -----------------------===//
#include "kda/Conversion/TileToCPU/TileToCPU.h"
#include "Tile/TileDialect.h"
#include "kda/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kda {
#define GEN_PASS_DEF_CONVERTTILETOCPU
#include "kda/Conversion/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

void kda::populateTileToCPUTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([](tile::PointerType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  converter.addConversion([](tile::SharedBufferType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  converter.addConversion([](RankedTensorType type) -> Type {
    if (!isa<tile::PointerType>(type.getElementType()))
      return type;
    return type.clone(IntegerType::get(type.getContext(), 64));
  });
}

namespace {

constexpr unsigned kNumGridArgs = 6; // pid x/y/z, num x/y/z

/// Selects between pointers: the same select on addresses.
struct SelectTypeConversion : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, adaptor.getCondition(),
                                                 adaptor.getTrueValue(),
                                                 adaptor.getFalseValue());
    return success();
  }
};

/// Layouts say which GPU thread holds what; the host runs a program as one
/// thread, so they carry no meaning here: drop them from every tile type and
/// fold layout conversions away.
void stripLayouts(ModuleOp module) {
  auto strip = [](Type type) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getEncoding())
      return type;
    return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
  };
  module.walk([&](Operation *op) {
    if (auto cvt = dyn_cast<tile::ConvertLayoutOp>(op)) {
      cvt.replaceAllUsesWith(cvt.getSrc());
      cvt.erase();
      return;
    }
    for (Value result : op->getResults())
      result.setType(strip(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(strip(arg.getType()));
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        if (dense.getType() != constant.getType())
          constant.setValueAttr(
              dense.reshape(cast<ShapedType>(constant.getType())));
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> inputs, results;
      for (Type t : func.getArgumentTypes())
        inputs.push_back(strip(t));
      for (Type t : func.getResultTypes())
        results.push_back(strip(t));
      func.setType(FunctionType::get(op->getContext(), inputs, results));
    }
  });
}

/// Kernel arguments are passed by value through an argument array: only
/// scalars and pointers can be.
LogicalResult verifyKernelSignature(func::FuncOp kernel) {
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
    if (!type.isIntOrFloat() && !isa<tile::PointerType>(type))
      return kernel.emitOpError("kernel argument #")
             << i << " has type " << type
             << "; kernels take scalars and pointers only";
  if (kernel.getNumResults() != 0)
    return kernel.emitOpError("kernels return nothing");
  return success();
}

/// Appends the grid arguments to a kernel and replaces program ids with them.
void materializeGridArguments(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  unsigned first = kernel.getNumArguments();
  Type i32 = IntegerType::get(ctx, 32);
  SmallVector<unsigned> positions(kNumGridArgs, first);
  SmallVector<Type> types(kNumGridArgs, i32);
  SmallVector<DictionaryAttr> attrs(kNumGridArgs, DictionaryAttr::get(ctx));
  SmallVector<Location> locs(kNumGridArgs, kernel.getLoc());
  (void)kernel.insertArguments(positions, types, attrs, locs);
  kernel.walk([&](Operation *op) {
    if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
      pid.replaceAllUsesWith(kernel.getArgument(first + pid.getAxis()));
      pid.erase();
    } else if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
      num.replaceAllUsesWith(kernel.getArgument(first + 3 + num.getAxis()));
      num.erase();
    }
  });
  // Specialization hints mean nothing to the host backend.
  for (unsigned i = 0; i < first; ++i)
    kernel.removeArgAttr(i, StringAttr::get(ctx, "tile.divisibility"));
}

/// Exports `<kernel>__kda_cluster_shape` (i32 x, y, z) beside the entry
/// point, so whoever loads the compiled kernel learns that it must be
/// launched in clusters (launchCPUKernelInClusters) and of which shape.
void exportClusterShape(func::FuncOp kernel, ArrayRef<int32_t> shape) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(ctx);
  b.setInsertionPoint(kernel);
  auto type = LLVM::LLVMArrayType::get(b.getI32Type(), 3);
  LLVM::GlobalOp::create(b, kernel.getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External,
                         kernel.getName().str() + "__kda_cluster_shape",
                         b.getI32TensorAttr(shape));
}

/// Exports `<kernel><suffix>` (i32 1) beside the entry point: a property of
/// the compiled kernel its loader must know (`__kda_bounds_checked`: the
/// entry reads a bounds table after the runtime arguments).
void exportFlag(func::FuncOp kernel, StringRef suffix) {
  OpBuilder b(kernel.getContext());
  b.setInsertionPoint(kernel);
  LLVM::GlobalOp::create(b, kernel.getLoc(), b.getI32Type(),
                         /*isConstant=*/true, LLVM::Linkage::External,
                         (kernel.getName() + suffix).str(),
                         b.getI32IntegerAttr(1));
}

/// A cluster sum on the host calls the launcher's exchange (CPULauncher.h),
/// `float exchange(float value, i32 sum)`, which meets the cluster's other
/// programs, running on threads of their own; `sum` numbers the kernel's
/// sums, so programs meeting at different ones are caught. The kernel
/// receives the exchange's address as a last, hidden argument, read from the
/// argument array after the runtime arguments. Returns whether the kernel
/// takes it (it has a sum over several programs).
bool lowerClusterSums(func::FuncOp kernel) {
  SmallVector<tile::ClusterSumOp> sums;
  kernel.walk([&](tile::ClusterSumOp op) { sums.push_back(op); });
  Value exchange;
  unsigned numExchanges = 0;
  for (tile::ClusterSumOp op : sums) {
    if (op.getSize() == 1) { // a cluster of one program: its own value
      op.replaceAllUsesWith(op.getValue());
      op.erase();
      continue;
    }
    MLIRContext *ctx = kernel.getContext();
    if (!exchange) {
      unsigned last = kernel.getNumArguments();
      (void)kernel.insertArgument(last, LLVM::LLVMPointerType::get(ctx),
                                  DictionaryAttr::get(ctx), kernel.getLoc());
      exchange = kernel.getArgument(last);
    }
    OpBuilder b(op);
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    Value index =
        LLVM::ConstantOp::create(b, op.getLoc(), i32, int32_t(numExchanges++));
    auto call = LLVM::CallOp::create(
        b, op.getLoc(), LLVM::LLVMFunctionType::get(f32, {f32, i32}),
        ValueRange{exchange, op.getValue(), index});
    op.replaceAllUsesWith(call.getResult());
    op.erase();
  }
  return bool(exchange);
}

/// Emits `<kernel>__kda_cpu(ptr args, i32 pid_x, ..., i32 num_z)` which reads
/// the i-th runtime argument from *args[i], then after the n runtime
/// arguments the bounds table (`hasTable`) and the cluster exchange
/// (`hasExchange`), and calls the kernel.
void buildEntryPoint(OpBuilder &b, func::FuncOp kernel,
                     ArrayRef<Type> runtimeTypes, bool hasTable,
                     bool hasExchange) {
  MLIRContext *ctx = b.getContext();
  Location loc = kernel.getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i32 = b.getI32Type();
  SmallVector<Type> entryArgs{ptrTy};
  entryArgs.append(kNumGridArgs, i32);
  auto entry =
      func::FuncOp::create(b, loc, kernel.getName().str() + "__kda_cpu",
                           b.getFunctionType(entryArgs, {}));
  Block *body = entry.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> callArgs;
  for (auto [i, type] : llvm::enumerate(runtimeTypes)) {
    Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, body->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value valuePtr = LLVM::LoadOp::create(b, loc, ptrTy, slot);
    if (isa<tile::PointerType>(type)) {
      Value p = LLVM::LoadOp::create(b, loc, ptrTy, valuePtr);
      callArgs.push_back(LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), p));
    } else if (type.isInteger(1)) {
      Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), valuePtr);
      Value zero = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
      callArgs.push_back(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, byte, zero));
    } else {
      callArgs.push_back(LLVM::LoadOp::create(b, loc, type, valuePtr));
    }
  }
  for (unsigned i = 0; i < kNumGridArgs; ++i)
    callArgs.push_back(body->getArgument(1 + i));
  int32_t slotIndex = runtimeTypes.size();
  auto nextHiddenSlot = [&]() -> Value { // what args[slotIndex++] holds
    Value slot = LLVM::GEPOp::create(b, loc, ptrTy, ptrTy, body->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{slotIndex++});
    return LLVM::LoadOp::create(b, loc, ptrTy, slot);
  };
  // The table's slot holds its address; the exchange's, a pointer to it.
  if (hasTable)
    callArgs.push_back(nextHiddenSlot());
  if (hasExchange)
    callArgs.push_back(LLVM::LoadOp::create(b, loc, ptrTy, nextHiddenSlot()));
  func::CallOp::create(b, loc, kernel, callArgs);
  func::ReturnOp::create(b, loc);
}

struct ConvertTileToCPUPass
    : kda::impl::ConvertTileToCPUBase<ConvertTileToCPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    stripLayouts(module);

    struct Kernel {
      func::FuncOp func;
      SmallVector<Type> runtimeTypes;
      bool hasExchange;
    };
    SmallVector<Kernel> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr("tile.kernel")) {
        WalkResult grid = func.walk([](Operation *op) {
          if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op)) {
            op->emitOpError("needs a grid: use it in a 'tile.kernel' function");
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
        if (grid.wasInterrupted())
          return signalPassFailure();
        continue;
      }
      if (failed(verifyKernelSignature(func)))
        return signalPassFailure();
      FailureOr<std::array<int32_t, 3>> clusterShape =
          tile::getClusterShape(func);
      if (failed(clusterShape))
        return signalPassFailure();
      if (*clusterShape != std::array<int32_t, 3>{1, 1, 1}) {
        module->setAttr(tile::kClusterShapeAttrName,
                        DenseI32ArrayAttr::get(ctx, *clusterShape));
        exportClusterShape(func, *clusterShape);
      }
      SmallVector<Type> runtimeTypes(func.getArgumentTypes());
      lowerPrintsForHost(func);
      if (checkBounds)
        prepareBoundsChecks(func);
      materializeGridArguments(func);
      if (checkBounds) {
        addBoundsTableArgument(func);
        exportFlag(func, "__kda_bounds_checked");
      }
      kernels.push_back({func, runtimeTypes, lowerClusterSums(func)});
    }

    TypeConverter converter;
    populateTileToCPUTypeConversions(converter);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<tile::TileDialect>();
    // Ops this pass creates always have host types; ops of other dialects
    // (arith.select, scf.for carrying pointers, ...) are legal once their
    // types are.
    target.addLegalDialect<linalg::LinalgDialect, LLVM::LLVMDialect,
                           tensor::TensorDialect>();
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });

    RewritePatternSet patterns(ctx);
    populateTileShapeToTensorPatterns(converter, patterns);
    populateTileMemoryToCPUPatterns(converter, patterns);
    populateTileReduceDotToLinalgPatterns(converter, patterns);
    patterns.add<SelectTypeConversion>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    OpBuilder b(ctx);
    for (auto &[kernel, runtimeTypes, hasExchange] : kernels) {
      b.setInsertionPointAfter(kernel);
      buildEntryPoint(b, kernel, runtimeTypes, checkBounds, hasExchange);
      // Only the entry point is exported: the kernel's own calling
      // convention is an implementation detail.
      kernel.setPrivate();
      kernel->setAttr("llvm.linkage",
                      LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
      kernel->removeAttr("tile.kernel");
      kernel->removeAttr("tile.bounds_table");
    }
  }
};

} // namespace
