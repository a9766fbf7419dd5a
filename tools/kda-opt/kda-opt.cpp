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
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  kda::registerKDAConversionPasses();
  kda::registerKDATransformsPasses();
  kda::registerPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<kda::tile::TileDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kdatile optimizer driver\n", registry));
}
