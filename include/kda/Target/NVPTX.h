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

/// Reads the per-kernel lines of `ptxas -v` output into `report` (the
/// occupancy that the registers alone allow).
void parsePtxasVerboseOutput(llvm::StringRef output, ResourceReport &report);

/// Warps an sm_90 multiprocessor keeps resident of a kernel whose blocks
/// have `warpsPerBlock` warps, `registers` registers per thread and
/// `sharedBytes` of shared memory (static and dynamic), in whole blocks, and
/// the resource that bounds them ("register limit", "shared-memory limit",
/// "warp limit" or "block limit").
struct NVIDIAOccupancy {
  int64_t warps;
  llvm::StringRef limit;
};
NVIDIAOccupancy getNVIDIAOccupancy(int64_t registers, int64_t warpsPerBlock,
                                   int64_t sharedBytes);

/// Sets each kernel's occupancy in `report` (registers and shared memory
/// filled in) for blocks of `warpsPerBlock` warps.
void setNVIDIAOccupancy(ResourceReport &report, int64_t warpsPerBlock);

} // namespace kda

#endif // KDA_TARGET_NVPTX_H
