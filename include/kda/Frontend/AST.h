//===- AST.h - syntax tree of DSL functions ---------------------*- C++ -*-===//
//
// One node type for expressions and one for statements, each with a kind tag
// and generic child slots; the meaning of the slots per kind is documented
// on the enumerators. A small uniform tree keeps the parser and the emitter
// short, and the DSL subset is small enough that typed node classes would
// add code without catching real bugs.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_AST_H
#define KDA_FRONTEND_AST_H

#include "kda/Frontend/Lexer.h"

#include <memory>
#include <string>
#include <vector>

namespace kda::frontend {

enum class BinOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  Is,
  IsNot,
};
enum class UnaryOp { Neg, Pos, Invert, Not };

/// The Python spelling of an operator ("+", "//", "is not", ...).
const char *binOpSpelling(BinOp op);
const char *unaryOpSpelling(UnaryOp op);

enum class ExprKind {
  Name,      ///< `name`
  Int,       ///< intValue
  Float,     ///< floatValue
  Bool,      ///< intValue is 0 or 1
  None,      ///< `None`
  Str,       ///< name holds the decoded text
  Ellipsis,  ///< `...`
  Tuple,     ///< operands are the elements (also `[a, b]` lists)
  Binary,    ///< binOp, operands = {lhs, rhs}
  Compare,   ///< a chain `a < b <= c`: operands = {a, b, c}, compareOps
  Unary,     ///< unaryOp, operands = {operand}
  And,       ///< operands, evaluated left to right with short circuit
  Or,        ///< operands, evaluated left to right with short circuit
  IfExp,     ///< `a if c else b`: operands = {c, a, b}
  Call,      ///< operands = {callee, positional..., keyword...};
             ///< keywords holds the names of the trailing keyword arguments
  Attribute, ///< operands = {object}, name is the attribute
  Subscript, ///< operands = {object, index...}
  Slice,     ///< a bare `:` inside a subscript
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string name;
  int64_t intValue = 0;
  double floatValue = 0;
  BinOp binOp = BinOp::Add;
  UnaryOp unaryOp = UnaryOp::Neg;
  std::vector<BinOp> compareOps;
  std::vector<ExprPtr> operands;
  std::vector<std::string> keywords;
  /// Where each keyword argument's name is (parallel to `keywords`).
  std::vector<SourceLoc> keywordLocs;
  /// For lists: `[a, b]` parses as a Tuple with this flag set.
  bool isList = false;

  Expr(ExprKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  /// Number of positional arguments of a Call.
  size_t numPositional() const { return operands.size() - 1 - keywords.size(); }
};

enum class StmtKind {
  Expr,      ///< value
  Assign,    ///< targets (`a = b = v` has two), value
  AugAssign, ///< targets[0], binOp, value
  AnnAssign, ///< targets[0], annotation, value (may be null)
  If,        ///< value is the condition, body, orelse (elif nests an If)
  For,       ///< targets[0] is the loop variable, value the iterable, body
  While,     ///< value is the condition, body
  Return,    ///< value (may be null)
  Pass,
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  BinOp binOp = BinOp::Add;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;

  Stmt(StmtKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
};

struct Param {
  std::string name;
  SourceLoc loc;
  ExprPtr annotation;   ///< may be null
  ExprPtr defaultValue; ///< may be null
};

/// A `@kt.jit` function.
struct FunctionDef {
  std::string name;
  SourceLoc loc;
  std::vector<Param> params;
  std::vector<StmtPtr> body;
};

} // namespace kda::frontend

#endif // KDA_FRONTEND_AST_H
