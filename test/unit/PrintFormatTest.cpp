//===- PrintFormatTest.cpp - tile.print's line format ---------------------===//
#include "kda/Conversion/PrintToLLVM.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

TEST(PrintFormat, Lines) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(kda::getPrintFormat("x", 2, std::nullopt, b.getF32Type(), false),
            "pid (%d, %d, %d) idx (%d, %d) x: %.9g\n");
  EXPECT_EQ(kda::getPrintFormat("n", 0, 1u, b.getI64Type(), false),
            "pid (%d, %d, %d) n (operand 1): %lld\n");
  EXPECT_EQ(kda::getPrintFormat("50%", 1, std::nullopt, b.getF64Type(), true),
            "pid (%d, %d, %d) idx (%d) 50%%: 0x%llx\n");
}

TEST(PrintFormat, Conversions) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(kda::getPrintConversion(b.getBF16Type(), false), "%.9g");
  EXPECT_EQ(kda::getPrintConversion(b.getF64Type(), false), "%.17g");
  EXPECT_EQ(kda::getPrintConversion(b.getI1Type(), false), "%d");
  EXPECT_EQ(kda::getPrintConversion(b.getI16Type(), true), "0x%x");
  EXPECT_EQ(kda::getPrintConversion(b.getF32Type(), true), "0x%x");
}

} // namespace
