//===- TileDialect.cpp - the tile dialect ---------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kda::tile;

#include "Tile/TileDialect.cpp.inc"
#include "Tile/TileEnums.cpp.inc"

void TileDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Tile/TileOps.cpp.inc"
      >();
}
