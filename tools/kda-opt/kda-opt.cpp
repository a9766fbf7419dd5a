//===- kda-opt.cpp - replay kdatile passes and pipelines ------------------===//
//
// Registers the tile dialect, every kdatile pass and the named pipelines that
// kda-compile and the Python JIT run, so any step can be replayed:
//   kda-opt kernel.mlir --kda-cpu-pipeline
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/Passes.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace {

bool asksForHelp(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    // --help, --help-list, --help-hidden, ...
    if (llvm::StringRef(argv[i]).ltrim('-').starts_with("help"))
      return true;
  }
  return false;
}

/// The options registered by static constructors before main (LLVM's backend
/// and code-generation flags, over a thousand) move to --help-hidden; they are
/// still accepted. MLIR's own options are registered later, inside
/// MlirOptMain, and stay in --help.
void hideStaticGeneralOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    for (llvm::cl::OptionCategory *category : option->Categories)
      if (category == &llvm::cl::getGeneralCategory() &&
          option->getOptionHiddenFlag() == llvm::cl::NotHidden)
        option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace

int main(int argc, char **argv) {
  hideStaticGeneralOptions();
  kda::registerKDAConversionPasses();
  kda::registerKDATransformsPasses();
  kda::registerPipelines();
  // Only kdatile's passes and pipelines are registered yet: --help lists them
  // first, then the full option list with MLIR's passes.
  if (asksForHelp(argc, argv)) {
    llvm::outs() << "kdatile passes and pipelines (kda-compile runs the "
                    "pipelines; every option follows):\n\n";
    mlir::printRegisteredPasses();
    llvm::outs() << "Pass Pipelines:\n";
    for (llvm::StringRef name : kda::pipelineNames())
      mlir::PassPipelineInfo::lookup(name)->printHelpStr(/*indent=*/2,
                                                         /*descIndent=*/35);
    llvm::outs() << "\nLLVM's code-generation flags are accepted and listed by "
                    "--help-hidden.\n\n";
  }
  mlir::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<kda::tile::TileDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kdatile optimizer driver\n", registry));
}
