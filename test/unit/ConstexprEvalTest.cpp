//===- ConstexprEvalTest.cpp - compile-time Python values -----------------===//
#include "kda/Frontend/ConstexprEval.h"

#include <gtest/gtest.h>

using namespace kda::frontend;

namespace {

Constant I(int64_t v) { return Constant::ofInt(v); }
Constant F(double v) { return Constant::ofFloat(v); }
Constant B(bool v) { return Constant::ofBool(v); }

std::string eval(BinOp op, Constant a, Constant b) {
  std::string error;
  std::optional<Constant> r = evalBinary(op, a, b, error);
  return r ? r->str_() : "error: " + error;
}

TEST(ConstexprEval, IntegerArithmeticFollowsPython) {
  EXPECT_EQ(eval(BinOp::Add, I(2), I(3)), "5");
  EXPECT_EQ(eval(BinOp::FloorDiv, I(-7), I(2)), "-4");
  EXPECT_EQ(eval(BinOp::Mod, I(-7), I(2)), "1");
  EXPECT_EQ(eval(BinOp::Mod, I(7), I(-2)), "-1");
  EXPECT_EQ(eval(BinOp::Div, I(7), I(2)), "3.5");
  EXPECT_EQ(eval(BinOp::Pow, I(2), I(10)), "1024");
  EXPECT_EQ(eval(BinOp::Pow, I(2), I(-1)), "0.5");
  EXPECT_EQ(eval(BinOp::Shl, I(1), I(4)), "16");
  EXPECT_EQ(eval(BinOp::BitAnd, I(6), I(3)), "2");
  EXPECT_EQ(eval(BinOp::Add, B(true), I(1)), "2");
  EXPECT_EQ(eval(BinOp::BitOr, B(true), B(false)), "True");
}

TEST(ConstexprEval, FloatArithmetic) {
  EXPECT_EQ(eval(BinOp::Mul, F(1.5), I(2)), "3.0");
  EXPECT_EQ(eval(BinOp::FloorDiv, F(7.5), F(2)), "3.0");
  EXPECT_EQ(eval(BinOp::Mod, F(-1), F(3)), "2.0");
}

TEST(ConstexprEval, Errors) {
  EXPECT_EQ(eval(BinOp::FloorDiv, I(1), I(0)),
            "error: integer division by zero");
  EXPECT_EQ(eval(BinOp::Div, I(1), I(0)), "error: division by zero");
  EXPECT_EQ(eval(BinOp::Mul, I(INT64_MAX), I(2)),
            "error: integer overflow in compile-time expression");
  EXPECT_EQ(eval(BinOp::Add, I(1), Constant::ofStr("a")),
            "error: unsupported operand types for +: 'int' and 'str'");
  EXPECT_EQ(eval(BinOp::BitAnd, F(1), I(1)),
            "error: unsupported operand types for &: 'float'");
}

TEST(ConstexprEval, Comparisons) {
  EXPECT_EQ(eval(BinOp::Lt, I(1), F(1.5)), "True");
  EXPECT_EQ(eval(BinOp::Eq, I(1), F(1.0)), "True");
  EXPECT_EQ(eval(BinOp::Eq, Constant::ofDType(DType::F32),
                 Constant::ofDType(DType::BF16)),
            "False");
  EXPECT_EQ(eval(BinOp::Is, Constant::none(), Constant::none()), "True");
  EXPECT_EQ(eval(BinOp::IsNot, I(0), Constant::none()), "True");
  EXPECT_EQ(eval(BinOp::Lt, Constant::ofTuple({I(1), I(2)}),
                 Constant::ofTuple({I(1), I(3)})),
            "True");
}

TEST(ConstexprEval, TuplesAndUnary) {
  EXPECT_EQ(
      eval(BinOp::Add, Constant::ofTuple({I(1)}), Constant::ofTuple({I(2)})),
      "(1, 2)");
  EXPECT_EQ(eval(BinOp::Mul, Constant::ofTuple({I(1)}), I(3)), "(1, 1, 1)");
  std::string error;
  EXPECT_EQ(evalUnary(UnaryOp::Neg, I(3), error)->str_(), "-3");
  EXPECT_EQ(evalUnary(UnaryOp::Not, I(0), error)->str_(), "True");
  EXPECT_EQ(evalUnary(UnaryOp::Invert, I(0), error)->str_(), "-1");
  EXPECT_FALSE(evalUnary(UnaryOp::Invert, F(1), error));
  EXPECT_TRUE(isTruthy(Constant::ofStr("x")));
  EXPECT_FALSE(isTruthy(Constant::ofTuple({})));
}

} // namespace
