//===- TensorMapTest.cpp - TMA tensor-map recipes -------------------------===//
//
// Recipes as the compiler writes them (appendRecipe), evaluated as the
// runtime does before a launch, against TMA's limits: 16-byte aligned base
// and strides, strides below 2^40 bytes, dimensions of 1 to 2^32, blocks of
// 1 to 256 per dimension whose innermost is whole 16-byte units.
//
//===----------------------------------------------------------------------===//
#include "kda/Runtime/TensorMap.h"

#include <gtest/gtest.h>

using namespace kda::tma;

namespace {
std::vector<int64_t> arg(int64_t i) { return {kPushArgument, i}; }
std::vector<int64_t> constant(int64_t v) { return {kPushConstant, v}; }

/// [slots, rows * H, K] over arguments (base, slots, H, stride) = 0..3:
/// shape [a1, 32 * a2, 128], strides [a3, 128].
std::vector<int64_t> poolRecipe() {
  std::vector<int64_t> rows = {kPushConstant, 32, kPushArgument, 2, kMul};
  std::vector<int64_t> out;
  appendRecipe(out, 4, 0, /*swizzleBytes=*/0, {1, 32, 128},
               {arg(1), rows, constant(128)}, {arg(3), constant(128)});
  return out;
}
} // namespace

TEST(TensorMap, Evaluates) {
  std::vector<int64_t> recipe = poolRecipe();
  const int64_t args[] = {0x7f0000001000, 5, 24, 24 * 32 * 128};
  TensorMapRequest r;
  int64_t base = -1;
  std::string error;
  ASSERT_TRUE(
      evaluateRecipe(recipe.data(), recipe.size(), args, 4, r, base, error))
      << error;
  EXPECT_EQ(base, 0);
  EXPECT_EQ(r.base, uint64_t(0x7f0000001000));
  EXPECT_EQ(r.elementBytes, 4);
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.shape[0], 5);
  EXPECT_EQ(r.shape[1], 768);
  EXPECT_EQ(r.shape[2], 128);
  EXPECT_EQ(r.strides[0], 24 * 32 * 128);
  EXPECT_EQ(r.strides[1], 128);
  EXPECT_EQ(r.strides[2], 1);
  EXPECT_EQ(r.block[1], 32);
  EXPECT_EQ(r.swizzleBytes, 0);
}

TEST(TensorMap, Swizzled) {
  // A [64, 64] bf16 box of 128-byte rows, 128-byte swizzle: [M, K] at
  // arguments (base, M, K) = 0..2, row stride K.
  std::vector<int64_t> recipe;
  appendRecipe(recipe, 2, 0, 128, {64, 64}, {arg(1), arg(2)}, {arg(2)});
  const int64_t args[] = {0x10000, 4096, 4096};
  TensorMapRequest r;
  int64_t base;
  std::string error;
  ASSERT_TRUE(
      evaluateRecipe(recipe.data(), recipe.size(), args, 3, r, base, error))
      << error;
  EXPECT_EQ(r.swizzleBytes, 128);
  EXPECT_EQ(r.block[1], 64);
  // A swizzled box row is the swizzle's bytes exactly.
  std::vector<int64_t> narrow;
  appendRecipe(narrow, 2, 0, 128, {64, 32}, {arg(1), arg(2)}, {arg(2)});
  EXPECT_FALSE(
      evaluateRecipe(narrow.data(), narrow.size(), args, 3, r, base, error));
}

TEST(TensorMap, ChecksValues) {
  std::vector<int64_t> recipe = poolRecipe();
  TensorMapRequest r;
  int64_t base;
  std::string error;
  auto fails = [&](std::vector<int64_t> args, const char *what) {
    error.clear();
    EXPECT_FALSE(evaluateRecipe(recipe.data(), recipe.size(), args.data(),
                                args.size(), r, base, error));
    EXPECT_NE(error.find(what), std::string::npos) << error;
  };
  fails({0x1008, 5, 24, 4096}, "not a multiple of 16 bytes");
  fails({0x1000, 0, 24, 4096}, "dimension 0 of the tensor is 0 elements");
  fails({0x1000, 5, 24, 4097}, "stride 0 of the tensor is 4097 elements");
  fails({0x1000, 5, 24, int64_t(1) << 38}, "below 2^40");
  fails({0x1000, 5, int64_t(1) << 62, 4096}, "overflows 64 bits");
  fails({0x1000, 5, 24}, "names argument 3 of 3");
}

TEST(TensorMap, RejectsMalformedRecipes) {
  std::vector<int64_t> good = poolRecipe();
  const int64_t args[] = {0x1000, 5, 24, 4096};
  TensorMapRequest r;
  int64_t base;
  std::string error;
  for (size_t cut = 0; cut < good.size(); ++cut)
    EXPECT_FALSE(evaluateRecipe(good.data(), cut, args, 4, r, base, error))
        << "a recipe cut at " << cut;
  std::vector<int64_t> extra = good;
  extra.push_back(0);
  EXPECT_FALSE(
      evaluateRecipe(extra.data(), extra.size(), args, 4, r, base, error));
  std::vector<int64_t> badOp;
  appendRecipe(badOp, 4, 0, 0, {16}, {{kPushConstant, 1, 9}}, {});
  EXPECT_FALSE(
      evaluateRecipe(badOp.data(), badOp.size(), args, 4, r, base, error));
  // A swizzle TMA does not have.
  badOp.clear();
  appendRecipe(badOp, 4, 0, 16, {16}, {constant(64)}, {});
  EXPECT_FALSE(
      evaluateRecipe(badOp.data(), badOp.size(), args, 4, r, base, error));
}

TEST(TensorMap, Blocks) {
  const int64_t ok[] = {1, 256, 4};
  EXPECT_TRUE(isBlockSupported(ok, 3, 4));  // 16 bytes innermost
  EXPECT_FALSE(isBlockSupported(ok, 3, 2)); // 8 bytes
  const int64_t wide[] = {512, 8};
  EXPECT_FALSE(isBlockSupported(wide, 2, 2));
  const int64_t six[] = {1, 1, 1, 1, 1, 16};
  EXPECT_FALSE(isBlockSupported(six, 6, 1));
  EXPECT_FALSE(isBlockSupported(six, 0, 1));
  const int64_t rows[] = {64, 64};
  EXPECT_TRUE(isBlockSupported(rows, 2, 2, 128)); // 128-byte rows
  EXPECT_FALSE(isBlockSupported(rows, 2, 2, 64));
  EXPECT_TRUE(isBlockSupported(rows, 2, 1, 64));
  EXPECT_FALSE(isBlockSupported(rows, 2, 2, 48)); // no such swizzle
}
