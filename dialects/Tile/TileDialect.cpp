//===- TileDialect.cpp - the tile dialect ---------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kda::tile;

#include "Tile/TileDialect.cpp.inc"
#include "Tile/TileEnums.cpp.inc"

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kMultipleOfAttrName && name != kMaxContiguousAttrName)
    return success();
  auto values = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!values)
    return op->emitOpError() << "'" << name << "' must be an i64 array";
  if (op->getNumResults() != 1)
    return op->emitOpError() << "'" << name << "' needs an op with one result";
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = type ? type.getRank() : 1;
  if (int64_t(values.size()) != rank)
    return op->emitOpError() << "'" << name << "' has " << values.size()
                             << " values for a result of rank " << rank;
  for (int64_t v : values.asArrayRef())
    if (v < 1 || (v & (v - 1)))
      return op->emitOpError()
             << "'" << name << "' values must be powers of two, got " << v;
  return success();
}

void TileDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Tile/TileOps.cpp.inc"
      >();
}
