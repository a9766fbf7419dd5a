//===- AMDGPU.cpp - LLVM-dialect GPU kernels to AMD code objects ----------===//
#include "kda/Target/AMDGPU.h"
#include "kda/Target/HostCodegen.h"
#include "kda/Target/TargetMachine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
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

/// The AMDGPU back end lowers OpenCL's printf (what kt.device_print calls)
/// to stores into space it reserves with `__printf_alloc(bytes)`, a function
/// of ROCm's device library, which this compiler does not link. This is its
/// definition: the runtime passes the printf buffer in the implicit kernel
/// arguments (at byte 72 from code object v5 on, 24 before); the buffer
/// starts with the bytes used (u32, updated atomically) and its size (u32),
/// and the records follow from byte 8. Returns null when the buffer is
/// full, and the back end then skips the record.
static void definePrintfAlloc(llvm::Module &module,
                              unsigned codeObjectVersion) {
  if (!module.getFunction("printf"))
    return;
  llvm::LLVMContext &ctx = module.getContext();
  auto *globalPtr = llvm::PointerType::get(ctx, 1);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *fn = llvm::cast<llvm::Function>(
      module
          .getOrInsertFunction(
              "__printf_alloc",
              llvm::FunctionType::get(globalPtr, {i32}, /*isVarArg=*/false))
          .getCallee());
  if (!fn->empty())
    return;
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx, "reserve", fn);
  llvm::BasicBlock *attempt = llvm::BasicBlock::Create(ctx, "attempt", fn);
  llvm::BasicBlock *full = llvm::BasicBlock::Create(ctx, "full", fn);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(ctx, "done", fn);
  constexpr unsigned kHeaderBytes = 8;
  llvm::IRBuilder<> b(entry);
  llvm::Value *implicitArgs =
      b.CreateIntrinsic(llvm::Intrinsic::amdgcn_implicitarg_ptr, {});
  uint64_t slot = codeObjectVersion == 4 ? 24 : 72;
  llvm::Value *buffer = b.CreateAlignedLoad(
      globalPtr,
      b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), implicitArgs, slot),
      llvm::Align(8));
  llvm::Value *size = b.CreateAlignedLoad(
      i32, b.CreateConstInBoundsGEP1_64(i32, buffer, 1), llvm::Align(4));
  llvm::LoadInst *first = b.CreateAlignedLoad(i32, buffer, llvm::Align(4));
  first->setAtomic(llvm::AtomicOrdering::Monotonic,
                   ctx.getOrInsertSyncScopeID("agent"));
  b.CreateBr(loop);

  b.SetInsertPoint(loop);
  llvm::PHINode *used = b.CreatePHI(i32, 2);
  used->addIncoming(first, entry);
  llvm::Value *bytes = fn->getArg(0);
  llvm::Value *end =
      b.CreateAdd(b.CreateAdd(used, bytes), b.getInt32(kHeaderBytes));
  b.CreateCondBr(b.CreateICmpUGT(end, size), full, attempt);

  b.SetInsertPoint(attempt);
  llvm::AtomicCmpXchgInst *exchange = b.CreateAtomicCmpXchg(
      buffer, used, b.CreateAdd(used, bytes), llvm::MaybeAlign(4),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic,
      ctx.getOrInsertSyncScopeID("agent"));
  used->addIncoming(b.CreateExtractValue(exchange, 0), attempt);
  llvm::Value *record = b.CreateInBoundsGEP(
      b.getInt8Ty(), buffer,
      b.CreateZExt(b.CreateAdd(used, b.getInt32(kHeaderBytes)),
                   b.getInt64Ty()));
  b.CreateCondBr(b.CreateExtractValue(exchange, 1), done, loop);

  b.SetInsertPoint(full);
  b.CreateRet(llvm::ConstantPointerNull::get(globalPtr));
  b.SetInsertPoint(done);
  b.CreateRet(record);
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
  definePrintfAlloc(*llvmModule, codeObjectVersion);
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
