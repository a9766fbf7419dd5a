//===- WrittenArguments.cpp - pointer arguments a kernel stores through ---===//
#include "kda/Analysis/WrittenArguments.h"
#include "Tile/TileDialect.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace {
bool holdsPointers(Type type) {
  return isa<kda::tile::PointerType>(kda::tile::getElementTypeOrSelf(type));
}

/// Whether a pointer derived from `root` reaches a store or atomic's pointer.
bool isWrittenThrough(Value root) {
  SmallVector<Value> worklist = {root};
  llvm::DenseSet<Value> seen = {root};
  auto push = [&](Value v) {
    if (holdsPointers(v.getType()) && seen.insert(v).second)
      worklist.push_back(v);
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
      for (Value result : user->getResults())
        push(result);
      // Into regions (loop-carried and yielded pointers) and successors.
      for (Region &region : user->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            push(arg);
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        if (Operation *parent = user->getParentOp()) {
          for (Value result : parent->getResults())
            push(result);
          for (Region &region : parent->getRegions())
            for (Block &block : region)
              for (BlockArgument arg : block.getArguments())
                push(arg);
        }
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
