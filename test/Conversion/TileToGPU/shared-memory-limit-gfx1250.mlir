// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 --verify-diagnostics | FileCheck %s

// gfx1250's LDS limit is the AMDGPU back end's (327680 bytes per workgroup):
// a 256 KiB conversion scratch is a static LDS buffer.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK: llvm.mlir.global {{.*}} : !llvm.array<262144 x i8>
module attributes {tile.num_warps = 4 : i32} {
func.func @fits(%x: tensor<256x256xf32, #a>) -> tensor<256x256xf32, #c> {
  %t = tile.convert_layout %x : tensor<256x256xf32, #a> -> tensor<256x256xf32, #c>
  return %t : tensor<256x256xf32, #c>
}
}

// -----

// 512 KiB does not fit.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// expected-error @below {{kernel needs 524288 bytes of shared memory; gfx1250 allows 327680}}
module attributes {tile.num_warps = 4 : i32} {
func.func @too_big(%x: tensor<512x256xf32, #a>) -> tensor<512x256xf32, #c> {
  %t = tile.convert_layout %x : tensor<512x256xf32, #a> -> tensor<512x256xf32, #c>
  return %t : tensor<512x256xf32, #c>
}
}
