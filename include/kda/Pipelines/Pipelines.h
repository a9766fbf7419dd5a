//===- Pipelines.h - named compilation pipelines ----------------*- C++ -*-===//
//
// Every pipeline kdatile runs is built here, once, and registered by name so
// `kda-opt --<name>` replays exactly what kda-compile and the JIT run.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_PIPELINES_PIPELINES_H
#define KDA_PIPELINES_PIPELINES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kda {
/// `kda-tile-simplify`: target-independent clean-up of frontend output
/// (canonicalize, CSE, symbol DCE).
void buildTileSimplifyPipeline(mlir::OpPassManager &pm);

/// Options of the host pipelines.
struct CPUPipelineOptions {
  /// Every global-memory access checked against the extents of the arrays
  /// it may reach (convert-tile-to-cpu's check-bounds).
  bool checkBounds = false;
};

/// `kda-cpu-lower`: tile IR to the LLVM dialect for the host (tile to
/// tensors, bufferization, loops, LLVM).
void buildCPULoweringPipeline(mlir::OpPassManager &pm,
                              const CPUPipelineOptions &options = {});

/// `kda-cpu-pipeline`: kda-tile-simplify followed by kda-cpu-lower; what
/// `kda-compile --target cpu` runs.
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options = {});

/// Options of the GPU pipelines.
struct GPUPipelineOptions {
  std::string target = "sm_90a"; ///< sm_90a, gfx950, gfx1250
  unsigned numWarps = 4;
  /// Block copies (tile.async_load / async_store) on the target's
  /// block-copy engine where it can do them (TMA, the Tensor Data Mover);
  /// false: every one copies elements.
  bool blockCopyEngine = true;
  /// Source lines in the code object (PTX .loc directives, AMD DWARF line
  /// tables) from the ops' locations, for profilers and debuggers; no code
  /// changes.
  bool lineInfo = true;
};

/// `kda-gpu-lower`: tile IR to LLVM-dialect GPU kernels: layouts for tiles
/// that have none, the distributed lowering, then the standard LLVM
/// lowerings and the target's kernel attributes.
void buildGPULoweringPipeline(mlir::OpPassManager &pm,
                              const GPUPipelineOptions &options);

/// Registers the pipelines above with the pass registry.
void registerPipelines();

/// The names registerPipelines gives them (kda-opt lists them in --help).
llvm::ArrayRef<llvm::StringLiteral> pipelineNames();

/// Dialects, interfaces and LLVM IR translations the pipelines need.
void registerCompilerDialects(mlir::DialectRegistry &registry);
} // namespace kda

#endif // KDA_PIPELINES_PIPELINES_H
