//===- Pipelines.h - named compilation pipelines ----------------*- C++ -*-===//
//
// Every pipeline kdatile runs is built here, once, and registered by name so
// `kda-opt --<name>` replays exactly what kda-compile and the JIT run.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_PIPELINES_PIPELINES_H
#define KDA_PIPELINES_PIPELINES_H

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kda {
/// `kda-tile-simplify`: target-independent clean-up of frontend output
/// (canonicalize, CSE, symbol DCE).
void buildTileSimplifyPipeline(mlir::OpPassManager &pm);

/// `kda-cpu-lower`: tile IR to the LLVM dialect for the host (tile to
/// tensors, bufferization, loops, LLVM).
void buildCPULoweringPipeline(mlir::OpPassManager &pm);

/// `kda-cpu-pipeline`: kda-tile-simplify followed by kda-cpu-lower; what
/// `kda-compile --target cpu` runs.
void buildCPUPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry.
void registerPipelines();

/// Dialects, interfaces and LLVM IR translations the pipelines need.
void registerCompilerDialects(mlir::DialectRegistry &registry);
} // namespace kda

#endif // KDA_PIPELINES_PIPELINES_H
