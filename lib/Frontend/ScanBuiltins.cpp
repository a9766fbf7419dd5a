//===- ScanBuiltins.cpp - kt.cumsum / cumprod / cummax / cummin and -------===//
//                        kt.associative_scan
//
// Every scan is one tile.scan whose combiner region takes the running values
// and the next elements. The named scans build it from one arith op; an
// associative_scan inlines its DSL combine function there, on scalars, and
// the result must neither touch memory nor make tiles.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

std::optional<DValue> Emitter::scanBuiltin(const std::string &name,
                                           const std::string &fnName,
                                           BoundArgs &args, SourceLoc at) {
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  bool custom = name == "associative_scan";

  // The sources: one tile, or (associative_scan) a tuple of equal shapes.
  DValue &input = argv(0);
  std::vector<DValue> inputs = custom && input.kind == DValue::Kind::Tuple
                                   ? input.elements
                                   : std::vector<DValue>{input};
  SmallVector<Value> srcs;
  for (const DValue &v : inputs) {
    if (!v.isRuntime() || shapeOf(v).empty() ||
        isa<PointerType>(elementTypeOf(v)))
      return error(argloc(0), fnName + " needs " +
                                  (custom ? "tiles" : "a tile") +
                                  " of numbers, got " + describe(v));
    auto type = cast<RankedTensorType>(v.value.getType());
    auto first =
        srcs.empty() ? type : cast<RankedTensorType>(srcs.front().getType());
    if (type.getShape() != first.getShape() ||
        type.getEncoding() != first.getEncoding())
      return error(argloc(0), fnName +
                                  " needs tiles of one shape and "
                                  "layout, got " +
                                  describe(inputs.front()) + " and " +
                                  describe(v));
    srcs.push_back(v.value);
  }
  int64_t rank = cast<RankedTensorType>(srcs.front().getType()).getRank();
  int64_t axis = 0;
  if (has(1)) {
    std::optional<int64_t> a = requireAxis(argv(1), argloc(1), rank);
    if (!a)
      return std::nullopt;
    axis = *a;
  } else if (custom) {
    return error(at, fnName + " needs an axis");
  }
  size_t reverseIndex = custom ? 3 : 2;
  bool reverse = false;
  if (has(reverseIndex)) {
    std::optional<Constant> r = asConstant(argv(reverseIndex));
    if (!r)
      return error(argloc(reverseIndex), "reverse must be a compile-time bool");
    reverse = isTruthy(*r);
  }
  if (custom && argv(2).kind != DValue::Kind::Function)
    return error(argloc(2), "combine_fn must be a @kt.jit function, got " +
                                describe(argv(2)));
  // Sums and products of narrow integers (and of bools) accumulate in i32,
  // as kt.sum does.
  if (name == "cumsum" || name == "cumprod") {
    Type elem = getElementTypeOrSelf(srcs.front().getType());
    if (elem.isInteger() && elem.getIntOrFloatBitWidth() < 32)
      srcs.front() = *convert(srcs.front(), builder.getI32Type(), at);
  }

  auto scan = kda::tile::ScanOp::create(builder, l, srcs,
                                        static_cast<uint32_t>(axis), reverse);
  SmallVector<Type> elems;
  for (Value src : srcs)
    elems.push_back(getElementTypeOrSelf(src.getType()));
  SmallVector<Type> argTypes(elems);
  llvm::append_range(argTypes, elems);
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&scan.getCombiner(), {}, argTypes,
                                    SmallVector<Location>(argTypes.size(), l));
  size_t n = srcs.size();
  SmallVector<Value> yielded;
  if (!custom) {
    auto kind = name == "cumsum"    ? kda::tile::ReduceKind::Sum
                : name == "cumprod" ? kda::tile::ReduceKind::Prod
                : name == "cummax"  ? kda::tile::ReduceKind::Max
                                    : kda::tile::ReduceKind::Min;
    yielded.push_back(kda::tile::buildCombine(
        builder, l, kind, body->getArgument(0), body->getArgument(1)));
  } else {
    std::vector<Arg> positional;
    for (BlockArgument arg : body->getArguments())
      positional.push_back(Arg(DValue::of(Value(arg)), argloc(2)));
    std::vector<std::pair<std::string, Arg>> keywords;
    std::optional<DValue> result =
        inlineCall(argv(2), positional, keywords, at);
    if (!result)
      return std::nullopt;
    std::vector<DValue> outs = result->kind == DValue::Kind::Tuple
                                   ? result->elements
                                   : std::vector<DValue>{*result};
    if (outs.size() != n)
      return error(argloc(2), "combine_fn must return " + std::to_string(n) +
                                  " value" + (n == 1 ? "" : "s") + ", got " +
                                  std::to_string(outs.size()));
    for (auto [out, elem] : llvm::zip_equal(outs, elems)) {
      if (!shapeOf(out).empty())
        return error(argloc(2),
                     "combine_fn must return scalars, got " + describe(out));
      std::optional<Value> v = coerce(out, elem, {}, argloc(2));
      if (!v)
        return std::nullopt;
      yielded.push_back(*v);
    }
    Operation *bad = nullptr;
    body->walk([&](Operation *op) {
      bool tiles =
          llvm::any_of(op->getOperandTypes(), llvm::IsaPred<ShapedType>) ||
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<ShapedType>);
      if (tiles || !isMemoryEffectFree(op)) {
        bad = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (bad)
      return error(argloc(2), "combine_fn must compute on scalars without "
                              "touching memory; it uses '" +
                                  bad->getName().getStringRef() + "'");
  }
  kda::tile::YieldOp::create(builder, l, yielded);
  if (custom && input.kind == DValue::Kind::Tuple) {
    std::vector<DValue> results;
    for (Value r : scan.getResults())
      results.push_back(DValue::of(r));
    return DValue::tuple(std::move(results));
  }
  return DValue::of(scan.getResult(0));
}
