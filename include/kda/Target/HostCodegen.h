//===- HostCodegen.h - LLVM dialect to host code ----------------*- C++ -*-===//
#ifndef KDA_TARGET_HOSTCODEGEN_H
#define KDA_TARGET_HOSTCODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace kda {
/// Translates an LLVM-dialect module to LLVM IR for the host and optimizes
/// it at -O2 for the host CPU. Returns null and sets `error` on failure.
std::unique_ptr<llvm::Module> translateToHostLLVMIR(mlir::ModuleOp module,
                                                    llvm::LLVMContext &ctx,
                                                    std::string &error);

/// Writes host assembly (`object` false) or an ELF object (`object` true).
bool emitHostCode(llvm::Module &module, bool object, std::string &out,
                  std::string &error);

/// Links an object file into a shared library with ld.lld ($KDA_LLD, the
/// configured default, or ld.lld on PATH).
bool linkHostSharedObject(llvm::StringRef objectPath,
                          llvm::StringRef outputPath, std::string &error);

/// Runs ld.lld ($KDA_LLD, the configured default, or ld.lld on PATH) with
/// `args` (not including argv[0]); also links GPU code objects.
bool runLLD(llvm::ArrayRef<llvm::StringRef> args, std::string &error);

/// The host CPU name the code is tuned for (part of cache keys).
std::string getHostCPUDescription();
} // namespace kda

#endif // KDA_TARGET_HOSTCODEGEN_H
