//===- HostCodegen.cpp - LLVM dialect to host code ------------------------===//
#include "kda/Target/HostCodegen.h"
#include "kda/Target/TargetMachine.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
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

const llvm::Target *lookupHostTarget(const llvm::Triple &triple,
                                     std::string &error) {
  initializeNativeTarget();
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    error = "error: this LLVM has no " + triple.getArchName().str() +
            " back end: " + lookupError;
  return target;
}

std::unique_ptr<llvm::MCSubtargetInfo>
createSubtargetInfo(const HostCPUTarget &cpu, std::string &error) {
  llvm::Triple triple(cpu.triple);
  const llvm::Target *target = lookupHostTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, cpu.cpu, cpu.features));
}

std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(const HostCPUTarget &cpu, std::string &error) {
  initializeNativeTarget();
  return createOptimizingTargetMachine(llvm::Triple(cpu.triple), cpu.cpu,
                                       cpu.features, llvm::TargetOptions(),
                                       llvm::Reloc::PIC_, error);
}

/// The first of the usual places of a system library that exists.
std::optional<std::string> findSystemLibrary(llvm::StringRef name) {
  for (llvm::StringRef dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
        "/usr/lib64"}) {
    std::string path = (dir + "/" + name).str();
    if (llvm::sys::fs::exists(path))
      return path;
  }
  return std::nullopt;
}
} // namespace

std::optional<HostCPUTarget> kda::resolveHostCPUTarget(llvm::StringRef cpu,
                                                       llvm::StringRef features,
                                                       std::string &error) {
  HostCPUTarget result;
  result.triple = llvm::sys::getDefaultTargetTriple();
  llvm::SubtargetFeatures list;
  if (cpu.empty() || cpu == "host") {
    result.cpu = llvm::sys::getHostCPUName().str();
    for (auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
      list.AddFeature(name, enabled);
  } else {
    result.cpu = cpu.str();
  }
  // Validate the names against the back end's tables: LLVM itself only
  // warns about unknown ones and ignores them.
  HostCPUTarget plain{result.triple, "", ""};
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      createSubtargetInfo(plain, error);
  if (!sti)
    return std::nullopt;
  if (!sti->isCPUStringValid(result.cpu)) {
    error = "error: unknown CPU '" + result.cpu + "' for " + result.triple +
            " (for example host, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, "
            "znver4, sapphirerapids)";
    return std::nullopt;
  }
  llvm::SmallVector<llvm::StringRef> items;
  features.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    item = item.trim();
    llvm::StringRef name = item.drop_front();
    bool known = llvm::any_of(
        sti->getAllProcessorFeatures(),
        [&](const llvm::SubtargetFeatureKV &kv) { return name == kv.Key; });
    if ((!item.starts_with("+") && !item.starts_with("-")) || !known) {
      error = "error: bad CPU feature '" + item.str() +
              "': expected +NAME or -NAME with a feature of " + result.triple +
              " (avx2, avx512f, avx512bf16, f16c, ...)";
      return std::nullopt;
    }
    list.AddFeature(item);
  }
  result.features = list.getString();
  return result;
}

std::string kda::getRequiredCPUFeatures(const HostCPUTarget &target) {
  std::string error;
  std::unique_ptr<llvm::MCSubtargetInfo> sti =
      createSubtargetInfo(target, error);
  if (!sti)
    return "";
  // Only features the host detection knows can be missing on some CPU; the
  // others tune scheduling.
  llvm::StringMap<bool> detectable = llvm::sys::getHostCPUFeatures();
  llvm::SmallVector<std::string> names;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->getFeatureBits().test(kv.Value) && detectable.count(kv.Key))
      names.push_back(kv.Key);
  llvm::sort(names);
  return llvm::join(names, ",");
}

std::string kda::getMissingHostCPUFeatures(llvm::StringRef required) {
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  llvm::SmallVector<llvm::StringRef> items, missing;
  required.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : items) {
    auto it = host.find(name);
    if (it == host.end() || !it->second)
      missing.push_back(name);
  }
  return llvm::join(missing, ",");
}

std::string kda::getHostCPUDescription() {
  return (llvm::sys::getDefaultTargetTriple() + "-" +
          llvm::sys::getHostCPUName())
      .str();
}

std::string kda::getCPUFeaturesSymbol(llvm::StringRef kernel) {
  return (kernel + "__kda_cpu_features").str();
}

void kda::addCPUFeaturesSymbol(llvm::Module &module, llvm::StringRef kernel,
                               llvm::StringRef features) {
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(module.getContext(), features);
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           getCPUFeaturesSymbol(kernel));
}

std::unique_ptr<llvm::Module>
kda::translateToHostLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                           const HostCPUTarget &target, std::string &error) {
  auto tm = createHostTargetMachine(target, error);
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

bool kda::emitHostCode(llvm::Module &module, const HostCPUTarget &target,
                       bool object, std::string &out, std::string &error) {
  auto tm = createHostTargetMachine(target, error);
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
  // Kernels call libm (expf, logf, ...) and libc (malloc, memcpy): record
  // both, so the library also loads into programs that do not link libm.
  // With -z defs any other undefined symbol (a compiler-rt helper, say)
  // fails here instead of when a user loads the library.
  std::optional<std::string> libm = findSystemLibrary("libm.so.6");
  std::optional<std::string> libc = findSystemLibrary("libc.so.6");
  if (!libm || !libc) {
    error = "error: cannot find libm.so.6 and libc.so.6 to link the shared "
            "object against (looked in /lib/x86_64-linux-gnu, "
            "/usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64)";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> args = {"-shared",     "-z",  "defs",
                                             "--as-needed", "-o",  outputPath,
                                             objectPath,    *libm, *libc};
  return runLLD(args, error);
}
