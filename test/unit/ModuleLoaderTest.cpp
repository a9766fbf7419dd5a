//===- ModuleLoaderTest.cpp - imports, dependencies, source fragments -----===//
#include "kda/Frontend/Frontend.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

/// A temporary directory tree of DSL files, removed at the end of a test.
class TempTree {
public:
  TempTree() {
    llvm::sys::fs::createUniqueDirectory("kda-frontend-test", root);
  }
  ~TempTree() { llvm::sys::fs::remove_directories(root); }
  std::string write(llvm::StringRef rel, llvm::StringRef text) {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, rel);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << text;
    return std::string(path);
  }
  std::string path(llvm::StringRef rel) const {
    llvm::SmallString<256> p(root);
    llvm::sys::path::append(p, rel);
    return std::string(p);
  }
  llvm::SmallString<256> root;
};

const char *kHelper = R"(import kdatile.language as kt
OFFSET = 7

@kt.jit
def shift(x):
    return x + OFFSET
)";

const char *kKernel = R"(import kdatile as kt
from helper import shift
import pkg.deep as deep
from kdatile import jit

@jit
def k(o, BLOCK: kt.constexpr):
    offs = kt.arange(0, BLOCK)
    kt.store(o + offs, deep.twice(shift(offs)))
)";

const char *kDeep = R"(from kdatile import language as kt

@kt.jit
def twice(x):
    return x * 2
)";

CompileRequest makeRequest(TempTree &tree, const std::string &kernelPath,
                           const std::string &source) {
  CompileRequest req;
  req.source = source;
  req.filename = kernelPath;
  req.kernelName = "k";
  std::string error;
  req.signature = *parseSignature("o=*i32", error);
  req.constexprs["BLOCK"] = int64_t(8);
  req.stdlibDir = tree.path("lib");
  return req;
}

TEST(ModuleLoader, ImportsAndDependencies) {
  TempTree tree;
  std::string kernel = tree.write("k.py", kKernel);
  std::string helper = tree.write("helper.py", kHelper);
  std::string deep = tree.write("inc/pkg/deep.py", kDeep);
  std::string stdlib = tree.write("lib/stdlib.py", "import kdatile as kt\n");
  CompileRequest req = makeRequest(tree, kernel, kKernel);
  req.searchPaths.push_back(tree.path("inc"));

  std::vector<std::string> files;
  std::string diags;
  ASSERT_TRUE(listDependencies(req, files, diags)) << diags;
  EXPECT_EQ(files, (std::vector<std::string>{kernel, helper, deep, stdlib}));

  mlir::MLIRContext ctx;
  auto module = emitKernel(ctx, req, diags);
  ASSERT_TRUE(module) << diags;
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module->print(os);
  EXPECT_NE(ir.find("arith.constant dense<7> : tensor<8xi32>"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("arith.muli"), std::string::npos);
}

TEST(ModuleLoader, MissingModuleIsReportedAtUse) {
  TempTree tree;
  std::string src = "import kdatile.language as kt\nimport nothere\n\n"
                    "@kt.jit\ndef k(o, BLOCK: kt.constexpr):\n"
                    "    nothere.f(o)\n";
  std::string kernel = tree.write("k.py", src);
  CompileRequest req = makeRequest(tree, kernel, src);
  mlir::MLIRContext ctx;
  std::string diags;
  EXPECT_FALSE(emitKernel(ctx, req, diags));
  EXPECT_NE(diags.find(":6:5: error: module 'nothere' is not a DSL module"),
            std::string::npos)
      << diags;
  // Modules that are not files are not dependencies.
  std::vector<std::string> files;
  diags.clear();
  ASSERT_TRUE(listDependencies(req, files, diags)) << diags;
  EXPECT_EQ(files, std::vector<std::string>{kernel});
}

TEST(ModuleLoader, LineOffsetShiftsLocationsAndDiagnostics) {
  TempTree tree;
  std::string src = "import kdatile.language as kt\n\n"
                    "@kt.jit\ndef k(o, BLOCK: kt.constexpr):\n"
                    "    x = undefined\n";
  CompileRequest req = makeRequest(tree, tree.path("big.py"), src);
  req.lineOffset = 100;
  mlir::MLIRContext ctx;
  std::string diags;
  EXPECT_FALSE(emitKernel(ctx, req, diags));
  EXPECT_NE(diags.find("big.py:105:9: error: name 'undefined' is not defined\n"
                       "    x = undefined\n"
                       "        ^\n"),
            std::string::npos)
      << diags;
}

TEST(ModuleLoader, StdlibFunctionsAreReachableThroughKt) {
  TempTree tree;
  tree.write("lib/stdlib.py", "import kdatile as kt\n\n@kt.jit\n"
                              "def triple(x):\n    return 3 * x\n");
  std::string src = "import kdatile.language as kt\n\n@kt.jit\n"
                    "def k(o, BLOCK: kt.constexpr):\n"
                    "    kt.store(o, kt.triple(kt.load(o)))\n";
  CompileRequest req = makeRequest(tree, tree.path("k.py"), src);
  mlir::MLIRContext ctx;
  std::string diags;
  auto module = emitKernel(ctx, req, diags);
  ASSERT_TRUE(module) << diags;
  src = "import kdatile.language as kt\nfrom kdatile.stdlib import triple\n"
        "@kt.jit\ndef k(o, BLOCK: kt.constexpr):\n"
        "    kt.store(o, triple(kt.load(o)))\n";
  req = makeRequest(tree, tree.path("k.py"), src);
  EXPECT_TRUE(emitKernel(ctx, req, diags)) << diags;
  src = "import kdatile.language as kt\n\n@kt.jit\n"
        "def k(o, BLOCK: kt.constexpr):\n    kt.store(o, kt.quadruple(1))\n";
  req = makeRequest(tree, tree.path("k.py"), src);
  EXPECT_FALSE(emitKernel(ctx, req, diags));
  EXPECT_NE(diags.find("error: module 'kt' has no attribute 'quadruple'"),
            std::string::npos)
      << diags;
}

} // namespace
