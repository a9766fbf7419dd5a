//===- Emitter.cpp - statements and control flow --------------------------===//
//
// Compile-time conditions and static_range loops are evaluated and unrolled
// in place. Runtime `if`/`for`/`while` become scf ops whose results are the
// variables (re)assigned inside them, found syntactically (loops) or by
// comparing the scopes after each branch (if).
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

static void collectTargetNames(const Expr &target,
                               std::vector<std::string> &names) {
  if (target.kind == ExprKind::Name) {
    if (std::find(names.begin(), names.end(), target.name) == names.end())
      names.push_back(target.name);
    return;
  }
  for (const ExprPtr &e : target.operands)
    collectTargetNames(*e, names);
}

/// Names one statement assigns, its nested blocks included.
static void collectTargetNamesOf(const Stmt &s,
                                 std::vector<std::string> &names) {
  for (const ExprPtr &t : s.targets)
    collectTargetNames(*t, names);
  collectAssignedNames(s.body, names);
  collectAssignedNames(s.orelse, names);
}

void kda::frontend::detail::collectAssignedNames(
    const std::vector<StmtPtr> &body, std::vector<std::string> &names) {
  for (const StmtPtr &s : body) {
    for (const ExprPtr &t : s->targets)
      if (s->kind != StmtKind::AnnAssign || s->value)
        collectTargetNames(*t, names);
    collectAssignedNames(s->body, names);
    collectAssignedNames(s->orelse, names);
  }
}

/// Whether two bindings are the same value (so a branch left it unchanged).
static bool sameValue(const DValue &a, const DValue &b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case DValue::Kind::Const:
    return a.constant.kind == b.constant.kind && a.constant == b.constant;
  case DValue::Kind::Runtime:
    return a.value == b.value;
  case DValue::Kind::Tuple:
    if (a.elements.size() != b.elements.size())
      return false;
    for (size_t i = 0; i < a.elements.size(); ++i)
      if (!sameValue(a.elements[i], b.elements[i]))
        return false;
    return true;
  default:
    return a.name == b.name && a.module == b.module && a.attr == b.attr &&
           a.function == b.function && a.value == b.value;
  }
}

LogicalResult Emitter::emitBody(const std::vector<StmtPtr> &body) {
  bool anyFailed = false;
  for (const StmtPtr &stmt : body) {
    if (stopped)
      return failure();
    if (frame->returned)
      break; // unreachable after a return
    auto snapshot = frame->locals;
    if (succeeded(emitStmt(*stmt)))
      continue;
    // Recover at the next statement: what the failed one assigns is
    // poisoned, so its uses fail without further messages. A dry run
    // stops at its first failure (it only needs to know that it failed).
    anyFailed = true;
    if (dryRunDepth > 0 || errorCount >= kMaxErrors || stopped)
      return failure();
    frame->locals = std::move(snapshot);
    std::vector<std::string> assigned;
    collectTargetNamesOf(*stmt, assigned);
    DValue poison;
    poison.kind = DValue::Kind::Poison;
    for (const std::string &name : assigned)
      frame->locals[name] = poison;
  }
  return failure(anyFailed || stopped);
}

LogicalResult Emitter::assign(const Expr &target, DValue value,
                              SourceLoc valueLoc) {
  if (target.kind == ExprKind::Name) {
    frame->locals[target.name] = std::move(value);
    return success();
  }
  if (value.kind != DValue::Kind::Tuple)
    return fail(valueLoc, "cannot unpack " + describe(value) + " into " +
                              std::to_string(target.operands.size()) +
                              " names");
  if (value.elements.size() != target.operands.size())
    return fail(valueLoc,
                "cannot unpack a tuple of " +
                    std::to_string(value.elements.size()) + " values into " +
                    std::to_string(target.operands.size()) + " names");
  for (size_t i = 0; i < value.elements.size(); ++i)
    if (failed(assign(*target.operands[i], value.elements[i], valueLoc)))
      return failure();
  return success();
}

LogicalResult Emitter::emitStmt(const Stmt &stmt) {
  switch (stmt.kind) {
  case StmtKind::Pass:
    return success();
  case StmtKind::Expr:
    if (stmt.value->kind == ExprKind::Str)
      return success(); // docstring
    return success(emitExpr(*stmt.value).has_value());
  case StmtKind::Assign: {
    std::optional<DValue> value = emitExpr(*stmt.value);
    if (!value)
      return failure();
    for (const ExprPtr &target : stmt.targets)
      if (failed(assign(*target, *value, stmt.value->loc)))
        return failure();
    return success();
  }
  case StmtKind::AnnAssign: {
    if (!stmt.value)
      return success();
    std::optional<DValue> value = emitExpr(*stmt.value);
    if (!value)
      return failure();
    const Expr *ann = stmt.annotation.get();
    if ((ann->kind == ExprKind::Name || ann->kind == ExprKind::Attribute) &&
        ann->name == "constexpr" && !asConstant(*value))
      return fail(stmt.value->loc,
                  "value of constexpr variable '" + stmt.targets[0]->name +
                      "' must be a compile-time constant, got " +
                      describe(*value));
    return assign(*stmt.targets[0], *value, stmt.value->loc);
  }
  case StmtKind::AugAssign: {
    const Expr &target = *stmt.targets[0];
    std::optional<DValue> current = lookupName(target.name, target.loc);
    if (!current)
      return failure();
    std::optional<DValue> rhs = emitExpr(*stmt.value);
    if (!rhs)
      return failure();
    std::optional<DValue> result =
        emitBinary(stmt.binOp, *current, *rhs, stmt.loc);
    if (!result)
      return failure();
    return assign(target, *result, stmt.loc);
  }
  case StmtKind::If:
    return emitIf(stmt);
  case StmtKind::For:
    return emitFor(stmt);
  case StmtKind::While:
    return emitWhile(stmt);
  case StmtKind::Return: {
    if (frame->runtimeDepth > 0)
      return fail(stmt.loc, "'return' inside runtime control flow is not "
                            "supported; return at the end of the function");
    DValue value = DValue::of(Constant::none());
    if (stmt.value) {
      std::optional<DValue> v = emitExpr(*stmt.value);
      if (!v)
        return failure();
      value = *v;
    }
    frame->returnValue = value;
    frame->returned = true;
    return success();
  }
  }
  return success();
}

LogicalResult Emitter::emitIf(const Stmt &stmt) {
  std::optional<DValue> cond = emitExpr(*stmt.value);
  if (!cond)
    return failure();
  if (std::optional<Constant> c = asConstant(*cond))
    return emitBody(isTruthy(*c) ? stmt.body : stmt.orelse);
  if (!cond->isRuntime())
    return fail(stmt.value->loc, "condition must be a scalar or a "
                                 "compile-time constant, got " +
                                     describe(*cond));
  if (isa<RankedTensorType>(cond->value.getType()))
    return fail(stmt.value->loc, "condition of 'if' must be a scalar, got a " +
                                     describe(*cond) +
                                     "; use kt.where for tiles");
  std::optional<Value> i1 =
      convert(cond->value, builder.getI1Type(), stmt.value->loc);
  if (!i1)
    return failure();
  return emitRuntimeIf(stmt, *i1);
}

LogicalResult Emitter::emitRuntimeIf(const Stmt &stmt, Value cond) {
  Location l = loc(stmt.loc);
  auto before = frame->locals;
  auto ifOp = scf::IfOp::create(builder, l, TypeRange{}, cond,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  RuntimeRegion inBranches(*frame);
  builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  if (failed(emitBody(stmt.body)))
    return failure();
  auto thenLocals = frame->locals;
  frame->locals = before;
  builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  if (failed(emitBody(stmt.orelse)))
    return failure();
  auto elseLocals = frame->locals;
  inBranches.exit();

  // Variables to merge: changed in a branch and live before, or defined in
  // both branches.
  std::vector<std::string> names;
  SmallVector<Value> thenYields, elseYields;
  SmallVector<Type> types;
  for (auto &[name, thenValue] : thenLocals) {
    auto elseIt = elseLocals.find(name);
    if (elseIt == elseLocals.end())
      continue;
    const DValue &elseValue = elseIt->second;
    auto beforeIt = before.find(name);
    if (beforeIt != before.end() && sameValue(thenValue, beforeIt->second) &&
        sameValue(elseValue, beforeIt->second))
      continue;
    if (sameValue(thenValue, elseValue)) {
      names.push_back(name);
      thenYields.push_back({});
      elseYields.push_back({});
      types.push_back({});
      continue;
    }
    auto mergeable = [](const DValue &v) {
      return v.isRuntime() || (v.isConst() && v.constant.isNumber());
    };
    if (!mergeable(thenValue) || !mergeable(elseValue)) {
      if (beforeIt == before.end())
        continue; // branch-local names that differ are simply not visible
      return fail(stmt.loc, "variable '" + name +
                                "' is assigned different non-tile values in "
                                "the branches of a runtime 'if'");
    }
    Type type = thenValue.isRuntime()   ? thenValue.value.getType()
                : elseValue.isRuntime() ? elseValue.value.getType()
                                        : defaultType(thenValue.constant);
    Type otherType = elseValue.isRuntime()   ? elseValue.value.getType()
                     : thenValue.isRuntime() ? type
                                             : defaultType(elseValue.constant);
    if (thenValue.isConst() != elseValue.isConst() &&
        isa<RankedTensorType>(type)) {
      // A constant merges with a runtime scalar, not with a tile.
      Type scalar = mlir::getElementTypeOrSelf(type);
      (thenValue.isConst() ? type : otherType) = scalar;
    }
    if (!sameTypeIgnoringLayout(type, otherType))
      return fail(stmt.loc, "variable '" + name + "' has type " +
                                typeString(type) + " in the 'if' branch but " +
                                typeString(otherType) +
                                " in the 'else' branch");
    // Branches that differ only in layout meet in the first one's layout.
    Attribute layout =
        layoutOfType(type) ? layoutOfType(type) : layoutOfType(otherType);
    auto shape = isa<RankedTensorType>(type)
                     ? cast<RankedTensorType>(type).getShape()
                     : ArrayRef<int64_t>();
    Type elem = mlir::getElementTypeOrSelf(type);
    builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    std::optional<Value> tv = coerce(thenValue, elem, shape, stmt.loc, layout);
    builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    std::optional<Value> ev = coerce(elseValue, elem, shape, stmt.loc, layout);
    if (!tv || !ev)
      return failure();
    type = tv->getType();
    names.push_back(name);
    thenYields.push_back(*tv);
    elseYields.push_back(*ev);
    types.push_back(type);
  }

  SmallVector<Type> resultTypes;
  SmallVector<Value> thenOperands, elseOperands;
  for (size_t i = 0; i < names.size(); ++i)
    if (types[i]) {
      resultTypes.push_back(types[i]);
      thenOperands.push_back(thenYields[i]);
      elseOperands.push_back(elseYields[i]);
    }
  builder.setInsertionPoint(ifOp);
  auto newIf = scf::IfOp::create(builder, l, resultTypes, cond,
                                 /*withElseRegion=*/true);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  ifOp.erase();
  for (auto [block, operands] : {std::pair{newIf.thenBlock(), &thenOperands},
                                 std::pair{newIf.elseBlock(), &elseOperands}}) {
    block->getTerminator()->erase();
    builder.setInsertionPointToEnd(block);
    scf::YieldOp::create(builder, l, *operands);
  }
  frame->locals = before;
  unsigned result = 0;
  for (size_t i = 0; i < names.size(); ++i)
    frame->locals[names[i]] =
        types[i] ? DValue::of(newIf.getResult(result++)) : thenLocals[names[i]];
  return success();
}

/// Converts the values of `names` at the end of a loop body into the values
/// to yield, checking that their types did not change.
static LogicalResult loopYields(Emitter &e,
                                const std::vector<std::string> &names,
                                ValueRange carried, SourceLoc at,
                                SmallVectorImpl<Value> &yields) {
  for (auto [name, init] : llvm::zip(names, carried)) {
    const DValue &v = e.frame->locals[name];
    Type type = init.getType();
    if (v.isRuntime() && !e.sameTypeIgnoringLayout(v.value.getType(), type))
      return e.fail(at, "loop-carried variable '" + name +
                            "' changes type from " + e.typeString(type) +
                            " to " + e.typeString(v.value.getType()) +
                            " inside the loop");
    if (!v.isRuntime() && !(v.isConst() && v.constant.isNumber()))
      return e.fail(at, "loop-carried variable '" + name + "' is assigned a " +
                            e.describe(v) + " inside the loop");
    auto shape = isa<RankedTensorType>(type)
                     ? cast<RankedTensorType>(type).getShape()
                     : ArrayRef<int64_t>();
    std::optional<Value> y = e.coerce(v, mlir::getElementTypeOrSelf(type),
                                      shape, at, e.layoutOfType(type));
    if (!y)
      return failure();
    yields.push_back(*y);
  }
  return success();
}

LogicalResult Emitter::emitFor(const Stmt &stmt) {
  const Expr &iter = *stmt.value;
  std::optional<DValue> callee;
  if (iter.kind == ExprKind::Call)
    callee = emitExpr(*iter.operands[0]);
  else if (!(callee = emitExpr(iter)))
    return failure();
  if (!callee)
    return failure();
  bool isRange =
      callee->kind == DValue::Kind::Builtin && callee->name == "py.range";
  bool isStatic =
      callee->kind == DValue::Kind::Builtin && callee->name == "static_range";
  if (iter.kind != ExprKind::Call || (!isRange && !isStatic))
    return fail(iter.loc, "unsupported construct: for loop over " +
                              describe(*callee) +
                              "; use range() or kt.static_range()");
  if (!iter.keywords.empty())
    return fail(iter.loc, std::string(isRange ? "range" : "kt.static_range") +
                              "() takes no keyword arguments");
  size_t n = iter.numPositional();
  if (n < 1 || n > 3)
    return fail(iter.loc, std::string(isRange ? "range" : "kt.static_range") +
                              "() takes 1 to 3 arguments (" +
                              std::to_string(n) + " given)");
  if (isStatic)
    return emitStaticFor(stmt, iter);

  std::vector<DValue> bounds;
  std::vector<SourceLoc> locs;
  for (size_t i = 1; i <= n; ++i) {
    std::optional<DValue> v = emitExpr(*iter.operands[i]);
    if (!v)
      return failure();
    bool ok = (v->isConst() && (v->constant.kind == Constant::Kind::Int ||
                                v->constant.kind == Constant::Kind::Bool)) ||
              (v->isRuntime() && v->value.getType().isInteger() &&
               v->value.getType().getIntOrFloatBitWidth() > 1);
    if (!ok)
      return fail(iter.operands[i]->loc,
                  "range() bounds must be integer scalars, got " +
                      describe(*v));
    bounds.push_back(*v);
    locs.push_back(iter.operands[i]->loc);
  }
  if (n == 1) {
    bounds.insert(bounds.begin(), DValue::of(Constant::ofInt(0)));
    locs.insert(locs.begin(), iter.loc);
  }
  if (bounds.size() == 2) {
    bounds.push_back(DValue::of(Constant::ofInt(1)));
    locs.push_back(iter.loc);
  }
  if (bounds[2].isConst() && bounds[2].constant.intValue == 0)
    return fail(locs[2], "range() step must not be zero");
  // A constant negative step counts down: the scf.for runs over the trip
  // count and the loop variable is start + k * step. A runtime step is
  // assumed positive, as scf.for requires.
  bool descending = bounds[2].isConst() && bounds[2].constant.intValue < 0;
  unsigned width = 32;
  for (const DValue &b : bounds)
    width = std::max(width, elementTypeOf(b).getIntOrFloatBitWidth());
  Type ivType = builder.getIntegerType(width);
  SmallVector<Value> typedBounds, indexBounds;
  for (size_t i = 0; i < 3; ++i) {
    std::optional<Value> v = coerce(bounds[i], ivType, {}, locs[i]);
    if (!v)
      return failure();
    typedBounds.push_back(*v);
  }
  if (descending) {
    Location l = loc(locs[2]);
    // ceil((end - start) / step) with the step as it is: negating it would
    // overflow for the most negative step.
    Value distance =
        arith::SubIOp::create(builder, l, typedBounds[1], typedBounds[0]);
    Value count =
        arith::CeilDivSIOp::create(builder, l, distance, typedBounds[2]);
    Value zero = splatConstant(ivType, {}, 0, 0, locs[2]);
    count = arith::MaxSIOp::create(builder, l, count, zero);
    Value one = splatConstant(ivType, {}, 0, 1, locs[2]);
    for (Value v : {zero, count, one})
      indexBounds.push_back(
          arith::IndexCastOp::create(builder, l, builder.getIndexType(), v));
  } else {
    for (size_t i = 0; i < 3; ++i)
      indexBounds.push_back(arith::IndexCastOp::create(
          builder, loc(locs[i]), builder.getIndexType(), typedBounds[i]));
  }

  const std::string &var = stmt.targets[0]->name;
  std::vector<std::string> names;
  SmallVector<Value> inits;
  if (failed(loopCarried(stmt.body, stmt.loc, &var, ivType, names, inits)))
    return failure();
  Location l = loc(stmt.loc);
  auto forOp = scf::ForOp::create(builder, l, indexBounds[0], indexBounds[1],
                                  indexBounds[2], inits);
  auto before = frame->locals;
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *body = forOp.getBody();
    builder.setInsertionPointToStart(body);
    Location varLoc = loc(stmt.targets[0]->loc);
    Value iv = arith::IndexCastOp::create(builder, varLoc, ivType,
                                          forOp.getInductionVar());
    if (descending)
      iv = arith::AddIOp::create(
          builder, varLoc, typedBounds[0],
          arith::MulIOp::create(builder, varLoc, iv, typedBounds[2]));
    frame->locals[var] = DValue::of(iv);
    for (auto [name, arg] : llvm::zip(names, forOp.getRegionIterArgs()))
      frame->locals[name] = DValue::of(arg);
    RuntimeRegion inBody(*frame);
    if (failed(emitBody(stmt.body)))
      return failure();
    inBody.exit();
    SmallVector<Value> yields;
    if (body->mightHaveTerminator())
      body->getTerminator()->erase();
    builder.setInsertionPointToEnd(body);
    if (failed(loopYields(*this, names, forOp.getRegionIterArgs(), stmt.loc,
                          yields)))
      return failure();
    scf::YieldOp::create(builder, l, yields);
  }
  frame->locals = before;
  for (auto [name, result] : llvm::zip(names, forOp.getResults()))
    frame->locals[name] = DValue::of(result);
  return success();
}

LogicalResult Emitter::emitStaticFor(const Stmt &stmt, const Expr &iter) {
  int64_t args[3] = {0, 0, 1};
  size_t n = iter.numPositional();
  for (size_t i = 0; i < n; ++i) {
    std::optional<DValue> v = emitExpr(*iter.operands[i + 1]);
    if (!v)
      return failure();
    std::optional<int64_t> k =
        requireInt(*v, iter.operands[i + 1]->loc, "kt.static_range() bound");
    if (!k)
      return failure();
    args[n == 1 ? 1 : i] = *k;
  }
  if (args[2] == 0)
    return fail(iter.loc, "kt.static_range() step must not be zero");
  const std::string &var = stmt.targets[0]->name;
  // The trip count in 128 bits: stepping an int64 past the end could
  // overflow.
  __int128 span = (__int128)args[1] - args[0], step = args[2];
  __int128 trips = step > 0 ? (span > 0 ? (span + step - 1) / step : 0)
                            : (span < 0 ? (span + step + 1) / step : 0);
  if (trips + unrolledIterations > 65536)
    return fail(iter.loc, "kt.static_range() unrolls more than 65536 "
                          "iterations; use range() for a runtime loop");
  for (int64_t k = 0; k < (int64_t)trips; ++k) {
    ++unrolledIterations;
    int64_t i = (int64_t)(args[0] + (__int128)k * step);
    frame->locals[var] = DValue::of(Constant::ofInt(i));
    if (failed(emitBody(stmt.body)))
      return failure();
    if (frame->returned)
      break;
  }
  return success();
}

LogicalResult Emitter::emitWhile(const Stmt &stmt) {
  std::vector<std::string> names;
  SmallVector<Value> inits;
  if (failed(loopCarried(stmt.body, stmt.loc, nullptr, {}, names, inits)))
    return failure();
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value v : inits) {
    types.push_back(v.getType());
    locs.push_back(loc(stmt.loc));
  }
  Location l = loc(stmt.loc);
  auto whileOp = scf::WhileOp::create(builder, l, types, inits);
  auto before = frame->locals;
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *cond = builder.createBlock(&whileOp.getBefore(), {}, types, locs);
    for (auto [name, arg] : llvm::zip(names, cond->getArguments()))
      frame->locals[name] = DValue::of(arg);
    RuntimeRegion inLoop(*frame);
    std::optional<DValue> c = emitExpr(*stmt.value);
    if (!c)
      return failure();
    if (std::optional<Constant> k = asConstant(*c)) {
      if (isTruthy(*k))
        return fail(stmt.value->loc, "'while' condition is always true (there "
                                     "is no 'break'): the loop never ends");
      inLoop.exit();
      frame->locals = before;
      whileOp.erase();
      return success();
    }
    if (!c->isRuntime() || isa<RankedTensorType>(c->value.getType()))
      return fail(stmt.value->loc,
                  "'while' condition must be a scalar, got " + describe(*c));
    std::optional<Value> i1 =
        convert(c->value, builder.getI1Type(), stmt.value->loc);
    if (!i1)
      return failure();
    scf::ConditionOp::create(builder, l, *i1, cond->getArguments());

    Block *body = builder.createBlock(&whileOp.getAfter(), {}, types, locs);
    for (auto [name, arg] : llvm::zip(names, body->getArguments()))
      frame->locals[name] = DValue::of(arg);
    if (failed(emitBody(stmt.body)))
      return failure();
    inLoop.exit();
    SmallVector<Value> yields;
    if (failed(
            loopYields(*this, names, body->getArguments(), stmt.loc, yields)))
      return failure();
    scf::YieldOp::create(builder, l, yields);
  }
  frame->locals = before;
  for (auto [name, result] : llvm::zip(names, whileOp.getResults()))
    frame->locals[name] = DValue::of(result);
  return success();
}
