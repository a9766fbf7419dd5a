//===- LayoutAttrs.cpp - tile layout attributes as linear layouts ---------===//
#include "kda/Layout/LayoutAttrs.h"
#include "Tile/TileDialect.h"
#include "kda/Layout/MatrixLayouts.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace kda;

LinearLayout kda::toLinearLayout(Attribute layout, ArrayRef<int64_t> shape) {
  if (auto blocked = dyn_cast<tile::BlockedLayoutAttr>(layout))
    return makeBlockedLinearLayout(
        shape, blocked.getSizePerThread(), blocked.getThreadsPerWarp(),
        blocked.getWarpsPerCTA(), blocked.getOrder());
  if (auto mma = dyn_cast<tile::MmaLayoutAttr>(layout)) {
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    return makeMatrixLayout(mma.getInstr(), mma.getOperand(), shape,
                            {warps[0], warps[1]});
  }
  if (auto slice = dyn_cast<tile::SliceLayoutAttr>(layout)) {
    // The parent over the tile with a unit dimension at the sliced position:
    // every basis along it wraps to zero, so the threads that held the
    // sliced dimension hold copies.
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    return toLinearLayout(slice.getParent(), parentShape)
        .dropDim(slice.getDim());
  }
  llvm::report_fatal_error("toLinearLayout: not a distributed layout");
}

LinearLayout kda::toLinearLayout(RankedTensorType type) {
  return toLinearLayout(type.getEncoding(), type.getShape());
}

Attribute kda::getDefaultBlockedLayout(MLIRContext *ctx,
                                       ArrayRef<int64_t> shape,
                                       unsigned elementBits, unsigned numWarps,
                                       unsigned waveSize) {
  unsigned rank = shape.size();
  SmallVector<unsigned> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  unsigned fastest = rank - 1;
  // Up to 128 bits per thread (vector accesses), but no more elements than
  // spread the tile over every thread: a 128-element vector on 128 threads
  // takes one each rather than eight each on a sixteenth of them, which
  // would repeat its arithmetic eight times.
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  int64_t spread =
      std::max<int64_t>(1, elements / (int64_t(waveSize) * numWarps));
  spt[fastest] =
      std::min<int64_t>({int64_t(std::max(1u, 128 / std::max(1u, elementBits))),
                         shape[fastest], spread});

  unsigned lanes = waveSize;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    while (lanes > 1 && tpw[d] < room) {
      tpw[d] *= 2;
      lanes /= 2;
    }
  }
  tpw[order.back()] *= lanes; // lanes beyond the tile replicate it

  unsigned warps = numWarps;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    while (warps > 1 && wpc[d] < room) {
      wpc[d] *= 2;
      warps /= 2;
    }
  }
  wpc[0] *= warps;
  return tile::BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}
