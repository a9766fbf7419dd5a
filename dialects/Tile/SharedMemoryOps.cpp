//===- SharedMemoryOps.cpp - shared buffers and asynchronous copies -------===//
#include "Tile/TileDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace kda::tile;

LogicalResult AllocSharedOp::verify() {
  // Buffers are laid out once per kernel, so each must exist exactly once.
  Operation *parent = (*this)->getParentOp();
  if (!isa_and_nonnull<FunctionOpInterface>(parent) ||
      (*this)->getBlock() != &parent->getRegion(0).front())
    return emitOpError("must be in the entry block of a function (not in a "
                       "loop or a branch)");
  return success();
}

LogicalResult SmemIndexOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (buffer.getShape().size() < 2)
    return emitOpError("needs a buffer of rank 2 or more, got ") << buffer;
  if (getResult().getType() != buffer.getSliceType())
    return emitOpError("result must be ")
           << buffer.getSliceType() << ", got " << getResult().getType();
  return success();
}

/// A tile of the buffer's shape and element type (any layout).
static LogicalResult verifyMatchesBuffer(Operation *op, SharedBufferType buffer,
                                         RankedTensorType tile,
                                         StringRef what) {
  if (tile.getShape() != buffer.getShape() ||
      tile.getElementType() != buffer.getElementType())
    return op->emitOpError()
           << what << " " << tile << " does not match the buffer " << buffer;
  return success();
}

LogicalResult SmemLoadOp::verify() {
  return verifyMatchesBuffer(*this, getBuffer().getType(),
                             cast<RankedTensorType>(getResult().getType()),
                             "result");
}

LogicalResult SmemStoreOp::verify() {
  return verifyMatchesBuffer(*this, getBuffer().getType(),
                             cast<RankedTensorType>(getValue().getType()),
                             "value");
}

LogicalResult AsyncCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  auto ptrType = cast<RankedTensorType>(getPtr().getType());
  auto ptr = cast<PointerType>(ptrType.getElementType());
  if (ptr.getAddressSpace() != 1)
    return emitOpError("copies from global memory (address space 1), got ")
           << ptr;
  return verifyMatchesBuffer(
      *this, buffer, cast<RankedTensorType>(getPointeeLikeType(ptrType)),
      "pointee tile");
}
