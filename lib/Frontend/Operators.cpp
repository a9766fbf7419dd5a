//===- Operators.cpp - arithmetic, comparison and boolean operators -------===//
//
// Binary operators fold compile-time operands with Python semantics and
// otherwise promote both operands to a common element type, broadcast them
// to a common shape and emit one arith/math op. Pointer + int becomes
// tile.addptr.
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

static bool isPointerLike(const DValue &v) {
  return v.isRuntime() &&
         isa<PointerType>(mlir::getElementTypeOrSelf(v.value.getType()));
}

static bool isIntLike(Emitter &e, const DValue &v) {
  if (v.isConst())
    return v.constant.kind == Constant::Kind::Int ||
           v.constant.kind == Constant::Kind::Bool;
  return v.isRuntime() && e.elementTypeOf(v).isInteger();
}

/// Raises a runtime value to a non-negative constant power by squaring.
static Value powByMultiply(OpBuilder &b, Location l, Value x, int64_t n,
                           Value one) {
  bool isFloat = isa<FloatType>(mlir::getElementTypeOrSelf(x.getType()));
  auto mul = [&](Value a, Value c) -> Value {
    if (isFloat)
      return arith::MulFOp::create(b, l, a, c);
    return arith::MulIOp::create(b, l, a, c);
  };
  Value result = one;
  bool first = true;
  while (n > 0) {
    if (n & 1) {
      result = first ? x : mul(result, x);
      first = false;
    }
    n >>= 1;
    if (n)
      x = mul(x, x);
  }
  return result;
}

std::optional<DValue> Emitter::emitBinary(BinOp op, const DValue &lhs,
                                          const DValue &rhs, SourceLoc at) {
  std::optional<Constant> cl = asConstant(lhs), cr = asConstant(rhs);
  if (cl && cr) {
    std::string message;
    std::optional<Constant> result = evalBinary(op, *cl, *cr, message);
    if (!result)
      return error(at, message);
    return fromConstant(*result);
  }
  const char *spelling = binOpSpelling(op);
  if (isSharedBuffer(lhs) || isSharedBuffer(rhs))
    return error(at, std::string("'") + spelling +
                         "' cannot take a shared buffer; read it into a tile "
                         "with .load()");
  if (isTensorDesc(lhs) || isTensorDesc(rhs))
    return error(at, std::string("'") + spelling +
                         "' cannot take a tensor descriptor; copy its blocks "
                         "with kt.async_load");
  if (op == BinOp::Is || op == BinOp::IsNot)
    return error(at,
                 std::string("'") + spelling + "' needs compile-time operands");
  if (op == BinOp::MatMul) {
    std::vector<Arg> args{{lhs, at}, {rhs, at}};
    std::vector<std::pair<std::string, Arg>> kw;
    return callBuiltin("dot", nullptr, args, kw, at);
  }
  Location l = loc(at);

  // Pointer arithmetic.
  if (isPointerLike(lhs) || isPointerLike(rhs)) {
    bool ptrLeft = isPointerLike(lhs);
    const DValue &ptr = ptrLeft ? lhs : rhs;
    const DValue &off = ptrLeft ? rhs : lhs;
    if (!(op == BinOp::Add || (op == BinOp::Sub && ptrLeft)) ||
        isPointerLike(off) || !isIntLike(*this, off))
      return error(at, std::string("unsupported operand types for ") +
                           spelling + ": " + describe(lhs) + " and " +
                           describe(rhs));
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(shapeOf(ptr), shapeOf(off), at);
    if (!shape)
      return std::nullopt;
    Type offType = elementTypeOf(off);
    if (offType.isInteger(1))
      offType = builder.getI32Type();
    Attribute enc = commonEncoding({&ptr, &off}, *shape);
    std::optional<Value> offset = coerce(off, offType, *shape, at, enc);
    std::optional<Value> base = broadcastToLayout(ptr.value, *shape, enc, at);
    if (!offset || !base)
      return std::nullopt;
    if (op == BinOp::Sub) {
      Value zero = constantLike(*offset, 0, 0, at);
      offset = arith::SubIOp::create(builder, l, zero, *offset).getResult();
    }
    return DValue::of(
        kda::tile::AddPtrOp::create(builder, l, base->getType(), *base, *offset)
            .getResult());
  }

  // `x ** n` with a constant integer exponent: repeated multiplication.
  if (op == BinOp::Pow) {
    if (!(rhs.isConstKind(Constant::Kind::Int) ||
          rhs.isConstKind(Constant::Kind::Bool)))
      return error(at, "'**' on runtime values needs a constexpr integer "
                       "exponent, got " +
                           describe(rhs));
    std::optional<Value> base = toRuntime(lhs, at);
    if (!base)
      return std::nullopt;
    int64_t n = rhs.constant.intValue;
    Type elem = mlir::getElementTypeOrSelf(base->getType());
    if (n < 0 && !isa<FloatType>(elem)) {
      elem = builder.getF32Type();
      base = convert(*base, elem, at);
    }
    if (std::abs(n) > 1024)
      return error(at, "'**' exponent is too large (at most 1024)");
    Value one = constantLike(*base, 1.0, 1, at);
    Value result = powByMultiply(builder, l, *base, std::abs(n), one);
    if (n < 0)
      result = approximateDivide(l, one, result);
    return DValue::of(result);
  }

  std::optional<Type> promoted = promote(lhs, rhs, at, spelling);
  if (!promoted)
    return std::nullopt;
  Type type = *promoted;
  if (op == BinOp::Div && !isa<FloatType>(type))
    type = builder.getF32Type();
  bool isFloat = isa<FloatType>(type);
  bool isBitwise = op == BinOp::BitAnd || op == BinOp::BitOr ||
                   op == BinOp::BitXor || op == BinOp::Shl || op == BinOp::Shr;
  if (isBitwise && isFloat)
    return error(at, std::string("operator '") + spelling +
                         "' needs integer or boolean operands, got " +
                         typeString(type));
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapeOf(lhs), shapeOf(rhs), at);
  if (!shape)
    return std::nullopt;
  Attribute enc = commonEncoding({&lhs, &rhs}, *shape);
  std::optional<Value> a = coerce(lhs, type, *shape, at, enc);
  std::optional<Value> b = coerce(rhs, type, *shape, at, enc);
  if (!a || !b)
    return std::nullopt;
  Value x = *a, y = *b;
  auto cmpF = [&](arith::CmpFPredicate p) -> Value {
    return arith::CmpFOp::create(builder, l, p, x, y);
  };
  auto cmpI = [&](arith::CmpIPredicate p) -> Value {
    return arith::CmpIOp::create(builder, l, p, x, y);
  };
  Value result;
  switch (op) {
  case BinOp::Add:
    result = isFloat ? Value(arith::AddFOp::create(builder, l, x, y))
                     : Value(arith::AddIOp::create(builder, l, x, y));
    break;
  case BinOp::Sub:
    result = isFloat ? Value(arith::SubFOp::create(builder, l, x, y))
                     : Value(arith::SubIOp::create(builder, l, x, y));
    break;
  case BinOp::Mul:
    result = isFloat ? Value(arith::MulFOp::create(builder, l, x, y))
                     : Value(arith::MulIOp::create(builder, l, x, y));
    break;
  case BinOp::Div:
    result = approximateDivide(l, x, y);
    break;
  case BinOp::FloorDiv:
    result = isFloat ? Value(math::FloorOp::create(
                           builder, l, arith::DivFOp::create(builder, l, x, y)))
                     : Value(arith::FloorDivSIOp::create(builder, l, x, y));
    break;
  case BinOp::Mod:
    result = isFloat ? Value(arith::RemFOp::create(builder, l, x, y))
                     : Value(arith::RemSIOp::create(builder, l, x, y));
    break;
  case BinOp::BitAnd:
    result = arith::AndIOp::create(builder, l, x, y);
    break;
  case BinOp::BitOr:
    result = arith::OrIOp::create(builder, l, x, y);
    break;
  case BinOp::BitXor:
    result = arith::XOrIOp::create(builder, l, x, y);
    break;
  case BinOp::Shl:
    result = arith::ShLIOp::create(builder, l, x, y);
    break;
  case BinOp::Shr:
    result = arith::ShRSIOp::create(builder, l, x, y);
    break;
  case BinOp::Lt:
    result = isFloat ? cmpF(arith::CmpFPredicate::OLT)
                     : cmpI(arith::CmpIPredicate::slt);
    break;
  case BinOp::Le:
    result = isFloat ? cmpF(arith::CmpFPredicate::OLE)
                     : cmpI(arith::CmpIPredicate::sle);
    break;
  case BinOp::Gt:
    result = isFloat ? cmpF(arith::CmpFPredicate::OGT)
                     : cmpI(arith::CmpIPredicate::sgt);
    break;
  case BinOp::Ge:
    result = isFloat ? cmpF(arith::CmpFPredicate::OGE)
                     : cmpI(arith::CmpIPredicate::sge);
    break;
  case BinOp::Eq:
    result = isFloat ? cmpF(arith::CmpFPredicate::OEQ)
                     : cmpI(arith::CmpIPredicate::eq);
    break;
  case BinOp::Ne:
    result = isFloat ? cmpF(arith::CmpFPredicate::UNE)
                     : cmpI(arith::CmpIPredicate::ne);
    break;
  default:
    return error(at, std::string("unsupported operator ") + spelling);
  }
  return DValue::of(result);
}

std::optional<DValue> Emitter::emitUnary(UnaryOp op, const DValue &operand,
                                         SourceLoc at) {
  if (std::optional<Constant> c = asConstant(operand)) {
    std::string message;
    std::optional<Constant> result = evalUnary(op, *c, message);
    if (!result)
      return error(at, message);
    return fromConstant(*result);
  }
  if (isSharedBuffer(operand))
    return error(at, "a unary operator cannot take a shared buffer; read it "
                     "into a tile with .load()");
  if (isTensorDesc(operand))
    return error(at, "a unary operator cannot take a tensor descriptor");
  if (!operand.isRuntime() || isPointerLike(operand))
    return error(at, std::string("bad operand for unary '") +
                         unaryOpSpelling(op) + "': " + describe(operand));
  Value x = operand.value;
  Type elem = elementTypeOf(operand);
  SmallVector<int64_t> shape = shapeOf(operand);
  Location l = loc(at);
  bool isFloat = isa<FloatType>(elem);
  switch (op) {
  case UnaryOp::Pos:
    return operand;
  case UnaryOp::Neg:
    if (isFloat)
      return DValue::of(arith::NegFOp::create(builder, l, x).getResult());
    return DValue::of(
        arith::SubIOp::create(builder, l, constantLike(x, 0, 0, at), x)
            .getResult());
  case UnaryOp::Invert:
    if (isFloat)
      return error(at, "operator '~' needs integer or boolean operands, got " +
                           typeString(elem));
    return DValue::of(
        arith::XOrIOp::create(builder, l, x, constantLike(x, 0, -1, at))
            .getResult());
  case UnaryOp::Not: {
    if (!shape.empty())
      return error(at, "'not' is not supported on tiles; use '~' for "
                       "elementwise negation");
    std::optional<Value> b = convert(x, builder.getI1Type(), at);
    if (!b)
      return std::nullopt;
    return DValue::of(
        arith::XOrIOp::create(builder, l, *b,
                              splatConstant(builder.getI1Type(), {}, 0, 1, at))
            .getResult());
  }
  }
  return std::nullopt;
}

std::optional<DValue> Emitter::emitBoolOp(const Expr &expr) {
  bool isAnd = expr.kind == ExprKind::And;
  const char *word = isAnd ? "and" : "or";
  std::optional<Value> acc;
  for (size_t i = 0; i < expr.operands.size(); ++i) {
    const Expr &operandExpr = *expr.operands[i];
    std::optional<DValue> v = emitExpr(operandExpr);
    if (!v)
      return std::nullopt;
    if (std::optional<Constant> c = asConstant(*v)) {
      bool truthy = isTruthy(*c);
      if (!acc) {
        // Python semantics: the first deciding operand is the result.
        if (isAnd != truthy || i + 1 == expr.operands.size())
          return v;
        continue;
      }
      if (isAnd == truthy)
        continue; // `x and True` / `x or False` is x
      return DValue::of(
          splatConstant(builder.getI1Type(), {}, 0, truthy, operandExpr.loc));
    }
    if (!v->isRuntime() || !shapeOf(*v).empty() || isPointerLike(*v))
      return error(operandExpr.loc, std::string("'") + word +
                                        "' needs scalar operands, got " +
                                        describe(*v) + "; use '" +
                                        (isAnd ? "&" : "|") + "' for tiles");
    std::optional<Value> b =
        convert(v->value, builder.getI1Type(), operandExpr.loc);
    if (!b)
      return std::nullopt;
    Location l = loc(expr.loc);
    acc = !acc    ? *b
          : isAnd ? Value(arith::AndIOp::create(builder, l, *acc, *b))
                  : Value(arith::OrIOp::create(builder, l, *acc, *b));
  }
  return DValue::of(*acc);
}

std::optional<DValue> Emitter::emitCompare(const Expr &expr) {
  std::optional<DValue> lhs = emitExpr(*expr.operands[0]);
  if (!lhs)
    return std::nullopt;
  std::optional<DValue> result;
  for (size_t i = 0; i < expr.compareOps.size(); ++i) {
    std::optional<DValue> rhs = emitExpr(*expr.operands[i + 1]);
    if (!rhs)
      return std::nullopt;
    std::optional<DValue> r =
        emitBinary(expr.compareOps[i], *lhs, *rhs, expr.loc);
    if (!r)
      return std::nullopt;
    if (!result) {
      result = r;
    } else if (std::optional<Constant> c = asConstant(*r)) {
      if (!isTruthy(*c))
        return r;
    } else if (std::optional<Constant> prev = asConstant(*result)) {
      result = r; // previous links were all true
    } else {
      // `lo <= x < hi` on tiles: both links, broadcast together, and-ed.
      result = emitBinary(BinOp::BitAnd, *result, *r, expr.loc);
      if (!result)
        return std::nullopt;
    }
    if (std::optional<Constant> c = asConstant(*result))
      if (!isTruthy(*c))
        return result; // short circuit like Python
    lhs = rhs;
  }
  return result;
}
