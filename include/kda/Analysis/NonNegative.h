//===- NonNegative.h - integers known not to be negative --------*- C++ -*-===//
//
// Whether a scalar integer is provably >= 0 where `user` uses it: constants,
// program ids and counts, sums, products, quotients, remainders, maxima and
// minima of such values (tile programs do not wrap their index arithmetic),
// loop counters that start at such a value and step up, and values an
// enclosing `scf.if` tested (`x >= c` or `x > c` with c >= -1, alone or in
// a conjunction). Block copy engines, which cannot start before a tensor's
// first element, use it to keep only the copies they can do.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_ANALYSIS_NONNEGATIVE_H
#define KDA_ANALYSIS_NONNEGATIVE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace kda {
bool isKnownNonNegative(mlir::Value value, mlir::Operation *user);
} // namespace kda

#endif // KDA_ANALYSIS_NONNEGATIVE_H
