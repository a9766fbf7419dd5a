//===- PointerRoots.cpp - which pointer arguments a pointer derives from --===//
#include "kda/Analysis/PointerRoots.h"
#include "Tile/TileDialect.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace {
bool holdsPointers(Type type) {
  return isa<kda::tile::PointerType>(mlir::getElementTypeOrSelf(type));
}

/// Calls `reached` on every pointer value derived from `root` (itself
/// included).
void forEachDerived(Value root, function_ref<void(Value)> reached) {
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
    reached(v);
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
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
}
} // namespace

kda::PointerRoots::PointerRoots(FunctionOpInterface kernel) {
  for (BlockArgument arg : kernel.getArguments())
    if (holdsPointers(arg.getType()))
      forEachDerived(arg,
                     [&](Value v) { roots[v].push_back(arg.getArgNumber()); });
}

ArrayRef<unsigned> kda::PointerRoots::getRoots(Value pointer) const {
  auto it = roots.find(pointer);
  return it == roots.end() ? ArrayRef<unsigned>() : ArrayRef(it->second);
}

SmallVector<bool> kda::getWrittenArguments(FunctionOpInterface kernel) {
  PointerRoots roots(kernel);
  SmallVector<bool> written(kernel.getNumArguments(), false);
  kernel->walk([&](Operation *op) {
    Value ptr;
    if (auto store = dyn_cast<kda::tile::StoreOp>(op))
      ptr = store.getPtr();
    else if (auto atomic = dyn_cast<kda::tile::AtomicRMWOp>(op))
      ptr = atomic.getPtr();
    if (ptr)
      for (unsigned arg : roots.getRoots(ptr))
        written[arg] = true;
  });
  return written;
}
