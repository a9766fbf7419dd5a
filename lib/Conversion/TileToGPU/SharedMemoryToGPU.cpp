//===- SharedMemoryToGPU.cpp - shared buffers and asynchronous copies -----===//
//
// Each tile.alloc_shared becomes a module global in shared memory. Buffers
// are row-major (an nvmma_shared one in column blocks), with their layout's
// swizzle or padding: a register's element lives at getSharedAddress of its
// coordinate, and registers contiguous along the last dimension move as one
// vector when the layout keeps them together (getSharedRunElements).
// Asynchronous copies go from global to shared memory without registers where
// the target can (cp.async on NVIDIA) and through registers elsewhere; a wait
// is the target's wait plus a barrier.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"
#include "kda/Layout/MatrixLayouts.h"
#include "kda/Runtime/TensorMap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <numeric>

using namespace mlir;
using namespace kda;

std::string kda::createSharedBuffer(OpBuilder &b, Location loc, ModuleOp module,
                                    GPULoweringState &state, int64_t bytes,
                                    int64_t alignment) {
  std::string name =
      GPULoweringState::getSharedBufferSymbol(state.sharedBuffers.size());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), bytes),
                         /*isConstant=*/false, LLVM::Linkage::Internal, name,
                         Attribute(), alignment,
                         state.hooks->getSharedAddressSpace());
  state.sharedBuffers.push_back({bytes, alignment});
  state.sharedBufferAlignment =
      std::max(state.sharedBufferAlignment, alignment);
  return name;
}

std::pair<SmallVector<int64_t>, int64_t>
GPULoweringState::placeSharedBuffers() const {
  SmallVector<unsigned> order(sharedBuffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Creation order among equals (llvm::sort with the index as tiebreak).
  llvm::sort(order, [&](unsigned a, unsigned b) {
    int64_t x = sharedBuffers[a].alignment, y = sharedBuffers[b].alignment;
    return x != y ? x > y : a < b;
  });
  SmallVector<int64_t> offsets(sharedBuffers.size());
  int64_t end = 0;
  for (unsigned i : order) {
    offsets[i] = llvm::alignTo(end, sharedBuffers[i].alignment);
    end = offsets[i] + llvm::alignTo(sharedBuffers[i].bytes, 16);
  }
  return {offsets, end};
}

Value kda::emitSharedLinearIndex(OpBuilder &b, Location loc,
                                 tile::SharedBufferType buffer,
                                 ValueRange coords) {
  auto nvmma =
      dyn_cast_or_null<tile::NVMMASharedLayoutAttr>(buffer.getLayout());
  if (!nvmma)
    return emitLinearIndex(b, loc, coords, buffer.getShape());
  // [leading..., R, C] as [leading..., C / W, R, W].
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, v);
  };
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t width = nvmma.getBlockColumns();
  Value col = coords.back();
  SmallVector<Value> blocked(coords.drop_back(2));
  blocked.push_back(LLVM::UDivOp::create(b, loc, col, constant(width)));
  blocked.push_back(coords[coords.size() - 2]);
  blocked.push_back(LLVM::URemOp::create(b, loc, col, constant(width)));
  SmallVector<int64_t> blockedShape(shape.drop_back(2));
  blockedShape.append({shape.back() / width, shape[shape.size() - 2], width});
  return emitLinearIndex(b, loc, blocked, blockedShape);
}

Value kda::emitPaddedIndex(OpBuilder &b, Location loc,
                           tile::PaddedSharedLayoutAttr padded, Value index) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, v);
  };
  Value intervals = LLVM::LShrOp::create(
      b, loc, index, constant(llvm::Log2_32(padded.getInterval())));
  return LLVM::AddOp::create(
      b, loc, index,
      LLVM::MulOp::create(b, loc, intervals, constant(padded.getPadding())));
}

int64_t kda::getSharedRunElements(tile::SharedBufferType buffer) {
  Attribute layout = buffer.getLayout();
  if (auto swizzle = dyn_cast_or_null<tile::SwizzledSharedLayoutAttr>(layout))
    return swizzle.getVec();
  if (auto nvmma = dyn_cast_or_null<tile::NVMMASharedLayoutAttr>(layout))
    return 128 / nvmma.getElementBits(); // the swizzle moves 16-byte groups
  if (auto padded = dyn_cast_or_null<tile::PaddedSharedLayoutAttr>(layout)) {
    // A run starting at a multiple of its length stays aligned when every
    // interval's padding is a multiple of it too.
    int64_t padding = padded.getPadding();
    return std::min<int64_t>(padded.getInterval(), padding & -padding);
  }
  return buffer.getShape().back();
}

namespace {

/// How many consecutive registers of `layout` one shared-memory access
/// moves: registers contiguous along the last dimension, at most 128 bits,
/// within one run of the buffer (getSharedRunElements), and only as many as
/// start at a multiple of the width in every thread (so the vector is
/// aligned).
unsigned getSharedVectorWidth(const LinearLayout &layout, int64_t elemBytes,
                              tile::SharedBufferType buffer) {
  unsigned last = layout.getRank() - 1;
  int64_t width = std::min<int64_t>(layout.getContiguousRegisters(last),
                                    std::max<int64_t>(1, 16 / elemBytes));
  width = std::min(width, getSharedRunElements(buffer));
  auto startsAligned = [&](int64_t w) {
    if (layout.getShape()[last] % w)
      return false;
    for (HWDim dim : {HWDim::Register, HWDim::Lane, HWDim::Warp})
      for (unsigned bit = 0; bit < layout.getNumBits(dim); ++bit) {
        if (dim == HWDim::Register && (int64_t(1) << bit) < w)
          continue; // the group's own registers
        if (layout.getBasis(dim, bit)[last] % w)
          return false;
      }
    return true;
  };
  while (width > 1 && !startsAligned(width))
    width /= 2;
  return unsigned(width);
}

/// The element at `coords` (i32 per dimension) of a shared buffer: row-major,
/// and in a swizzled buffer the `vec`-element group g of row r (the last two
/// dimensions) at g ^ ((r / perPhase) % maxPhase). The type verifier makes a
/// row hold whole phases, so the XOR stays in the row. A padded buffer moves
/// the row-major index past the padding (emitPaddedIndex). An nvmma_shared
/// buffer XORs the 16-byte groups of its column-block order instead
/// (emitSharedLinearIndex); its whole swizzle periods (8 rows of each block)
/// and its 8 * swizzleBytes alignment make that the hardware's swizzle of
/// the absolute address.
Value getSharedAddress(OpBuilder &b, Location loc, Value base,
                       tile::SharedBufferType buffer, ValueRange coords) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, v);
  };
  Type elem = buffer.getElementType();
  auto at = [&](Value index) -> Value {
    return LLVM::GEPOp::create(b, loc, base.getType(), elem, base,
                               ValueRange{index});
  };
  if (auto nvmma =
          dyn_cast_or_null<tile::NVMMASharedLayoutAttr>(buffer.getLayout())) {
    int64_t elemBytes = nvmma.getElementBits() / 8;
    Value index = emitSharedLinearIndex(b, loc, buffer, coords);
    Value phase = LLVM::AndOp::create(
        b, loc,
        LLVM::LShrOp::create(b, loc, index,
                             constant(llvm::Log2_64(128 / elemBytes))),
        constant(nvmma.getSwizzleBytes() / 16 - 1));
    return at(LLVM::XOrOp::create(
        b, loc, index,
        LLVM::ShlOp::create(b, loc, phase,
                            constant(llvm::Log2_64(16 / elemBytes)))));
  }
  if (auto padded =
          dyn_cast_or_null<tile::PaddedSharedLayoutAttr>(buffer.getLayout()))
    return at(emitPaddedIndex(
        b, loc, padded, emitLinearIndex(b, loc, coords, buffer.getShape())));
  SmallVector<Value> placed(coords);
  if (auto swizzle = dyn_cast_or_null<tile::SwizzledSharedLayoutAttr>(
          buffer.getLayout())) {
    // Permuting the column alone (not the linear index) keeps the steps
    // between registers constant offsets of one address.
    Value row = coords[coords.size() - 2];
    Value phase = LLVM::AndOp::create(
        b, loc,
        LLVM::LShrOp::create(b, loc, row,
                             constant(llvm::Log2_32(swizzle.getPerPhase()))),
        constant(swizzle.getMaxPhase() - 1));
    placed.back() = LLVM::XOrOp::create(
        b, loc, coords.back(),
        LLVM::ShlOp::create(b, loc, phase,
                            constant(llvm::Log2_32(swizzle.getVec()))));
  }
  return at(emitLinearIndex(b, loc, placed, buffer.getShape()));
}

/// Where register `reg` of a tile in `layout` lives in `buffer`. In a plain
/// row-major buffer, a register whose constant coordinate adds to the
/// thread's (isRegisterOffsetDisjoint) is the thread's base address plus a
/// constant: one base for all such registers, and offsets the back ends fold
/// into the accesses.
Value getSharedAddress(OpBuilder &b, Location loc, Value base,
                       tile::SharedBufferType buffer,
                       const LinearLayout &layout, int64_t reg,
                       ValueRange laneWarp) {
  unsigned rank = layout.getRank();
  bool additive = !buffer.getLayout();
  for (unsigned d = 0; d < rank && additive; ++d)
    additive = isRegisterOffsetDisjoint(layout, reg, d);
  if (!additive)
    return getSharedAddress(b, loc, base, buffer,
                            emitCoords(b, loc, layout, reg, laneWarp));
  ArrayRef<int64_t> shape = buffer.getShape();
  LinearLayout::Coord constant = layout.applyDim(HWDim::Register, reg);
  int64_t offset = 0;
  for (unsigned d = 0; d < rank; ++d)
    offset = offset * shape[d] + constant[d];
  Type elem = buffer.getElementType();
  Value thread =
      LLVM::GEPOp::create(b, loc, base.getType(), elem, base,
                          ValueRange{emitLinearIndex(b, loc, laneWarp, shape)});
  if (offset == 0)
    return thread;
  return LLVM::GEPOp::create(b, loc, base.getType(), elem, thread,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

struct AllocSharedLowering : OpConversionPattern<tile::AllocSharedOp> {
  AllocSharedLowering(const TypeConverter &converter, MLIRContext *ctx,
                      GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::AllocSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::SharedBufferType type = op.getType();
    int64_t bytes = type.getStorageElements() *
                    getScratchElementBytes(type.getElementType());
    // The hardware swizzles nvmma_shared buffers by absolute address: each
    // starts a swizzle pattern (8 rows of swizzleBytes).
    auto nvmma =
        dyn_cast_or_null<tile::NVMMASharedLayoutAttr>(type.getLayout());
    // Tensor-map copies start 128-byte aligned.
    int64_t alignment = nvmma ? 8 * nvmma.getSwizzleBytes() : 16;
    if (state.tensorMapBuffers.contains(op))
      alignment = std::max(alignment, tma::kSharedAlignment);
    std::string name =
        createSharedBuffer(rewriter, loc, op->getParentOfType<ModuleOp>(),
                           state, bytes, alignment);
    unsigned addressSpace = state.hooks->getSharedAddressSpace();
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(
        op, LLVM::LLVMPointerType::get(getContext(), addressSpace), name);
    return success();
  }
  GPULoweringState &state;
};

struct SmemIndexLowering : OpConversionPattern<tile::SmemIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SmemIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::SharedBufferType slice = op.getType();
    Type i32 = rewriter.getI32Type();
    Value offset = LLVM::MulOp::create(
        rewriter, loc, adaptor.getIndex(),
        LLVM::ConstantOp::create(rewriter, loc, i32,
                                 int32_t(slice.getStorageElements())));
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, adaptor.getBuffer().getType(), slice.getElementType(),
        adaptor.getBuffer(), ValueRange{offset});
    return success();
  }
};

struct SmemLoadLowering : OpConversionPattern<tile::SmemLoadOp> {
  SmemLoadLowering(const TypeConverter &converter, MLIRContext *ctx,
                   GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::SmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "tile without a layout");
    Type elem = cast<LLVM::LLVMStructType>(resultType).getBody()[0];
    LinearLayout layout = getTileLayout(op.getType());
    int64_t elemBytes = getScratchElementBytes(elem);
    // An 8x8 matrix load reads 16 contiguous bytes per row.
    if (elemBytes == 2 && state.hooks->hasMatrixLoads() &&
        getSharedRunElements(op.getBuffer().getType()) >= 8)
      if (std::optional<MatrixLoadPlan> plan = getMatrixLoadPlan(layout)) {
        rewriter.replaceOp(
            op, packRegisters(rewriter, loc, resultType,
                              loadMatrices(rewriter, loc, *plan,
                                           adaptor.getBuffer(),
                                           op.getBuffer().getType(), layout)));
        return success();
      }
    tile::SharedBufferType bufferType = op.getBuffer().getType();
    if (std::optional<SmallVector<Value>> regs = loadTransposed(
            rewriter, loc, adaptor.getBuffer(), bufferType, layout)) {
      rewriter.replaceOp(op, packRegisters(rewriter, loc, resultType, *regs));
      return success();
    }
    unsigned width = getSharedVectorWidth(layout, elemBytes, bufferType);
    SmallVector<Value> laneWarp = emitLaneWarpCoords(
        rewriter, loc, layout, getThreadIndex(rewriter, loc, state));
    SmallVector<Value> regs;
    for (int64_t r = 0, e = layout.getSize(HWDim::Register); r < e;
         r += width) {
      Value address = getSharedAddress(rewriter, loc, adaptor.getBuffer(),
                                       bufferType, layout, r, laneWarp);
      if (width == 1) {
        regs.push_back(
            LLVM::LoadOp::create(rewriter, loc, elem, address, elemBytes));
        continue;
      }
      auto vecType = VectorType::get({int64_t(width)}, elem);
      llvm::append_range(
          regs, unpackVector(rewriter, loc,
                             LLVM::LoadOp::create(rewriter, loc, vecType,
                                                  address, elemBytes * width)));
    }
    rewriter.replaceOp(op, packRegisters(rewriter, loc, resultType, regs));
    return success();
  }

  /// The registers of a 16-bit tile in `layout` by the target's transposing
  /// loads, when it has them, the layout is their pattern, and each lane's
  /// elements lie together and aligned in the buffer (the row holds whole
  /// runs of them, and the layout never splits one); else nullopt.
  std::optional<SmallVector<Value>>
  loadTransposed(OpBuilder &b, Location loc, Value buffer,
                 tile::SharedBufferType bufferType,
                 const LinearLayout &layout) const {
    std::optional<TransposedLoad> load = state.hooks->getTransposedLoad();
    Type elem = bufferType.getElementType();
    if (!load || getScratchElementBytes(elem) != 2 ||
        bufferType.getShape().back() % load->elements ||
        getSharedRunElements(bufferType) < load->elements)
      return std::nullopt;
    std::optional<LinearLayout> sources =
        getTransposedLoadSources(layout, *load);
    if (!sources)
      return std::nullopt;
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(b, loc, *sources, getThreadIndex(b, loc, state));
    SmallVector<Value> regs;
    for (int64_t r = 0, e = layout.getSize(HWDim::Register); r < e;
         r += load->elements)
      llvm::append_range(regs, state.hooks->loadTransposed(
                                   b, loc,
                                   getSharedAddress(b, loc, buffer, bufferType,
                                                    *sources, r, laneWarp),
                                   elem));
    return regs;
  }

  /// The registers of `layout` by 8x8 matrix loads: lane l gives the address
  /// of row l % 8 of block (l / 8) % matrices of each load, that block's
  /// first element being its register pair's coordinate at lane 0.
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc,
                                  const MatrixLoadPlan &plan, Value buffer,
                                  tile::SharedBufferType bufferType,
                                  const LinearLayout &layout) const {
    Type elem = bufferType.getElementType();
    Type i32 = b.getI32Type();
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i32, v);
    };
    ThreadIndex thread = getThreadIndex(b, loc, state);
    SmallVector<Value> warpCoords =
        emitLaneWarpCoords(b, loc, layout, {constant(0), thread.warp});
    Value rowInBlock = LLVM::AndOp::create(b, loc, thread.lane, constant(7));
    Value block = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, thread.lane, constant(3)),
        constant(plan.matrices - 1));
    auto blockBit = [&](unsigned bit) -> Value {
      return LLVM::ICmpOp::create(
          b, loc, LLVM::ICmpPredicate::ne,
          LLVM::AndOp::create(b, loc, block, constant(1 << bit)), constant(0));
    };
    unsigned perLoad = 2 * plan.matrices;
    SmallVector<Value> regs;
    for (int64_t first = 0, e = layout.getSize(HWDim::Register); first < e;
         first += perLoad) {
      // Block j of this load starts at register first + 2j: its coordinate
      // is register `first`'s, XOR the bases of j's bits (registers 2, 4).
      LinearLayout::Coord start = layout.applyDim(HWDim::Register, first);
      SmallVector<Value> coords;
      for (unsigned d = 0; d < 2; ++d) {
        Value c =
            LLVM::XOrOp::create(b, loc, warpCoords[d], constant(start[d]));
        for (unsigned bit = 0; (2u << bit) < perLoad; ++bit) {
          int64_t step = layout.getBasis(HWDim::Register, bit + 1)[d];
          if (step)
            c = LLVM::XOrOp::create(
                b, loc, c,
                LLVM::SelectOp::create(b, loc, blockBit(bit), constant(step),
                                       constant(0)));
        }
        coords.push_back(c);
      }
      coords[0] = LLVM::AddOp::create(b, loc, coords[0], rowInBlock);
      Value address = getSharedAddress(b, loc, buffer, bufferType, coords);
      for (Value pair : state.hooks->loadMatrices(
               b, loc, address, plan.matrices, plan.transposed))
        llvm::append_range(
            regs, unpackVector(b, loc,
                               LLVM::BitcastOp::create(
                                   b, loc, VectorType::get({2}, elem), pair)));
    }
    return regs;
  }
  GPULoweringState &state;
};

struct SmemStoreLowering : OpConversionPattern<tile::SmemStoreOp> {
  SmemStoreLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::SmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LinearLayout layout = getTileLayout(op.getValue().getType());
    SmallVector<Value> values =
        unpackRegisters(rewriter, loc, adaptor.getValue());
    Type elem = values[0].getType();
    tile::SharedBufferType bufferType = op.getBuffer().getType();
    unsigned width =
        getSharedVectorWidth(layout, getScratchElementBytes(elem), bufferType);
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, layout, thread);
    // Copies of an element in other threads are not stored again.
    Value owner = emitIsElementOwner(rewriter, loc, layout, thread);
    uint64_t dupRegs = layout.getDuplicateMask(HWDim::Register);
    for (size_t r = 0; r < values.size(); r += width) {
      if (int64_t(r) & dupRegs)
        continue;
      Value address = getSharedAddress(rewriter, loc, adaptor.getBuffer(),
                                       bufferType, layout, r, laneWarp);
      emitGuardedStore(rewriter, loc, address,
                       ArrayRef<Value>(values).slice(r, width), owner);
    }
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

/// Whether lane-ordered copies (TargetHooks::hasLaneOrderedCopies) of
/// `width`-element groups of `layout` land where the buffer keeps them: a
/// row-major buffer of the tile's shape in which lane bit i moves an
/// element's index by 2^i groups, so lane l's group is l groups past lane
/// 0's in every register group and every wave.
bool isLaneOrdered(const LinearLayout &layout, tile::SharedBufferType buffer,
                   unsigned width, unsigned waveSize) {
  if (buffer.getLayout() || buffer.getShape() != layout.getShape() ||
      layout.getNumBits(HWDim::Lane) != llvm::Log2_32(waveSize))
    return false;
  ArrayRef<int64_t> shape = buffer.getShape();
  for (unsigned bit = 0; bit < layout.getNumBits(HWDim::Lane); ++bit) {
    ArrayRef<int64_t> basis = layout.getBasis(HWDim::Lane, bit);
    int64_t index = 0, stride = 1;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index += basis[d] * stride;
      stride *= shape[d];
    }
    if (index != (int64_t(1) << bit) * width)
      return false;
  }
  return true;
}

struct AsyncCopyLowering : OpConversionPattern<tile::AsyncCopyOp> {
  AsyncCopyLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = cast<RankedTensorType>(op.getPtr().getType());
    Type elem = cast<RankedTensorType>(tile::getPointeeLikeType(ptrType))
                    .getElementType();
    LinearLayout layout = getTileLayout(ptrType);
    AsyncCopyPlan plan = planAsyncCopy(state, op);
    unsigned width = plan.width;
    unsigned bytes = width * getScratchElementBytes(elem);

    SmallVector<Value> ptrs = unpackRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackRegisters(rewriter, loc, adaptor.getMask());
    ThreadIndex thread = getThreadIndex(rewriter, loc, state);
    SmallVector<Value> laneWarp =
        emitLaneWarpCoords(rewriter, loc, layout, thread);
    // Lane-ordered copies write at the wave's base, the address of its lane 0.
    SmallVector<Value> waveCoords;
    if (plan.laneOrdered) {
      Value zero =
          LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 0);
      waveCoords = emitLaneWarpCoords(
          rewriter, loc, layout,
          {zero, state.hooks->getWaveUniform(rewriter, loc, thread.warp)});
    }
    Value owner = emitIsElementOwner(rewriter, loc, layout, thread);
    uint64_t dupRegs = layout.getDuplicateMask(HWDim::Register);
    Type i32 = rewriter.getI32Type();
    tile::SharedBufferType bufferType = op.getBuffer().getType();
    for (size_t r = 0; r < ptrs.size(); r += width) {
      if (int64_t(r) & dupRegs)
        continue;
      Value mask = masks.empty() ? Value() : masks[r];
      Value address = getSharedAddress(rewriter, loc, adaptor.getBuffer(),
                                       bufferType, layout, r, laneWarp);
      // A masked asynchronous group reads nothing and writes zeros.
      Value srcBytes;
      if (plan.perThread) {
        srcBytes = LLVM::ConstantOp::create(rewriter, loc, i32, bytes);
        if (mask)
          srcBytes = LLVM::SelectOp::create(
              rewriter, loc, mask, srcBytes,
              LLVM::ConstantOp::create(rewriter, loc, i32, 0));
      }
      Value waveBase;
      if (plan.laneOrdered)
        waveBase = getSharedAddress(rewriter, loc, adaptor.getBuffer(),
                                    bufferType, layout, r, waveCoords);
      // Only the owner of an element copies it (copies in other threads would
      // write the same bytes again).
      OpBuilder::InsertionGuard insertion(rewriter);
      if (owner)
        rewriter.setInsertionPointToStart(
            scf::IfOp::create(rewriter, loc, owner, /*withElseRegion=*/false)
                .thenBlock());
      if (plan.perThread) {
        state.hooks->asyncCopy(rewriter, loc, address, ptrs[r], bytes,
                               srcBytes);
        continue;
      }
      auto zeros = [&] {
        Value zero = LLVM::ZeroOp::create(rewriter, loc, elem);
        return SmallVector<Value>(width, zero);
      };
      if (plan.laneOrdered) {
        // Masked-off lanes copy nothing and write their zeros themselves.
        if (!mask) {
          state.hooks->copyLaneOrdered(rewriter, loc, waveBase, ptrs[r], bytes);
          continue;
        }
        auto ifOp = scf::IfOp::create(rewriter, loc, mask,
                                      /*withElseRegion=*/true);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        state.hooks->copyLaneOrdered(rewriter, loc, waveBase, ptrs[r], bytes);
        rewriter.setInsertionPointToStart(ifOp.elseBlock());
        emitGuardedStore(rewriter, loc, address, zeros(), /*guard=*/Value());
        continue;
      }
      // Without asynchronous copies: through registers.
      SmallVector<Value> regs;
      if (width == 1) {
        regs.push_back(
            emitGuardedLoad(rewriter, loc, ptrs[r], elem, mask,
                            LLVM::ZeroOp::create(rewriter, loc, elem)));
      } else {
        auto vecType = VectorType::get({int64_t(width)}, elem);
        regs = unpackVector(rewriter, loc,
                            emitGuardedVectorLoad(
                                rewriter, loc, ptrs[r], vecType, mask,
                                LLVM::ZeroOp::create(rewriter, loc, vecType)));
      }
      emitGuardedStore(rewriter, loc, address, regs, /*guard=*/Value());
    }
    if (state.hooks->hasAsyncCopies())
      state.hooks->commitAsyncCopies(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

struct AsyncWaitLowering : OpConversionPattern<tile::AsyncWaitOp> {
  AsyncWaitLowering(const TypeConverter &converter, MLIRContext *ctx,
                    GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned pending = op.getPending();
    auto copies = state.tensorMapCopies.find(
        op->getParentOfType<func::FuncOp>().getOperation());
    bool tensorMaps = copies != state.tensorMapCopies.end();
    // Per-thread and tensor-map copies count apart: mixed, wait for all.
    if (tensorMaps && copies->second.mixed)
      pending = 0;
    if (state.hooks->hasAsyncCopies() && (!tensorMaps || copies->second.mixed))
      state.hooks->waitAsyncCopies(rewriter, op.getLoc(), pending);
    auto laneCopies = state.laneCopyInstructions.find(
        op->getParentOfType<func::FuncOp>().getOperation());
    if (tensorMaps)
      emitWaitTensorMapCopies(rewriter, op.getLoc(), state, copies->second,
                              pending);
    else if (laneCopies != state.laneCopyInstructions.end())
      // The newest `pending` groups hold at least this many instructions.
      state.hooks->waitLaneOrderedCopies(rewriter, op.getLoc(),
                                         pending * laneCopies->second);
    else if (!state.hooks->getBlockCopyEngine().empty() &&
             !state.hooks->hasLaneOrderedBlockCopies())
      state.hooks->waitBlockCopies(rewriter, op.getLoc(), pending);
    // Each thread waited for its own copies; the barrier shows them to all.
    state.hooks->sharedMemoryBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

struct BarrierLowering : OpConversionPattern<tile::BarrierOp> {
  BarrierLowering(const TypeConverter &converter, MLIRContext *ctx,
                  GPULoweringState &state)
      : OpConversionPattern(converter, ctx), state(state) {}
  LogicalResult
  matchAndRewrite(tile::BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    state.hooks->barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
  GPULoweringState &state;
};

} // namespace

void kda::populateSharedMemoryToGPUPatterns(TileToGPUTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            GPULoweringState &state) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SmemIndexLowering>(converter, ctx);
  patterns.add<AllocSharedLowering, SmemLoadLowering, SmemStoreLowering,
               AsyncCopyLowering, AsyncWaitLowering, BarrierLowering>(
      converter, ctx, state);
}

AsyncCopyPlan kda::planAsyncCopy(const GPULoweringState &state,
                                 tile::AsyncCopyOp op) {
  auto ptrType = cast<RankedTensorType>(op.getPtr().getType());
  auto valueType = cast<RankedTensorType>(tile::getPointeeLikeType(ptrType));
  int64_t elemBytes = getScratchElementBytes(valueType.getElementType());
  LinearLayout layout = getTileLayout(ptrType);
  tile::SharedBufferType buffer = op.getBuffer().getType();
  // The widest access both memories allow: along the last dimension,
  // contiguous and aligned in global memory and in the buffer.
  auto [globalWidth, dim] =
      getAccessWidth(state, valueType, op.getPtr(), op.getMask());
  AsyncCopyPlan plan;
  plan.width = dim + 1 == layout.getRank()
                   ? std::min(globalWidth,
                              getSharedVectorWidth(layout, elemBytes, buffer))
                   : 1;
  unsigned bytes = plan.width * elemBytes;
  TargetHooks &hooks = *state.hooks;
  plan.perThread =
      hooks.hasAsyncCopies() && (bytes == 4 || bytes == 8 || bytes == 16);
  plan.laneOrdered =
      !plan.perThread && hooks.hasLaneOrderedCopies(bytes) &&
      isLaneOrdered(layout, buffer, plan.width, hooks.getWaveSize());
  if (plan.laneOrdered) {
    uint64_t dupRegs = layout.getDuplicateMask(HWDim::Register);
    for (int64_t r = 0, e = layout.getSize(HWDim::Register); r < e;
         r += plan.width)
      plan.instructions += !(r & dupRegs);
  }
  return plan;
}

void kda::prepareLaneOrderedCopies(ModuleOp module, GPULoweringState &state) {
  bool engine = state.hooks->hasLaneOrderedBlockCopies();
  for (auto func : module.getOps<func::FuncOp>()) {
    std::optional<int64_t> fewest;
    bool laneOrdered = false;
    auto count = [&](int64_t instructions) {
      fewest = std::min(fewest.value_or(instructions), instructions);
    };
    func.walk([&](Operation *op) {
      if (auto copy = dyn_cast<tile::AsyncCopyOp>(op)) {
        AsyncCopyPlan plan = planAsyncCopy(state, copy);
        laneOrdered |= plan.laneOrdered;
        count(plan.instructions);
      } else if (auto load = dyn_cast<tile::AsyncLoadOp>(op); load && engine) {
        // The engine's loads: one wave's tile (inactive waves issue none,
        // which only makes waits stricter).
        tile::TensorDescType type = load.getDesc().getType();
        ArrayRef<int64_t> block = type.getBlockShape();
        SmallVector<int64_t> split = splitBlockOverWaves(block, state.numWarps);
        int64_t elements = 1;
        for (auto [n, s] : llvm::zip(block, split))
          elements *= n / s;
        auto vectorBytes =
            load->getAttrOfType<IntegerAttr>(tile::kCopyVectorBytesAttrName);
        laneOrdered = true;
        count(state.hooks->getBlockCopyInstructions(
            elements * type.getElementType().getIntOrFloatBitWidth() / 8,
            vectorBytes.getInt()));
      }
    });
    if (laneOrdered)
      state.laneCopyInstructions[func] = *fewest;
  }
}

void kda::scopeLaneOrderedCopies(ModuleOp module, const TargetHooks &hooks) {
  MLIRContext *ctx = module.getContext();
  unsigned sharedSpace = hooks.getSharedAddressSpace();
  LLVM::AliasScopeAttr copies, others;
  for (Operation &func : module.getOps()) {
    SmallVector<LLVM::AliasAnalysisOpInterface> laneCopies, accesses;
    func.walk([&](LLVM::AliasAnalysisOpInterface op) {
      if (hooks.isLaneOrderedCopy(op)) {
        laneCopies.push_back(op);
        return;
      }
      if (llvm::any_of(op.getAccessedOperands(), [&](Value v) {
            auto ptr = dyn_cast<LLVM::LLVMPointerType>(v.getType());
            return ptr && ptr.getAddressSpace() == sharedSpace;
          }))
        accesses.push_back(op);
    });
    if (laneCopies.empty())
      continue;
    if (!copies) {
      auto domain = LLVM::AliasScopeDomainAttr::get(
          ctx, DistinctAttr::create(UnitAttr::get(ctx)),
          StringAttr::get(ctx, "kda shared memory"));
      auto scope = [&](StringRef name) {
        return LLVM::AliasScopeAttr::get(
            ctx, DistinctAttr::create(UnitAttr::get(ctx)), domain,
            StringAttr::get(ctx, name));
      };
      copies = scope("lane-ordered copies");
      others = scope("other accesses");
    }
    for (LLVM::AliasAnalysisOpInterface op : laneCopies)
      op.setAliasScopes(ArrayAttr::get(ctx, {copies}));
    for (LLVM::AliasAnalysisOpInterface op : accesses) {
      op.setAliasScopes(ArrayAttr::get(ctx, {others}));
      op.setNoAliasScopes(ArrayAttr::get(ctx, {copies}));
    }
  }
}
