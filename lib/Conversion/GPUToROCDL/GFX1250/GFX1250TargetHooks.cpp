//===- GFX1250TargetHooks.cpp - gfx1250 hooks -----------------------------===//
#include "../AMDTargetHooks.h"
#include "kda/Conversion/GPUToROCDL/GFX1250/TensorDescriptor.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace kda::gfx1250;

namespace {
/// The four descriptor groups of a tensor copy, filled field by field: the
/// constant bits of each dword gathered apart from its run-time parts.
class DescriptorGroups {
public:
  DescriptorGroups(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  void set(TDMField field, uint64_t value) { setField(constant, field, value); }
  /// `value`: an i32 or i64 run-time value.
  void set(TDMField field, Value value) {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    if (value.getType() != i64)
      value = LLVM::ZExtOp::create(b, loc, i64, value);
    for (const TDMFieldSlice &s : getFieldSlices(field)) {
      Value part = value;
      if (s.valueBit)
        part = LLVM::LShrOp::create(b, loc, part, constantI64(s.valueBit));
      part = LLVM::TruncOp::create(b, loc, i32, part);
      if (s.bits < 32)
        part = LLVM::AndOp::create(
            b, loc, part,
            LLVM::ConstantOp::create(b, loc, i32, (1u << s.bits) - 1));
      if (s.dwordBit)
        part = LLVM::ShlOp::create(
            b, loc, part, LLVM::ConstantOp::create(b, loc, i32, s.dwordBit));
      Value &word = dynamic[field.group][s.dword];
      word = word ? LLVM::OrOp::create(b, loc, word, part).getResult() : part;
    }
  }
  /// Group `g` as the vector the intrinsic takes. Run-time dwords go through
  /// readfirstlane: the values are a program's scalars, the same in every
  /// lane, and the descriptor is read from scalar registers.
  Value get(unsigned g) {
    Type i32 = b.getI32Type();
    unsigned dwords = kTDMGroupDwords[g];
    Value vector =
        LLVM::PoisonOp::create(b, loc, VectorType::get({dwords}, i32));
    for (unsigned d = 0; d < dwords; ++d) {
      Value word = LLVM::ConstantOp::create(b, loc, i32, constant[g][d]);
      if (Value run = dynamic[g][d])
        word = LLVM::OrOp::create(
            b, loc, ROCDL::ReadfirstlaneOp::create(b, loc, i32, run), word);
      vector = LLVM::InsertElementOp::create(
          b, loc, vector, word, LLVM::ConstantOp::create(b, loc, i32, d));
    }
    return vector;
  }

private:
  Value constantI64(uint64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(), v);
  }
  OpBuilder &b;
  Location loc;
  TDMGroups constant{};
  Value dynamic[4][8] = {};
};

// gfx1250: wave32; the ROCDL lowering common to the AMD chips, with the wave
// size and LDS budget of the chip's GPUTargetInfo, and the dense WMMA
// instructions with bf16/f16 inputs.
class GFX1250TargetHooks : public kda::AMDTargetHooks {
public:
  using AMDTargetHooks::AMDTargetHooks;

  /// ds_load_tr16_b128: 8 elements from each lane's 16 bytes, groups of 8
  /// lanes.
  std::optional<kda::TransposedLoad> getTransposedLoad() const override {
    return kda::TransposedLoad{8, 8};
  }
  SmallVector<Value> loadTransposed(OpBuilder &b, Location loc, Value address,
                                    Type elementType) override {
    auto type = VectorType::get({8}, elementType);
    return kda::unpackVector(
        b, loc,
        ROCDL::DsLoadTr16_B128::create(b, loc, type, address, ArrayAttr(),
                                       ArrayAttr(), ArrayAttr())
            .getResult());
  }
  /// gfx12 counts LDS accesses apart (dscnt).
  void waitLDSAccesses(OpBuilder &b, Location loc) override {
    ROCDL::WaitDscntOp::create(b, loc, 0);
  }
  StringRef getBlockCopyEngine() const override { return "tdm"; }
  /// tensor_load_to_lds / tensor_store_from_lds of the wave's tile.
  void copyBlock(OpBuilder &b, Location loc, const BlockCopy &copy) override {
    size_t rank = copy.tile.size();
    assert(rank >= 1 && rank <= kTDMMaxRank && "TDM copies 1 to 5 dimensions");
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    DescriptorGroups groups(b, loc);
    groups.set(tdm::kPredicate, LLVM::ZExtOp::create(b, loc, i32, copy.active));
    groups.set(tdm::kLDSAddress,
               LLVM::PtrToIntOp::create(b, loc, i32, copy.shared));
    groups.set(tdm::kGlobalAddress,
               LLVM::PtrToIntOp::create(b, loc, i64, copy.global));
    groups.set(tdm::kType, kTDMTensorType);
    int64_t elemBytes = copy.elementType.getIntOrFloatBitWidth() / 8;
    groups.set(tdm::kDataSize, llvm::Log2_64(elemBytes));
    if (copy.padInterval) {
      std::optional<TDMPadding> pad = getPaddingEncoding(
          copy.padInterval * elemBytes, copy.padding * elemBytes);
      assert(pad && copy.isLoad && "padding the engine cannot do");
      groups.set(tdm::kPadEnable, 1);
      groups.set(tdm::kPadInterval, pad->interval);
      groups.set(tdm::kPadAmount, pad->amount);
    }
    // Descriptor dimension i is the copy's dimension rank - 1 - i.
    for (size_t i = 0; i < rank; ++i) {
      size_t d = rank - 1 - i;
      groups.set(tdm::kTensorDim[i], copy.extents[d]);
      groups.set(tdm::kTileDim[i], uint64_t(copy.tile[d]));
      if (i > 0)
        groups.set(tdm::kTensorStride[i - 1], copy.strides[d]);
    }
    Value g0 = groups.get(0), g1 = groups.get(1), g2 = groups.get(2),
          g3 = groups.get(3);
    if (copy.isLoad)
      ROCDL::TensorLoadToLDSOp::create(b, loc, g0, g1, g2, g3,
                                       /*cachePolicy=*/0u, ArrayAttr(),
                                       ArrayAttr(), ArrayAttr());
    else
      ROCDL::TensorStoreFromLDSOp::create(b, loc, g0, g1, g2, g3,
                                          /*cachePolicy=*/0u, ArrayAttr(),
                                          ArrayAttr(), ArrayAttr());
  }
  void waitBlockCopies(OpBuilder &b, Location loc, unsigned pending) override {
    ROCDL::WaitTensorcntOp::create(b, loc,
                                   uint16_t(getTensorCountWait(pending)));
  }
  ArrayRef<kda::tile::MatrixInstr> getMatrixInstrs() const override {
    static const kda::tile::MatrixInstr instrs[] = {
        kda::tile::MatrixInstr::Wmma16x16x32};
    return instrs;
  }
  /// v_wmma_f32_16x16x32_{bf16,f16}: A and B as 16 16-bit elements, C and D
  /// as 8 f32; no negation, no operand reuse hints.
  SmallVector<Value> matrixMultiply(OpBuilder &b, Location loc,
                                    kda::tile::MatrixInstr instr, ValueRange a,
                                    ValueRange bOperand,
                                    ValueRange c) override {
    assert(instr == kda::tile::MatrixInstr::Wmma16x16x32 && a.size() == 16 &&
           bOperand.size() == 16 && c.size() == 8 && "gfx1250 WMMA operands");
    Value va = packMatrixOperand(b, loc, a),
          vb = packMatrixOperand(b, loc, bOperand),
          vc = packMatrixOperand(b, loc, c);
    Type result = vc.getType();
    Value d = a.front().getType().isBF16()
                  ? ROCDL::wmma_f32_16x16x32_bf16::create(
                        b, loc, result, /*signA=*/false, va, /*signB=*/false,
                        vb, /*modC=*/0, vc)
                        .getResult()
                  : ROCDL::wmma_f32_16x16x32_f16::create(
                        b, loc, result, /*signA=*/false, va, /*signB=*/false,
                        vb, /*modC=*/0, vc)
                        .getResult();
    return kda::unpackVector(b, loc, d);
  }
};
} // namespace

std::unique_ptr<kda::TargetHooks>
kda::createGFX1250TargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<GFX1250TargetHooks>(info);
}
