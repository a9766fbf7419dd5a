//===- ExprEmitter.cpp - expressions, names and calls ---------------------===//
//
// Compile-time operands are folded with Python semantics; anything touching
// a runtime value becomes arith/math/tile ops. Calls to DSL functions are
// inlined: the callee runs in a fresh Frame whose ops carry a CallSiteLoc.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

static std::optional<DType> toDType(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF64())
    return DType::F64;
  if (t.isInteger(1))
    return DType::I1;
  if (t.isInteger(8))
    return DType::I8;
  if (t.isInteger(16))
    return DType::I16;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

static const char *const kPythonBuiltins[] = {
    "range", "min", "max", "abs", "int", "float", "bool", "len", "print"};

std::optional<DValue> Emitter::emitExpr(const Expr &expr) {
  switch (expr.kind) {
  case ExprKind::Name:
    return lookupName(expr.name, expr.loc);
  case ExprKind::Int:
    return DValue::of(Constant::ofInt(expr.intValue));
  case ExprKind::Float:
    return DValue::of(Constant::ofFloat(expr.floatValue));
  case ExprKind::Bool:
    return DValue::of(Constant::ofBool(expr.intValue != 0));
  case ExprKind::None:
    return DValue::of(Constant::none());
  case ExprKind::Str:
    return DValue::of(Constant::ofStr(expr.name));
  case ExprKind::Ellipsis:
    return error(expr.loc, "unsupported construct: '...'");
  case ExprKind::Slice:
    return error(expr.loc, "unsupported construct: ':' outside a subscript");
  case ExprKind::Tuple: {
    std::vector<DValue> elems;
    for (const ExprPtr &e : expr.operands) {
      std::optional<DValue> v = emitExpr(*e);
      if (!v)
        return std::nullopt;
      elems.push_back(*v);
    }
    return DValue::tuple(std::move(elems));
  }
  case ExprKind::Binary: {
    std::optional<DValue> lhs = emitExpr(*expr.operands[0]);
    if (!lhs)
      return std::nullopt;
    std::optional<DValue> rhs = emitExpr(*expr.operands[1]);
    if (!rhs)
      return std::nullopt;
    return emitBinary(expr.binOp, *lhs, *rhs, expr.loc);
  }
  case ExprKind::Unary: {
    std::optional<DValue> v = emitExpr(*expr.operands[0]);
    if (!v)
      return std::nullopt;
    return emitUnary(expr.unaryOp, *v, expr.loc);
  }
  case ExprKind::Compare:
    return emitCompare(expr);
  case ExprKind::And:
  case ExprKind::Or:
    return emitBoolOp(expr);
  case ExprKind::IfExp:
    return ifExpr(expr);
  case ExprKind::Call:
    return emitCall(expr);
  case ExprKind::Attribute:
    return emitAttribute(expr);
  case ExprKind::Subscript:
    return emitSubscript(expr);
  }
  return error(expr.loc, "unsupported expression");
}

std::optional<DValue> Emitter::ifExpr(const Expr &expr) {
  std::optional<DValue> cond = emitExpr(*expr.operands[0]);
  if (!cond)
    return std::nullopt;
  if (std::optional<Constant> c = asConstant(*cond))
    return emitExpr(*expr.operands[isTruthy(*c) ? 1 : 2]);
  if (!cond->isRuntime() || isa<RankedTensorType>(cond->value.getType()))
    return error(expr.operands[0]->loc,
                 "condition of 'a if c else b' must be a scalar, got " +
                     describe(*cond) + "; use kt.where for tiles");
  std::optional<DValue> a = emitExpr(*expr.operands[1]);
  if (!a)
    return std::nullopt;
  std::optional<DValue> b = emitExpr(*expr.operands[2]);
  if (!b)
    return std::nullopt;
  if (a->isConst() && b->isConst()) {
    std::optional<Value> ra = toRuntime(*a, expr.loc);
    if (!ra)
      return std::nullopt;
    a = DValue::of(*ra);
  }
  std::optional<Type> type = promote(*a, *b, expr.loc, "'if' expression");
  if (!type)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapeOf(*a), shapeOf(*b), expr.loc);
  if (!shape)
    return std::nullopt;
  std::optional<Value> i1 = convert(cond->value, builder.getI1Type(), expr.loc);
  Attribute enc = commonEncoding({&*a, &*b}, *shape);
  std::optional<Value> va = coerce(*a, *type, *shape, expr.loc, enc);
  std::optional<Value> vb = coerce(*b, *type, *shape, expr.loc, enc);
  if (!i1 || !va || !vb)
    return std::nullopt;
  return DValue::of(
      arith::SelectOp::create(builder, loc(expr.loc), *i1, *va, *vb)
          .getResult());
}

//===----------------------------------------------------------------------===//
// Names and modules
//===----------------------------------------------------------------------===//

std::optional<DValue> Emitter::lookupName(const std::string &name,
                                          SourceLoc at) {
  auto it = frame->locals.find(name);
  if (it != frame->locals.end()) {
    if (it->second.kind == DValue::Kind::Poison)
      return std::nullopt; // its assignment already reported an error
    return it->second;
  }
  bool missing = false;
  std::optional<DValue> member =
      moduleMember(frame->module, name, at, &missing);
  if (!missing)
    return member;
  for (const char *b : kPythonBuiltins)
    if (name == b)
      return DValue::builtin(std::string("py.") + b);
  std::string why;
  if (!frame->module->parsed.starImports.empty())
    why = " (names from `from " + frame->module->parsed.starImports.front() +
          " import *` are not followed: import them by name, e.g. `import "
          "kdatile as kt`)";
  return error(at, "name '" + name + "' is not defined" + why);
}

std::optional<DValue> Emitter::resolveModule(const std::string &dotted,
                                             unsigned level,
                                             LoadedModule *importer,
                                             SourceLoc at) {
  DValue v;
  v.kind = DValue::Kind::Module;
  v.name = dotted;
  if (level == 0 && isLanguageModule(dotted)) {
    v.moduleKind = DValue::ModuleKind::Language;
    return v;
  }
  auto key = std::make_tuple(dotted, level, importer);
  if (auto it = moduleCache.find(key); it != moduleCache.end())
    return it->second;
  std::string loadErrors;
  // `kdatile.stdlib` is the standard library wherever the package lives.
  LoadedModule *found =
      level == 0 && dotted == "kdatile.stdlib"
          ? loader.stdlib(loadErrors)
          : loader.findModule(dotted, level, importer, loadErrors);
  if (!loadErrors.empty()) {
    if (dryRunDepth == 0)
      diagnostics += loadErrors;
    return error(at, "cannot import '" + dotted + "'");
  }
  v.module = found ? found : importer;
  v.importLevel = level;
  v.moduleKind = found ? DValue::ModuleKind::DSL
                 : loader.isPackage(dotted, level, importer)
                     ? DValue::ModuleKind::Package
                     : DValue::ModuleKind::External;
  moduleCache[key] = v;
  return v;
}

std::optional<DValue> Emitter::moduleMember(LoadedModule *module,
                                            const std::string &name,
                                            SourceLoc at, bool *missing) {
  auto it = module->parsed.symbols.find(name);
  if (it == module->parsed.symbols.end()) {
    *missing = true;
    return std::nullopt;
  }
  const ModuleSymbol &sym = it->second;
  DValue v;
  switch (sym.kind) {
  case SymbolKind::Function:
    v.kind = DValue::Kind::Function;
    v.module = module;
    v.function = sym.function;
    v.name = name;
    return v;
  case SymbolKind::BrokenFunction: {
    // Report the parse error inside the callee, with the use as a note.
    Frame where;
    where.module = module;
    where.caller = frame;
    where.callLoc = at;
    Frame *saved = frame;
    frame = &where;
    error(sym.errorLoc, sym.error);
    frame = saved;
    return std::nullopt;
  }
  case SymbolKind::OtherFunction:
  case SymbolKind::OtherGlobal:
    v.kind = DValue::Kind::NonDSL;
    v.name = name;
    v.isGlobal = sym.kind == SymbolKind::OtherGlobal;
    return v;
  case SymbolKind::Global: {
    auto key = std::make_pair(module, name);
    auto cached = globalCache.find(key);
    if (cached != globalCache.end())
      return cached->second;
    if (std::find(globalsInProgress.begin(), globalsInProgress.end(), key) !=
        globalsInProgress.end())
      return error(at, "global '" + name + "' is defined in terms of itself");
    globalsInProgress.push_back(key);
    std::optional<DValue> value =
        evalInModule(module, *sym.value, "global '" + name + "'");
    globalsInProgress.pop_back();
    if (value)
      globalCache[key] = *value;
    return value;
  }
  case SymbolKind::Import:
    return resolveModule(sym.module, 0, module, at);
  case SymbolKind::ImportFrom: {
    if (sym.level == 0 && isLanguageModule(sym.module))
      return languageMember(sym.member, at, sym.module);
    std::optional<DValue> from =
        resolveModule(sym.module, sym.level, module, at);
    if (!from)
      return std::nullopt;
    if (from->moduleKind == DValue::ModuleKind::DSL && !sym.module.empty()) {
      bool notThere = false;
      std::optional<DValue> member =
          moduleMember(from->module, sym.member, at, &notThere);
      if (!notThere)
        return member;
    }
    std::string sub =
        sym.module.empty() ? sym.member : sym.module + "." + sym.member;
    std::optional<DValue> subModule = resolveModule(sub, sym.level, module, at);
    if (!subModule)
      return std::nullopt;
    if (subModule->moduleKind != DValue::ModuleKind::External)
      return subModule;
    if (from->moduleKind == DValue::ModuleKind::External) {
      v.kind = DValue::Kind::NonDSL;
      v.name = sym.member;
      v.origin = sym.module;
      return v;
    }
    return error(at, "cannot import name '" + sym.member + "' from '" +
                         sym.module + "'");
  }
  }
  *missing = true;
  return std::nullopt;
}

static bool isDTypeName(llvm::StringRef name, DType &type) {
  static const std::pair<const char *, DType> kNames[] = {
      {"float32", DType::F32},   {"float16", DType::F16},
      {"bfloat16", DType::BF16}, {"float64", DType::F64},
      {"int1", DType::I1},       {"int8", DType::I8},
      {"int16", DType::I16},     {"int32", DType::I32},
      {"int64", DType::I64},     {"fp32", DType::F32},
      {"fp16", DType::F16},      {"bf16", DType::BF16},
      {"fp64", DType::F64}};
  for (auto &[n, t] : kNames)
    if (name == n) {
      type = t;
      return true;
    }
  return false;
}

std::optional<DValue> Emitter::languageMember(const std::string &name,
                                              SourceLoc at,
                                              const std::string &shown) {
  DType dtype;
  if (isDTypeName(name, dtype))
    return DValue::of(Constant::ofDType(dtype));
  if (isBuiltinName(name))
    return DValue::builtin(name);
  if (name == "language") {
    DValue v;
    v.kind = DValue::Kind::Module;
    v.moduleKind = DValue::ModuleKind::Language;
    v.name = "kdatile.language";
    return v;
  }
  if (name == "jit") {
    DValue v;
    v.kind = DValue::Kind::NonDSL;
    v.name = "jit";
    return v;
  }
  std::string loadErrors;
  if (LoadedModule *lib = loader.stdlib(loadErrors)) {
    bool missing = false;
    std::optional<DValue> member = moduleMember(lib, name, at, &missing);
    if (!missing)
      return member;
  }
  if (!loadErrors.empty()) {
    diagnostics += loadErrors;
    return error(at, "cannot load the DSL standard library");
  }
  std::string where;
  if (!llvm::sys::fs::is_regular_file(loader.stdlibPath())) {
    where = " (the DSL standard library " + loader.stdlibPath() +
            " does not exist: check --stdlib-dir)";
  } else {
    // Builtins and standard-library functions within an edit per three
    // letters (at least one), or that share a prefix of four, closest first.
    std::vector<std::string> candidates = builtinNames();
    std::string ignored;
    if (LoadedModule *lib = loader.stdlib(ignored))
      for (const auto &[symbol, def] : lib->parsed.symbols)
        if (def.kind == frontend::SymbolKind::Function)
          candidates.push_back(symbol);
    std::vector<std::pair<unsigned, std::string>> close;
    for (const std::string &c : candidates) {
      unsigned d = llvm::StringRef(c).edit_distance(name, true, 3);
      bool prefix =
          name.size() >= 4 &&
          llvm::StringRef(c).starts_with(llvm::StringRef(name).take_front(4));
      if (d <= std::max<unsigned>(1, name.size() / 3) || prefix)
        close.push_back({d, c});
    }
    llvm::sort(close);
    where = ": it is not a DSL builtin";
    for (size_t i = 0; i < close.size() && i < 4; ++i)
      where += (i ? ", " : " (close: ") + shown + "." + close[i].second;
    if (!close.empty())
      where += ")";
  }
  return error(at, "module '" + shown + "' has no attribute '" + name + "'" +
                       where);
}

std::optional<DValue> Emitter::evalInModule(LoadedModule *module,
                                            const Expr &expr,
                                            const std::string &what) {
  Frame scope;
  scope.module = module;
  Frame *saved = frame;
  frame = &scope;
  // Ops created while evaluating land in a scratch block: a compile-time
  // value creates none, so any op means the expression is not constexpr.
  Block scratch;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&scratch);
  std::optional<DValue> value = emitExpr(expr);
  bool createdOps = !scratch.empty();
  while (!scratch.empty())
    scratch.back().erase();
  if (value && (createdOps || value->isRuntime()))
    value = error(expr.loc, what + " must be a compile-time constant");
  frame = saved;
  return value;
}

//===----------------------------------------------------------------------===//
// Attributes and subscripts
//===----------------------------------------------------------------------===//

std::optional<DValue> Emitter::emitAttribute(const Expr &expr) {
  const Expr &objExpr = *expr.operands[0];
  std::optional<DValue> obj = emitExpr(objExpr);
  if (!obj)
    return std::nullopt;
  const std::string &attr = expr.name;
  std::string shown = objExpr.kind == ExprKind::Name ? objExpr.name : obj->name;
  if (obj->kind == DValue::Kind::Module) {
    switch (obj->moduleKind) {
    case DValue::ModuleKind::Language:
      return languageMember(attr, expr.loc, shown);
    case DValue::ModuleKind::DSL: {
      bool missing = false;
      std::optional<DValue> member =
          moduleMember(obj->module, attr, expr.loc, &missing);
      if (!missing)
        return member;
      [[fallthrough]];
    }
    case DValue::ModuleKind::Package: {
      std::optional<DValue> sub = resolveModule(
          obj->name + "." + attr, obj->importLevel,
          obj->moduleKind == DValue::ModuleKind::DSL ? frame->module
                                                     : obj->module,
          expr.loc);
      if (!sub)
        return std::nullopt;
      if (sub->moduleKind != DValue::ModuleKind::External)
        return sub;
      return error(expr.loc,
                   "module '" + shown + "' has no attribute '" + attr + "'");
    }
    case DValue::ModuleKind::External:
      return error(expr.loc,
                   "module '" + obj->name +
                       "' is not a DSL module (no such file on the search "
                       "path); only @kt.jit functions can be used in kernels");
    }
  }
  if (isSharedBuffer(*obj)) {
    auto buffer = cast<kda::tile::SharedBufferType>(obj->value.getType());
    if (attr == "shape") {
      std::vector<DValue> dims;
      for (int64_t d : buffer.getShape())
        dims.push_back(DValue::of(Constant::ofInt(d)));
      return DValue::tuple(std::move(dims));
    }
    if (attr == "dtype") {
      std::optional<DType> dt = toDType(buffer.getElementType());
      if (dt)
        return DValue::of(Constant::ofDType(*dt));
    }
    if (attr == "index" || attr == "load" || attr == "store") {
      DValue method;
      method.kind = DValue::Kind::Method;
      method.name = "smem." + attr;
      method.value = obj->value;
      return method;
    }
    return error(expr.loc, "shared buffer has no attribute '" + attr +
                               "' (it has shape, dtype, index, load and "
                               "store)");
  }
  if (obj->isRuntime()) {
    Type type = obj->value.getType();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (attr == "dtype") {
      Type elem = mlir::getElementTypeOrSelf(type);
      auto ptr = dyn_cast<kda::tile::PointerType>(elem);
      std::optional<DType> dt = toDType(ptr ? ptr.getPointeeType() : elem);
      if (!dt)
        return error(expr.loc, "unsupported element type " + typeString(elem));
      Constant c = Constant::ofDType(*dt);
      c.pointerTo = static_cast<bool>(ptr);
      return DValue::of(c);
    }
    if (attr == "shape") {
      std::vector<DValue> dims;
      if (tensor)
        for (int64_t d : tensor.getShape())
          dims.push_back(DValue::of(Constant::ofInt(d)));
      return DValue::tuple(std::move(dims));
    }
    if (attr == "ndim")
      return DValue::of(Constant::ofInt(tensor ? tensor.getRank() : 0));
    if (attr == "numel")
      return DValue::of(Constant::ofInt(tensor ? tensor.getNumElements() : 1));
    if (attr == "T") {
      std::vector<Arg> args;
      std::vector<std::pair<std::string, Arg>> kw;
      return callBuiltin("trans", &*obj, args, kw, expr.loc);
    }
    // Tile methods: x.sum(0) is kt.sum(x, 0); x.to(dtype) exists only as one.
    const BuiltinInfo *info = findBuiltin(attr);
    if (info &&
        (info->tileMethod || (info->kind == BuiltinKind::Method &&
                              !llvm::StringRef(attr).starts_with("smem.")))) {
      DValue method;
      method.kind = DValue::Kind::Method;
      method.name = info->name;
      method.value = obj->value;
      return method;
    }
    return error(expr.loc, std::string(tensor ? "tile" : "scalar") +
                               " has no attribute '" + attr + "'");
  }
  if (obj->isConstKind(Constant::Kind::DType)) {
    const Constant &dt = obj->constant;
    if (attr == "element_ty" && dt.pointerTo)
      return DValue::of(Constant::ofDType(dt.dtype));
    if (attr == "primitive_bitwidth" && !dt.pointerTo)
      return DValue::of(
          Constant::ofInt(dtypeToMLIR(ctx, dt.dtype).getIntOrFloatBitWidth()));
  }
  return error(expr.loc, describe(*obj) + " has no attribute '" + attr + "'");
}

std::optional<DValue> Emitter::emitSubscript(const Expr &expr) {
  std::optional<DValue> obj = emitExpr(*expr.operands[0]);
  if (!obj)
    return std::nullopt;
  size_t numItems = expr.operands.size() - 1;
  if (obj->kind == DValue::Kind::Tuple) {
    if (numItems != 1 || expr.operands[1]->kind == ExprKind::Slice)
      return error(expr.loc, "unsupported construct: tuple slicing");
    std::optional<DValue> index = emitExpr(*expr.operands[1]);
    if (!index)
      return std::nullopt;
    std::optional<int64_t> i =
        requireInt(*index, expr.operands[1]->loc, "tuple index");
    if (!i)
      return std::nullopt;
    int64_t n = obj->elements.size();
    int64_t k = *i < 0 ? *i + n : *i;
    if (k < 0 || k >= n)
      return error(expr.operands[1]->loc, "tuple index " + std::to_string(*i) +
                                              " out of range for a tuple of " +
                                              std::to_string(n));
    return obj->elements[k];
  }
  if (!obj->isRuntime())
    return error(expr.loc, describe(*obj) + " is not subscriptable");
  Value value = obj->value;
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  int64_t rank = tensor ? tensor.getRank() : 0;
  int64_t slices = 0;
  for (size_t i = 1; i <= numItems; ++i) {
    const Expr &item = *expr.operands[i];
    if (item.kind == ExprKind::Slice)
      ++slices;
    else if (item.kind != ExprKind::None)
      return error(item.loc, "unsupported construct: indexing a tile (only "
                             "':' and None are allowed in subscripts)");
  }
  if (slices > rank)
    return error(expr.loc,
                 "too many indices for a tile of rank " + std::to_string(rank));
  if (!tensor) {
    SmallVector<int64_t> ones(numItems, 1);
    return DValue::of(*broadcastTo(value, ones, expr.loc));
  }
  int64_t outIndex = 0;
  for (size_t i = 1; i <= numItems; ++i, ++outIndex) {
    if (expr.operands[i]->kind != ExprKind::None)
      continue;
    std::optional<Value> expanded =
        expandDims(value, outIndex, expr.operands[i]->loc);
    if (!expanded)
      return std::nullopt;
    value = *expanded;
  }
  return DValue::of(value);
}
