//===- AtomicsToLLVM.h - tile atomics as LLVM atomicrmw ---------*- C++ -*-===//
//
// The one mapping of tile.atomic_rmw's kind and semantic to LLVM's, shared by
// the host and GPU lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_ATOMICSTOLLVM_H
#define KDA_CONVERSION_ATOMICSTOLLVM_H

#include "Tile/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kda {

/// The atomicrmw operation of `kind` on a value of `type` (float add is
/// fadd; max/min are signed and only on integers).
inline mlir::LLVM::AtomicBinOp getAtomicBinOp(tile::AtomicKind kind,
                                              mlir::Type type) {
  switch (kind) {
  case tile::AtomicKind::Add:
    return mlir::isa<mlir::FloatType>(type) ? mlir::LLVM::AtomicBinOp::fadd
                                            : mlir::LLVM::AtomicBinOp::add;
  case tile::AtomicKind::Max:
    return mlir::LLVM::AtomicBinOp::max;
  case tile::AtomicKind::Min:
    return mlir::LLVM::AtomicBinOp::min;
  case tile::AtomicKind::Xchg:
    break;
  }
  return mlir::LLVM::AtomicBinOp::xchg;
}

/// The LLVM ordering of a semantic (relaxed is monotonic).
inline mlir::LLVM::AtomicOrdering getAtomicOrdering(tile::MemorySemantic sem) {
  switch (sem) {
  case tile::MemorySemantic::Relaxed:
    break;
  case tile::MemorySemantic::Acquire:
    return mlir::LLVM::AtomicOrdering::acquire;
  case tile::MemorySemantic::Release:
    return mlir::LLVM::AtomicOrdering::release;
  case tile::MemorySemantic::AcqRel:
    return mlir::LLVM::AtomicOrdering::acq_rel;
  }
  return mlir::LLVM::AtomicOrdering::monotonic;
}

/// Whether `sem` orders the program's earlier accesses before the atomic
/// (release) or its later ones after it (acquire).
inline bool hasRelease(tile::MemorySemantic sem) {
  return sem == tile::MemorySemantic::Release ||
         sem == tile::MemorySemantic::AcqRel;
}
inline bool hasAcquire(tile::MemorySemantic sem) {
  return sem == tile::MemorySemantic::Acquire ||
         sem == tile::MemorySemantic::AcqRel;
}

} // namespace kda

#endif // KDA_CONVERSION_ATOMICSTOLLVM_H
