//===- ModuleLoader.h - DSL source files and imports ------------*- C++ -*-===//
//
// Finds, reads and parses the files a kernel reaches: the kernel's own file
// (given as text), imported DSL modules (kernel directory first, then the
// search paths) and the standard library. Each file is parsed once.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_FRONTEND_MODULELOADER_H
#define KDA_FRONTEND_MODULELOADER_H

#include "kda/Frontend/Frontend.h"
#include "kda/Frontend/Parser.h"

#include <memory>

namespace kda::frontend {

/// `<prefix>/share/kdatile`, where the DSL standard library is installed
/// next to the tools (`<prefix>/bin`) and libkda (`<prefix>/lib`): the
/// default of CompileRequest::stdlibDir.
std::string getInstalledStdlibDir();

struct LoadedModule {
  /// The name used in diagnostics and locations.
  std::string displayName;
  /// Absolute path (for dependency lists).
  std::string absolutePath;
  std::string source;
  unsigned lineOffset = 0;
  ParsedModule parsed;
  /// The text of a 1-based line, without its newline.
  llvm::StringRef lineText(unsigned line) const;
};

/// Formats "FILE:LINE:COL: SEVERITY: MESSAGE\n<line>\n<caret>\n".
std::string formatDiagnostic(const LoadedModule &module, SourceLoc loc,
                             llvm::StringRef severity, llvm::StringRef message);

class ModuleLoader {
public:
  explicit ModuleLoader(const CompileRequest &request);

  /// The kernel's file; null (and `diagnostics` set) on a lexical error.
  LoadedModule *mainModule(std::string &diagnostics);
  /// The module `dotted` imported from `importer` (`level` leading dots).
  /// Returns null when no file exists (`diagnostics` untouched) or when the
  /// file cannot be read or tokenized (`diagnostics` set).
  LoadedModule *findModule(llvm::StringRef dotted, unsigned level,
                           const LoadedModule *importer,
                           std::string &diagnostics);
  /// True when `dotted` names a directory (a namespace package).
  bool isPackage(llvm::StringRef dotted, unsigned level,
                 const LoadedModule *importer);
  /// `<stdlibDir>/stdlib.py` (getInstalledStdlibDir() when the request
  /// names none), or null when there is none.
  LoadedModule *stdlib(std::string &diagnostics);
  /// Where stdlib() looks.
  std::string stdlibPath() const;
  const std::vector<std::unique_ptr<LoadedModule>> &modules() const {
    return loaded;
  }

private:
  std::vector<std::string> searchDirs(unsigned level,
                                      const LoadedModule *importer) const;
  LoadedModule *load(const std::string &path, std::string &diagnostics);

  const CompileRequest &request;
  std::vector<std::unique_ptr<LoadedModule>> loaded;
  LoadedModule *main = nullptr;
  bool stdlibSearched = false;
  LoadedModule *stdlibModule = nullptr;
};

} // namespace kda::frontend

#endif // KDA_FRONTEND_MODULELOADER_H
