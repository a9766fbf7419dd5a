//===- NonNegative.cpp - integers known not to be negative ----------------===//
#include "kda/Analysis/NonNegative.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace kda;

namespace {
constexpr unsigned kMaxDepth = 12;

std::optional<int64_t> getConstant(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

bool isNonNegative(Value v, Operation *user, unsigned depth);

/// Whether `cond` being true implies `v >= 0`.
bool impliesNonNegative(Value cond, Value v, unsigned depth) {
  if (depth > kMaxDepth)
    return false;
  if (auto a = cond.getDefiningOp<arith::AndIOp>())
    return impliesNonNegative(a.getLhs(), v, depth + 1) ||
           impliesNonNegative(a.getRhs(), v, depth + 1);
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getLhs() != v)
    return false;
  std::optional<int64_t> c = getConstant(cmp.getRhs());
  if (!c)
    return false;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::sge:
    return *c >= 0;
  case arith::CmpIPredicate::sgt:
    return *c >= -1;
  default:
    return false;
  }
}

/// Whether an scf.if around `user` tested `v >= 0` on the branch taken.
bool guardedNonNegative(Value v, Operation *user, unsigned depth) {
  for (Operation *op = user; op; op = op->getParentOp()) {
    auto ifOp = dyn_cast_or_null<scf::IfOp>(op->getParentOp());
    if (ifOp && op->getParentRegion() == &ifOp.getThenRegion() &&
        impliesNonNegative(ifOp.getCondition(), v, depth))
      return true;
  }
  return false;
}

bool isNonNegative(Value v, Operation *user, unsigned depth) {
  if (depth > kMaxDepth)
    return false;
  if (std::optional<int64_t> c = getConstant(v))
    return *c >= 0;
  if (guardedNonNegative(v, user, depth))
    return true;
  auto both = [&](Operation *op) {
    return isNonNegative(op->getOperand(0), user, depth + 1) &&
           isNonNegative(op->getOperand(1), user, depth + 1);
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg != loop.getInductionVar())
      return false;
    std::optional<int64_t> step = getConstant(loop.getStep());
    return step && *step > 0 &&
           isNonNegative(loop.getLowerBound(), user, depth + 1);
  }
  Operation *def = v.getDefiningOp();
  if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(def))
    return true;
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::RemSIOp,
          arith::MinSIOp, arith::SelectOp>(def))
    return def->getNumOperands() == 2
               ? both(def)
               : isNonNegative(def->getOperand(1), user, depth + 1) &&
                     isNonNegative(def->getOperand(2), user, depth + 1);
  if (auto max = dyn_cast<arith::MaxSIOp>(def))
    return isNonNegative(max.getLhs(), user, depth + 1) ||
           isNonNegative(max.getRhs(), user, depth + 1);
  if (auto a = dyn_cast<arith::AndIOp>(def))
    return isNonNegative(a.getLhs(), user, depth + 1) ||
           isNonNegative(a.getRhs(), user, depth + 1);
  if (isa<arith::ExtSIOp, arith::IndexCastOp>(def))
    return isNonNegative(def->getOperand(0), user, depth + 1);
  // Zero-extended narrower integers.
  if (isa<arith::ExtUIOp>(def))
    return true;
  return false;
}
} // namespace

bool kda::isKnownNonNegative(Value value, Operation *user) {
  return isNonNegative(value, user, 0);
}
