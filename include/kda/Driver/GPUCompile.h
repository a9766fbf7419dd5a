//===- GPUCompile.h - the GPU half of compileKernel -------------*- C++ -*-===//
//
// From the module at the GPU stage (LLVM-dialect kernels with ROCDL/NVVM
// ops) to LLVM IR, AMDGPU assembly, HSACO, PTX or cubin, with the back
// end's resource report.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_DRIVER_GPUCOMPILE_H
#define KDA_DRIVER_GPUCOMPILE_H

#include "kda/Driver/Compiler.h"
#include "kda/Target/GPUTarget.h"

namespace mlir {
class ModuleOp;
}

namespace kda {

/// Empty if `target` (cpu or a GPU target name) can produce `emit`;
/// otherwise the error message saying which emits it can produce.
std::string checkEmitForTarget(EmitKind emit, llvm::StringRef target);

/// Compiles `module` (tile IR after kda-tile-simplify, or a module already at
/// the GPU stage) for `target`. Appends its stage timings to `result`.
void compileForGPU(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                   const GPUTargetInfo &target, const CompileOptions &options,
                   CompileResult &result);

} // namespace kda

#endif // KDA_DRIVER_GPUCOMPILE_H
