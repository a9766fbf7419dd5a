//===- ConstexprEval.h - compile-time Python values -------------*- C++ -*-===//
//
// Python semantics for the compile-time values of the DSL: ints (64-bit,
// overflow is an error), floats, bools, None, dtypes, strings and tuples.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_CONSTEXPREVAL_H
#define KDA_FRONTEND_CONSTEXPREVAL_H

#include "kda/Frontend/AST.h"
#include "kda/Frontend/Frontend.h"

#include <optional>
#include <string>
#include <vector>

namespace kda::frontend {

struct Constant {
  enum class Kind { None, Int, Float, Bool, DType, Str, Tuple };
  Kind kind = Kind::None;
  int64_t intValue = 0; ///< Int, and Bool as 0/1
  double floatValue = 0;
  DType dtype = DType::F32;
  /// DType: the type of a pointer to `dtype` (`p.dtype` of a pointer).
  bool pointerTo = false;
  std::string str;
  std::vector<Constant> elements;

  static Constant none() { return {}; }
  static Constant ofInt(int64_t v);
  static Constant ofFloat(double v);
  static Constant ofBool(bool v);
  static Constant ofDType(DType t);
  static Constant ofStr(std::string s);
  static Constant ofTuple(std::vector<Constant> elems);
  static Constant fromConstexprValue(const ConstexprValue &v);

  bool isNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// Python's repr-like text, for messages ("128", "1.5", "True", "f32").
  std::string str_() const;
};

bool operator==(const Constant &a, const Constant &b);

/// Python truthiness.
bool isTruthy(const Constant &value);

/// `lhs op rhs` with Python semantics (comparisons included). On error
/// returns std::nullopt and sets `error` ("division by zero", ...).
std::optional<Constant> evalBinary(BinOp op, const Constant &lhs,
                                   const Constant &rhs, std::string &error);
std::optional<Constant> evalUnary(UnaryOp op, const Constant &operand,
                                  std::string &error);

/// The name of a value's Python type ("int", "float", "tuple", ...).
const char *constantTypeName(const Constant &value);

} // namespace kda::frontend

#endif // KDA_FRONTEND_CONSTEXPREVAL_H
