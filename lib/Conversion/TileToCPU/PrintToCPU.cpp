//===- PrintToCPU.cpp - tile.print as printf calls on the host ------------===//
//
// A program runs as one host thread, so a print visits its tiles element by
// element in row-major order and calls the C library's printf once per
// element; each call writes its line whole, so lines of programs running on
// other threads interleave but never mix.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/PrintToLLVM.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kda;

void kda::lowerPrintsForHost(func::FuncOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  SmallVector<tile::PrintOp> prints;
  kernel.walk([&](tile::PrintOp op) { prints.push_back(op); });
  for (tile::PrintOp op : prints) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    LLVM::LLVMFuncOp printf = getOrDeclareFunction(
        b, module, "printf",
        LLVM::LLVMFunctionType::get(
            b.getI32Type(), {LLVM::LLVMPointerType::get(b.getContext())},
            /*isVarArg=*/true));
    SmallVector<Value> pids;
    for (int32_t axis = 0; axis < 3; ++axis)
      pids.push_back(tile::ProgramIdOp::create(b, loc, axis));
    bool several = op.getArgs().size() > 1;
    for (auto indexed : llvm::enumerate(op.getArgs())) {
      // Named values, not structured bindings: the lambdas below capture them.
      unsigned k = indexed.index();
      Value arg = indexed.value();
      auto tensor = dyn_cast<RankedTensorType>(arg.getType());
      Type elementType = getElementTypeOrSelf(arg.getType());
      std::string format =
          getPrintFormat(op.getPrefix(), tensor ? tensor.getRank() : 0,
                         several ? std::optional<unsigned>(k) : std::nullopt,
                         elementType, op.getHex());
      auto emitLine = [&](OpBuilder &lb, Location l, Value element,
                          ValueRange idx) {
        SmallVector<Value> args{
            getStringAddress(lb, l, module, format, /*addressSpace=*/0)};
        args.append(pids.begin(), pids.end());
        for (Value i : idx)
          args.push_back(arith::IndexCastOp::create(lb, l, lb.getI32Type(), i));
        args.push_back(getPrintArgument(lb, l, element, op.getHex()));
        LLVM::CallOp::create(lb, l, printf, args);
      };
      if (!tensor) {
        emitLine(b, loc, arg, {});
        continue;
      }
      SmallVector<Value> lbs, ubs, steps;
      for (int64_t dim : tensor.getShape()) {
        lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
        ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
        steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
      }
      scf::buildLoopNest(b, loc, lbs, ubs, steps,
                         [&](OpBuilder &lb, Location l, ValueRange ivs) {
                           Value element =
                               tensor::ExtractOp::create(lb, l, arg, ivs);
                           emitLine(lb, l, element, ivs);
                         });
    }
    op.erase();
  }
}
