//===- Compiler.h - one kernel from DSL source to an artifact ---*- C++ -*-===//
//
// The single compile flow shared by kda-compile and the C API (and so by the
// Python JIT): frontend, named pipelines, host code generation.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_DRIVER_COMPILER_H
#define KDA_DRIVER_COMPILER_H

#include "kda/Frontend/Frontend.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
}

namespace kda {

/// What to produce: tile IR after the frontend and clean-up, the lowered
/// LLVM-dialect module, LLVM IR, assembly, an object, a shared library;
/// for GPU targets also the module at the GPU LLVM-dialect stage (Gpu), an
/// AMD code object (Hsaco), PTX and a cubin; for every target a C/C++
/// header for ahead-of-time users (Header, see kda/Target/HeaderGen.h).
enum class EmitKind {
  Tile,
  MLIR,
  LLVM,
  Asm,
  Obj,
  SO,
  Gpu,
  Hsaco,
  Ptx,
  Cubin,
  Header
};
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);
/// Whether the artifact is text (returned inline) or binary (written out).
bool isTextEmit(EmitKind kind);

struct CompileOptions {
  frontend::CompileRequest request;
  std::string target = "cpu";
  EmitKind emit = EmitKind::SO;
  /// Where binary artifacts go; text artifacts are returned in `text`.
  std::string outputPath;
  /// AMD GPU targets: code object version (4, 5 or 6); 0: LLVM's default.
  unsigned codeObjectVersion = 0;
  /// GPU targets: also produce a resource report when that costs an extra
  /// tool run (PTX emits run ptxas for it); otherwise it comes for free.
  bool resourceReport = false;
  /// GPU targets: a kernel that spills registers is an error.
  bool failOnSpill = false;
  /// CPU target: the CPU to generate code for ("" or "host": this
  /// machine's) and features added or removed ("+avx2,-avx512f").
  std::string cpu;
  std::string cpuFeatures;
  /// GPU targets: warps (waves) per block; the block has numWarps x wave
  /// size threads.
  unsigned numWarps = 4;
  /// GPU targets: block copies on the target's engine where it can do them
  /// (GPUPipelineOptions::blockCopyEngine).
  bool blockCopyEngine = true;
  /// CPU target: every global-memory access checked against its arrays'
  /// extents (CPUPipelineOptions).
  bool checkBounds = false;
  /// GPU targets: source lines in the code object (GPUPipelineOptions).
  bool lineInfo = true;
  /// Text emits of MLIR (tile, mlir, gpu) print each op's location.
  bool printLocations = false;
  /// Print the module to stderr after every pass ("all") or after the pass
  /// with this argument (runPipeline); "" prints nothing.
  std::string printIRAfter;
};

struct CompileResult {
  bool ok = false;
  std::string error;
  std::string text;
  /// Symbol of the CPU entry point, `<kernel>__kda_cpu`.
  std::string entrySymbol;
  /// CPU target: the CPU compiled for and the instruction-set features the
  /// code may use (also exported by the shared object, see HostCodegen.h).
  std::string cpu;
  std::string cpuFeatures;
  /// The runtime parameters in the order the entry point reads them.
  std::vector<frontend::ParamSpec> params;
  /// GPU targets: the back end's resource usage per kernel, as a table.
  std::optional<std::string> resourceReport;
  /// GPU targets: the recipe (kda/Runtime/TensorMap.h) of each hidden
  /// tensor-map parameter, which follow `params`.
  std::vector<std::vector<int64_t>> tensorMaps;
  /// GPU targets: dynamic shared memory (bytes) each launch must provide.
  int64_t sharedBytes = 0;
  /// Programs per cluster (x, y, z) every launch must use: a kernel with
  /// kt.cluster_sum runs in clusters (its grid must be a multiple).
  std::array<int32_t, 3> clusterShape = {1, 1, 1};
  /// The kernel waits for the kernels launched before it
  /// (kt.wait_prior_launches): a GPU launch may start before they finish.
  bool earlyLaunch = false;
  /// Seconds spent per stage, in order.
  std::vector<std::pair<std::string, double>> timings;
  /// The argument of every pass the pipelines ran, in order.
  std::vector<std::string> passesRun;
};

/// Targets kda-compile accepts today: cpu and the GPU targets.
bool isSupportedTarget(llvm::StringRef target);
/// "cpu, gfx950, gfx1250, sm_90a".
std::string getSupportedTargetList();

/// Registers what compileKernel needs in a fresh context.
void prepareContext(mlir::MLIRContext &ctx);

CompileResult compileKernel(mlir::MLIRContext &ctx,
                            const CompileOptions &options);

/// EmitKind::Header: compiles the kernel (code object for GPU targets) and
/// returns the header text (HeaderCompile.cpp).
CompileResult compileKernelHeader(mlir::MLIRContext &ctx,
                                  const CompileOptions &options);

/// The compiler build id: version, LLVM version and host CPU.
const std::string &getCompilerVersion();

} // namespace kda

#endif // KDA_DRIVER_COMPILER_H
