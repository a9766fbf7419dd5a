//===- AtomicBuiltins.cpp - kt.atomic_add / max / min / xchg --------------===//
//
// `old = kt.atomic_add(ptr, val, mask=None, sem="acq_rel", scope="gpu")`:
// once per program for a scalar pointer, once per (unmasked) element for a
// tile of pointers. The value and mask broadcast to the pointer shape and
// the value is cast to the pointee type; the semantic and scope are
// compile-time strings named as in Triton.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;

std::optional<DValue> Emitter::atomicBuiltin(const std::string &name,
                                             const std::string &fnName,
                                             BoundArgs &args, SourceLoc at) {
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  constexpr size_t kMask = 2, kSem = 3, kScope = 4;

  DValue &ptr = argv(0);
  if (!ptr.isRuntime() ||
      !isa<PointerType>(mlir::getElementTypeOrSelf(ptr.value.getType())))
    return error(argloc(0), fnName +
                                " needs a pointer or a tile of pointers, "
                                "got " +
                                describe(ptr));
  Type pointee =
      cast<PointerType>(mlir::getElementTypeOrSelf(ptr.value.getType()))
          .getPointeeType();
  if (!pointee.isInteger(32) && !pointee.isInteger(64) && !pointee.isF32())
    return error(argloc(0), fnName +
                                " supports pointers to i32, i64 and "
                                "f32, got a pointer to " +
                                typeString(pointee));
  auto kind = name == "atomic_add"   ? kda::tile::AtomicKind::Add
              : name == "atomic_max" ? kda::tile::AtomicKind::Max
              : name == "atomic_min" ? kda::tile::AtomicKind::Min
                                     : kda::tile::AtomicKind::Xchg;
  if (pointee.isF32() && (kind == kda::tile::AtomicKind::Max ||
                          kind == kda::tile::AtomicKind::Min))
    return error(at, fnName + " needs an integer pointee; f32 supports "
                              "atomic_add and atomic_xchg");

  // As for kt.store: the value and the mask broadcast to the pointer shape.
  SmallVector<int64_t> shape = shapeOf(ptr);
  if (shape.empty() && argv(1).isRuntime() && !shapeOf(argv(1)).empty())
    return error(argloc(1), fnName +
                                " val must be a scalar for a scalar "
                                "pointer, got " +
                                describe(argv(1)));
  if (has(kMask)) {
    DValue &mask = argv(kMask);
    bool isBool = mask.isConstKind(Constant::Kind::Bool) ||
                  (mask.isRuntime() && elementTypeOf(mask).isInteger(1));
    if (!isBool)
      return error(argloc(kMask), fnName +
                                      " mask must be a boolean (i1) scalar "
                                      "or tile, got " +
                                      describe(mask));
    if (shape.empty() && mask.isRuntime() && !shapeOf(mask).empty())
      return error(argloc(kMask), fnName +
                                      " mask must be a scalar for a scalar "
                                      "pointer, got " +
                                      describe(mask));
  }
  for (size_t i : {size_t(1), kMask}) {
    if (!has(i) || !argv(i).isRuntime() || shape.empty())
      continue;
    std::optional<SmallVector<int64_t>> s =
        broadcastShapes(shape, shapeOf(argv(i)), argloc(i));
    if (!s)
      return std::nullopt;
    if (*s != shape)
      return error(argloc(i), fnName + " " + (i == 1 ? "val" : "mask") +
                                  " of shape " + formatShape(shapeOf(argv(i))) +
                                  " does not fit the pointer shape " +
                                  formatShape(shape));
  }

  auto stringArg = [&](size_t i, const char *what,
                       const char *fallback) -> std::optional<std::string> {
    if (!has(i))
      return std::string(fallback);
    if (!argv(i).isConstKind(Constant::Kind::Str))
      return error(argloc(i), fnName + " " + what +
                                  " must be a string constant, got " +
                                  describe(argv(i)));
    return argv(i).constant.str;
  };
  std::optional<std::string> sem = stringArg(kSem, "sem", "acq_rel");
  std::optional<std::string> scope = stringArg(kScope, "scope", "gpu");
  if (!sem || !scope)
    return std::nullopt;
  std::optional<kda::tile::MemorySemantic> semantic =
      kda::tile::symbolizeMemorySemantic(*sem);
  if (!semantic)
    return error(argloc(kSem), fnName +
                                   " sem must be \"relaxed\", \"acquire\", "
                                   "\"release\" or \"acq_rel\", got \"" +
                                   *sem + "\"");
  std::optional<kda::tile::MemoryScope> memScope =
      kda::tile::symbolizeMemoryScope(*scope);
  if (!memScope)
    return error(argloc(kScope), fnName +
                                     " scope must be \"cta\", \"gpu\" or "
                                     "\"sys\", got \"" +
                                     *scope + "\"");
  Attribute enc = commonEncoding(
      {&ptr, &argv(1), has(kMask) ? &argv(kMask) : nullptr}, shape);
  std::optional<Value> ptrValue =
      shape.empty() ? std::optional<Value>(ptr.value)
                    : broadcastToLayout(ptr.value, shape, enc, argloc(0));
  if (!ptrValue)
    return std::nullopt;
  std::optional<Value> val = coerce(argv(1), pointee, shape, argloc(1), enc);
  if (!val)
    return std::nullopt;
  Value mask;
  if (has(kMask)) {
    std::optional<Value> m =
        coerce(argv(kMask), builder.getI1Type(), shape, argloc(kMask), enc);
    if (!m)
      return std::nullopt;
    mask = *m;
  }
  return DValue::of(kda::tile::AtomicRMWOp::create(builder, loc(at), kind,
                                                   *ptrValue, *val, mask,
                                                   *semantic, *memScope)
                        .getResult());
}
