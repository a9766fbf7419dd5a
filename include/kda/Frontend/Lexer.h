//===- Lexer.h - Python tokenizer for the DSL -------------------*- C++ -*-===//
//
// Splits Python source into tokens, including the NEWLINE/INDENT/DEDENT
// tokens of Python's layout rule. It accepts every token of Python 3 so that
// non-DSL code in a kernel file (tests, numpy code) never stops compilation.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_LEXER_H
#define KDA_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kda::frontend {

/// A 1-based line and column in a source buffer.
struct SourceLoc {
  unsigned line = 0;
  unsigned col = 0;
};

enum class TokenKind {
  Name,    ///< identifiers and keywords
  Int,     ///< integer literal; value in Token::intValue
  Float,   ///< float (or imaginary) literal; value in Token::floatValue
  String,  ///< string literal; decoded value in Token::text
  Op,      ///< operator or delimiter; spelling in Token::text
  Newline, ///< end of a logical line
  Indent,
  Dedent,
  EndOfFile,
};

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  std::string text;
  SourceLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  /// Set on Int tokens whose value does not fit in 64 bits.
  bool overflow = false;
  /// Set on imaginary literals (`1j`), which the DSL rejects.
  bool imaginary = false;
  /// Set on f-strings, which the lexer scans (plain Python around kernels may
  /// use them) and kernels reject: nothing would format them.
  bool formatted = false;

  bool is(TokenKind k) const { return kind == k; }
  bool isOp(llvm::StringRef spelling) const {
    return kind == TokenKind::Op && text == spelling;
  }
  bool isKeyword(llvm::StringRef word) const {
    return kind == TokenKind::Name && text == word;
  }
};

/// Tokenizes a whole buffer. On a lexical error returns false and sets
/// `errorLoc` / `errorMessage`; `tokens` then holds what was read so far.
bool tokenize(llvm::StringRef source, std::vector<Token> &tokens,
              SourceLoc &errorLoc, std::string &errorMessage);

/// True for Python's reserved words (`if`, `def`, `None`, ...).
bool isPythonKeyword(llvm::StringRef word);

} // namespace kda::frontend

#endif // KDA_FRONTEND_LEXER_H
