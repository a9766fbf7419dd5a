//===- ConstexprEval.cpp - compile-time Python values ---------------------===//
//
// Integer arithmetic is checked: a kernel whose compile-time arithmetic
// overflows 64 bits almost certainly has a bug, so it is an error rather
// than a silent wrap (Python itself would use big integers).
//
//===----------------------------------------------------------------------===//
#include "kda/Frontend/ConstexprEval.h"

#include <cmath>
#include <sstream>

using namespace kda::frontend;
using Kind = Constant::Kind;

Constant Constant::ofInt(int64_t v) {
  Constant c;
  c.kind = Kind::Int;
  c.intValue = v;
  return c;
}
Constant Constant::ofFloat(double v) {
  Constant c;
  c.kind = Kind::Float;
  c.floatValue = v;
  return c;
}
Constant Constant::ofBool(bool v) {
  Constant c;
  c.kind = Kind::Bool;
  c.intValue = v;
  return c;
}
Constant Constant::ofDType(DType t) {
  Constant c;
  c.kind = Kind::DType;
  c.dtype = t;
  return c;
}
Constant Constant::ofStr(std::string s) {
  Constant c;
  c.kind = Kind::Str;
  c.str = std::move(s);
  return c;
}
Constant Constant::ofTuple(std::vector<Constant> elems) {
  Constant c;
  c.kind = Kind::Tuple;
  c.elements = std::move(elems);
  return c;
}
Constant Constant::fromConstexprValue(const ConstexprValue &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return ofInt(*i);
  if (auto *d = std::get_if<double>(&v))
    return ofFloat(*d);
  if (auto *b = std::get_if<bool>(&v))
    return ofBool(*b);
  return ofDType(std::get<DType>(v));
}

std::string Constant::str_() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int:
    return std::to_string(intValue);
  case Kind::Bool:
    return intValue ? "True" : "False";
  case Kind::Float: {
    std::ostringstream os;
    os.precision(17);
    os << floatValue;
    std::string s = os.str();
    if (s.find_first_of(".eni") == std::string::npos)
      s += ".0";
    return s;
  }
  case Kind::DType:
    return pointerTo ? "pointer<" + dtypeName(dtype).str() + ">"
                     : dtypeName(dtype).str();
  case Kind::Str:
    return "'" + str + "'";
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < elements.size(); ++i)
      s += (i ? ", " : "") + elements[i].str_();
    return s + (elements.size() == 1 ? ",)" : ")");
  }
  }
  return "?";
}

const char *kda::frontend::constantTypeName(const Constant &value) {
  switch (value.kind) {
  case Kind::None:
    return "NoneType";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::Bool:
    return "bool";
  case Kind::DType:
    return "dtype";
  case Kind::Str:
    return "str";
  case Kind::Tuple:
    return "tuple";
  }
  return "?";
}

bool kda::frontend::operator==(const Constant &a, const Constant &b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.kind == Kind::Float || b.kind == Kind::Float) {
      double x = a.kind == Kind::Float ? a.floatValue : double(a.intValue);
      double y = b.kind == Kind::Float ? b.floatValue : double(b.intValue);
      return x == y;
    }
    return a.intValue == b.intValue;
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Kind::None:
    return true;
  case Kind::DType:
    return a.dtype == b.dtype && a.pointerTo == b.pointerTo;
  case Kind::Str:
    return a.str == b.str;
  case Kind::Tuple:
    return a.elements == b.elements;
  default:
    return false;
  }
}

bool kda::frontend::isTruthy(const Constant &value) {
  switch (value.kind) {
  case Kind::None:
    return false;
  case Kind::Int:
  case Kind::Bool:
    return value.intValue != 0;
  case Kind::Float:
    return value.floatValue != 0;
  case Kind::DType:
    return true;
  case Kind::Str:
    return !value.str.empty();
  case Kind::Tuple:
    return !value.elements.empty();
  }
  return false;
}

static double asDouble(const Constant &c) {
  return c.kind == Kind::Float ? c.floatValue : double(c.intValue);
}

static std::optional<Constant> compare(BinOp op, const Constant &a,
                                       const Constant &b, std::string &error) {
  if (op == BinOp::Eq || op == BinOp::Ne) {
    bool eq = a == b;
    return Constant::ofBool(op == BinOp::Eq ? eq : !eq);
  }
  if (op == BinOp::Is || op == BinOp::IsNot) {
    // Identity is only meaningful for singletons; treat as equality of
    // same-kind values, which matches `x is None` and `dtype is kt.f32`.
    bool same = a.kind == b.kind && a == b;
    return Constant::ofBool(op == BinOp::Is ? same : !same);
  }
  int cmp = 0;
  if (a.isNumber() && b.isNumber()) {
    if (a.kind == Kind::Float || b.kind == Kind::Float) {
      double x = asDouble(a), y = asDouble(b);
      if (std::isnan(x) || std::isnan(y))
        return Constant::ofBool(false);
      cmp = x < y ? -1 : x > y ? 1 : 0;
    } else {
      cmp = a.intValue < b.intValue ? -1 : a.intValue > b.intValue ? 1 : 0;
    }
  } else if (a.kind == Kind::Str && b.kind == Kind::Str) {
    cmp = a.str.compare(b.str);
  } else if (a.kind == Kind::Tuple && b.kind == Kind::Tuple) {
    size_t n = std::min(a.elements.size(), b.elements.size());
    size_t i = 0;
    while (i < n && a.elements[i] == b.elements[i])
      ++i;
    if (i < n)
      return compare(op, a.elements[i], b.elements[i], error);
    cmp = a.elements.size() < b.elements.size()   ? -1
          : a.elements.size() > b.elements.size() ? 1
                                                  : 0;
  } else {
    error = std::string("'") + binOpSpelling(op) + "' not supported between '" +
            constantTypeName(a) + "' and '" + constantTypeName(b) + "'";
    return std::nullopt;
  }
  switch (op) {
  case BinOp::Lt:
    return Constant::ofBool(cmp < 0);
  case BinOp::Le:
    return Constant::ofBool(cmp <= 0);
  case BinOp::Gt:
    return Constant::ofBool(cmp > 0);
  default:
    return Constant::ofBool(cmp >= 0);
  }
}

static std::optional<Constant> overflow(std::string &error) {
  error = "integer overflow in compile-time expression";
  return std::nullopt;
}

static std::optional<Constant> intArith(BinOp op, int64_t x, int64_t y,
                                        std::string &error) {
  int64_t r = 0;
  switch (op) {
  case BinOp::Add:
    if (__builtin_add_overflow(x, y, &r))
      return overflow(error);
    return Constant::ofInt(r);
  case BinOp::Sub:
    if (__builtin_sub_overflow(x, y, &r))
      return overflow(error);
    return Constant::ofInt(r);
  case BinOp::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      return overflow(error);
    return Constant::ofInt(r);
  case BinOp::FloorDiv:
  case BinOp::Mod: {
    if (y == 0) {
      error = op == BinOp::Mod ? "integer modulo by zero"
                               : "integer division by zero";
      return std::nullopt;
    }
    if (x == INT64_MIN && y == -1)
      return op == BinOp::Mod ? Constant::ofInt(0) : overflow(error);
    int64_t q = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) {
      --q;
      m += y;
    }
    return Constant::ofInt(op == BinOp::Mod ? m : q);
  }
  case BinOp::Pow: {
    if (y < 0)
      return Constant::ofFloat(std::pow(double(x), double(y)));
    int64_t result = 1;
    for (int64_t i = 0; i < y; ++i) {
      if (__builtin_mul_overflow(result, x, &result))
        return overflow(error);
      if (result == 0 || result == 1)
        break;
    }
    if (result == 1 && x == -1 && (y % 2))
      result = -1;
    return Constant::ofInt(result);
  }
  case BinOp::BitAnd:
    return Constant::ofInt(x & y);
  case BinOp::BitOr:
    return Constant::ofInt(x | y);
  case BinOp::BitXor:
    return Constant::ofInt(x ^ y);
  case BinOp::Shl:
  case BinOp::Shr:
    if (y < 0) {
      error = "negative shift count";
      return std::nullopt;
    }
    if (op == BinOp::Shr)
      return Constant::ofInt(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    if (y >= 64 || (x != 0 && ((x << y) >> y) != x))
      return x == 0 ? std::optional(Constant::ofInt(0)) : overflow(error);
    return Constant::ofInt(x << y);
  default:
    break;
  }
  error = "unsupported integer operator";
  return std::nullopt;
}

static std::optional<Constant> floatArith(BinOp op, double x, double y,
                                          std::string &error) {
  switch (op) {
  case BinOp::Add:
    return Constant::ofFloat(x + y);
  case BinOp::Sub:
    return Constant::ofFloat(x - y);
  case BinOp::Mul:
    return Constant::ofFloat(x * y);
  case BinOp::Div:
    if (y == 0) {
      error = "float division by zero";
      return std::nullopt;
    }
    return Constant::ofFloat(x / y);
  case BinOp::FloorDiv:
  case BinOp::Mod: {
    if (y == 0) {
      error = op == BinOp::Mod ? "float modulo by zero"
                               : "float floor division by zero";
      return std::nullopt;
    }
    double m = std::fmod(x, y);
    if (m != 0 && ((m < 0) != (y < 0)))
      m += y;
    if (op == BinOp::Mod)
      return Constant::ofFloat(m);
    return Constant::ofFloat(std::floor(x / y));
  }
  case BinOp::Pow:
    return Constant::ofFloat(std::pow(x, y));
  default:
    break;
  }
  error = std::string("unsupported operand types for ") + binOpSpelling(op) +
          ": 'float'";
  return std::nullopt;
}

std::optional<Constant> kda::frontend::evalBinary(BinOp op, const Constant &a,
                                                  const Constant &b,
                                                  std::string &error) {
  switch (op) {
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::Is:
  case BinOp::IsNot:
    return compare(op, a, b, error);
  default:
    break;
  }
  if (a.isNumber() && b.isNumber()) {
    bool bothBool = a.kind == Kind::Bool && b.kind == Kind::Bool;
    if (bothBool &&
        (op == BinOp::BitAnd || op == BinOp::BitOr || op == BinOp::BitXor)) {
      std::optional<Constant> r = intArith(op, a.intValue, b.intValue, error);
      return Constant::ofBool(r->intValue != 0);
    }
    if (op == BinOp::Div) {
      if (asDouble(b) == 0) {
        error = "division by zero";
        return std::nullopt;
      }
      return Constant::ofFloat(asDouble(a) / asDouble(b));
    }
    if (a.kind == Kind::Float || b.kind == Kind::Float)
      return floatArith(op, asDouble(a), asDouble(b), error);
    return intArith(op, a.intValue, b.intValue, error);
  }
  if (a.kind == Kind::Tuple && b.kind == Kind::Tuple && op == BinOp::Add) {
    std::vector<Constant> elems = a.elements;
    elems.insert(elems.end(), b.elements.begin(), b.elements.end());
    return Constant::ofTuple(std::move(elems));
  }
  if (a.kind == Kind::Str && b.kind == Kind::Str && op == BinOp::Add)
    return Constant::ofStr(a.str + b.str);
  if (op == BinOp::Mul && (a.kind == Kind::Tuple || a.kind == Kind::Str) &&
      (b.kind == Kind::Int || b.kind == Kind::Bool)) {
    Constant result = a;
    result.elements.clear();
    result.str.clear();
    for (int64_t i = 0; i < b.intValue && i < 4096; ++i) {
      result.elements.insert(result.elements.end(), a.elements.begin(),
                             a.elements.end());
      result.str += a.str;
    }
    return result;
  }
  error = std::string("unsupported operand types for ") + binOpSpelling(op) +
          ": '" + constantTypeName(a) + "' and '" + constantTypeName(b) + "'";
  return std::nullopt;
}

std::optional<Constant> kda::frontend::evalUnary(UnaryOp op, const Constant &c,
                                                 std::string &error) {
  if (op == UnaryOp::Not)
    return Constant::ofBool(!isTruthy(c));
  if (!c.isNumber()) {
    error = std::string("bad operand type for unary ") + unaryOpSpelling(op) +
            ": '" + constantTypeName(c) + "'";
    return std::nullopt;
  }
  switch (op) {
  case UnaryOp::Pos:
    return c.kind == Kind::Float ? c : Constant::ofInt(c.intValue);
  case UnaryOp::Neg:
    if (c.kind == Kind::Float)
      return Constant::ofFloat(-c.floatValue);
    if (c.intValue == INT64_MIN)
      return overflow(error);
    return Constant::ofInt(-c.intValue);
  case UnaryOp::Invert:
    if (c.kind == Kind::Float) {
      error = "bad operand type for unary ~: 'float'";
      return std::nullopt;
    }
    return Constant::ofInt(~c.intValue);
  default:
    return std::nullopt;
  }
}
