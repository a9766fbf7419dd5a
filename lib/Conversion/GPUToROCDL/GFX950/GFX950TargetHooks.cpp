//===- GFX950TargetHooks.cpp - gfx950 hooks -------------------------------===//
#include "../AMDTargetHooks.h"
#include "kda/Conversion/GPUToROCDL/GFX950/LaneCopies.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda::gfx950;

namespace {
// gfx950 (MI355X): wave64; the ROCDL lowering common to the AMD chips, with
// the wave size and LDS budget of the chip's GPUTargetInfo, and the dense
// MFMA instructions with bf16/f16 inputs.
class GFX950TargetHooks : public kda::AMDTargetHooks {
public:
  using AMDTargetHooks::AMDTargetHooks;

  /// ds_read_b64_tr_b16: 4 elements from each lane's 8 bytes, groups of 16
  /// lanes (wave64: four per wave).
  std::optional<kda::TransposedLoad> getTransposedLoad() const override {
    return kda::TransposedLoad{4, 16};
  }
  SmallVector<Value> loadTransposed(OpBuilder &b, Location loc, Value address,
                                    Type elementType) override {
    auto type = VectorType::get({4}, elementType);
    return kda::unpackVector(
        b, loc,
        ROCDL::ds_read_tr16_b64::create(b, loc, type, address, ArrayAttr(),
                                        ArrayAttr(), ArrayAttr())
            .getResult());
  }
  bool hasLaneOrderedCopies(unsigned bytes) const override {
    return llvm::is_contained(kLaneCopyBytes, bytes);
  }
  /// global_load_lds_dword{,x4}: the wave's base becomes M0.
  void copyLaneOrdered(OpBuilder &b, Location loc, Value waveBase, Value src,
                       unsigned bytes) override {
    ROCDL::GlobalLoadLDSOp::create(b, loc, src, waveBase, bytes, /*offset=*/0,
                                   /*aux=*/0, ArrayAttr(), ArrayAttr(),
                                   ArrayAttr());
  }
  void waitLDSAccesses(OpBuilder &b, Location loc) override {
    ROCDL::SWaitcntOp::create(b, loc, getLDSWait());
  }
  bool isLaneOrderedCopy(Operation *op) const override {
    return isa<ROCDL::GlobalLoadLDSOp, ROCDL::RawPtrBufferLoadLdsOp>(op);
  }
  void waitLaneOrderedCopies(OpBuilder &b, Location loc,
                             unsigned pending) override {
    ROCDL::SWaitcntOp::create(b, loc, getVectorMemoryWait(pending));
  }
  StringRef getBlockCopyEngine() const override { return "buffer"; }
  bool hasLaneOrderedBlockCopies() const override { return true; }
  int64_t getBlockCopyInstructions(int64_t bytes,
                                   int64_t vectorBytes) const override {
    return getLaneCopyInstructions(bytes, 1, vectorBytes, getWaveSize());
  }
  void copyBlock(OpBuilder &b, Location loc, const BlockCopy &copy) override;
  /// vmcnt counts instructions, not copies: waits for all (stores only, which
  /// complete before their op returns).
  void waitBlockCopies(OpBuilder &b, Location loc, unsigned pending) override {
    waitLaneOrderedCopies(b, loc, 0);
  }
  ArrayRef<kda::tile::MatrixInstr> getMatrixInstrs() const override {
    // The 32x32 tile first: half the instructions of the 16x16 one for the
    // same product, where a dot is large enough for it; 16x16x16 for
    // reductions of 16 (or 48, ...) that the others do not divide;
    // 16x16x4_f32 for the fp32 operands of dots that allow tf32.
    static const kda::tile::MatrixInstr instrs[] = {
        kda::tile::MatrixInstr::Mfma32x32x16,
        kda::tile::MatrixInstr::Mfma16x16x32,
        kda::tile::MatrixInstr::Mfma16x16x16,
        kda::tile::MatrixInstr::Mfma16x16x4F32};
    return instrs;
  }
  /// v_mfma_f32_{32x32x16,16x16x32}_{bf16,f16}: A and B as 8 16-bit
  /// elements, C and D as 16 (32x32) or 4 (16x16) f32;
  /// v_mfma_f32_16x16x16{bf16_1k,f16}: A and B as 4 (bf16 as i16), C and D
  /// as 4 f32; v_mfma_f32_16x16x4_f32: A and B as one f32, C and D as 4 f32.
  /// No broadcast (cbsz = abid = blgp = 0).
  SmallVector<Value> matrixMultiply(OpBuilder &b, Location loc,
                                    kda::tile::MatrixInstr instr, ValueRange a,
                                    ValueRange bOperand,
                                    ValueRange c) override {
    if (instr == kda::tile::MatrixInstr::Mfma16x16x4F32) {
      assert(a.size() == 1 && bOperand.size() == 1 && c.size() == 4 &&
             "gfx950 fp32 MFMA operands");
      Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
      Value d = ROCDL::mfma_f32_16x16x4f32::create(
                    b, loc, VectorType::get({4}, b.getF32Type()),
                    ValueRange{a.front(), bOperand.front(),
                               packMatrixOperand(b, loc, c), zero, zero, zero})
                    .getResult();
      return kda::unpackVector(b, loc, d);
    }
    bool wide = instr == kda::tile::MatrixInstr::Mfma32x32x16;
    bool shortK = instr == kda::tile::MatrixInstr::Mfma16x16x16;
    assert(a.size() == (shortK ? 4u : 8u) && bOperand.size() == a.size() &&
           c.size() == (wide ? 16u : 4u) && "gfx950 MFMA operands");
    Type elem = a.front().getType();
    if (shortK)
      return matrixMultiplyShortK(b, loc, a, bOperand, c);
    Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
    SmallVector<Value> args = {packMatrixOperand(b, loc, a),
                               packMatrixOperand(b, loc, bOperand),
                               packMatrixOperand(b, loc, c),
                               zero,
                               zero,
                               zero};
    Type result = VectorType::get({int64_t(c.size())}, b.getF32Type());
    Value d;
    if (elem.isBF16())
      d = wide ? ROCDL::mfma_f32_32x32x16_bf16::create(b, loc, result, args)
                     .getResult()
               : ROCDL::mfma_f32_16x16x32_bf16::create(b, loc, result, args)
                     .getResult();
    else
      d = wide ? ROCDL::mfma_f32_32x32x16_f16::create(b, loc, result, args)
                     .getResult()
               : ROCDL::mfma_f32_16x16x32_f16::create(b, loc, result, args)
                     .getResult();
    return kda::unpackVector(b, loc, d);
  }
  /// The 16x16x16 instructions; the bf16 one takes its operands as i16.
  SmallVector<Value> matrixMultiplyShortK(OpBuilder &b, Location loc,
                                          ValueRange a, ValueRange bOperand,
                                          ValueRange c) {
    Type elem = a.front().getType();
    auto pack = [&](ValueRange v) {
      Value packed = packMatrixOperand(b, loc, v);
      if (!elem.isBF16())
        return packed;
      return LLVM::BitcastOp::create(
                 b, loc, VectorType::get({int64_t(v.size())}, b.getI16Type()),
                 packed)
          .getResult();
    };
    Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
    SmallVector<Value> args = {
        pack(a), pack(bOperand), packMatrixOperand(b, loc, c),
        zero,    zero,           zero};
    Type result = VectorType::get({4}, b.getF32Type());
    Value d =
        elem.isBF16()
            ? ROCDL::mfma_f32_16x16x16bf16_1k::create(b, loc, result, args)
                  .getResult()
            : ROCDL::mfma_f32_16x16x16f16::create(b, loc, result, args)
                  .getResult();
    return kda::unpackVector(b, loc, d);
  }
};

/// The wave's tile in lane-ordered instructions of `copy.vectorBytes` per
/// lane: instruction i moves the tile's row-major elements [i * W, (i + 1) *
/// W) (W = 64 lanes' worth), lane l those from i * W + l * (its elements),
/// so its bytes land at the instruction's base + l * vectorBytes as LDS DMA
/// writes them. Lanes outside the tensor read zeros (loads) or write nothing
/// (stores). Through a raw buffer resource whose base is the tile's first
/// element, the hardware checks the bounds: lanes outside take an offset
/// past its records. The 32-bit offsets reach the tile's far end only when
/// its strides are non-negative and its span stays below 2^31 bytes; other
/// tiles take per-lane 64-bit addresses (global_load_lds, global stores),
/// lanes outside writing zeros into LDS themselves.
void GFX950TargetHooks::copyBlock(OpBuilder &b, Location loc,
                                  const BlockCopy &copy) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, v).getResult();
  };
  size_t rank = copy.tile.size();
  int64_t elemBytes = copy.elementType.getIntOrFloatBitWidth() / 8;
  int64_t vectorBytes = copy.vectorBytes;
  assert(hasLaneOrderedCopies(vectorBytes) && vectorBytes >= elemBytes &&
         "a lane-ordered copy width tile-expand-tensor-descs proved");
  int64_t laneElements = vectorBytes / elemBytes;
  int64_t tileElements = 1;
  for (int64_t n : copy.tile)
    tileElements *= n;
  int64_t perInstruction = int64_t(getWaveSize()) * laneElements;
  int64_t instructions =
      getBlockCopyInstructions(tileElements * elemBytes, vectorBytes);
  auto vectorType = VectorType::get({vectorBytes / 4}, i32);
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(
      scf::IfOp::create(b, loc, copy.active, /*withElseRegion=*/false)
          .thenBlock());
  Value lane =
      LLVM::AndOp::create(b, loc, getThreadId(b, loc), c32(getWaveSize() - 1));
  Value base = LLVM::IntToPtrOp::create(
      b, loc, globalPtr,
      getWaveUniform(b, loc,
                     LLVM::PtrToIntOp::create(b, loc, i64, copy.global)));
  Value span = c64(1);
  Value nonNegative = LLVM::ConstantOp::create(b, loc, b.getI1Type(), 1);
  for (size_t d = 0; d < rank; ++d) {
    span = LLVM::AddOp::create(
        b, loc, span,
        LLVM::MulOp::create(b, loc, copy.strides[d], c64(copy.tile[d] - 1)));
    nonNegative = LLVM::AndOp::create(
        b, loc, nonNegative,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, copy.strides[d],
                             c64(0)));
  }
  span = LLVM::MulOp::create(b, loc, span, c64(elemBytes));
  Value inRange =
      LLVM::AndOp::create(b, loc, nonNegative,
                          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sle,
                                               span, c64(kBufferRecords)));

  auto emitCopies = [&](bool buffered) {
    Value rsrc;
    if (buffered)
      rsrc = ROCDL::MakeBufferRsrcOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext(), 8), base,
          LLVM::ConstantOp::create(b, loc, b.getI16Type(), 0),
          c64(kBufferRecords), c32(kRawBufferFlags));
    for (int64_t i = 0; i < instructions; ++i) {
      OpBuilder::InsertionGuard inInstruction(b);
      Value element = LLVM::AddOp::create(
          b, loc, c32(i * perInstruction),
          LLVM::MulOp::create(b, loc, lane, c32(laneElements)));
      // The last instruction's lanes past the tile stay idle.
      if ((i + 1) * perInstruction > tileElements)
        b.setInsertionPointToStart(
            scf::IfOp::create(b, loc,
                              LLVM::ICmpOp::create(b, loc,
                                                   LLVM::ICmpPredicate::ult,
                                                   element, c32(tileElements)),
                              /*withElseRegion=*/false)
                .thenBlock());
      Value inside = LLVM::ConstantOp::create(b, loc, b.getI1Type(), 1);
      Value offset = c64(0), rest = element;
      for (int64_t d = rank - 1; d >= 0; --d) {
        Value coord = LLVM::URemOp::create(b, loc, rest, c32(copy.tile[d]));
        rest = LLVM::UDivOp::create(b, loc, rest, c32(copy.tile[d]));
        inside = LLVM::AndOp::create(
            b, loc, inside,
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, coord,
                                 copy.extents[d]));
        offset = LLVM::AddOp::create(
            b, loc, offset,
            LLVM::MulOp::create(b, loc,
                                LLVM::ZExtOp::create(b, loc, i64, coord),
                                copy.strides[d]));
      }
      Value byteOffset = LLVM::MulOp::create(b, loc, offset, c64(elemBytes));
      Value shared = LLVM::GEPOp::create(
          b, loc, sharedPtr, b.getI8Type(), copy.shared,
          ValueRange{LLVM::MulOp::create(b, loc, element, c32(elemBytes))});
      Value laneOffset;
      if (buffered)
        laneOffset = LLVM::SelectOp::create(
            b, loc, inside, LLVM::TruncOp::create(b, loc, i32, byteOffset),
            c32(int64_t(kOutOfRangeOffset)));
      Value global = LLVM::GEPOp::create(b, loc, globalPtr, b.getI8Type(), base,
                                         ValueRange{byteOffset});
      auto ifInside = [&](bool withElse) {
        auto ifOp = scf::IfOp::create(b, loc, inside, withElse);
        b.setInsertionPointToStart(ifOp.thenBlock());
        return ifOp;
      };
      if (copy.isLoad) {
        Value instructionBase = LLVM::GEPOp::create(
            b, loc, sharedPtr, b.getI8Type(), copy.shared,
            ValueRange{c32(i * perInstruction * elemBytes)});
        if (buffered) {
          ROCDL::RawPtrBufferLoadLdsOp::create(
              b, loc, rsrc, instructionBase, c32(vectorBytes), laneOffset,
              c32(0), c32(0), c32(0), ArrayAttr(), ArrayAttr(), ArrayAttr());
          continue;
        }
        auto ifOp = ifInside(/*withElse=*/true);
        copyLaneOrdered(b, loc, instructionBase, global, vectorBytes);
        b.setInsertionPointToStart(ifOp.elseBlock());
        LLVM::StoreOp::create(b, loc, LLVM::ZeroOp::create(b, loc, vectorType),
                              shared, vectorBytes);
        continue;
      }
      Value value =
          LLVM::LoadOp::create(b, loc, vectorType, shared, vectorBytes);
      if (buffered) {
        ROCDL::RawPtrBufferStoreOp::create(b, loc, value, rsrc, laneOffset,
                                           c32(0), c32(0), ArrayAttr(),
                                           ArrayAttr(), ArrayAttr());
        continue;
      }
      ifInside(/*withElse=*/false);
      LLVM::StoreOp::create(b, loc, value, global, vectorBytes);
    }
  };
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/true);
  b.setInsertionPointToStart(ifOp.thenBlock());
  emitCopies(/*buffered=*/true);
  b.setInsertionPointToStart(ifOp.elseBlock());
  emitCopies(/*buffered=*/false);
}

} // namespace

std::unique_ptr<kda::TargetHooks>
kda::createGFX950TargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<GFX950TargetHooks>(info);
}
