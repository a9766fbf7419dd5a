//===- Pipelines.cpp - named compilation pipelines ------------------------===//
#include "kda/Pipelines/Pipelines.h"
#include "Tile/TileDialect.h"
#include "kda/Conversion/Passes.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"
#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Target/GPUTarget.h"
#include "kda/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kda::buildTileSimplifyPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void kda::buildCPULoweringPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  pm.addPass(createTileExpandTensorDescs());
  ConvertTileToCPUOptions toCPU;
  toCPU.checkBounds = options.checkBounds;
  pm.addPass(createConvertTileToCPU(toCPU));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Fusing elementwise chains keeps temporaries (and their allocations) out
  // of the hot loops.
  pm.addPass(createLinalgElementwiseOpFusionPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Tiles carried by loops get a fresh buffer per iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createLowerAffinePass());

  // Narrow floats are computed in f32; legalize-host-narrow-floats turns
  // what is left of them into integer code at the end.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16", "f16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(arith::createArithExpandOpsPass());

  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createLegalizeHostNarrowFloats());
  pm.addPass(createCanonicalizerPass());
}

void kda::buildGPULoweringPipeline(OpPassManager &pm,
                                   const GPUPipelineOptions &options) {
  // The wave size is the target's: the layouts must describe its lanes.
  std::optional<GPUTargetInfo> target = lookupGPUTarget(options.target);
  TileAssignLayoutsOptions layouts;
  layouts.numWarps = options.numWarps;
  layouts.waveSize = target ? target->waveSize : 32;
  // Block copies the target's engine cannot do copy elements.
  TileExpandTensorDescsOptions blockCopies;
  if (std::unique_ptr<TargetHooks> hooks = createTargetHooks(options.target)) {
    for (tile::MatrixInstr instr : hooks->getMatrixInstrs())
      layouts.matrixInstrs.push_back(tile::stringifyMatrixInstr(instr).str());
    if (options.blockCopyEngine)
      blockCopies.engine = hooks->getBlockCopyEngine().str();
  }
  pm.addPass(createTileExpandTensorDescs(blockCopies));
  TileSharedDotsOptions sharedDots;
  sharedDots.numWarps = layouts.numWarps;
  sharedDots.matrixInstrs = layouts.matrixInstrs;
  pm.addPass(createTileSharedDots(sharedDots));
  pm.addPass(createTileAssignLayouts(layouts));
  pm.addPass(createTileRemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ConvertTileToGPUOptions toGPU;
  toGPU.target = options.target;
  pm.addPass(createConvertTileToGPU(toGPU));
  // NVVM ops without intrinsics (wgmma.mma_async) become inline PTX.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  FinalizeGPUKernelsOptions finalize;
  finalize.target = options.target;
  pm.addPass(createFinalizeGPUKernels(finalize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.lineInfo) {
    // NVPTX emits .loc / .file for debug directives (what ptxas -lineinfo
    // reads) without DWARF sections; AMD code objects carry line tables.
    AttachLineInfoOptions lines;
    lines.emissionKind = target && target->vendor == GPUTargetInfo::NVIDIA
                             ? "directives"
                             : "line-tables";
    pm.addPass(createAttachLineInfo(lines));
  }
}

void kda::buildCPUPipeline(OpPassManager &pm,
                           const CPUPipelineOptions &options) {
  buildTileSimplifyPipeline(pm);
  buildCPULoweringPipeline(pm, options);
}

namespace {
struct GPUPipelineCLOptions : public PassPipelineOptions<GPUPipelineCLOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("sm_90a, gfx950 or gfx1250"),
                             llvm::cl::init("sm_90a")};
  Option<unsigned> numWarps{*this, "num-warps",
                            llvm::cl::desc("warps per program"),
                            llvm::cl::init(4)};
  Option<std::string> blockCopies{
      *this, "block-copies",
      llvm::cl::desc("engine (the target's block-copy engine where it can: "
                     "TMA on sm_90a, the Tensor Data Mover on gfx1250) or "
                     "elements"),
      llvm::cl::init("engine")};
  Option<bool> lineInfo{
      *this, "line-info",
      llvm::cl::desc("source lines in the code object (default true)"),
      llvm::cl::init(true)};
};
struct CPUPipelineCLOptions : public PassPipelineOptions<CPUPipelineCLOptions> {
  Option<bool> checkBounds{
      *this, "check-bounds",
      llvm::cl::desc("check every global-memory access against the extents "
                     "of its arrays"),
      llvm::cl::init(false)};
  kda::CPUPipelineOptions get() const { return {checkBounds}; }
};

constexpr llvm::StringLiteral kGPULower = "kda-gpu-lower";
constexpr llvm::StringLiteral kTileSimplify = "kda-tile-simplify";
constexpr llvm::StringLiteral kCPULower = "kda-cpu-lower";
constexpr llvm::StringLiteral kCPUPipeline = "kda-cpu-pipeline";
constexpr llvm::StringLiteral kPipelineNames[] = {kGPULower, kTileSimplify,
                                                  kCPULower, kCPUPipeline};
} // namespace

llvm::ArrayRef<llvm::StringLiteral> kda::pipelineNames() {
  return kPipelineNames;
}

/// Registers a pipeline of module passes. Nested under another op (say
/// `builtin.module(func.func(kda-cpu-lower))`) it is a pipeline error naming
/// the anchor, where adding the first module pass would abort the tool.
template <typename Options>
static void registerModulePipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<void(OpPassManager &, const Options &)> builder) {
  registerPassPipeline(
      arg, description,
      [arg, builder](
          OpPassManager &pm, llvm::StringRef text,
          llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler)
          -> LogicalResult {
        llvm::StringRef anchor = pm.getOpAnchorName();
        if (anchor != ModuleOp::getOperationName())
          return errorHandler("'" + arg +
                              "' runs on builtin.module, not nested under '" +
                              anchor + "'");
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        builder(pm, options);
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

void kda::registerPipelines() {
  registerModulePipeline<GPUPipelineCLOptions>(
      kGPULower,
      "Lower tile IR to LLVM-dialect kernels for a GPU target "
      "(target=sm_90a|gfx950|gfx1250 num-warps=N "
      "block-copies=engine|elements line-info=true|false)",
      [](OpPassManager &pm, const GPUPipelineCLOptions &cl) {
        GPUPipelineOptions options;
        options.target = cl.target;
        options.numWarps = cl.numWarps;
        options.blockCopyEngine = cl.blockCopies != "elements";
        options.lineInfo = cl.lineInfo;
        buildGPULoweringPipeline(pm, options);
      });
  registerModulePipeline<EmptyPipelineOptions>(
      kTileSimplify, "Clean up frontend output (canonicalize, CSE)",
      [](OpPassManager &pm, const EmptyPipelineOptions &) {
        buildTileSimplifyPipeline(pm);
      });
  registerModulePipeline<CPUPipelineCLOptions>(
      kCPULower,
      "Lower tile IR to the LLVM dialect for the host (check-bounds=false)",
      [](OpPassManager &pm, const CPUPipelineCLOptions &cl) {
        buildCPULoweringPipeline(pm, cl.get());
      });
  registerModulePipeline<CPUPipelineCLOptions>(
      kCPUPipeline,
      "What kda-compile --target cpu runs: kda-tile-simplify, kda-cpu-lower",
      [](OpPassManager &pm, const CPUPipelineCLOptions &cl) {
        buildCPUPipeline(pm, cl.get());
      });
}

void kda::registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, LLVM::LLVMDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerAtomicRMWMemoryEffects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // GPU kernels: ROCDL (AMD) and NVVM (NVIDIA) ops and their translations.
  registry.insert<ROCDL::ROCDLDialect, NVVM::NVVMDialect>();
  registerROCDLDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
