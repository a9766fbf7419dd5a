//===- TileAttrs.cpp - tile layouts ---------------------------------------===//
#include "Tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kda::tile;

#define GET_ATTRDEF_CLASSES
#include "Tile/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tile/TileAttrs.cpp.inc"
      >();
}

static LogicalResult
verifyPermutation(function_ref<InFlightDiagnostic()> emitError,
                  ArrayRef<unsigned> order) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d])
      return emitError() << "order must be a permutation of [0, "
                         << order.size() << ")";
    seen[d] = true;
  }
  return success();
}

static LogicalResult
verifyPowersOfTwo(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                  ArrayRef<unsigned> values) {
  for (unsigned v : values)
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError() << name << " entries must be powers of two, got " << v;
  return success();
}

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0)
    return emitError() << "blocked layout needs at least one dimension";
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp, warpsPerCTA and "
                          "order must have the same length";
  if (failed(verifyPowersOfTwo(emitError, "sizePerThread", sizePerThread)) ||
      failed(verifyPowersOfTwo(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)))
    return failure();
  return verifyPermutation(emitError, order);
}

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned n = 1;
  for (unsigned w : getWarpsPerCTA())
    n *= w;
  return n;
}

unsigned BlockedLayoutAttr::getWaveSize() const {
  unsigned n = 1;
  for (unsigned t : getThreadsPerWarp())
    n *= t;
  return n;
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      MatrixInstr instr, MatrixOperand operand,
                      ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout warpsPerCTA must be [along M, along N]";
  if (failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)))
    return failure();
  // wgmma reads its operands from shared memory and stacks its warpgroups'
  // 64-row blocks along M.
  if (instr == MatrixInstr::WgmmaM64K16) {
    if (operand != MatrixOperand::C)
      return emitError() << "wgmma_m64k16 operands a and b stay in shared "
                            "memory: only its accumulator c has a layout";
    if (warpsPerCTA[0] % 4 || warpsPerCTA[1] != 1)
      return emitError() << "wgmma_m64k16 needs warpsPerCTA = [4 * "
                            "warpgroups, 1]";
  }
  return success();
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  if (!isDistributedLayout(parent))
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  unsigned parentRank = getLayoutRank(parent);
  if (parentRank < 2)
    return emitError() << "cannot slice a rank-" << parentRank << " layout";
  if (dim >= parentRank)
    return emitError() << "slice dim " << dim << " out of range for a rank-"
                       << parentRank << " parent";
  return success();
}

LogicalResult
SwizzledSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned vec, unsigned perPhase,
                                 unsigned maxPhase, ArrayRef<unsigned> order) {
  if (failed(verifyPowersOfTwo(emitError, "vec/perPhase/maxPhase",
                               {vec, perPhase, maxPhase})))
    return failure();
  return verifyPermutation(emitError, order);
}

LogicalResult
NVMMASharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned swizzleBytes, unsigned elementBits) {
  if (swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128)
    return emitError() << "nvmma_shared swizzleBytes must be 32, 64 or 128, "
                          "got "
                       << swizzleBytes;
  if (elementBits != 8 && elementBits != 16 && elementBits != 32)
    return emitError() << "nvmma_shared elementBits must be 8, 16 or 32, got "
                       << elementBits;
  return success();
}

LogicalResult
PaddedSharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned interval, unsigned padding,
                               ArrayRef<unsigned> order) {
  if (failed(verifyPowersOfTwo(emitError, "interval", {interval})))
    return failure();
  if (padding == 0)
    return emitError() << "padded_shared padding must be positive";
  return verifyPermutation(emitError, order);
}

static LogicalResult
verifyLayoutRank(function_ref<InFlightDiagnostic()> emitError, Attribute layout,
                 ArrayRef<int64_t> shape) {
  if (getLayoutRank(layout) != shape.size())
    return emitError() << "layout " << layout << " has rank "
                       << getLayoutRank(layout) << " but the tile has rank "
                       << shape.size();
  return success();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(emitError, *this, shape);
}

LogicalResult SliceLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyLayoutRank(emitError, *this, shape);
}

LogicalResult MmaLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyLayoutRank(emitError, *this, shape)))
    return failure();
  bool accumulator = getOperand() == MatrixOperand::C;
  bool holdsF32 = accumulator || takesFloat32Operands(getInstr());
  if (holdsF32 ? !elementType.isF32()
               : !isa<BFloat16Type, Float16Type>(elementType))
    return emitError() << "mma layout operand "
                       << stringifyMatrixOperand(getOperand()) << " holds "
                       << (holdsF32 ? "f32" : "bf16 or f16")
                       << " elements, not " << elementType;
  return success();
}

bool kda::tile::takesFloat32Operands(MatrixInstr instr) {
  return instr == MatrixInstr::MmaM16N8K8Tf32 ||
         instr == MatrixInstr::Mfma16x16x4F32;
}

bool kda::tile::isDistributedLayout(Attribute attr) {
  return isa_and_nonnull<BlockedLayoutAttr, SliceLayoutAttr, MmaLayoutAttr>(
      attr);
}

bool kda::tile::isSharedLayout(Attribute attr) {
  return isa_and_nonnull<SwizzledSharedLayoutAttr, NVMMASharedLayoutAttr,
                         PaddedSharedLayoutAttr>(attr);
}

unsigned kda::tile::getLayoutRank(Attribute layout) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout))
    return blocked.getRank();
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout))
    return getLayoutRank(slice.getParent()) - 1;
  if (isa<MmaLayoutAttr>(layout))
    return 2;
  if (auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(layout))
    return swizzled.getOrder().size();
  if (isa<NVMMASharedLayoutAttr>(layout))
    return 2;
  if (auto padded = dyn_cast<PaddedSharedLayoutAttr>(layout))
    return padded.getOrder().size();
  return 0;
}
