//===- AtomicBuiltins.cpp - kt.atomic_add / max / min / xchg --------------===//
//
// Scalar atomics, once per program: `old = kt.atomic_add(ptr, val,
// sem="acq_rel", scope="gpu")`. The value is cast to the pointee type; the
// semantic and scope are compile-time strings named as in Triton.
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

  DValue &ptr = argv(0);
  if (!ptr.isRuntime() || !isa<PointerType>(ptr.value.getType()))
    return error(
        argloc(0),
        fnName + " needs a scalar pointer, got " + describe(ptr) +
            (ptr.isRuntime() && isa<RankedTensorType>(ptr.value.getType())
                 ? " (atomics on tiles of pointers are not "
                   "supported yet)"
                 : ""));
  Type pointee = cast<PointerType>(ptr.value.getType()).getPointeeType();
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
  if (argv(1).isRuntime() && !shapeOf(argv(1)).empty())
    return error(argloc(1),
                 fnName + " val must be a scalar, got " + describe(argv(1)));

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
  std::optional<std::string> sem = stringArg(2, "sem", "acq_rel");
  std::optional<std::string> scope = stringArg(3, "scope", "gpu");
  if (!sem || !scope)
    return std::nullopt;
  std::optional<kda::tile::MemorySemantic> semantic =
      kda::tile::symbolizeMemorySemantic(*sem);
  if (!semantic)
    return error(argloc(2), fnName +
                                " sem must be \"relaxed\", \"acquire\", "
                                "\"release\" or \"acq_rel\", got \"" +
                                *sem + "\"");
  std::optional<kda::tile::MemoryScope> memScope =
      kda::tile::symbolizeMemoryScope(*scope);
  if (!memScope)
    return error(argloc(3), fnName +
                                " scope must be \"cta\", \"gpu\" or "
                                "\"sys\", got \"" +
                                *scope + "\"");
  std::optional<Value> val = coerce(argv(1), pointee, {}, argloc(1));
  if (!val)
    return std::nullopt;
  return DValue::of(kda::tile::AtomicRMWOp::create(builder, loc(at), kind,
                                                   ptr.value, *val, *semantic,
                                                   *memScope)
                        .getResult());
}
