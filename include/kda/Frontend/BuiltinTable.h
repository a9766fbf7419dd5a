//===- BuiltinTable.h - the kt.* builtins, their parameters and docs -*- C++
//-*-===//
//
// The one table of the DSL's builtins: the frontend binds calls by it, the
// typo suggestions list its names, and the reference (docs/builtins.md,
// `kda-compile --builtins`, Python's help(kt.X)) is generated from it.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_BUILTINTABLE_H
#define KDA_FRONTEND_BUILTINTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kda::frontend {

struct BuiltinParam {
  const char *name;
  /// The default as Python spells it ("None", "0", "False"); nullptr for a
  /// required parameter. Required parameters come first.
  const char *defaultValue = nullptr;
};

/// How a builtin is reached from a kernel.
enum class BuiltinKind {
  Function, ///< kt.name(...)
  Method,   ///< value.name(...) (tiles), or buffer.name(...) ("smem." names)
  Python,   ///< a Python builtin on compile-time values ("py." names)
};

struct BuiltinInfo {
  /// "load"; "smem.index" for a shared-buffer method; "py.range" for the
  /// Python builtin range().
  const char *name;
  BuiltinKind kind;
  std::vector<BuiltinParam> params;
  /// Takes any number of positional arguments after `params` (kt.static_print,
  /// kt.device_print, min, max).
  bool variadic = false;
  /// Also callable as a method of a tile: `x.sum(0)` is `kt.sum(x, 0)`.
  bool tileMethod = false;
  /// One line: what it computes.
  const char *summary = "";
  /// Semantics in Markdown: shapes, dtypes, broadcasting, errors.
  const char *semantics = "";
  /// A few lines of DSL showing a typical call.
  const char *example = "";
  /// Per-target notes (CPU, sm_90a, gfx950, gfx1250); "" when every target
  /// behaves alike.
  const char *targets = "";

  unsigned numRequired() const;
  /// The name a kernel spells: "kt.load", "buffer.index", "range", "x.to".
  std::string spelling() const;
  /// "kt.load(pointer, mask=None, other=None, ...)".
  std::string signature() const;
};

llvm::ArrayRef<BuiltinInfo> builtinTable();
const BuiltinInfo *findBuiltin(llvm::StringRef name);

/// The reference of every builtin, as Markdown (docs/builtins.md).
std::string builtinReferenceMarkdown();
/// The table as JSON: [{"name", "spelling", "kind", "signature", "params":
/// [{"name", "default"}], "summary", "semantics", "example", "targets"}].
std::string builtinTableJSON();

} // namespace kda::frontend

#endif // KDA_FRONTEND_BUILTINTABLE_H
