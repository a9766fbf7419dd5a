//===- WrittenArguments.h - pointer arguments a kernel stores through ---===//
//
// Which pointer arguments of a tile-level kernel may be written through: a
// launcher uses it to refuse read-only arrays for them (a read-only memory
// map would fault, an immutable buffer would be modified).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_ANALYSIS_WRITTENARGUMENTS_H
#define KDA_ANALYSIS_WRITTENARGUMENTS_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

namespace kda {

/// Per argument of `kernel`, whether a tile.store or tile.atomic_rmw may
/// write through a pointer derived from it. Conservative: a pointer that
/// reaches a region op, a terminator or a call taints every pointer result
/// and block argument there, so "false" is a proof, "true" a possibility.
llvm::SmallVector<bool> getWrittenArguments(mlir::FunctionOpInterface kernel);

} // namespace kda

#endif // KDA_ANALYSIS_WRITTENARGUMENTS_H
