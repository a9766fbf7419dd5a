//===- ClusterOps.cpp - sums over thread-block clusters -------------------===//
#include "Tile/TileDialect.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace kda::tile;

LogicalResult ClusterSumOp::verify() {
  // Each program of a cluster must run the op as often as the others; a loop
  // could run it a different number of times in each.
  if ((*this)->getParentOfType<LoopLikeOpInterface>())
    return emitOpError("must not be in a loop: every program of a cluster "
                       "runs it once per call");
  return success();
}

FailureOr<std::array<int32_t, 3>>
kda::tile::getClusterShape(Operation *kernel) {
  std::array<int32_t, 3> shape = {1, 1, 1};
  ClusterSumOp first;
  WalkResult result = kernel->walk([&](ClusterSumOp op) {
    std::array<int32_t, 3> mine = {1, 1, 1};
    mine[op.getAxis()] = op.getSize();
    if (!first) {
      first = op;
      shape = mine;
      return WalkResult::advance();
    }
    if (mine == shape)
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op.emitOpError("asks for clusters of ")
        << op.getSize() << " programs along axis " << op.getAxis()
        << ", another cluster sum of the kernel for " << first.getSize()
        << " along axis " << first.getAxis()
        << ": a kernel has one cluster shape";
    diag.attachNote(first.getLoc()) << "the other cluster sum";
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return failure();
  return shape;
}
