// RUN: kda-opt %s --split-input-file --tile-assign-layouts="num-warps=8 wave-size=64" | FileCheck %s

// gfx950 runs 64 lanes per warp: lanes fill the fastest dimension first,
// warps the slowest.

// CHECK: module attributes {tile.num_warps = 8 : i32, tile.wave_size = 64 : i32}
// CHECK-LABEL: func.func @wave64
// CHECK: tile.range 0, 2048 : tensor<2048xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>>
// CHECK: tile.splat %{{.*}} : tensor<64x64xbf16, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>
// CHECK: tile.reduce max %{{.*}} {axis = 0 : i32} : tensor<64x64xbf16, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>> -> tensor<64xbf16, #tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>}>>
func.func @wave64(%x: bf16) {
  %r = tile.range 0, 2048 : tensor<2048xi32>
  %s = tile.splat %x : tensor<64x64xbf16>
  %m = tile.reduce max %s {axis = 0 : i32} : tensor<64x64xbf16> -> tensor<64xbf16>
  return
}

// -----

// Module attributes win over the options.

// CHECK: module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32}
// CHECK: tile.range 0, 512 : tensor<512xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
  func.func @attrs_win() {
    %r = tile.range 0, 512 : tensor<512xi32>
    return
  }
}
