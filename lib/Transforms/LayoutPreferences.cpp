//===- LayoutPreferences.cpp - the layouts tiles' users want --------------===//
#include "kda/Transforms/LayoutPreferences.h"
#include "Tile/TileDialect.h"
#include "kda/Layout/LayoutAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {
bool isTile(Value v) { return v && isa<RankedTensorType>(v.getType()); }

bool isElementwise(Operation *op) {
  // A scan's result lives where its source does, like an elementwise op's.
  if (isa<tile::AddPtrOp, tile::ScanOp>(op))
    return true;
  return op->hasTrait<OpTrait::Elementwise>() &&
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}
} // namespace

LayoutPreferences::LayoutPreferences(FunctionOpInterface func,
                                     DefaultFn getDefault,
                                     DotLayoutFn getDotLayout)
    : getDefault(std::move(getDefault)) {
  auto tie = [&](ValueRange values) {
    Value first;
    for (Value v : values) {
      if (!isTile(v) || isCheap(v))
        continue;
      if (first)
        unite(first, v);
      else
        first = find(v);
    }
  };
  // Tiles in IR order: groups list their members in that order, so every
  // "first member" choice is deterministic.
  SmallVector<Value> order;
  auto record = [&](Value v) {
    if (!isTile(v) || parent.count(v))
      return;
    find(v);
    order.push_back(v);
    // Only layouts the kernel wrote count as explicit: the assignment gives
    // layouts while it walks, and those must not feed back into the groups.
    if (Attribute layout = cast<RankedTensorType>(v.getType()).getEncoding())
      written[v] = layout;
  };
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value operand : op->getOperands())
      record(operand);
    for (Value r : op->getResults())
      record(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          record(arg);
    if (isElementwise(op)) {
      SmallVector<Value> values(op->getOperands());
      llvm::append_range(values, op->getResults());
      tie(values);
    } else if (auto load = dyn_cast<tile::LoadOp>(op)) {
      tie({load.getResult(), load.getPtr(), load.getMask(), load.getOther()});
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      tie({store.getPtr(), store.getValue(), store.getMask()});
    } else if (auto copy = dyn_cast<tile::AsyncCopyOp>(op)) {
      tie({copy.getPtr(), copy.getMask()});
    } else if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op)) {
      tie({atomic.getResult(), atomic.getPtr(), atomic.getValue(),
           atomic.getMask()});
    } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
      tie({dot.getAcc(), dot.getResult()});
      if (auto c = dyn_cast_or_null<tile::MmaLayoutAttr>(getDotLayout(dot))) {
        wanted.try_emplace(dot.getResult(), c);
        for (auto [operand, which] :
             {std::pair(dot.getA(), tile::MatrixOperand::A),
              std::pair(dot.getB(), tile::MatrixOperand::B)})
          if (operand.getDefiningOp<tile::SmemLoadOp>())
            wanted.try_emplace(operand, c.withOperand(which));
      }
    } else if (auto dot = dyn_cast<tile::SharedDotOp>(op)) {
      tie({dot.getAcc(), dot.getResult()});
      wanted.try_emplace(dot.getResult(), getDotLayout(dot));
    } else if (auto wait = dyn_cast<tile::DotWaitOp>(op)) {
      tie({wait.getAcc(), wait.getResult()});
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      loops.push_back(loop);
    } else if (auto bcast = dyn_cast<tile::BroadcastOp>(op)) {
      tie({bcast.getSrc(), bcast.getResult()});
    } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      find(expand.getSrc());
      expandedInto.try_emplace(expand.getSrc(), expand.getResult(),
                               expand.getAxisAttr().getInt());
    } else if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      if (isTile(reduce.getResult()))
        reducedFrom.try_emplace(reduce.getResult(), reduce.getSrc(),
                                reduce.getAxisAttr().getInt());
    }
  });
  for (Value v : order)
    members[find(v)].push_back(v);
  // A loop that carries a wanted layout (an accumulator) carries it from its
  // init to its result; innermost loops first, so outer ones see their
  // results.
  for (scf::ForOp loop : llvm::reverse(loops))
    for (auto [init, arg, yielded, result] :
         llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                   loop.getYieldedValues(), loop.getResults()))
      if (Attribute layout = getWanted(yielded))
        for (Value v : {Value(init), Value(arg), Value(result)})
          if (isTile(v))
            wanted.try_emplace(v, layout);
}

Attribute LayoutPreferences::getWanted(Value value) {
  if (!isTile(value))
    return {};
  if (Attribute layout = wanted.lookup(value))
    return layout;
  for (Value v : members.lookup(find(value)))
    if (Attribute layout = wanted.lookup(v))
      return layout;
  return {};
}

bool LayoutPreferences::isCheap(Value value) {
  if (!isTile(value))
    return true;
  auto it = cheap.find(value);
  if (it != cheap.end())
    return it->second;
  cheap[value] = false; // cycles (loop-carried values) are not cheap
  Operation *op = value.getDefiningOp();
  bool result = false;
  if (op && isa<tile::RangeOp, tile::SplatOp, arith::ConstantOp>(op))
    result = true;
  else if (op && (isElementwise(op) ||
                  isa<tile::BroadcastOp, tile::ExpandDimsOp>(op)))
    result = llvm::all_of(op->getOperands(),
                          [&](Value operand) { return isCheap(operand); });
  cheap[value] = result;
  return result;
}

Value LayoutPreferences::find(Value v) {
  auto [it, inserted] = parent.try_emplace(v, v);
  if (inserted || it->second == v)
    return v;
  Value root = find(it->second);
  parent[v] = root;
  return root;
}

void LayoutPreferences::unite(Value a, Value b) {
  Value ra = find(a), rb = find(b);
  if (ra != rb)
    parent[rb] = ra;
}

Attribute LayoutPreferences::lookup(Value value) {
  if (!isTile(value))
    return {};
  return resolve(find(value));
}

Attribute LayoutPreferences::resolve(Value root) {
  if (Attribute known = resolved.lookup(root))
    return known;
  auto type = cast<RankedTensorType>(root.getType());
  auto matchesRank = [&](Attribute layout) {
    return layout && tile::getLayoutRank(layout) == type.getRank();
  };
  Attribute choice;
  if (!resolving.insert(root).second)
    return getDefault(type); // a cycle through expand/reduce: stop here
  // A copy: the resolve() calls below may add groups, which moves the map's
  // vectors.
  SmallVector<Value> group = members.lookup(root);
  // 1. A layout the kernel wrote.
  for (Value v : group)
    if (Attribute layout = written.lookup(v);
        tile::isDistributedLayout(layout)) {
      choice = layout;
      break;
    }
  // 1b. A layout a matrix instruction wants.
  for (Value v : group) {
    if (choice)
      break;
    choice = wanted.lookup(v);
  }
  // Slices replicate a tile over the threads of the sliced dimension, so
  // arithmetic on them may be repeated on more copies than in the rank's
  // default. A slice is taken when the extra per-thread work of the group's
  // elementwise ops stays below what converting the group once costs (a
  // round trip through shared memory with two barriers); slices no wider per
  // thread than the default are always taken.
  unsigned arithmetic = llvm::count_if(group, [](Value v) {
    Operation *op = v.getDefiningOp();
    return op && isElementwise(op);
  });
  // Distinct values per thread: registers that repeat one value (a slice's
  // sliced dimension) hold the same SSA value and cost nothing extra.
  auto registersPerThread = [&](Attribute layout) -> int64_t {
    LinearLayout ll = toLinearLayout(layout, type.getShape());
    return int64_t(1) << (ll.getNumBits(HWDim::Register) -
                          llvm::popcount(ll.getDuplicateMask(HWDim::Register)));
  };
  auto sliceWorthIt = [&](Attribute slice) {
    constexpr int64_t kConversionCostInOps = 64;
    int64_t extra =
        registersPerThread(slice) - registersPerThread(getDefault(type));
    return extra <= 0 || int64_t(arithmetic) * extra <= kConversionCostInOps;
  };
  // 2. A reduction's result lives where its source was.
  for (Value v : group) {
    if (choice)
      break;
    auto it = reducedFrom.find(v);
    if (it == reducedFrom.end())
      continue;
    Attribute src = resolve(find(it->second.first));
    Attribute slice =
        tile::SliceLayoutAttr::get(v.getContext(), it->second.second, src);
    if (matchesRank(slice) && sliceWorthIt(slice))
      choice = slice;
  }
  // 3. A tile expanded into a bigger one: a slice of that one's layout.
  for (Value v : group) {
    if (choice)
      break;
    auto it = expandedInto.find(v);
    if (it == expandedInto.end())
      continue;
    Attribute into = resolve(find(it->second.first));
    if (!isa_and_nonnull<tile::BlockedLayoutAttr, tile::SliceLayoutAttr,
                         tile::MmaLayoutAttr>(into))
      continue;
    Attribute slice =
        tile::SliceLayoutAttr::get(v.getContext(), it->second.second, into);
    if (matchesRank(slice) && sliceWorthIt(slice))
      choice = slice;
  }
  if (!choice)
    choice = getDefault(type);
  resolving.erase(root);
  resolved[root] = choice;
  return choice;
}
