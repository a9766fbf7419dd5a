//===- LoopAnalysis.cpp - which variables a runtime loop carries ----------===//
//
// A variable is carried by a runtime loop when its binding changes in the
// body. Names assigned only in dead constexpr branches, or reassigned to the
// same constant, must stay compile-time values (they may be shapes), so a
// purely syntactic scan is not enough: the body is emitted speculatively
// into a scratch block, with the carried variables as placeholders, until
// the carried set and types reach a fixed point. The dry run also tells
// which type a constant initial value must take (`acc = 0` followed by
// `acc += tile` carries a tile).
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include <cstring>

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

namespace {
/// One round of the dry run: the body emitted with `carried` bound to
/// placeholder block arguments. Returns the bindings after the body, or
/// std::nullopt when the body did not emit (an error it will report for
/// real later, or a constant that is only constant in the dry run).
struct DryRun {
  std::optional<std::map<std::string, DValue>> after;
  std::map<std::string, DValue> before;
};
} // namespace

static bool sameBinding(const DValue &a, const DValue &b) {
  if (a.kind != b.kind)
    return false;
  if (a.isConst())
    return a.constant.kind == b.constant.kind && a.constant == b.constant;
  if (a.isRuntime())
    return a.value == b.value;
  if (a.kind == DValue::Kind::Tuple) {
    if (a.elements.size() != b.elements.size())
      return false;
    for (size_t i = 0; i < a.elements.size(); ++i)
      if (!sameBinding(a.elements[i], b.elements[i]))
        return false;
    return true;
  }
  return a.name == b.name && a.module == b.module && a.function == b.function &&
         a.attr == b.attr;
}

/// Appends a constant's kind and exact value (a float by its bits).
static void appendConstantKey(const Constant &c, std::string &key) {
  key += std::to_string(static_cast<int>(c.kind)) + ":";
  switch (c.kind) {
  case Constant::Kind::Float: {
    uint64_t bits;
    std::memcpy(&bits, &c.floatValue, sizeof bits);
    key += std::to_string(bits);
    break;
  }
  case Constant::Kind::DType:
    key += std::to_string(static_cast<int>(c.dtype)) + (c.pointerTo ? "*" : "");
    break;
  case Constant::Kind::Str:
    key += std::to_string(c.str.size()) + "'" + c.str;
    break;
  case Constant::Kind::Tuple:
    key += "(";
    for (const Constant &e : c.elements) {
      appendConstantKey(e, key);
      key += ",";
    }
    key += ")";
    break;
  default:
    key += std::to_string(c.intValue);
  }
}

/// Appends what the dry run of a loop body can observe of a binding: its kind,
/// constant, type and identity up to renaming (`alias` numbers the runtime
/// values in order of appearance, so `a = b` is told from two equal types).
static void appendBindingKey(const DValue &v, std::string &key,
                             llvm::DenseMap<Value, unsigned> &alias) {
  auto number = [&](Value value) {
    auto [it, inserted] = alias.try_emplace(value, alias.size());
    (void)inserted;
    return std::to_string(it->second);
  };
  auto pointer = [](const void *p) {
    return std::to_string(reinterpret_cast<uintptr_t>(p));
  };
  key += std::to_string(static_cast<int>(v.kind)) + "|";
  switch (v.kind) {
  case DValue::Kind::Const:
    appendConstantKey(v.constant, key);
    break;
  case DValue::Kind::Runtime:
  case DValue::Kind::Method:
    key +=
        number(v.value) + "@" + pointer(v.value.getType().getAsOpaquePointer());
    break;
  case DValue::Kind::Tuple:
    key += "(";
    for (const DValue &e : v.elements)
      appendBindingKey(e, key, alias), key += ",";
    key += ")";
    break;
  default:
    break;
  }
  key += "|" + std::to_string(v.name.size()) + "'" + v.name + "|" +
         pointer(v.module) + "|" + pointer(v.function) + "|" +
         pointer(v.attr.getAsOpaquePointer()) + "|" +
         std::to_string(static_cast<int>(v.moduleKind)) + "|" +
         std::to_string(v.importLevel) + "|" + v.origin + "|" +
         (v.isGlobal ? "g" : "l") + ";";
}

/// Everything a loop's dry run depends on besides the body itself: the
/// frame's bindings (names, kinds, types, constants, aliasing), the loop
/// variable and the nesting of runtime regions.
static std::string environmentKey(const Frame &frame,
                                  const std::string *loopVar,
                                  Type loopVarType) {
  std::string key =
      std::to_string(frame.runtimeDepth) + "#" +
      (loopVar ? *loopVar : std::string("-")) + "#" +
      std::to_string(
          reinterpret_cast<uintptr_t>(loopVarType.getAsOpaquePointer())) +
      "#" + std::to_string(reinterpret_cast<uintptr_t>(frame.function)) + "#";
  llvm::DenseMap<Value, unsigned> alias;
  for (const auto &[name, value] : frame.locals) {
    key += std::to_string(name.size()) + "'" + name + "=";
    appendBindingKey(value, key, alias);
  }
  return key;
}

LogicalResult Emitter::loopCarried(const std::vector<StmtPtr> &body,
                                   SourceLoc at, const std::string *loopVar,
                                   Type loopVarType,
                                   std::vector<std::string> &names,
                                   SmallVectorImpl<Value> &inits) {
  std::vector<std::string> candidates;
  collectAssignedNames(body, candidates);
  llvm::erase_if(candidates, [&](const std::string &name) {
    return (loopVar && name == *loopVar) || !frame->locals.count(name);
  });

  // Carried name -> type, in candidate order.
  std::vector<std::pair<std::string, Type>> carried;
  auto typeOf = [&](const std::string &name) -> Type {
    for (auto &[n, t] : carried)
      if (n == name)
        return t;
    return {};
  };
  bool dryRunOk = true;
  std::pair<const void *, std::string> cacheKey{
      &body, environmentKey(*frame, loopVar, loopVarType)};
  auto cached = loopCarriedCache.find(cacheKey);
  if (cached != loopCarriedCache.end()) {
    carried = cached->second.carried;
    dryRunOk = cached->second.dryRunOk;
  }
  for (int round = 0; round < 4 && cached == loopCarriedCache.end(); ++round) {
    Block scratch;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&scratch);
    auto saved = frame->locals;
    if (loopVar)
      frame->locals[*loopVar] =
          DValue::of(scratch.addArgument(loopVarType, loc(at)));
    for (auto &[name, type] : carried)
      frame->locals[name] = DValue::of(scratch.addArgument(type, loc(at)));
    auto entry = frame->locals;
    ++dryRunDepth;
    RuntimeRegion inBody(*frame);
    bool savedFailed = dryRunFailed;
    dryRunFailed = false;
    bool ok = succeeded(emitBody(body)) && !dryRunFailed;
    dryRunFailed = savedFailed;
    inBody.exit();
    --dryRunDepth;
    frame->returned = false;
    auto after = frame->locals;
    frame->locals = saved;
    if (!ok) {
      dryRunOk = false;
      break;
    }
    bool changed = false;
    for (const std::string &name : candidates) {
      const DValue &in = entry[name];
      const DValue &out = after[name];
      if (sameBinding(in, out))
        continue;
      Type known = typeOf(name);
      Type type;
      if (out.isRuntime())
        type = out.value.getType();
      else if (out.isConst() && out.constant.isNumber())
        type = in.isRuntime() ? in.value.getType()
               : (in.isConstKind(Constant::Kind::Float) ||
                  out.constant.kind == Constant::Kind::Float)
                   ? Type(builder.getF32Type())
                   : defaultType(out.constant);
      else
        continue; // reported by the real run if it matters
      // A runtime value before the loop fixes the carried type; a constant
      // adopts the body's type only when that is a scalar of its own kind
      // (`i = 0` then `i += n64` carries an i64). Anything else is a type
      // change, reported by the real run.
      const DValue &init = saved[name];
      if (init.isRuntime()) {
        // Keep the body's layout when the initial value has none.
        Type initType = init.value.getType();
        if (!(sameTypeIgnoringLayout(initType, type) &&
              !layoutOfType(initType) && layoutOfType(type)))
          type = initType;
      } else if (init.isConst() && init.constant.isNumber()) {
        Type fallback = defaultType(init.constant);
        bool sameKind = !isa<RankedTensorType>(type) &&
                        isa<FloatType>(type) == isa<FloatType>(fallback) &&
                        !isa<kda::tile::PointerType>(type);
        if (!sameKind)
          type = fallback;
      }
      if (!known) {
        carried.push_back({name, type});
        changed = true;
      } else if (known != type && !init.isRuntime()) {
        for (auto &entryType : carried)
          if (entryType.first == name)
            entryType.second = type;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  if (cached == loopCarriedCache.end())
    loopCarriedCache[cacheKey] = {carried, dryRunOk};

  if (!dryRunOk) {
    // Fall back to every assigned name, with default types for constants.
    carried.clear();
    for (const std::string &name : candidates) {
      const DValue &v = frame->locals[name];
      if (v.isRuntime())
        carried.push_back({name, v.value.getType()});
      else if (v.isConst() && v.constant.isNumber())
        carried.push_back({name, defaultType(v.constant)});
      else
        return fail(at, "variable '" + name + "' holds a " + describe(v) +
                            " and cannot be reassigned inside a runtime loop");
    }
  }
  for (auto &[name, type] : carried) {
    const DValue &v = frame->locals[name];
    if (!v.isRuntime() && !(v.isConst() && v.constant.isNumber()))
      return fail(at, "variable '" + name + "' holds a " + describe(v) +
                          " and cannot be reassigned inside a runtime loop");
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<Value> init =
        coerce(v, mlir::getElementTypeOrSelf(type),
               tensor ? tensor.getShape() : ArrayRef<int64_t>(), at,
               layoutOfType(type));
    if (!init)
      return failure();
    names.push_back(name);
    inits.push_back(*init);
  }
  return success();
}
