// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize | FileCheck %s
// RUN: kda-opt %s --split-input-file --kda-gpu-lower=target=sm_90a | FileCheck %s --check-prefix=PIPE
// RUN: kda-opt %s --split-input-file --kda-gpu-lower="target=sm_90a block-copies=elements" | FileCheck %s --check-prefix=ELEM

// A TMA block load: the tensor map is a hidden kernel parameter (128 bytes
// by value, 128-byte aligned); the entry initializes a ring of 8 barriers;
// one thread arrives on the load's barrier expecting the block's 4096 bytes
// and issues cp.async.bulk.tensor at the offsets innermost first; the wait
// waits on that barrier's phase. The recipe goes on the kernel.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @load
// CHECK-SAME: %[[MAP:[^:]*]]: !llvm.ptr {llvm.align = 128 : i64, llvm.byval = !llvm.array<128 x i8>})
// CHECK-SAME: kda.tensor_maps = [array<i64: 2, 2, 0, 0, 32, 64, 2, 1, 1, 2, 1, 1, 2, 1, 2>]
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%arg4, %arg3]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvvm.barrier
func.func @load(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %m: i32, %ld: i64 {tile.divisibility = 8 : i64}, %i: i32, %j: i32) attributes {tile.kernel} {
  %one = arith.constant 1 : i64
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %d = tile.make_tensor_desc %base, [%m, %m], [%ld, %one] {kda.tensor_map = array<i64: 2, 2, 0, 0, 32, 64, 2, 1, 1, 2, 1, 1, 2, 1, 2>} : !tile.ptr<bf16> -> !tile.tensor_desc<32x64xbf16>
  tile.async_load %d[%i, %j], %buf : !tile.tensor_desc<32x64xbf16>, !tile.smem<32x64xbf16>
  tile.async_wait {pending = 0 : i32}
  return
}
}

// -----

// A TMA store: every thread's writes reach the async proxy, then one thread
// stores the buffer as a bulk group and waits for it, and a barrier keeps
// the buffer until then. After the whole pipeline the map is a grid
// constant of the kernel, and the recipe stays for the runtime; with
// block-copies=elements the store is element stores.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK: nvvm.barrier
// PIPE-LABEL: llvm.func @store
// PIPE-SAME: !llvm.ptr {llvm.align = 128 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// PIPE-SAME: kda.tensor_maps = [array<i64:
// ELEM-LABEL: llvm.func @store
// ELEM-NOT: byval
// ELEM-NOT: cp.async.bulk
// ELEM: llvm.store
func.func @store(%base: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %m: i32 {tile.divisibility = 4 : i64}, %i: i32) attributes {tile.kernel} {
  %one = arith.constant 1 : i64
  %c64 = arith.constant 64 : i64
  %c0 = arith.constant 0 : i32
  %buf = tile.alloc_shared : !tile.smem<8x64xf32>
  %d = tile.make_tensor_desc %base, [%m, %m], [%c64, %one] {kda.tensor_map = array<i64: 4, 2, 0, 0, 8, 64, 2, 1, 1, 2, 1, 1, 2, 0, 64>} : !tile.ptr<f32> -> !tile.tensor_desc<8x64xf32>
  %pid = tile.program_id 0
  tile.async_store %d[%pid, %c0], %buf : !tile.tensor_desc<8x64xf32>, !tile.smem<8x64xf32>
  return
}
}

// -----

// Into a 128-byte-swizzled nvmma_shared buffer: one barrier arrival expecting
// the whole block (64 x 128 bf16 = 16384 bytes), then one TMA copy per column
// block, the second 64 columns in and 64 x 64 elements into the buffer,
// which starts a swizzle period (1024-byte aligned).
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK: llvm.mlir.global internal @kda_smem_{{[0-9]+}}() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<16384 x i8>
// CHECK-LABEL: func.func @swizzled_load
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[BYTES:.*]] = llvm.mlir.constant(16384 : i32) : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[BYTES]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[S0:.*]] = llvm.addrspacecast %[[BUF:.*]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[S0]], %{{.*}}, %{{.*}}, box[%arg3, %arg2]
// CHECK-NEXT: %[[J:.*]] = llvm.add %arg3, %[[C64]] : i32
// CHECK-NEXT: %[[S1:.*]] = llvm.getelementptr %[[BUF]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK-NEXT: %[[S1C:.*]] = llvm.addrspacecast %[[S1]]
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[S1C]], %{{.*}}, %{{.*}}, box[%[[J]], %arg2]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
func.func @swizzled_load(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i64}, %m: i32, %i: i32, %j: i32) attributes {tile.kernel} {
  %one = arith.constant 1 : i64
  %c128 = arith.constant 128 : i64
  %buf = tile.alloc_shared : !tile.smem<64x128xbf16, #nv>
  %d = tile.make_tensor_desc %base, [%m, %m], [%c128, %one] {kda.tensor_map = array<i64: 2, 2, 0, 128, 64, 64, 2, 1, 1, 2, 1, 1, 2, 0, 128>} : !tile.ptr<bf16> -> !tile.tensor_desc<64x128xbf16>
  tile.async_load %d[%i, %j], %buf : !tile.tensor_desc<64x128xbf16>, !tile.smem<64x128xbf16, #nv>
  tile.async_wait {pending = 0 : i32}
  return
}
}
