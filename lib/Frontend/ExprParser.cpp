//===- ExprParser.cpp - Python expression grammar -------------------------===//
//
// Expressions by Python's precedence, loosest first: conditional, or, and,
// not, comparisons, | ^ & shifts +- */ unary ** and primaries.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

#include "llvm/ADT/StringSwitch.h"

using namespace kda::frontend;
using namespace kda::frontend::detail;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// Tokens that may follow a complete expression list; used to accept the
/// trailing comma of `a, b,`.
static bool endsExprList(const Token &t) {
  return t.is(TokenKind::Newline) || t.is(TokenKind::EndOfFile) ||
         t.isOp("=") || t.isOp(")") || t.isOp(":") || t.isOp(";") ||
         t.isOp("]") ||
         (t.kind == TokenKind::Op && t.text.size() >= 2 &&
          t.text.back() == '=' && t.text != "==" && t.text != "<=" &&
          t.text != ">=" && t.text != "!=");
}

ExprPtr Parser::parseExprList() {
  SourceLoc loc = tok().loc;
  ExprPtr first = parseExpr();
  if (!first || !tok().isOp(","))
    return first;
  auto tuple = std::make_unique<Expr>(ExprKind::Tuple, loc);
  tuple->operands.push_back(std::move(first));
  while (tok().isOp(",")) {
    consume();
    if (endsExprList(tok()))
      break;
    ExprPtr next = parseExpr();
    if (!next)
      return nullptr;
    tuple->operands.push_back(std::move(next));
  }
  return tuple;
}

ExprPtr Parser::parseExpr() {
  NestingGuard guard(*this);
  if (guard.tooDeep())
    return fail(tok().loc, "expression is nested too deeply");
  if (tok().isKeyword("lambda"))
    return unsupported(tok().loc, "lambda");
  if (tok().isKeyword("yield") || tok().isKeyword("await"))
    return unsupported(tok().loc, tok().text);
  if (tok().isOp("*"))
    return unsupported(tok().loc, "starred expression");
  ExprPtr body = parseOr();
  if (!body || !tok().isKeyword("if"))
    return body;
  SourceLoc loc = body->loc;
  consume();
  ExprPtr cond = parseOr();
  if (!cond)
    return nullptr;
  if (!tok().isKeyword("else"))
    return fail(tok().loc, "expected 'else' in conditional expression");
  consume();
  ExprPtr orelse = parseExpr();
  if (!orelse)
    return nullptr;
  auto e = std::make_unique<Expr>(ExprKind::IfExp, loc);
  e->operands.push_back(std::move(cond));
  e->operands.push_back(std::move(body));
  e->operands.push_back(std::move(orelse));
  return e;
}

ExprPtr Parser::parseOr() {
  ExprPtr lhs = parseAnd();
  if (!lhs || !tok().isKeyword("or"))
    return lhs;
  auto e = std::make_unique<Expr>(ExprKind::Or, lhs->loc);
  e->operands.push_back(std::move(lhs));
  while (tok().isKeyword("or")) {
    consume();
    ExprPtr rhs = parseAnd();
    if (!rhs)
      return nullptr;
    e->operands.push_back(std::move(rhs));
  }
  return e;
}

ExprPtr Parser::parseAnd() {
  ExprPtr lhs = parseNot();
  if (!lhs || !tok().isKeyword("and"))
    return lhs;
  auto e = std::make_unique<Expr>(ExprKind::And, lhs->loc);
  e->operands.push_back(std::move(lhs));
  while (tok().isKeyword("and")) {
    consume();
    ExprPtr rhs = parseNot();
    if (!rhs)
      return nullptr;
    e->operands.push_back(std::move(rhs));
  }
  return e;
}

ExprPtr Parser::parseNot() {
  if (!tok().isKeyword("not"))
    return parseComparison();
  NestingGuard guard(*this);
  if (guard.tooDeep())
    return fail(tok().loc, "expression is nested too deeply");
  SourceLoc loc = tok().loc;
  consume();
  ExprPtr operand = parseNot();
  if (!operand)
    return nullptr;
  auto e = std::make_unique<Expr>(ExprKind::Unary, loc);
  e->unaryOp = UnaryOp::Not;
  e->operands.push_back(std::move(operand));
  return e;
}

ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseBinaryLevel(0);
  if (!lhs)
    return nullptr;
  ExprPtr chain;
  while (true) {
    const Token &t = tok();
    std::optional<BinOp> op;
    if (t.kind == TokenKind::Op)
      op = llvm::StringSwitch<std::optional<BinOp>>(t.text)
               .Case("<", BinOp::Lt)
               .Case("<=", BinOp::Le)
               .Case(">", BinOp::Gt)
               .Case(">=", BinOp::Ge)
               .Case("==", BinOp::Eq)
               .Case("!=", BinOp::Ne)
               .Default(std::nullopt);
    else if (t.isKeyword("is"))
      op = tok(1).isKeyword("not") ? BinOp::IsNot : BinOp::Is;
    else if (t.isKeyword("in") ||
             (t.isKeyword("not") && tok(1).isKeyword("in")))
      return unsupported(t.loc, "'in' operator");
    if (!op)
      break;
    consume();
    if (*op == BinOp::IsNot)
      consume();
    ExprPtr rhs = parseBinaryLevel(0);
    if (!rhs)
      return nullptr;
    if (!chain) {
      chain = std::make_unique<Expr>(ExprKind::Compare, lhs->loc);
      chain->operands.push_back(std::move(lhs));
    }
    chain->compareOps.push_back(*op);
    chain->operands.push_back(std::move(rhs));
  }
  return chain ? std::move(chain) : std::move(lhs);
}

/// Left-associative binary levels, loosest first: | ^ & shifts +- */.
ExprPtr Parser::parseBinaryLevel(int level) {
  static const std::vector<std::pair<const char *, BinOp>> kLevels[] = {
      {{"|", BinOp::BitOr}},
      {{"^", BinOp::BitXor}},
      {{"&", BinOp::BitAnd}},
      {{"<<", BinOp::Shl}, {">>", BinOp::Shr}},
      {{"+", BinOp::Add}, {"-", BinOp::Sub}},
      {{"*", BinOp::Mul},
       {"/", BinOp::Div},
       {"//", BinOp::FloorDiv},
       {"%", BinOp::Mod},
       {"@", BinOp::MatMul}}};
  constexpr int kNumLevels = 6;
  if (level == kNumLevels)
    return parseUnary();
  ExprPtr lhs = parseBinaryLevel(level + 1);
  unsigned chain = 0;
  while (lhs) {
    if (++chain > kMaxChain)
      return fail(tok().loc, "expression is too long");
    std::optional<BinOp> op;
    for (auto &[spelling, candidate] : kLevels[level])
      if (tok().isOp(spelling))
        op = candidate;
    if (!op)
      break;
    SourceLoc loc = tok().loc;
    consume();
    ExprPtr rhs = parseBinaryLevel(level + 1);
    if (!rhs)
      return nullptr;
    auto e = std::make_unique<Expr>(ExprKind::Binary, loc);
    e->binOp = *op;
    e->operands.push_back(std::move(lhs));
    e->operands.push_back(std::move(rhs));
    lhs = std::move(e);
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  NestingGuard guard(*this);
  if (guard.tooDeep())
    return fail(tok().loc, "expression is nested too deeply");
  std::optional<UnaryOp> op;
  if (tok().isOp("-"))
    op = UnaryOp::Neg;
  else if (tok().isOp("+"))
    op = UnaryOp::Pos;
  else if (tok().isOp("~"))
    op = UnaryOp::Invert;
  if (!op)
    return parsePower();
  SourceLoc loc = tok().loc;
  consume();
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  auto e = std::make_unique<Expr>(ExprKind::Unary, loc);
  e->unaryOp = *op;
  e->operands.push_back(std::move(operand));
  return e;
}

ExprPtr Parser::parsePower() {
  ExprPtr base = parsePrimary();
  if (!base || !tok().isOp("**"))
    return base;
  SourceLoc loc = tok().loc;
  consume();
  ExprPtr exponent = parseUnary(); // right associative, binds -x on the right
  if (!exponent)
    return nullptr;
  auto e = std::make_unique<Expr>(ExprKind::Binary, loc);
  e->binOp = BinOp::Pow;
  e->operands.push_back(std::move(base));
  e->operands.push_back(std::move(exponent));
  return e;
}

bool Parser::parseCallArgs(Expr &call) {
  consume(); // (
  while (!tok().isOp(")")) {
    if (tok().isOp("*") || tok().isOp("**"))
      return unsupported(tok().loc, "argument unpacking"), false;
    if (tok().is(TokenKind::Name) && tok(1).isOp("=")) {
      std::string name = tok().text;
      SourceLoc loc = tok().loc;
      for (const std::string &k : call.keywords)
        if (k == name)
          return fail(loc, "keyword argument repeated: " + name), false;
      consume();
      consume();
      ExprPtr value = parseExpr();
      if (!value)
        return false;
      call.keywords.push_back(name);
      call.keywordLocs.push_back(loc);
      call.operands.push_back(std::move(value));
    } else {
      SourceLoc loc = tok().loc;
      if (!call.keywords.empty())
        return fail(loc, "positional argument follows keyword argument"), false;
      ExprPtr value = parseExpr();
      if (!value)
        return false;
      if (tok().isKeyword("for"))
        return unsupported(tok().loc, "generator expression"), false;
      call.operands.push_back(std::move(value));
    }
    if (!tok().isOp(","))
      break;
    consume();
  }
  return expectOp(")");
}

ExprPtr Parser::parseSubscriptItem() {
  SourceLoc loc = tok().loc;
  if (tok().isOp(":")) {
    consume();
    if (!tok().isOp(",") && !tok().isOp("]"))
      return unsupported(loc, "slicing (only ':' and None are allowed in "
                              "subscripts)");
    return std::make_unique<Expr>(ExprKind::Slice, loc);
  }
  ExprPtr e = parseExpr();
  if (e && tok().isOp(":"))
    return unsupported(loc, "slicing (only ':' and None are allowed in "
                            "subscripts)");
  return e;
}

ExprPtr Parser::parsePrimary() {
  ExprPtr e = parseAtom();
  unsigned chain = 0;
  while (e) {
    if (++chain > kMaxChain)
      return fail(tok().loc, "expression is too long");
    if (tok().isOp(".")) {
      consume();
      if (!tok().is(TokenKind::Name))
        return syntaxError();
      auto attr = std::make_unique<Expr>(ExprKind::Attribute, e->loc);
      attr->name = tok().text;
      attr->operands.push_back(std::move(e));
      consume();
      e = std::move(attr);
    } else if (tok().isOp("(")) {
      auto call = std::make_unique<Expr>(ExprKind::Call, e->loc);
      call->operands.push_back(std::move(e));
      if (!parseCallArgs(*call))
        return nullptr;
      e = std::move(call);
    } else if (tok().isOp("[")) {
      consume();
      auto sub = std::make_unique<Expr>(ExprKind::Subscript, e->loc);
      sub->operands.push_back(std::move(e));
      while (!tok().isOp("]")) {
        ExprPtr item = parseSubscriptItem();
        if (!item)
          return nullptr;
        sub->operands.push_back(std::move(item));
        if (!tok().isOp(","))
          break;
        consume();
      }
      if (sub->operands.size() == 1)
        return syntaxError();
      if (!expectOp("]"))
        return nullptr;
      e = std::move(sub);
    } else {
      break;
    }
  }
  return e;
}

ExprPtr Parser::parseAtom() {
  const Token &t = tok();
  SourceLoc loc = t.loc;
  switch (t.kind) {
  case TokenKind::Int: {
    if (t.overflow)
      return fail(loc, "integer literal too large: " + t.text);
    auto e = std::make_unique<Expr>(ExprKind::Int, loc);
    e->intValue = t.intValue;
    consume();
    return e;
  }
  case TokenKind::Float: {
    if (t.imaginary)
      return unsupported(loc, "complex literal");
    auto e = std::make_unique<Expr>(ExprKind::Float, loc);
    e->floatValue = t.floatValue;
    consume();
    return e;
  }
  case TokenKind::String: {
    auto e = std::make_unique<Expr>(ExprKind::Str, loc);
    while (tok().is(TokenKind::String)) {
      if (tok().formatted)
        return unsupported(tok().loc,
                           "f-string (nothing formats it in a kernel; "
                           "give the values to kt.device_print or "
                           "kt.static_print as arguments)");
      e->name += tok().text;
      consume();
    }
    return e;
  }
  case TokenKind::Name: {
    if (t.text == "True" || t.text == "False") {
      auto e = std::make_unique<Expr>(ExprKind::Bool, loc);
      e->intValue = t.text == "True";
      consume();
      return e;
    }
    if (t.text == "None") {
      consume();
      return std::make_unique<Expr>(ExprKind::None, loc);
    }
    if (isPythonKeyword(t.text))
      return syntaxError();
    auto e = std::make_unique<Expr>(ExprKind::Name, loc);
    e->name = t.text;
    consume();
    return e;
  }
  case TokenKind::Op:
    break;
  default:
    return syntaxError();
  }
  if (t.isOp("...")) {
    consume();
    return std::make_unique<Expr>(ExprKind::Ellipsis, loc);
  }
  if (t.isOp("{"))
    return unsupported(loc, "dict or set literal");
  bool list = t.isOp("[");
  if (!list && !t.isOp("("))
    return syntaxError();
  const char *close = list ? "]" : ")";
  consume();
  auto tuple = std::make_unique<Expr>(ExprKind::Tuple, loc);
  tuple->isList = list;
  bool sawComma = false;
  while (!tok().isOp(close)) {
    ExprPtr item = parseExpr();
    if (!item)
      return nullptr;
    if (tok().isKeyword("for"))
      return unsupported(tok().loc,
                         list ? "list comprehension" : "generator expression");
    if (tok().isOp(":="))
      return unsupported(tok().loc, "assignment expression ':='");
    tuple->operands.push_back(std::move(item));
    if (!tok().isOp(","))
      break;
    sawComma = true;
    consume();
  }
  if (!expectOp(close))
    return nullptr;
  if (!list && !sawComma && tuple->operands.size() == 1)
    return std::move(tuple->operands.front()); // parenthesized expression
  return tuple;
}

ExprPtr Parser::parseWholeExpression() {
  ExprPtr e = parseExprList();
  if (e && !tok().is(TokenKind::Newline) && !tok().is(TokenKind::EndOfFile))
    return syntaxError();
  return e;
}
