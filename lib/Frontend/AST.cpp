//===- AST.cpp - syntax tree helpers --------------------------------------===//
#include "kda/Frontend/AST.h"

using namespace kda::frontend;

const char *kda::frontend::binOpSpelling(BinOp op) {
  switch (op) {
  case BinOp::Add:
    return "+";
  case BinOp::Sub:
    return "-";
  case BinOp::Mul:
    return "*";
  case BinOp::Div:
    return "/";
  case BinOp::FloorDiv:
    return "//";
  case BinOp::Mod:
    return "%";
  case BinOp::Pow:
    return "**";
  case BinOp::MatMul:
    return "@";
  case BinOp::BitAnd:
    return "&";
  case BinOp::BitOr:
    return "|";
  case BinOp::BitXor:
    return "^";
  case BinOp::Shl:
    return "<<";
  case BinOp::Shr:
    return ">>";
  case BinOp::Lt:
    return "<";
  case BinOp::Le:
    return "<=";
  case BinOp::Gt:
    return ">";
  case BinOp::Ge:
    return ">=";
  case BinOp::Eq:
    return "==";
  case BinOp::Ne:
    return "!=";
  case BinOp::Is:
    return "is";
  case BinOp::IsNot:
    return "is not";
  }
  return "?";
}

const char *kda::frontend::unaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}
