//===- SharedMemoryBuiltins.cpp - shared buffers and async copies ---------===//
//
// `buf = kt.alloc_shared(shape, dtype)` makes a row-major buffer in shared
// memory; `buf.index(i)` is a slice of its leading dimension, `buf.load()`
// reads it into a tile and `buf.store(x)` writes one. `kt.async_copy(buf,
// ptrs, mask)` starts copying global memory into it, `kt.async_wait(n)` waits
// until at most n copies are in flight (and synchronizes the program), and
// `kt.barrier()` synchronizes the program's threads.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;
using kda::tile::SharedBufferType;

bool Emitter::isSharedBuffer(const DValue &value) {
  return value.isRuntime() && isa<SharedBufferType>(value.value.getType());
}

std::optional<DValue> Emitter::sharedMemoryBuiltin(const std::string &name,
                                                   const std::string &fnName,
                                                   BoundArgs &args,
                                                   SourceLoc at) {
  auto has = [&](size_t i) { return args[i].has_value(); };
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  auto none = [] { return DValue::of(Constant::none()); };

  if (name == "barrier") {
    kda::tile::BarrierOp::create(builder, l);
    return none();
  }
  if (name == "async_wait") {
    int64_t pending = 0;
    if (has(0)) {
      std::optional<int64_t> n =
          requireInt(argv(0), argloc(0), fnName + " pending");
      if (!n)
        return std::nullopt;
      if (*n < 0 || *n > INT32_MAX)
        return error(argloc(0), fnName + " pending must be 0 or more, got " +
                                    std::to_string(*n));
      pending = *n;
    }
    kda::tile::AsyncWaitOp::create(builder, l,
                                   builder.getI32IntegerAttr(pending));
    return none();
  }
  if (name == "alloc_shared") {
    if (frame->runtimeDepth > 0 || frame->caller)
      return error(at, fnName + " must be called at the top level of the "
                                "kernel, not in a loop, a branch or a "
                                "called function (its size is fixed when "
                                "the kernel is compiled)");
    std::optional<SmallVector<int64_t>> shape =
        requireShape(argv(0), argloc(0), fnName + " shape");
    if (!shape)
      return std::nullopt;
    if (shape->empty())
      return error(argloc(0), fnName + " shape needs at least one dimension");
    for (int64_t d : *shape)
      if (d <= 0 || d > (int64_t(1) << 24))
        return error(argloc(0), fnName +
                                    " dimensions must be between 1 and "
                                    "2^24, got " +
                                    formatShape(*shape));
    std::optional<DType> dt =
        requireDType(argv(1), argloc(1), fnName + " dtype");
    if (!dt)
      return std::nullopt;
    Type elem = dtypeToMLIR(ctx, *dt);
    if (!elem.isIntOrFloat() || elem.isInteger(1))
      return error(argloc(1), fnName +
                                  " dtype must be an integer or float "
                                  "type of 8 bits or more, got " +
                                  typeString(elem));
    std::optional<Attribute> layout =
        requireSharedLayout(args[2], fnName, "kt.SwizzledSharedLayout(...)");
    if (!layout)
      return std::nullopt;
    auto type = getCheckedType<SharedBufferType>(
        has(2) ? argloc(2) : at, fnName, ArrayRef<int64_t>(*shape), elem,
        *layout);
    if (!type)
      return std::nullopt;
    return DValue::of(
        kda::tile::AllocSharedOp::create(builder, l, type).getResult());
  }

  // The rest take a buffer first.
  if (!isSharedBuffer(argv(0)))
    return error(argloc(0), fnName +
                                " needs a shared buffer (from "
                                "kt.alloc_shared), got " +
                                describe(argv(0)));
  Value buffer = argv(0).value;
  auto bufferType = cast<SharedBufferType>(buffer.getType());
  SmallVector<int64_t> shape(bufferType.getShape());
  Type elem = bufferType.getElementType();

  if (name == "smem.index") {
    if (shape.size() < 2)
      return error(at, fnName +
                           " needs a buffer of two or more dimensions, "
                           "got " +
                           formatShape(shape));
    if (bufferType.getLayout() && shape.size() < 3)
      return error(at, fnName + " cannot take a row of a buffer with a layout "
                                "(its elements are placed by row): read the "
                                "whole buffer with .load()");
    DValue &index = argv(1);
    bool isInt = index.isConstKind(Constant::Kind::Int) ||
                 (index.isRuntime() && shapeOf(index).empty() &&
                  elementTypeOf(index).isInteger() &&
                  !elementTypeOf(index).isInteger(1));
    if (!isInt)
      return error(argloc(1), fnName +
                                  " index must be an integer scalar, "
                                  "got " +
                                  describe(index));
    if (index.isConst() &&
        (index.constant.intValue < 0 || index.constant.intValue >= shape[0]))
      return error(argloc(1), fnName + " index " +
                                  std::to_string(index.constant.intValue) +
                                  " is out of range for a leading dimension "
                                  "of " +
                                  std::to_string(shape[0]));
    std::optional<Value> i = coerce(index, builder.getI32Type(), {}, argloc(1));
    if (!i)
      return std::nullopt;
    return DValue::of(kda::tile::SmemIndexOp::create(
                          builder, l, bufferType.getSliceType(), buffer, *i)
                          .getResult());
  }
  if (name == "smem.load") {
    Attribute layout;
    if (has(1)) {
      if (argv(1).kind != DValue::Kind::Layout)
        return error(argloc(1), "layout must be a layout such as "
                                "kt.BlockedLayout(...), got " +
                                    describe(argv(1)));
      layout = argv(1).attr;
      if (!checkLayout(layout, shape, elem, argloc(1)))
        return std::nullopt;
    }
    auto type = RankedTensorType::get(shape, elem, layout);
    return DValue::of(
        kda::tile::SmemLoadOp::create(builder, l, type, buffer).getResult());
  }
  if (name == "smem.store") {
    DValue &value = argv(1);
    if (value.isRuntime() && !shapeOf(value).empty() &&
        !broadcastShapes(shapeOf(value), shape, argloc(1)))
      return std::nullopt;
    if (value.isRuntime() && isa<PointerType>(elementTypeOf(value)))
      return error(argloc(1),
                   fnName + " cannot store pointers, got " + describe(value));
    // (coerce reports a value that does not broadcast to the buffer shape.)
    std::optional<Value> v =
        coerce(value, elem, shape, argloc(1),
               value.isRuntime() ? encodingOf(value.value) : Attribute());
    if (!v)
      return std::nullopt;
    kda::tile::SmemStoreOp::create(builder, l, buffer, *v);
    return none();
  }
  // async_copy(buffer, pointer, mask)
  DValue &ptr = argv(1);
  Type ptrElem = ptr.isRuntime() ? elementTypeOf(ptr) : Type();
  auto ptrType = dyn_cast_or_null<PointerType>(ptrElem);
  if (!ptrType || shapeOf(ptr).empty())
    return error(argloc(1),
                 fnName + " needs a tile of pointers, got " + describe(ptr));
  if (ptrType.getPointeeType() != elem)
    return error(argloc(1), fnName + " copies " + typeString(elem) +
                                " elements into this buffer, got pointers "
                                "to " +
                                typeString(ptrType.getPointeeType()));
  if (shapeOf(ptr) != shape)
    return error(argloc(1), fnName + " pointer tile of shape " +
                                formatShape(shapeOf(ptr)) +
                                " does not match the buffer shape " +
                                formatShape(shape));
  Value mask;
  if (has(2)) {
    DValue &m = argv(2);
    bool isBool = m.isConstKind(Constant::Kind::Bool) ||
                  (m.isRuntime() && elementTypeOf(m).isInteger(1));
    if (!isBool)
      return error(argloc(2), fnName +
                                  " mask must be a boolean (i1) scalar or "
                                  "tile, got " +
                                  describe(m));
    if (m.isRuntime() && !broadcastShapes(shapeOf(m), shape, argloc(2)))
      return std::nullopt;
    std::optional<Value> mv =
        coerce(m, builder.getI1Type(), shape, argloc(2), encodingOf(ptr.value));
    if (!mv)
      return std::nullopt;
    mask = *mv;
  }
  kda::tile::AsyncCopyOp::create(builder, l, buffer, ptr.value, mask);
  return none();
}
