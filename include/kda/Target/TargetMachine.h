//===- TargetMachine.h - LLVM target machines -------------------*- C++ -*-===//
#ifndef KDA_TARGET_TARGETMACHINE_H
#define KDA_TARGET_TARGETMACHINE_H

#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <optional>
#include <string>

namespace kda {
/// Looks up the LLVM back end of `triple` (already initialized) and creates
/// an optimizing (-O3) target machine for `cpu` with `features`. Returns
/// null with `error` set when this LLVM lacks the back end.
std::unique_ptr<llvm::TargetMachine> createOptimizingTargetMachine(
    const llvm::Triple &triple, llvm::StringRef cpu, llvm::StringRef features,
    const llvm::TargetOptions &options, std::optional<llvm::Reloc::Model> reloc,
    std::string &error);

/// Target options of GPU kernels: a * b + c may be fused into one fma (as
/// Triton and nvcc do by default). Without it NVPTX pins every fmul/fadd
/// with .rn and a dot product costs twice the instructions.
llvm::TargetOptions getGPUKernelTargetOptions();
} // namespace kda

#endif // KDA_TARGET_TARGETMACHINE_H
