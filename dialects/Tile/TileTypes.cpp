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

Type SharedBufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute layout;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SharedBufferType>(parser.getContext(), shape,
                                             elementType, layout);
}

void SharedBufferType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType();
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute layout;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) ||
      (succeeded(parser.parseOptionalComma()) &&
       parser.parseAttribute(layout)) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<TensorDescType>(parser.getContext(), shape,
                                           elementType, layout);
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getBlockShape());
  printer << "x" << getElementType();
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> blockShape, Type elementType,
                       Attribute layout) {
  if (blockShape.empty() || blockShape.size() > 5)
    return emitError() << "a tensor descriptor's block has 1 to 5 dimensions, "
                          "got "
                       << blockShape.size();
  for (int64_t dim : blockShape)
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      return emitError() << "tensor descriptor block dimensions must be "
                            "powers of two, got "
                         << dim;
  if (!elementType.isIntOrFloat() || elementType.isInteger(1))
    return emitError() << "tensor descriptor elements must be integers or "
                          "floats of 8 bits or more, got "
                       << elementType;
  // The layout must be one a buffer of the block may have.
  if (layout)
    return SharedBufferType::verify(emitError, blockShape, elementType, layout);
  return success();
}

LogicalResult
SharedBufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType,
                         Attribute layout) {
  if (shape.empty())
    return emitError() << "a shared buffer needs at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "shared buffer dimensions must be positive";
  if (!elementType.isIntOrFloat() || elementType.isInteger(1))
    return emitError() << "shared buffer elements must be integers or "
                          "floats of 8 bits or more, got "
                       << elementType;
  if (!layout)
    return success();
  if (shape.size() < 2)
    return emitError() << "a shared buffer with a layout needs rows: rank 2 "
                          "or more";
  if (auto nvmma = dyn_cast<NVMMASharedLayoutAttr>(layout)) {
    if (elementType.getIntOrFloatBitWidth() != nvmma.getElementBits())
      return emitError() << "an nvmma_shared layout of "
                         << nvmma.getElementBits()
                         << "-bit elements cannot hold " << elementType;
    if (shape.back() % nvmma.getBlockColumns())
      return emitError() << "a row of " << shape.back()
                         << " elements is not whole " << nvmma.getSwizzleBytes()
                         << "-byte swizzle rows of " << nvmma.getBlockColumns()
                         << " elements";
    if (shape[shape.size() - 2] % 8)
      return emitError() << "an nvmma_shared buffer needs a multiple of 8 "
                            "rows, got "
                         << shape[shape.size() - 2];
    return success();
  }
  if (auto padded = dyn_cast<PaddedSharedLayoutAttr>(layout)) {
    if (padded.getOrder() != ArrayRef<unsigned>{1, 0})
      return emitError() << "padded shared buffers are row-major: order "
                            "must be [1, 0]";
    int64_t matrix = shape.back() * shape[shape.size() - 2];
    if (matrix % padded.getInterval())
      return emitError() << "a padding interval of " << padded.getInterval()
                         << " elements does not divide the " << matrix
                         << " elements of the last two dimensions";
    return success();
  }
  auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(layout);
  if (!swizzled)
    return emitError() << "shared buffer layouts are #tile.swizzled_shared, "
                          "#tile.nvmma_shared or #tile.padded_shared, got "
                       << layout;
  if (swizzled.getOrder() != ArrayRef<unsigned>{1, 0})
    return emitError() << "swizzled shared buffers are row-major: order "
                          "must be [1, 0]";
  int64_t cols = shape.back();
  if (cols % (int64_t(swizzled.getVec()) * swizzled.getMaxPhase()))
    return emitError() << "a row of " << cols << " elements does not hold "
                       << swizzled.getMaxPhase() << " phases of "
                       << swizzled.getVec() << "-element groups";
  return success();
}

int64_t SharedBufferType::getNumElements() const {
  int64_t n = 1;
  for (int64_t dim : getShape())
    n *= dim;
  return n;
}

int64_t SharedBufferType::getStorageElements() const {
  if (auto padded = dyn_cast_or_null<PaddedSharedLayoutAttr>(getLayout()))
    return padded.getPaddedIndex(getNumElements());
  return getNumElements();
}

SharedBufferType SharedBufferType::getSliceType() const {
  return SharedBufferType::get(getContext(), getShape().drop_front(),
                               getElementType(), getLayout());
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
