//===- ClusterToGPU.cpp - sums over thread-block clusters -----------------===//
//
// A kernel with tile.cluster_sum is launched in clusters (the kernel's
// cluster shape attribute). Each cluster sum gets an exchange buffer in
// shared memory (a barrier and one slot per program of the cluster), which
// the kernel's entry prepares for every sum at once; the target exchanges the
// values through the cluster's shared memory (TargetHooks::clusterSum). The
// wait for the other programs' buffers goes as late as every path still
// meets it once: before the op of the entry block holding the first sum, so
// the loads ahead of it are issued meanwhile.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace kda;

namespace {

struct ClusterSumLowering : OpConversionPattern<tile::ClusterSumOp> {
  ClusterSumLowering(const TypeConverter &converter, MLIRContext *ctx,
                     GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::ClusterSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned size = op.getSize();
    if (size == 1) { // a cluster of one program: its own value
      rewriter.replaceOp(op, adaptor.getValue());
      return success();
    }
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    std::string name =
        createSharedBuffer(rewriter, loc, module, state, 8 + 4 * int64_t(size));
    auto kernel = op->getParentOfType<FunctionOpInterface>();
    state.clusterExchanges[kernel.getOperation()].push_back(name);
    Value buffer = LLVM::AddressOfOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(getContext(),
                                   state.hooks->getSharedAddressSpace()),
        name);
    rewriter.replaceOp(op, state.hooks->clusterSum(
                               rewriter, loc, adaptor.getValue(), buffer, size,
                               emitIsFirstThread(rewriter, loc, state)));
    return success();
  }
  GPULoweringState &state;
};

} // namespace

LogicalResult kda::prepareClusters(ModuleOp module, GPULoweringState &state) {
  for (auto func : module.getOps<FunctionOpInterface>()) {
    FailureOr<std::array<int32_t, 3>> shape = tile::getClusterShape(func);
    if (failed(shape))
      return failure();
    if (*shape == std::array<int32_t, 3>{1, 1, 1})
      continue;
    if (!state.hooks->hasClusters()) {
      tile::ClusterSumOp first;
      func.walk([&](tile::ClusterSumOp op) {
        if (!first)
          first = op;
      });
      return first.emitOpError("needs thread-block clusters, which ")
             << state.hooks->getInfo().name << " does not have";
    }
    module->setAttr(tile::kClusterShapeAttrName,
                    DenseI32ArrayAttr::get(module.getContext(), *shape));
    // NVVM ops are legal during the conversion: the wait stays where it is.
    for (Operation &op : func.getFunctionBody().front()) {
      bool holdsSum =
          isa<tile::ClusterSumOp>(op) || op.walk([](tile::ClusterSumOp) {
                                             return WalkResult::interrupt();
                                           }).wasInterrupted();
      if (!holdsSum)
        continue;
      OpBuilder b(&op);
      state.hooks->waitForClusterExchanges(b, op.getLoc());
      break;
    }
  }
  return success();
}

void kda::emitClusterEntries(ModuleOp module, GPULoweringState &state) {
  auto ptrType = LLVM::LLVMPointerType::get(
      module.getContext(), state.hooks->getSharedAddressSpace());
  for (auto &[kernel, symbols] : state.clusterExchanges) {
    Region &body = kernel->getRegion(0);
    OpBuilder b = OpBuilder::atBlockBegin(&body.front());
    Location loc = kernel->getLoc();
    SmallVector<Value> buffers;
    for (const std::string &symbol : symbols)
      buffers.push_back(LLVM::AddressOfOp::create(b, loc, ptrType, symbol));
    state.hooks->initClusterExchanges(b, loc, buffers,
                                      emitIsFirstThread(b, loc, state));
  }
}

void kda::populateClusterToGPUPatterns(TileToGPUTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       GPULoweringState &state) {
  patterns.add<ClusterSumLowering>(converter, patterns.getContext(), state);
}
