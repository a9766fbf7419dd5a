//===- SourceLocations.h - the source line an op was written at -*- C++ -*-===//
//
// The frontend gives every op the DSL position that wrote it; an op of an
// inlined DSL call carries the call-site chain. Line tables and runtime
// messages name the innermost position: the line that wrote the op.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_SOURCELOCATIONS_H
#define KDA_CONVERSION_SOURCELOCATIONS_H

#include "mlir/IR/Location.h"

namespace kda {

/// The innermost file position of `loc` (the callee of an inlined call
/// chain); null when it names no file line.
inline mlir::FileLineColLoc getSourceLine(mlir::Location loc) {
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return file;
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return getSourceLine(callSite.getCallee());
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return getSourceLine(name.getChildLoc());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location part : fused.getLocations())
      if (mlir::FileLineColLoc file = getSourceLine(part))
        return file;
  return {};
}

} // namespace kda

#endif // KDA_CONVERSION_SOURCELOCATIONS_H
