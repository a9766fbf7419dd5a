//===- DriverSupport.h - pieces every compile stage shares ------*- C++ -*-===//
#ifndef KDA_DRIVER_DRIVERSUPPORT_H
#define KDA_DRIVER_DRIVERSUPPORT_H

#include "kda/Driver/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>

namespace llvm {
class Module;
}

namespace mlir {
class OpPassManager;
}

namespace kda {

/// Records the time of each stage into a CompileResult.
class StageTimer {
public:
  explicit StageTimer(CompileResult &result) : result(result) {}
  void done(llvm::StringRef stage);

private:
  CompileResult &result;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// The textual form of an op.
std::string printOp(mlir::Operation *op, bool withLocations = false);

/// When `--emit llvm` was asked for, prints `module` into the result, marks
/// it done and returns true (the caller stops there).
bool finishWithLLVMText(const CompileOptions &options, llvm::Module &module,
                        CompileResult &result);

/// "file:line:col" of the innermost source location (call sites of inlined
/// DSL helpers unwrapped), or the location as MLIR prints it.
std::string formatLocation(mlir::Location loc);

/// The cluster shape every launch of `module`'s kernel must use: the one a
/// lowering recorded on it, else the one its tile.cluster_sum ops ask for
/// (1x1x1 without any; disagreeing ops are reported by the lowerings).
std::array<int32_t, 3> getKernelClusterShape(mlir::ModuleOp module);

/// Runs the pipeline `build` adds to, collecting diagnostics as
/// "file:line:col: error: ..." lines. On failure `error` is `headline`
/// followed by the diagnostics. With `printIRAfter` ("all", or a pass's
/// argument such as "tile-assign-layouts") the module is printed to stderr
/// after each such pass; `passesRun` (when given) collects the argument of
/// every pass that ran, in order.
bool runPipeline(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                 llvm::function_ref<void(mlir::OpPassManager &)> build,
                 llvm::StringRef headline, std::string &error,
                 llvm::StringRef printIRAfter = "",
                 std::vector<std::string> *passesRun = nullptr);

} // namespace kda

#endif // KDA_DRIVER_DRIVERSUPPORT_H
