//===- HintBuiltins.cpp - kt.multiple_of / kt.max_contiguous --------------===//
//
// Alignment hints: facts about an integer or pointer value that the compiler
// cannot prove (an offset computed from runtime sizes the caller keeps
// aligned), recorded on the value's defining op for the axis analysis, which
// picks the vector width of loads and stores from them. A wrong hint is a
// wrong program (misaligned vector accesses), as in Triton.
//
//===----------------------------------------------------------------------===//
#include "Emitter.h"
#include "Tile/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace kda::frontend;
using namespace kda::frontend::detail;

std::optional<DValue> Emitter::hintBuiltin(const std::string &name,
                                           const std::string &fnName,
                                           BoundArgs &args, SourceLoc at) {
  DValue &input = args[0]->value;
  SourceLoc inputAt = args[0]->loc, valuesAt = args[1]->loc;
  if (!input.isRuntime())
    return error(inputAt, fnName +
                              " needs a runtime integer or pointer "
                              "value, got " +
                              describe(input));
  Value value = input.value;
  Type elem = getElementTypeOrSelf(value.getType());
  if (!isa<IntegerType, tile::PointerType>(elem))
    return error(inputAt, fnName + " needs integers or pointers, got " +
                              describe(input));
  auto type = dyn_cast<RankedTensorType>(value.getType());
  size_t rank = type ? type.getRank() : 1;
  SmallVector<int64_t> values;
  if (args[1]->value.kind == DValue::Kind::Tuple) {
    std::optional<SmallVector<int64_t>> v =
        requireShape(args[1]->value, valuesAt, fnName + " values");
    if (!v)
      return std::nullopt;
    values = *v;
  } else {
    std::optional<int64_t> v = requireInt(args[1]->value, valuesAt, "values");
    if (!v)
      return std::nullopt;
    values.assign(rank, *v);
  }
  if (values.size() != rank)
    return error(valuesAt, fnName + " got " + std::to_string(values.size()) +
                               " values for a value of rank " +
                               std::to_string(rank) +
                               " (one per dimension, or one for all)");
  for (int64_t v : values)
    if (v < 1 || (v & (v - 1)))
      return error(valuesAt, fnName + " values must be powers of two, got " +
                                 std::to_string(v));
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return error(inputAt, fnName +
                              " needs a value computed in the kernel (a "
                              "parameter's alignment comes from its "
                              "specialization, e.g. the ':16' of a signature)");
  StringRef attr = name == "multiple_of" ? tile::kMultipleOfAttrName
                                         : tile::kMaxContiguousAttrName;
  if (auto old = def->getAttrOfType<DenseI64ArrayAttr>(attr))
    for (auto [v, o] : llvm::zip(values, old.asArrayRef()))
      v = std::max(v, o);
  def->setAttr(attr, DenseI64ArrayAttr::get(builder.getContext(), values));
  return input;
}
