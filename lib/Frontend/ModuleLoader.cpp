//===- ModuleLoader.cpp - DSL source files and imports --------------------===//
#include "kda/Frontend/ModuleLoader.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <link.h>

using namespace kda::frontend;
using llvm::StringRef;

static std::string absolute(StringRef path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return std::string(abs);
}

StringRef LoadedModule::lineText(unsigned line) const {
  StringRef rest(source);
  for (unsigned i = 1; i < line && !rest.empty(); ++i) {
    size_t nl = rest.find('\n');
    rest = nl == StringRef::npos ? StringRef() : rest.drop_front(nl + 1);
  }
  return rest.take_until([](char c) { return c == '\n' || c == '\r'; });
}

std::string kda::frontend::formatDiagnostic(const LoadedModule &module,
                                            SourceLoc loc, StringRef severity,
                                            StringRef message) {
  std::string out = module.displayName + ":" +
                    std::to_string(loc.line + module.lineOffset) + ":" +
                    std::to_string(loc.col) + ": " + severity.str() + ": " +
                    message.str() + "\n";
  StringRef text = module.lineText(loc.line);
  out += text.str() + "\n";
  // Keep tabs so the caret lines up under the same terminal columns.
  for (unsigned i = 1; i < loc.col; ++i)
    out += (i - 1 < text.size() && text[i - 1] == '\t') ? '\t' : ' ';
  return out + "^\n";
}

ModuleLoader::ModuleLoader(const CompileRequest &request) : request(request) {}

static bool parseInto(LoadedModule &module, std::string &diagnostics) {
  SourceLoc loc;
  std::string message;
  if (parseModule(module.source, module.parsed, loc, message))
    return true;
  diagnostics += formatDiagnostic(module, loc, "error", message);
  return false;
}

LoadedModule *ModuleLoader::mainModule(std::string &diagnostics) {
  if (main)
    return main;
  auto module = std::make_unique<LoadedModule>();
  module->displayName = request.filename;
  module->absolutePath = absolute(request.filename);
  module->source = request.source;
  module->lineOffset = request.lineOffset;
  if (!parseInto(*module, diagnostics))
    return nullptr;
  main = module.get();
  loaded.push_back(std::move(module));
  return main;
}

LoadedModule *ModuleLoader::load(const std::string &path,
                                 std::string &diagnostics) {
  std::string abs = absolute(path);
  for (auto &m : loaded)
    if (m->absolutePath == abs)
      return m.get();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    diagnostics += "error: cannot read '" + path +
                   "': " + buffer.getError().message() + "\n";
    return nullptr;
  }
  auto module = std::make_unique<LoadedModule>();
  module->displayName = path;
  module->absolutePath = abs;
  module->source = (*buffer)->getBuffer().str();
  if (!parseInto(*module, diagnostics))
    return nullptr;
  loaded.push_back(std::move(module));
  return loaded.back().get();
}

std::vector<std::string>
ModuleLoader::searchDirs(unsigned level, const LoadedModule *importer) const {
  auto dirOf = [](StringRef file) {
    StringRef dir = llvm::sys::path::parent_path(file);
    return dir.empty() ? std::string(".") : dir.str();
  };
  std::vector<std::string> dirs;
  if (level > 0) {
    // Relative import: the importer's package, then one level up per dot.
    std::string dir =
        dirOf(importer ? importer->displayName : request.filename);
    for (unsigned i = 1; i < level; ++i)
      dir = dirOf(dir);
    dirs.push_back(dir);
    return dirs;
  }
  if (importer && importer != main)
    dirs.push_back(dirOf(importer->displayName));
  dirs.push_back(dirOf(request.filename));
  for (const std::string &p : request.searchPaths)
    dirs.push_back(p);
  return dirs;
}

static std::string relativePath(StringRef dotted) {
  std::string rel = dotted.str();
  for (char &c : rel)
    if (c == '.')
      c = '/';
  return rel;
}

LoadedModule *ModuleLoader::findModule(StringRef dotted, unsigned level,
                                       const LoadedModule *importer,
                                       std::string &diagnostics) {
  std::string rel = relativePath(dotted);
  for (const std::string &dir : searchDirs(level, importer)) {
    llvm::SmallString<256> file(dir), init(dir);
    if (rel.empty()) {
      llvm::sys::path::append(init, "__init__.py");
    } else {
      llvm::sys::path::append(file, rel + ".py");
      llvm::sys::path::append(init, rel, "__init__.py");
      if (llvm::sys::fs::is_regular_file(file))
        return load(std::string(file), diagnostics);
    }
    if (llvm::sys::fs::is_regular_file(init))
      return load(std::string(init), diagnostics);
  }
  return nullptr;
}

bool ModuleLoader::isPackage(StringRef dotted, unsigned level,
                             const LoadedModule *importer) {
  std::string rel = relativePath(dotted);
  for (const std::string &dir : searchDirs(level, importer)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, rel);
    if (llvm::sys::fs::is_directory(path))
      return true;
  }
  return false;
}

std::string kda::frontend::getInstalledStdlibDir() {
  // The object holding this code is a tool in <prefix>/bin or libkda.so in
  // <prefix>/lib, for the build tree and an installed package alike.
  // The main program's link map has an empty name (and dladdr would report
  // its argv[0]): ask the kernel for the executable's path then.
  Dl_info info;
  struct link_map *map = nullptr;
  if (!dladdr1(reinterpret_cast<void *>(&getInstalledStdlibDir), &info,
               reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP) ||
      !map)
    return "";
  llvm::SmallString<256> dir(
      map->l_name && *map->l_name
          ? std::string(map->l_name)
          : llvm::sys::fs::getMainExecutable(nullptr, nullptr));
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_filename(dir);
  llvm::sys::path::remove_filename(dir);
  llvm::sys::path::append(dir, "share", "kdatile");
  return std::string(dir);
}

std::string ModuleLoader::stdlibPath() const {
  llvm::SmallString<256> path(
      request.stdlibDir.empty() ? getInstalledStdlibDir() : request.stdlibDir);
  llvm::sys::path::append(path, "stdlib.py");
  return std::string(path);
}

LoadedModule *ModuleLoader::stdlib(std::string &diagnostics) {
  if (stdlibSearched)
    return stdlibModule;
  stdlibSearched = true;
  std::string path = stdlibPath();
  if (!llvm::sys::fs::is_regular_file(path))
    return nullptr;
  stdlibModule = load(path, diagnostics);
  return stdlibModule;
}
