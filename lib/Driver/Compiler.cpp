//===- Compiler.cpp - one kernel from DSL source to an artifact -----------===//
#include "kda/Driver/Compiler.h"
#include "Tile/TileDialect.h"
#include "kda/Analysis/PointerRoots.h"
#include "kda/Driver/DriverSupport.h"
#include "kda/Driver/GPUCompile.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Target/GPUTarget.h"
#include "kda/Target/HostCodegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace kda;

#ifndef KDA_VERSION
#define KDA_VERSION "0.1.0"
#endif
#ifndef KDA_GIT_REVISION
#define KDA_GIT_REVISION "unknown"
#endif

std::optional<EmitKind> kda::parseEmitKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<EmitKind>>(name)
      .Case("tile", EmitKind::Tile)
      .Case("mlir", EmitKind::MLIR)
      .Case("llvm", EmitKind::LLVM)
      .Case("asm", EmitKind::Asm)
      .Case("obj", EmitKind::Obj)
      .Case("so", EmitKind::SO)
      .Case("gpu", EmitKind::Gpu)
      .Case("hsaco", EmitKind::Hsaco)
      .Case("ptx", EmitKind::Ptx)
      .Case("cubin", EmitKind::Cubin)
      .Case("header", EmitKind::Header)
      .Default(std::nullopt);
}

bool kda::isTextEmit(EmitKind kind) {
  return kind != EmitKind::Obj && kind != EmitKind::SO &&
         kind != EmitKind::Hsaco && kind != EmitKind::Cubin;
}

bool kda::isSupportedTarget(llvm::StringRef target) {
  return target == "cpu" || lookupGPUTarget(target).has_value();
}

std::string kda::getSupportedTargetList() {
  return "cpu, " + getGPUTargetList();
}

const std::string &kda::getCompilerVersion() {
  static const std::string version =
      std::string("kdatile ") + KDA_VERSION + " (" + KDA_GIT_REVISION +
      ", LLVM " + LLVM_VERSION_STRING + ", " + getHostCPUDescription() + ")";
  return version;
}

void kda::prepareContext(mlir::MLIRContext &ctx) {
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

namespace {
/// Marks the pointer parameters the kernel (the function with `tile.kernel`)
/// may store through.
void markWrittenParams(mlir::ModuleOp module,
                       std::vector<frontend::ParamSpec> &params) {
  module.walk([&](mlir::FunctionOpInterface func) {
    if (!func->hasAttr("tile.kernel") ||
        func.getNumArguments() != params.size())
      return;
    llvm::SmallVector<bool> written = getWrittenArguments(func);
    for (auto [param, isWritten] : llvm::zip(params, written))
      param.written = param.isPointer && isWritten;
  });
}

/// The kernel as tile IR: from the DSL frontend, or parsed from a `.mlir`
/// file (tile IR or any later stage, to resume a pipeline).
mlir::OwningOpRef<mlir::ModuleOp> loadKernel(mlir::MLIRContext &ctx,
                                             const CompileOptions &options,
                                             std::string &error) {
  const frontend::CompileRequest &req = options.request;
  if (!llvm::StringRef(req.filename).ends_with(".mlir")) {
    std::optional<GPUTargetInfo> gpu = lookupGPUTarget(options.target);
    if (!gpu)
      return frontend::emitKernel(ctx, req, error);
    if (options.numWarps * gpu->waveSize > gpu->maxThreadsPerBlock) {
      error = "num_warps=" + std::to_string(options.numWarps) + " is " +
              std::to_string(options.numWarps * gpu->waveSize) +
              " threads, over " + gpu->name + "'s " +
              std::to_string(gpu->maxThreadsPerBlock) + " per program";
      return nullptr;
    }
    frontend::CompileRequest gpuRequest = req;
    gpuRequest.numWarps = options.numWarps;
    gpuRequest.tileLimits.threadsPerProgram = options.numWarps * gpu->waveSize;
    gpuRequest.tileLimits.registersPerThread = gpu->registersPerThread;
    return frontend::emitKernel(ctx, gpuRequest, error);
  }
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": error: " << diag << "\n";
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      req.source, mlir::ParserConfig(&ctx), req.filename);
  if (!module) {
    error = diagnostics;
    return module;
  }
  // The host lowering exports `<kernel>__kda_cpu` for whatever it is given, so
  // a missing kernel would only surface when the shared object is loaded. A
  // module resumed after the host lowering holds the entry point itself. (The
  // GPU targets check for their llvm.func kernel when they link.)
  if (!lookupGPUTarget(options.target)) {
    auto func = module->lookupSymbol<mlir::func::FuncOp>(req.kernelName);
    bool tileKernel = func && func->hasAttr("tile.kernel");
    if (!tileKernel && !module->lookupSymbol(req.kernelName + "__kda_cpu")) {
      error = "error: the module has no tile kernel '" + req.kernelName +
              "' (a func.func with the tile.kernel attribute) and no entry "
              "point '" +
              req.kernelName + "__kda_cpu'";
      return nullptr;
    }
  }
  return module;
}

/// Host code: kda-cpu-lower, then LLVM IR, assembly, object or .so.
void compileForHost(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                    const CompileOptions &options, CompileResult &result,
                    StageTimer &timer) {
  result.entrySymbol = options.request.kernelName + "__kda_cpu";
  std::optional<HostCPUTarget> cpu =
      resolveHostCPUTarget(options.cpu, options.cpuFeatures, result.error);
  if (!cpu)
    return;
  result.cpu = cpu->cpu;
  result.cpuFeatures = getRequiredCPUFeatures(*cpu);
  CPUPipelineOptions pipeline;
  pipeline.checkBounds = options.checkBounds;
  if (!runPipeline(
          ctx, module,
          [&](mlir::OpPassManager &pm) {
            buildCPULoweringPipeline(pm, pipeline);
          },
          "internal compiler error in pipeline 'kda-cpu-lower' (please "
          "report it with the kernel):",
          result.error, options.printIRAfter, &result.passesRun))
    return;
  timer.done("kda-cpu-lower");
  if (options.emit == EmitKind::MLIR) {
    result.text = printOp(module, options.printLocations);
    result.ok = true;
    return;
  }

  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToHostLLVMIR(module, llvmCtx, *cpu, result.error);
  if (!llvmModule)
    return;
  addCPUFeaturesSymbol(*llvmModule, options.request.kernelName,
                       result.cpuFeatures);
  timer.done("llvm-opt");
  if (finishWithLLVMText(options, *llvmModule, result))
    return;

  std::string code;
  bool object = options.emit != EmitKind::Asm;
  if (!emitHostCode(*llvmModule, *cpu, object, code, result.error))
    return;
  timer.done("codegen");
  if (options.emit == EmitKind::Asm) {
    result.text = std::move(code);
    result.ok = true;
    return;
  }

  std::string objectPath = options.emit == EmitKind::Obj
                               ? options.outputPath
                               : options.outputPath + ".o.tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      result.error =
          "error: cannot write '" + objectPath + "': " + ec.message();
      return;
    }
    os << code;
  }
  if (options.emit == EmitKind::SO) {
    bool linked =
        linkHostSharedObject(objectPath, options.outputPath, result.error);
    llvm::sys::fs::remove(objectPath);
    if (!linked)
      return;
    timer.done("link");
  }
  result.ok = true;
}
} // namespace

CompileResult kda::compileKernel(mlir::MLIRContext &ctx,
                                 const CompileOptions &options) {
  CompileResult result;
  StageTimer timer(result);
  if (!isSupportedTarget(options.target)) {
    result.error = "error: unsupported target '" + options.target +
                   "' (supported: " + getSupportedTargetList() + ")";
    return result;
  }
  if (std::string why = checkEmitForTarget(options.emit, options.target);
      !why.empty()) {
    result.error = why;
    return result;
  }
  // The checks live in the host lowering; a GPU build would silently skip them.
  if (options.checkBounds && lookupGPUTarget(options.target)) {
    result.error = "error: --check-bounds is a cpu-target mode; target " +
                   options.target + " does not check accesses";
    return result;
  }
  if (options.emit == EmitKind::Header)
    return compileKernelHeader(ctx, options);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loadKernel(ctx, options, result.error);
  if (!module)
    return result;
  timer.done("frontend");
  result.params = options.request.signature.params;

  if (!runPipeline(ctx, *module, buildTileSimplifyPipeline,
                   "internal compiler error in pipeline 'kda-tile-simplify' "
                   "(please report it with the kernel):",
                   result.error, options.printIRAfter, &result.passesRun))
    return result;
  timer.done("kda-tile-simplify");
  result.clusterShape = getKernelClusterShape(*module);
  result.earlyLaunch = kda::tile::waitsForPriorLaunches(*module);
  markWrittenParams(*module, result.params);
  if (options.emit == EmitKind::Tile) {
    result.text = printOp(*module, options.printLocations);
    result.ok = true;
    return result;
  }
  if (std::optional<GPUTargetInfo> gpu = lookupGPUTarget(options.target)) {
    compileForGPU(ctx, *module, *gpu, options, result);
    return result;
  }
  compileForHost(ctx, *module, options, result, timer);
  return result;
}
