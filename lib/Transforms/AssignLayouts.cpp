//===- AssignLayouts.cpp - give every tile a distributed layout -----------===//
//
// One forward walk per function. Each op's result layouts follow from its
// operands' (already assigned) layouts and the rules in Passes.td; where an
// operand does not fit, a `tile.convert_layout {tile.implicit}` is inserted
// before the op. Layouts present in the input are never changed.
//
//===----------------------------------------------------------------------===//
#include "Tile/TileDialect.h"
#include "kda/Layout/LayoutAttrs.h"
#include "kda/Layout/MatrixLayouts.h"
#include "kda/Transforms/LayoutPreferences.h"
#include "kda/Transforms/LayoutUtils.h"
#include "kda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

namespace kda {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "kda/Transforms/Passes.h.inc"
} // namespace kda

using namespace mlir;
using namespace kda;

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

Attribute kda::getTransposedBlockedLayout(Attribute src,
                                          ArrayRef<int32_t> order) {
  auto blocked = cast<tile::BlockedLayoutAttr>(src);
  SmallVector<unsigned> spt, tpw, wpc, newOrder;
  SmallVector<unsigned> position(order.size());
  for (auto [i, d] : llvm::enumerate(order)) {
    spt.push_back(blocked.getSizePerThread()[d]);
    tpw.push_back(blocked.getThreadsPerWarp()[d]);
    wpc.push_back(blocked.getWarpsPerCTA()[d]);
    position[d] = i; // source dimension d is result dimension i
  }
  for (unsigned d : blocked.getOrder())
    newOrder.push_back(position[d]);
  return tile::BlockedLayoutAttr::get(src.getContext(), spt, tpw, wpc,
                                      newOrder);
}

unsigned kda::getLayoutElementBits(Type elementType) {
  if (isa<tile::PointerType>(elementType))
    return 64;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits == 1 ? 8 : bits;
}

namespace {

Attribute layoutOf(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return tensor.getEncoding();
  return {};
}

RankedTensorType withLayout(RankedTensorType type, Attribute layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

bool isElementwise(Operation *op) {
  if (isa<tile::AddPtrOp>(op))
    return true;
  return op->hasTrait<OpTrait::Elementwise>() &&
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

class LayoutAssigner {
public:
  LayoutAssigner(MLIRContext *ctx, unsigned numWarps, unsigned waveSize,
                 ArrayRef<tile::MatrixInstr> matrixInstrs)
      : ctx(ctx), numWarps(numWarps), waveSize(waveSize),
        matrixInstrs(matrixInstrs) {}

  LogicalResult run(FunctionOpInterface func);

private:
  /// One default layout per rank for the whole function, made for its
  /// anchor of that rank (collectAnchors): tiles that broadcast into each
  /// other then share a layout (a smaller tile wraps around it) instead of
  /// each shape getting its own and every broadcast needing a conversion.
  Attribute getDefault(Type type) {
    auto tensor = cast<RankedTensorType>(type);
    auto it = anchors.find(tensor.getRank());
    ArrayRef<int64_t> shape = tensor.getShape();
    unsigned bits = getAnchorElementBits(tensor.getElementType());
    if (it != anchors.end()) {
      shape = it->second.shape;
      bits = it->second.elementBits;
    }
    return getDefaultBlockedLayout(ctx, shape, bits, numWarps, waveSize);
  }

  /// Pointer tiles are laid out for the elements they point to.
  static unsigned getAnchorElementBits(Type elementType) {
    if (auto ptr = dyn_cast<tile::PointerType>(elementType))
      return getLayoutElementBits(ptr.getPointeeType());
    return getLayoutElementBits(elementType);
  }

  struct Anchor {
    SmallVector<int64_t> shape;
    unsigned elementBits;
    int64_t numElements;
    /// Bytes its shape's global loads, stores and copies move.
    int64_t trafficBytes = 0;
  };
  /// Per rank, the unlaid tile shape whose global memory accesses move the
  /// most bytes (their layout decides how well they coalesce and how many
  /// elements each thread holds; each access op counts once, so a rolled loop
  /// does not multiply its accesses), else the largest unlaid tile (the first
  /// one on ties). A traffic anchor is laid out for the widest element its
  /// accesses move or its float tiles compute on (a bf16 block computed on in
  /// fp32 takes 4 elements per thread, not 8; integer offsets and masks do
  /// not narrow a bf16 copy's 16-byte accesses). Anchoring on the largest
  /// tile alone let a [128, 128] weight read once lay out a [128, 32] state
  /// block read and written at every step: 4 lanes of every 32 held each
  /// element (4 times the registers).
  void collectAnchors(FunctionOpInterface func) {
    anchors.clear();
    auto isUnlaid = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && !tensor.getEncoding() ? tensor : RankedTensorType();
    };
    // Global memory traffic per shape, by rank.
    DenseMap<int64_t, SmallVector<Anchor>> traffic;
    auto count = [&](Type accessed) {
      RankedTensorType tensor = isUnlaid(accessed);
      if (!tensor)
        return;
      unsigned bits = getAnchorElementBits(tensor.getElementType());
      int64_t bytes = tensor.getNumElements() * std::max(8u, bits) / 8;
      SmallVector<Anchor> &shapes = traffic[tensor.getRank()];
      auto it = llvm::find_if(shapes, [&](const Anchor &a) {
        return ArrayRef<int64_t>(a.shape) == tensor.getShape();
      });
      if (it == shapes.end()) {
        shapes.push_back(Anchor{SmallVector<int64_t>(tensor.getShape()), bits,
                                tensor.getNumElements(), 0});
        it = std::prev(shapes.end());
      }
      it->trafficBytes += bytes;
      it->elementBits = std::max(it->elementBits, bits);
    };
    func->walk([&](Operation *op) {
      if (auto load = dyn_cast<tile::LoadOp>(op))
        count(load.getPtr().getType());
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        count(store.getPtr().getType());
      else if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
        count(copy.getPtr().getType());
    });
    for (auto &[rank, shapes] : traffic)
      for (const Anchor &a : shapes) {
        auto [it, inserted] = anchors.try_emplace(rank, a);
        if (!inserted && a.trafficBytes > it->second.trafficBytes)
          it->second = a;
      }

    auto visit = [&](Type type) {
      RankedTensorType tensor = isUnlaid(type);
      if (!tensor)
        return;
      unsigned bits = getAnchorElementBits(tensor.getElementType());
      if (traffic.count(tensor.getRank())) {
        Anchor &anchor = anchors.find(tensor.getRank())->second;
        if (isa<FloatType>(tensor.getElementType()) &&
            ArrayRef<int64_t>(anchor.shape) == tensor.getShape())
          anchor.elementBits = std::max(anchor.elementBits, bits);
        return;
      }
      int64_t n = tensor.getNumElements();
      auto [it, inserted] = anchors.try_emplace(
          tensor.getRank(),
          Anchor{SmallVector<int64_t>(tensor.getShape()), bits, n});
      if (!inserted && n > it->second.numElements)
        it->second = Anchor{SmallVector<int64_t>(tensor.getShape()), bits, n};
    };
    func->walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        visit(t);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type t : block.getArgumentTypes())
            visit(t);
    });
  }
  DenseMap<int64_t, Anchor> anchors;

  /// The layout `value`'s users want (see LayoutPreferences), else the
  /// rank's default.
  Attribute getPreferred(Value value) {
    if (preferences)
      if (Attribute layout = preferences->lookup(value))
        return layout;
    return getDefault(value.getType());
  }
  std::unique_ptr<LayoutPreferences> preferences;

  /// Gives `value` `layout` unless it already has one; returns the layout it
  /// ends up with.
  Attribute assign(Value value, Attribute layout) {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    if (!tensor)
      return {};
    if (tensor.getEncoding())
      return tensor.getEncoding();
    value.setType(withLayout(tensor, layout));
    return layout;
  }

  /// `value` in `layout`, through a conversion inserted before `user`.
  Value convert(Value value, Attribute layout, Operation *user) {
    auto tensor = cast<RankedTensorType>(value.getType());
    if (tensor.getEncoding() == layout)
      return value;
    // Reuse an earlier conversion of the same value when it dominates: it
    // was created earlier in the walk, so it does when `user` is nested in
    // its block.
    Operation *&known = converts[{value, layout}];
    if (known && known->getBlock()->findAncestorOpInBlock(*user))
      return known->getResult(0);
    OpBuilder b(user);
    auto cvt = tile::ConvertLayoutOp::create(b, user->getLoc(),
                                             withLayout(tensor, layout), value);
    cvt->setAttr(kImplicitConvertAttr, UnitAttr::get(ctx));
    known = cvt;
    return cvt;
  }

  void convertOperand(OpOperand &operand, Attribute layout) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      return;
    operand.set(convert(operand.get(), layout, operand.getOwner()));
  }

  /// The layout of a tile operand, which must have been assigned.
  Attribute operandLayout(Operation *op, Value value) {
    Attribute layout = layoutOf(value);
    if (!tile::isDistributedLayout(layout)) {
      op->emitOpError("tile-assign-layouts: operand of type ")
          << value.getType() << " has no distributed layout";
      hadError = true;
    }
    return layout;
  }

  void visitBlock(Block &block);
  void visitOp(Operation *op);
  void visitElementwise(Operation *op);
  void visitTrans(tile::TransOp op);
  void visitFor(scf::ForOp op);
  void visitWhile(scf::WhileOp op);
  void visitIf(scf::IfOp op);

  MLIRContext *ctx;
  unsigned numWarps, waveSize;
  SmallVector<tile::MatrixInstr> matrixInstrs;

  /// The #tile.mma result layout of `dot` when its operands are 16-bit
  /// floats and one of matrixInstrs tiles it, else null. Each doubling of
  /// the warps halves the dimension a warp covers more of (rows on a tie),
  /// while it has instruction tiles to split: a warp holds the rows of A and
  /// the columns of B it multiplies, so square warp tiles need the fewest
  /// operand registers. Warps left over hold copies.
  Attribute getMatrixResultLayout(tile::DotOp dot) {
    RankedTensorType a = dot.getA().getType();
    // 16-bit operands take the 16-bit instructions; fp32 ones an instruction
    // on fp32 operands (tf32 on NVIDIA, fp32 on gfx950) when the dot allows
    // tf32, else the exact FMA path.
    bool tf32 = dot.getInputPrecision() == tile::InputPrecision::TF32;
    if (!isa<BFloat16Type, Float16Type>(a.getElementType()) && !tf32)
      return {};
    int64_t m = a.getDimSize(0), k = a.getDimSize(1),
            n = dot.getB().getType().getDimSize(1);
    // An instruction whose K divides the product's first; else one whose K
    // the product's pads with zeros (a 16-long reduction on a K = 32 WMMA).
    for (bool padK : {false, true})
      if (Attribute layout = getMatrixResultLayout(dot, m, n, k, tf32, padK))
        return layout;
    return {};
  }
  Attribute getMatrixResultLayout(tile::DotOp dot, int64_t m, int64_t n,
                                  int64_t k, bool tf32, bool padK) {
    for (tile::MatrixInstr instr : matrixInstrs) {
      // wgmma's operands are in shared memory (tile.shared_dot).
      if (tile::takesFloat32Operands(instr) != tf32 ||
          instr == tile::MatrixInstr::WgmmaM64K16)
        continue;
      auto [im, in, ik] = getMatrixInstructionShape(instr);
      if (getMatrixInstructionLanes(instr) != waveSize || m % im || n % in ||
          (padK ? getMatrixKSteps(instr, k) == 0 : k % ik != 0))
        continue;
      // A result that becomes another product's A operand keeps the warps
      // along M: the accumulator's registers are then that operand's, with
      // no data moved (a chain like attention's P V, or a carried state).
      if (m % (im * numWarps) == 0 && feedsOperandA(dot.getResult()))
        return tile::MmaLayoutAttr::get(ctx, instr, tile::MatrixOperand::C,
                                        {numWarps, 1});
      unsigned wm = 1, wn = 1;
      while (wm * wn < numWarps) {
        bool mSplits = m % (im * wm * 2) == 0, nSplits = n % (in * wn * 2) == 0;
        if (!mSplits && !nSplits)
          break;
        if (mSplits && (!nSplits || m / wm >= n / wn))
          wm *= 2;
        else
          wn *= 2;
      }
      wm *= numWarps / (wm * wn);
      return tile::MmaLayoutAttr::get(ctx, instr, tile::MatrixOperand::C,
                                      {wm, wn});
    }
    return {};
  }
  /// Whether `value` reaches the A operand of a tile.dot through
  /// elementwise ops, layout conversions and loop-carried values.
  static bool feedsOperandA(Value value) {
    SmallVector<Value> work{value};
    DenseSet<Value> seen{value};
    auto push = [&](Value v) {
      if (seen.insert(v).second)
        work.push_back(v);
    };
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (auto dot = dyn_cast<tile::DotOp>(user)) {
          if (use.getOperandNumber() == 0)
            return true;
        } else if (isElementwise(user) || isa<tile::ConvertLayoutOp>(user)) {
          for (Value r : user->getResults())
            push(r);
        } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp())) {
            push(loop.getRegionIterArgs()[use.getOperandNumber()]);
            push(loop.getResult(use.getOperandNumber()));
          }
        } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
          if (use.getOperandNumber() >= loop.getNumControlOperands())
            push(loop.getTiedLoopRegionIterArg(&use));
        }
      }
    }
    return false;
  }
  /// The accumulator layout of a tile.shared_dot: the program's warpgroups
  /// stacked along M (tile-shared-dots checked that they divide it).
  Attribute getSharedDotLayout() {
    return tile::MmaLayoutAttr::get(ctx, tile::MatrixInstr::WgmmaM64K16,
                                    tile::MatrixOperand::C, {numWarps, 1});
  }
  bool hadError = false;
  /// Conversions inserted so far, by (value, layout).
  DenseMap<std::pair<Value, Attribute>, Operation *> converts;
};

LogicalResult LayoutAssigner::run(FunctionOpInterface func) {
  for (Type type :
       llvm::concat<const Type>(func.getArgumentTypes(), func.getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (!tile::isDistributedLayout(tensor.getEncoding()))
        return func->emitOpError(
                   "tile-assign-layouts: tile arguments and results need an "
                   "explicit layout (inline callees first), got ")
               << type;
  collectAnchors(func);
  preferences = std::make_unique<LayoutPreferences>(
      func, [&](RankedTensorType type) { return getDefault(type); },
      [&](Operation *dot) {
        if (isa<tile::SharedDotOp>(dot))
          return getSharedDotLayout();
        return getMatrixResultLayout(cast<tile::DotOp>(dot));
      });
  for (Region &region : func->getRegions())
    for (Block &block : region)
      visitBlock(block);
  return failure(hadError);
}

void LayoutAssigner::visitBlock(Block &block) {
  // Ops may be inserted before the one being visited; collect first.
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops) {
    if (hadError)
      return;
    visitOp(op);
  }
}

void LayoutAssigner::visitOp(Operation *op) {
  llvm::TypeSwitch<Operation *>(op)
      .Case<tile::RangeOp, tile::SplatOp, tile::ReshapeOp>([&](Operation *) {
        Value result = op->getResult(0);
        assign(result, getPreferred(result));
      })
      .Case([&](arith::ConstantOp c) {
        auto type = dyn_cast<RankedTensorType>(c.getType());
        if (!type || type.getEncoding())
          return;
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense) {
          c.emitOpError("tile-assign-layouts: only dense tile constants are "
                        "supported");
          hadError = true;
          return;
        }
        auto newType = withLayout(type, getPreferred(c.getResult()));
        c.setValueAttr(dense.reshape(newType));
        c.getResult().setType(newType);
      })
      .Case([&](tile::ScanOp scan) {
        // Every source and result shares the first source's layout.
        Attribute target = operandLayout(op, scan.getSrcs().front());
        for (Value result : scan.getResults())
          target = assign(result, target);
        for (OpOperand &src : scan.getSrcsMutable())
          convertOperand(src, target);
      })
      .Case([&](tile::ReduceOp r) {
        auto type = dyn_cast<RankedTensorType>(r.getType());
        if (!type)
          return; // reducing a 1-D tile gives a scalar
        unsigned axis = r.getAxis();
        Attribute parent = operandLayout(op, r.getSrc());
        if (auto slice =
                dyn_cast_or_null<tile::SliceLayoutAttr>(type.getEncoding())) {
          // An explicit result layout: fit the source to it.
          if (slice.getDim() == axis && slice.getParent() != parent)
            convertOperand(r.getSrcMutable(), slice.getParent());
          return;
        }
        assign(r.getResult(), tile::SliceLayoutAttr::get(ctx, axis, parent));
      })
      .Case([&](tile::ExpandDimsOp e) {
        unsigned axis = e.getAxis();
        Attribute src = operandLayout(op, e.getSrc());
        Attribute target = layoutOf(e.getResult());
        if (!target) {
          auto slice = dyn_cast_or_null<tile::SliceLayoutAttr>(src);
          target = slice && slice.getDim() == axis
                       ? slice.getParent()
                       : getPreferred(e.getResult());
        }
        if (!tile::isDistributedLayout(target))
          return;
        convertOperand(e.getSrcMutable(),
                       tile::SliceLayoutAttr::get(ctx, axis, target));
        assign(e.getResult(), target);
      })
      .Case([&](tile::BroadcastOp b) {
        Attribute src = operandLayout(op, b.getSrc());
        Attribute target = assign(b.getResult(), src);
        convertOperand(b.getSrcMutable(), target);
      })
      .Case([&](tile::TransOp t) { visitTrans(t); })
      .Case([&](tile::LoadOp l) {
        if (!isa<RankedTensorType>(l.getPtr().getType()))
          return;
        // The loaded tile takes its group's layout; the pointers (cheap to
        // recompute) follow it.
        Attribute target =
            assign(l.getResult(), preferences->lookup(l.getResult()));
        convertOperand(l.getPtrMutable(), target);
        for (OpOperand &operand : l.getMaskMutable())
          convertOperand(operand, target);
        for (OpOperand &operand : l.getOtherMutable())
          convertOperand(operand, target);
      })
      .Case([&](tile::AtomicRMWOp a) {
        if (!isa<RankedTensorType>(a.getPtr().getType()))
          return;
        // Like a load: the old values take their group's layout and the
        // pointers, values and mask follow them.
        Attribute target =
            assign(a.getResult(), preferences->lookup(a.getResult()));
        convertOperand(a.getPtrMutable(), target);
        convertOperand(a.getValueMutable(), target);
        for (OpOperand &operand : a.getMaskMutable())
          convertOperand(operand, target);
      })
      .Case([&](tile::StoreOp s) {
        if (!isa<RankedTensorType>(s.getPtr().getType()))
          return;
        // A reduction's or a dot's result is expensive to move; the
        // pointers and the mask are cheap to recompute in its layout.
        Attribute target = operandLayout(op, s.getValue());
        convertOperand(s.getPtrMutable(), target);
        for (OpOperand &operand : s.getMaskMutable())
          convertOperand(operand, target);
      })
      .Case([&](tile::SmemLoadOp l) {
        // Buffers have no layout: the tile takes its group's.
        assign(l.getResult(), preferences->lookup(l.getResult()));
      })
      .Case([&](tile::AsyncCopyOp c) {
        // Like a store of the pointees: the mask follows the pointers.
        // Pointers computed from ranges and splats take the widest accesses
        // of their own shape (a copy does no arithmetic a shared layout
        // would save; the conversion clean-up recomputes them in it).
        Attribute target = operandLayout(op, c.getPtr());
        if (preferences->isCheap(c.getPtr())) {
          auto ptrType = cast<RankedTensorType>(c.getPtr().getType());
          target = getDefaultBlockedLayout(
              ctx, ptrType.getShape(),
              getAnchorElementBits(ptrType.getElementType()), numWarps,
              waveSize);
          convertOperand(c.getPtrMutable(), target);
        }
        for (OpOperand &operand : c.getMaskMutable())
          convertOperand(operand, target);
      })
      .Case([&](tile::DotOp d) {
        Attribute mma = getMatrixResultLayout(d);
        Attribute target = assign(
            d.getResult(), mma ? mma : getDefault(d.getResult().getType()));
        convertOperand(d.getAccMutable(), target);
        if (auto result = dyn_cast<tile::MmaLayoutAttr>(target)) {
          convertOperand(d.getAMutable(),
                         result.withOperand(tile::MatrixOperand::A));
          convertOperand(d.getBMutable(),
                         result.withOperand(tile::MatrixOperand::B));
        }
      })
      .Case([&](tile::SharedDotOp d) {
        convertOperand(d.getAccMutable(),
                       assign(d.getResult(), getSharedDotLayout()));
      })
      .Case([&](tile::ConvertLayoutOp c) {
        assign(c.getResult(), operandLayout(op, c.getSrc()));
      })
      .Case([&](tile::DotWaitOp w) {
        assign(w.getResult(), operandLayout(op, w.getAcc()));
      })
      .Case([&](scf::ForOp f) { visitFor(f); })
      .Case([&](scf::WhileOp w) { visitWhile(w); })
      .Case([&](scf::IfOp i) { visitIf(i); })
      .Case([&](func::ReturnOp r) {
        for (OpOperand &operand : r->getOpOperands())
          if (auto type = dyn_cast<RankedTensorType>(
                  r->getParentOfType<func::FuncOp>()
                      .getResultTypes()[operand.getOperandNumber()]))
            convertOperand(operand, type.getEncoding());
      })
      .Default([&](Operation *) {
        if (isElementwise(op))
          return visitElementwise(op);
        for (Region &region : op->getRegions())
          for (Block &block : region)
            visitBlock(block);
      });
  if (hadError)
    return;
  for (Value result : op->getResults())
    if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
      if (!tensor.getEncoding()) {
        op->emitOpError("tile-assign-layouts: no rule gives a layout to ")
            << tensor;
        hadError = true;
        return;
      }
}

void LayoutAssigner::visitElementwise(Operation *op) {
  Attribute target;
  for (Value result : op->getResults())
    if (Attribute layout = layoutOf(result))
      target = layout; // explicit
  // A result worth keeping in place takes its group's layout; a cheap one
  // follows its first operand (converting cheap operands costs nothing).
  if (!target && !op->getResults().empty() &&
      !preferences->isCheap(op->getResult(0)))
    target = preferences->lookup(op->getResult(0));
  if (!target)
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType())) {
        target = operandLayout(op, operand);
        break;
      }
  if (!target)
    return; // scalars
  for (OpOperand &operand : op->getOpOperands())
    convertOperand(operand, target);
  for (Value result : op->getResults())
    assign(result, target);
}

void LayoutAssigner::visitTrans(tile::TransOp t) {
  ArrayRef<int32_t> order = t.getOrder();
  SmallVector<int32_t> inverse(order.size());
  for (auto [i, d] : llvm::enumerate(order))
    inverse[d] = i;
  Attribute src = operandLayout(t, t.getSrc());
  Attribute explicitResult = layoutOf(t.getResult());
  if (isa_and_nonnull<tile::BlockedLayoutAttr>(explicitResult)) {
    convertOperand(t.getSrcMutable(),
                   getTransposedBlockedLayout(explicitResult, inverse));
    return;
  }
  Attribute blocked = isa_and_nonnull<tile::BlockedLayoutAttr>(src)
                          ? src
                          : getDefault(t.getSrc().getType());
  convertOperand(t.getSrcMutable(), blocked);
  Attribute transposed = getTransposedBlockedLayout(blocked, order);
  if (!explicitResult) {
    assign(t.getResult(), transposed);
    return;
  }
  // An explicit non-blocked result: transpose in registers, then convert to
  // what the user asked for.
  auto type = cast<RankedTensorType>(t.getType());
  t.getResult().setType(withLayout(type, transposed));
  OpBuilder b(t->getContext());
  b.setInsertionPointAfter(t);
  auto cvt = tile::ConvertLayoutOp::create(b, t.getLoc(), type, t.getResult());
  cvt->setAttr(kImplicitConvertAttr, UnitAttr::get(ctx));
  t.getResult().replaceAllUsesExcept(cvt, cvt);
}

void LayoutAssigner::visitFor(scf::ForOp f) {
  for (auto [init, arg, result] : llvm::zip(
           f.getInitArgsMutable(), f.getRegionIterArgs(), f.getResults())) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    // The entering layout, unless a matrix instruction wants the carried
    // value (an accumulator) in its own.
    Attribute target = layoutOf(arg);
    if (!target)
      target = preferences->getWanted(arg);
    if (!target)
      target = operandLayout(f, init.get());
    if (hadError)
      return;
    convertOperand(init, target);
    assign(arg, target);
    assign(result, target);
  }
  visitBlock(*f.getBody());
  auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
  for (auto [operand, arg] :
       llvm::zip(yield->getOpOperands(), f.getRegionIterArgs()))
    if (Attribute layout = layoutOf(arg))
      convertOperand(operand, layout);
}

void LayoutAssigner::visitWhile(scf::WhileOp w) {
  Block &before = w.getBefore().front(), &after = w.getAfter().front();
  for (auto [init, arg] :
       llvm::zip(w->getOpOperands(), before.getArguments())) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    Attribute target = layoutOf(arg);
    if (!target)
      target = operandLayout(w, init.get());
    if (hadError)
      return;
    convertOperand(init, target);
    assign(arg, target);
  }
  visitBlock(before);
  if (hadError)
    return;
  scf::ConditionOp cond = w.getConditionOp();
  for (auto [operand, arg, result] :
       llvm::zip(cond.getArgsMutable(), after.getArguments(), w.getResults())) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    Attribute target = layoutOf(arg);
    if (!target)
      target = layoutOf(result);
    if (!target)
      target = operandLayout(cond, operand.get());
    convertOperand(operand, target);
    assign(arg, target);
    assign(result, target);
  }
  visitBlock(after);
  if (hadError)
    return;
  for (auto [operand, arg] :
       llvm::zip(w.getYieldOp()->getOpOperands(), before.getArguments()))
    if (Attribute layout = layoutOf(arg))
      convertOperand(operand, layout);
}

void LayoutAssigner::visitIf(scf::IfOp i) {
  visitBlock(*i.thenBlock());
  if (hadError || i.getNumResults() == 0) {
    if (!hadError && i.elseBlock())
      visitBlock(*i.elseBlock());
    return;
  }
  for (auto [operand, result] :
       llvm::zip(i.thenYield()->getOpOperands(), i.getResults())) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    Attribute target = layoutOf(result);
    if (!target)
      target = operandLayout(i, operand.get());
    convertOperand(operand, target);
    assign(result, target);
  }
  visitBlock(*i.elseBlock());
  if (hadError)
    return;
  for (auto [operand, result] :
       llvm::zip(i.elseYield()->getOpOperands(), i.getResults()))
    if (Attribute layout = layoutOf(result))
      convertOperand(operand, layout);
}

struct TileAssignLayoutsPass
    : kda::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto i32 = IntegerType::get(ctx, 32);
    // Attributes already on the module win over the options.
    auto read = [&](StringRef name, unsigned fallback) -> unsigned {
      if (auto attr = module->getAttrOfType<IntegerAttr>(name))
        return attr.getInt();
      module->setAttr(name, IntegerAttr::get(i32, fallback));
      return fallback;
    };
    unsigned warps = read(kNumWarpsAttr, numWarps);
    unsigned wave = read(kWaveSizeAttr, waveSize);
    if (!llvm::isPowerOf2_32(warps) || !llvm::isPowerOf2_32(wave)) {
      module.emitError("tile-assign-layouts: num_warps (")
          << warps << ") and wave_size (" << wave << ") must be powers of two";
      return signalPassFailure();
    }
    SmallVector<tile::MatrixInstr> instrs;
    for (const std::string &name : matrixInstrs) {
      std::optional<tile::MatrixInstr> instr = tile::symbolizeMatrixInstr(name);
      if (!instr) {
        module.emitError("tile-assign-layouts: unknown matrix instruction '")
            << name << "'";
        return signalPassFailure();
      }
      instrs.push_back(*instr);
    }
    LayoutAssigner assigner(ctx, warps, wave, instrs);
    for (auto func : module.getOps<FunctionOpInterface>())
      if (!func.isExternal() && failed(assigner.run(func)))
        return signalPassFailure();
  }
};

} // namespace
