// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s

// Above sm_90a's 48 KiB of static shared memory, all of a kernel's shared
// memory moves into one dynamically sized global: the scratch of the layout
// conversion at offset 0 (64 KiB for 128x128 fp32), then each buffer at its
// 16-byte aligned offset. The module records the bytes each launch provides.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK: module attributes {kda.dynamic_shared_bytes = 98320 : i64
// CHECK-NOT: llvm.mlir.global {{.*}}@kda_scratch
// CHECK-NOT: llvm.mlir.global {{.*}}@kda_smem_
// CHECK: llvm.mlir.global external @kda_dynamic_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: func.func @big
// CHECK: %[[B0:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B0]][65536] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[B1:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B1]][98304] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[B2:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B2]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module attributes {tile.num_warps = 4 : i32} {
func.func @big(%x: tensor<128x128xf32, #a>) -> tensor<128x128xf32, #c> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<64x128xf32>
  %odd = tile.alloc_shared : !tile.smem<2xf32>
  %t = tile.convert_layout %x : tensor<128x128xf32, #a> -> tensor<128x128xf32, #c>
  return %t : tensor<128x128xf32, #c>
}
}

// -----

// Within the static limit nothing moves and no size is recorded.
// CHECK-NOT: kda.dynamic_shared_bytes
// CHECK: llvm.mlir.global internal @kda_smem_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<49152 x i8>
// CHECK-NOT: kda_dynamic_smem
module attributes {tile.num_warps = 4 : i32} {
func.func @fits() attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<3x32x128xf32>
  return
}
}

// -----

// Scratch alone (a 128x128 fp32 layout conversion, 64 KiB) moves too.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK: module attributes {kda.dynamic_shared_bytes = 65536 : i64
// CHECK-NOT: @kda_scratch
// CHECK: llvm.mlir.global external @kda_dynamic_smem()
// CHECK-LABEL: func.func @scratch_only
// CHECK: %[[B:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module attributes {tile.num_warps = 4 : i32} {
func.func @scratch_only(%x: tensor<128x128xf32, #a>) -> tensor<128x128xf32, #c> attributes {tile.kernel} {
  %t = tile.convert_layout %x : tensor<128x128xf32, #a> -> tensor<128x128xf32, #c>
  return %t : tensor<128x128xf32, #c>
}
}

// -----

// The most aligned buffers go first, so alignment pads as little as it can:
// the 1024-byte aligned nvmma_shared buffer, made second, sits before the
// 16-byte aligned one (no scratch here): 65536 + 64 bytes, not 1024 + 65536.
#nv = #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>
// CHECK: module attributes {kda.dynamic_shared_bytes = 65600 : i64
// CHECK-LABEL: func.func @aligned_first
// CHECK: %[[B0:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B0]][65536] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[B1:.*]] = llvm.mlir.addressof @kda_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr inbounds %[[B1]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
module attributes {tile.num_warps = 4 : i32} {
func.func @aligned_first() attributes {tile.kernel} {
  %small = tile.alloc_shared : !tile.smem<16xf32>
  %big = tile.alloc_shared : !tile.smem<256x128xbf16, #nv>
  return
}
}
