//===- TileOps.cpp - tile dialect operations ------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace kda::tile;

#define GET_OP_CLASSES
#include "Tile/TileOps.cpp.inc"

static int64_t getNumElements(RankedTensorType type) {
  int64_t n = 1;
  for (int64_t d : type.getShape())
    n *= d;
  return n;
}

LogicalResult RangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-D tile, got ") << type;
  // I32Attr getters are unsigned: read the attributes as signed values.
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError("end (")
           << end << ") must be greater than start (" << start << ")";
  if (type.getDimSize(0) != end - start)
    return emitOpError("result has ")
           << type.getDimSize(0) << " elements but the range holds "
           << end - start;
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ: ")
           << src.getElementType() << " vs " << dst.getElementType();
  if (src.getRank() != dst.getRank())
    return emitOpError("source rank ")
           << src.getRank() << " differs from result rank " << dst.getRank();
  for (auto [i, s, d] : llvm::enumerate(src.getShape(), dst.getShape()))
    if (s != d && s != 1)
      return emitOpError("dimension ")
             << i << " of size " << s << " cannot broadcast to " << d;
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto dst = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ")
           << axis << " out of range [0, " << src.getRank() << "]";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (dst.getElementType() != src.getElementType())
    return emitOpError("element types differ: ")
           << src.getElementType() << " vs " << dst.getElementType();
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("expected result shape ")
           << llvm::interleaved(expected, "x") << ", got " << dst;
  // Expanding a slice gives back its parent layout.
  if (auto slice = dyn_cast_or_null<SliceLayoutAttr>(src.getEncoding()))
    if (slice.getDim() != axis || slice.getParent() != dst.getEncoding())
      return emitOpError("expanding a tile with layout ")
             << slice << " at axis " << axis << " must give layout "
             << slice.getParent() << " at axis " << slice.getDim();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ");
  if (getNumElements(src) != getNumElements(dst))
    return emitOpError("source has ")
           << getNumElements(src) << " elements but result has "
           << getNumElements(dst);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto dst = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int32_t> order = getOrder();
  if (static_cast<int64_t>(order.size()) != src.getRank())
    return emitOpError("order has ") << order.size() << " entries for a rank-"
                                     << src.getRank() << " tile";
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t d : order) {
    if (d < 0 || d >= src.getRank() || seen[d])
      return emitOpError("order is not a permutation");
    seen[d] = true;
    expected.push_back(src.getDimSize(d));
  }
  // Layouts may differ: a transposed tile's layout is permuted too.
  auto expectedType =
      RankedTensorType::get(expected, src.getElementType(), dst.getEncoding());
  if (dst != expectedType)
    return emitOpError("expected result type ")
           << expectedType << ", got " << dst;
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = getSrc().getType();
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("source and result differ in more than their layout: ")
           << src << " vs " << dst;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

LogicalResult AddPtrOp::verify() {
  auto ptrTensor = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTensor = dyn_cast<RankedTensorType>(getOffset().getType());
  if (static_cast<bool>(ptrTensor) != static_cast<bool>(offTensor))
    return emitOpError("pointer and offset must both be tiles or both scalars");
  if (ptrTensor && ptrTensor.getShape() != offTensor.getShape())
    return emitOpError("pointer shape and offset shape differ");
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (auto attr = dyn_cast_or_null<IntegerAttr>(adaptor.getOffset()))
    if (attr.getValue().isZero())
      return getPtr();
  if (auto attr = dyn_cast_or_null<SplatElementsAttr>(adaptor.getOffset()))
    if (attr.getSplatValue<APInt>().isZero())
      return getPtr();
  return {};
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("'other' requires a mask");
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult AtomicRMWOp::verify() {
  Type elem = getElementTypeOrSelf(getValue().getType());
  if (!elem.isInteger(32) && !elem.isInteger(64) && !elem.isF32())
    return emitOpError("needs i32, i64 or f32 values, got ") << elem;
  if (isa<FloatType>(elem) && getKind() != AtomicKind::Add &&
      getKind() != AtomicKind::Xchg)
    return emitOpError("'")
           << stringifyAtomicKind(getKind())
           << "' needs an integer value; floats support add and xchg";
  return success();
}

Value kda::tile::buildCombine(OpBuilder &b, Location loc, ReduceKind kind,
                              Value lhs, Value rhs) {
  Type elem = getElementTypeOrSelf(lhs.getType());
  bool isFloat = isa<FloatType>(elem);
  // Signed max/min would treat true as -1.
  if (elem.isInteger(1) && (kind == ReduceKind::Max || kind == ReduceKind::Min))
    return kind == ReduceKind::Max
               ? Value(arith::OrIOp::create(b, loc, lhs, rhs))
               : Value(arith::AndIOp::create(b, loc, lhs, rhs));
  switch (kind) {
  case ReduceKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  case ReduceKind::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MulIOp::create(b, loc, lhs, rhs));
  case ReduceKind::Max:
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MaxSIOp::create(b, loc, lhs, rhs));
  case ReduceKind::Min:
    return isFloat ? Value(arith::MinimumFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MinSIOp::create(b, loc, lhs, rhs));
  }
  llvm_unreachable("unknown reduction kind");
}

Value kda::tile::buildRoundToTF32(OpBuilder &b, Location loc, Value x) {
  // Adding half of the dropped 13 bits' range to the magnitude, then
  // clearing them, rounds to nearest with ties away from zero; infinities
  // stay and the largest values round to infinity.
  Type i32 = b.getI32Type();
  Type intType = isa<ShapedType>(x.getType())
                     ? Type(cast<ShapedType>(x.getType()).clone(i32))
                     : i32;
  auto constant = [&](uint32_t v) -> Value {
    TypedAttr attr = b.getI32IntegerAttr(int32_t(v));
    if (auto shaped = dyn_cast<ShapedType>(intType))
      attr = DenseElementsAttr::get(shaped, attr);
    return arith::ConstantOp::create(b, loc, attr);
  };
  Value bits = arith::BitcastOp::create(b, loc, intType, x);
  Value rounded = arith::BitcastOp::create(
      b, loc, x.getType(),
      arith::AndIOp::create(
          b, loc, arith::AddIOp::create(b, loc, bits, constant(0x1000)),
          constant(0xFFFFE000u)));
  // A NaN with a small payload would carry into the exponent.
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNaN, x, rounded);
}

TypedAttr kda::tile::getCombineIdentity(OpBuilder &b, ReduceKind kind,
                                        Type type) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case ReduceKind::Sum:
      return b.getFloatAttr(type, 0.0);
    case ReduceKind::Prod:
      return b.getFloatAttr(type, 1.0);
    case ReduceKind::Max:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/true));
    case ReduceKind::Min:
      return b.getFloatAttr(type, APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (kind) {
  case ReduceKind::Sum:
    return b.getIntegerAttr(type, 0);
  case ReduceKind::Prod:
    return b.getIntegerAttr(type, 1);
  case ReduceKind::Max:
    return b.getIntegerAttr(type, width == 1 ? APInt(1, 0)
                                             : APInt::getSignedMinValue(width));
  case ReduceKind::Min:
    return b.getIntegerAttr(type, width == 1 ? APInt(1, 1)
                                             : APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown reduction kind");
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ")
           << axis << " out of range for a rank-" << src.getRank() << " tile";
  Type elem = src.getElementType();
  if (isa<PointerType>(elem))
    return emitOpError("cannot reduce a tile of pointers");
  ReduceKind kind = getKind();
  if (elem.isInteger(1) &&
      (kind == ReduceKind::Sum || kind == ReduceKind::Prod))
    return emitOpError("cannot ")
           << stringifyReduceKind(kind)
           << " i1 values: widen them to an integer type";
  Type expected = elem;
  if (src.getRank() > 1) {
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    // A distributed source's reduction lives on the threads that held it.
    Attribute layout;
    if (Attribute parent = src.getEncoding())
      layout = SliceLayoutAttr::get(getContext(), axis, parent);
    expected = RankedTensorType::get(shape, elem, layout);
  }
  if (getResult().getType() != expected)
    return emitOpError("expected result type ")
           << expected << ", got " << getResult().getType();
  return success();
}

LogicalResult ScanOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       ValueRange operands, DictionaryAttr,
                                       OpaqueProperties, RegionRange,
                                       SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult ScanOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one source");
  auto first = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= first.getRank())
    return emitOpError("axis ")
           << axis << " out of range for a rank-" << first.getRank() << " tile";
  for (Value src : getSrcs()) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape() ||
        type.getEncoding() != first.getEncoding())
      return emitOpError("sources must share one shape and layout, got ")
             << first << " and " << type;
    if (isa<PointerType>(type.getElementType()))
      return emitOpError("cannot scan a tile of pointers");
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  Block &body = getCombiner().front();
  size_t n = getSrcs().size();
  SmallVector<Type> elems;
  for (Value src : getSrcs())
    elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
  SmallVector<Type> expectedArgs(elems);
  llvm::append_range(expectedArgs, elems);
  if (TypeRange(body.getArgumentTypes()) != TypeRange(expectedArgs))
    return emitOpError("combiner must take ")
           << 2 * n << " scalars (running values, then elements) of the "
           << "sources' element types";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || TypeRange(yield.getValues().getTypes()) != TypeRange(elems))
    return emitOpError("combiner must yield ")
           << n << " scalars of the sources' element types";
  WalkResult walk = body.walk([&](Operation *op) {
    bool tiles =
        llvm::any_of(op->getOperandTypes(), llvm::IsaPred<ShapedType>) ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<ShapedType>);
    if (tiles || !isMemoryEffectFree(op)) {
      op->emitOpError("in a scan combiner must compute on scalars without "
                      "touching memory");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType();
  auto c = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("contraction sizes differ: a is ")
           << a.getDimSize(0) << "x" << a.getDimSize(1) << ", b is "
           << b.getDimSize(0) << "x" << b.getDimSize(1);
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != b.getDimSize(1))
    return emitOpError("accumulator must be ")
           << a.getDimSize(0) << "x" << b.getDimSize(1);
  if (a.getElementType() != b.getElementType())
    return emitOpError("a and b element types differ: ")
           << a.getElementType() << " vs " << b.getElementType();
  if (getInputPrecision() == InputPrecision::TF32 &&
      !a.getElementType().isF32())
    return emitOpError("tf32 rounds fp32 operands, not ") << a.getElementType();
  return success();
}

LogicalResult PrintOp::verify() {
  for (auto [i, arg] : llvm::enumerate(getArgs()))
    if (isa<PointerType>(getElementTypeOrSelf(arg.getType())))
      return emitOpError("operand ")
             << i << " is a pointer; only numbers are printed";
  return success();
}
