//===- AxisInfo.cpp - contiguity, divisibility, constancy -----------------===//
#include "kda/Analysis/AxisInfo.h"
#include "Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace kda;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

namespace {
/// The largest power of two dividing `v`, capped; zero is divisible by all.
int64_t pow2Divisor(int64_t v) {
  if (v == 0)
    return AxisInfo::kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v);
  return std::min<int64_t>(int64_t(u & (~u + 1)), AxisInfo::kMaxDivisibility);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// The shape AxisInfo describes: a tile's, or {1} for a scalar.
SmallVector<int64_t> infoShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

/// Bytes per element of a pointer (tile), 1 for anything else.
int64_t unitBytes(Type type) {
  auto ptr = dyn_cast<tile::PointerType>(mlir::getElementTypeOrSelf(type));
  if (!ptr)
    return 1;
  return std::max<int64_t>(1, ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
}

/// Whether AxisInfo describes values of this type (integers and pointers).
bool isTracked(Type type) {
  Type elem = mlir::getElementTypeOrSelf(type);
  return isa<IntegerType, IndexType, tile::PointerType>(elem);
}
} // namespace

AxisInfo AxisInfo::getPessimistic(unsigned rank) {
  DimVector ones(rank, 1);
  return AxisInfo(ones, ones, ones);
}

AxisInfo AxisInfo::getConstant(int64_t value, ArrayRef<int64_t> shape) {
  DimVector ones(shape.size(), 1);
  DimVector div(shape.size(), pow2Divisor(value));
  return AxisInfo(ones, div, DimVector(shape), value);
}

AxisInfo AxisInfo::join(const AxisInfo &a, const AxisInfo &b) {
  if (a.getRank() != b.getRank())
    return getPessimistic(a.getRank());
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    contiguity.push_back(gcd(a.contiguity[d], b.contiguity[d]));
    divisibility.push_back(gcd(a.divisibility[d], b.divisibility[d]));
    constancy.push_back(gcd(a.constancy[d], b.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (a.constant == b.constant)
    constant = a.constant;
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

int64_t AxisInfo::getDivisibilityEvery(unsigned dim, int64_t stride,
                                       int64_t unitBytes) const {
  int64_t run = contiguity[dim], div = divisibility[dim];
  if (run <= 1 || stride % run == 0)
    return div;
  // Positions that are multiples of `stride` sit a multiple of
  // gcd(stride, run) steps into their run.
  return std::min(div, pow2Divisor(gcd(stride, run) * unitBytes));
}

void AxisInfo::print(raw_ostream &os) const {
  auto list = [&](ArrayRef<int64_t> values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constant)
    os << ", constant = " << *constant;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {
using DimVector = AxisInfo::DimVector;

std::optional<int64_t> foldConstants(Operation *op, int64_t a, int64_t b) {
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case<arith::AddIOp>([&](auto) { return a + b; })
      .Case<arith::SubIOp>([&](auto) { return a - b; })
      .Case<arith::MulIOp>([&](auto) { return a * b; })
      .Case<arith::AndIOp>([&](auto) { return a & b; })
      .Case<arith::OrIOp>([&](auto) { return a | b; })
      .Case<arith::XOrIOp>([&](auto) { return a ^ b; })
      .Default([](Operation *) { return std::nullopt; });
}

/// a + b, a - b (and pointer + offset, with `bytes` per offset step).
AxisInfo addSub(const AxisInfo &a, const AxisInfo &b, bool isSub, int64_t aUnit,
                int64_t bUnit, int64_t bScale) {
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    // A run of consecutive values plus a run of equal ones stays consecutive
    // where both runs overlap; minus only when the consecutive side is `a`.
    int64_t run =
        std::max(gcd(a.getContiguity(d), b.getConstancy(d)),
                 isSub ? 1 : gcd(a.getConstancy(d), b.getContiguity(d)));
    contiguity.push_back(run);
    int64_t div =
        std::min(a.getDivisibilityEvery(d, run, aUnit),
                 std::min(AxisInfo::kMaxDivisibility,
                          b.getDivisibilityEvery(d, run, bUnit) * bScale));
    divisibility.push_back(div);
    constancy.push_back(gcd(a.getConstancy(d), b.getConstancy(d)));
  }
  return AxisInfo(contiguity, divisibility, constancy);
}

AxisInfo mul(const AxisInfo &a, const AxisInfo &b, ArrayRef<int64_t> shape) {
  if (a.getConstantValue() == 0 || b.getConstantValue() == 0)
    return AxisInfo::getConstant(0, shape);
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t run = 1;
    if (b.getConstantValue() == 1)
      run = a.getContiguity(d);
    else if (a.getConstantValue() == 1)
      run = b.getContiguity(d);
    contiguity.push_back(run);
    int64_t div =
        a.getDivisibilityEvery(d, run) * b.getDivisibilityEvery(d, run);
    divisibility.push_back(std::min(div, AxisInfo::kMaxDivisibility));
    constancy.push_back(gcd(a.getConstancy(d), b.getConstancy(d)));
  }
  return AxisInfo(contiguity, divisibility, constancy);
}

/// a / c and a % c for a positive power of two c.
AxisInfo divRem(const AxisInfo &a, int64_t c, bool isRem) {
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    // Chunks of g consecutive values starting at multiples of g stay within
    // one multiple of c.
    int64_t g = gcd(a.getContiguity(d), c);
    bool aligned = g > 1 && a.getDivisibilityEvery(d, g) % g == 0;
    if (isRem) {
      int64_t run = aligned ? g : 1;
      contiguity.push_back(run);
      int64_t div = a.getDivisibilityEvery(d, run);
      divisibility.push_back(div >= c ? AxisInfo::kMaxDivisibility : div);
      constancy.push_back(a.getConstancy(d));
    } else {
      contiguity.push_back(c == 1 ? a.getContiguity(d) : 1);
      int64_t div = a.getDivisibilityEvery(d, aligned ? g : 1);
      divisibility.push_back(c == 1 ? a.getDivisibility(d)
                                    : std::max<int64_t>(1, div / c));
      constancy.push_back(aligned ? std::max(a.getConstancy(d), g)
                                  : a.getConstancy(d));
    }
  }
  return AxisInfo(contiguity, divisibility, constancy);
}

/// Bitwise ops: runs of equal values survive; `and` keeps the larger
/// power-of-two factor, `or`/`xor` the smaller.
AxisInfo bitwise(const AxisInfo &a, const AxisInfo &b, bool isAnd) {
  DimVector contiguity(a.getRank(), 1), divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t da = a.getDivisibilityEvery(d, 1),
            db = b.getDivisibilityEvery(d, 1);
    divisibility.push_back(isAnd ? std::max(da, db) : std::min(da, db));
    constancy.push_back(gcd(a.getConstancy(d), b.getConstancy(d)));
  }
  return AxisInfo(contiguity, divisibility, constancy);
}

/// Whether `x pred n`, with x consecutive and n constant, changes value only
/// where x crosses n itself (not n + 1).
bool flipsAtBound(arith::CmpIPredicate pred, bool consecutiveOnLeft) {
  using P = arith::CmpIPredicate;
  if (consecutiveOnLeft)
    return pred == P::slt || pred == P::ult || pred == P::sge || pred == P::uge;
  return pred == P::sgt || pred == P::ugt || pred == P::sle || pred == P::ule;
}

AxisInfo cmp(const AxisInfo &a, const AxisInfo &b, arith::CmpIPredicate pred) {
  DimVector ones(a.getRank(), 1), constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t run = gcd(a.getConstancy(d), b.getConstancy(d));
    // x < n with x running through [s, s + g) from s divisible by p and n
    // divisible by p: the answer flips at n - s, a multiple of p, so it is
    // constant over aligned chunks of min(g, p).
    auto chunk = [&](const AxisInfo &x, const AxisInfo &n) -> int64_t {
      int64_t g = gcd(x.getContiguity(d), n.getConstancy(d));
      int64_t p =
          std::min(x.getDivisibilityEvery(d, g), n.getDivisibilityEvery(d, g));
      return gcd(g, p);
    };
    if (a.getContiguity(d) > 1 && flipsAtBound(pred, true))
      run = std::max(run, chunk(a, b));
    if (b.getContiguity(d) > 1 && flipsAtBound(pred, false))
      run = std::max(run, chunk(b, a));
    constancy.push_back(run);
  }
  return AxisInfo(ones, ones, constancy);
}

AxisInfo select(const AxisInfo &c, bool scalarCond, const AxisInfo &a,
                const AxisInfo &b, ArrayRef<int64_t> shape, int64_t unit) {
  if (auto known = c.getConstantValue())
    return *known ? a : b;
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t cond = scalarCond ? shape[d] : c.getConstancy(d);
    int64_t run = gcd(cond, gcd(a.getContiguity(d), b.getContiguity(d)));
    contiguity.push_back(run);
    divisibility.push_back(std::min(a.getDivisibilityEvery(d, run, unit),
                                    b.getDivisibilityEvery(d, run, unit)));
    constancy.push_back(gcd(cond, gcd(a.getConstancy(d), b.getConstancy(d))));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() == b.getConstantValue())
    constant = a.getConstantValue();
  return AxisInfo(contiguity, divisibility, constancy, constant);
}
} // namespace

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return WalkResult::advance();
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (!isTracked(arg.getType()))
        continue;
      AxisInfo info = AxisInfo::getPessimistic(infoShape(arg.getType()).size());
      if (auto div =
              func.getArgAttrOfType<IntegerAttr>(i, "tile.divisibility")) {
        DimVector divs(info.getRank(),
                       pow2Divisor(div.getValue().getSExtValue()));
        info = AxisInfo(DimVector(info.getContiguity()), divs,
                        DimVector(info.getConstancy()));
      }
      set(arg, info);
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        visitBlock(block);
    return WalkResult::skip();
  });
}

AxisInfo AxisInfoAnalysis::getAxisInfo(Value value) const {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  return AxisInfo::getPessimistic(infoShape(value.getType()).size());
}

void AxisInfoAnalysis::set(Value value, AxisInfo info) {
  infos[value] = std::move(info);
}

void AxisInfoAnalysis::visitBlock(Block &block) {
  for (Operation &op : block)
    visitOp(&op);
}

void AxisInfoAnalysis::visitFor(Operation *op) {
  auto forOp = cast<scf::ForOp>(op);
  Value iv = forOp.getInductionVar();
  {
    // lb + k * step.
    AxisInfo lb = getAxisInfo(forOp.getLowerBound());
    AxisInfo step = getAxisInfo(forOp.getStep());
    int64_t div = std::min(lb.getDivisibility(0), step.getDivisibility(0));
    set(iv, AxisInfo(DimVector{1}, DimVector{div}, DimVector{1}));
  }
  auto iterArgs = forOp.getRegionIterArgs();
  for (auto [arg, init] : llvm::zip(iterArgs, forOp.getInitArgs()))
    set(arg, getAxisInfo(init));
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  // Facts only weaken from one round to the next (gcd/min), so this
  // settles; give up on the carried values after a few rounds.
  constexpr int kMaxRounds = 8;
  for (int round = 0;; ++round) {
    visitBlock(*forOp.getBody());
    bool changed = false;
    for (auto [arg, next] : llvm::zip(iterArgs, yield.getOperands())) {
      AxisInfo joined = AxisInfo::join(getAxisInfo(arg), getAxisInfo(next));
      if (joined != getAxisInfo(arg)) {
        changed = true;
        set(arg, round + 1 < kMaxRounds
                     ? joined
                     : AxisInfo::getPessimistic(joined.getRank()));
      }
    }
    if (!changed || round >= kMaxRounds)
      break;
  }
  for (auto [result, arg] : llvm::zip(forOp.getResults(), iterArgs))
    set(result, getAxisInfo(arg));
}

void AxisInfoAnalysis::visitOp(Operation *op) {
  if (isa<scf::ForOp>(op))
    return visitFor(op);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      visitBlock(block);
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (ifOp.getElseRegion().empty())
      return;
    for (auto [i, result] : llvm::enumerate(ifOp.getResults()))
      set(result, AxisInfo::join(getAxisInfo(ifOp.thenYield().getOperand(i)),
                                 getAxisInfo(ifOp.elseYield().getOperand(i))));
    return;
  }
  if (op->getNumResults() != 1 || !isTracked(op->getResult(0).getType()))
    return;
  Value result = op->getResult(0);
  SmallVector<int64_t> shape = infoShape(result.getType());
  auto info = [&](unsigned i) { return getAxisInfo(op->getOperand(i)); };
  auto constantOf = [&](unsigned i) { return info(i).getConstantValue(); };

  std::optional<AxisInfo> computed =
      llvm::TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
          .Case([&](arith::ConstantOp c) -> std::optional<AxisInfo> {
            if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
              return AxisInfo::getConstant(i.getValue().getSExtValue(), shape);
            if (auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue()))
              if (dense.isSplat())
                return AxisInfo::getConstant(
                    dense.getSplatValue<APInt>().getSExtValue(), shape);
            return std::nullopt;
          })
          .Case([&](tile::RangeOp r) {
            int64_t start = r.getStartAttr().getInt();
            return AxisInfo(DimVector{shape[0]}, DimVector{pow2Divisor(start)},
                            DimVector{1});
          })
          .Case([&](tile::SplatOp) {
            AxisInfo src = info(0);
            return AxisInfo(DimVector(shape.size(), 1),
                            DimVector(shape.size(), src.getDivisibility(0)),
                            DimVector(shape.begin(), shape.end()),
                            src.getConstantValue());
          })
          .Case([&](tile::AddPtrOp) {
            return addSub(info(0), info(1), /*isSub=*/false,
                          unitBytes(result.getType()), 1,
                          unitBytes(result.getType()));
          })
          .Case([&](arith::AddIOp) -> std::optional<AxisInfo> {
            if (auto a = constantOf(0))
              if (auto b = constantOf(1))
                return AxisInfo::getConstant(*a + *b, shape);
            return addSub(info(0), info(1), false, 1, 1, 1);
          })
          .Case([&](arith::SubIOp) -> std::optional<AxisInfo> {
            if (auto a = constantOf(0))
              if (auto b = constantOf(1))
                return AxisInfo::getConstant(*a - *b, shape);
            return addSub(info(0), info(1), true, 1, 1, 1);
          })
          .Case([&](arith::MulIOp) -> std::optional<AxisInfo> {
            if (auto a = constantOf(0))
              if (auto b = constantOf(1))
                return AxisInfo::getConstant(*a * *b, shape);
            return mul(info(0), info(1), shape);
          })
          .Case([&](arith::ShLIOp) -> std::optional<AxisInfo> {
            auto k = constantOf(1);
            if (!k || *k < 0 || *k > 30)
              return std::nullopt;
            return mul(info(0), AxisInfo::getConstant(int64_t(1) << *k, shape),
                       shape);
          })
          .Case<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
              [&](Operation *) -> std::optional<AxisInfo> {
                auto c = constantOf(1);
                if (!c || *c <= 0 || !llvm::isPowerOf2_64(*c))
                  return std::nullopt;
                bool isRem = isa<arith::RemSIOp, arith::RemUIOp>(op);
                if (auto a = constantOf(0))
                  return AxisInfo::getConstant(isRem ? *a % *c : *a / *c,
                                               shape);
                return divRem(info(0), *c, isRem);
              })
          .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
              [&](Operation *) -> std::optional<AxisInfo> {
                if (auto a = constantOf(0))
                  if (auto b = constantOf(1))
                    return AxisInfo::getConstant(*foldConstants(op, *a, *b),
                                                 shape);
                return bitwise(info(0), info(1), isa<arith::AndIOp>(op));
              })
          .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
                arith::IndexCastOp, tile::ConvertLayoutOp>(
              [&](Operation *) { return info(0); })
          .Case([&](arith::CmpIOp c) {
            return cmp(info(0), info(1), c.getPredicate());
          })
          .Case([&](arith::SelectOp) {
            bool scalarCond =
                !isa<RankedTensorType>(op->getOperand(0).getType());
            return select(info(0), scalarCond, info(1), info(2), shape,
                          unitBytes(result.getType()));
          })
          .Case([&](tile::BroadcastOp b) {
            AxisInfo src = info(0);
            auto srcShape = b.getSrc().getType().getShape();
            DimVector contiguity, divisibility, constancy;
            for (unsigned d = 0; d < shape.size(); ++d) {
              bool grows = srcShape[d] == 1 && shape[d] != 1;
              contiguity.push_back(grows ? 1 : src.getContiguity(d));
              divisibility.push_back(src.getDivisibility(d));
              constancy.push_back(grows ? shape[d] : src.getConstancy(d));
            }
            return AxisInfo(contiguity, divisibility, constancy,
                            src.getConstantValue());
          })
          .Case([&](tile::ExpandDimsOp e) {
            AxisInfo src = info(0);
            int64_t unit = unitBytes(result.getType());
            // Along the new unit dimension every element starts a run.
            int64_t every = 1;
            for (unsigned d = 0; d < src.getRank(); ++d)
              every = std::max(every, src.getDivisibilityEvery(d, 1, unit));
            unsigned axis = e.getAxis();
            DimVector contiguity(src.getContiguity()),
                divisibility(src.getDivisibility()),
                constancy(src.getConstancy());
            contiguity.insert(contiguity.begin() + axis, 1);
            divisibility.insert(divisibility.begin() + axis, every);
            constancy.insert(constancy.begin() + axis, 1);
            return AxisInfo(contiguity, divisibility, constancy,
                            src.getConstantValue());
          })
          .Case([&](tile::TransOp t) {
            AxisInfo src = info(0);
            DimVector contiguity, divisibility, constancy;
            for (int32_t d : t.getOrder()) {
              contiguity.push_back(src.getContiguity(d));
              divisibility.push_back(src.getDivisibility(d));
              constancy.push_back(src.getConstancy(d));
            }
            return AxisInfo(contiguity, divisibility, constancy,
                            src.getConstantValue());
          })
          .Default([](Operation *) { return std::nullopt; });

  if (!computed || computed->getRank() != shape.size())
    computed.reset();
  auto multipleOf =
      op->getAttrOfType<DenseI64ArrayAttr>(tile::kMultipleOfAttrName);
  auto contiguous =
      op->getAttrOfType<DenseI64ArrayAttr>(tile::kMaxContiguousAttrName);
  if (multipleOf || contiguous) {
    // The kernel author's facts, added to what the analysis proved.
    AxisInfo base =
        computed ? *computed : AxisInfo::getPessimistic(shape.size());
    DimVector contiguity(base.getContiguity()),
        divisibility(base.getDivisibility()), constancy(base.getConstancy());
    for (unsigned d = 0; d < shape.size(); ++d) {
      if (multipleOf && d < multipleOf.size())
        divisibility[d] =
            std::min(AxisInfo::kMaxDivisibility,
                     std::max(divisibility[d], multipleOf.asArrayRef()[d]));
      if (contiguous && d < contiguous.size())
        contiguity[d] = std::min(
            shape[d], std::max(contiguity[d], contiguous.asArrayRef()[d]));
    }
    computed =
        AxisInfo(contiguity, divisibility, constancy, base.getConstantValue());
  }
  if (computed)
    set(result, *computed);
}

unsigned AxisInfoAnalysis::getVectorWidth(Value ptr, Value mask, unsigned dim,
                                          unsigned maxElems) const {
  AxisInfo info = getAxisInfo(ptr);
  if (dim >= info.getRank())
    return 1;
  int64_t bytes = unitBytes(ptr.getType());
  int64_t width = std::min<int64_t>(maxElems, info.getContiguity(dim));
  width =
      std::min(width, std::max<int64_t>(1, info.getDivisibility(dim) / bytes));
  if (mask) {
    AxisInfo maskInfo = getAxisInfo(mask);
    if (dim < maskInfo.getRank() && isa<RankedTensorType>(mask.getType()))
      width = std::min(width, maskInfo.getConstancy(dim));
  }
  if (width < 1)
    return 1;
  return unsigned(llvm::bit_floor(uint64_t(width)));
}
