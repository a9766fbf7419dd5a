//===- DistributedUtils.cpp - registers, coordinates and scratch ----------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "kda/Layout/LayoutAttrs.h"
#include "kda/Layout/ScratchPadding.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kda;

TileToGPUTypeConverter::TileToGPUTypeConverter(MLIRContext *ctx,
                                               unsigned sharedAddressSpace) {
  addConversion([](Type type) { return type; });
  addConversion([ctx](tile::PointerType type) -> Type {
    return LLVM::LLVMPointerType::get(ctx, type.getAddressSpace());
  });
  addConversion([ctx, sharedAddressSpace](tile::SharedBufferType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, sharedAddressSpace);
  });
  addConversion([ctx](tile::TensorDescType type) -> Type {
    size_t rank = type.getBlockShape().size();
    SmallVector<Type> fields = {LLVM::LLVMPointerType::get(ctx, 1)};
    fields.append(rank, IntegerType::get(ctx, 32));
    fields.append(rank, IntegerType::get(ctx, 64));
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!tile::isDistributedLayout(type.getEncoding()))
      return std::nullopt;
    Type elem = convertType(type.getElementType());
    if (!elem)
      return std::nullopt;
    int64_t regs = getTileLayout(type).getSize(HWDim::Register);
    return LLVM::LLVMStructType::getLiteral(type.getContext(),
                                            SmallVector<Type>(regs, elem));
  });
}

LinearLayout kda::getTileLayout(Type tensorType) {
  return toLinearLayout(cast<RankedTensorType>(tensorType));
}

SmallVector<Value> kda::unpackRegisters(OpBuilder &b, Location loc,
                                        Value packed) {
  auto type = cast<LLVM::LLVMStructType>(packed.getType());
  SmallVector<Value> regs;
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, packed, i));
  return regs;
}

Value kda::packRegisters(OpBuilder &b, Location loc, Type structType,
                         ValueRange regs) {
  Value packed = LLVM::PoisonOp::create(b, loc, structType);
  for (auto [i, reg] : llvm::enumerate(regs))
    packed = LLVM::InsertValueOp::create(b, loc, packed, reg, int64_t(i));
  return packed;
}

ThreadIndex kda::getThreadIndex(OpBuilder &b, Location loc,
                                GPULoweringState &state) {
  Type i32 = b.getI32Type();
  unsigned wave = state.hooks->getWaveSize();
  Value tid = state.hooks->getThreadId(b, loc);
  Value lane = LLVM::AndOp::create(
      b, loc, tid, LLVM::ConstantOp::create(b, loc, i32, int(wave - 1)));
  Value warp = LLVM::LShrOp::create(
      b, loc, tid,
      LLVM::ConstantOp::create(b, loc, i32, int(llvm::Log2_32(wave))));
  return {lane, warp};
}

SmallVector<Value> kda::emitLaneWarpCoords(OpBuilder &b, Location loc,
                                           const LinearLayout &layout,
                                           ThreadIndex thread) {
  Type i32 = b.getI32Type();
  SmallVector<Value> coords;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value coord = LLVM::ConstantOp::create(b, loc, i32, 0);
    for (auto [hw, index] :
         {std::pair{HWDim::Lane, thread.lane}, {HWDim::Warp, thread.warp}}) {
      for (unsigned bit = 0; bit < layout.getNumBits(hw); ++bit) {
        int64_t basis = layout.getBasis(hw, bit)[d];
        if (basis == 0)
          continue;
        // ((index >> bit) & 1) * basis, XORed into the coordinate.
        Value set = LLVM::AndOp::create(
            b, loc,
            LLVM::LShrOp::create(b, loc, index,
                                 LLVM::ConstantOp::create(b, loc, i32, bit)),
            LLVM::ConstantOp::create(b, loc, i32, 1));
        Value term = LLVM::MulOp::create(
            b, loc, set, LLVM::ConstantOp::create(b, loc, i32, basis));
        coord = LLVM::XOrOp::create(b, loc, coord, term);
      }
    }
    coords.push_back(coord);
  }
  return coords;
}

SmallVector<Value> kda::emitCoords(OpBuilder &b, Location loc,
                                   const LinearLayout &layout, int64_t reg,
                                   ValueRange laneWarpCoords) {
  Type i32 = b.getI32Type();
  LinearLayout::Coord constant = layout.applyDim(HWDim::Register, reg);
  SmallVector<Value> coords;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value c = LLVM::ConstantOp::create(b, loc, i32, constant[d]);
    if (isRegisterOffsetDisjoint(layout, reg, d))
      coords.push_back(LLVM::AddOp::create(b, loc, laneWarpCoords[d], c));
    else
      coords.push_back(LLVM::XOrOp::create(b, loc, laneWarpCoords[d], c));
  }
  return coords;
}

bool kda::isRegisterOffsetDisjoint(const LinearLayout &layout, int64_t reg,
                                   unsigned dim) {
  int64_t laneWarpBits = 0;
  for (HWDim hw : {HWDim::Lane, HWDim::Warp})
    for (unsigned bit = 0; bit < layout.getNumBits(hw); ++bit)
      laneWarpBits |= layout.getBasis(hw, bit)[dim];
  return (layout.applyDim(HWDim::Register, reg)[dim] & laneWarpBits) == 0;
}

Value kda::emitLinearIndex(OpBuilder &b, Location loc, ValueRange coords,
                           ArrayRef<int64_t> shape) {
  Type i32 = b.getI32Type();
  Value index = LLVM::ConstantOp::create(b, loc, i32, 0);
  for (auto [c, size] : llvm::zip_equal(coords, shape)) {
    index = LLVM::MulOp::create(b, loc, index,
                                LLVM::ConstantOp::create(b, loc, i32, size));
    index = LLVM::AddOp::create(b, loc, index, c);
  }
  return index;
}

Value kda::emitExtractBits(OpBuilder &b, Location loc, Value value,
                           uint64_t mask) {
  Type i32 = b.getI32Type();
  Value result = LLVM::ConstantOp::create(b, loc, i32, 0);
  unsigned out = 0;
  for (unsigned bit = 0; bit < 32; ++bit) {
    if (!(mask & (uint64_t(1) << bit)))
      continue;
    Value set = LLVM::AndOp::create(
        b, loc,
        LLVM::LShrOp::create(b, loc, value,
                             LLVM::ConstantOp::create(b, loc, i32, bit)),
        LLVM::ConstantOp::create(b, loc, i32, 1));
    result = LLVM::OrOp::create(
        b, loc, result,
        LLVM::ShlOp::create(b, loc, set,
                            LLVM::ConstantOp::create(b, loc, i32, out++)));
  }
  return result;
}

Value kda::getScratch(OpBuilder &b, Location loc, GPULoweringState &state,
                      int64_t bytes) {
  state.scratchBytes = std::max(state.scratchBytes, bytes);
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(),
                                          state.hooks->getSharedAddressSpace());
  return LLVM::AddressOfOp::create(b, loc, ptrTy,
                                   GPULoweringState::kScratchSymbol);
}

int64_t kda::getScratchElementBytes(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

namespace {
Type getScratchStorageType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  return type;
}
} // namespace

void kda::storeScratch(OpBuilder &b, Location loc, Value base, Value index,
                       Value value) {
  Type type = value.getType();
  Type storage = getScratchStorageType(type);
  if (storage != type)
    value = LLVM::ZExtOp::create(b, loc, storage, value);
  Value addr = LLVM::GEPOp::create(b, loc, base.getType(), storage, base,
                                   ValueRange{index});
  LLVM::StoreOp::create(b, loc, value, addr, getScratchElementBytes(type));
}

Value kda::loadScratch(OpBuilder &b, Location loc, Value base, Value index,
                       Type type) {
  Type storage = getScratchStorageType(type);
  Value addr = LLVM::GEPOp::create(b, loc, base.getType(), storage, base,
                                   ValueRange{index});
  Value v =
      LLVM::LoadOp::create(b, loc, storage, addr, getScratchElementBytes(type));
  if (storage != type)
    v = LLVM::TruncOp::create(b, loc, type, v);
  return v;
}

std::optional<SmallVector<int64_t>> kda::getRegisterRemap(
    const LinearLayout &src, const LinearLayout &dst,
    function_ref<LinearLayout::Coord(ArrayRef<int64_t>)> toSourceCoord) {
  for (HWDim hw : {HWDim::Lane, HWDim::Warp}) {
    if (src.getNumBits(hw) != dst.getNumBits(hw))
      return std::nullopt;
    for (unsigned bit = 0; bit < dst.getNumBits(hw); ++bit)
      if (toSourceCoord(dst.getBasis(hw, bit)) !=
          LinearLayout::Coord(src.getBasis(hw, bit)))
        return std::nullopt;
  }
  SmallVector<int64_t> remap;
  for (int64_t r = 0; r < dst.getSize(HWDim::Register); ++r) {
    std::optional<int64_t> srcReg =
        src.findRegister(toSourceCoord(dst.applyDim(HWDim::Register, r)));
    if (!srcReg)
      return std::nullopt;
    remap.push_back(*srcReg);
  }
  return remap;
}

SmallVector<Value>
kda::exchangeThroughScratch(OpBuilder &b, Location loc, GPULoweringState &state,
                            ValueRange srcRegs, const LinearLayout &src,
                            const LinearLayout &dst, Type elementType) {
  int64_t numElements = 1;
  for (int64_t s : src.getShape())
    numElements *= s;
  int64_t elementBytes = getScratchElementBytes(elementType);
  int64_t rowLength = src.getShape().empty() ? 1 : src.getShape().back();
  int64_t rowPadding = getScratchRowPadding(src, dst, elementBytes);
  Value base = getScratch(b, loc, state,
                          (numElements + numElements / rowLength * rowPadding) *
                              elementBytes);
  ThreadIndex thread = getThreadIndex(b, loc, state);
  Type i32 = b.getI32Type();
  // Rows (the last dimension) rowPadding elements apart beyond their length;
  // the column is added last so that neighbouring elements stay neighbours.
  auto scratchIndex = [&](SmallVector<Value> coords,
                          ArrayRef<int64_t> shape) -> Value {
    if (rowPadding == 0)
      return emitLinearIndex(b, loc, coords, shape);
    Value column = coords.pop_back_val();
    Value row = emitLinearIndex(b, loc, coords, shape.drop_back());
    return LLVM::AddOp::create(
        b, loc,
        LLVM::MulOp::create(
            b, loc, row,
            LLVM::ConstantOp::create(b, loc, i32, rowLength + rowPadding)),
        column);
  };
  // Earlier readers of the scratch buffer must be done before it is reused.
  state.hooks->sharedMemoryBarrier(b, loc);
  SmallVector<Value> srcLaneWarp = emitLaneWarpCoords(b, loc, src, thread);
  uint64_t dupRegs = src.getDuplicateMask(HWDim::Register);
  for (auto [r, value] : llvm::enumerate(srcRegs)) {
    if (int64_t(r) & dupRegs)
      continue; // another register holds the same element
    Value index =
        scratchIndex(emitCoords(b, loc, src, r, srcLaneWarp), src.getShape());
    storeScratch(b, loc, base, index, value);
  }
  state.hooks->sharedMemoryBarrier(b, loc);
  SmallVector<Value> dstLaneWarp = emitLaneWarpCoords(b, loc, dst, thread);
  SmallVector<Value> result;
  for (int64_t r = 0; r < dst.getSize(HWDim::Register); ++r) {
    Value index =
        scratchIndex(emitCoords(b, loc, dst, r, dstLaneWarp), dst.getShape());
    result.push_back(loadScratch(b, loc, base, index, elementType));
  }
  return result;
}

Value kda::emitIsFirstThread(OpBuilder &b, Location loc,
                             GPULoweringState &state) {
  // Ops in a fixed order: C++ leaves the order of argument evaluation open.
  Value thread = state.hooks->getThreadId(b, loc);
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, thread, zero);
}

Value kda::emitIsElementOwner(OpBuilder &b, Location loc,
                              const LinearLayout &layout, ThreadIndex thread) {
  Type i32 = b.getI32Type();
  auto isZero = [&](Value v, uint64_t mask) -> Value {
    Value bits = LLVM::AndOp::create(
        b, loc, v, LLVM::ConstantOp::create(b, loc, i32, mask));
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, bits,
                                LLVM::ConstantOp::create(b, loc, i32, 0));
  };
  Value owner;
  if (uint64_t lanes = layout.getDuplicateMask(HWDim::Lane))
    owner = isZero(thread.lane, lanes);
  if (uint64_t warps = layout.getDuplicateMask(HWDim::Warp))
    owner = andGuards(b, loc, owner, isZero(thread.warp, warps));
  return owner;
}

Value kda::andGuards(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return LLVM::AndOp::create(b, loc, x, y);
}
