//===- BuiltinTableTest.cpp - the builtin table and its reference ---------===//
#include "kda/Frontend/BuiltinTable.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

TEST(BuiltinTable, Signatures) {
  EXPECT_EQ(findBuiltin("load")->signature(),
            "kt.load(pointer, mask=None, other=None, cache_modifier=None, "
            "eviction_policy=None, volatile=None)");
  EXPECT_EQ(findBuiltin("device_print")->signature(),
            "kt.device_print(prefix, *args, hex=False)");
  EXPECT_EQ(findBuiltin("static_print")->signature(), "kt.static_print(*args)");
  EXPECT_EQ(findBuiltin("to")->signature(),
            "x.to(dtype, fp_downcast_rounding=None, bitcast=False)");
  EXPECT_EQ(findBuiltin("smem.index")->spelling(), "buffer.index");
  EXPECT_EQ(findBuiltin("py.range")->spelling(), "range");
  EXPECT_EQ(findBuiltin("nonexistent"), nullptr);
}

TEST(BuiltinTable, EntriesAreWellFormed) {
  llvm::StringSet<> names;
  for (const BuiltinInfo &info : builtinTable()) {
    EXPECT_TRUE(names.insert(info.name).second) << "twice: " << info.name;
    // Required parameters first: binding by position relies on it.
    bool optionalSeen = false;
    for (const BuiltinParam &p : info.params) {
      EXPECT_FALSE(optionalSeen && !p.defaultValue)
          << info.name << ": required '" << p.name << "' after an optional one";
      optionalSeen |= p.defaultValue != nullptr;
    }
    llvm::StringRef summary(info.summary);
    EXPECT_TRUE(summary.ends_with(".")) << info.name;
    EXPECT_FALSE(llvm::StringRef(info.example).empty()) << info.name;
    EXPECT_FALSE(info.tileMethod && info.kind != BuiltinKind::Function)
        << info.name;
  }
}

TEST(BuiltinTable, ReferenceAndJSONCoverEveryEntry) {
  std::string markdown = builtinReferenceMarkdown();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(builtinTableJSON());
  ASSERT_TRUE(bool(json));
  const llvm::json::Array *array = json->getAsArray();
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->size(), builtinTable().size());
  for (const BuiltinInfo &info : builtinTable())
    EXPECT_NE(markdown.find("### `" + info.spelling() + "`"), std::string::npos)
        << info.name;
}

} // namespace
