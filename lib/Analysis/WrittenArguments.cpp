//===- WrittenArguments.cpp - pointer arguments a kernel stores through ---===//
#include "kda/Analysis/WrittenArguments.h"
#include "Tile/TileDialect.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace {
bool holdsPointers(Type type) {
  return isa<kda::tile::PointerType>(mlir::getElementTypeOrSelf(type));
}

/// Whether a pointer derived from `root` reaches a store or atomic's pointer.
bool isWrittenThrough(Value root) {
  SmallVector<Value> worklist = {root};
  llvm::DenseSet<Value> seen = {root};
  auto push = [&](Value v) {
    if (holdsPointers(v.getType()) && seen.insert(v).second)
      worklist.push_back(v);
  };
  auto pushResultsAndRegions = [&](Operation *op) {
    for (Value result : op->getResults())
      push(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          push(arg);
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto store = dyn_cast<kda::tile::StoreOp>(user))
        if (&use == &store.getPtrMutable())
          return true;
      if (auto atomic = dyn_cast<kda::tile::AtomicRMWOp>(user))
        if (&use == &atomic.getPtrMutable())
          return true;
      // Into results and regions (loop-carried pointers), and from a
      // terminator into its parent's and into its successors.
      pushResultsAndRegions(user);
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        if (Operation *parent = user->getParentOp())
          pushResultsAndRegions(parent);
        for (Block *successor : user->getSuccessors())
          for (BlockArgument arg : successor->getArguments())
            push(arg);
      }
    }
  }
  return false;
}
} // namespace

SmallVector<bool> kda::getWrittenArguments(FunctionOpInterface kernel) {
  SmallVector<bool> written;
  for (BlockArgument arg : kernel.getArguments())
    written.push_back(holdsPointers(arg.getType()) && isWrittenThrough(arg));
  return written;
}
