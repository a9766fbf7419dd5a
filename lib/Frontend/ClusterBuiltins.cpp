//===- ClusterBuiltins.cpp - kt.cluster_sum -------------------------------===//
//
// `total = kt.cluster_sum(x, axis, size)`: the sum of the fp32 scalar x over
// the programs of a cluster (runs of `size` programs along grid axis `axis`),
// the same in each of them. The kernel is then launched in clusters of that
// shape; every program of a cluster must reach the call, so it may not be in
// a loop.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

std::optional<DValue> Emitter::clusterSumBuiltin(const std::string &fnName,
                                                 BoundArgs &args,
                                                 SourceLoc at) {
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  DValue &x = argv(0);
  if (!x.isRuntime() || !shapeOf(x).empty() || !elementTypeOf(x).isF32())
    return error(argloc(0), fnName +
                                " input must be a float32 scalar (sum "
                                "a tile with kt.sum first), got " +
                                describe(x));
  std::optional<int64_t> axis =
      requireInt(argv(1), argloc(1), fnName + " axis");
  if (!axis)
    return std::nullopt;
  if (*axis < 0 || *axis > 2)
    return error(argloc(1), fnName + " axis must be 0, 1 or 2, got " +
                                std::to_string(*axis));
  std::optional<int64_t> size =
      requireInt(argv(2), argloc(2), fnName + " size");
  if (!size)
    return std::nullopt;
  if (*size < 1 || *size > 8)
    return error(argloc(2), fnName +
                                " size must be between 1 and 8 programs "
                                "(the portable cluster size), got " +
                                std::to_string(*size));
  // (A loop's body is first emitted into a detached block to find what it
  // carries: no parent then; the real emission below checks.)
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  if (parent && (isa<LoopLikeOpInterface>(parent) ||
                 parent->getParentOfType<LoopLikeOpInterface>()))
    return error(at, fnName + " must not be called in a loop: every program "
                              "of a cluster must call it equally often");
  Value sum = kda::tile::ClusterSumOp::create(
      builder, loc(at), x.value, builder.getI32IntegerAttr(int32_t(*axis)),
      builder.getI32IntegerAttr(int32_t(*size)));
  return DValue::of(sum);
}
