//===- GPUTarget.h - GPU targets and their resource reports -----*- C++ -*-===//
//
// The GPU chips kdatile generates code for (name, triple, chip, features,
// wave size, shared memory) and the per-kernel resource report that both
// back ends (AMDGPU: backend remarks; NVPTX: `ptxas -v`) fill in.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TARGET_GPUTARGET_H
#define KDA_TARGET_GPUTARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class DiagnosticHandler;
class DiagnosticInfoOptimizationBase;
class Module;
class LLVMContext;
class TargetMachine;
class raw_ostream;
} // namespace llvm

namespace mlir {
class ModuleOp;
}

namespace kda {

struct GPUTargetInfo {
  enum Vendor { AMD, NVIDIA };
  /// The name users spell: "gfx950", "gfx1250", "sm_90a".
  std::string name;
  Vendor vendor = AMD;
  /// LLVM target triple, chip (CPU) and subtarget features.
  std::string triple, chip, features;
  /// Threads per wavefront / warp.
  unsigned waveSize = 64;
  /// Shared memory (LDS) one workgroup / thread block may allocate.
  unsigned sharedMemoryBytes = 0;
  /// Shared memory (LDS) a statically sized allocation may take (the
  /// distributed lowering's scratch buffer is static).
  unsigned staticSharedMemoryBytes = 0;
  /// Shared memory a kernel may take when its launch provides it dynamically
  /// (NVIDIA: above 48 KiB, opted into by the runtime); 0: no dynamic path,
  /// the static limit is the limit.
  unsigned dynamicSharedMemoryBytes = 0;
  /// 32-bit registers one thread may address (AMD: VGPRs and AGPRs of a
  /// lane; NVIDIA: 255).
  unsigned registersPerThread = 0;
  /// Largest workgroup / thread block.
  unsigned maxThreadsPerBlock = 1024;

  bool isAMD() const { return vendor == AMD; }
  bool isNVIDIA() const { return vendor == NVIDIA; }
};

/// The target called `name` ("sm_90" is accepted for "sm_90a"), if any.
std::optional<GPUTargetInfo> lookupGPUTarget(llvm::StringRef name);

/// Names of every GPU target, in the order --help lists them.
llvm::ArrayRef<llvm::StringRef> getGPUTargetNames();

/// "gfx950, gfx1250, sm_90a": for --help and error messages.
std::string getGPUTargetList();

/// What the code generator reports about one kernel. Counts the back end
/// does not produce stay std::nullopt and are not printed.
struct KernelResources {
  std::string name;
  /// Vector registers per lane (AMD: architected VGPRs) or registers per
  /// thread (NVIDIA).
  std::optional<int64_t> registers;
  /// AMD: accumulation VGPRs and scalar registers.
  std::optional<int64_t> agprs, sgprs;
  /// Statically allocated LDS / shared memory per workgroup, in bytes.
  std::optional<int64_t> sharedBytes;
  /// Shared memory each launch provides dynamically, in bytes.
  std::optional<int64_t> dynamicSharedBytes;
  /// Private memory per lane (AMD scratch) or stack frame per thread
  /// (NVIDIA), in bytes.
  std::optional<int64_t> scratchBytes;
  /// AMD: number of spilled VGPRs / SGPRs.
  std::optional<int64_t> vgprSpills, sgprSpills;
  /// NVIDIA: bytes of spill stores / loads.
  std::optional<int64_t> spillStoreBytes, spillLoadBytes;
  /// AMD: waves per SIMD. NVIDIA: warps per SM, in whole blocks.
  std::optional<int64_t> occupancy;
  /// NVIDIA: what bounds the occupancy ("register limit", "shared-memory
  /// limit", ...).
  std::string occupancyLimit;
  /// AMD: the kernel needs a dynamically sized stack.
  std::optional<bool> dynamicStack;
  /// NVIDIA: named barriers used.
  std::optional<int64_t> barriers;
  /// Programs per thread-block cluster (x, y, z) of a kernel launched in
  /// clusters (kt.cluster_sum).
  std::optional<std::array<int32_t, 3>> clusterShape;

  bool hasSpills() const;
  /// "VGPR spills 3, SGPR spills 0" / "spill stores 16 B, spill loads 16 B".
  std::string describeSpills() const;
};

struct ResourceReport {
  std::string target;
  GPUTargetInfo::Vendor vendor = GPUTargetInfo::AMD;
  unsigned waveSize = 64;
  std::vector<KernelResources> kernels;

  /// The kernels that spill.
  std::vector<const KernelResources *> spillingKernels() const;
  /// A readable table, one block of aligned rows per kernel.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;
};

/// While alive, handles the diagnostics of an LLVMContext: errors are
/// collected instead of ending the process, and the optimization remarks of
/// pass `remarkPass` (if given) go to `onRemark`.
class LLVMDiagnosticCapture {
public:
  using RemarkCallback =
      std::function<void(const llvm::DiagnosticInfoOptimizationBase &)>;
  LLVMDiagnosticCapture(llvm::LLVMContext &ctx, llvm::StringRef remarkPass = "",
                        RemarkCallback onRemark = nullptr);
  ~LLVMDiagnosticCapture();
  LLVMDiagnosticCapture(const LLVMDiagnosticCapture &) = delete;
  LLVMDiagnosticCapture &operator=(const LLVMDiagnosticCapture &) = delete;

  bool hadError() const { return !errors->empty(); }
  /// The error messages, one a line.
  const std::string &getErrors() const { return *errors; }

private:
  llvm::LLVMContext &ctx;
  std::unique_ptr<llvm::DiagnosticHandler> previous;
  std::shared_ptr<std::string> errors;
};

/// Translates a module of LLVM-dialect GPU kernels to LLVM IR for `tm`:
/// sets its triple and data layout. Returns null and sets `error` on
/// failure (with the MLIR diagnostics).
std::unique_ptr<llvm::Module>
translateGPUModuleToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                           llvm::TargetMachine &tm, std::string &error);

/// Runs LLVM's default -O3 module pipeline, with the target's own passes.
void optimizeGPUModule(llvm::Module &module, llvm::TargetMachine &tm);

/// Runs an external program, capturing its stdout and stderr together in
/// `output`. Returns the exit status (-1 when it could not be started, with
/// the reason in `output`).
int runProgramCapturingOutput(llvm::StringRef program,
                              llvm::ArrayRef<llvm::StringRef> args,
                              std::string &output);

} // namespace kda

#endif // KDA_TARGET_GPUTARGET_H
