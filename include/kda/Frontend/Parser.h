//===- Parser.h - Python subset parser --------------------------*- C++ -*-===//
//
// Parses a Python file into the parts the DSL cares about: imports, simple
// global assignments and `@kt.jit` functions. Every other top-level
// statement is skipped by its layout (NEWLINE/INDENT/DEDENT), so arbitrary
// Python may live beside kernels.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_PARSER_H
#define KDA_FRONTEND_PARSER_H

#include "kda/Frontend/AST.h"

#include <map>

namespace kda::frontend {

enum class SymbolKind {
  Function,       ///< a `@kt.jit` function (`function`)
  BrokenFunction, ///< a `@kt.jit` function that failed to parse (`error*`)
  OtherFunction,  ///< an undecorated def or a class: not callable in the DSL
  Global,         ///< `NAME = expr` with a DSL expression (`value`)
  OtherGlobal,    ///< a global whose expression is not DSL syntax
  Import,     ///< `import a.b as c`: `module` = "a.b" (or "a" for `import a.b`)
  ImportFrom, ///< `from a import b`: `module` = "a", `member` = "b"
};

struct ModuleSymbol {
  SymbolKind kind = SymbolKind::OtherGlobal;
  SourceLoc loc;
  FunctionDef *function = nullptr;
  Expr *value = nullptr;
  std::string module;
  std::string member;
  /// Leading dots of a relative import (`from . import x` has level 1).
  unsigned level = 0;
  /// BrokenFunction: where and why parsing failed.
  SourceLoc errorLoc;
  std::string error;
};

struct ParsedModule {
  std::vector<std::unique_ptr<FunctionDef>> functions;
  std::vector<ExprPtr> globalValues;
  /// Top-level names; a later binding replaces an earlier one, as in Python.
  std::map<std::string, ModuleSymbol> symbols;
  /// Every module named by an import statement, with its relative level.
  std::vector<std::pair<std::string, unsigned>> imports;
  /// The modules of `from M import *` statements (which bind nothing the
  /// DSL sees), for the diagnostics of undefined names.
  std::vector<std::string> starImports;
};

/// Parses a whole file. Fails only on lexical errors (which valid Python
/// never has); DSL functions that do not parse become BrokenFunction symbols
/// so that the error is reported when (and only when) they are used.
bool parseModule(llvm::StringRef source, ParsedModule &module,
                 SourceLoc &errorLoc, std::string &errorMessage);

/// Parses the body of a file as DSL statements (all of it must parse);
/// used by unit tests and for error reporting.
bool parseStatements(llvm::StringRef source, std::vector<StmtPtr> &stmts,
                     SourceLoc &errorLoc, std::string &errorMessage);

/// Parses one expression (the whole buffer).
ExprPtr parseExpression(llvm::StringRef source, SourceLoc &errorLoc,
                        std::string &errorMessage);

/// True when `module` names the DSL language package (kdatile or
/// kdatile.language), whose members are the builtins.
bool isLanguageModule(llvm::StringRef module);

} // namespace kda::frontend

#endif // KDA_FRONTEND_PARSER_H
