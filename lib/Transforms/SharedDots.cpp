//===- SharedDots.cpp - dots whose operands stay in shared memory ---------===//
//
// A dot of two shared-memory loads on a matrix unit that reads shared memory
// itself (wgmma) would load both operands into registers only for the
// lowering to need them in shared memory again: it becomes a
// tile.shared_dot of the buffers instead.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kda {
#define GEN_PASS_DEF_TILESHAREDDOTS
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

namespace {

/// Whether an op between a load and its dot could change what the dot reads.
bool mayWriteMemory(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return !effects || effects.hasEffect<MemoryEffects::Write>();
}

/// The buffer `value` is loaded from when the load qualifies as an operand
/// read in place: a whole nvmma_shared buffer loaded in the dot's block,
/// with no write between the load and the dot.
Value getReadInPlace(Value value, tile::DotOp dot) {
  auto load = value.getDefiningOp<tile::SmemLoadOp>();
  if (!load || load->getBlock() != dot->getBlock() ||
      !isa_and_nonnull<tile::NVMMASharedLayoutAttr>(
          load.getBuffer().getType().getLayout()))
    return {};
  for (Operation *op = load->getNextNode(); op != dot; op = op->getNextNode())
    if (mayWriteMemory(op))
      return {};
  return load.getBuffer();
}

struct TileSharedDotsPass : kda::impl::TileSharedDotsBase<TileSharedDotsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!llvm::is_contained(matrixInstrs, tile::stringifyMatrixInstr(
                                              tile::MatrixInstr::WgmmaM64K16)))
      return;
    ModuleOp module = getOperation();
    unsigned warps = numWarps;
    if (auto attr = module->getAttrOfType<IntegerAttr>(kNumWarpsAttr))
      warps = attr.getInt();
    if (warps % 4)
      return; // no whole warpgroups
    SmallVector<tile::DotOp> dots;
    module.walk([&](tile::DotOp dot) { dots.push_back(dot); });
    for (tile::DotOp dot : dots) {
      RankedTensorType a = dot.getA().getType();
      int64_t m = a.getDimSize(0), k = a.getDimSize(1),
              n = dot.getB().getType().getDimSize(1);
      if (!isa<BFloat16Type, Float16Type>(a.getElementType()) ||
          m % (16 * warps) || k % 16 || n % 8 || a.getEncoding() ||
          dot.getB().getType().getEncoding() ||
          dot.getAcc().getType().getEncoding())
        continue;
      Value aBuffer = getReadInPlace(dot.getA(), dot);
      Value bBuffer = getReadInPlace(dot.getB(), dot);
      if (!aBuffer || !bBuffer)
        continue;
      OpBuilder b(dot);
      Value result =
          tile::SharedDotOp::create(b, dot.getLoc(), dot.getType(), aBuffer,
                                    bBuffer, dot.getAcc(), dot.getIsAsync());
      SmallVector<Operation *, 2> loads = {dot.getA().getDefiningOp()};
      if (dot.getB().getDefiningOp() != loads.front())
        loads.push_back(dot.getB().getDefiningOp());
      dot.replaceAllUsesWith(result);
      dot.erase();
      for (Operation *load : loads)
        if (load->use_empty())
          load->erase();
    }
  }
};

} // namespace
