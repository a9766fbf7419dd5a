//===- GPUTarget.cpp - GPU targets and their resource reports -------------===//
#include "kda/Target/GPUTarget.h"
#include "kda/Target/AMDGPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace kda;

namespace {
GPUTargetInfo makeGFX950() {
  GPUTargetInfo t;
  t.name = "gfx950";
  t.vendor = GPUTargetInfo::AMD;
  t.triple = "amdgcn-amd-amdhsa";
  t.chip = "gfx950";
  t.features = "+wavefrontsize64";
  t.waveSize = 64;
  t.sharedMemoryBytes = getAMDGPUAddressableLDSBytes(t.chip);
  t.staticSharedMemoryBytes = t.sharedMemoryBytes;
  t.registersPerThread = getAMDGPUAddressableVGPRs(t.chip);
  t.maxThreadsPerBlock = 1024;
  return t;
}

GPUTargetInfo makeGFX1250() {
  GPUTargetInfo t;
  t.name = "gfx1250";
  t.vendor = GPUTargetInfo::AMD;
  t.triple = "amdgcn-amd-amdhsa";
  t.chip = "gfx1250";
  t.features = "+wavefrontsize32";
  t.waveSize = 32;
  t.sharedMemoryBytes = getAMDGPUAddressableLDSBytes(t.chip);
  t.staticSharedMemoryBytes = t.sharedMemoryBytes;
  t.registersPerThread = getAMDGPUAddressableVGPRs(t.chip);
  t.maxThreadsPerBlock = 1024;
  return t;
}

GPUTargetInfo makeSM90a() {
  GPUTargetInfo t;
  t.name = "sm_90a";
  t.vendor = GPUTargetInfo::NVIDIA;
  t.triple = "nvptx64-nvidia-cuda";
  t.chip = "sm_90a";
  // PTX ISA 8.1: sm_90a (8.0) and st.async for cluster sums (8.1); every
  // CUDA 12.1+ ptxas and driver accepts it.
  t.features = "+ptx81";
  t.waveSize = 32;
  // The largest opt-in dynamic shared memory of one block on H100/H200.
  t.sharedMemoryBytes = 227 * 1024;
  // Static __shared__ is limited to 48 KiB per block; beyond, the kernel's
  // shared memory is dynamic and the runtime opts the function in.
  t.staticSharedMemoryBytes = 48 * 1024;
  t.dynamicSharedMemoryBytes = t.sharedMemoryBytes;
  t.registersPerThread = 255;
  t.maxThreadsPerBlock = 1024;
  return t;
}

const llvm::StringRef targetNames[] = {"gfx950", "gfx1250", "sm_90a"};

void printRow(llvm::raw_ostream &os, llvm::StringRef label,
              std::optional<int64_t> value, llvm::StringRef unit = "") {
  if (!value)
    return;
  os << "  " << label;
  for (size_t i = label.size(); i < 24; ++i)
    os << ' ';
  os << llvm::format_decimal(*value, 8);
  if (!unit.empty())
    os << "  " << unit;
  os << "\n";
}
} // namespace

std::optional<GPUTargetInfo> kda::lookupGPUTarget(llvm::StringRef name) {
  if (name == "gfx950")
    return makeGFX950();
  if (name == "gfx1250")
    return makeGFX1250();
  if (name == "sm_90a" || name == "sm_90")
    return makeSM90a();
  return std::nullopt;
}

llvm::ArrayRef<llvm::StringRef> kda::getGPUTargetNames() { return targetNames; }

std::string kda::getGPUTargetList() {
  std::string list;
  for (llvm::StringRef name : targetNames) {
    if (!list.empty())
      list += ", ";
    list += name.str();
  }
  return list;
}

//===----------------------------------------------------------------------===//
// Resource reports
//===----------------------------------------------------------------------===//

bool KernelResources::hasSpills() const {
  for (const std::optional<int64_t> &count :
       {vgprSpills, sgprSpills, spillStoreBytes, spillLoadBytes})
    if (count.value_or(0) > 0)
      return true;
  return false;
}

std::string KernelResources::describeSpills() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (vgprSpills || sgprSpills)
    os << "VGPR spills " << vgprSpills.value_or(0) << ", SGPR spills "
       << sgprSpills.value_or(0);
  if (spillStoreBytes || spillLoadBytes)
    os << "spill stores " << spillStoreBytes.value_or(0)
       << " bytes, spill loads " << spillLoadBytes.value_or(0) << " bytes";
  if (scratchBytes.value_or(0) > 0)
    os << (spillStoreBytes ? ", stack frame " : ", scratch ") << *scratchBytes
       << " bytes";
  return text;
}

std::vector<const KernelResources *> ResourceReport::spillingKernels() const {
  std::vector<const KernelResources *> result;
  for (const KernelResources &k : kernels)
    if (k.hasSpills())
      result.push_back(&k);
  return result;
}

void ResourceReport::print(llvm::raw_ostream &os) const {
  bool amd = vendor == GPUTargetInfo::AMD;
  if (kernels.empty()) {
    os << "resource usage (" << target << "): no kernels\n";
    return;
  }
  for (const KernelResources &k : kernels) {
    os << "resource usage of kernel '" << k.name << "' (" << target << ", "
       << (amd ? "wave" : "warp ") << waveSize << ")\n";
    if (amd) {
      printRow(os, "VGPRs", k.registers);
      printRow(os, "AGPRs", k.agprs);
      printRow(os, "SGPRs", k.sgprs);
      printRow(os, "LDS", k.sharedBytes, "bytes/workgroup");
      printRow(os, "scratch", k.scratchBytes, "bytes/lane");
      printRow(os, "VGPR spills", k.vgprSpills);
      printRow(os, "SGPR spills", k.sgprSpills);
      printRow(os, "occupancy", k.occupancy, "waves/SIMD");
      if (k.dynamicStack.value_or(false))
        os << "  dynamic stack           yes\n";
    } else {
      printRow(os, "registers", k.registers, "per thread");
      printRow(os, "shared memory", k.sharedBytes, "bytes/block (static)");
      printRow(os, "shared memory", k.dynamicSharedBytes,
               "bytes/block (dynamic)");
      printRow(os, "stack frame", k.scratchBytes, "bytes/thread");
      printRow(os, "spill stores", k.spillStoreBytes, "bytes");
      printRow(os, "spill loads", k.spillLoadBytes, "bytes");
      printRow(os, "barriers", k.barriers);
      if (k.clusterShape) {
        const std::array<int32_t, 3> &c = *k.clusterShape;
        std::string shape = std::to_string(c[0]) + "x" + std::to_string(c[1]) +
                            "x" + std::to_string(c[2]);
        os << "  cluster" << std::string(17, ' ')
           << llvm::right_justify(shape, 8) << "  programs\n";
      }
      std::string unit = "warps/SM";
      if (!k.occupancyLimit.empty())
        unit += " (" + k.occupancyLimit + ")";
      printRow(os, "occupancy", k.occupancy, unit);
    }
  }
}

std::string ResourceReport::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Diagnostics of LLVM code generation
//===----------------------------------------------------------------------===//

namespace {
class CaptureHandler : public llvm::DiagnosticHandler {
public:
  CaptureHandler(std::shared_ptr<std::string> errors, std::string remarkPass,
                 LLVMDiagnosticCapture::RemarkCallback onRemark)
      : errors(std::move(errors)), remarkPass(std::move(remarkPass)),
        onRemark(std::move(onRemark)) {}

  bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override {
    return !remarkPass.empty() && pass == remarkPass;
  }
  bool isMissedOptRemarkEnabled(llvm::StringRef) const override {
    return false;
  }
  bool isPassedOptRemarkEnabled(llvm::StringRef) const override {
    return false;
  }
  bool isAnyRemarkEnabled() const override { return !remarkPass.empty(); }

  bool handleDiagnostics(const llvm::DiagnosticInfo &di) override {
    if (auto *remark =
            llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&di)) {
      if (onRemark && remark->getPassName() == remarkPass)
        onRemark(*remark);
      return true;
    }
    if (di.getSeverity() == llvm::DS_Error) {
      llvm::raw_string_ostream os(*errors);
      llvm::DiagnosticPrinterRawOStream printer(os);
      os << "error: ";
      di.print(printer);
      os << "\n";
    }
    // Warnings and notes of the back ends are not actionable for kernel
    // authors; they are dropped.
    return true;
  }

private:
  std::shared_ptr<std::string> errors;
  std::string remarkPass;
  LLVMDiagnosticCapture::RemarkCallback onRemark;
};
} // namespace

LLVMDiagnosticCapture::LLVMDiagnosticCapture(llvm::LLVMContext &ctx,
                                             llvm::StringRef remarkPass,
                                             RemarkCallback onRemark)
    : ctx(ctx), previous(ctx.getDiagnosticHandler()),
      errors(std::make_shared<std::string>()) {
  ctx.setDiagnosticHandler(std::make_unique<CaptureHandler>(
      errors, remarkPass.str(), std::move(onRemark)));
}

LLVMDiagnosticCapture::~LLVMDiagnosticCapture() {
  ctx.setDiagnosticHandler(std::move(previous));
}

//===----------------------------------------------------------------------===//
// Shared code-generation steps
//===----------------------------------------------------------------------===//

std::unique_ptr<llvm::Module>
kda::translateGPUModuleToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                                llvm::TargetMachine &tm, std::string &error) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(
      module->getContext(), [&](mlir::Diagnostic &diag) {
        llvm::raw_string_ostream os(diagnostics);
        os << diag.getLocation() << ": " << diag << "\n";
        return mlir::success();
      });
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, ctx, "kda_kernel");
  if (!llvmModule) {
    error = "error: cannot translate the GPU module to LLVM IR\n" + diagnostics;
    return nullptr;
  }
  llvmModule->setTargetTriple(tm.getTargetTriple());
  llvmModule->setDataLayout(tm.createDataLayout());
  return llvmModule;
}

void kda::optimizeGPUModule(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

int kda::runProgramCapturingOutput(llvm::StringRef program,
                                   llvm::ArrayRef<llvm::StringRef> args,
                                   std::string &output) {
  llvm::SmallString<128> logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kda-tool", "log", logPath)) {
    output = "cannot create a temporary file: " + ec.message();
    return -1;
  }
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    output = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(logPath);
  if (rc < 0 && !message.empty())
    output += message;
  return rc;
}
