//===- ParserTest.cpp - Python subset parser ------------------------------===//
#include "kda/Frontend/Parser.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

/// Renders an expression fully parenthesized, to check precedence.
std::string show(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Name:
    return e.name;
  case ExprKind::Int:
    return std::to_string(e.intValue);
  case ExprKind::Float:
    return "float";
  case ExprKind::Bool:
    return e.intValue ? "True" : "False";
  case ExprKind::None:
    return "None";
  case ExprKind::Str:
    return "'" + e.name + "'";
  case ExprKind::Ellipsis:
    return "...";
  case ExprKind::Slice:
    return ":";
  case ExprKind::Tuple: {
    std::string s = e.isList ? "[" : "(";
    for (auto &o : e.operands)
      s += show(*o) + ",";
    return s + (e.isList ? "]" : ")");
  }
  case ExprKind::Binary:
    return "(" + show(*e.operands[0]) + " " + binOpSpelling(e.binOp) + " " +
           show(*e.operands[1]) + ")";
  case ExprKind::Compare: {
    std::string s = "(" + show(*e.operands[0]);
    for (size_t i = 0; i < e.compareOps.size(); ++i)
      s += std::string(" ") + binOpSpelling(e.compareOps[i]) + " " +
           show(*e.operands[i + 1]);
    return s + ")";
  }
  case ExprKind::Unary:
    return std::string("(") + unaryOpSpelling(e.unaryOp) + " " +
           show(*e.operands[0]) + ")";
  case ExprKind::And:
  case ExprKind::Or: {
    std::string s = "(";
    for (size_t i = 0; i < e.operands.size(); ++i)
      s += (i ? (e.kind == ExprKind::And ? " and " : " or ") : "") +
           show(*e.operands[i]);
    return s + ")";
  }
  case ExprKind::IfExp:
    return "(" + show(*e.operands[1]) + " if " + show(*e.operands[0]) +
           " else " + show(*e.operands[2]) + ")";
  case ExprKind::Call: {
    std::string s = show(*e.operands[0]) + "(";
    size_t np = e.numPositional();
    for (size_t i = 1; i < e.operands.size(); ++i) {
      if (i > np)
        s += e.keywords[i - 1 - np] + "=";
      s += show(*e.operands[i]) + ",";
    }
    return s + ")";
  }
  case ExprKind::Attribute:
    return show(*e.operands[0]) + "." + e.name;
  case ExprKind::Subscript: {
    std::string s = show(*e.operands[0]) + "[";
    for (size_t i = 1; i < e.operands.size(); ++i)
      s += show(*e.operands[i]) + ",";
    return s + "]";
  }
  }
  return "?";
}

std::string parseShow(llvm::StringRef src) {
  SourceLoc loc;
  std::string error;
  ExprPtr e = parseExpression(src, loc, error);
  if (!e)
    return "error " + std::to_string(loc.line) + ":" + std::to_string(loc.col) +
           ": " + error;
  return show(*e);
}

TEST(Parser, Precedence) {
  EXPECT_EQ(parseShow("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(parseShow("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(parseShow("-a ** 2"), "(- (a ** 2))");
  EXPECT_EQ(parseShow("a ** -b ** c"), "(a ** (- (b ** c)))");
  EXPECT_EQ(parseShow("a | b ^ c & d << 1 + 2"),
            "(a | (b ^ (c & (d << (1 + 2)))))");
  EXPECT_EQ(parseShow("not a == b and c or d"),
            "(((not (a == b)) and c) or d)");
  EXPECT_EQ(parseShow("a < b <= c"), "(a < b <= c)");
  EXPECT_EQ(parseShow("x is not None"), "(x is not None)");
  EXPECT_EQ(parseShow("a if c else b + 1"), "(a if c else (b + 1))");
  EXPECT_EQ(parseShow("a // b % c @ d"), "(((a // b) % c) @ d)");
  EXPECT_EQ(parseShow("~a & b"), "((~ a) & b)");
}

TEST(Parser, Primaries) {
  EXPECT_EQ(parseShow("kt.load(p + o, mask=m, other=0.0)"),
            "kt.load((p + o),mask=m,other=float,)");
  EXPECT_EQ(parseShow("x[:, None]"), "x[:,None,]");
  EXPECT_EQ(parseShow("x.to(kt.float32).T"), "x.to(kt.float32,).T");
  EXPECT_EQ(parseShow("(1, 2)"), "(1,2,)");
  EXPECT_EQ(parseShow("(1,)"), "(1,)");
  EXPECT_EQ(parseShow("()"), "()");
  EXPECT_EQ(parseShow("[B, 2 * B]"), "[B,(2 * B),]");
  EXPECT_EQ(parseShow("'a' 'b'"), "'ab'");
  EXPECT_EQ(parseShow("a, b"), "(a,b,)");
  EXPECT_EQ(parseShow("f(\n  a,\n  b,\n)"), "f(a,b,)");
}

TEST(Parser, NestingIsBounded) {
  std::string deep(1000, '(');
  EXPECT_NE(parseShow(deep + "1" + std::string(1000, ')'))
                .find("expression is nested too deeply"),
            std::string::npos);
  std::string chain = "a";
  for (int i = 0; i < 3000; ++i)
    chain += " + a";
  EXPECT_NE(parseShow(chain).find("expression is too long"), std::string::npos);
}

TEST(Parser, UnsupportedExpressions) {
  EXPECT_EQ(parseShow("lambda x: x"),
            "error 1:1: unsupported construct: lambda");
  EXPECT_EQ(parseShow("[i for i in r]"),
            "error 1:4: unsupported construct: list comprehension");
  EXPECT_EQ(parseShow("x[1:2]"),
            "error 1:3: unsupported construct: slicing (only ':' and None "
            "are allowed in subscripts)");
  EXPECT_EQ(parseShow("{1: 2}"), "error 1:1: unsupported construct: dict or "
                                 "set literal");
  EXPECT_EQ(parseShow("a in b"), "error 1:3: unsupported construct: 'in' "
                                 "operator");
  EXPECT_EQ(parseShow("f(*a)"), "error 1:3: unsupported construct: argument "
                                "unpacking");
  EXPECT_EQ(parseShow("a +"), "error 1:4: invalid syntax: unexpected end of "
                              "line");
  EXPECT_EQ(parseShow("f(a=1, b)"),
            "error 1:8: positional argument follows keyword argument");
}

std::vector<StmtPtr> parseOk(llvm::StringRef src) {
  std::vector<StmtPtr> stmts;
  SourceLoc loc;
  std::string error;
  EXPECT_TRUE(parseStatements(src, stmts, loc, error))
      << loc.line << ":" << loc.col << ": " << error;
  return stmts;
}

std::string parseError(llvm::StringRef src) {
  std::vector<StmtPtr> stmts;
  SourceLoc loc;
  std::string error;
  if (parseStatements(src, stmts, loc, error))
    return "ok";
  return std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": " +
         error;
}

TEST(Parser, Statements) {
  auto s = parseOk("a = b = 1\n"
                   "x += 2\n"
                   "y: kt.constexpr = 3\n"
                   "a, b = b, a\n"
                   "if a:\n  pass\nelif b:\n  pass\nelse:\n  pass\n"
                   "for i in range(10):\n  x = x + i\n"
                   "while x < 3: x += 1\n"
                   "f(x); g(y)\n"
                   "return x, y\n");
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0]->kind, StmtKind::Assign);
  EXPECT_EQ(s[0]->targets.size(), 2u);
  EXPECT_EQ(s[1]->kind, StmtKind::AugAssign);
  EXPECT_EQ(s[1]->binOp, BinOp::Add);
  EXPECT_EQ(s[2]->kind, StmtKind::AnnAssign);
  EXPECT_EQ(s[3]->targets[0]->kind, ExprKind::Tuple);
  EXPECT_EQ(s[4]->kind, StmtKind::If);
  ASSERT_EQ(s[4]->orelse.size(), 1u);
  EXPECT_EQ(s[4]->orelse[0]->kind, StmtKind::If); // elif nests
  EXPECT_EQ(s[4]->orelse[0]->orelse.size(), 1u);
  EXPECT_EQ(s[5]->kind, StmtKind::For);
  EXPECT_EQ(s[6]->kind, StmtKind::While);
  EXPECT_EQ(s[7]->kind, StmtKind::Expr);
  EXPECT_EQ(s[8]->kind, StmtKind::Expr);
  EXPECT_EQ(s[9]->kind, StmtKind::Return);
}

TEST(Parser, StatementErrors) {
  EXPECT_EQ(parseError("for i in r:\n  break\n"),
            "2:3: unsupported construct: break");
  EXPECT_EQ(parseError("with a:\n  pass\n"),
            "1:1: unsupported construct: with statement");
  EXPECT_EQ(parseError("def g():\n  pass\n"),
            "1:1: unsupported construct: nested function definition");
  EXPECT_EQ(parseError("x[0] = 1\n"),
            "1:1: unsupported construct: assignment to a subscript");
  EXPECT_EQ(parseError("if x\n  pass\n"),
            "1:5: expected ':', found end of line");
  EXPECT_EQ(parseError("if x:\npass\n"), "2:1: expected an indented block");
  EXPECT_EQ(parseError("match x:\n  case 1:\n    pass\n"),
            "1:1: unsupported construct: match statement");
  EXPECT_EQ(parseError("match(x)\n"), "ok");
  EXPECT_EQ(parseError("try:\n  pass\nexcept:\n  pass\n"),
            "1:1: unsupported construct: try statement");
  EXPECT_EQ(parseError("for i in r:\n  x\nelse:\n  y\n"),
            "3:1: unsupported construct: 'else' clause of a loop");
}

TEST(Parser, ModuleSkipsNonDSLCode) {
  const char *src = R"(
import numpy as np
import kdatile.language as kt
from kdatile import jit
from mymod import helper as h, other
import pkg.sub

BLOCK = 128
SCALE: kt.constexpr = 2 * BLOCK
ROWS, COLS = 4, 8
P, Q = make_pair()
TABLE = [i * i for i in range(4)]

class Foo:
    def method(self):
        return {1: 2}

def not_a_kernel(x):
    return lambda y: y + x

@pytest.mark.parametrize("n", [1, 2])
def test_something(n):
    assert n > 0

@kt.jit
def kernel(x_ptr, n, BLOCK: kt.constexpr = 64):
    """Docstring."""
    pid = kt.program_id(0)

@jit(debug=True)
def helper2(x):
    return x

@kt.jit
def broken(x):
    return [i for i in x]

if __name__ == "__main__":
    print(f"{1 + 2}")
)";
  ParsedModule module;
  SourceLoc loc;
  std::string error;
  ASSERT_TRUE(parseModule(src, module, loc, error)) << error;
  auto kindOf = [&](const char *name) {
    auto it = module.symbols.find(name);
    return it == module.symbols.end() ? -1 : static_cast<int>(it->second.kind);
  };
  EXPECT_EQ(kindOf("np"), int(SymbolKind::Import));
  EXPECT_EQ(kindOf("kt"), int(SymbolKind::Import));
  EXPECT_EQ(kindOf("jit"), int(SymbolKind::ImportFrom));
  EXPECT_EQ(kindOf("h"), int(SymbolKind::ImportFrom));
  EXPECT_EQ(module.symbols["h"].member, "helper");
  EXPECT_EQ(kindOf("pkg"), int(SymbolKind::Import));
  EXPECT_EQ(kindOf("BLOCK"), int(SymbolKind::Global));
  EXPECT_EQ(kindOf("SCALE"), int(SymbolKind::Global));
  EXPECT_EQ(kindOf("TABLE"), int(SymbolKind::OtherGlobal));
  EXPECT_EQ(kindOf("ROWS"), int(SymbolKind::Global));
  EXPECT_EQ(kindOf("COLS"), int(SymbolKind::Global));
  EXPECT_EQ(module.symbols["COLS"].value->intValue, 8);
  EXPECT_EQ(kindOf("P"), int(SymbolKind::OtherGlobal));
  EXPECT_EQ(kindOf("Foo"), int(SymbolKind::OtherFunction));
  EXPECT_EQ(kindOf("not_a_kernel"), int(SymbolKind::OtherFunction));
  EXPECT_EQ(kindOf("test_something"), int(SymbolKind::OtherFunction));
  EXPECT_EQ(kindOf("kernel"), int(SymbolKind::Function));
  EXPECT_EQ(kindOf("helper2"), int(SymbolKind::Function));
  EXPECT_EQ(kindOf("broken"), int(SymbolKind::BrokenFunction));
  EXPECT_EQ(module.symbols["broken"].errorLoc.line, 36u);
  EXPECT_EQ(module.symbols["broken"].errorLoc.col, 15u);
  const FunctionDef *k = module.symbols["kernel"].function;
  ASSERT_EQ(k->params.size(), 3u);
  EXPECT_EQ(k->params[2].name, "BLOCK");
  EXPECT_TRUE(k->params[2].defaultValue != nullptr);
  EXPECT_EQ(k->body.size(), 2u);
  EXPECT_EQ(k->loc.line, 26u);
}

} // namespace
