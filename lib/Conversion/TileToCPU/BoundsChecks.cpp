//===- BoundsChecks.cpp - host accesses checked against their arrays ------===//
//
// With check-bounds, every global-memory access of a host kernel is checked
// against the extents of the pointer arguments it may derive from
// (kda/Analysis/PointerRoots.h). The launcher passes a table as a hidden
// argument:
//
//   word 0      void report(i64 *table, const char *site, i64 address,
//                           i32 argument)
//   words 1-3   the first failure: site, address, argument (report fills them)
//   word 4 + 2i the extent [begin, end) of runtime argument i, in bytes
//
// An access outside every extent it may reach calls report with its source
// position and is skipped (a load yields zero), so the kernel never touches
// memory outside its arrays and the launcher raises with the DSL line.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Analysis/PointerRoots.h"
#include "kda/Conversion/PrintToLLVM.h"
#include "kda/Conversion/SourceLocations.h"
#include "kda/Conversion/TileToCPU/TileToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kda;

namespace {
constexpr llvm::StringLiteral kRootsAttr = "tile.bounds_roots";
constexpr llvm::StringLiteral kTableAttr = "tile.bounds_table";
constexpr int32_t kHeaderWords = 4;

/// The global-memory pointer an op accesses, and what the access is called
/// in messages.
std::pair<Value, StringRef> getAccess(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return {load.getPtr(), "load"};
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return {store.getPtr(), "store"};
  if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
    return {atomic.getPtr(), "atomic"};
  if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
    return {copy.getPtr(), "async_copy"};
  return {};
}

/// "file:line:col: kt.load" of an access.
std::string describeSite(Operation *op) {
  std::string text;
  if (FileLineColLoc line = getSourceLine(op->getLoc()))
    text = (line.getFilename().getValue() + ":" + Twine(line.getLine()) + ":" +
            Twine(line.getColumn()) + ": ")
               .str();
  return text + "kt." + getAccess(op).second.str();
}
} // namespace

void kda::prepareBoundsChecks(func::FuncOp kernel) {
  PointerRoots roots(kernel);
  MLIRContext *ctx = kernel.getContext();
  kernel.walk([&](Operation *op) {
    Value ptr = getAccess(op).first;
    if (!ptr)
      return;
    SmallVector<int32_t> args(roots.getRoots(ptr));
    op->setAttr(kRootsAttr, DenseI32ArrayAttr::get(ctx, args));
  });
}

void kda::addBoundsTableArgument(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  unsigned index = kernel.getNumArguments();
  (void)kernel.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                              DictionaryAttr::get(ctx), kernel.getLoc());
  kernel->setAttr(kTableAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 32), index));
}

Value kda::guardAccess(OpBuilder &b, Location loc, Operation *op, Value address,
                       int64_t bytes, Type resultType,
                       function_ref<Value(OpBuilder &, Location)> access,
                       function_ref<Value(OpBuilder &, Location)> skipped) {
  auto rootsAttr = op->getAttrOfType<DenseI32ArrayAttr>(kRootsAttr);
  auto kernel = op->getParentOfType<func::FuncOp>();
  auto tableIndex =
      kernel ? kernel->getAttrOfType<IntegerAttr>(kTableAttr) : IntegerAttr();
  // A pointer that derives from no argument (none does) is not checked.
  if (!rootsAttr || rootsAttr.empty() || !tableIndex)
    return access(b, loc);
  Value table = kernel.getArgument(tableIndex.getInt());
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto word = [&](int32_t i) -> Value {
    Value slot = LLVM::GEPOp::create(b, loc, ptrTy, i64, table,
                                     ArrayRef<LLVM::GEPArg>{i});
    return LLVM::LoadOp::create(b, loc, i64, slot);
  };
  // In bounds when inside the extent of one argument it may derive from
  // (begin <= address and address + bytes <= end, unsigned, the sum not
  // wrapping around).
  Value end = arith::AddIOp::create(
      b, loc, address, arith::ConstantIntOp::create(b, loc, i64, bytes));
  Value noWrap =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, end, address);
  Value inBounds = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  for (int32_t arg : rootsAttr.asArrayRef()) {
    Value lo = word(kHeaderWords + 2 * arg);
    Value hi = word(kHeaderWords + 2 * arg + 1);
    Value above =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, address, lo);
    Value below =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, hi);
    inBounds = arith::OrIOp::create(
        b, loc, inBounds, arith::AndIOp::create(b, loc, above, below));
  }
  inBounds = arith::AndIOp::create(b, loc, inBounds, noWrap);
  TypeRange results = resultType ? TypeRange(resultType) : TypeRange();
  auto ifOp = scf::IfOp::create(b, loc, results, inBounds,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value value = access(b, loc);
  scf::YieldOp::create(b, loc, resultType ? ValueRange(value) : ValueRange());
  b.setInsertionPointToStart(ifOp.elseBlock());
  auto module = kernel->getParentOfType<ModuleOp>();
  Value site = getStringAddress(b, loc, module, describeSite(op), 0);
  int32_t root = rootsAttr.size() == 1 ? rootsAttr[0] : -1;
  Value report = LLVM::LoadOp::create(b, loc, ptrTy, table);
  LLVM::CallOp::create(
      b, loc,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {ptrTy, ptrTy, i64, i32}),
      ValueRange{report, table, site, address,
                 arith::ConstantIntOp::create(b, loc, i32, root)});
  Value fallback = resultType ? skipped(b, loc) : Value();
  scf::YieldOp::create(b, loc,
                       resultType ? ValueRange(fallback) : ValueRange());
  return resultType ? ifOp.getResult(0) : Value();
}
