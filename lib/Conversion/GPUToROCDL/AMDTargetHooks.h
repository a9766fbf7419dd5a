//===- AMDTargetHooks.h - AMD specifics of gfx950/gfx1250 -------*- C++ -*-===//
#ifndef KDA_LIB_CONVERSION_GPUTOROCDL_AMDTARGETHOOKS_H
#define KDA_LIB_CONVERSION_GPUTOROCDL_AMDTARGETHOOKS_H

#include "kda/Conversion/TileToGPU/TargetHooks.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kda {
/// ROCDL lowering common to the AMD chips; the wave size and the LDS budget
/// come from the chip's GPUTargetInfo.
class AMDTargetHooks : public TargetHooks {
public:
  using TargetHooks::TargetHooks;

  mlir::Value getThreadId(mlir::OpBuilder &b, mlir::Location loc) override;
  mlir::Value getProgramId(mlir::OpBuilder &b, mlir::Location loc,
                           unsigned axis) override;
  mlir::Value getNumPrograms(mlir::OpBuilder &b, mlir::Location loc,
                             unsigned axis) override;
  mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value value, unsigned laneMask) override;
  void barrier(mlir::OpBuilder &b, mlir::Location loc) override;
  /// OpenCL's printf on a constant format: the AMDGPU backend stores the
  /// arguments in the printf buffer the runtime passes to the kernel
  /// (hidden_printf_buffer) and records the format in the code object.
  void printf(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef format,
              mlir::ValueRange args) override;
  void sharedMemoryBarrier(mlir::OpBuilder &b, mlir::Location loc) override;
  /// Its fences are wavefront-scope: global accesses in flight stay in
  /// flight.
  bool sharedMemoryBarrierOrdersGlobalMemory() const override { return false; }
  mlir::Value getWaveUniform(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value value) override;
  llvm::StringRef getSyncScope(tile::MemoryScope scope) const override;
  void markKernel(mlir::LLVM::LLVMFuncOp func, unsigned numThreads,
                  llvm::ArrayRef<int32_t> clusterShape) override;

protected:
  /// Waits until the wave's LDS accesses have completed, and nothing else.
  virtual void waitLDSAccesses(mlir::OpBuilder &b, mlir::Location loc) = 0;
  /// A fence at wavefront scope: orders the compiler's memory accesses
  /// around it, waits for none.
  static void fence(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::LLVM::AtomicOrdering ordering);

  /// A matrix instruction's operand (fragment elements in register order) as
  /// the vector the ROCDL MFMA and WMMA ops take.
  static mlir::Value packMatrixOperand(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::ValueRange elements);
};
} // namespace kda

#endif // KDA_LIB_CONVERSION_GPUTOROCDL_AMDTARGETHOOKS_H
