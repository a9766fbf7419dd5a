//===- PointerRoots.h - which pointer arguments a pointer derives from -*- C++
//-*-===//
//
// The pointer arguments of a tile-level kernel each pointer value may be
// derived from (through tile.addptr, splats, shape ops, selects, loop-carried
// values, ...). Launchers use it to refuse read-only arrays for arguments a
// kernel writes through (a read-only memory map would fault, an immutable
// buffer would be modified); the host's bounds checks use it to know which
// argument's extent an access must stay in.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_ANALYSIS_POINTERROOTS_H
#define KDA_ANALYSIS_POINTERROOTS_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace kda {

/// Conservative: a pointer that reaches a region op, a terminator or a call
/// taints every pointer result and block argument there, so an argument
/// missing from a value's roots is a proof, one present a possibility.
class PointerRoots {
public:
  explicit PointerRoots(mlir::FunctionOpInterface kernel);

  /// The indices of the arguments `pointer` may derive from, ascending.
  llvm::ArrayRef<unsigned> getRoots(mlir::Value pointer) const;

private:
  llvm::DenseMap<mlir::Value, llvm::SmallVector<unsigned, 1>> roots;
};

/// Per argument of `kernel`, whether a tile.store or tile.atomic_rmw may
/// write through a pointer derived from it.
llvm::SmallVector<bool> getWrittenArguments(mlir::FunctionOpInterface kernel);

} // namespace kda

#endif // KDA_ANALYSIS_POINTERROOTS_H
