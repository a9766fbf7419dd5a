//===- TensorDescBuiltins.cpp - tensor descriptors and block copies -------===//
//
// `desc = kt.make_tensor_descriptor(base, shape, strides, block_shape,
// layout=None, copies=None)` describes a strided global tensor read and
// written in blocks (landing in shared buffers of `layout`, when given; with
// copies="elements" never through a copy engine);
// `kt.async_load(desc, offsets, buf)` starts copying the block at `offsets`
// into a shared buffer of the block's shape (outside elements read as zeros;
// `kt.async_wait` counts it as one copy) and `kt.async_store(desc, offsets,
// buf)` writes a buffer back (outside elements are not written).
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;
using kda::tile::PointerType;
using kda::tile::SharedBufferType;
using kda::tile::TensorDescType;

bool Emitter::isTensorDesc(const DValue &value) {
  return value.isRuntime() && isa<TensorDescType>(value.value.getType());
}

/// The scalars of a tuple or list `value`, each converted to `type`: one per
/// dimension (`rank` of them).
std::optional<SmallVector<Value>>
Emitter::requireScalars(const DValue &value, SourceLoc at, size_t rank,
                        Type type, const std::string &what) {
  if (value.kind != DValue::Kind::Tuple || value.elements.size() != rank)
    return error(at, what +
                         " must be a tuple of one integer per block "
                         "dimension (" +
                         std::to_string(rank) + "), got " + describe(value));
  SmallVector<Value> out;
  for (const DValue &element : value.elements) {
    bool isInt = element.isConstKind(Constant::Kind::Int) ||
                 (element.isRuntime() && shapeOf(element).empty() &&
                  elementTypeOf(element).isInteger() &&
                  !elementTypeOf(element).isInteger(1));
    if (!isInt)
      return error(at, what + " must hold integers, got " + describe(element));
    std::optional<Value> v = coerce(element, type, {}, at);
    if (!v)
      return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<DValue> Emitter::tensorDescBuiltin(const std::string &name,
                                                 const std::string &fnName,
                                                 BoundArgs &args,
                                                 SourceLoc at) {
  auto argv = [&](size_t i) -> DValue & { return args[i]->value; };
  auto argloc = [&](size_t i) { return args[i]->loc; };
  Location l = loc(at);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();

  if (name == "make_tensor_descriptor") {
    DValue &base = argv(0);
    auto ptr = base.isRuntime() && shapeOf(base).empty()
                   ? dyn_cast<PointerType>(base.value.getType())
                   : PointerType();
    if (!ptr || ptr.getAddressSpace() != 1)
      return error(argloc(0), fnName +
                                  " base must be a pointer to global "
                                  "memory (a kernel argument), got " +
                                  describe(base));
    std::optional<SmallVector<int64_t>> block =
        requireShape(argv(3), argloc(3), fnName + " block_shape");
    if (!block)
      return std::nullopt;
    if (block->empty() || block->size() > 5)
      return error(argloc(3), fnName +
                                  " block_shape needs 1 to 5 "
                                  "dimensions, got " +
                                  formatShape(*block));
    for (int64_t d : *block)
      if (d <= 0 || !llvm::isPowerOf2_64(d) || d > (int64_t(1) << 16))
        return error(argloc(3), fnName +
                                    " block_shape dimensions must be powers "
                                    "of two up to 65536, got " +
                                    formatShape(*block));
    std::optional<SmallVector<Value>> shape = requireScalars(
        argv(1), argloc(1), block->size(), i32, fnName + " shape");
    if (!shape)
      return std::nullopt;
    std::optional<SmallVector<Value>> strides = requireScalars(
        argv(2), argloc(2), block->size(), i64, fnName + " strides");
    if (!strides)
      return std::nullopt;
    std::optional<Attribute> layout =
        requireSharedLayout(args[4], fnName, "kt.NVMMASharedLayout(...)");
    if (!layout)
      return std::nullopt;
    auto type = getCheckedType<TensorDescType>(args[4] ? argloc(4) : at, fnName,
                                               ArrayRef<int64_t>(*block),
                                               ptr.getPointeeType(), *layout);
    if (!type)
      return std::nullopt;
    bool elements = false;
    if (args[5]) {
      const DValue &copies = argv(5);
      if (!copies.isConstKind(Constant::Kind::Str) ||
          (copies.constant.str != "engine" && copies.constant.str != "elements"))
        return error(argloc(5), fnName +
                                    " copies must be \"engine\" or "
                                    "\"elements\", got " +
                                    describe(copies));
      elements = copies.constant.str == "elements";
    }
    auto desc = kda::tile::MakeTensorDescOp::create(builder, l, type, base.value,
                                                    *shape, *strides);
    if (elements)
      desc->setAttr(kda::tile::kElementCopiesAttrName, builder.getUnitAttr());
    return DValue::of(desc.getResult());
  }

  // async_load / async_store (desc, offsets, buffer)
  if (!isTensorDesc(argv(0)))
    return error(argloc(0), fnName +
                                " needs a tensor descriptor (from "
                                "kt.make_tensor_descriptor), got " +
                                describe(argv(0)));
  auto desc = cast<TensorDescType>(argv(0).value.getType());
  std::optional<SmallVector<Value>> offsets =
      requireScalars(argv(1), argloc(1), desc.getBlockShape().size(), i32,
                     fnName + " offsets");
  if (!offsets)
    return std::nullopt;
  if (!isSharedBuffer(argv(2)))
    return error(argloc(2), fnName +
                                " needs a shared buffer (from "
                                "kt.alloc_shared), got " +
                                describe(argv(2)));
  auto buffer = cast<SharedBufferType>(argv(2).value.getType());
  if (buffer.getShape() != desc.getBlockShape() ||
      buffer.getElementType() != desc.getElementType())
    return error(argloc(2), fnName + " buffer of " +
                                formatShape(buffer.getShape()) + " " +
                                typeString(buffer.getElementType()) +
                                " does not hold the descriptor's block of " +
                                formatShape(desc.getBlockShape()) + " " +
                                typeString(desc.getElementType()));
  if (desc.getLayout() && buffer.getLayout() != desc.getLayout())
    return error(argloc(2), fnName +
                                " buffer's layout is not the descriptor's "
                                "(kt.make_tensor_descriptor's layout): the "
                                "block would land in another arrangement");
  if (name == "async_load")
    kda::tile::AsyncLoadOp::create(builder, l, argv(0).value, *offsets,
                                   argv(2).value);
  else
    kda::tile::AsyncStoreOp::create(builder, l, argv(0).value, *offsets,
                                    argv(2).value);
  return DValue::of(Constant::none());
}
