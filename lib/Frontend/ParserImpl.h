//===- ParserImpl.h - the recursive-descent parser --------------*- C++ -*-===//
//
// Private to lib/Frontend: shared by Parser.cpp (files, statements) and
// ExprParser.cpp (expressions).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_LIB_FRONTEND_PARSERIMPL_H
#define KDA_LIB_FRONTEND_PARSERIMPL_H

#include "kda/Frontend/Parser.h"

#include <optional>

namespace kda::frontend::detail {

using llvm::StringRef;

class Parser {
public:
  explicit Parser(std::vector<Token> toks) : tokens(std::move(toks)) {}

  bool parseFile(ParsedModule &module);
  bool parseStatementList(std::vector<StmtPtr> &stmts);
  ExprPtr parseWholeExpression();

  SourceLoc errorLoc;
  std::string errorMessage;

private:
  const Token &tok(size_t ahead = 0) const {
    size_t i = std::min(index + ahead, tokens.size() - 1);
    return tokens[i];
  }
  void consume() {
    if (index + 1 < tokens.size())
      ++index;
  }
  bool failed() const { return !errorMessage.empty(); }
  std::nullptr_t fail(SourceLoc loc, std::string msg) {
    if (!failed()) {
      errorLoc = loc;
      errorMessage = std::move(msg);
    }
    return nullptr;
  }
  std::nullptr_t unsupported(SourceLoc loc, const std::string &what) {
    return fail(loc, "unsupported construct: " + what);
  }
  std::nullptr_t syntaxError() {
    const Token &t = tok();
    if (t.is(TokenKind::Indent))
      return fail(t.loc, "unexpected indent");
    if (t.is(TokenKind::Newline) || t.is(TokenKind::EndOfFile) ||
        t.is(TokenKind::Dedent))
      return fail(t.loc, "invalid syntax: unexpected end of line");
    return fail(t.loc, "invalid syntax: unexpected '" + t.text + "'");
  }
  bool expectOp(StringRef op) {
    if (tok().isOp(op)) {
      consume();
      return true;
    }
    if (!failed()) {
      const Token &t = tok();
      std::string found = t.is(TokenKind::Newline)     ? "end of line"
                          : t.is(TokenKind::EndOfFile) ? "end of file"
                                                       : "'" + t.text + "'";
      fail(t.loc, "expected '" + op.str() + "', found " + found);
    }
    return false;
  }
  bool expectNewline() {
    if (tok().is(TokenKind::Newline)) {
      consume();
      return true;
    }
    syntaxError();
    return false;
  }

  // Top level.
  void skipStatement();
  bool parseImport(ParsedModule &module);
  bool parseFromImport(ParsedModule &module);
  void parseDecorated(ParsedModule &module);
  void parseTopLevelAssignment(ParsedModule &module);
  bool isJitDecorator(const ParsedModule &module, size_t begin, size_t end);
  std::unique_ptr<FunctionDef> parseFunction();

  // Statements.
  bool parseBlock(std::vector<StmtPtr> &body);
  bool parseStatement(std::vector<StmtPtr> &out);
  bool parseSimpleStatements(std::vector<StmtPtr> &out);
  StmtPtr parseSmallStatement();
  StmtPtr parseIf(SourceLoc loc);
  bool checkTarget(const Expr &target);

  // Expressions, lowest precedence first.
  ExprPtr parseExprList(); // `a, b` makes a tuple
  ExprPtr parseExpr();     // conditional expression
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseBinaryLevel(int level);
  ExprPtr parseUnary();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  bool parseCallArgs(Expr &call);
  ExprPtr parseSubscriptItem();

  /// Counts nested expressions and blocks: deep nesting would overflow the
  /// stack of this parser (and of the emitter walking the tree).
  struct NestingGuard {
    explicit NestingGuard(Parser &p) : parser(p) { ++parser.nesting; }
    ~NestingGuard() { --parser.nesting; }
    bool tooDeep() const { return parser.nesting > kMaxNesting; }
    Parser &parser;
  };
  static constexpr unsigned kMaxNesting = 200;
  /// Longest operator chain (`a + b + ...`) in one expression.
  static constexpr unsigned kMaxChain = 2000;

  std::vector<Token> tokens;
  size_t index = 0;
  unsigned nesting = 0;
};

} // namespace kda::frontend::detail

#endif // KDA_LIB_FRONTEND_PARSERIMPL_H
