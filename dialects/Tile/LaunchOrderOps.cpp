//===- LaunchOrderOps.cpp - waiting for the previous kernel on a stream ---===//
//
// A kernel that runs tile.wait_prior_launches may be launched while the
// previous kernel on its stream is still running; the wait is what keeps
// that safe, so it must come before the kernel's first memory access.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kda::tile;

/// The first operation in or under `op` that may read or write memory (an
/// allocation alone does not: it touches nothing a previous kernel wrote; nor
/// do the launch-order ops, whose effects only keep accesses on their side).
static Operation *findMemoryAccess(Operation *op) {
  Operation *found = nullptr;
  op->walk([&](Operation *nested) {
    if (isa<WaitPriorLaunchesOp, LaunchDependentsOp>(nested))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface) {
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          (nested->getNumRegions() == 0 && isMemoryEffectFree(nested)))
        return WalkResult::advance();
      found = nested;
      return WalkResult::interrupt();
    }
    if (iface.hasEffect<MemoryEffects::Read>() ||
        iface.hasEffect<MemoryEffects::Write>()) {
      found = nested;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

Operation *kda::tile::findAccessBeforeWait(WaitPriorLaunchesOp wait) {
  for (Operation *before = wait->getPrevNode(); before;
       before = before->getPrevNode())
    if (Operation *access = findMemoryAccess(before))
      return access;
  return nullptr;
}

WaitPriorLaunchesOp kda::tile::findEarlierWait(WaitPriorLaunchesOp wait) {
  WaitPriorLaunchesOp found;
  for (Operation *before = wait->getPrevNode(); before && !found;
       before = before->getPrevNode())
    before->walk([&](WaitPriorLaunchesOp earlier) {
      found = earlier;
      return WalkResult::interrupt();
    });
  return found;
}

LogicalResult WaitPriorLaunchesOp::verify() {
  if (!isa<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError("must be at the top level of the kernel, not in a "
                       "loop, a branch or a region");
  if (WaitPriorLaunchesOp earlier = findEarlierWait(*this)) {
    InFlightDiagnostic diag = emitOpError(
        "appears twice in the kernel: the first wait covers every kernel "
        "launched before it");
    diag.attachNote(earlier.getLoc()) << "the first wait";
    return diag;
  }
  if (Operation *access = findAccessBeforeWait(*this)) {
    InFlightDiagnostic diag =
        emitOpError("must come before every memory access of the kernel: a "
                    "kernel launched before the previous one finishes may "
                    "touch memory only after the wait");
    diag.attachNote(access->getLoc()) << "this access comes first";
    return diag;
  }
  return success();
}

bool kda::tile::waitsForPriorLaunches(Operation *kernel) {
  return kernel
      ->walk([](WaitPriorLaunchesOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}
