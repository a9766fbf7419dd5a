//===- LayoutPreferences.h - the layouts tiles' users want ------*- C++ -*-===//
//
// The layout assignment walks a function once, in order. Before it does, this
// analysis looks at the whole function: tiles an elementwise op, a load or a
// store ties together must share a layout, a reduction fixes its result's
// layout from its source, and an expand_dims wants its source as a slice of
// its result's layout. A dot on a matrix instruction wants its accumulator
// and result in the instruction's layout, through the loops that carry them,
// and its operands too when it reads them from shared memory (any layout
// reads a buffer alike, while a global load wants coalescing). Cheap sources
// (ranges, splats, constants) then start in
// the layout their users want instead of being converted later. A group that
// does more than a little arithmetic stays in the compact default layout even
// next to a slice: a slice replicates data, so its arithmetic is repeated.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_TRANSFORMS_LAYOUTPREFERENCES_H
#define KDA_TRANSFORMS_LAYOUTPREFERENCES_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace kda {

class LayoutPreferences {
public:
  /// Owned: the preferences outlive the expression that builds them.
  using DefaultFn = std::function<mlir::Attribute(mlir::RankedTensorType)>;
  /// The #tile.mma result layout a dot gets, or null (no matrix instruction).
  using DotLayoutFn = std::function<mlir::Attribute(mlir::Operation *dot)>;

  LayoutPreferences(mlir::FunctionOpInterface func, DefaultFn getDefault,
                    DotLayoutFn getDotLayout);

  /// The layout `value`'s group of tiles prefers (never null for tiles).
  mlir::Attribute lookup(mlir::Value value);

  /// Whether `value` is cheap to recompute in any layout: ranges, splats,
  /// constants and elementwise/broadcast chains of them. Cheap tiles join no
  /// group (a range shared by many users must not tie them together); the
  /// conversion clean-up rematerializes them where they are needed.
  bool isCheap(mlir::Value value);

  /// The layout a matrix instruction wants for `value`'s group, or null.
  mlir::Attribute getWanted(mlir::Value value);

private:
  mlir::Value find(mlir::Value v);
  void unite(mlir::Value a, mlir::Value b);
  mlir::Attribute resolve(mlir::Value root);

  DefaultFn getDefault;
  llvm::DenseMap<mlir::Value, mlir::Value> parent;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> members;
  /// Reduction results: (source, axis); expand_dims sources: (result, axis).
  llvm::DenseMap<mlir::Value, std::pair<mlir::Value, unsigned>> reducedFrom,
      expandedInto;
  llvm::DenseMap<mlir::Value, mlir::Attribute> resolved;
  llvm::DenseSet<mlir::Value> resolving;
  llvm::DenseMap<mlir::Value, bool> cheap;
  /// Layouts present before the assignment started.
  llvm::DenseMap<mlir::Value, mlir::Attribute> written;
  /// Layouts a consumer wants (matrix instruction operands and results).
  llvm::DenseMap<mlir::Value, mlir::Attribute> wanted;
  llvm::SmallVector<mlir::scf::ForOp> loops;
};

} // namespace kda

#endif // KDA_TRANSFORMS_LAYOUTPREFERENCES_H
