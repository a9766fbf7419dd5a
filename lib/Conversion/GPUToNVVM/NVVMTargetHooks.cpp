//===- NVVMTargetHooks.cpp - NVIDIA specifics of the GPU lowering ---------===//
#include "kda/Conversion/TileToGPU/TargetHooks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace {
class NVVMTargetHooks : public kda::TargetHooks {
public:
  using TargetHooks::TargetHooks;

  Value getThreadId(OpBuilder &b, Location loc) override {
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value getProgramId(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, i32);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, i32);
    default:
      return NVVM::BlockIdZOp::create(b, loc, i32);
    }
  }
  Value getNumPrograms(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, i32);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, i32);
    default:
      return NVVM::GridDimZOp::create(b, loc, i32);
    }
  }
  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   unsigned laneMask) override {
    Type i32 = b.getI32Type();
    Value all = LLVM::ConstantOp::create(b, loc, i32, -1);
    Value offset = LLVM::ConstantOp::create(b, loc, i32, int(laneMask));
    Value clamp = LLVM::ConstantOp::create(b, loc, i32, 31);
    return NVVM::ShflOp::create(
        b, loc, value.getType(), all, value, offset, clamp,
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  }
  Value log2(OpBuilder &b, Location loc, Value x) override {
    if (!x.getType().isF32())
      return TargetHooks::log2(b, loc, x);
    return LLVM::CallIntrinsicOp::create(
               b, loc, x.getType(),
               StringAttr::get(b.getContext(), "llvm.nvvm.lg2.approx.f"),
               ValueRange{x})
        .getResult(0);
  }
  Value sinOrCos(OpBuilder &b, Location loc, Value x, bool isSin) override {
    if (!x.getType().isF32())
      return TargetHooks::sinOrCos(b, loc, x, isSin);
    StringRef name =
        isSin ? "llvm.nvvm.sin.approx.f" : "llvm.nvvm.cos.approx.f";
    return LLVM::CallIntrinsicOp::create(b, loc, x.getType(),
                                         StringAttr::get(b.getContext(), name),
                                         ValueRange{x})
        .getResult(0);
  }
  void barrier(OpBuilder &b, Location loc) override {
    NVVM::Barrier0Op::create(b, loc);
  }
  bool hasAsyncCopies() const override { return true; }
  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value srcBytes) override {
    // .cg (L2 only) exists for 16-byte copies; smaller ones use .ca.
    auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                : NVVM::LoadCacheModifierKind::CA;
    NVVM::CpAsyncOp::create(
        b, loc, dst, src, b.getI32IntegerAttr(bytes),
        NVVM::LoadCacheModifierKindAttr::get(b.getContext(), modifier),
        srcBytes);
  }
  void commitAsyncCopies(OpBuilder &b, Location loc) override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void waitAsyncCopies(OpBuilder &b, Location loc, unsigned pending) override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }
  StringRef getSyncScope(kda::tile::MemoryScope scope) const override {
    switch (scope) {
    case kda::tile::MemoryScope::CTA:
      return "block";
    case kda::tile::MemoryScope::GPU:
      return "device";
    case kda::tile::MemoryScope::System:
      break;
    }
    return "";
  }
  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads) override {
    MLIRContext *ctx = func.getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid",
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
  }
};
} // namespace

std::unique_ptr<kda::TargetHooks>
kda::createNVVMTargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<NVVMTargetHooks>(info);
}
