//===- HostCodegen.h - LLVM dialect to host code ----------------*- C++ -*-===//
#ifndef KDA_TARGET_HOSTCODEGEN_H
#define KDA_TARGET_HOSTCODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <string>

namespace kda {
/// The CPU host code is generated for: the host's own, or a named CPU
/// (`x86-64-v2`, `znver4`, ...) with features added or removed.
struct HostCPUTarget {
  std::string triple;
  std::string cpu;
  /// LLVM feature string, "+avx2,-avx512f,...".
  std::string features;
};

/// `cpu` empty or "host": this machine's CPU and features, then `features`
/// ("+f,-g", comma-separated) on top; otherwise the named CPU's own features
/// and `features`. Unknown CPU or feature names are errors.
std::optional<HostCPUTarget> resolveHostCPUTarget(llvm::StringRef cpu,
                                                  llvm::StringRef features,
                                                  std::string &error);

/// The instruction-set features the code for `target` may use that CPUs can
/// lack (those the host detection reports), comma-separated and sorted: what
/// a shared object records for its loader (getMissingHostCPUFeatures).
std::string getRequiredCPUFeatures(const HostCPUTarget &target);

/// The features of a getRequiredCPUFeatures list this machine lacks,
/// comma-separated; empty when code with that list runs here.
std::string getMissingHostCPUFeatures(llvm::StringRef required);

/// Symbol of the NUL-terminated getRequiredCPUFeatures list that a host
/// shared object of `kernel` exports: `<kernel>__kda_cpu_features`.
std::string getCPUFeaturesSymbol(llvm::StringRef kernel);

/// Adds the exported getCPUFeaturesSymbol(kernel) string holding
/// `features` (a getRequiredCPUFeatures list) to `module`.
void addCPUFeaturesSymbol(llvm::Module &module, llvm::StringRef kernel,
                          llvm::StringRef features);

/// Translates an LLVM-dialect module to LLVM IR for `target` and optimizes
/// it at -O2. Returns null and sets `error` on failure.
std::unique_ptr<llvm::Module> translateToHostLLVMIR(mlir::ModuleOp module,
                                                    llvm::LLVMContext &ctx,
                                                    const HostCPUTarget &target,
                                                    std::string &error);

/// Writes host assembly (`object` false) or an ELF object (`object` true).
bool emitHostCode(llvm::Module &module, const HostCPUTarget &target,
                  bool object, std::string &out, std::string &error);

/// Links an object file into a shared library with ld.lld ($KDA_LLD, the
/// configured default, or ld.lld on PATH), against libm and libc only: a
/// symbol they do not define is a link error, not a failure at load time.
bool linkHostSharedObject(llvm::StringRef objectPath,
                          llvm::StringRef outputPath, std::string &error);

/// Runs ld.lld ($KDA_LLD, the configured default, or ld.lld on PATH) with
/// `args` (not including argv[0]); also links GPU code objects.
bool runLLD(llvm::ArrayRef<llvm::StringRef> args, std::string &error);

/// This machine's triple and CPU name, "x86_64-pc-linux-gnu-znver4".
std::string getHostCPUDescription();
} // namespace kda

#endif // KDA_TARGET_HOSTCODEGEN_H
