//===- Layouts.cpp - explicit layouts in the DSL --------------------------===//
//
// Tiles carry no layout unless the kernel asks for one (kt.convert_layout,
// `layout=` on constructors); the layout pass chooses the rest and never
// changes those written in the DSL. The frontend's job is to keep the IR
// valid when layouts are present: operands of one op share the layout of
// the first operand that has one, a reduction of a laid-out tile yields a
// slice of its layout, and expanding a slice gives back its parent.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TensorEncoding.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

Attribute Emitter::encodingOf(Value value) {
  return layoutOfType(value.getType());
}

Attribute Emitter::layoutOfType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getEncoding();
  return {};
}

Attribute Emitter::commonEncoding(ArrayRef<const DValue *> operands,
                                  ArrayRef<int64_t> shape) {
  // A layout fits every shape of its rank, so an operand that is broadcast
  // to the result (`a[:, None] * b[None, :]`) lends its layout too; one of
  // the result's own shape wins.
  Attribute sameRank;
  for (const DValue *v : operands)
    if (v && v->isRuntime())
      if (auto t = dyn_cast<RankedTensorType>(v->value.getType()))
        if (t.getEncoding() && t.getRank() == (int64_t)shape.size()) {
          if (t.getShape() == shape)
            return t.getEncoding();
          if (!sameRank)
            sameRank = t.getEncoding();
        }
  return sameRank;
}

Value Emitter::withEncoding(Value value, Attribute encoding, SourceLoc at) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!encoding || !tensor || tensor.getEncoding() == encoding)
    return value;
  auto type = RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                                    encoding);
  return kda::tile::ConvertLayoutOp::create(builder, loc(at), type, value);
}

std::optional<Value> Emitter::broadcastToLayout(Value value,
                                                ArrayRef<int64_t> shape,
                                                Attribute encoding,
                                                SourceLoc at) {
  if (!isa<RankedTensorType>(value.getType()) && !shape.empty() && encoding) {
    auto type = RankedTensorType::get(shape, value.getType(), encoding);
    return kda::tile::SplatOp::create(builder, loc(at), type, value)
        .getResult();
  }
  // Convert before broadcasting: moving a [1, N] tile is cheap, moving the
  // [M, N] broadcast of it is not (and needs M times the scratch).
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (encoding && tensor && tensor.getRank() == (int64_t)shape.size())
    value = withEncoding(value, encoding, at);
  std::optional<Value> result = broadcastTo(value, shape, at);
  if (!result)
    return std::nullopt;
  return withEncoding(*result, encoding, at);
}

std::optional<Value> Emitter::expandDims(Value value, int64_t axis,
                                         SourceLoc at) {
  auto tensor = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(tensor.getShape());
  shape.insert(shape.begin() + axis, 1);
  Attribute resultLayout;
  if (auto slice =
          dyn_cast_or_null<kda::tile::SliceLayoutAttr>(tensor.getEncoding())) {
    if (slice.getDim() != axis)
      return error(at, "cannot expand a tile with layout " + attrString(slice) +
                           " at axis " + std::to_string(axis) +
                           "; expand it at axis " +
                           std::to_string(slice.getDim()) +
                           " or convert its layout first");
    resultLayout = slice.getParent();
  }
  auto type =
      RankedTensorType::get(shape, tensor.getElementType(), resultLayout);
  return kda::tile::ExpandDimsOp::create(builder, loc(at), type, value,
                                         builder.getI32IntegerAttr(axis))
      .getResult();
}

bool Emitter::checkLayout(Attribute layout, ArrayRef<int64_t> shape, Type elem,
                          SourceLoc at) {
  if (kda::tile::isSharedLayout(layout)) {
    error(at, "a shared-memory layout places a kt.alloc_shared buffer, not a "
              "tile: give tiles a layout such as kt.BlockedLayout(...)");
    return false;
  }
  auto verifiable = dyn_cast<VerifiableTensorEncoding>(layout);
  if (!verifiable)
    return true;
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  if (succeeded(verifiable.verifyEncoding(
          shape, elem, [&] { return mlir::emitError(loc(at)); })))
    return true;
  error(at, "the layout does not fit a tile of type " +
                typeString(RankedTensorType::get(shape, elem)) +
                (message.empty() ? "" : ": " + message));
  return false;
}

std::optional<Attribute>
Emitter::requireSharedLayout(const std::optional<Arg> &arg,
                             const std::string &fnName, StringRef example) {
  if (!arg)
    return Attribute();
  if (arg->value.kind != DValue::Kind::Layout ||
      !kda::tile::isSharedLayout(arg->value.attr))
    return error(arg->loc, fnName +
                               " layout must be a shared-memory layout "
                               "such as " +
                               example + ", got " + describe(arg->value));
  return arg->value.attr;
}

/// A list of small non-negative ints (a layout parameter).
static std::optional<SmallVector<unsigned>>
unsignedList(Emitter &e, const DValue &value, SourceLoc at,
             const std::string &what) {
  SmallVector<unsigned> out;
  auto one = [&](const DValue &v) {
    std::optional<int64_t> n = e.requireInt(v, at, what);
    if (!n)
      return false;
    if (*n < 0 || *n > (1 << 20)) {
      e.error(at, what + " entries must be non-negative, got " +
                      std::to_string(*n));
      return false;
    }
    out.push_back(static_cast<unsigned>(*n));
    return true;
  };
  if (value.kind == DValue::Kind::Tuple) {
    for (const DValue &v : value.elements)
      if (!one(v))
        return std::nullopt;
  } else if (!one(value)) {
    return std::nullopt;
  }
  return out;
}

/// The first `names.size()` arguments of layout `builtin` as ints in [1,
/// 1024], each named in its error.
static std::optional<SmallVector<unsigned>>
smallIntParams(Emitter &e, BoundArgs &args, const char *builtin,
               ArrayRef<const char *> names) {
  SmallVector<unsigned> params;
  for (auto [i, name] : llvm::enumerate(names)) {
    std::string what = std::string(builtin) + "() " + name;
    std::optional<int64_t> n = e.requireInt(args[i]->value, args[i]->loc, what);
    if (!n)
      return std::nullopt;
    if (*n < 1 || *n > 1024)
      return e.error(args[i]->loc, what + " must be between 1 and 1024, got " +
                                       std::to_string(*n));
    params.push_back(static_cast<unsigned>(*n));
  }
  return params;
}

std::optional<DValue> Emitter::layoutBuiltin(const std::string &name,
                                             BoundArgs &args, SourceLoc at) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitErr = [&] { return mlir::emitError(loc(at)); };
  DValue v;
  v.kind = DValue::Kind::Layout;
  v.name = name;
  if (name == "BlockedLayout") {
    const char *what[] = {"size_per_thread", "threads_per_warp",
                          "warps_per_cta", "order"};
    SmallVector<SmallVector<unsigned>> lists;
    for (size_t i = 0; i < 4; ++i) {
      std::optional<SmallVector<unsigned>> list =
          unsignedList(*this, args[i]->value, args[i]->loc, what[i]);
      if (!list)
        return std::nullopt;
      lists.push_back(*list);
    }
    v.attr = kda::tile::BlockedLayoutAttr::getChecked(
        emitErr, &ctx, ArrayRef<unsigned>(lists[0]),
        ArrayRef<unsigned>(lists[1]), ArrayRef<unsigned>(lists[2]),
        ArrayRef<unsigned>(lists[3]));
  } else if (name == "MmaLayout") {
    auto text = [&](size_t i) -> std::optional<std::string> {
      if (!args[i]->value.isConstKind(Constant::Kind::Str))
        return error(args[i]->loc,
                     "kt.MmaLayout() " + std::string(i ? "operand" : "instr") +
                         " must be a string, got " + describe(args[i]->value));
      return args[i]->value.constant.str;
    };
    std::optional<std::string> instrName = text(0), operandName = text(1);
    if (!instrName || !operandName)
      return std::nullopt;
    std::optional<kda::tile::MatrixInstr> instr =
        kda::tile::symbolizeMatrixInstr(*instrName);
    if (!instr) {
      // The names the tile dialect's MatrixInstr enum spells.
      std::string names;
      unsigned last = kda::tile::getMaxEnumValForMatrixInstr();
      for (unsigned i = 0; i <= last; ++i)
        names += (i == 0      ? "'"
                  : i == last ? " or '"
                              : ", '") +
                 kda::tile::stringifyMatrixInstr(
                     static_cast<kda::tile::MatrixInstr>(i))
                     .str() +
                 "'";
      return error(args[0]->loc, "kt.MmaLayout() instr must be " + names +
                                     ", got '" + *instrName + "'");
    }
    std::optional<kda::tile::MatrixOperand> operand =
        kda::tile::symbolizeMatrixOperand(*operandName);
    if (!operand)
      return error(args[1]->loc,
                   "kt.MmaLayout() operand must be 'a', 'b' or 'c', got '" +
                       *operandName + "'");
    std::optional<SmallVector<unsigned>> warps =
        unsignedList(*this, args[2]->value, args[2]->loc, "warps_per_cta");
    if (!warps)
      return std::nullopt;
    v.attr = kda::tile::MmaLayoutAttr::getChecked(
        emitErr, &ctx, *instr, *operand, ArrayRef<unsigned>(*warps));
  } else if (name == "SwizzledSharedLayout") {
    std::optional<SmallVector<unsigned>> params =
        smallIntParams(*this, args, "kt.SwizzledSharedLayout",
                       {"vec", "per_phase", "max_phase"});
    if (!params)
      return std::nullopt;
    std::optional<SmallVector<unsigned>> order =
        unsignedList(*this, args[3]->value, args[3]->loc, "order");
    if (!order)
      return std::nullopt;
    v.attr = kda::tile::SwizzledSharedLayoutAttr::getChecked(
        emitErr, &ctx, (*params)[0], (*params)[1], (*params)[2],
        ArrayRef<unsigned>(*order));
  } else if (name == "NVMMASharedLayout") {
    std::optional<SmallVector<unsigned>> params =
        smallIntParams(*this, args, "kt.NVMMASharedLayout",
                       {"swizzle_byte_width", "element_bitwidth"});
    if (!params)
      return std::nullopt;
    v.attr = kda::tile::NVMMASharedLayoutAttr::getChecked(
        emitErr, &ctx, (*params)[0], (*params)[1]);
  } else if (name == "PaddedSharedLayout") {
    std::optional<SmallVector<unsigned>> params = smallIntParams(
        *this, args, "kt.PaddedSharedLayout", {"interval", "padding"});
    if (!params)
      return std::nullopt;
    std::optional<SmallVector<unsigned>> order =
        unsignedList(*this, args[2]->value, args[2]->loc, "order");
    if (!order)
      return std::nullopt;
    v.attr = kda::tile::PaddedSharedLayoutAttr::getChecked(
        emitErr, &ctx, (*params)[0], (*params)[1], ArrayRef<unsigned>(*order));
  } else { // SliceLayout
    std::optional<int64_t> dim =
        requireInt(args[0]->value, args[0]->loc, "kt.SliceLayout() dim");
    if (!dim)
      return std::nullopt;
    if (args[1]->value.kind != DValue::Kind::Layout)
      return error(args[1]->loc, "kt.SliceLayout() parent must be a layout, "
                                 "got " +
                                     describe(args[1]->value));
    if (*dim < 0)
      return error(args[0]->loc, "kt.SliceLayout() dim must be "
                                 "non-negative");
    Attribute parent = args[1]->value.attr;
    v.attr = kda::tile::SliceLayoutAttr::getChecked(
        emitErr, &ctx, static_cast<unsigned>(*dim), parent);
  }
  if (!v.attr)
    return error(at, "invalid kt." + name + "(): " +
                         (message.empty() ? "bad parameters" : message));
  return v;
}
