//===- AMDGPU.h - LLVM-dialect GPU kernels to AMD code objects --*- C++ -*-===//
//
// gfx950 / gfx1250: LLVM dialect (with ROCDL ops) -> LLVM IR -> -O3 ->
// AMDGPU assembly or ELF object -> HSACO (ld.lld -shared). The resource
// report comes from the AMDGPU back end's kernel-resource-usage remarks.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TARGET_AMDGPU_H
#define KDA_TARGET_AMDGPU_H

#include "kda/Target/GPUTarget.h"

namespace kda {

/// Code object versions the AMDGPU back end can write; 0 means LLVM's
/// default (6 in LLVM 22).
bool isValidAMDCodeObjectVersion(unsigned version);

/// The LDS one workgroup of `chip` may address, as the AMDGPU back end
/// knows it (its addressablelocalmemorysize<N> subtarget feature).
unsigned getAMDGPUAddressableLDSBytes(llvm::StringRef chip);

/// The 32-bit vector registers one lane of `chip` may address, as the
/// AMDGPU back end knows it: 1024 with 1024-addressable-vgprs (gfx1250),
/// 512 where VGPRs and AGPRs share one file (gfx90a-insts: gfx90a, gfx950),
/// else 256.
unsigned getAMDGPUAddressableVGPRs(llvm::StringRef chip);

/// Translates `module` to LLVM IR for `target` (triple amdgcn-amd-amdhsa,
/// the TargetMachine's data layout, module flag
/// "amdhsa_code_object_version" when `codeObjectVersion` is not 0) and
/// optimizes it at -O3. Returns null and sets `error` on failure.
std::unique_ptr<llvm::Module>
translateToAMDGPULLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                        const GPUTargetInfo &target, unsigned codeObjectVersion,
                        std::string &error);

/// Runs the AMDGPU code generator: assembly (`object` false) or a
/// relocatable ELF object. Fills `report` with one entry per kernel.
bool emitAMDGPUCode(llvm::Module &module, const GPUTargetInfo &target,
                    bool object, std::string &out, ResourceReport &report,
                    std::string &error);

/// Links a relocatable AMDGPU object into a loadable code object (HSACO).
bool linkHSACO(llvm::StringRef objectPath, llvm::StringRef hsacoPath,
               std::string &error);

} // namespace kda

#endif // KDA_TARGET_AMDGPU_H
