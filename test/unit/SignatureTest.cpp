//===- SignatureTest.cpp - signature, constexpr and dtype text forms ------===//
#include "kda/Frontend/Frontend.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

TEST(Signature, Parses) {
  std::string error;
  auto sig = parseSignature("x=*f32, y=*bf16:16, n=i32:16, eps=f32", error);
  ASSERT_TRUE(sig) << error;
  ASSERT_EQ(sig->params.size(), 4u);
  EXPECT_TRUE(sig->params[0].isPointer);
  EXPECT_EQ(sig->params[0].type, DType::F32);
  EXPECT_EQ(sig->params[1].type, DType::BF16);
  EXPECT_EQ(sig->params[1].divisibility, 16u);
  EXPECT_FALSE(sig->params[2].isPointer);
  EXPECT_EQ(sig->params[2].divisibility, 16u);
  EXPECT_EQ(sig->params[3].divisibility, 1u);
  EXPECT_EQ(sig->find("n"), &sig->params[2]);
  EXPECT_EQ(sig->find("zz"), nullptr);
  EXPECT_TRUE(parseSignature("", error)->params.empty());
}

TEST(Signature, Errors) {
  std::string error;
  EXPECT_FALSE(parseSignature("x=*f33", error));
  EXPECT_EQ(error, "unknown type 'f33' for parameter 'x'");
  EXPECT_FALSE(parseSignature("x", error));
  EXPECT_FALSE(parseSignature("x=i32,x=i32", error));
  EXPECT_EQ(error, "parameter 'x' appears twice in the signature");
  EXPECT_FALSE(parseSignature("x=i32:0", error));
  EXPECT_FALSE(parseSignature("x=i32,,y=i32", error));
}

TEST(Constexpr, Parses) {
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("128")), 128);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("-3")), -3);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("0x10")), 16);
  EXPECT_DOUBLE_EQ(std::get<double>(*parseConstexpr("1e-5")), 1e-5);
  EXPECT_EQ(std::get<bool>(*parseConstexpr("True")), true);
  EXPECT_EQ(std::get<bool>(*parseConstexpr("False")), false);
  EXPECT_EQ(std::get<DType>(*parseConstexpr("bf16")), DType::BF16);
  EXPECT_FALSE(parseConstexpr("abc"));
  EXPECT_FALSE(parseConstexpr(""));
}

TEST(Constexpr, IntegersPast64BitsAreErrorsNotFloats) {
  EXPECT_FALSE(parseConstexpr("99999999999999999999"));
  EXPECT_FALSE(parseConstexpr("-99999999999999999999"));
  EXPECT_FALSE(parseConstexpr("0x1ffffffffffffffff"));
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("9223372036854775807")),
            INT64_MAX);
  EXPECT_DOUBLE_EQ(std::get<double>(*parseConstexpr("1e20")), 1e20);
}

TEST(Constexpr, PythonIntegerSpellings) {
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("+5")), 5);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("+0x10")), 16);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("-0")), 0);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("1_000")), 1000);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("-0x10")), -16);
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("0o17")), 15);
  EXPECT_FALSE(parseConstexpr("+-5"));
  EXPECT_FALSE(parseConstexpr("010")); // Python: leading zeros are an error
  EXPECT_EQ(std::get<int64_t>(*parseConstexpr("00")), 0);
  EXPECT_DOUBLE_EQ(std::get<double>(*parseConstexpr("+1.5")), 1.5);
}

TEST(DType, NamesAndTypes) {
  EXPECT_EQ(parseDType("float32"), DType::F32);
  EXPECT_EQ(parseDType("fp16"), DType::F16);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(parseDType("int64"), DType::I64);
  EXPECT_EQ(parseDType("i1"), DType::I1);
  EXPECT_FALSE(parseDType("float8"));
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
  mlir::MLIRContext ctx;
  EXPECT_TRUE(dtypeToMLIR(ctx, DType::BF16).isBF16());
  EXPECT_TRUE(dtypeToMLIR(ctx, DType::I8).isInteger(8));
}

} // namespace
