//===- BuiltinTable.cpp - the kt.* builtins, their parameters and docs ---===//
//
// Parameter names follow Triton; trailing optional ones that only tune code
// generation there (cache_modifier, ...) are accepted and ignored, as their
// entries say. The entries are in BuiltinEntries.def; docs/builtins.md is
// the table printed by `kda-compile --builtins=markdown`.
//
//===----------------------------------------------------------------------===//
#include "kda/Frontend/BuiltinTable.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace kda::frontend;

static const BuiltinInfo kBuiltins[] = {
#include "BuiltinEntries.def"
};

llvm::ArrayRef<BuiltinInfo> kda::frontend::builtinTable() { return kBuiltins; }

const BuiltinInfo *kda::frontend::findBuiltin(llvm::StringRef name) {
  for (const BuiltinInfo &info : kBuiltins)
    if (name == info.name)
      return &info;
  return nullptr;
}

unsigned BuiltinInfo::numRequired() const {
  unsigned n = 0;
  while (n < params.size() && !params[n].defaultValue)
    ++n;
  return n;
}

std::string BuiltinInfo::spelling() const {
  llvm::StringRef n(name);
  switch (kind) {
  case BuiltinKind::Function:
    return ("kt." + n).str();
  case BuiltinKind::Python:
    return n.drop_front(3).str();
  case BuiltinKind::Method:
    if (n.consume_front("smem."))
      return ("buffer." + n).str();
    return ("x." + n).str();
  }
  return n.str();
}

std::string BuiltinInfo::signature() const {
  std::string text = spelling() + "(";
  bool first = true;
  // A method's first parameter is its receiver.
  size_t begin = kind == BuiltinKind::Method ? 1 : 0;
  for (size_t i = begin; i < params.size(); ++i) {
    if (!first)
      text += ", ";
    first = false;
    text += params[i].name;
    if (params[i].defaultValue)
      text += std::string("=") + params[i].defaultValue;
    // Variadic arguments follow the required ones (Python's `*args`).
    if (variadic && i + 1 == numRequired())
      text += ", *args";
  }
  if (variadic && numRequired() == 0)
    text += first ? "*args" : ", *args";
  return text + ")";
}

static llvm::StringRef kindName(BuiltinKind kind) {
  switch (kind) {
  case BuiltinKind::Function:
    return "function";
  case BuiltinKind::Method:
    return "method";
  case BuiltinKind::Python:
    return "python";
  }
  return "";
}

std::string kda::frontend::builtinReferenceMarkdown() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "# Builtin reference\n\n"
        "Generated from the frontend's builtin table "
        "(`lib/Frontend/BuiltinEntries.def`) by `kda-compile --builtins`; "
        "`help(kt.NAME)` in Python shows the same text. Keyword names follow "
        "Triton's. The standard library (`kt.softplus`, `kt.l2norm`, ...) is "
        "DSL source, documented in `python/kdatile/stdlib.py`.\n";
  auto section = [&](BuiltinKind kind, llvm::StringRef title) {
    os << "\n## " << title << "\n";
    for (const BuiltinInfo &info : kBuiltins) {
      if (info.kind != kind)
        continue;
      os << "\n### `" << info.spelling() << "`\n\n```python\n"
         << info.signature() << "\n```\n\n"
         << info.summary << "\n";
      if (*info.semantics)
        os << "\n" << info.semantics << "\n";
      if (info.tileMethod)
        os << "\nAlso a tile method: `x." << info.name << "(...)` is `"
           << info.spelling() << "(x, ...)`.\n";
      if (*info.example)
        os << "\n```python\n" << info.example << "\n```\n";
      if (*info.targets)
        os << "\nTargets: " << info.targets << "\n";
    }
  };
  section(BuiltinKind::Function, "Functions (`kt.*`)");
  section(BuiltinKind::Method, "Methods");
  section(BuiltinKind::Python, "Python builtins on compile-time values");
  return text;
}

std::string kda::frontend::builtinTableJSON() {
  llvm::json::Array array;
  for (const BuiltinInfo &info : kBuiltins) {
    llvm::json::Array params;
    for (const BuiltinParam &p : info.params) {
      llvm::json::Object param{{"name", p.name}};
      param["default"] = p.defaultValue ? llvm::json::Value(p.defaultValue)
                                        : llvm::json::Value(nullptr);
      params.push_back(std::move(param));
    }
    array.push_back(llvm::json::Object{
        {"name", info.name},
        {"spelling", info.spelling()},
        {"kind", kindName(info.kind)},
        {"signature", info.signature()},
        {"params", std::move(params)},
        {"variadic", info.variadic},
        {"tile_method", info.tileMethod},
        {"summary", info.summary},
        {"semantics", info.semantics},
        {"example", info.example},
        {"targets", info.targets},
    });
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(array));
  return text;
}
