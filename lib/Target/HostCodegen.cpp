//===- HostCodegen.cpp - LLVM dialect to host code ------------------------===//
#include "kda/Target/HostCodegen.h"
#include "kda/Target/TargetMachine.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <mutex>

using namespace kda;

namespace {
void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(std::string &error) {
  initializeNativeTarget();
  llvm::SubtargetFeatures features;
  for (auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(name, enabled);
  return createOptimizingTargetMachine(
      llvm::Triple(llvm::sys::getDefaultTargetTriple()),
      llvm::sys::getHostCPUName(), features.getString(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, error);
}
} // namespace

std::string kda::getHostCPUDescription() {
  return (llvm::sys::getDefaultTargetTriple() + "-" +
          llvm::sys::getHostCPUName())
      .str();
}

std::unique_ptr<llvm::Module> kda::translateToHostLLVMIR(mlir::ModuleOp module,
                                                         llvm::LLVMContext &ctx,
                                                         std::string &error) {
  auto tm = createHostTargetMachine(error);
  if (!tm)
    return nullptr;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, ctx, "kda_kernel");
  if (!llvmModule) {
    error = "failed to translate the LLVM dialect to LLVM IR";
    return nullptr;
  }
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(*llvmModule, mam);
  return llvmModule;
}

bool kda::emitHostCode(llvm::Module &module, bool object, std::string &out,
                       std::string &error) {
  auto tm = createHostTargetMachine(error);
  if (!tm)
    return false;
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              object ? llvm::CodeGenFileType::ObjectFile
                                     : llvm::CodeGenFileType::AssemblyFile)) {
    error = "the host target cannot emit this file type";
    return false;
  }
  pm.run(module);
  out.assign(buffer.begin(), buffer.end());
  return true;
}

bool kda::runLLD(llvm::ArrayRef<llvm::StringRef> args, std::string &error) {
  std::string lld;
  if (const char *env = std::getenv("KDA_LLD"))
    lld = env;
  else if (llvm::sys::fs::can_execute(KDA_DEFAULT_LLD))
    lld = KDA_DEFAULT_LLD;
  else if (auto found = llvm::sys::findProgramByName("ld.lld"))
    lld = *found;
  else {
    error = "cannot find ld.lld to link the shared object: install lld-22 "
            "or set KDA_LLD to its path";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> argv = {lld};
  argv.append(args.begin(), args.end());
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(lld, argv, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    error = "ld.lld failed (exit " + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  return true;
}

bool kda::linkHostSharedObject(llvm::StringRef objectPath,
                               llvm::StringRef outputPath, std::string &error) {
  llvm::SmallVector<llvm::StringRef> args = {"-shared", "--as-needed", "-o",
                                             outputPath, objectPath};
  // Kernels call libm (expf, logf, ...): record the dependency so the
  // library also loads into programs that do not link libm themselves.
  for (llvm::StringRef libm : {"/lib/x86_64-linux-gnu/libm.so.6",
                               "/usr/lib/x86_64-linux-gnu/libm.so.6",
                               "/lib64/libm.so.6", "/usr/lib64/libm.so.6"})
    if (llvm::sys::fs::exists(libm)) {
      args.push_back(libm);
      break;
    }
  return runLLD(args, error);
}
