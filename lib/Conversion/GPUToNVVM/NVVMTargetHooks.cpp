//===- NVVMTargetHooks.cpp - NVIDIA specifics of the GPU lowering ---------===//
#include "kda/Conversion/GPUToNVVM/MatrixDescriptor.h"
#include "kda/Conversion/PrintToLLVM.h"
#include "kda/Conversion/TileToGPU/TargetHooks.h"
#include "kda/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace {
/// The f32 result of NVVM intrinsic `name` on f32 `args`.
Value callIntrinsic(OpBuilder &b, Location loc, StringRef name,
                    ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       StringAttr::get(b.getContext(), name),
                                       args)
      .getResult(0);
}

class NVVMTargetHooks : public kda::TargetHooks {
public:
  using TargetHooks::TargetHooks;

  Value getThreadId(OpBuilder &b, Location loc) override {
    return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  }
  Value getProgramId(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::BlockIdXOp::create(b, loc, i32);
    case 1:
      return NVVM::BlockIdYOp::create(b, loc, i32);
    default:
      return NVVM::BlockIdZOp::create(b, loc, i32);
    }
  }
  Value getNumPrograms(OpBuilder &b, Location loc, unsigned axis) override {
    Type i32 = b.getI32Type();
    switch (axis) {
    case 0:
      return NVVM::GridDimXOp::create(b, loc, i32);
    case 1:
      return NVVM::GridDimYOp::create(b, loc, i32);
    default:
      return NVVM::GridDimZOp::create(b, loc, i32);
    }
  }
  /// CUDA's device printf: vprintf(format, buffer), the buffer holding the
  /// arguments laid out as a C struct, on the thread's stack.
  void printf(OpBuilder &b, Location loc, StringRef format,
              ValueRange args) override {
    MLIRContext *ctx = b.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto module =
        b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    auto vprintf = kda::getOrDeclareFunction(
        b, module, "vprintf",
        LLVM::LLVMFunctionType::get(b.getI32Type(), {ptrTy, ptrTy}));
    auto bufferType = LLVM::LLVMStructType::getLiteral(
        ctx, llvm::to_vector(ValueRange(args).getTypes()));
    // One buffer per argument layout at the function's entry, shared by the
    // prints using it (vprintf has read it when it returns), so prints in
    // loops or of large tiles take no more stack.
    Block &entry = b.getInsertionBlock()
                       ->getParent()
                       ->getParentOfType<FunctionOpInterface>()
                       ->getRegion(0)
                       .front();
    constexpr llvm::StringLiteral kBufferAttr = "kda.printf_buffer";
    Value buffer;
    for (auto alloca : entry.getOps<LLVM::AllocaOp>())
      if (alloca->hasAttr(kBufferAttr) && alloca.getElemType() == bufferType)
        buffer = alloca;
    if (!buffer) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&entry);
      Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
      auto alloca = LLVM::AllocaOp::create(b, loc, ptrTy, bufferType, one,
                                           /*alignment=*/8);
      alloca->setAttr(kBufferAttr, b.getUnitAttr());
      buffer = alloca;
    }
    for (auto [i, arg] : llvm::enumerate(args)) {
      Value slot = LLVM::GEPOp::create(b, loc, ptrTy, bufferType, buffer,
                                       ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
      LLVM::StoreOp::create(b, loc, arg, slot);
    }
    Value text = kda::getStringAddress(b, loc, module, format, 0);
    LLVM::CallOp::create(b, loc, vprintf, ValueRange{text, buffer});
  }
  Value shuffleXor(OpBuilder &b, Location loc, Value value,
                   unsigned laneMask) override {
    Type i32 = b.getI32Type();
    Value all = LLVM::ConstantOp::create(b, loc, i32, -1);
    Value offset = LLVM::ConstantOp::create(b, loc, i32, int(laneMask));
    Value clamp = LLVM::ConstantOp::create(b, loc, i32, 31);
    return NVVM::ShflOp::create(
        b, loc, value.getType(), all, value, offset, clamp,
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  }
  Value log2(OpBuilder &b, Location loc, Value x) override {
    if (!x.getType().isF32())
      return TargetHooks::log2(b, loc, x);
    return callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.f", x);
  }
  Value sinOrCos(OpBuilder &b, Location loc, Value x, bool isSin) override {
    if (!x.getType().isF32())
      return TargetHooks::sinOrCos(b, loc, x, isSin);
    return callIntrinsic(
        b, loc, isSin ? "llvm.nvvm.sin.approx.f" : "llvm.nvvm.cos.approx.f", x);
  }
  Value divide(OpBuilder &b, Location loc, Value lhs, Value rhs) override {
    if (!lhs.getType().isF32())
      return TargetHooks::divide(b, loc, lhs, rhs);
    return callIntrinsic(b, loc, "llvm.nvvm.div.full", ValueRange{lhs, rhs});
  }
  Value sqrt(OpBuilder &b, Location loc, Value x) override {
    if (!x.getType().isF32())
      return TargetHooks::sqrt(b, loc, x);
    return callIntrinsic(b, loc, "llvm.nvvm.sqrt.approx.f", x);
  }
  Value rsqrt(OpBuilder &b, Location loc, Value x) override {
    if (!x.getType().isF32())
      return TargetHooks::rsqrt(b, loc, x);
    return callIntrinsic(b, loc, "llvm.nvvm.rsqrt.approx.f", x);
  }
  void barrier(OpBuilder &b, Location loc) override {
    NVVM::Barrier0Op::create(b, loc);
  }
  void waitPriorLaunches(OpBuilder &b, Location loc) override {
    // Volatile assembly clobbering memory, as CUDA's
    // cudaGridDependencySynchronize is: the guarantee that no access moves
    // above the wait is spelled out here rather than left to what LLVM's
    // intrinsic happens to declare (today a side effect LLVM treats as
    // touching any memory).
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{}, "griddepcontrol.wait;", "~{memory}",
        /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr(), ArrayAttr());
  }
  void launchDependents(OpBuilder &b, Location loc) override {
    NVVM::GriddepcontrolOp::create(b, loc,
                                   NVVM::GridDepActionKind::launch_dependents);
  }
  bool hasAsyncCopies() const override { return true; }
  void asyncCopy(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value srcBytes) override {
    // .cg (L2 only) exists for 16-byte copies; smaller ones use .ca.
    auto modifier = bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                : NVVM::LoadCacheModifierKind::CA;
    NVVM::CpAsyncOp::create(
        b, loc, dst, src, b.getI32IntegerAttr(bytes),
        NVVM::LoadCacheModifierKindAttr::get(b.getContext(), modifier),
        srcBytes);
  }
  void commitAsyncCopies(OpBuilder &b, Location loc) override {
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  void waitAsyncCopies(OpBuilder &b, Location loc, unsigned pending) override {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }
  StringRef getBlockCopyEngine() const override { return "tma"; }
  /// cp.async.bulk.tensor: loads complete on the barrier's transaction
  /// count, stores are committed as a bulk group.
  void copyBlockWithTensorMap(OpBuilder &b, Location loc, Value map,
                              ValueRange coords, Value shared, Value barrier,
                              bool isLoad) override {
    if (!isLoad) {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, map, shared, coords, /*l2CacheHint=*/Value(),
          NVVM::TMAStoreModeAttr::get(b.getContext(), NVVM::TMAStoreMode::TILE),
          /*predicate=*/Value());
      NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
      return;
    }
    // The destination is named in the cluster's shared window.
    Value dst = LLVM::AddrSpaceCastOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(
            b.getContext(), unsigned(NVVM::NVVMMemorySpace::SharedCluster)),
        shared);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, map, coords, barrier, /*im2colOffsets=*/ValueRange(),
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
        /*isCTAOnly=*/b.getBoolAttr(false), /*group=*/nullptr,
        /*predicate=*/Value());
  }
  /// The copy engine reads the map in place: a grid constant.
  void addTensorMapArgAttrs(MLIRContext *ctx, NamedAttrList &attrs) override {
    attrs.set(NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(ctx));
  }
  void initCopyBarrier(OpBuilder &b, Location loc, Value barrier) override {
    NVVM::MBarrierInitOp::create(
        b, loc, barrier, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1),
        /*predicate=*/Value());
  }
  void fenceCopyBarrierInit(OpBuilder &b, Location loc) override {
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  void expectCopyBytes(OpBuilder &b, Location loc, Value barrier,
                       int64_t bytes) override {
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, /*res=*/Type(), barrier,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), bytes),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
        b.getBoolAttr(false), /*predicate=*/Value());
  }
  void waitCopyBarrier(OpBuilder &b, Location loc, Value barrier,
                       Value parity) override {
    // A suspend-time hint of 10 ms per try; the op loops until the phase
    // completes.
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrier, parity,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(), 10000000));
  }
  void fenceSharedForCopies(OpBuilder &b, Location loc) override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
  void waitTensorMapStores(OpBuilder &b, Location loc) override {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                         /*read=*/UnitAttr());
  }
  StringRef getSyncScope(kda::tile::MemoryScope scope) const override {
    switch (scope) {
    case kda::tile::MemoryScope::CTA:
      return "block";
    case kda::tile::MemoryScope::GPU:
      return "device";
    case kda::tile::MemoryScope::System:
      break;
    }
    return "";
  }
  bool hasClusters() const override { return true; }
  void initClusterExchanges(OpBuilder &b, Location loc, ValueRange buffers,
                            Value isFirstThread) override {
    // Thread 0 makes each barrier expect one arrival (its own, with the
    // bytes); the cluster barrier, waited for before the first sum, then
    // publishes the initialization to every program before any sends (a
    // remote st.async must find it).
    {
      OpBuilder::InsertionGuard guard(b);
      auto ifOp =
          scf::IfOp::create(b, loc, isFirstThread, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
      for (Value buffer : buffers)
        NVVM::MBarrierInitOp::create(b, loc, buffer, one, Value());
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    NVVM::ClusterArriveRelaxedOp::create(b, loc, b.getUnitAttr());
  }
  void waitForClusterExchanges(OpBuilder &b, Location loc) override {
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }
  Value clusterSum(OpBuilder &b, Location loc, Value value, Value buffer,
                   unsigned size, Value isFirstThread) override {
    // One-way exchange: threads 0..size-1 each push this program's value
    // into slot `rank` of program `tid` with st.async, which counts its
    // bytes on that program's barrier; each program then waits until its
    // barrier has all `size` values (acquire at cluster scope: what the
    // others did before sending happens before what follows here) and adds
    // its slots in rank order.
    Type i32 = b.getI32Type();
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i32, v);
    };
    Value tid = getThreadId(b, loc);
    Value rank = NVVM::ClusterId::create(b, loc, i32);
    {
      OpBuilder::InsertionGuard guard(b);
      auto ifOp =
          scf::IfOp::create(b, loc, isFirstThread, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, Type(), buffer, constant(4 * size),
          NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
          b.getBoolAttr(false), Value());
    }
    auto ptrType = cast<LLVM::LLVMPointerType>(buffer.getType());
    Value slots = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), buffer,
                                      ArrayRef<LLVM::GEPArg>{8});
    Value mySlot = LLVM::GEPOp::create(b, loc, ptrType, b.getF32Type(), slots,
                                       ValueRange{rank});
    Value sends = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, tid,
                                       constant(size));
    Value target = LLVM::SelectOp::create(b, loc, sends, tid, constant(0));
    Value bits = LLVM::BitcastOp::create(b, loc, i32, value);
    auto address = [&](Value p) {
      return LLVM::PtrToIntOp::create(b, loc, i32, p).getResult();
    };
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{},
        ValueRange{address(mySlot), address(buffer), bits, target,
                   LLVM::ZExtOp::create(b, loc, i32, sends)},
        "{\n"
        ".reg .pred p;\n"
        ".reg .b32 slot, bar;\n"
        "setp.ne.b32 p, $4, 0;\n"
        "mapa.shared::cluster.u32 slot, $0, $3;\n"
        "mapa.shared::cluster.u32 bar, $1, $3;\n"
        "@p st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 "
        "[slot], $2, [bar];\n"
        "}",
        "r,r,r,r,r,~{memory}", /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr(), ArrayAttr());
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{address(buffer)},
        "{\n"
        ".reg .pred done;\n"
        "KDA_CLUSTER_WAIT:\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [$0], "
        "0;\n"
        "@!done bra KDA_CLUSTER_WAIT;\n"
        "}",
        "r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    Value sum;
    for (unsigned r = 0; r < size; ++r) {
      Value at = LLVM::GEPOp::create(b, loc, ptrType, b.getF32Type(), slots,
                                     ArrayRef<LLVM::GEPArg>{int32_t(r)});
      Value v = LLVM::LoadOp::create(b, loc, b.getF32Type(), at);
      sum = sum ? LLVM::FAddOp::create(b, loc, sum, v).getResult() : v;
    }
    return sum;
  }
  ArrayRef<kda::tile::MatrixInstr> getMatrixInstrs() const override {
    static const kda::tile::MatrixInstr instrs[] = {
        kda::tile::MatrixInstr::WgmmaM64K16,
        kda::tile::MatrixInstr::MmaM16N8K16,
        kda::tile::MatrixInstr::MmaM16N8K8Tf32};
    return instrs;
  }
  /// The operand's descriptor: a K-major operand (A) steps its 8-row groups
  /// by SBO (LBO unused with a swizzle: one k16 step stays in one column
  /// block); an N-major one (B, transposed) steps its 8-row K groups by SBO
  /// and its column blocks along N by LBO.
  Value getMatrixDescriptor(OpBuilder &b, Location loc,
                            const SharedMatrixOperand &operand) {
    Type i64 = b.getI64Type();
    uint64_t fields = kda::nvvm::encodeMatrixDescriptor(
        0, operand.kContiguous ? 16 : operand.blockBytes, operand.rowGroupBytes,
        operand.swizzleBytes);
    Value address = LLVM::PtrToIntOp::create(b, loc, i64, operand.address);
    Value start = LLVM::LShrOp::create(
        b, loc,
        LLVM::AndOp::create(b, loc, address,
                            LLVM::ConstantOp::create(
                                b, loc, i64, int64_t(kda::nvvm::kFieldMask))),
        LLVM::ConstantOp::create(b, loc, i64, kda::nvvm::kFieldShift));
    return LLVM::OrOp::create(
        b, loc, start, LLVM::ConstantOp::create(b, loc, i64, int64_t(fields)));
  }
  /// wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{bf16,f16}: A K-major
  /// (row), B N-major (row: transposed), D accumulated (scale-d 1).
  SmallVector<Value> sharedMatrixMultiply(OpBuilder &b, Location loc,
                                          const SharedMatrixOperand &a,
                                          const SharedMatrixOperand &bOperand,
                                          ValueRange c, int64_t n,
                                          Type elementType) override {
    assert(a.kContiguous && !bOperand.kContiguous &&
           int64_t(c.size()) == n / 2 &&
           "wgmma: K-major A, N-major B, n / 2 accumulators per thread");
    MLIRContext *ctx = b.getContext();
    auto structType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(c.size(), b.getF32Type()));
    Value acc = LLVM::UndefOp::create(b, loc, structType);
    for (auto [i, v] : llvm::enumerate(c))
      acc = LLVM::InsertValueOp::create(b, loc, acc, v, i);
    NVVM::WGMMATypes type =
        elementType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    Value d = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, structType, acc, getMatrixDescriptor(b, loc, a),
        getMatrixDescriptor(b, loc, bOperand),
        NVVM::MMAShapeAttr::get(ctx, 64, n, 16), type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::row,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
    SmallVector<Value> out;
    for (int64_t i = 0, e = c.size(); i < e; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return out;
  }
  void beginSharedMatrixMultiplies(OpBuilder &b, Location loc) override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
  }
  void commitSharedMatrixMultiplies(OpBuilder &b, Location loc) override {
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  }
  /// The wait is one asm statement that also takes and returns the
  /// accumulators: the wait op alone carries no registers, and LLVM could
  /// move their first reads above it.
  SmallVector<Value> waitSharedMatrixMultiplies(OpBuilder &b, Location loc,
                                                ValueRange acc,
                                                unsigned pending) override {
    std::string constraints;
    for (size_t i = 0; i < acc.size(); ++i)
      constraints += (i ? ",=f" : "=f");
    for (size_t i = 0; i < acc.size(); ++i)
      constraints += "," + std::to_string(i);
    constraints += ",~{memory}"; // later writes to the operands wait too
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(acc.size(), b.getF32Type()));
    Value waited =
        LLVM::InlineAsmOp::create(
            b, loc, structType, acc,
            "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
            constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    SmallVector<Value> out;
    for (size_t i = 0; i < acc.size(); ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, waited, i));
    return out;
  }
  /// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}: A as 4 and B as 2
  /// pairs of 16-bit elements (bf16 pairs passed as i32, as the intrinsic
  /// takes them), C and D as 4 f32; m16n8k8.row.col.f32.tf32.tf32.f32: A as
  /// 4 and B as 2 tf32 values (f32 already rounded) in i32.
  SmallVector<Value> matrixMultiply(OpBuilder &b, Location loc,
                                    kda::tile::MatrixInstr instr, ValueRange a,
                                    ValueRange bOperand,
                                    ValueRange c) override {
    Type f32 = b.getF32Type();
    Type result =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    auto results = [&](Value d) {
      SmallVector<Value> out;
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
      return out;
    };
    if (instr == kda::tile::MatrixInstr::MmaM16N8K8Tf32) {
      assert(a.size() == 4 && bOperand.size() == 2 && c.size() == 4 &&
             "mma.sync m16n8k8 tf32");
      auto asBits = [&](ValueRange values) {
        SmallVector<Value> out;
        for (Value v : values)
          out.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
        return out;
      };
      return results(NVVM::MmaOp::create(
          b, loc, result, asBits(a), asBits(bOperand), c, {16, 8, 8},
          /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
          std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                        NVVM::MMATypes::tf32},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col}));
    }
    assert(instr == kda::tile::MatrixInstr::MmaM16N8K16 && a.size() == 8 &&
           bOperand.size() == 4 && c.size() == 4 && "mma.sync m16n8k16");
    Type elem = a.front().getType();
    bool bf16 = elem.isBF16();
    auto pairs = [&](ValueRange values) {
      SmallVector<Value> out;
      auto pairType = VectorType::get({2}, elem);
      SmallVector<Value> elems(values);
      for (size_t i = 0; i < elems.size(); i += 2) {
        Value pair =
            kda::packVector(b, loc, pairType, ArrayRef(elems).slice(i, 2));
        out.push_back(
            bf16 ? LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair)
                 : pair);
      }
      return out;
    };
    NVVM::MMATypes type = bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    Value d = NVVM::MmaOp::create(
        b, loc, result, pairs(a), pairs(bOperand), c, {16, 8, 16},
        /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    return results(d);
  }
  bool hasMatrixLoads() const override { return true; }
  /// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16.
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value rowAddress,
                                  unsigned count, bool transposed) override {
    MLIRContext *ctx = b.getContext();
    Type i32 = b.getI32Type();
    Type result = count == 1 ? i32
                             : Type(LLVM::LLVMStructType::getLiteral(
                                   ctx, SmallVector<Type>(count, i32)));
    Value loaded = NVVM::LdMatrixOp::create(
        b, loc, result, rowAddress, b.getI32IntegerAttr(count),
        NVVM::MMALayoutAttr::get(ctx, transposed ? NVVM::MMALayout::col
                                                 : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
    if (count == 1)
      return {loaded};
    SmallVector<Value> out;
    for (unsigned i = 0; i < count; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, i));
    return out;
  }
  void markKernel(LLVM::LLVMFuncOp func, unsigned numThreads,
                  ArrayRef<int32_t> clusterShape) override {
    MLIRContext *ctx = func.getContext();
    func->setAttr("nvvm.kernel", UnitAttr::get(ctx));
    func->setAttr("nvvm.maxntid",
                  DenseI32ArrayAttr::get(ctx, {int32_t(numThreads), 1, 1}));
    if (llvm::any_of(clusterShape, [](int32_t n) { return n != 1; }))
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    DenseI32ArrayAttr::get(ctx, clusterShape));
  }
};
} // namespace

std::unique_ptr<kda::TargetHooks>
kda::createNVVMTargetHooks(const GPUTargetInfo &info) {
  return std::make_unique<NVVMTargetHooks>(info);
}
