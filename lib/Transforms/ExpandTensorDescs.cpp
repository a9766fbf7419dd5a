//===- ExpandTensorDescs.cpp - block copies as element copies -------------===//
//
// The portable lowering of tile.async_load / tile.async_store: the block's
// element pointers and in-bounds mask from the descriptor's base, shape and
// strides, then the element-wise copy ops every target lowers.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Analysis/AxisInfo.h"
#include "kda/Analysis/NonNegative.h"
#include "kda/Conversion/GPUToROCDL/GFX1250/TensorDescriptor.h"
#include "kda/Conversion/GPUToROCDL/GFX950/LaneCopies.h"
#include "kda/Runtime/TensorMap.h"
#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace kda {
#define GEN_PASS_DEF_TILEEXPANDTENSORDESCS
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

namespace {

/// The pointers and in-bounds mask of the block of `desc` at `offsets`.
std::pair<Value, Value> getBlockPointers(OpBuilder &b, Location loc,
                                         tile::MakeTensorDescOp desc,
                                         ValueRange offsets) {
  ArrayRef<int64_t> block = desc.getResult().getType().getBlockShape();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  int64_t rank = block.size();
  // Dimension d's index tile, shaped 1 x ... x block[d] x ... x 1, then
  // broadcast to the block.
  auto spread = [&](Value v, int64_t d) {
    Type elem = cast<RankedTensorType>(v.getType()).getElementType();
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (axis == d)
        continue;
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(v.getType()).getShape());
      shape.insert(shape.begin() + axis, 1);
      v = tile::ExpandDimsOp::create(b, loc, RankedTensorType::get(shape, elem),
                                     v, b.getI32IntegerAttr(axis));
    }
    return tile::BroadcastOp::create(b, loc, RankedTensorType::get(block, elem),
                                     v)
        .getResult();
  };
  auto splat = [&](Value scalar, int64_t size) {
    return tile::SplatOp::create(
        b, loc, RankedTensorType::get({size}, scalar.getType()), scalar);
  };
  Value offset, mask;
  for (int64_t d = 0; d < rank; ++d) {
    auto type = RankedTensorType::get({block[d]}, i32);
    Value index = arith::AddIOp::create(
        b, loc, tile::RangeOp::create(b, loc, type, 0, block[d]),
        splat(offsets[d], block[d]));
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(0)));
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                              splat(desc.getShape()[d], block[d])));
    Value step = arith::MulIOp::create(
        b, loc,
        arith::ExtSIOp::create(b, loc, RankedTensorType::get({block[d]}, i64),
                               index),
        splat(desc.getStrides()[d], block[d]));
    Value stepTile = spread(step, d), insideTile = spread(inside, d);
    offset = offset
                 ? arith::AddIOp::create(b, loc, offset, stepTile).getResult()
                 : stepTile;
    mask = mask ? arith::AndIOp::create(b, loc, mask, insideTile).getResult()
                : insideTile;
  }
  Value bases = tile::SplatOp::create(
      b, loc, RankedTensorType::get(block, desc.getBase().getType()),
      desc.getBase());
  return {tile::AddPtrOp::create(b, loc, bases.getType(), bases, offset), mask};
}

/// Whether gfx1250's Tensor Data Mover does the block copy `op` of `desc`
/// into or out of `buffer` at `offsets`.
bool isTensorDataMoverCopy(Operation *op, tile::MakeTensorDescOp desc,
                           ValueRange offsets, tile::SharedBufferType buffer) {
  tile::TensorDescType type = desc.getResult().getType();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (type.getBlockShape().size() > gfx1250::kTDMMaxRank ||
      !llvm::is_contained({8u, 16u, 32u, 64u}, bits) ||
      !matchPattern(desc.getStrides().back(), m_One()))
    return false;
  // The engine writes the buffer row-major, padded as loads pad.
  if (Attribute layout = buffer.getLayout()) {
    auto padded = dyn_cast<tile::PaddedSharedLayoutAttr>(layout);
    if (!padded || !isa<tile::AsyncLoadOp>(op) ||
        !gfx1250::getPaddingEncoding(padded.getInterval() * bits / 8,
                                     padded.getPadding() * bits / 8))
      return false;
  }
  return llvm::all_of(type.getBlockShape(),
                      [](int64_t n) { return n <= gfx1250::kTDMMaxTileDim; }) &&
         llvm::all_of(offsets,
                      [&](Value v) { return isKnownNonNegative(v, op); });
}

/// The bytes per lane with which gfx950's buffer engine copies the block of
/// `desc` at `offsets` into or out of `buffer`, or nullopt when it cannot: a
/// row-major buffer, a last stride of 1, offsets known not to be negative,
/// and the widest lane-ordered width (gfx950::kLaneCopyBytes, at least an
/// element) that divides the block's rows and is a known divisor of the
/// base's alignment, of every stride and the innermost offset in bytes, and
/// of the innermost dimension (so no lane's group straddles the tensor's
/// end, which the hardware checks per lane).
std::optional<int64_t>
getBufferCopyVectorBytes(Operation *op, tile::MakeTensorDescOp desc,
                         ValueRange offsets, tile::SharedBufferType buffer,
                         const AxisInfoAnalysis &axisInfo) {
  tile::TensorDescType type = desc.getResult().getType();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t bytes = bits / 8;
  if (buffer.getLayout() || !llvm::is_contained({8u, 16u, 32u, 64u}, bits) ||
      !matchPattern(desc.getStrides().back(), m_One()) ||
      !llvm::all_of(offsets,
                    [&](Value v) { return isKnownNonNegative(v, op); }))
    return std::nullopt;
  auto divides = [&](int64_t width, Value v, int64_t scale) {
    return axisInfo.getAxisInfo(v).getDivisibility(0) * scale % width == 0;
  };
  for (int64_t width : gfx950::kLaneCopyBytes) {
    if (width < bytes || type.getBlockShape().back() * bytes % width ||
        !divides(width, desc.getBase(), 1) ||
        !divides(width, desc.getShape().back(), bytes) ||
        !divides(width, offsets.back(), bytes) ||
        !llvm::all_of(desc.getStrides().drop_back(),
                      [&](Value s) { return divides(width, s, bytes); }))
      continue;
    return width;
  }
  return std::nullopt;
}

/// The postfix tokens (kda/Runtime/TensorMap.h) computing `v` on the host
/// from the kernel's arguments, or nullopt when it depends on anything else.
std::optional<std::vector<int64_t>> getHostExpression(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front() ||
        !isa<IntegerType>(arg.getType()))
      return std::nullopt;
    return std::vector<int64_t>{tma::kPushArgument, arg.getArgNumber()};
  }
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return std::vector<int64_t>{tma::kPushConstant, constant.getSExtValue()};
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (isa<arith::ExtSIOp, arith::IndexCastOp>(op))
    return getHostExpression(op->getOperand(0));
  int64_t token = isa<arith::AddIOp>(op)   ? tma::kAdd
                  : isa<arith::SubIOp>(op) ? tma::kSub
                  : isa<arith::MulIOp>(op) ? tma::kMul
                                           : -1;
  if (token < 0)
    return std::nullopt;
  std::optional<std::vector<int64_t>> lhs =
      getHostExpression(op->getOperand(0));
  std::optional<std::vector<int64_t>> rhs =
      getHostExpression(op->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  lhs->insert(lhs->end(), rhs->begin(), rhs->end());
  lhs->push_back(token);
  return lhs;
}

/// Whether `buffer` is a tile.alloc_shared, or slices of one each a whole
/// number of kSharedAlignment bytes: TMA's blocks start 128-byte aligned,
/// and the lowering aligns the buffers TMA copies (prepareTensorMaps).
bool isWholeAlignedBuffer(Value buffer) {
  while (auto index = buffer.getDefiningOp<tile::SmemIndexOp>()) {
    tile::SharedBufferType slice = index.getType();
    if (slice.getStorageElements() *
        (slice.getElementType().getIntOrFloatBitWidth() / 8) %
        tma::kSharedAlignment)
      return false;
    buffer = index.getBuffer();
  }
  return buffer.getDefiningOp<tile::AllocSharedOp>() != nullptr;
}

/// The box TMA copies the block of `type` with into a buffer of `buffer`'s
/// type, and its swizzle: the whole block into a row-major buffer; into a
/// #tile.nvmma_shared one, one column block ([..., R, W], W elements of
/// swizzleBytes) at a time with that swizzle, where each column block is
/// contiguous (the leading dimensions are 1, or the block is one column
/// block wide).
std::optional<std::pair<std::vector<int64_t>, int64_t>>
getTensorMapBox(tile::TensorDescType type, tile::SharedBufferType buffer) {
  ArrayRef<int64_t> block = type.getBlockShape();
  std::vector<int64_t> box(block.begin(), block.end());
  Attribute layout = buffer.getLayout();
  if (!layout)
    return std::make_pair(box, int64_t(0));
  auto nvmma = dyn_cast<tile::NVMMASharedLayoutAttr>(layout);
  int64_t leading = 1;
  for (int64_t n : block.drop_back(std::min<size_t>(2, block.size())))
    leading *= n;
  if (!nvmma || block.size() < 2 ||
      nvmma.getElementBits() != type.getElementType().getIntOrFloatBitWidth() ||
      block.back() % nvmma.getBlockColumns() ||
      (leading != 1 && block.back() != nvmma.getBlockColumns()))
    return std::nullopt;
  box.back() = nvmma.getBlockColumns();
  return std::make_pair(box, int64_t(nvmma.getSwizzleBytes()));
}

/// The tensor-map recipe of `desc` when the host can build its tensor map
/// and TMA can copy its block at `offsets` into a buffer of `buffer`'s type:
/// the base is a kernel argument known to be 16-byte aligned, the shape and
/// strides are computed from kernel arguments, every stride but the last (1)
/// and the innermost offset are known multiples of 16 bytes (TMA faults on
/// other innermost starts), and the box (getTensorMapBox) fits
/// (tma::isBlockSupported).
std::optional<std::vector<int64_t>>
getTensorMapRecipe(tile::MakeTensorDescOp desc, ValueRange offsets,
                   tile::SharedBufferType buffer,
                   const AxisInfoAnalysis &axisInfo) {
  tile::TensorDescType type = desc.getResult().getType();
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t bytes = bits / 8;
  auto box = getTensorMapBox(type, buffer);
  auto base = dyn_cast<BlockArgument>(desc.getBase());
  auto func = desc->getParentOfType<func::FuncOp>();
  if (!box || !llvm::is_contained({8u, 16u, 32u, 64u}, bits) ||
      !tma::isBlockSupported(box->first.data(), box->first.size(), bytes,
                             box->second) ||
      !base || !func || !func->hasAttr("tile.kernel") ||
      base.getOwner() != &func.getBody().front() ||
      !matchPattern(desc.getStrides().back(), m_One()) ||
      axisInfo.getAxisInfo(base).getDivisibility(0) < tma::kAlignment ||
      axisInfo.getAxisInfo(offsets.back()).getDivisibility(0) * bytes %
          tma::kAlignment)
    return std::nullopt;
  std::vector<std::vector<int64_t>> shape, strides;
  for (Value dim : desc.getShape()) {
    std::optional<std::vector<int64_t>> e = getHostExpression(dim);
    if (!e)
      return std::nullopt;
    shape.push_back(std::move(*e));
  }
  for (Value stride : desc.getStrides().drop_back()) {
    std::optional<std::vector<int64_t>> e = getHostExpression(stride);
    if (!e || axisInfo.getAxisInfo(stride).getDivisibility(0) * bytes %
                  tma::kAlignment)
      return std::nullopt;
    strides.push_back(std::move(*e));
  }
  std::vector<int64_t> recipe;
  tma::appendRecipe(recipe, bytes, base.getArgNumber(), box->second, box->first,
                    shape, strides);
  return recipe;
}

/// What a TMA store needs beyond a load: offsets known not to be negative
/// (it faults there) and rows of whole 16-byte units (it leaves a 16-byte
/// unit the tensor's end cuts unwritten).
bool isTensorMapStore(Operation *op, tile::MakeTensorDescOp desc,
                      ValueRange offsets, const AxisInfoAnalysis &axisInfo) {
  int64_t bytes =
      desc.getResult().getType().getElementType().getIntOrFloatBitWidth() / 8;
  return axisInfo.getAxisInfo(desc.getShape().back()).getDivisibility(0) *
                 bytes % tma::kAlignment ==
             0 &&
         llvm::all_of(offsets,
                      [&](Value v) { return isKnownNonNegative(v, op); });
}

struct TileExpandTensorDescsPass
    : kda::impl::TileExpandTensorDescsBase<TileExpandTensorDescsPass> {
  using TileExpandTensorDescsBase::TileExpandTensorDescsBase;

  void runOnOperation() override {
    if (!engine.empty() && engine != "tdm" && engine != "tma" &&
        engine != "buffer") {
      getOperation().emitError("unknown block-copy engine '") << engine << "'";
      return signalPassFailure();
    }
    std::optional<AxisInfoAnalysis> axisInfo;
    if (engine == "tma" || engine == "buffer")
      axisInfo.emplace(getOperation());
    SmallVector<Operation *> copies;
    getOperation().walk([&](Operation *op) {
      if (isa<tile::AsyncLoadOp, tile::AsyncStoreOp>(op))
        copies.push_back(op);
    });
    for (Operation *op : copies) {
      Value descValue = op->getOperand(0);
      auto desc = descValue.getDefiningOp<tile::MakeTensorDescOp>();
      if (!desc) {
        op->emitOpError("needs a descriptor made by tile.make_tensor_desc in "
                        "the same function, got ")
            << descValue;
        return signalPassFailure();
      }
      auto buffer = cast<tile::SharedBufferType>(
          op->getOperand(op->getNumOperands() - 1).getType());
      ValueRange offsets = op->getOperands().slice(1, op->getNumOperands() - 2);
      bool onEngine = !desc->hasAttr(tile::kElementCopiesAttrName);
      if (onEngine && engine == "tdm" &&
          isTensorDataMoverCopy(op, desc, offsets, buffer))
        continue;
      if (onEngine && engine == "buffer")
        if (std::optional<int64_t> width = getBufferCopyVectorBytes(
                op, desc, offsets, buffer, *axisInfo)) {
          op->setAttr(
              tile::kCopyVectorBytesAttrName,
              IntegerAttr::get(IntegerType::get(op->getContext(), 64), *width));
          continue;
        }
      if (onEngine && engine == "tma" &&
          isWholeAlignedBuffer(op->getOperand(op->getNumOperands() - 1)) &&
          (isa<tile::AsyncLoadOp>(op) ||
           isTensorMapStore(op, desc, offsets, *axisInfo)))
        if (std::optional<std::vector<int64_t>> recipe =
                getTensorMapRecipe(desc, offsets, buffer, *axisInfo)) {
          desc->setAttr(tile::kTensorMapAttrName,
                        DenseI64ArrayAttr::get(desc.getContext(), *recipe));
          continue;
        }
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<tile::AsyncLoadOp>(op)) {
        auto [ptrs, mask] = getBlockPointers(b, loc, desc, load.getOffsets());
        tile::AsyncCopyOp::create(b, loc, load.getBuffer(), ptrs, mask);
      } else {
        auto store = cast<tile::AsyncStoreOp>(op);
        auto [ptrs, mask] = getBlockPointers(b, loc, desc, store.getOffsets());
        tile::SharedBufferType buffer = store.getBuffer().getType();
        Value value = tile::SmemLoadOp::create(
            b, loc,
            RankedTensorType::get(buffer.getShape(), buffer.getElementType()),
            store.getBuffer());
        tile::StoreOp::create(b, loc, ptrs, value, mask);
      }
      op->erase();
    }
    getOperation().walk([](tile::MakeTensorDescOp desc) {
      if (desc->use_empty())
        desc->erase();
    });
  }
};

} // namespace
