//===- NVPTX.h - LLVM-dialect GPU kernels to PTX and cubin ------*- C++ -*-===//
//
// sm_90a: LLVM dialect (with NVVM ops) -> LLVM IR -> -O3 -> PTX (LLVM
// NVPTX back end) -> cubin (ptxas). The resource report is ptxas -v's.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TARGET_NVPTX_H
#define KDA_TARGET_NVPTX_H

#include "kda/Target/GPUTarget.h"

namespace kda {

/// Translates `module` to LLVM IR for `target` (triple nvptx64-nvidia-cuda
/// and its data layout) and optimizes it at -O3. Returns null and sets
/// `error` on failure.
std::unique_ptr<llvm::Module>
translateToNVPTXLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                       const GPUTargetInfo &target, std::string &error);

/// Runs the NVPTX code generator and returns PTX text in `ptx`.
bool emitPTX(llvm::Module &module, const GPUTargetInfo &target,
             std::string &ptx, std::string &error);

/// ptxas: $KDA_PTXAS, /usr/local/cuda/bin/ptxas, or ptxas on PATH. Sets
/// `error` and returns an empty string when there is none.
std::string findPtxas(std::string &error);

/// Assembles PTX into a cubin at `cubinPath` with `ptxas -arch=<chip> -v`
/// and fills `report` from ptxas's -v output.
bool assemblePTX(llvm::StringRef ptx, const GPUTargetInfo &target,
                 llvm::StringRef cubinPath, ResourceReport &report,
                 std::string &error);

/// Reads the per-kernel lines of `ptxas -v` output into `report`.
void parsePtxasVerboseOutput(llvm::StringRef output, ResourceReport &report);

} // namespace kda

#endif // KDA_TARGET_NVPTX_H
