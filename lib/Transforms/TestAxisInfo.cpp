//===- TestAxisInfo.cpp - record AxisInfo results on ops (testing) --------===//
#include "Tile/TileDialect.h"
#include "kda/Analysis/AxisInfo.h"
#include "kda/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace kda {
#define GEN_PASS_DEF_TESTPRINTAXISINFO
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

namespace {

bool isTracked(Type type) {
  return isa<IntegerType, IndexType, tile::PointerType>(
      mlir::getElementTypeOrSelf(type));
}

/// The dimension a layout keeps contiguous in each thread's registers.
unsigned getFastestDim(RankedTensorType type) {
  Attribute layout = type.getEncoding();
  if (auto blocked = dyn_cast_or_null<tile::BlockedLayoutAttr>(layout))
    return blocked.getOrder()[0];
  if (auto slice = dyn_cast_or_null<tile::SliceLayoutAttr>(layout))
    if (auto parent = dyn_cast<tile::BlockedLayoutAttr>(slice.getParent()))
      for (unsigned d : parent.getOrder())
        if (d != slice.getDim())
          return d > slice.getDim() ? d - 1 : d;
  return type.getRank() - 1;
}

struct TestPrintAxisInfoPass
    : kda::impl::TestPrintAxisInfoBase<TestPrintAxisInfoPass> {
  void runOnOperation() override {
    AxisInfoAnalysis analysis(getOperation());
    Builder b(&getContext());
    auto describe = [&](Value value) -> Attribute {
      if (!isTracked(value.getType()))
        return b.getDictionaryAttr({});
      AxisInfo info = analysis.getAxisInfo(value);
      return b.getDictionaryAttr(
          {b.getNamedAttr("contiguity",
                          b.getDenseI64ArrayAttr(info.getContiguity())),
           b.getNamedAttr("divisibility",
                          b.getDenseI64ArrayAttr(info.getDivisibility())),
           b.getNamedAttr("constancy",
                          b.getDenseI64ArrayAttr(info.getConstancy()))});
    };
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() == 1 && isTracked(op->getResult(0).getType()))
        op->setAttr("tile.axis_info", describe(op->getResult(0)));
      else if (op->getNumResults() > 1 &&
               llvm::any_of(op->getResultTypes(), isTracked))
        op->setAttr("tile.axis_info", b.getArrayAttr(llvm::map_to_vector(
                                          op->getResults(), describe)));
      Value ptr, mask;
      if (auto load = dyn_cast<tile::LoadOp>(op)) {
        ptr = load.getPtr();
        mask = load.getMask();
      } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
        ptr = store.getPtr();
        mask = store.getMask();
      }
      auto tensor = ptr ? dyn_cast<RankedTensorType>(ptr.getType()) : nullptr;
      if (!tensor)
        return;
      auto pointee =
          cast<tile::PointerType>(tensor.getElementType()).getPointeeType();
      unsigned maxElems =
          std::max(1u, 128 / std::max(8u, pointee.getIntOrFloatBitWidth()));
      op->setAttr("tile.vector_width",
                  b.getI32IntegerAttr(analysis.getVectorWidth(
                      ptr, mask, getFastestDim(tensor), maxElems)));
    });
  }
};

} // namespace
