//===- GFX1250TargetHooks.cpp - gfx1250 hooks -----------------------------===//
#include "../AMDTargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;

namespace {
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
