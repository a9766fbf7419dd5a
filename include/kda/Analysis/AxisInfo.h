//===- AxisInfo.h - contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// What the GPU lowering needs to know about integer and pointer values to
// pick vector widths for loads and stores. Per tile dimension (a scalar has
// one):
//   contiguity   - values come in runs (starting at multiples of the run
//                  length) of this many consecutive integers, or of
//                  addresses of consecutive elements for pointers;
//   divisibility - the largest power of two dividing the first element of
//                  every run (for pointers: of the byte address); zero
//                  counts as divisible by 2^30;
//   constancy    - values come in runs of this many equal values.
// Nothing known is (1, 1, 1).
//
//===----------------------------------------------------------------------===//
#ifndef KDA_ANALYSIS_AXISINFO_H
#define KDA_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kda {

class AxisInfo {
public:
  using DimVector = llvm::SmallVector<int64_t, 4>;
  /// The divisibility of zero (and the cap of every divisibility).
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constant = std::nullopt)
      : contiguity(std::move(contiguity)),
        divisibility(std::move(divisibility)), constancy(std::move(constancy)),
        constant(constant) {}

  /// Nothing known, for a value of `rank` dimensions (scalars: 1).
  static AxisInfo getPessimistic(unsigned rank);
  /// A value whose every element is `value`, over `shape` (scalars: {1}).
  static AxisInfo getConstant(int64_t value, llvm::ArrayRef<int64_t> shape);
  /// The facts true of both `a` and `b` (control-flow merges).
  static AxisInfo join(const AxisInfo &a, const AxisInfo &b);

  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned dim) const { return contiguity[dim]; }
  int64_t getDivisibility(unsigned dim) const { return divisibility[dim]; }
  int64_t getConstancy(unsigned dim) const { return constancy[dim]; }
  llvm::ArrayRef<int64_t> getContiguity() const { return contiguity; }
  llvm::ArrayRef<int64_t> getDivisibility() const { return divisibility; }
  llvm::ArrayRef<int64_t> getConstancy() const { return constancy; }
  /// The value of every element, when it is one known integer.
  std::optional<int64_t> getConstantValue() const { return constant; }

  /// The largest power of two dividing every element at positions along
  /// `dim` that are multiples of `stride` (the starts of runs of that
  /// length); `stride` 1 asks about every element. `unitBytes` is the size
  /// of a step of one in the value (the element size for pointers).
  int64_t getDivisibilityEvery(unsigned dim, int64_t stride,
                               int64_t unitBytes = 1) const;

  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity &&
           divisibility == other.divisibility && constancy == other.constancy &&
           constant == other.constant;
  }
  bool operator!=(const AxisInfo &other) const { return !(*this == other); }
  void print(llvm::raw_ostream &os) const;

private:
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constant;
};

/// AxisInfo of every integer and pointer value under a root op (a module or
/// a function), computed once by a forward walk. Loop-carried values of
/// scf.for are iterated to a fixed point from their initial values; other
/// loops' carried values are unknown.
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(mlir::Operation *root);

  /// The facts about `value`; unknown values get the pessimistic answer.
  AxisInfo getAxisInfo(mlir::Value value) const;

  /// Elements one memory access of the pointer tile `ptr` (masked by `mask`,
  /// which may be null) can move along `dim`: the largest power of two not
  /// above `maxElems`, the pointers' contiguity, their alignment in elements
  /// (divisibility / element bytes) and the mask's constancy along `dim`.
  unsigned getVectorWidth(mlir::Value ptr, mlir::Value mask, unsigned dim,
                          unsigned maxElems) const;

private:
  void visitBlock(mlir::Block &block);
  void visitOp(mlir::Operation *op);
  void visitFor(mlir::Operation *forOp);
  void set(mlir::Value value, AxisInfo info);

  llvm::DenseMap<mlir::Value, AxisInfo> infos;
};

} // namespace kda

#endif // KDA_ANALYSIS_AXISINFO_H
