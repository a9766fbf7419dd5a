//===- TypePromotion.cpp - constants, casts, promotion, broadcasting ------===//
//
// Triton's typing rules: floats beat ints, wider beats narrower, f16 with
// bf16 meets at f32, and a Python literal adopts the other operand's type
// when it is of the same kind (a float literal with a bf16 tile stays bf16).
// Shapes follow numpy broadcasting.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

std::string Emitter::attrString(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  attr.print(os);
  return s;
}

bool Emitter::sameTypeIgnoringLayout(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return a == b;
  return ta.getShape() == tb.getShape() &&
         ta.getElementType() == tb.getElementType();
}

std::string Emitter::typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string Emitter::describe(const DValue &value) {
  switch (value.kind) {
  case DValue::Kind::Const:
    return std::string(constantTypeName(value.constant)) + " constant " +
           value.constant.str_();
  case DValue::Kind::Runtime: {
    Type t = value.value.getType();
    if (isa<kda::tile::SharedBufferType>(t))
      return "shared buffer of type " + typeString(t);
    return (isa<RankedTensorType>(t) ? "tile of type " : "scalar of type ") +
           typeString(t);
  }
  case DValue::Kind::Tuple:
    return "tuple";
  case DValue::Kind::Module:
    return "module '" + value.name + "'";
  case DValue::Kind::Function:
    return "function '" + value.name + "'";
  case DValue::Kind::Builtin:
    return "builtin '" + value.name + "'";
  case DValue::Kind::Method:
    return "method '" + value.name + "'";
  case DValue::Kind::Poison:
    return "variable whose assignment failed";
  case DValue::Kind::Layout:
    return "layout " + attrString(value.attr);
  case DValue::Kind::NonDSL:
    if (!value.origin.empty())
      return "'" + value.name + "' from module '" + value.origin +
             "', which is not a DSL module";
    if (value.isGlobal)
      return "global '" + value.name +
             "', which is not a compile-time constant expression";
    return "'" + value.name + "', which is not a @kt.jit function";
  }
  return "value";
}

Type Emitter::defaultType(const Constant &c) {
  switch (c.kind) {
  case Constant::Kind::Int:
    return builder.getIntegerType(
        c.intValue >= INT32_MIN && c.intValue <= INT32_MAX ? 32 : 64);
  case Constant::Kind::Float:
    return builder.getF32Type();
  case Constant::Kind::Bool:
    return builder.getI1Type();
  default:
    return {};
  }
}

static double constantAsDouble(const Constant &c) {
  return c.kind == Constant::Kind::Float ? c.floatValue
                                         : static_cast<double>(c.intValue);
}
/// A float constant converted as LLVM's fptosi.sat does: truncated toward
/// zero, saturated at the int64 range, NaN as 0 (a plain cast of a value
/// beyond int64 is undefined).
static int64_t constantAsInt(const Constant &c) {
  if (c.kind != Constant::Kind::Float)
    return c.intValue;
  double v = c.floatValue;
  if (std::isnan(v))
    return 0;
  if (v >= 0x1p63)
    return INT64_MAX;
  if (v < -0x1p63)
    return INT64_MIN;
  return static_cast<int64_t>(v);
}

Value Emitter::splatConstant(Type elemType, ArrayRef<int64_t> shape,
                             double fvalue, int64_t ivalue, SourceLoc at,
                             Attribute encoding) {
  TypedAttr attr;
  if (isa<FloatType>(elemType)) {
    attr = FloatAttr::get(elemType, fvalue);
  } else {
    unsigned width = elemType.getIntOrFloatBitWidth();
    if (width == 1)
      ivalue = ivalue != 0;
    attr = IntegerAttr::get(elemType,
                            APInt(width, static_cast<uint64_t>(ivalue),
                                  /*isSigned=*/false, /*implicitTrunc=*/true));
  }
  if (!shape.empty()) {
    auto type = RankedTensorType::get(shape, elemType, encoding);
    attr = DenseElementsAttr::get(type, attr);
  }
  return arith::ConstantOp::create(builder, loc(at), attr);
}

Value Emitter::approximateDivide(Location l, Value x, Value y) {
  return arith::DivFOp::create(builder, l, x, y, arith::FastMathFlags::afn);
}

Value Emitter::constantLike(Value like, double fvalue, int64_t ivalue,
                            SourceLoc at) {
  auto tensor = dyn_cast<RankedTensorType>(like.getType());
  if (!tensor)
    return splatConstant(like.getType(), {}, fvalue, ivalue, at);
  return splatConstant(tensor.getElementType(), tensor.getShape(), fvalue,
                       ivalue, at, tensor.getEncoding());
}

std::optional<Value> Emitter::constant(const Constant &c, Type type,
                                       SourceLoc at) {
  if (!c.isNumber())
    return error(at, "expected a number, got " + describe(DValue::of(c)));
  if (!type || !type.isIntOrFloat())
    return error(at, "cannot convert " + describe(DValue::of(c)) + " to " +
                         (type ? typeString(type) : std::string("?")));
  return splatConstant(type, {}, constantAsDouble(c), constantAsInt(c), at);
}

std::optional<Value> Emitter::toRuntime(const DValue &value, SourceLoc at) {
  if (value.isRuntime())
    return value.value;
  if (value.isConst() && value.constant.isNumber())
    return constant(value.constant, defaultType(value.constant), at);
  return error(at, "expected a scalar or a tile, got " + describe(value));
}

std::optional<Value> Emitter::convert(Value value, Type dst, SourceLoc at) {
  Type srcType = value.getType();
  Type src = mlir::getElementTypeOrSelf(srcType);
  if (src == dst)
    return value;
  if (isa<kda::tile::SharedBufferType>(srcType))
    return error(at, "a shared buffer cannot be used as a value; read it into "
                     "a tile with .load()");
  if (isa<PointerType>(src) || isa<PointerType>(dst))
    return error(at, "cannot convert " + typeString(srcType) + " to " +
                         typeString(dst));
  auto tensor = dyn_cast<RankedTensorType>(srcType);
  Type resultType = tensor ? Type(tensor.clone(dst)) : dst;
  Location l = loc(at);
  bool srcFloat = isa<FloatType>(src), dstFloat = isa<FloatType>(dst);
  if (srcFloat && dstFloat) {
    unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
    if (sw == dw) { // f16 <-> bf16 goes through f32
      std::optional<Value> wide = convert(value, builder.getF32Type(), at);
      return convert(*wide, dst, at);
    }
    if (sw < dw)
      return arith::ExtFOp::create(builder, l, resultType, value).getResult();
    return arith::TruncFOp::create(builder, l, resultType, value).getResult();
  }
  if (!srcFloat && !dstFloat) {
    unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
    if (dw == 1) {
      Value zero = constantLike(value, 0, 0, at);
      return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, value,
                                   zero)
          .getResult();
    }
    if (sw == 1)
      return arith::ExtUIOp::create(builder, l, resultType, value).getResult();
    if (sw < dw)
      return arith::ExtSIOp::create(builder, l, resultType, value).getResult();
    return arith::TruncIOp::create(builder, l, resultType, value).getResult();
  }
  if (!srcFloat) {
    if (src.getIntOrFloatBitWidth() == 1)
      return arith::UIToFPOp::create(builder, l, resultType, value).getResult();
    return arith::SIToFPOp::create(builder, l, resultType, value).getResult();
  }
  if (dst.getIntOrFloatBitWidth() == 1) {
    Value zero = constantLike(value, 0, 0, at);
    return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNE, value,
                                 zero)
        .getResult();
  }
  return arith::FPToSIOp::create(builder, l, resultType, value).getResult();
}

std::optional<SmallVector<int64_t>>
Emitter::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                         SourceLoc at) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return error(at, "incompatible shapes for broadcasting: " +
                           formatShape(a) + " and " + formatShape(b));
    result[i] = da == 1 ? db : da;
  }
  return result;
}

std::optional<Value> Emitter::broadcastTo(Value value, ArrayRef<int64_t> shape,
                                          SourceLoc at) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor) {
    if (shape.empty())
      return value;
    auto type = RankedTensorType::get(shape, value.getType());
    return kda::tile::SplatOp::create(builder, loc(at), type, value)
        .getResult();
  }
  if (tensor.getShape() == shape)
    return value;
  auto fail = [&]() {
    return error(at, "cannot broadcast shape " +
                         formatShape(tensor.getShape()) + " to " +
                         formatShape(shape));
  };
  if (tensor.getRank() > static_cast<int64_t>(shape.size()))
    return fail();
  size_t pad = shape.size() - tensor.getRank();
  for (size_t i = 0; i < static_cast<size_t>(tensor.getRank()); ++i)
    if (tensor.getDimSize(i) != shape[pad + i] && tensor.getDimSize(i) != 1)
      return fail();
  Location l = loc(at);
  while (static_cast<size_t>(tensor.getRank()) < shape.size()) {
    std::optional<Value> expanded = expandDims(value, 0, at);
    if (!expanded)
      return std::nullopt;
    value = *expanded;
    tensor = cast<RankedTensorType>(value.getType());
  }
  if (tensor.getShape() != shape)
    value =
        kda::tile::BroadcastOp::create(builder, l, tensor.clone(shape), value);
  return value;
}

std::optional<Value> Emitter::coerce(const DValue &value, Type elemType,
                                     ArrayRef<int64_t> shape, SourceLoc at,
                                     Attribute encoding) {
  if (shape.empty())
    encoding = {};
  if (value.isConst()) {
    if (!value.constant.isNumber() || isa<PointerType>(elemType))
      return error(at, "cannot convert " + describe(value) + " to " +
                           typeString(elemType));
    return splatConstant(elemType, shape, constantAsDouble(value.constant),
                         constantAsInt(value.constant), at, encoding);
  }
  std::optional<Value> v = toRuntime(value, at);
  if (!v)
    return std::nullopt;
  std::optional<Value> converted = convert(*v, elemType, at);
  if (!converted)
    return std::nullopt;
  return broadcastToLayout(*converted, shape, encoding, at);
}

SmallVector<int64_t> Emitter::shapeOf(const DValue &value) {
  if (value.isRuntime())
    if (auto t = dyn_cast<RankedTensorType>(value.value.getType()))
      return SmallVector<int64_t>(t.getShape());
  return {};
}

Type Emitter::elementTypeOf(const DValue &value) {
  if (value.isRuntime())
    return mlir::getElementTypeOrSelf(value.value.getType());
  if (value.isConst())
    return defaultType(value.constant);
  return {};
}

/// The type a Python literal takes next to a runtime operand of type `t`.
static Type literalType(Emitter &e, const Constant &c, Type t) {
  bool tFloat = isa<FloatType>(t);
  switch (c.kind) {
  case Constant::Kind::Float:
    return tFloat ? t : Type(e.builder.getF32Type());
  case Constant::Kind::Int: {
    if (tFloat)
      return t;
    unsigned width = t.getIntOrFloatBitWidth();
    if (width == 1)
      return e.defaultType(c);
    // A literal that does not fit the other operand widens the operation
    // to i64 rather than wrapping.
    bool fits = width >= 64 || (c.intValue >= -(int64_t(1) << (width - 1)) &&
                                c.intValue < (int64_t(1) << (width - 1)));
    return fits ? t : Type(e.builder.getI64Type());
  }
  case Constant::Kind::Bool:
    return t;
  default:
    return {};
  }
}

std::optional<Type> Emitter::promote(const DValue &a, const DValue &b,
                                     SourceLoc at, const char *what) {
  for (const DValue *v : {&a, &b})
    if (!(v->isRuntime() || (v->isConst() && v->constant.isNumber())))
      return error(at, std::string("unsupported operand for ") + what + ": " +
                           describe(*v));
  Type ta = elementTypeOf(a), tb = elementTypeOf(b);
  if (isa<PointerType>(ta) || isa<PointerType>(tb))
    return error(at, std::string("unsupported operand types for ") + what +
                         ": " + typeString(ta) + " and " + typeString(tb));
  if (a.isConst() && b.isConst()) {
    // Python's numeric tower: float beats int beats bool.
    auto rank = [](const Constant &c) {
      return c.kind == Constant::Kind::Float ? 2
             : c.kind == Constant::Kind::Int ? 1
                                             : 0;
    };
    if (rank(a.constant) != rank(b.constant))
      return rank(a.constant) > rank(b.constant) ? ta : tb;
    return ta.getIntOrFloatBitWidth() >= tb.getIntOrFloatBitWidth() ? ta : tb;
  }
  if (a.isConst())
    return literalType(*this, a.constant, tb);
  if (b.isConst())
    return literalType(*this, b.constant, ta);
  return promoteTypes(ta, tb);
}

std::optional<int64_t> Emitter::requireInt(const DValue &value, SourceLoc at,
                                           const llvm::Twine &what) {
  if (value.isConstKind(Constant::Kind::Int) ||
      value.isConstKind(Constant::Kind::Bool))
    return value.constant.intValue;
  if (value.isRuntime())
    return error(at, what +
                         " must be a compile-time constant (constexpr), "
                         "got a runtime " +
                         typeString(value.value.getType()));
  return error(at, what + " must be a constexpr int, got " + describe(value));
}

std::optional<int64_t> Emitter::requireAxis(const DValue &value, SourceLoc at,
                                            int64_t rank) {
  std::optional<int64_t> a = requireInt(value, at, "axis");
  if (!a)
    return std::nullopt;
  int64_t axis = *a < 0 ? *a + rank : *a;
  if (axis < 0 || axis >= rank)
    return error(at, "axis " + std::to_string(*a) +
                         " is out of range for a tile of rank " +
                         std::to_string(rank));
  return axis;
}

std::optional<SmallVector<int64_t>>
Emitter::requireShape(const DValue &value, SourceLoc at,
                      const llvm::Twine &what) {
  SmallVector<int64_t> shape;
  if (value.kind != DValue::Kind::Tuple) {
    std::optional<int64_t> n = requireInt(value, at, what);
    if (!n)
      return std::nullopt;
    shape.push_back(*n);
  } else {
    for (const DValue &e : value.elements) {
      std::optional<int64_t> n = requireInt(e, at, what);
      if (!n)
        return std::nullopt;
      shape.push_back(*n);
    }
  }
  for (int64_t d : shape)
    if (d <= 0)
      return error(at, what + " must have positive sizes, got " +
                           formatShape(shape));
  return shape;
}

std::optional<DType> Emitter::requireDType(const DValue &value, SourceLoc at,
                                           const llvm::Twine &what) {
  if (value.isConstKind(Constant::Kind::DType) && !value.constant.pointerTo)
    return value.constant.dtype;
  return error(at, what + " must be a dtype such as kt.float32, got " +
                       describe(value));
}

std::optional<Constant> Emitter::asConstant(const DValue &value) {
  if (value.isConst())
    return value.constant;
  if (value.kind != DValue::Kind::Tuple)
    return std::nullopt;
  std::vector<Constant> elems;
  for (const DValue &e : value.elements) {
    std::optional<Constant> c = asConstant(e);
    if (!c)
      return std::nullopt;
    elems.push_back(*c);
  }
  return Constant::ofTuple(std::move(elems));
}

DValue Emitter::fromConstant(const Constant &c) {
  if (c.kind != Constant::Kind::Tuple)
    return DValue::of(c);
  std::vector<DValue> elems;
  for (const Constant &e : c.elements)
    elems.push_back(fromConstant(e));
  return DValue::tuple(std::move(elems));
}

Type Emitter::promoteTypes(Type ta, Type tb) {
  bool fa = isa<FloatType>(ta), fb = isa<FloatType>(tb);
  if (fa && fb) {
    if (ta == tb)
      return ta;
    unsigned wa = ta.getIntOrFloatBitWidth(), wb = tb.getIntOrFloatBitWidth();
    if (wa == wb) // f16 with bf16
      return builder.getF32Type();
    return wa > wb ? ta : tb;
  }
  if (fa)
    return ta;
  if (fb)
    return tb;
  return ta.getIntOrFloatBitWidth() >= tb.getIntOrFloatBitWidth() ? ta : tb;
}
