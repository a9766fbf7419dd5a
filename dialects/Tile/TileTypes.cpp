//===- TileTypes.cpp - tile dialect types ---------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kda::tile;

#define GET_TYPEDEF_CLASSES
#include "Tile/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/TileTypes.cpp.inc"
      >();
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, unsigned addressSpace) {
  if (!pointeeType.isIntOrFloat())
    return emitError() << "pointee must be an integer or float type, got "
                       << pointeeType;
  return success();
}

Type kda::tile::getElementTypeOrSelf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

Type kda::tile::getPointeeLikeType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    if (!ptr)
      return {};
    return tensor.clone(ptr.getPointeeType());
  }
  if (auto ptr = dyn_cast<PointerType>(ptrLike))
    return ptr.getPointeeType();
  return {};
}

Type kda::tile::getI1LikeType(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}
