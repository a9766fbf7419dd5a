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

LogicalResult SharedDotOp::verify() {
  SharedBufferType a = getA().getType(), b = getB().getType();
  auto c = cast<RankedTensorType>(getAcc().getType());
  if (a.getShape().size() != 2 || b.getShape().size() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D buffers and a 2-D accumulator");
  int64_t m = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[1];
  if (b.getShape()[0] != k)
    return emitOpError("contraction sizes differ: a is ")
           << m << "x" << k << ", b is " << b.getShape()[0] << "x" << n;
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError("accumulator must be ") << m << "x" << n;
  Type elem = a.getElementType();
  if (elem != b.getElementType() || !isa<BFloat16Type, Float16Type>(elem))
    return emitOpError("a and b must both hold bf16 or both f16, got ")
           << elem << " and " << b.getElementType();
  for (auto [name, buffer] : {std::pair("a", a), std::pair("b", b)})
    if (!isa_and_nonnull<NVMMASharedLayoutAttr>(buffer.getLayout()))
      return emitOpError() << name << " needs a #tile.nvmma_shared layout, got "
                           << buffer;
  if (m % 64 || k % 16 || n % 8)
    return emitOpError("needs M a multiple of 64, K of 16 and N of 8, got ")
           << m << "x" << k << "x" << n;
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(c.getEncoding());
      c.getEncoding() && (!mma || mma.getInstr() != MatrixInstr::WgmmaM64K16))
    return emitOpError("accumulator layout must be a wgmma_m64k16 #tile.mma, "
                       "got ")
           << c.getEncoding();
  return success();
}

LogicalResult DotWaitOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0)
    return emitOpError("pending must not be negative, got ") << pending;
  return success();
}

LogicalResult MakeTensorDescOp::verify() {
  TensorDescType desc = getResult().getType();
  size_t rank = desc.getBlockShape().size();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError("needs one size and one stride per dimension of the "
                       "block (")
           << rank << "), got " << getShape().size() << " and "
           << getStrides().size();
  PointerType base = getBase().getType();
  if (base.getPointeeType() != desc.getElementType())
    return emitOpError("base points to ")
           << base.getPointeeType() << " but the descriptor holds "
           << desc.getElementType();
  if (base.getAddressSpace() != 1)
    return emitOpError("describes global memory (address space 1), got ")
           << base;
  return success();
}

/// The block of `desc` moves to or from the whole of `buffer`.
static LogicalResult verifyBlockTransfer(Operation *op, TensorDescType desc,
                                         size_t numOffsets,
                                         SharedBufferType buffer) {
  if (numOffsets != desc.getBlockShape().size())
    return op->emitOpError("needs one offset per dimension of the block (")
           << desc.getBlockShape().size() << "), got " << numOffsets;
  if (buffer.getShape() != desc.getBlockShape() ||
      buffer.getElementType() != desc.getElementType())
    return op->emitOpError("buffer ")
           << buffer << " does not hold a block of " << desc;
  if (desc.getLayout() && buffer.getLayout() != desc.getLayout())
    return op->emitOpError("buffer ")
           << buffer << " does not have the descriptor's layout "
           << desc.getLayout();
  return success();
}

LogicalResult AsyncLoadOp::verify() {
  return verifyBlockTransfer(*this, getDesc().getType(), getOffsets().size(),
                             getBuffer().getType());
}

LogicalResult AsyncStoreOp::verify() {
  return verifyBlockTransfer(*this, getDesc().getType(), getOffsets().size(),
                             getBuffer().getType());
}
