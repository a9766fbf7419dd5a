//===- AMDGPU.cpp - LLVM-dialect GPU kernels to AMD code objects ----------===//
#include "kda/Target/AMDGPU.h"
#include "kda/Target/HostCodegen.h"
#include "kda/Target/TargetMachine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace kda;

namespace {
void initializeAMDGPUTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

std::unique_ptr<llvm::MCSubtargetInfo>
createAMDGPUSubtargetInfo(llvm::StringRef chip) {
  initializeAMDGPUTarget();
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, chip, ""));
}

bool hasFeature(const llvm::MCSubtargetInfo &sti, llvm::StringRef name) {
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures())
    if (name == kv.Key)
      return sti.getFeatureBits().test(kv.Value);
  return false;
}
} // namespace

unsigned kda::getAMDGPUAddressableLDSBytes(llvm::StringRef chip) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = createAMDGPUSubtargetInfo(chip);
  if (!sti)
    return 0;
  constexpr llvm::StringLiteral prefix = "addressablelocalmemorysize";
  unsigned bytes = 0;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures()) {
    llvm::StringRef key = kv.Key;
    unsigned size = 0;
    if (key.consume_front(prefix) && !key.getAsInteger(10, size) &&
        sti->getFeatureBits().test(kv.Value))
      bytes = std::max(bytes, size);
  }
  return bytes;
}

unsigned kda::getAMDGPUAddressableVGPRs(llvm::StringRef chip) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = createAMDGPUSubtargetInfo(chip);
  if (!sti)
    return 0;
  if (hasFeature(*sti, "1024-addressable-vgprs"))
    return 1024;
  return hasFeature(*sti, "gfx90a-insts") ? 512 : 256;
}

namespace {
std::unique_ptr<llvm::TargetMachine>
createAMDGPUTargetMachine(const GPUTargetInfo &target, std::string &error) {
  initializeAMDGPUTarget();
  llvm::TargetOptions options = getGPUKernelTargetOptions();
  // Assembly keeps the back end's comments (the "; Kernel info:" block).
  options.MCOptions.AsmVerbose = true;
  return createOptimizingTargetMachine(llvm::Triple(target.triple), target.chip,
                                       target.features, options,
                                       llvm::Reloc::PIC_, error);
}

/// The remark values are printed MC expressions: plain integers for
/// kernels whose resources are known at compile time.
std::optional<int64_t> parseCount(llvm::StringRef text) {
  int64_t value;
  if (text.trim().getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// One argument of the AMDGPU back end's "kernel-resource-usage" remarks
/// (AMDGPUAsmPrinter::emitResourceUsageRemarks): each remark carries one
/// named value; "FunctionName" starts a kernel.
void recordResourceRemark(const llvm::DiagnosticInfoOptimizationBase &remark,
                          std::vector<KernelResources> &kernels) {
  for (const llvm::DiagnosticInfoOptimizationBase::Argument &arg :
       remark.getArgs()) {
    llvm::StringRef key = arg.Key;
    if (key == "String" || key.empty())
      continue;
    if (key == "FunctionName") {
      kernels.emplace_back();
      kernels.back().name = arg.Val;
      continue;
    }
    if (kernels.empty())
      continue;
    KernelResources &k = kernels.back();
    std::optional<int64_t> value = parseCount(arg.Val);
    if (key == "NumVGPR")
      k.registers = value;
    else if (key == "NumAGPR")
      k.agprs = value;
    else if (key == "NumSGPR")
      k.sgprs = value;
    else if (key == "ScratchSize")
      k.scratchBytes = value;
    else if (key == "Occupancy")
      k.occupancy = value;
    else if (key == "SGPRSpill")
      k.sgprSpills = value;
    else if (key == "VGPRSpill")
      k.vgprSpills = value;
    else if (key == "BytesLDS")
      k.sharedBytes = value;
    else if (key == "DynamicStack")
      k.dynamicStack = llvm::StringRef(arg.Val).equals_insensitive("true");
  }
}
} // namespace

bool kda::isValidAMDCodeObjectVersion(unsigned version) {
  return version == 0 || version == 4 || version == 5 || version == 6;
}

std::unique_ptr<llvm::Module>
kda::translateToAMDGPULLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                             const GPUTargetInfo &target,
                             unsigned codeObjectVersion, std::string &error) {
  if (!isValidAMDCodeObjectVersion(codeObjectVersion)) {
    error = "error: unsupported AMD code object version " +
            std::to_string(codeObjectVersion) + " (expected 4, 5 or 6)";
    return nullptr;
  }
  auto tm = createAMDGPUTargetMachine(target, error);
  if (!tm)
    return nullptr;
  LLVMDiagnosticCapture diagnostics(ctx);
  std::unique_ptr<llvm::Module> llvmModule =
      translateGPUModuleToLLVMIR(module, ctx, *tm, error);
  if (!llvmModule)
    return nullptr;
  // The back end reads the version from this flag (value x 100) and writes
  // it to the .amdhsa_code_object_version directive and the ELF header.
  if (codeObjectVersion != 0)
    llvmModule->setModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                              codeObjectVersion * 100);
  optimizeGPUModule(*llvmModule, *tm);
  if (diagnostics.hadError()) {
    error = diagnostics.getErrors();
    return nullptr;
  }
  return llvmModule;
}

bool kda::emitAMDGPUCode(llvm::Module &module, const GPUTargetInfo &target,
                         bool object, std::string &out, ResourceReport &report,
                         std::string &error) {
  auto tm = createAMDGPUTargetMachine(target, error);
  if (!tm)
    return false;
  report.target = target.name;
  report.vendor = GPUTargetInfo::AMD;
  report.waveSize = target.waveSize;
  report.kernels.clear();
  LLVMDiagnosticCapture diagnostics(
      module.getContext(), "kernel-resource-usage",
      [&](const llvm::DiagnosticInfoOptimizationBase &remark) {
        recordResourceRemark(remark, report.kernels);
      });

  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              object ? llvm::CodeGenFileType::ObjectFile
                                     : llvm::CodeGenFileType::AssemblyFile)) {
    error = "error: the AMDGPU target cannot emit this file type";
    return false;
  }
  pm.run(module);
  if (diagnostics.hadError()) {
    error = diagnostics.getErrors();
    return false;
  }
  // Only kernels (not device functions) are reported.
  llvm::erase_if(report.kernels, [&](const KernelResources &k) {
    llvm::Function *f = module.getFunction(k.name);
    return !f || f->getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL;
  });
  out.assign(buffer.begin(), buffer.end());
  return true;
}

bool kda::linkHSACO(llvm::StringRef objectPath, llvm::StringRef hsacoPath,
                    std::string &error) {
  llvm::SmallVector<llvm::StringRef> args = {"-shared", "-o", hsacoPath,
                                             objectPath};
  if (runLLD(args, error))
    return true;
  error = "error: linking the HSACO failed: " + error;
  return false;
}
