//===- GPUCompile.cpp - the GPU half of compileKernel ---------------------===//
#include "kda/Driver/GPUCompile.h"
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "kda/Driver/DriverSupport.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Target/AMDGPU.h"
#include "kda/Target/NVPTX.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace kda;

namespace {

llvm::StringRef emitName(EmitKind kind) {
  switch (kind) {
  case EmitKind::Tile:
    return "tile";
  case EmitKind::MLIR:
    return "mlir";
  case EmitKind::LLVM:
    return "llvm";
  case EmitKind::Asm:
    return "asm";
  case EmitKind::Obj:
    return "obj";
  case EmitKind::SO:
    return "so";
  case EmitKind::Gpu:
    return "gpu";
  case EmitKind::Hsaco:
    return "hsaco";
  case EmitKind::Ptx:
    return "ptx";
  case EmitKind::Cubin:
    return "cubin";
  case EmitKind::Header:
    return "header";
  }
  return "?";
}

bool writeFile(llvm::StringRef path, llvm::StringRef data, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "error: cannot write '" + path.str() + "': " + ec.message();
    return false;
  }
  os << data;
  return true;
}

/// The kernel attribute of each vendor on llvm.func.
llvm::StringRef kernelAttrName(const GPUTargetInfo &target) {
  return target.isAMD() ? "rocdl.kernel" : "nvvm.kernel";
}

/// The module must hold `name` as an llvm.func marked as a kernel for the
/// target's vendor.
bool checkKernel(mlir::ModuleOp module, llvm::StringRef name,
                 const GPUTargetInfo &target, std::string &error) {
  if (name.empty())
    return true;
  auto func = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(name);
  if (!func) {
    error = "error: the GPU module has no llvm.func kernel '" + name.str() +
            "' (GPU targets take LLVM-dialect kernels at this stage)";
    return false;
  }
  mlir::LLVM::cconv::CConv kernelConv =
      target.isAMD() ? mlir::LLVM::cconv::CConv::AMDGPU_KERNEL
                     : mlir::LLVM::cconv::CConv::PTX_Kernel;
  if (!func->hasAttr(kernelAttrName(target)) && func.getCConv() != kernelConv) {
    error = "error: function '" + name.str() + "' is not marked " +
            kernelAttrName(target).str() + ", so it is no kernel for " +
            target.name;
    return false;
  }
  return true;
}

/// --fail-on-spill: every spilling kernel, with its counts.
bool checkSpills(const ResourceReport &report, const CompileOptions &options,
                 std::string &error) {
  if (!options.failOnSpill)
    return true;
  std::vector<const KernelResources *> spilling = report.spillingKernels();
  if (spilling.empty())
    return true;
  llvm::raw_string_ostream os(error);
  for (const KernelResources *k : spilling)
    os << "error: kernel '" << k->name << "' spills registers on "
       << report.target << " (" << k->describeSpills()
       << ") and spills are errors (--fail-on-spill)\n";
  return false;
}

void compileForAMDGPU(mlir::ModuleOp module, const GPUTargetInfo &target,
                      const CompileOptions &options, CompileResult &result,
                      StageTimer &timer) {
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule = translateToAMDGPULLVMIR(
      module, llvmCtx, target, options.codeObjectVersion, result.error);
  if (!llvmModule)
    return;
  timer.done("llvm-opt");
  if (finishWithLLVMText(options, *llvmModule, result))
    return;

  std::string code;
  ResourceReport report;
  bool object = options.emit != EmitKind::Asm;
  if (!emitAMDGPUCode(*llvmModule, target, object, code, report, result.error))
    return;
  timer.done("codegen");
  result.resourceReport = report.str();
  if (!checkSpills(report, options, result.error))
    return;
  if (options.emit == EmitKind::Asm) {
    result.text = std::move(code);
    result.ok = true;
    return;
  }
  if (options.emit == EmitKind::Obj) {
    result.ok = writeFile(options.outputPath, code, result.error);
    return;
  }
  std::string objectPath = options.outputPath + ".o.tmp";
  if (!writeFile(objectPath, code, result.error))
    return;
  bool linked = linkHSACO(objectPath, options.outputPath, result.error);
  llvm::sys::fs::remove(objectPath);
  if (!linked)
    return;
  timer.done("link");
  result.ok = true;
}

void compileForNVPTX(mlir::ModuleOp module, const GPUTargetInfo &target,
                     const CompileOptions &options, CompileResult &result,
                     StageTimer &timer) {
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToNVPTXLLVMIR(module, llvmCtx, target, result.error);
  if (!llvmModule)
    return;
  timer.done("llvm-opt");
  if (finishWithLLVMText(options, *llvmModule, result))
    return;

  std::string ptx;
  if (!emitPTX(*llvmModule, target, ptx, result.error))
    return;
  timer.done("codegen");

  bool cubin = options.emit == EmitKind::Cubin;
  if (!cubin && !options.resourceReport && !options.failOnSpill) {
    result.text = std::move(ptx);
    result.ok = true;
    return;
  }
  // ptxas gives the resource report; a PTX emit assembles to a scratch file.
  std::string cubinPath = options.outputPath;
  llvm::SmallString<128> scratch;
  if (!cubin) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "kda-kernel", "cubin", scratch)) {
      result.error = "error: cannot create a temporary file: " + ec.message();
      return;
    }
    cubinPath = scratch.str().str();
  }
  ResourceReport report;
  bool assembled = assemblePTX(ptx, target, cubinPath, report, result.error);
  if (!cubin)
    llvm::sys::fs::remove(cubinPath);
  if (!assembled)
    return;
  timer.done("ptxas");
  for (KernelResources &k : report.kernels) {
    if (result.sharedBytes > 0)
      k.dynamicSharedBytes = result.sharedBytes;
    if (result.clusterShape != std::array<int32_t, 3>{1, 1, 1})
      k.clusterShape = result.clusterShape;
  }
  setNVIDIAOccupancy(report, options.numWarps);
  result.resourceReport = report.str();
  if (!checkSpills(report, options, result.error)) {
    if (cubin)
      llvm::sys::fs::remove(cubinPath);
    return;
  }
  if (!cubin)
    result.text = std::move(ptx);
  result.ok = true;
}
} // namespace

std::string kda::checkEmitForTarget(EmitKind emit, llvm::StringRef target) {
  std::optional<GPUTargetInfo> gpu = lookupGPUTarget(target);
  bool ok;
  llvm::StringRef expected;
  if (!gpu) {
    ok = emit != EmitKind::Gpu && emit != EmitKind::Hsaco &&
         emit != EmitKind::Ptx && emit != EmitKind::Cubin;
    expected = "tile, mlir, llvm, asm, obj or so";
  } else if (gpu->isAMD()) {
    ok = emit != EmitKind::SO && emit != EmitKind::Ptx &&
         emit != EmitKind::Cubin;
    expected = "tile, gpu, llvm, asm, obj or hsaco";
  } else {
    ok = emit != EmitKind::SO && emit != EmitKind::Obj &&
         emit != EmitKind::Hsaco;
    expected = "tile, gpu, llvm, ptx (or asm) or cubin";
  }
  if (ok)
    return "";
  return "error: --emit " + emitName(emit).str() + " is not available for " +
         "target " + target.str() + " (expected " + expected.str() + ")";
}

void kda::compileForGPU(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                        const GPUTargetInfo &target,
                        const CompileOptions &options, CompileResult &result) {
  StageTimer timer(result);
  {
    GPUPipelineOptions pipeline;
    pipeline.target = target.name;
    pipeline.numWarps = options.numWarps;
    pipeline.blockCopyEngine = options.blockCopyEngine;
    pipeline.lineInfo = options.lineInfo;
    if (!runPipeline(
            ctx, module,
            [&](mlir::OpPassManager &pm) {
              buildGPULoweringPipeline(pm, pipeline);
            },
            "error: GPU lowering failed for " + target.name + ":", result.error,
            options.printIRAfter, &result.passesRun))
      return;
    timer.done("kda-gpu-lower");
  }
  if (auto bytes = module->getAttrOfType<mlir::IntegerAttr>(
          GPULoweringState::kDynamicSharedBytesAttr))
    result.sharedBytes = bytes.getInt();
  if (auto kernel = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(
          options.request.kernelName))
    if (auto maps =
            kernel->getAttrOfType<mlir::ArrayAttr>(tile::kTensorMapsAttrName))
      for (mlir::Attribute recipe : maps) {
        llvm::ArrayRef<int64_t> tokens =
            llvm::cast<mlir::DenseI64ArrayAttr>(recipe).asArrayRef();
        result.tensorMaps.emplace_back(tokens.begin(), tokens.end());
      }
  if (options.emit == EmitKind::Gpu || options.emit == EmitKind::MLIR) {
    result.text = printOp(module, options.printLocations);
    result.ok = true;
    return;
  }
  if (!checkKernel(module, options.request.kernelName, target, result.error))
    return;
  if (target.isAMD())
    compileForAMDGPU(module, target, options, result, timer);
  else
    compileForNVPTX(module, target, options, result, timer);
}
