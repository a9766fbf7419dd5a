//===- LinearLayout.cpp - layouts as linear maps over bits ----------------===//
#include "kda/Layout/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace kda;

LinearLayout::LinearLayout(llvm::ArrayRef<int64_t> shape)
    : shape(shape.begin(), shape.end()) {
  for (int64_t s : shape)
    assert(s > 0 && llvm::isPowerOf2_64(s) && "tile sizes are powers of two");
}

void LinearLayout::addBasis(HWDim dim, llvm::ArrayRef<int64_t> basis) {
  assert(basis.size() == shape.size() && "one basis entry per tile dim");
  Coord wrapped;
  // Coordinates wrap around the tile: a block larger than the tile replicates.
  for (auto [b, s] : llvm::zip_equal(basis, shape))
    wrapped.push_back(b & (s - 1));
  bases[unsigned(dim)].push_back(std::move(wrapped));
}

LinearLayout::Coord LinearLayout::applyDim(HWDim dim, int64_t index) const {
  Coord coord(shape.size(), 0);
  for (auto [bit, basis] : llvm::enumerate(bases[unsigned(dim)]))
    if (index & (int64_t(1) << bit))
      for (unsigned d = 0; d < shape.size(); ++d)
        coord[d] ^= basis[d];
  return coord;
}

LinearLayout::Coord LinearLayout::apply(int64_t reg, int64_t lane,
                                        int64_t warp) const {
  Coord coord = applyDim(HWDim::Register, reg);
  Coord l = applyDim(HWDim::Lane, lane), w = applyDim(HWDim::Warp, warp);
  for (unsigned d = 0; d < shape.size(); ++d)
    coord[d] ^= l[d] ^ w[d];
  return coord;
}

uint64_t LinearLayout::getDuplicateMask(HWDim dim) const {
  uint64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[unsigned(dim)]))
    if (llvm::all_of(basis, [](int64_t b) { return b == 0; }))
      mask |= uint64_t(1) << bit;
  return mask;
}

uint64_t LinearLayout::getMaskAlongAxis(HWDim dim, unsigned axis) const {
  uint64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[unsigned(dim)])) {
    bool only = basis[axis] != 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      if (d != axis && basis[d] != 0)
        only = false;
    if (only)
      mask |= uint64_t(1) << bit;
  }
  return mask;
}

uint64_t LinearLayout::getMaskTouchingAxis(HWDim dim, unsigned axis) const {
  uint64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[unsigned(dim)]))
    if (basis[axis] != 0)
      mask |= uint64_t(1) << bit;
  return mask;
}

namespace {
/// Packs a coordinate into one bit vector: log2(shape[d]) bits per dim.
uint64_t packCoord(llvm::ArrayRef<int64_t> coord,
                   llvm::ArrayRef<int64_t> shape) {
  uint64_t packed = 0;
  unsigned offset = 0;
  for (auto [c, s] : llvm::zip_equal(coord, shape)) {
    packed |= uint64_t(c) << offset;
    offset += llvm::Log2_64(s);
  }
  return packed;
}
} // namespace

std::optional<int64_t>
LinearLayout::findRegister(llvm::ArrayRef<int64_t> coord) const {
  // Gaussian elimination over GF(2): reduce the target by basis vectors kept
  // in echelon form (sorted by leading bit, highest first), remembering which
  // register bits each vector combines.
  struct Row {
    uint64_t value;
    uint64_t combination;
  };
  llvm::SmallVector<Row> rows;
  for (auto [bit, basis] : llvm::enumerate(bases[unsigned(HWDim::Register)])) {
    Row row{packCoord(basis, shape), uint64_t(1) << bit};
    for (const Row &r : rows)
      if (row.value & (uint64_t(1) << llvm::Log2_64(r.value))) {
        row.value ^= r.value;
        row.combination ^= r.combination;
      }
    if (row.value) {
      auto pos = llvm::find_if(rows, [&](const Row &r) {
        return llvm::Log2_64(r.value) < llvm::Log2_64(row.value);
      });
      rows.insert(pos, row);
    }
  }
  uint64_t target = packCoord(coord, shape), combination = 0;
  for (const Row &r : rows)
    if (target & (uint64_t(1) << llvm::Log2_64(r.value))) {
      target ^= r.value;
      combination ^= r.combination;
    }
  if (target != 0)
    return std::nullopt;
  return int64_t(combination);
}

LinearLayout LinearLayout::dropDim(unsigned dim) const {
  llvm::SmallVector<int64_t, 4> newShape(shape);
  newShape.erase(newShape.begin() + dim);
  LinearLayout result(newShape);
  for (unsigned hw = 0; hw < kNumHWDims; ++hw)
    for (const Coord &basis : bases[hw]) {
      Coord b(basis);
      b.erase(b.begin() + dim);
      result.bases[hw].push_back(std::move(b));
    }
  return result;
}

LinearLayout LinearLayout::insertUnitDim(unsigned dim) const {
  llvm::SmallVector<int64_t, 4> newShape(shape);
  newShape.insert(newShape.begin() + dim, 1);
  LinearLayout result(newShape);
  for (unsigned hw = 0; hw < kNumHWDims; ++hw)
    for (const Coord &basis : bases[hw]) {
      Coord b(basis);
      b.insert(b.begin() + dim, 0);
      result.bases[hw].push_back(std::move(b));
    }
  return result;
}

LinearLayout LinearLayout::permuteDims(llvm::ArrayRef<int32_t> order) const {
  llvm::SmallVector<int64_t, 4> newShape;
  for (int32_t d : order)
    newShape.push_back(shape[d]);
  LinearLayout result(newShape);
  for (unsigned hw = 0; hw < kNumHWDims; ++hw)
    for (const Coord &basis : bases[hw]) {
      Coord b;
      for (int32_t d : order)
        b.push_back(basis[d]);
      result.bases[hw].push_back(std::move(b));
    }
  return result;
}

int64_t LinearLayout::getContiguousRegisters(unsigned dim) const {
  int64_t n = 1;
  for (const Coord &basis : bases[unsigned(HWDim::Register)]) {
    for (unsigned d = 0; d < shape.size(); ++d)
      if (basis[d] != (d == dim ? n : 0))
        return n;
    n *= 2;
  }
  return n;
}

bool LinearLayout::hasSameLanesAndWarps(const LinearLayout &other) const {
  return shape == other.shape &&
         bases[unsigned(HWDim::Lane)] == other.bases[unsigned(HWDim::Lane)] &&
         bases[unsigned(HWDim::Warp)] == other.bases[unsigned(HWDim::Warp)];
}

void LinearLayout::print(llvm::raw_ostream &os) const {
  static const char *names[] = {"register", "lane", "warp"};
  os << "LinearLayout(shape=[";
  llvm::interleaveComma(shape, os);
  os << "]";
  for (unsigned hw = 0; hw < kNumHWDims; ++hw) {
    os << ", " << names[hw] << "=[";
    llvm::interleaveComma(bases[hw], os, [&](const Coord &b) {
      os << "(";
      llvm::interleaveComma(b, os);
      os << ")";
    });
    os << "]";
  }
  os << ")";
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

LinearLayout kda::makeBlockedLinearLayout(
    llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<unsigned> sizePerThread,
    llvm::ArrayRef<unsigned> threadsPerWarp,
    llvm::ArrayRef<unsigned> warpsPerCTA, llvm::ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  LinearLayout layout(shape);
  auto unit = [&](unsigned dim, int64_t value) {
    LinearLayout::Coord basis(rank, 0);
    basis[dim] = value;
    return basis;
  };
  // Fastest dimension first within each hardware dimension.
  for (unsigned d : order)
    for (int64_t v = 1; v < sizePerThread[d]; v *= 2)
      layout.addBasis(HWDim::Register, unit(d, v));
  for (unsigned d : order)
    for (int64_t v = 1; v < threadsPerWarp[d]; v *= 2)
      layout.addBasis(HWDim::Lane, unit(d, v * sizePerThread[d]));
  for (unsigned d : order)
    for (int64_t v = 1; v < warpsPerCTA[d]; v *= 2)
      layout.addBasis(HWDim::Warp,
                      unit(d, v * sizePerThread[d] * threadsPerWarp[d]));
  // A tile larger than one block repeats it in further registers.
  for (unsigned d : order) {
    int64_t block =
        int64_t(sizePerThread[d]) * threadsPerWarp[d] * warpsPerCTA[d];
    for (int64_t v = block; v < shape[d]; v *= 2)
      layout.addBasis(HWDim::Register, unit(d, v));
  }
  return layout;
}
