//===- NVPTX.cpp - LLVM-dialect GPU kernels to PTX and cubin --------------===//
#include "kda/Target/NVPTX.h"
#include "kda/Target/TargetMachine.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <limits>
#include <map>
#include <mutex>

using namespace kda;

namespace {
void initializeNVPTXTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine>
createNVPTXTargetMachine(const GPUTargetInfo &target, std::string &error) {
  initializeNVPTXTarget();
  return createOptimizingTargetMachine(
      llvm::Triple(target.triple), target.chip, target.features,
      getGPUKernelTargetOptions(), std::nullopt, error);
}

/// sm_90's multiprocessor: four partitions of 16384 registers, allocated
/// per warp in units of 256; 228 KiB of shared memory, of which each block
/// reserves 1 KiB; at most 64 warps and 32 blocks.
constexpr int64_t kPartitionRegisters = 16384;
constexpr int64_t kRegisterUnit = 256;
constexpr int64_t kSharedBytesPerSM = 228 * 1024;
constexpr int64_t kReservedSharedPerBlock = 1024;
constexpr int64_t kMaxWarpsPerSM = 64;
constexpr int64_t kMaxBlocksPerSM = 32;

/// Warps the register file holds at `registers` per thread (beyond the 64
/// an SM runs when they are few).
int64_t registerFileWarps(int64_t registers) {
  if (registers <= 0)
    return std::numeric_limits<int32_t>::max();
  int64_t perWarp = llvm::alignTo(registers * 32, kRegisterUnit);
  return 4 * (kPartitionRegisters / perWarp);
}

/// Warps per SM that the register count allows.
int64_t registerLimitedWarps(int64_t registers) {
  return std::min(kMaxWarpsPerSM, registerFileWarps(registers));
}

/// "12 registers" -> 12; the first integer of an item of a ptxas line.
std::optional<int64_t> leadingInteger(llvm::StringRef item) {
  item = item.trim();
  if (item.consume_front("used "))
    item = item.ltrim();
  int64_t value;
  if (item.consumeInteger(10, value))
    return std::nullopt;
  return value;
}
} // namespace

std::unique_ptr<llvm::Module>
kda::translateToNVPTXLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                            const GPUTargetInfo &target, std::string &error) {
  auto tm = createNVPTXTargetMachine(target, error);
  if (!tm)
    return nullptr;
  LLVMDiagnosticCapture diagnostics(ctx);
  std::unique_ptr<llvm::Module> llvmModule =
      translateGPUModuleToLLVMIR(module, ctx, *tm, error);
  if (!llvmModule)
    return nullptr;
  optimizeGPUModule(*llvmModule, *tm);
  if (diagnostics.hadError()) {
    error = diagnostics.getErrors();
    return nullptr;
  }
  return llvmModule;
}

bool kda::emitPTX(llvm::Module &module, const GPUTargetInfo &target,
                  std::string &ptx, std::string &error) {
  auto tm = createNVPTXTargetMachine(target, error);
  if (!tm)
    return false;
  LLVMDiagnosticCapture diagnostics(module.getContext());
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::AssemblyFile)) {
    error = "error: the NVPTX target cannot emit PTX";
    return false;
  }
  pm.run(module);
  if (diagnostics.hadError()) {
    error = diagnostics.getErrors();
    return false;
  }
  ptx.assign(buffer.begin(), buffer.end());
  return true;
}

std::string kda::findPtxas(std::string &error) {
  if (const char *env = std::getenv("KDA_PTXAS")) {
    if (llvm::sys::fs::can_execute(env))
      return env;
    error = std::string("error: KDA_PTXAS is set to '") + env +
            "', which is not an executable";
    return "";
  }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  error = "error: cannot find ptxas (the CUDA toolkit's PTX assembler), "
          "needed for cubins and NVIDIA resource reports: install the CUDA "
          "toolkit or set KDA_PTXAS to its path";
  return "";
}

void kda::parsePtxasVerboseOutput(llvm::StringRef output,
                                  ResourceReport &report) {
  struct Properties {
    int64_t stack = 0, spillStores = 0, spillLoads = 0;
  };
  std::map<std::string, Properties> properties;
  std::string propertiesOf;
  llvm::SmallVector<llvm::StringRef> lines;
  output.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    // "ptxas info    : Compiling entry function 'k' for 'sm_90a'"
    size_t at = line.find("Compiling entry function '");
    if (at != llvm::StringRef::npos) {
      llvm::StringRef rest =
          line.drop_front(at + strlen("Compiling entry function '"));
      report.kernels.emplace_back();
      report.kernels.back().name =
          rest.take_until([](char c) { return c == '\''; }).str();
      continue;
    }
    // "ptxas info    : Function properties for k"
    at = line.find("Function properties for ");
    if (at != llvm::StringRef::npos) {
      propertiesOf =
          line.drop_front(at + strlen("Function properties for ")).trim().str();
      continue;
    }
    // "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    if (line.contains("bytes stack frame")) {
      Properties &p = properties[propertiesOf];
      llvm::SmallVector<llvm::StringRef> items;
      line.split(items, ',');
      for (llvm::StringRef item : items) {
        std::optional<int64_t> n = leadingInteger(item);
        if (!n)
          continue;
        if (item.contains("stack frame"))
          p.stack = *n;
        else if (item.contains("spill stores"))
          p.spillStores = *n;
        else if (item.contains("spill loads"))
          p.spillLoads = *n;
      }
      continue;
    }
    // "ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem,
    //  380 bytes cmem[0]"
    at = line.find("Used ");
    if (at != llvm::StringRef::npos && line.contains("registers") &&
        !report.kernels.empty()) {
      KernelResources &k = report.kernels.back();
      llvm::SmallVector<llvm::StringRef> items;
      line.drop_front(at + strlen("Used ")).split(items, ',');
      k.sharedBytes = 0;
      for (llvm::StringRef item : items) {
        std::optional<int64_t> n = leadingInteger(item);
        if (!n)
          continue;
        if (item.contains("registers"))
          k.registers = *n;
        else if (item.contains("barriers"))
          k.barriers = *n;
        else if (item.contains("bytes smem"))
          k.sharedBytes = *n;
      }
    }
  }
  for (KernelResources &k : report.kernels) {
    Properties p = properties.count(k.name) ? properties[k.name] : Properties();
    k.scratchBytes = p.stack;
    k.spillStoreBytes = p.spillStores;
    k.spillLoadBytes = p.spillLoads;
    if (k.registers) {
      k.occupancy = registerLimitedWarps(*k.registers);
      k.occupancyLimit = "register limit";
    }
  }
}

NVIDIAOccupancy kda::getNVIDIAOccupancy(int64_t registers,
                                        int64_t warpsPerBlock,
                                        int64_t sharedBytes) {
  warpsPerBlock = std::max<int64_t>(warpsPerBlock, 1);
  struct Bound {
    int64_t blocks;
    llvm::StringRef limit;
  };
  // In the order a tie names: registers, then shared memory, then warps.
  Bound bounds[] = {
      {registerFileWarps(registers) / warpsPerBlock, "register limit"},
      {kSharedBytesPerSM / (sharedBytes + kReservedSharedPerBlock),
       "shared-memory limit"},
      {kMaxWarpsPerSM / warpsPerBlock, "warp limit"},
      {kMaxBlocksPerSM, "block limit"}};
  const Bound *least = &bounds[0];
  for (const Bound &b : bounds)
    if (b.blocks < least->blocks)
      least = &b;
  return {least->blocks * warpsPerBlock, least->limit};
}

void kda::setNVIDIAOccupancy(ResourceReport &report, int64_t warpsPerBlock) {
  for (KernelResources &k : report.kernels) {
    if (!k.registers)
      continue;
    NVIDIAOccupancy o = getNVIDIAOccupancy(
        *k.registers, warpsPerBlock,
        k.sharedBytes.value_or(0) + k.dynamicSharedBytes.value_or(0));
    k.occupancy = o.warps;
    k.occupancyLimit = o.limit.str();
  }
}

bool kda::assemblePTX(llvm::StringRef ptx, const GPUTargetInfo &target,
                      llvm::StringRef cubinPath, ResourceReport &report,
                      std::string &error) {
  std::string ptxas = findPtxas(error);
  if (ptxas.empty())
    return false;
  llvm::SmallString<128> ptxPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kda-kernel", "ptx", ptxPath)) {
    error = "error: cannot create a temporary file: " + ec.message();
    return false;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error =
          "error: cannot write '" + ptxPath.str().str() + "': " + ec.message();
      return false;
    }
    os << ptx;
  }
  std::string arch = "-arch=" + target.chip;
  // -lineinfo keeps the PTX's .loc lines (when it has them) in the cubin,
  // for profilers; it changes no instruction.
  llvm::SmallVector<llvm::StringRef> args = {
      ptxas, arch, "-v", "-O3", "-lineinfo", ptxPath, "-o", cubinPath};
  std::string output;
  int rc = runProgramCapturingOutput(ptxas, args, output);
  llvm::sys::fs::remove(ptxPath);
  if (rc != 0) {
    error = "error: ptxas failed (exit " + std::to_string(rc) + "):\n" + output;
    return false;
  }
  report.target = target.name;
  report.vendor = GPUTargetInfo::NVIDIA;
  report.waveSize = target.waveSize;
  report.kernels.clear();
  parsePtxasVerboseOutput(output, report);
  return true;
}
