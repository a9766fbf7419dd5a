// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// One warpgroup, a [64, 32] x [32, 128] product: a proxy fence and a
// wgmma.fence, then one wgmma per k16 step (K-major a: row; N-major b: row),
// then the commit and a wait that carries the 64 accumulators. The
// descriptors hold SBO = 8 rows x 64 bytes (a, 64-byte swizzle: mode 2) and
// LBO = 32 rows x 128 bytes, SBO 1024 (b, 128-byte swizzle: mode 1).
#nv64 = #tile.nvmma_shared<{swizzleBytes = 64, elementBits = 16}>
#nv128 = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#acc = #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// Each buffer aligned to its swizzle pattern (8 rows).
// CHECK-DAG: llvm.mlir.global internal @kda_smem_0() {addr_space = 3 : i32, alignment = 512 : i64}
// CHECK-DAG: llvm.mlir.global internal @kda_smem_1() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: func.func @shared_dot
// 0x8000002000010000: LBO 16, SBO 512, 64-byte swizzle; 0x4000004001000000:
// LBO 4096, SBO 1024, 128-byte swizzle.
// CHECK-DAG: llvm.mlir.constant(-9223371899415756800 : i64)
// CHECK-DAG: llvm.mlir.constant(4611686293322072064 : i64)
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},~{memory}"
func.func @shared_dot(%c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> attributes {tile.kernel} {
  %a = tile.alloc_shared : !tile.smem<64x32xbf16, #nv64>
  %b = tile.alloc_shared : !tile.smem<32x128xbf16, #nv128>
  %d = tile.shared_dot %a, %b, %c : !tile.smem<64x32xbf16, #nv64>, !tile.smem<32x128xbf16, #nv128> -> tensor<64x128xf32, #acc>
  return %d : tensor<64x128xf32, #acc>
}
}

// -----

// Two warpgroups on 256 rows, N = 512 of b: each warpgroup takes rows 64g
// and 64g + 128, and each row block two n256 instructions per k16 step.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#acc = #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [8, 1]}>
module attributes {tile.num_warps = 8 : i32} {
// CHECK-LABEL: func.func @two_warpgroups
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @two_warpgroups(%c: tensor<256x512xf32, #acc>) -> tensor<256x512xf32, #acc> attributes {tile.kernel} {
  %a = tile.alloc_shared : !tile.smem<256x16xf16, #tile.nvmma_shared<{swizzleBytes = 32, elementBits = 16}>>
  %b = tile.alloc_shared : !tile.smem<16x512xf16, #nv>
  %d = tile.shared_dot %a, %b, %c : !tile.smem<256x16xf16, #tile.nvmma_shared<{swizzleBytes = 32, elementBits = 16}>>, !tile.smem<16x512xf16, #nv> -> tensor<256x512xf32, #acc>
  return %d : tensor<256x512xf32, #acc>
}
}

// -----

// Reading an nvmma_shared buffer element-wise: the index of the column-block
// order ([C / 64, R, 64] for 128-byte rows of bf16) with its 16-byte group
// XORed by bits 7-9 of the byte offset (element bits 6-8).
#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @nvmma_load
// CHECK-DAG: %[[SIX:.*]] = llvm.mlir.constant(6 : i32)
// CHECK-DAG: %[[SEVEN:.*]] = llvm.mlir.constant(7 : i32)
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32)
// CHECK: %[[SH:.*]] = llvm.lshr %[[IDX:.*]], %[[SIX]] : i32
// CHECK-NEXT: %[[PH:.*]] = llvm.and %[[SH]], %[[SEVEN]] : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.shl %[[PH]], %[[THREE]] : i32
// CHECK-NEXT: %[[SW:.*]] = llvm.xor %[[IDX]], %[[OFF]] : i32
// CHECK-NEXT: llvm.getelementptr %{{.*}}[%[[SW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
func.func @nvmma_load() -> tensor<16x128xbf16, #blk> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<16x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  %v = tile.smem_load %buf : !tile.smem<16x128xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<16x128xbf16, #blk>
  return %v : tensor<16x128xbf16, #blk>
}
}

// -----

// An asynchronous product is committed as its group and not waited for; a
// tile.dot_wait is the wait with its pending count, carrying the
// accumulators through the asm so no read of them moves above it.
#nv64 = #tile.nvmma_shared<{swizzleBytes = 64, elementBits = 16}>
#nv128 = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
#acc = #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [4, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @async_dot
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait_group
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,{{.*}},~{memory}"
// CHECK-NOT: wgmma.wait_group
func.func @async_dot(%c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> attributes {tile.kernel} {
  %a = tile.alloc_shared : !tile.smem<64x32xbf16, #nv64>
  %b = tile.alloc_shared : !tile.smem<32x128xbf16, #nv128>
  %d = tile.shared_dot %a, %b, %c async : !tile.smem<64x32xbf16, #nv64>, !tile.smem<32x128xbf16, #nv128> -> tensor<64x128xf32, #acc>
  %e = tile.shared_dot %a, %b, %d async : !tile.smem<64x32xbf16, #nv64>, !tile.smem<32x128xbf16, #nv128> -> tensor<64x128xf32, #acc>
  %w = tile.dot_wait %e {pending = 1 : i32} : tensor<64x128xf32, #acc>
  return %w : tensor<64x128xf32, #acc>
}
}
