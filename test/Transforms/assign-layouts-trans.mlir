// RUN: kda-opt %s --split-input-file --tile-assign-layouts | FileCheck %s

// tile.trans of a blocked tile permutes the layout with the tile, so no data
// moves (each thread keeps its elements).

// CHECK-LABEL: func.func @trans_blocked
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.trans %[[S]] {order = array<i32: 1, 0>} : tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x16xf32, #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @trans_blocked(%x: f32) {
  %s = tile.splat %x : tensor<16x64xf32>
  %t = tile.trans %s {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @trans_3d
// CHECK: tile.trans %{{.*}} {order = array<i32: 2, 0, 1>} : tensor<8x8x32xi32, #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>> -> tensor<32x8x8xi32, #tile.blocked<{sizePerThread = [4, 1, 1], threadsPerWarp = [8, 1, 4], warpsPerCTA = [1, 4, 1], order = [0, 2, 1]}>>
func.func @trans_3d(%x: i32) {
  %s = tile.splat %x : tensor<8x8x32xi32>
  %t = tile.trans %s {order = array<i32: 2, 0, 1>} : tensor<8x8x32xi32> -> tensor<32x8x8xi32>
  return
}

// -----

// A sliced source is first converted to the default blocked layout of its
// rank (made for the function's largest 2-D tile, here [16, 32] f32).

// CHECK-LABEL: func.func @trans_slice
// CHECK: %[[R:.*]] = tile.reduce sum %{{.*}} {axis = 2 : i32} : {{.*}} -> tensor<16x32xf32, #tile.slice<{{.*}}>>
// CHECK: %[[C:.*]] = tile.convert_layout %[[R]] {tile.implicit} : tensor<16x32xf32, #tile.slice<{{.*}}>> -> tensor<16x32xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.trans %[[C]] {order = array<i32: 1, 0>} : tensor<16x32xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<32x16xf32, #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @trans_slice(%x: f32) {
  %s = tile.splat %x : tensor<16x32x2xf32>
  %r = tile.reduce sum %s {axis = 2 : i32} : tensor<16x32x2xf32> -> tensor<16x32xf32>
  %t = tile.trans %r {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
  return
}

// -----

// An explicit blocked result: the source is converted to its inverse
// permutation.

#res = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @trans_explicit_result
// CHECK: %[[C:.*]] = tile.convert_layout %{{.*}} {tile.implicit} : tensor<16x64xf32, {{.*}}> -> tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.trans %[[C]] {order = array<i32: 1, 0>} : tensor<16x64xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x16xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @trans_explicit_result(%x: f32) {
  %s = tile.splat %x : tensor<16x64xf32>
  %t = tile.trans %s {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32, #res>
  return
}
