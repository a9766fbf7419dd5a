//===- Parser.cpp - Python subset parser ----------------------------------===//
//
// A recursive-descent parser following Python's grammar precedence. Errors
// are recorded once (the first wins) and make every parse function return
// null/false, so callers simply propagate failure.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

using namespace kda::frontend;
using kda::frontend::detail::Parser;
using llvm::StringRef;

bool kda::frontend::isLanguageModule(StringRef module) {
  return module == "kdatile" || module == "kdatile.language";
}

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

void Parser::skipStatement() {
  int depth = 0;
  while (!tok().is(TokenKind::EndOfFile)) {
    if (tok().is(TokenKind::Indent))
      ++depth;
    else if (tok().is(TokenKind::Dedent)) {
      if (depth == 0)
        return;
      if (--depth == 0) {
        consume();
        return;
      }
    } else if (tok().is(TokenKind::Newline) && depth == 0) {
      consume();
      if (!tok().is(TokenKind::Indent))
        return;
      continue;
    }
    consume();
  }
}

static std::string joinDotted(const std::vector<std::string> &parts) {
  std::string out;
  for (const std::string &p : parts)
    out += (out.empty() ? "" : ".") + p;
  return out;
}

bool Parser::parseImport(ParsedModule &module) {
  consume(); // import
  while (true) {
    SourceLoc loc = tok().loc;
    std::vector<std::string> parts;
    do {
      if (!tok().is(TokenKind::Name))
        return syntaxError(), false;
      parts.push_back(tok().text);
      consume();
    } while (tok().isOp(".") && (consume(), true));
    std::string full = joinDotted(parts);
    ModuleSymbol sym;
    sym.kind = SymbolKind::Import;
    sym.loc = loc;
    module.imports.push_back({full, 0});
    if (tok().isKeyword("as")) {
      consume();
      if (!tok().is(TokenKind::Name))
        return syntaxError(), false;
      sym.module = full;
      module.symbols[tok().text] = sym;
      consume();
    } else {
      // `import a.b` binds `a`; `a.b` is then reached as an attribute.
      sym.module = isLanguageModule(full) ? full : parts.front();
      module.symbols[parts.front()] = sym;
    }
    if (!tok().isOp(","))
      break;
    consume();
  }
  return expectNewline();
}

bool Parser::parseFromImport(ParsedModule &module) {
  consume(); // from
  unsigned level = 0;
  while (tok().isOp(".") || tok().isOp("...")) {
    level += tok().text.size();
    consume();
  }
  std::vector<std::string> parts;
  while (tok().is(TokenKind::Name) && !tok().isKeyword("import")) {
    parts.push_back(tok().text);
    consume();
    if (!tok().isOp("."))
      break;
    consume();
  }
  if (!tok().isKeyword("import"))
    return syntaxError(), false;
  consume();
  std::string from = joinDotted(parts);
  if (!from.empty() || level)
    module.imports.push_back({from, level});
  bool paren = tok().isOp("(");
  if (paren)
    consume();
  while (true) {
    if (tok().isOp("*")) {
      consume(); // star imports bind nothing the DSL can see
      module.starImports.push_back(std::string(level, '.') + from);
    } else {
      if (!tok().is(TokenKind::Name))
        return syntaxError(), false;
      ModuleSymbol sym;
      sym.kind = SymbolKind::ImportFrom;
      sym.loc = tok().loc;
      sym.module = from;
      sym.member = tok().text;
      sym.level = level;
      std::string bound = tok().text;
      consume();
      if (tok().isKeyword("as")) {
        consume();
        if (!tok().is(TokenKind::Name))
          return syntaxError(), false;
        bound = tok().text;
        consume();
      }
      if (!isLanguageModule(from))
        module.imports.push_back(
            {from.empty() ? sym.member : from + "." + sym.member, level});
      module.symbols[bound] = sym;
    }
    if (!tok().isOp(","))
      break;
    consume();
    if (paren && tok().isOp(")"))
      break;
  }
  if (paren && !expectOp(")"))
    return false;
  return expectNewline();
}

/// A decorator is `@jit` when its dotted name is `<language module>.jit` or
/// a name imported as `jit` from the language package. Unbound prefixes are
/// accepted too, so snippets without imports still work.
bool Parser::isJitDecorator(const ParsedModule &module, size_t begin,
                            size_t end) {
  std::vector<std::string> parts;
  size_t i = begin;
  while (i < end && tokens[i].is(TokenKind::Name)) {
    parts.push_back(tokens[i].text);
    ++i;
    if (i < end && tokens[i].isOp("."))
      ++i;
    else
      break;
  }
  if (parts.empty() || parts.back() != "jit")
    return false;
  if (i < end && !tokens[i].isOp("("))
    return false;
  auto it = module.symbols.find(parts.front());
  if (it == module.symbols.end())
    return true;
  // Spell the decorator with the full module path it was imported from.
  std::string full;
  if (it->second.kind == SymbolKind::Import)
    full = it->second.module;
  else if (it->second.kind == SymbolKind::ImportFrom && it->second.level == 0)
    full = it->second.module + "." + it->second.member;
  else
    return false;
  for (size_t p = 1; p < parts.size(); ++p)
    full += "." + parts[p];
  return full == "kdatile.jit" || full == "kdatile.language.jit";
}

void Parser::parseDecorated(ParsedModule &module) {
  bool jit = false;
  while (tok().isOp("@")) {
    consume();
    size_t begin = index;
    while (!tok().is(TokenKind::Newline) && !tok().is(TokenKind::EndOfFile))
      consume();
    jit |= isJitDecorator(module, begin, index);
    consume();
  }
  if (tok().isKeyword("async"))
    consume();
  bool isDef = tok().isKeyword("def");
  std::string name = tok(1).is(TokenKind::Name) ? tok(1).text : "";
  SourceLoc loc = tok().loc;
  if (!jit || !isDef) {
    if (!name.empty()) {
      ModuleSymbol sym;
      sym.kind = SymbolKind::OtherFunction;
      sym.loc = loc;
      module.symbols[name] = sym;
    }
    skipStatement();
    return;
  }
  size_t start = index;
  std::unique_ptr<FunctionDef> fn = parseFunction();
  ModuleSymbol sym;
  sym.loc = loc;
  if (!fn) {
    sym.kind = SymbolKind::BrokenFunction;
    sym.errorLoc = errorLoc;
    sym.error = errorMessage;
    errorMessage.clear();
    index = start;
    skipStatement();
  } else {
    sym.kind = SymbolKind::Function;
    sym.function = fn.get();
    module.functions.push_back(std::move(fn));
  }
  if (!name.empty())
    module.symbols[name] = sym;
}

void Parser::parseTopLevelAssignment(ParsedModule &module) {
  size_t start = index;
  std::string name = tok().text;
  SourceLoc loc = tok().loc;
  consume();
  ExprPtr value;
  if (tok().isOp(",")) {
    // `A, B = 1, 2`: one global per name when the value is a tuple display.
    std::vector<std::pair<std::string, SourceLoc>> names{{name, loc}};
    while (tok().isOp(",") && tok(1).is(TokenKind::Name)) {
      consume();
      names.push_back({tok().text, tok().loc});
      consume();
    }
    ExprPtr tuple;
    if (tok().isOp("=")) {
      consume();
      tuple = parseExprList();
    }
    bool ok = tuple && !failed() && tok().is(TokenKind::Newline) &&
              tuple->kind == ExprKind::Tuple &&
              tuple->operands.size() == names.size();
    if (!ok) {
      errorMessage.clear();
      index = start;
      skipStatement();
    } else {
      consume();
    }
    for (size_t i = 0; i < names.size(); ++i) {
      ModuleSymbol sym;
      sym.loc = names[i].second;
      sym.kind = ok ? SymbolKind::Global : SymbolKind::OtherGlobal;
      if (ok)
        sym.value = tuple->operands[i].get();
      module.symbols[names[i].first] = sym;
    }
    if (ok)
      module.globalValues.push_back(std::move(tuple));
    return;
  }
  if (tok().isOp(":")) {
    consume();
    ExprPtr annotation = parseExpr();
    if (annotation && tok().isOp("=")) {
      consume();
      value = parseExprList();
    }
  } else if (tok().isOp("=")) {
    consume();
    value = parseExprList();
  }
  ModuleSymbol sym;
  sym.loc = loc;
  if (value && !failed() && tok().is(TokenKind::Newline)) {
    consume();
    sym.kind = SymbolKind::Global;
    sym.value = value.get();
    module.globalValues.push_back(std::move(value));
    module.symbols[name] = sym;
    return;
  }
  // Not DSL syntax (or not a plain assignment): skip it, remember the name.
  errorMessage.clear();
  index = start;
  skipStatement();
  sym.kind = SymbolKind::OtherGlobal;
  module.symbols[name] = sym;
}

bool Parser::parseFile(ParsedModule &module) {
  while (!tok().is(TokenKind::EndOfFile)) {
    const Token &t = tok();
    if (t.is(TokenKind::Newline) || t.is(TokenKind::Dedent) ||
        t.is(TokenKind::Indent)) {
      consume();
      continue;
    }
    size_t start = index;
    if (t.isKeyword("import")) {
      if (!parseImport(module)) {
        errorMessage.clear();
        index = start;
        skipStatement();
      }
    } else if (t.isKeyword("from")) {
      if (!parseFromImport(module)) {
        errorMessage.clear();
        index = start;
        skipStatement();
      }
    } else if (t.isOp("@")) {
      parseDecorated(module);
    } else if ((t.isKeyword("def") || t.isKeyword("class")) &&
               tok(1).is(TokenKind::Name)) {
      ModuleSymbol sym;
      sym.kind = SymbolKind::OtherFunction;
      sym.loc = t.loc;
      module.symbols[tok(1).text] = sym;
      skipStatement();
    } else if (t.is(TokenKind::Name) && !isPythonKeyword(t.text) &&
               (tok(1).isOp("=") || tok(1).isOp(":") || tok(1).isOp(","))) {
      parseTopLevelAssignment(module);
    } else {
      skipStatement();
    }
  }
  return true;
}

std::unique_ptr<FunctionDef> Parser::parseFunction() {
  auto fn = std::make_unique<FunctionDef>();
  fn->loc = tok().loc;
  consume(); // def
  if (!tok().is(TokenKind::Name))
    return syntaxError();
  fn->name = tok().text;
  consume();
  if (!expectOp("("))
    return nullptr;
  while (!tok().isOp(")")) {
    if (tok().isOp("*") || tok().isOp("**") || tok().isOp("/"))
      return unsupported(tok().loc, "'" + tok().text + "' in a parameter list");
    if (!tok().is(TokenKind::Name) || isPythonKeyword(tok().text))
      return syntaxError();
    Param param;
    param.name = tok().text;
    param.loc = tok().loc;
    consume();
    for (const Param &other : fn->params)
      if (other.name == param.name)
        return fail(param.loc, "duplicate argument '" + param.name +
                                   "' in function definition");
    if (tok().isOp(":")) {
      consume();
      if (!(param.annotation = parseExpr()))
        return nullptr;
    }
    if (tok().isOp("=")) {
      consume();
      if (!(param.defaultValue = parseExpr()))
        return nullptr;
    } else if (!fn->params.empty() && fn->params.back().defaultValue) {
      return fail(param.loc, "parameter without a default follows parameter "
                             "with a default");
    }
    fn->params.push_back(std::move(param));
    if (!tok().isOp(","))
      break;
    consume();
  }
  if (!expectOp(")"))
    return nullptr;
  if (tok().isOp("->")) {
    consume();
    if (!parseExpr())
      return nullptr;
  }
  if (!expectOp(":") || !parseBlock(fn->body))
    return nullptr;
  return fn;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseBlock(std::vector<StmtPtr> &body) {
  NestingGuard guard(*this);
  if (guard.tooDeep()) {
    fail(tok().loc, "blocks are nested too deeply");
    return false;
  }
  if (!tok().is(TokenKind::Newline))
    return parseSimpleStatements(body);
  consume();
  if (!tok().is(TokenKind::Indent)) {
    fail(tok().loc, "expected an indented block");
    return false;
  }
  consume();
  while (!tok().is(TokenKind::Dedent) && !tok().is(TokenKind::EndOfFile))
    if (!parseStatement(body))
      return false;
  consume();
  return true;
}

bool Parser::parseStatementList(std::vector<StmtPtr> &stmts) {
  while (!tok().is(TokenKind::EndOfFile)) {
    if (tok().is(TokenKind::Newline)) {
      consume();
      continue;
    }
    if (tok().is(TokenKind::Indent) || tok().is(TokenKind::Dedent))
      return syntaxError(), false;
    if (!parseStatement(stmts))
      return false;
  }
  return true;
}

bool Parser::parseStatement(std::vector<StmtPtr> &out) {
  const Token &t = tok();
  SourceLoc loc = t.loc;
  if (t.is(TokenKind::Indent))
    return syntaxError(), false;
  if (t.isKeyword("if")) {
    StmtPtr s = parseIf(loc);
    if (!s)
      return false;
    out.push_back(std::move(s));
    return true;
  }
  if (t.isKeyword("for")) {
    consume();
    auto s = std::make_unique<Stmt>(StmtKind::For, loc);
    if (!tok().is(TokenKind::Name) || isPythonKeyword(tok().text))
      return syntaxError(), false;
    if (tok(1).isOp(","))
      return unsupported(tok().loc, "tuple loop variable"), false;
    s->targets.push_back(std::make_unique<Expr>(ExprKind::Name, tok().loc));
    s->targets.back()->name = tok().text;
    consume();
    if (!tok().isKeyword("in"))
      return fail(tok().loc, "expected 'in'"), false;
    consume();
    if (!(s->value = parseExprList()) || !expectOp(":") || !parseBlock(s->body))
      return false;
    if (tok().isKeyword("else"))
      return unsupported(tok().loc, "'else' clause of a loop"), false;
    out.push_back(std::move(s));
    return true;
  }
  if (t.isKeyword("while")) {
    consume();
    auto s = std::make_unique<Stmt>(StmtKind::While, loc);
    if (!(s->value = parseExpr()) || !expectOp(":") || !parseBlock(s->body))
      return false;
    if (tok().isKeyword("else"))
      return unsupported(tok().loc, "'else' clause of a loop"), false;
    out.push_back(std::move(s));
    return true;
  }
  static const char *const kCompound[][2] = {
      {"def", "nested function definition"},
      {"class", "class definition"},
      {"with", "with statement"},
      {"try", "try statement"},
      {"async", "async statement"},
      {"elif", "'elif' without 'if'"},
      {"else", "'else' without 'if'"},
      {"except", "except clause"},
      {"finally", "finally clause"}};
  for (auto &entry : kCompound)
    if (t.isKeyword(entry[0]))
      return unsupported(loc, entry[1]), false;
  if (t.isOp("@"))
    return unsupported(loc, "decorator inside a function"), false;
  // `match` is a soft keyword: `match x:` starts a match statement.
  if (t.isKeyword("match") &&
      (tok(1).is(TokenKind::Name) || tok(1).is(TokenKind::Int) ||
       tok(1).is(TokenKind::String)))
    return unsupported(loc, "match statement"), false;
  return parseSimpleStatements(out);
}

bool Parser::parseSimpleStatements(std::vector<StmtPtr> &out) {
  while (true) {
    StmtPtr s = parseSmallStatement();
    if (!s)
      return false;
    out.push_back(std::move(s));
    if (!tok().isOp(";"))
      break;
    consume();
    if (tok().is(TokenKind::Newline))
      break;
  }
  return expectNewline();
}

StmtPtr Parser::parseIf(SourceLoc loc) {
  NestingGuard guard(*this); // elif chains nest
  if (guard.tooDeep())
    return fail(loc, "blocks are nested too deeply");
  consume(); // if / elif
  auto s = std::make_unique<Stmt>(StmtKind::If, loc);
  if (!(s->value = parseExpr()) || !expectOp(":") || !parseBlock(s->body))
    return nullptr;
  if (tok().isKeyword("elif")) {
    StmtPtr nested = parseIf(tok().loc);
    if (!nested)
      return nullptr;
    s->orelse.push_back(std::move(nested));
  } else if (tok().isKeyword("else")) {
    consume();
    if (!expectOp(":") || !parseBlock(s->orelse))
      return nullptr;
  }
  return s;
}

bool Parser::checkTarget(const Expr &target) {
  if (target.kind == ExprKind::Name)
    return true;
  if (target.kind == ExprKind::Tuple) {
    for (const ExprPtr &e : target.operands)
      if (!checkTarget(*e))
        return false;
    return true;
  }
  if (target.kind == ExprKind::Subscript)
    return unsupported(target.loc, "assignment to a subscript"), false;
  if (target.kind == ExprKind::Attribute)
    return unsupported(target.loc, "assignment to an attribute"), false;
  return fail(target.loc, "cannot assign to this expression"), false;
}

StmtPtr Parser::parseSmallStatement() {
  const Token &t = tok();
  SourceLoc loc = t.loc;
  if (t.isKeyword("pass")) {
    consume();
    return std::make_unique<Stmt>(StmtKind::Pass, loc);
  }
  if (t.isKeyword("return")) {
    consume();
    auto s = std::make_unique<Stmt>(StmtKind::Return, loc);
    if (!tok().is(TokenKind::Newline) && !tok().isOp(";") &&
        !(s->value = parseExprList()))
      return nullptr;
    return s;
  }
  static const char *const kSimple[][2] = {
      {"break", "break"},
      {"continue", "continue"},
      {"raise", "raise statement"},
      {"del", "del statement"},
      {"global", "global statement"},
      {"nonlocal", "nonlocal statement"},
      {"assert", "assert statement (use kt.static_assert)"},
      {"import", "import inside a function"},
      {"from", "import inside a function"},
      {"yield", "yield"}};
  for (auto &entry : kSimple)
    if (t.isKeyword(entry[0]))
      return unsupported(loc, entry[1]);

  ExprPtr first = parseExprList();
  if (!first)
    return nullptr;
  if (tok().isOp("=")) {
    auto s = std::make_unique<Stmt>(StmtKind::Assign, loc);
    s->targets.push_back(std::move(first));
    while (tok().isOp("=")) {
      consume();
      ExprPtr next = parseExprList();
      if (!next)
        return nullptr;
      s->targets.push_back(std::move(next));
    }
    s->value = std::move(s->targets.back());
    s->targets.pop_back();
    for (const ExprPtr &target : s->targets)
      if (!checkTarget(*target))
        return nullptr;
    return s;
  }
  if (tok().isOp(":")) {
    if (first->kind != ExprKind::Name)
      return fail(tok().loc, "only a single name can be annotated");
    consume();
    auto s = std::make_unique<Stmt>(StmtKind::AnnAssign, loc);
    if (!(s->annotation = parseExpr()))
      return nullptr;
    if (tok().isOp("=")) {
      consume();
      if (!(s->value = parseExprList()))
        return nullptr;
    }
    s->targets.push_back(std::move(first));
    return s;
  }
  static const std::pair<const char *, BinOp> kAug[] = {
      {"+=", BinOp::Add},    {"-=", BinOp::Sub},       {"*=", BinOp::Mul},
      {"/=", BinOp::Div},    {"//=", BinOp::FloorDiv}, {"%=", BinOp::Mod},
      {"**=", BinOp::Pow},   {"&=", BinOp::BitAnd},    {"|=", BinOp::BitOr},
      {"^=", BinOp::BitXor}, {"<<=", BinOp::Shl},      {">>=", BinOp::Shr},
      {"@=", BinOp::MatMul}};
  for (auto &[spelling, op] : kAug) {
    if (!tok().isOp(spelling))
      continue;
    if (first->kind != ExprKind::Name)
      return checkTarget(*first)
                 ? fail(first->loc, "augmented assignment needs a single name")
                 : nullptr;
    consume();
    auto s = std::make_unique<Stmt>(StmtKind::AugAssign, loc);
    s->binOp = op;
    s->targets.push_back(std::move(first));
    if (!(s->value = parseExprList()))
      return nullptr;
    return s;
  }
  if (tok().isOp(":="))
    return unsupported(tok().loc, "assignment expression ':='");
  auto s = std::make_unique<Stmt>(StmtKind::Expr, loc);
  s->value = std::move(first);
  return s;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool kda::frontend::parseModule(StringRef source, ParsedModule &module,
                                SourceLoc &errorLoc,
                                std::string &errorMessage) {
  std::vector<Token> tokens;
  if (!tokenize(source, tokens, errorLoc, errorMessage))
    return false;
  Parser parser(std::move(tokens));
  return parser.parseFile(module);
}

bool kda::frontend::parseStatements(StringRef source,
                                    std::vector<StmtPtr> &stmts,
                                    SourceLoc &errorLoc,
                                    std::string &errorMessage) {
  std::vector<Token> tokens;
  if (!tokenize(source, tokens, errorLoc, errorMessage))
    return false;
  Parser parser(std::move(tokens));
  if (parser.parseStatementList(stmts))
    return true;
  errorLoc = parser.errorLoc;
  errorMessage = parser.errorMessage;
  return false;
}

ExprPtr kda::frontend::parseExpression(StringRef source, SourceLoc &errorLoc,
                                       std::string &errorMessage) {
  std::vector<Token> tokens;
  if (!tokenize(source, tokens, errorLoc, errorMessage))
    return nullptr;
  Parser parser(std::move(tokens));
  ExprPtr e = parser.parseWholeExpression();
  if (!e) {
    errorLoc = parser.errorLoc;
    errorMessage = parser.errorMessage;
  }
  return e;
}
