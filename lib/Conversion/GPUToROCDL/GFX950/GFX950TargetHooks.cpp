//===- GFX950TargetHooks.cpp - gfx950 hooks -------------------------------===//
#include "../AMDTargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;

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
  ArrayRef<kda::tile::MatrixInstr> getMatrixInstrs() const override {
    // The 32x32 tile first: half the instructions of the 16x16 one for the
    // same product, where a dot is large enough for it.
    static const kda::tile::MatrixInstr instrs[] = {
        kda::tile::MatrixInstr::Mfma32x32x16,
        kda::tile::MatrixInstr::Mfma16x16x32};
    return instrs;
  }
  /// v_mfma_f32_{32x32x16,16x16x32}_{bf16,f16}: A and B as 8 16-bit
  /// elements, C and D as 16 (32x32) or 4 (16x16) f32; no broadcast
  /// (cbsz = abid = blgp = 0).
  SmallVector<Value> matrixMultiply(OpBuilder &b, Location loc,
                                    kda::tile::MatrixInstr instr, ValueRange a,
                                    ValueRange bOperand,
                                    ValueRange c) override {
    bool wide = instr == kda::tile::MatrixInstr::Mfma32x32x16;
    assert(a.size() == 8 && bOperand.size() == 8 &&
           c.size() == (wide ? 16u : 4u) && "gfx950 MFMA operands");
    Type elem = a.front().getType();
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
};
} // namespace

std::unique_ptr<kda::TargetHooks>
kda::createGFX950TargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<GFX950TargetHooks>(info);
}
