//===- TargetMachine.cpp - LLVM target machines for every back end --------===//
#include "kda/Target/TargetMachine.h"

#include "llvm/MC/TargetRegistry.h"

std::unique_ptr<llvm::TargetMachine> kda::createOptimizingTargetMachine(
    const llvm::Triple &triple, llvm::StringRef cpu, llvm::StringRef features,
    const llvm::TargetOptions &options, std::optional<llvm::Reloc::Model> reloc,
    std::string &error) {
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "error: this LLVM has no " + triple.getArchName().str() +
            " back end: " + lookupError;
    return nullptr;
  }
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, options, reloc, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
}

llvm::TargetOptions kda::getGPUKernelTargetOptions() {
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return options;
}
