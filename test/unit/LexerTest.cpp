//===- LexerTest.cpp - Python tokenizer -----------------------------------===//
#include "kda/Frontend/Lexer.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

std::vector<Token> lex(llvm::StringRef src) {
  std::vector<Token> tokens;
  SourceLoc loc;
  std::string error;
  EXPECT_TRUE(tokenize(src, tokens, loc, error)) << error;
  return tokens;
}

std::string kinds(const std::vector<Token> &tokens) {
  std::string s;
  for (const Token &t : tokens) {
    switch (t.kind) {
    case TokenKind::Name:
      s += "N";
      break;
    case TokenKind::Int:
      s += "I";
      break;
    case TokenKind::Float:
      s += "F";
      break;
    case TokenKind::String:
      s += "S";
      break;
    case TokenKind::Op:
      s += t.text;
      break;
    case TokenKind::Newline:
      s += ";";
      break;
    case TokenKind::Indent:
      s += "{";
      break;
    case TokenKind::Dedent:
      s += "}";
      break;
    case TokenKind::EndOfFile:
      s += "$";
      break;
    }
  }
  return s;
}

TEST(Lexer, IndentDedent) {
  auto t = lex("def f():\n    x = 1\n    if x:\n        y\n\n# c\n    z\nw\n");
  EXPECT_EQ(kinds(t), "NN():;{N=I;NN:;{N;}N;}N;$");
}

TEST(Lexer, Numbers) {
  auto t = lex("1e-5 0x10 1_000 3.5 .5 7 0b101 0o17 2j 1.");
  ASSERT_GE(t.size(), 10u);
  EXPECT_EQ(t[0].kind, TokenKind::Float);
  EXPECT_DOUBLE_EQ(t[0].floatValue, 1e-5);
  EXPECT_EQ(t[1].intValue, 16);
  EXPECT_EQ(t[2].intValue, 1000);
  EXPECT_DOUBLE_EQ(t[3].floatValue, 3.5);
  EXPECT_DOUBLE_EQ(t[4].floatValue, 0.5);
  EXPECT_EQ(t[5].intValue, 7);
  EXPECT_EQ(t[6].intValue, 5);
  EXPECT_EQ(t[7].intValue, 15);
  EXPECT_TRUE(t[8].imaginary);
  EXPECT_EQ(t[9].kind, TokenKind::Float);
}

TEST(Lexer, IntegerOverflowIsFlagged) {
  auto t = lex("99999999999999999999");
  EXPECT_TRUE(t[0].overflow);
}

TEST(Lexer, Strings) {
  auto t = lex("'a\\n' \"b\" r'\\d' b'x' f\"{y}\" rb'z' '''multi\nline''' "
               "\"\"\"doc\"\"\"");
  ASSERT_EQ(t[0].kind, TokenKind::String);
  EXPECT_EQ(t[0].text, "a\n");
  EXPECT_EQ(t[1].text, "b");
  EXPECT_EQ(t[2].text, "\\d");
  EXPECT_EQ(t[3].text, "x");
  EXPECT_EQ(t[4].text, "{y}");
  EXPECT_EQ(t[5].text, "z");
  EXPECT_EQ(t[6].text, "multi\nline");
  EXPECT_EQ(t[7].text, "doc");
  EXPECT_EQ(t[7].loc.line, 2u);
}

TEST(Lexer, FStringsMayNestTheirQuotes) {
  // Python 3.12 (PEP 701): the replacement field may use the same quotes.
  auto t = lex("x = f\"{d[\"k\"]} and {f'{y}'} {{lit}}\" + 'z'\n");
  ASSERT_EQ(t[2].kind, TokenKind::String);
  EXPECT_EQ(t[2].text, "{d[\"k\"]} and {f'{y}'} {{lit}}");
  EXPECT_TRUE(t[3].isOp("+"));
  EXPECT_EQ(t[4].text, "z");
}

TEST(Lexer, FStringFormatSpecsAndRawBraces) {
  auto t = lex("a = f'{x:#x} {y!r:>{w}}' + rf'\\{{z}}'\n");
  EXPECT_EQ(t[2].text, "{x:#x} {y!r:>{w}}");
  EXPECT_EQ(t[4].text, "\\{{z}}");
  // `1if c else 2` is valid Python: the number ends at the keyword.
  auto u = lex("v = 1if c else 2\n");
  EXPECT_EQ(u[2].intValue, 1);
  EXPECT_TRUE(u[3].isKeyword("if"));
}

TEST(Lexer, BracketsSpanLinesAndContinuation) {
  auto t = lex("x = (1,\n   2)\ny = 1 + \\\n  2\n");
  EXPECT_EQ(kinds(t), "N=(I,I);N=I+I;$");
}

TEST(Lexer, CommentsAndOperators) {
  auto t = lex("a **= b // c # comment\n@d -> e := ... != f\n");
  EXPECT_EQ(kinds(t), "N**=N//N;@N->N:=...!=N;$");
}

TEST(Lexer, Locations) {
  auto t = lex("x = 1\n  # comment\nfoo(bar)\n");
  EXPECT_EQ(t[4].text, "foo");
  EXPECT_EQ(t[4].loc.line, 3u);
  EXPECT_EQ(t[4].loc.col, 1u);
  EXPECT_EQ(t[6].loc.col, 5u);
}

TEST(Lexer, Errors) {
  std::vector<Token> tokens;
  SourceLoc loc;
  std::string error;
  EXPECT_FALSE(tokenize("x = 'abc\n", tokens, loc, error));
  EXPECT_EQ(error, "unterminated string literal");
  EXPECT_EQ(loc.line, 1u);
  EXPECT_EQ(loc.col, 5u);
  EXPECT_FALSE(tokenize("if x:\n    a\n  b\n", tokens, loc, error));
  EXPECT_EQ(loc.line, 3u);
  EXPECT_FALSE(tokenize("x = $\n", tokens, loc, error));
  EXPECT_EQ(loc.col, 5u);
  EXPECT_FALSE(tokenize("f(\n", tokens, loc, error));
}

} // namespace
