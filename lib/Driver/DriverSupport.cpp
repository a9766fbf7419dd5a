//===- DriverSupport.cpp - pieces every compile stage shares --------------===//
#include "kda/Driver/DriverSupport.h"
#include "Tile/TileDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace kda;

void StageTimer::done(llvm::StringRef stage) {
  auto now = std::chrono::steady_clock::now();
  result.timings.emplace_back(
      stage.str(), std::chrono::duration<double>(now - last).count());
  last = now;
}

std::string kda::printOp(mlir::Operation *op, bool withLocations) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo();
  op->print(os, flags);
  return text;
}

bool kda::finishWithLLVMText(const CompileOptions &options,
                             llvm::Module &module, CompileResult &result) {
  if (options.emit != EmitKind::LLVM)
    return false;
  llvm::raw_string_ostream os(result.text);
  module.print(os, nullptr);
  result.ok = true;
  return true;
}

std::string kda::formatLocation(mlir::Location loc) {
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

namespace {
/// Records the argument of every pass that runs.
struct PassRecorder : mlir::PassInstrumentation {
  explicit PassRecorder(std::vector<std::string> &names) : names(names) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *) override {
    names.push_back(pass->getArgument().str());
  }
  std::vector<std::string> &names;
};
} // namespace

bool kda::runPipeline(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                      llvm::function_ref<void(mlir::OpPassManager &)> build,
                      llvm::StringRef headline, std::string &error,
                      llvm::StringRef printIRAfter,
                      std::vector<std::string> *passesRun) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << formatLocation(diag.getLocation()) << ": error: " << diag << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(&ctx);
  build(pm);
  if (passesRun)
    pm.addInstrumentation(std::make_unique<PassRecorder>(*passesRun));
  if (!printIRAfter.empty()) {
    // Whole-module printing needs the passes to run one at a time.
    ctx.disableMultithreading();
    std::string which = printIRAfter.str();
    pm.enableIRPrinting([](mlir::Pass *, mlir::Operation *) { return false; },
                        [which](mlir::Pass *pass, mlir::Operation *) {
                          return which == "all" || pass->getArgument() == which;
                        },
                        /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false);
  }
  if (mlir::succeeded(pm.run(module)))
    return true;
  error = headline.str() + "\n" + diagnostics;
  return false;
}

std::array<int32_t, 3> kda::getKernelClusterShape(mlir::ModuleOp module) {
  std::array<int32_t, 3> shape = {1, 1, 1};
  if (auto attr = module->getAttrOfType<mlir::DenseI32ArrayAttr>(
          kda::tile::kClusterShapeAttrName)) {
    if (attr.size() == 3)
      llvm::copy(attr.asArrayRef(), shape.begin());
    return shape;
  }
  mlir::FailureOr<std::array<int32_t, 3>> asked =
      kda::tile::getClusterShape(module);
  return mlir::succeeded(asked) ? *asked : shape;
}
