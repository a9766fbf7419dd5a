//===- Lexer.cpp - Python tokenizer for the DSL ---------------------------===//
//
// Follows Python's lexical rules closely enough to tokenize any valid
// Python 3 file: bracket nesting suppresses NEWLINE, backslashes join lines,
// blank and comment-only lines produce no tokens, and string literals may
// carry prefixes and span lines when triple-quoted.
//
//===----------------------------------------------------------------------===//
#include "kda/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cstdlib>

using namespace kda::frontend;
using llvm::StringRef;

bool kda::frontend::isPythonKeyword(StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases({"False", "None", "True", "and", "as", "assert", "async"}, true)
      .Cases({"await", "break", "class", "continue", "def", "del", "elif"},
             true)
      .Cases({"else", "except", "finally", "for", "from", "global", "if"}, true)
      .Cases({"import", "in", "is", "lambda", "nonlocal", "not", "or"}, true)
      .Cases({"pass", "raise", "return", "try", "while", "with", "yield"}, true)
      .Default(false);
}

namespace {

/// Operators sorted so that longer spellings are tried first.
const char *const kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=",
    ">=",  "==",  "!=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "="};

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
public:
  Lexer(StringRef src, std::vector<Token> &out) : src(src), tokens(out) {}

  bool run(SourceLoc &errLoc, std::string &errMsg);

private:
  char peek(size_t ahead = 0) const {
    return pos + ahead < src.size() ? src[pos + ahead] : '\0';
  }
  SourceLoc here() const {
    return {line, static_cast<unsigned>(pos - lineStart + 1)};
  }
  void advance() {
    if (src[pos] == '\n') {
      ++line;
      lineStart = pos + 1;
    }
    ++pos;
  }
  bool fail(SourceLoc loc, std::string msg) {
    errorLoc = loc;
    errorMessage = std::move(msg);
    return false;
  }
  void push(TokenKind kind, std::string text, SourceLoc loc) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.loc = loc;
    tokens.push_back(std::move(t));
  }

  bool handleLineStart();
  bool lexString(size_t prefixLen, SourceLoc start);
  bool scanString(size_t prefixLen, SourceLoc start, std::string &value);
  bool scanFormatField(SourceLoc start, std::string &value, bool multiLine);
  bool lexNumber(SourceLoc start);

  StringRef src;
  std::vector<Token> &tokens;
  size_t pos = 0;
  size_t lineStart = 0;
  unsigned line = 1;
  int depth = 0;
  struct Indent {
    unsigned width;       // tabs to the next multiple of 8
    unsigned narrowWidth; // tabs as one column
  };
  std::vector<Indent> indents{{0, 0}};
  SourceLoc errorLoc;
  std::string errorMessage;
};

} // namespace

/// Measures the indentation of a new logical line and emits INDENT/DEDENT.
/// Returns true with `pos` past the indentation; blank and comment-only
/// lines are consumed entirely.
bool Lexer::handleLineStart() {
  while (pos < src.size()) {
    // The width with tabs to multiples of 8 and, as CPython checks, with
    // tabs as one column: indentation whose order depends on the tab size
    // is an error. A form feed restarts the count, as in CPython.
    unsigned width = 0, narrowWidth = 0;
    while (peek() == ' ' || peek() == '\t' || peek() == '\f') {
      if (peek() == '\f') {
        width = narrowWidth = 0;
      } else {
        width = peek() == '\t' ? (width / 8 + 1) * 8 : width + 1;
        ++narrowWidth;
      }
      ++pos;
    }
    char c = peek();
    if (c == '#') {
      while (pos < src.size() && peek() != '\n')
        ++pos;
      c = peek();
    }
    if (c == '\r' && peek(1) == '\n')
      c = (++pos, '\n');
    if (c == '\n') {
      advance();
      continue;
    }
    if (c == '\0' && pos >= src.size())
      return true;
    if (c == '\\' && (peek(1) == '\n' || peek(1) == '\r'))
      return true; // a continuation line keeps the current indentation
    SourceLoc loc = here();
    auto inconsistent = [&] {
      return fail(loc, "inconsistent use of tabs and spaces in indentation");
    };
    if (width > indents.back().width) {
      if (narrowWidth <= indents.back().narrowWidth)
        return inconsistent();
      indents.push_back({width, narrowWidth});
      push(TokenKind::Indent, "", loc);
    } else {
      while (width < indents.back().width) {
        indents.pop_back();
        push(TokenKind::Dedent, "", loc);
      }
      if (width != indents.back().width)
        return fail(loc, "unindent does not match any outer indentation level");
      if (narrowWidth != indents.back().narrowWidth)
        return inconsistent();
    }
    return true;
  }
  return true;
}

bool Lexer::scanString(size_t prefixLen, SourceLoc start, std::string &value) {
  StringRef prefix = src.substr(pos, prefixLen);
  bool raw = prefix.contains_insensitive("r");
  bool format = prefix.contains_insensitive("f");
  pos += prefixLen;
  char quote = peek();
  bool triple = peek(1) == quote && peek(2) == quote;
  size_t quoteLen = triple ? 3 : 1;
  pos += quoteLen;
  while (true) {
    if (pos >= src.size())
      return fail(start, triple ? "unterminated triple-quoted string literal"
                                : "unterminated string literal");
    char c = peek();
    if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
      pos += quoteLen;
      break;
    }
    if (c == '\n' && !triple)
      return fail(start, "unterminated string literal");
    if (format && c == '{') {
      if (peek(1) == '{') {
        value += "{{";
        pos += 2;
        continue;
      }
      value += c;
      advance();
      if (!scanFormatField(start, value, triple))
        return false;
      continue;
    }
    if (c == '\\' && pos + 1 < src.size()) {
      char next = peek(1);
      if (format && (next == '{' || next == '}')) {
        // A backslash does not escape braces: `rf'\{{'` is `\` then `{{`.
        value += c;
        advance();
        continue;
      }
      if (raw) {
        value += c;
        value += next;
        advance();
        advance();
        continue;
      }
      advance();
      advance();
      switch (next) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case '0':
        value += '\0';
        break;
      case '\\':
        value += '\\';
        break;
      case '\'':
        value += '\'';
        break;
      case '"':
        value += '"';
        break;
      case '\n':
        break; // line continuation inside the literal
      default:
        value += '\\';
        value += next;
      }
      continue;
    }
    value += c;
    advance();
  }
  return true;
}

/// The replacement field of an f-string, after its `{`: Python 3.12 allows
/// any expression there, including strings with the enclosing quote, so
/// nested literals are scanned as strings rather than ending the f-string.
bool Lexer::scanFormatField(SourceLoc start, std::string &value,
                            bool multiLine) {
  int depth = 0;
  bool spec = false; // after a top-level ':' comes the format spec
  while (pos < src.size()) {
    char c = peek();
    if (spec) {
      value += c;
      advance();
      if (c == '{' && !scanFormatField(start, value, multiLine))
        return false;
      if (c == '}')
        return true;
      continue;
    }
    if (c == '#' && multiLine) { // a comment in a multi-line field
      while (pos < src.size() && peek() != '\n')
        ++pos;
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string nested;
      size_t begin = pos;
      if (!scanString(0, here(), nested))
        return false;
      value += src.slice(begin, pos).str();
      continue;
    }
    value += c;
    advance();
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (c == '}' && depth-- == 0)
      return true;
    else if (c == ':' && depth == 0)
      spec = true;
  }
  return fail(start, "unterminated f-string replacement field");
}

bool Lexer::lexString(size_t prefixLen, SourceLoc start) {
  std::string value;
  bool formatted = src.substr(pos, prefixLen).contains_insensitive("f");
  if (!scanString(prefixLen, start, value))
    return false;
  push(TokenKind::String, std::move(value), start);
  tokens.back().formatted = formatted;
  return true;
}

bool Lexer::lexNumber(SourceLoc start) {
  size_t begin = pos;
  Token tok;
  tok.loc = start;
  auto stripped = [&](size_t from, size_t to) {
    std::string digits;
    for (char c : src.slice(from, to))
      if (c != '_')
        digits += c;
    return digits;
  };
  char c1 = peek(1);
  if (peek() == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'o' || c1 == 'O' ||
                        c1 == 'b' || c1 == 'B')) {
    unsigned radix = (c1 == 'x' || c1 == 'X')   ? 16
                     : (c1 == 'o' || c1 == 'O') ? 8
                                                : 2;
    pos += 2;
    while (isIdentChar(peek()))
      ++pos;
    std::string digits = stripped(begin + 2, pos);
    uint64_t value = 0;
    if (digits.empty() || StringRef(digits).getAsInteger(radix, value)) {
      // Distinguish bad digits from overflow: all digits valid -> overflow.
      bool valid = !digits.empty();
      for (char d : digits) {
        unsigned v = isDigit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
        valid &= v < radix;
      }
      if (!valid)
        return fail(start, "invalid integer literal '" +
                               src.slice(begin, pos).str() + "'");
      tok.overflow = true;
    }
    tok.kind = TokenKind::Int;
    tok.intValue = static_cast<int64_t>(value);
    tok.overflow |= value > static_cast<uint64_t>(INT64_MAX);
    tok.text = src.slice(begin, pos).str();
    tokens.push_back(std::move(tok));
    return true;
  }
  bool isFloat = false;
  while (isDigit(peek()) || peek() == '_')
    ++pos;
  if (peek() == '.' && !(peek(1) == '.' && peek(2) == '.')) {
    isFloat = true;
    ++pos;
    while (isDigit(peek()) || peek() == '_')
      ++pos;
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (isDigit(peek(1)) ||
       ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
    isFloat = true;
    pos += 2;
    while (isDigit(peek()) || peek() == '_')
      ++pos;
  }
  std::string digits = stripped(begin, pos);
  if (peek() == 'j' || peek() == 'J') {
    ++pos;
    tok.imaginary = true;
    isFloat = true;
  }
  // `1if x else 2` is valid Python (the number ends at the letter); a
  // malformed literal like `1abc` is caught by the parser as two tokens.
  tok.text = src.slice(begin, pos).str();
  if (isFloat) {
    tok.kind = TokenKind::Float;
    tok.floatValue = std::strtod(digits.c_str(), nullptr);
  } else {
    // As Python: 010 is no octal (nor decimal) integer; 00 is zero.
    if (digits.size() > 1 && digits[0] == '0' &&
        digits.find_first_not_of('0') != std::string::npos)
      return fail(start, "leading zeros in decimal integer literals are not "
                         "permitted; use an 0o prefix for octal integers");
    tok.kind = TokenKind::Int;
    uint64_t value = 0;
    if (StringRef(digits).getAsInteger(10, value) ||
        value > static_cast<uint64_t>(INT64_MAX))
      tok.overflow = true;
    tok.intValue = static_cast<int64_t>(value);
  }
  tokens.push_back(std::move(tok));
  return true;
}

bool Lexer::run(SourceLoc &errLoc, std::string &errMsg) {
  bool atLineStart = true;
  if (src.starts_with("\xEF\xBB\xBF")) // a UTF-8 byte order mark, as Python
    pos = lineStart = 3;
  auto finish = [&](bool ok) {
    errLoc = errorLoc;
    errMsg = errorMessage;
    return ok;
  };
  while (true) {
    if (atLineStart && depth == 0) {
      if (!handleLineStart())
        return finish(false);
      atLineStart = false;
    }
    if (pos >= src.size())
      break;
    char c = peek();
    SourceLoc loc = here();
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++pos;
      continue;
    }
    if (c == '#') {
      while (pos < src.size() && peek() != '\n')
        ++pos;
      continue;
    }
    if (c == '\\') {
      size_t skip = peek(1) == '\r' ? 2 : 1;
      if (peek(skip) != '\n')
        return finish(fail(loc, "unexpected character after line "
                                "continuation character"));
      pos += skip;
      advance();
      continue;
    }
    if (c == '\n') {
      advance();
      if (depth == 0) {
        if (!tokens.empty() && !tokens.back().is(TokenKind::Newline) &&
            !tokens.back().is(TokenKind::Indent) &&
            !tokens.back().is(TokenKind::Dedent))
          push(TokenKind::Newline, "", loc);
        atLineStart = true;
      }
      continue;
    }
    if (isIdentStart(c)) {
      size_t len = 0;
      while (len < 2 && peek(len) != '\0' &&
             StringRef("rRbBuUfF").contains(peek(len)))
        ++len;
      for (size_t n = 1; n <= len; ++n)
        if (peek(n) == '\'' || peek(n) == '"') {
          if (!lexString(n, loc))
            return finish(false);
          goto next;
        }
      {
        size_t begin = pos;
        while (isIdentChar(peek()))
          ++pos;
        push(TokenKind::Name, src.slice(begin, pos).str(), loc);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      if (!lexString(0, loc))
        return finish(false);
      continue;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
      if (!lexNumber(loc))
        return finish(false);
      continue;
    }
    for (const char *op : kOperators) {
      if (src.substr(pos).starts_with(op)) {
        StringRef spelling(op);
        if (spelling == "(" || spelling == "[" || spelling == "{")
          ++depth;
        else if (spelling == ")" || spelling == "]" || spelling == "}") {
          if (depth == 0)
            return finish(fail(loc, "unmatched '" + spelling.str() + "'"));
          --depth;
        }
        pos += spelling.size();
        push(TokenKind::Op, spelling.str(), loc);
        goto next;
      }
    }
    if (c == '!')
      return finish(fail(loc, "invalid syntax: '!'"));
    return finish(fail(loc, std::string("invalid character '") + c + "'"));
  next:;
  }
  SourceLoc end = here();
  if (depth > 0)
    return finish(fail(end, "unexpected end of file inside brackets"));
  if (!tokens.empty() && !tokens.back().is(TokenKind::Newline) &&
      !tokens.back().is(TokenKind::Dedent))
    push(TokenKind::Newline, "", end);
  while (indents.size() > 1) {
    indents.pop_back();
    push(TokenKind::Dedent, "", end);
  }
  push(TokenKind::EndOfFile, "", end);
  return finish(true);
}

bool kda::frontend::tokenize(StringRef source, std::vector<Token> &tokens,
                             SourceLoc &errorLoc, std::string &errorMessage) {
  tokens.clear();
  Lexer lexer(source, tokens);
  return lexer.run(errorLoc, errorMessage);
}
