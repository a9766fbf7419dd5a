//===- AMDTargetHooks.cpp - AMD specifics of the GPU lowering -------------===//
#include "AMDTargetHooks.h"
#include "kda/Conversion/PrintToLLVM.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace kda;

Value AMDTargetHooks::getThreadId(OpBuilder &b, Location loc) {
  return ROCDL::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value AMDTargetHooks::getProgramId(OpBuilder &b, Location loc, unsigned axis) {
  Type i32 = b.getI32Type();
  switch (axis) {
  case 0:
    return ROCDL::BlockIdXOp::create(b, loc, i32);
  case 1:
    return ROCDL::BlockIdYOp::create(b, loc, i32);
  default:
    return ROCDL::BlockIdZOp::create(b, loc, i32);
  }
}

void AMDTargetHooks::printf(OpBuilder &b, Location loc, StringRef format,
                            ValueRange args) {
  MLIRContext *ctx = b.getContext();
  auto constPtr = LLVM::LLVMPointerType::get(ctx, 4);
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto printf = getOrDeclareFunction(
      b, module, "printf",
      LLVM::LLVMFunctionType::get(b.getI32Type(), {constPtr},
                                  /*isVarArg=*/true));
  SmallVector<Value> operands{
      getStringAddress(b, loc, module, format, /*addressSpace=*/4)};
  operands.append(args.begin(), args.end());
  LLVM::CallOp::create(b, loc, printf, operands);
}

Value AMDTargetHooks::getNumPrograms(OpBuilder &b, Location loc,
                                     unsigned axis) {
  // The HSA dispatch packet holds the grid size in work-items (u32 at byte
  // 12 + 4 * axis) and the workgroup size (u16 at byte 4 + 2 * axis); the
  // upstream rocdl.grid.dim ops would call device-library functions instead.
  MLIRContext *ctx = b.getContext();
  auto constPtr = LLVM::LLVMPointerType::get(ctx, 4);
  Type i8 = b.getI8Type(), i16 = b.getI16Type(), i32 = b.getI32Type();
  Value packet =
      LLVM::CallIntrinsicOp::create(
          b, loc, constPtr, StringAttr::get(ctx, "llvm.amdgcn.dispatch.ptr"),
          ValueRange{})
          .getResult(0);
  auto field = [&](int32_t offset, Type type, unsigned align) -> Value {
    Value addr = LLVM::GEPOp::create(b, loc, constPtr, i8, packet,
                                     ArrayRef<LLVM::GEPArg>{offset});
    return LLVM::LoadOp::create(b, loc, type, addr, align, /*isVolatile=*/false,
                                /*isNonTemporal=*/false,
                                /*isInvariant=*/true);
  };
  Value grid = field(12 + 4 * int32_t(axis), i32, 4);
  Value wg =
      LLVM::ZExtOp::create(b, loc, i32, field(4 + 2 * int32_t(axis), i16, 2));
  return LLVM::UDivOp::create(b, loc, grid, wg);
}

Value AMDTargetHooks::shuffleXor(OpBuilder &b, Location loc, Value value,
                                 unsigned laneMask) {
  // ds_bpermute reads the lane whose byte address is given: (lane ^ mask) * 4.
  Type i32 = b.getI32Type();
  Value tid = getThreadId(b, loc);
  Value lane = LLVM::AndOp::create(
      b, loc, tid,
      LLVM::ConstantOp::create(b, loc, i32, int(getWaveSize() - 1)));
  Value other = LLVM::XOrOp::create(
      b, loc, lane, LLVM::ConstantOp::create(b, loc, i32, int(laneMask)));
  Value addr = LLVM::ShlOp::create(b, loc, other,
                                   LLVM::ConstantOp::create(b, loc, i32, 2));
  return ROCDL::DsBpermuteOp::create(b, loc, i32, addr, value);
}

StringRef AMDTargetHooks::getSyncScope(tile::MemoryScope scope) const {
  switch (scope) {
  case tile::MemoryScope::CTA:
    return "workgroup";
  case tile::MemoryScope::GPU:
    return "agent";
  case tile::MemoryScope::System:
    break;
  }
  return "";
}

void AMDTargetHooks::barrier(OpBuilder &b, Location loc) {
  // __syncthreads(): release LDS writes, meet, acquire the others' writes.
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "workgroup");
  ROCDL::SBarrierOp::create(b, loc);
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "workgroup");
}

void AMDTargetHooks::sharedMemoryBarrier(OpBuilder &b, Location loc) {
  // The wave's LDS accesses complete (lgkmcnt(0)) and the waves meet. The
  // fences only keep the compiler from moving memory accesses across: at
  // wavefront scope they wait for nothing, where workgroup-scope ones (even
  // limited to LDS) would wait for every global load in flight, LDS DMA
  // copies included (vmcnt(0)), which the waits for copies count themselves.
  fence(b, loc, LLVM::AtomicOrdering::release);
  waitLDSAccesses(b, loc);
  ROCDL::SBarrierOp::create(b, loc);
  fence(b, loc, LLVM::AtomicOrdering::acquire);
}

void AMDTargetHooks::markKernel(LLVM::LLVMFuncOp func, unsigned numThreads,
                                ArrayRef<int32_t> /*clusterShape*/) {
  MLIRContext *ctx = func.getContext();
  func->setAttr("rocdl.kernel", UnitAttr::get(ctx));
  std::string size = std::to_string(numThreads);
  func->setAttr("rocdl.flat_work_group_size",
                StringAttr::get(ctx, size + "," + size));
  func->setAttr("rocdl.reqd_work_group_size",
                DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
}

Value AMDTargetHooks::packMatrixOperand(OpBuilder &b, Location loc,
                                        ValueRange elements) {
  SmallVector<Value> elems(elements);
  return packVector(
      b, loc, VectorType::get({int64_t(elems.size())}, elems[0].getType()),
      elems);
}

void AMDTargetHooks::fence(OpBuilder &b, Location loc,
                           LLVM::AtomicOrdering ordering) {
  LLVM::FenceOp::create(b, loc, ordering, "wavefront");
}

Value AMDTargetHooks::getWaveUniform(OpBuilder &b, Location loc, Value value) {
  return ROCDL::ReadfirstlaneOp::create(b, loc, value.getType(), value);
}
