//===- ShapeMathBuiltins.cpp - shape and elementwise math builtins --------===//
//
// kt.broadcast_to / reshape / trans / expand_dims, and the elementwise math
// functions. Half-precision math runs in f32 and is rounded back, which is
// what every target does anyway and keeps lowering simple.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

std::optional<DValue> Emitter::shapeBuiltin(const std::string &name,
                                            const std::string &fnName,
                                            BoundArgs &args, SourceLoc at) {
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  std::optional<Value> x = toRuntime(argv(0), argloc(0));
  if (!x)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(x->getType());
  if (name == "broadcast_to") {
    std::optional<SmallVector<int64_t>> shape =
        requireShape(argv(1), argloc(1), "kt.broadcast_to() shape");
    if (!shape)
      return std::nullopt;
    std::optional<Value> r = broadcastTo(*x, *shape, at);
    if (!r)
      return std::nullopt;
    return DValue::of(*r);
  }
  if (name == "expand_dims") {
    SmallVector<int64_t> axes;
    if (argv(1).kind == DValue::Kind::Tuple) {
      std::optional<SmallVector<int64_t>> a =
          requireShape(argv(1), argloc(1), "axis");
      if (!a)
        return std::nullopt;
      axes = *a;
    } else {
      std::optional<int64_t> a = requireInt(argv(1), argloc(1), "axis");
      if (!a)
        return std::nullopt;
      axes.push_back(*a);
    }
    Value v = *x;
    for (int64_t a : axes) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      int64_t rank = t ? t.getRank() : 0;
      int64_t axis = a < 0 ? a + rank + 1 : a;
      if (axis < 0 || axis > rank)
        return error(argloc(1), "axis " + std::to_string(a) +
                                    " is out of range for kt.expand_dims() "
                                    "of a rank-" +
                                    std::to_string(rank) + " value");
      if (!t) {
        v = *broadcastTo(v, {1}, at);
        continue;
      }
      std::optional<Value> expanded = expandDims(v, axis, argloc(1));
      if (!expanded)
        return std::nullopt;
      v = *expanded;
    }
    return DValue::of(v);
  }
  if (!type)
    return error(argloc(0), fnName + " needs a tile, got " + describe(argv(0)));
  if (name == "reshape") {
    std::optional<SmallVector<int64_t>> shape =
        requireShape(argv(1), argloc(1), "kt.reshape() shape");
    if (!shape)
      return std::nullopt;
    int64_t n = 1;
    for (int64_t d : *shape)
      n *= d;
    if (n != type.getNumElements())
      return error(at, "kt.reshape() cannot reshape " +
                           formatShape(type.getShape()) + " (" +
                           std::to_string(type.getNumElements()) +
                           " elements) to " + formatShape(*shape) + " (" +
                           std::to_string(n) + " elements)");
    return DValue::of(kda::tile::ReshapeOp::create(
                          builder, l,
                          RankedTensorType::get(*shape, type.getElementType()),
                          *x)
                          .getResult());
  }
  // trans
  SmallVector<int32_t> order;
  if (!has(1)) {
    if (type.getRank() != 2)
      return error(at, fnName +
                           " without a permutation needs a 2-D tile, "
                           "got " +
                           formatShape(type.getShape()));
    order = {1, 0};
  } else {
    std::optional<SmallVector<int64_t>> dims;
    SmallVector<int64_t> raw;
    if (argv(1).kind == DValue::Kind::Tuple) {
      for (DValue &d : argv(1).elements) {
        std::optional<int64_t> k = requireInt(d, argloc(1), "permutation");
        if (!k)
          return std::nullopt;
        raw.push_back(*k);
      }
    } else {
      std::optional<int64_t> k = requireInt(argv(1), argloc(1), "permutation");
      if (!k)
        return std::nullopt;
      raw.push_back(*k);
    }
    SmallVector<bool> seen(type.getRank(), false);
    bool ok = static_cast<int64_t>(raw.size()) == type.getRank();
    for (int64_t d : raw) {
      ok = ok && d >= 0 && d < type.getRank() && !seen[d];
      if (ok)
        seen[d] = true;
      order.push_back(static_cast<int32_t>(d));
    }
    if (!ok)
      return error(argloc(1), fnName + " permutation " + formatShape(raw) +
                                  " is not a permutation of the " +
                                  std::to_string(type.getRank()) +
                                  " dimensions");
  }
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(type.getDimSize(d));
  return DValue::of(kda::tile::TransOp::create(
                        builder, l,
                        RankedTensorType::get(shape, type.getElementType()), *x,
                        builder.getDenseI32ArrayAttr(order))
                        .getResult());
}

std::optional<DValue> Emitter::mathBuiltin(const std::string &name,
                                           const std::string &fnName,
                                           BoundArgs &args, SourceLoc at) {
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  // Elementwise math: abs and the float functions.
  DValue &input = argv(0);
  if (name == "abs" && input.isConst()) {
    std::string message;
    if (!input.constant.isNumber())
      return error(argloc(0), "kt.abs() needs a number");
    std::vector<Arg> one{args[0].value()};
    std::vector<std::pair<std::string, Arg>> none;
    return callBuiltin("py.abs", nullptr, one, none, at);
  }
  std::optional<Value> x = toRuntime(input, argloc(0));
  if (!x)
    return std::nullopt;
  Type elem = mlir::getElementTypeOrSelf(x->getType());
  if (name == "abs") {
    if (isa<PointerType>(elem))
      return error(argloc(0), "kt.abs() needs numbers, got " + describe(input));
    if (isa<FloatType>(elem))
      return DValue::of(math::AbsFOp::create(builder, l, *x).getResult());
    return DValue::of(math::AbsIOp::create(builder, l, *x).getResult());
  }
  if (!isa<FloatType>(elem))
    return error(argloc(0), fnName +
                                " requires a floating-point argument, "
                                "got " +
                                typeString(elem));
  // Half-precision math is computed in f32 and rounded back.
  bool narrow = elem.getIntOrFloatBitWidth() < 32;
  Value v = narrow ? *convert(*x, builder.getF32Type(), at) : *x;
  Value r;
  if (name == "exp")
    r = math::ExpOp::create(builder, l, v);
  else if (name == "exp2")
    r = math::Exp2Op::create(builder, l, v);
  else if (name == "log")
    r = math::LogOp::create(builder, l, v);
  else if (name == "log2")
    r = math::Log2Op::create(builder, l, v);
  else if (name == "sqrt") // `afn`: targets may approximate (sqrt_rn: IEEE)
    r = math::SqrtOp::create(builder, l, v, arith::FastMathFlags::afn);
  else if (name == "sqrt_rn")
    r = math::SqrtOp::create(builder, l, v);
  else if (name == "rsqrt")
    r = math::RsqrtOp::create(builder, l, v, arith::FastMathFlags::afn);
  else if (name == "cos")
    r = math::CosOp::create(builder, l, v);
  else if (name == "sin")
    r = math::SinOp::create(builder, l, v);
  else if (name == "tanh")
    r = math::TanhOp::create(builder, l, v);
  else if (name == "floor")
    r = math::FloorOp::create(builder, l, v);
  else if (name == "ceil")
    r = math::CeilOp::create(builder, l, v);
  else if (name == "erf")
    r = math::ErfOp::create(builder, l, v);
  else if (name == "sigmoid") {
    Value one = constantLike(v, 1.0, 1, at);
    Value e =
        math::ExpOp::create(builder, l, arith::NegFOp::create(builder, l, v));
    r = approximateDivide(l, one, arith::AddFOp::create(builder, l, one, e));
  } else {
    return error(at, "unknown builtin '" + name + "'");
  }
  if (narrow)
    r = *convert(r, elem, at);
  return DValue::of(r);
}
