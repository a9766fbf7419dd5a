//===- MemoryReduceBuiltins.cpp - loads, stores, reductions, dot ----------===//
//
// kt.load / kt.store (masks and `other` broadcast to the pointer shape and
// cast to the pointee), kt.sum / max / min (negative axes, axis=None
// reduces everything to a scalar, keep_dims) and kt.dot (fp32 result).
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

std::optional<DValue> Emitter::memoryReduceBuiltin(const std::string &name,
                                                   const std::string &fnName,
                                                   BoundArgs &args,
                                                   SourceLoc at) {
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  if (name == "load" || name == "store") {
    bool isLoad = name == "load";
    if (!argv(0).isRuntime() ||
        !isa<PointerType>(mlir::getElementTypeOrSelf(argv(0).value.getType())))
      return error(argloc(0), fnName +
                                  " needs a pointer or a tile of "
                                  "pointers, got " +
                                  describe(argv(0)));
    size_t maskIndex = isLoad ? 1 : 2;
    if (isLoad && has(2) && !has(1))
      return error(argloc(2), "kt.load(): 'other' requires a mask");
    SmallVector<int64_t> shape = shapeOf(argv(0));
    if (has(maskIndex)) {
      DValue &mask = argv(maskIndex);
      bool isBool = mask.isConstKind(Constant::Kind::Bool) ||
                    (mask.isRuntime() && elementTypeOf(mask).isInteger(1));
      if (!isBool)
        return error(argloc(maskIndex),
                     fnName +
                         " mask must be a boolean (i1) scalar or tile, "
                         "got " +
                         describe(mask));
      std::optional<SmallVector<int64_t>> s =
          broadcastShapes(shape, shapeOf(mask), argloc(maskIndex));
      if (!s)
        return std::nullopt;
      shape = *s;
    }
    Attribute enc =
        commonEncoding({&argv(0), has(maskIndex) ? &argv(maskIndex) : nullptr,
                        has(isLoad ? 2 : 1) ? &argv(isLoad ? 2 : 1) : nullptr},
                       shape);
    std::optional<Value> ptr =
        broadcastToLayout(argv(0).value, shape, enc, argloc(0));
    if (!ptr)
      return std::nullopt;
    Value mask;
    if (has(maskIndex)) {
      std::optional<Value> m = coerce(argv(maskIndex), builder.getI1Type(),
                                      shape, argloc(maskIndex), enc);
      if (!m)
        return std::nullopt;
      mask = *m;
    }
    auto ptrType =
        cast<PointerType>(mlir::getElementTypeOrSelf(ptr->getType()));
    Type pointee = ptrType.getPointeeType();
    if (isLoad) {
      Value other;
      if (has(2)) {
        if (argv(2).isRuntime() && shapeOf(argv(2)).size() > shape.size())
          return error(argloc(2), "kt.load() 'other' of shape " +
                                      formatShape(shapeOf(argv(2))) +
                                      " does not fit the pointer shape " +
                                      formatShape(shape));
        std::optional<Value> o =
            coerce(argv(2), pointee, shape, argloc(2), enc);
        if (!o)
          return std::nullopt;
        other = *o;
      }
      Type resultType = shape.empty()
                            ? pointee
                            : Type(RankedTensorType::get(shape, pointee, enc));
      return DValue::of(
          kda::tile::LoadOp::create(builder, l, resultType, *ptr, mask, other)
              .getResult());
    }
    std::optional<Value> value =
        coerce(argv(1), pointee, shape, argloc(1), enc);
    if (!value)
      return std::nullopt;
    kda::tile::StoreOp::create(builder, l, *ptr, *value, mask);
    return DValue::of(Constant::none());
  }
  // Reductions take a tile of numbers first.
  auto isNumberTile = [&](const DValue &v) {
    return v.isRuntime() && !shapeOf(v).empty() &&
           !isa<PointerType>(elementTypeOf(v));
  };
  if (name == "sum" || name == "max" || name == "min") {
    DValue &input = argv(0);
    if (!isNumberTile(input))
      return error(argloc(0),
                   fnName + " needs a tile of numbers, got " + describe(input));
    Value x = input.value;
    auto type = cast<RankedTensorType>(x.getType());
    bool keepDims = false;
    if (has(2)) {
      std::optional<Constant> k = asConstant(argv(2));
      if (!k)
        return error(argloc(2), "keep_dims must be a compile-time bool");
      keepDims = isTruthy(*k);
    }
    int64_t rank = type.getRank();
    int64_t axis = 0;
    if (!has(1)) {
      if (rank > 1) {
        auto flat = RankedTensorType::get({type.getNumElements()},
                                          type.getElementType());
        x = kda::tile::ReshapeOp::create(builder, l, flat, x);
      }
    } else {
      std::optional<int64_t> a = requireAxis(argv(1), argloc(1), rank);
      if (!a)
        return std::nullopt;
      axis = *a;
    }
    Type elem = type.getElementType();
    if (name == "sum" && has(3)) {
      // sum(x, dtype=...) accumulates in `dtype`.
      std::optional<DType> dt =
          requireDType(argv(3), argloc(3), "kt.sum() dtype");
      if (!dt)
        return std::nullopt;
      elem = dtypeToMLIR(ctx, *dt);
      std::optional<Value> converted = convert(x, elem, at);
      if (!converted)
        return std::nullopt;
      x = *converted;
    }
    if (name == "sum" && elem.isInteger() &&
        elem.getIntOrFloatBitWidth() < 32) {
      elem = builder.getI32Type();
      x = *convert(x, elem, at);
    }
    auto src = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> outShape(src.getShape());
    outShape.erase(outShape.begin() + axis);
    // A laid-out source reduces onto a slice of its layout.
    Attribute resultLayout;
    if (Attribute parent = src.getEncoding())
      resultLayout = kda::tile::SliceLayoutAttr::get(
          &ctx, static_cast<unsigned>(axis), parent);
    Type resultType =
        outShape.empty()
            ? elem
            : Type(RankedTensorType::get(outShape, elem, resultLayout));
    auto kind = name == "sum"   ? kda::tile::ReduceKind::Sum
                : name == "max" ? kda::tile::ReduceKind::Max
                                : kda::tile::ReduceKind::Min;
    Value result = kda::tile::ReduceOp::create(builder, l, resultType, kind, x,
                                               static_cast<uint32_t>(axis));
    if (keepDims) {
      SmallVector<int64_t> kept(type.getShape());
      if (!has(1))
        kept.assign(rank, 1);
      else
        kept[axis] = 1;
      if (outShape.empty()) {
        auto keptType = RankedTensorType::get(kept, elem);
        result = kda::tile::SplatOp::create(builder, l, keptType, result);
      } else {
        std::optional<Value> expanded = expandDims(result, axis, at);
        if (!expanded)
          return std::nullopt;
        result = *expanded;
      }
    }
    return DValue::of(result);
  }
  if (name == "dot") {
    for (size_t i = 0; i < 2; ++i) {
      DValue &v = argv(i);
      if (!v.isRuntime() || shapeOf(v).size() != 2 ||
          !isa<FloatType>(elementTypeOf(v)))
        return error(argloc(i), "kt.dot() needs 2-D floating-point tiles, "
                                "got " +
                                    describe(v));
    }
    // 16-bit products are exact in fp32 and fp32 ones take fused
    // multiply-adds, unless tf32 is allowed for fp32 operands; anything else
    // is an error, not silently ignored.
    bool tf32 = false;
    if (has(3)) {
      if (!argv(3).isConstKind(Constant::Kind::Str))
        return error(argloc(3),
                     "kt.dot() input_precision must be a string, got " +
                         describe(argv(3)));
      const std::string &precision = argv(3).constant.str;
      if (precision != "ieee" && precision != "tf32")
        return error(argloc(3), "kt.dot() input_precision must be 'ieee' or "
                                "'tf32', got '" +
                                    precision + "'");
      tf32 = precision == "tf32";
    }
    if (has(4)) {
      std::optional<Constant> allow = asConstant(argv(4));
      if (!allow)
        return error(argloc(4),
                     "kt.dot() allow_tf32 must be a compile-time bool");
      if (has(3) && isTruthy(*allow) != tf32)
        return error(argloc(4), "kt.dot() allow_tf32 contradicts "
                                "input_precision");
      tf32 = isTruthy(*allow);
    }
    if (has(5))
      return error(argloc(5),
                   "kt.dot() max_num_imprecise_acc is not supported: "
                   "accumulation is always in full fp32");
    if (has(6)) {
      std::optional<DType> dt =
          requireDType(argv(6), argloc(6), "kt.dot() out_dtype");
      if (!dt)
        return std::nullopt;
      if (*dt != DType::F32)
        return error(argloc(6), "kt.dot() out_dtype must be kt.float32: the "
                                "product accumulates in fp32");
    }
    SmallVector<int64_t> sa = shapeOf(argv(0)), sb = shapeOf(argv(1));
    if (sa[1] != sb[0])
      return error(at, "kt.dot() inner dimensions differ: " + formatShape(sa) +
                           " @ " + formatShape(sb));
    std::optional<Type> elem = promote(argv(0), argv(1), at, "kt.dot()");
    if (!elem)
      return std::nullopt;
    if (tf32 && !elem->isF32())
      return error(has(3) ? argloc(3) : argloc(4),
                   "kt.dot() tf32 applies to fp32 operands, got " +
                       typeString(*elem));
    std::optional<Value> a = convert(argv(0).value, *elem, argloc(0));
    std::optional<Value> b = convert(argv(1).value, *elem, argloc(1));
    if (!a || !b)
      return std::nullopt;
    SmallVector<int64_t> outShape{sa[0], sb[1]};
    Type f32 = builder.getF32Type();
    std::optional<Value> acc;
    if (has(2)) {
      if (argv(2).isRuntime() && shapeOf(argv(2)) != outShape &&
          !shapeOf(argv(2)).empty())
        return error(argloc(2), "kt.dot() acc must have shape " +
                                    formatShape(outShape) + ", got " +
                                    formatShape(shapeOf(argv(2))));
      acc = coerce(argv(2), f32, outShape, argloc(2));
    } else {
      acc = splatConstant(f32, outShape, 0, 0, at);
    }
    if (!acc)
      return std::nullopt;
    bool isAsync = false;
    if (has(7)) {
      std::optional<Constant> flag = asConstant(argv(7));
      if (!flag || flag->kind != Constant::Kind::Bool)
        return error(argloc(7),
                     "kt.dot() is_async must be a compile-time bool, got " +
                         describe(argv(7)));
      isAsync = isTruthy(*flag);
    }
    return DValue::of(
        kda::tile::DotOp::create(builder, l, acc->getType(), *a, *b, *acc,
                                 tf32 ? kda::tile::InputPrecision::TF32
                                      : kda::tile::InputPrecision::IEEE,
                                 isAsync)
            .getResult());
  }
  if (name == "dot_wait") {
    DValue &acc = argv(0);
    if (!acc.isRuntime() || shapeOf(acc).size() != 2 ||
        !elementTypeOf(acc).isF32())
      return error(argloc(0), "kt.dot_wait() acc must be a 2-D fp32 tile (a "
                              "kt.dot result), got " +
                                  describe(acc));
    std::optional<Constant> pending = asConstant(argv(1));
    if (!pending || pending->kind != Constant::Kind::Int ||
        pending->intValue < 0 || pending->intValue > (int64_t(1) << 30))
      return error(argloc(1), "kt.dot_wait() pending must be a compile-time "
                              "integer of at least 0, got " +
                                  describe(argv(1)));
    return DValue::of(kda::tile::DotWaitOp::create(builder, l, acc.value,
                                                   int32_t(pending->intValue))
                          .getResult());
  }
  return error(at, "unknown builtin '" + name + "'");
}
