//===- Builtins.cpp - the kt.* builtins and Python builtins ---------------===//
//
// Each builtin binds its arguments by Triton's parameter names, checks
// compile-time requirements (axes, shapes, dtypes) and emits tile, arith or
// math ops. Python builtins (min, max, len, ...) work on constexprs only.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

bool Emitter::isBuiltinName(llvm::StringRef name) const {
  const BuiltinInfo *info = findBuiltin(name);
  return info && info->kind == BuiltinKind::Function;
}

std::vector<std::string> Emitter::builtinNames() const {
  std::vector<std::string> names;
  for (const BuiltinInfo &info : builtinTable())
    if (info.kind == BuiltinKind::Function)
      names.push_back(info.name);
  return names;
}

bool Emitter::bindArgs(llvm::StringRef fnName,
                       llvm::ArrayRef<BuiltinParam> params,
                       unsigned numRequired, std::vector<Arg> &positional,
                       std::vector<std::pair<std::string, Arg>> &kw,
                       SourceLoc at, BoundArgs &bound) {
  bound.assign(params.size(), std::nullopt);
  if (positional.size() > params.size()) {
    error(at, fnName + " takes at most " + std::to_string(params.size()) +
                  " arguments (" + std::to_string(positional.size()) +
                  " given)");
    return false;
  }
  for (size_t i = 0; i < positional.size(); ++i)
    bound[i] = positional[i];
  for (auto &[kwName, arg] : kw) {
    const std::string &name = kwName;
    auto it =
        std::find_if(params.begin(), params.end(),
                     [&](const BuiltinParam &p) { return name == p.name; });
    if (it == params.end()) {
      error(arg.keywordLoc,
            fnName + " got an unexpected keyword argument '" + name + "'");
      return false;
    }
    size_t index = it - params.begin();
    if (bound[index]) {
      error(arg.keywordLoc,
            fnName + " got multiple values for argument '" + name + "'");
      return false;
    }
    bound[index] = arg;
  }
  for (unsigned i = 0; i < numRequired; ++i)
    if (!bound[i]) {
      error(at, fnName + " missing required argument '" + params[i].name + "'");
      return false;
    }
  // `None` passed explicitly means "absent", as in Python defaults.
  for (std::optional<Arg> &a : bound)
    if (a && a->value.isConstKind(Constant::Kind::None))
      a.reset();
  return true;
}

std::optional<DValue> Emitter::callBuiltin(
    const std::string &name, DValue *self, std::vector<Arg> &positional,
    std::vector<std::pair<std::string, Arg>> &kw, SourceLoc at) {
  const BuiltinInfo *spec = findBuiltin(name);
  if (!spec)
    return error(at, "unknown builtin '" + name + "'");
  bool isPython = llvm::StringRef(name).starts_with("py.");
  bool isBufferMethod = llvm::StringRef(name).starts_with("smem.");
  std::string fnName = (isPython         ? name.substr(3)
                        : isBufferMethod ? "buffer." + name.substr(5)
                        : self           ? name
                                         : "kt." + name) +
                       "()";
  if (self)
    positional.insert(positional.begin(), Arg{*self, at});
  // Shapes and permutations may be passed as separate arguments.
  if ((name == "reshape" || name == "broadcast_to" || name == "trans") &&
      positional.size() > 2) {
    std::vector<DValue> dims;
    for (size_t i = 1; i < positional.size(); ++i)
      dims.push_back(positional[i].value);
    Arg packed{DValue::tuple(std::move(dims)), positional[1].loc};
    positional.resize(1);
    positional.push_back(packed);
  }
  if (name == "py.min" || name == "py.max") {
    std::vector<Constant> values;
    for (Arg &a : positional) {
      std::optional<Constant> c = asConstant(a.value);
      if (!c)
        return error(a.loc, fnName + " needs compile-time values; use "
                                     "kt.minimum/kt.maximum for tiles");
      values.push_back(*c);
    }
    if (values.size() == 1 && values[0].kind == Constant::Kind::Tuple)
      values = values[0].elements;
    if (!kw.empty())
      return error(kw.front().second.keywordLoc,
                   fnName + " takes no keyword arguments");
    if (values.empty())
      return error(at, fnName + " needs at least one argument");
    Constant best = values[0];
    for (const Constant &v : values) {
      std::string message;
      std::optional<Constant> less = evalBinary(BinOp::Lt, v, best, message);
      if (!less)
        return error(at, message);
      if ((name == "py.min") == isTruthy(*less) && !(v == best))
        best = v;
    }
    return fromConstant(best);
  }
  if (name == "py.print")
    return error(at,
                 "unsupported construct: print() in a kernel (kt.static_print "
                 "prints compile-time values, kt.device_print run-time ones)");
  if (name == "static_print")
    return staticPrint(positional, kw, at);
  if (name == "device_print")
    return devicePrint(positional, kw, at);
  BoundArgs args;
  if (!bindArgs(fnName, spec->params, spec->numRequired(), positional, kw, at,
                args))
    return std::nullopt;
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);

  if (name == "py.range" || name == "static_range")
    return error(at, fnName + " can only be used as the iterable of a for "
                              "loop");
  if (name == "constexpr")
    return argv(0);
  if (name == "static_assert") {
    std::optional<Constant> c = asConstant(argv(0));
    if (!c)
      return error(argloc(0), "kt.static_assert() needs a compile-time "
                              "condition, got " +
                                  describe(argv(0)));
    if (!isTruthy(*c)) {
      std::string msg = "static assertion failed";
      if (has(1) && argv(1).isConstKind(Constant::Kind::Str) &&
          !argv(1).constant.str.empty())
        msg += ": " + argv(1).constant.str;
      return fatalError(argloc(0), msg);
    }
    return DValue::of(Constant::none());
  }
  if (isPython && argv(0).isRuntime()) {
    // abs/float/int/bool of runtime values are elementwise conversions.
    if (name == "py.abs") {
      DValue self = argv(0);
      std::vector<Arg> noArgs;
      std::vector<std::pair<std::string, Arg>> noKeywords;
      return callBuiltin("abs", &self, noArgs, noKeywords, at);
    }
    // int() and float() of a runtime value keep a 64-bit one's width (as
    // Python's unbounded int and double float would): i32 / f32 otherwise.
    Type elem = elementTypeOf(argv(0));
    bool wide = elem.isIntOrFloat() && elem.getIntOrFloatBitWidth() == 64;
    Type target = name == "py.float" ? Type(wide && isa<FloatType>(elem)
                                                ? builder.getF64Type()
                                                : builder.getF32Type())
                  : name == "py.int"
                      ? Type(wide && elem.isInteger() ? builder.getI64Type()
                                                      : builder.getI32Type())
                  : name == "py.bool" ? Type(builder.getI1Type())
                                      : Type();
    if (target && !isa<PointerType>(elementTypeOf(argv(0)))) {
      std::optional<Value> v = convert(argv(0).value, target, at);
      if (!v)
        return std::nullopt;
      return DValue::of(*v);
    }
  }
  if (isPython) {
    std::optional<Constant> c = asConstant(argv(0));
    if (!c)
      return error(argloc(0), fnName + " needs a compile-time value, got " +
                                  describe(argv(0)));
    if (name == "py.len") {
      if (c->kind != Constant::Kind::Tuple && c->kind != Constant::Kind::Str)
        return error(argloc(0), "len() needs a tuple or a string");
      return DValue::of(Constant::ofInt(
          c->kind == Constant::Kind::Str ? c->str.size() : c->elements.size()));
    }
    if (name == "py.bool")
      return DValue::of(Constant::ofBool(isTruthy(*c)));
    if (!c->isNumber())
      return error(argloc(0),
                   fnName + " needs a number, got " + describe(argv(0)));
    double d =
        c->kind == Constant::Kind::Float ? c->floatValue : double(c->intValue);
    if (name == "py.float")
      return DValue::of(Constant::ofFloat(d));
    if (name == "py.int") {
      if (c->kind != Constant::Kind::Float)
        return DValue::of(Constant::ofInt(c->intValue));
      if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
        return error(argloc(0), "cannot convert float to int");
      return DValue::of(Constant::ofInt(static_cast<int64_t>(d)));
    }
    // py.abs
    if (c->kind == Constant::Kind::Float)
      return DValue::of(Constant::ofFloat(std::fabs(d)));
    if (c->intValue == INT64_MIN)
      return error(at, "integer overflow in compile-time expression");
    return DValue::of(Constant::ofInt(std::llabs(c->intValue)));
  }

  if (name == "program_id" || name == "num_programs") {
    std::optional<int64_t> axis = requireInt(argv(0), argloc(0), "axis");
    if (!axis)
      return std::nullopt;
    if (*axis < 0 || *axis > 2)
      return error(argloc(0), fnName + " axis must be 0, 1 or 2, got " +
                                  std::to_string(*axis));
    auto axisAttr = builder.getI32IntegerAttr(*axis);
    if (name == "program_id")
      return DValue::of(kda::tile::ProgramIdOp::create(
                            builder, l, builder.getI32Type(), axisAttr)
                            .getResult());
    return DValue::of(kda::tile::NumProgramsOp::create(
                          builder, l, builder.getI32Type(), axisAttr)
                          .getResult());
  }
  if (name == "arange") {
    std::optional<int64_t> start =
        requireInt(argv(0), argloc(0), "kt.arange() start");
    if (!start)
      return std::nullopt;
    std::optional<int64_t> end =
        requireInt(argv(1), argloc(1), "kt.arange() end");
    if (!end)
      return std::nullopt;
    // The range's values are i32: check its ends before its length (which
    // could also overflow int64).
    if (*start < INT32_MIN || *start > INT32_MAX || *end < INT32_MIN ||
        *end > INT32_MAX)
      return error(at, "kt.arange() values are int32: start and end must be "
                       "in [-2**31, 2**31 - 1], got " +
                           std::to_string(*start) + " to " +
                           std::to_string(*end));
    int64_t n = *end - *start;
    if (n <= 0 || (n & (n - 1)))
      return error(at, "kt.arange() length must be a power of two, got " +
                           std::to_string(n) + " (" + std::to_string(*start) +
                           " to " + std::to_string(*end) + ")");
    Attribute layout;
    if (has(2)) {
      if (argv(2).kind != DValue::Kind::Layout)
        return error(argloc(2), "layout must be a layout such as "
                                "kt.BlockedLayout(...), got " +
                                    describe(argv(2)));
      layout = argv(2).attr;
      if (!checkLayout(layout, {n}, builder.getI32Type(), argloc(2)))
        return std::nullopt;
    }
    auto type = RankedTensorType::get({n}, builder.getI32Type(), layout);
    return DValue::of(kda::tile::RangeOp::create(
                          builder, l, type, builder.getI32IntegerAttr(*start),
                          builder.getI32IntegerAttr(*end))
                          .getResult());
  }
  if (name == "zeros" || name == "full" || name == "zeros_like") {
    SmallVector<int64_t> shape;
    Type elem;
    if (name == "zeros_like") {
      if (!argv(0).isRuntime())
        return error(argloc(0),
                     "kt.zeros_like() needs a tile, got " + describe(argv(0)));
      shape = shapeOf(argv(0));
      elem = elementTypeOf(argv(0));
      if (isa<PointerType>(elem) && !has(1))
        return error(argloc(0), "kt.zeros_like() of a pointer tile needs a "
                                "dtype");
    } else {
      std::optional<SmallVector<int64_t>> s =
          requireShape(argv(0), argloc(0), fnName + " shape");
      if (!s)
        return std::nullopt;
      shape = *s;
    }
    size_t dtypeIndex = name == "full" ? 2 : 1;
    if (has(dtypeIndex)) {
      std::optional<DType> dt =
          requireDType(argv(dtypeIndex), argloc(dtypeIndex), fnName + " dtype");
      if (!dt)
        return std::nullopt;
      elem = dtypeToMLIR(ctx, *dt);
    }
    Attribute layout;
    size_t layoutIndex = name == "full" ? 3 : 2;
    if (name == "zeros_like") {
      layout = encodingOf(argv(0).value);
    } else if (has(layoutIndex)) {
      if (argv(layoutIndex).kind != DValue::Kind::Layout)
        return error(argloc(layoutIndex),
                     "layout must be a layout such as kt.BlockedLayout(...), "
                     "got " +
                         describe(argv(layoutIndex)));
      layout = argv(layoutIndex).attr;
      if (!checkLayout(layout, shape, elem, argloc(layoutIndex)))
        return std::nullopt;
    }
    // Checked here, so that it is reported at the call, not at the value.
    std::string tooLarge =
        tileLimitViolation(RankedTensorType::get(shape, elem));
    if (!tooLarge.empty())
      return fatalError(at, tooLarge);
    if (name == "zeros" || name == "zeros_like")
      return DValue::of(splatConstant(elem, shape, 0, 0, at, layout));
    if (argv(1).isRuntime() && !shapeOf(argv(1)).empty())
      return error(argloc(1), "kt.full() value must be a scalar, got " +
                                  describe(argv(1)));
    std::optional<Value> v = coerce(argv(1), elem, shape, argloc(1), layout);
    if (!v)
      return std::nullopt;
    return DValue::of(*v);
  }
  if (name == "cluster_sum")
    return clusterSumBuiltin(fnName, args, at);
  if (name == "wait_prior_launches" || name == "launch_dependents")
    return launchOrderBuiltin(name, fnName, at);
  if (name == "atomic_add" || name == "atomic_max" || name == "atomic_min" ||
      name == "atomic_xchg")
    return atomicBuiltin(name, fnName, args, at);
  if (name == "make_tensor_descriptor" || name == "async_load" ||
      name == "async_store")
    return tensorDescBuiltin(name, fnName, args, at);
  if (isBufferMethod || name == "alloc_shared" || name == "async_copy" ||
      name == "async_wait" || name == "barrier")
    return sharedMemoryBuiltin(name, fnName, args, at);
  // Everything else works on tiles and scalars, not on buffers.
  for (std::optional<Arg> &arg : args)
    if (arg && isSharedBuffer(arg->value))
      return error(arg->loc, fnName + " cannot take a shared buffer; read "
                                      "it into a tile with .load()");
    else if (arg && isTensorDesc(arg->value))
      return error(arg->loc, fnName + " cannot take a tensor descriptor; "
                                      "copy its blocks with kt.async_load");
  if (name == "cumsum" || name == "cumprod" || name == "cummax" ||
      name == "cummin" || name == "associative_scan")
    return scanBuiltin(name, fnName, args, at);
  if (name == "load" || name == "store" || name == "sum" || name == "max" ||
      name == "min" || name == "dot" || name == "dot_wait")
    return memoryReduceBuiltin(name, fnName, args, at);
  if (name == "where") {
    DValue &c = argv(0);
    std::optional<Constant> k = asConstant(c);
    // A compile-time condition between two constants picks one, as Python's
    // `x if c else y`; with a runtime operand the pick still has the type and
    // shape both operands promote and broadcast to, as a select's would.
    if (k && asConstant(argv(1)) && asConstant(argv(2)))
      return isTruthy(*k) ? argv(1) : argv(2);
    if (!k && (!c.isRuntime() || !elementTypeOf(c).isInteger()))
      return error(argloc(0), "kt.where() condition must be a boolean (or "
                              "integer, true when nonzero) tile or scalar, "
                              "got " +
                                  describe(c));
    // Pointers (kt.where(HAS_B, b_ptr, x_ptr)) are picked as they are.
    if (k && (isa<PointerType>(elementTypeOf(argv(1))) ||
              isa<PointerType>(elementTypeOf(argv(2)))))
      return isTruthy(*k) ? argv(1) : argv(2);
    std::optional<Type> type = promote(argv(1), argv(2), at, "kt.where()");
    if (!type)
      return std::nullopt;
    if (k) {
      std::optional<SmallVector<int64_t>> shape =
          broadcastShapes(shapeOf(argv(1)), shapeOf(argv(2)), at);
      if (!shape)
        return std::nullopt;
      size_t pick = isTruthy(*k) ? 1 : 2;
      Attribute enc = commonEncoding({&argv(1), &argv(2)}, *shape);
      std::optional<Value> v =
          coerce(argv(pick), *type, *shape, argloc(pick), enc);
      if (!v)
        return std::nullopt;
      return DValue::of(*v);
    }
    std::optional<SmallVector<int64_t>> s1 =
        broadcastShapes(shapeOf(c), shapeOf(argv(1)), at);
    if (!s1)
      return std::nullopt;
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(*s1, shapeOf(argv(2)), at);
    if (!shape)
      return std::nullopt;
    Attribute enc = commonEncoding({&c, &argv(1), &argv(2)}, *shape);
    std::optional<Value> cv =
        coerce(c, builder.getI1Type(), *shape, argloc(0), enc);
    std::optional<Value> x = coerce(argv(1), *type, *shape, argloc(1), enc);
    std::optional<Value> y = coerce(argv(2), *type, *shape, argloc(2), enc);
    if (!cv || !x || !y)
      return std::nullopt;
    return DValue::of(
        arith::SelectOp::create(builder, l, *cv, *x, *y).getResult());
  }
  if (name == "maximum" || name == "minimum" || name == "cdiv" ||
      name == "div_rn") {
    if (name == "cdiv") {
      std::optional<Constant> a = asConstant(argv(0)), b = asConstant(argv(1));
      if (a && b) {
        std::string message;
        std::optional<Constant> sum1 = evalBinary(BinOp::Add, *a, *b, message);
        std::optional<Constant> num =
            sum1 ? evalBinary(BinOp::Sub, *sum1, Constant::ofInt(1), message)
                 : std::nullopt;
        std::optional<Constant> q =
            num ? evalBinary(BinOp::FloorDiv, *num, *b, message) : std::nullopt;
        if (!q)
          return error(at, message);
        return fromConstant(*q);
      }
    }
    std::optional<Type> type = promote(argv(0), argv(1), at, fnName.c_str());
    if (!type)
      return std::nullopt;
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(shapeOf(argv(0)), shapeOf(argv(1)), at);
    if (!shape)
      return std::nullopt;
    Attribute enc = commonEncoding({&argv(0), &argv(1)}, *shape);
    std::optional<Value> x = coerce(argv(0), *type, *shape, argloc(0), enc);
    std::optional<Value> y = coerce(argv(1), *type, *shape, argloc(1), enc);
    if (!x || !y)
      return std::nullopt;
    bool isFloat = isa<FloatType>(*type);
    if (name == "cdiv") {
      if (isFloat)
        return error(at, "kt.cdiv() needs integer operands, got " +
                             typeString(*type));
      return DValue::of(
          arith::CeilDivSIOp::create(builder, l, *x, *y).getResult());
    }
    if (name == "div_rn") {
      // IEEE division (no `afn`): exact where `/` may be approximate.
      if (!isFloat)
        return error(at, "kt.div_rn() needs floating-point operands, got " +
                             typeString(*type));
      return DValue::of(arith::DivFOp::create(builder, l, *x, *y).getResult());
    }
    Value r;
    bool isBool = type->isInteger(1);
    // Booleans order False < True: max is `or`, min is `and` (a signed
    // compare would read True as -1).
    if (name == "maximum")
      r = isFloat  ? Value(arith::MaximumFOp::create(builder, l, *x, *y))
          : isBool ? Value(arith::OrIOp::create(builder, l, *x, *y))
                   : Value(arith::MaxSIOp::create(builder, l, *x, *y));
    else
      r = isFloat  ? Value(arith::MinimumFOp::create(builder, l, *x, *y))
          : isBool ? Value(arith::AndIOp::create(builder, l, *x, *y))
                   : Value(arith::MinSIOp::create(builder, l, *x, *y));
    return DValue::of(r);
  }
  if (name == "fma") {
    // Runtime operands meet at a common type; constants adopt it.
    Type type;
    for (size_t i = 0; i < 3; ++i) {
      if (argv(i).isConst() && argv(i).constant.isNumber())
        continue;
      if (!argv(i).isRuntime() || isa<PointerType>(elementTypeOf(argv(i))))
        return error(argloc(i),
                     "kt.fma() needs numbers, got " + describe(argv(i)));
      Type t = elementTypeOf(argv(i));
      type = type ? promoteTypes(type, t) : t;
    }
    if (!type)
      type = builder.getF32Type();
    if (!isa<FloatType>(type))
      return error(at, "kt.fma() requires floating-point arguments, got " +
                           typeString(type));
    SmallVector<int64_t> shape;
    for (size_t i = 0; i < 3; ++i) {
      std::optional<SmallVector<int64_t>> s =
          broadcastShapes(shape, shapeOf(argv(i)), argloc(i));
      if (!s)
        return std::nullopt;
      shape = *s;
    }
    SmallVector<Value> operands;
    for (size_t i = 0; i < 3; ++i) {
      std::optional<Value> v =
          coerce(argv(i), type, shape, argloc(i),
                 commonEncoding({&argv(0), &argv(1), &argv(2)}, shape));
      if (!v)
        return std::nullopt;
      operands.push_back(*v);
    }
    return DValue::of(
        math::FmaOp::create(builder, l, operands[0], operands[1], operands[2])
            .getResult());
  }
  if (name == "to") {
    std::optional<DType> dt = requireDType(argv(1), argloc(1), ".to() dtype");
    if (!dt)
      return std::nullopt;
    Type target = dtypeToMLIR(ctx, *dt);
    if (has(3)) {
      std::optional<Constant> bitcast = asConstant(argv(3));
      if (!bitcast)
        return error(argloc(3), "bitcast must be a compile-time bool");
      Value src = argv(0).value;
      Type srcElem = mlir::getElementTypeOrSelf(src.getType());
      if (isTruthy(*bitcast)) {
        if (isa<PointerType>(srcElem) ||
            srcElem.getIntOrFloatBitWidth() != target.getIntOrFloatBitWidth())
          return error(at, ".to(bitcast=True) needs types of the same width, "
                           "got " +
                               typeString(srcElem) + " and " +
                               typeString(target));
        auto tensor = dyn_cast<RankedTensorType>(src.getType());
        Type resultType = tensor ? Type(tensor.clone(target)) : target;
        return DValue::of(
            arith::BitcastOp::create(builder, l, resultType, src).getResult());
      }
    }
    std::optional<Value> v = convert(argv(0).value, target, at);
    if (!v)
      return std::nullopt;
    return DValue::of(*v);
  }
  if (name == "BlockedLayout" || name == "SliceLayout" || name == "MmaLayout" ||
      name == "SwizzledSharedLayout" || name == "NVMMASharedLayout" ||
      name == "PaddedSharedLayout")
    return layoutBuiltin(name, args, at);
  if (name == "convert_layout") {
    if (!argv(0).isRuntime() || shapeOf(argv(0)).empty())
      return error(argloc(0), "kt.convert_layout() needs a tile, got " +
                                  describe(argv(0)));
    if (argv(1).kind != DValue::Kind::Layout)
      return error(argloc(1), "kt.convert_layout() needs a layout such as "
                              "kt.BlockedLayout(...), got " +
                                  describe(argv(1)));
    SmallVector<int64_t> shape = shapeOf(argv(0));
    if (!checkLayout(argv(1).attr, shape, elementTypeOf(argv(0)), argloc(1)))
      return std::nullopt;
    return DValue::of(withEncoding(argv(0).value, argv(1).attr, at));
  }
  if (name == "broadcast_to" || name == "reshape" || name == "trans" ||
      name == "expand_dims")
    return shapeBuiltin(name, fnName, args, at);
  if (name == "multiple_of" || name == "max_contiguous")
    return hintBuiltin(name, fnName, args, at);
  return mathBuiltin(name, fnName, args, at);
}
