// RUN: kda-opt %s --split-input-file --verify-diagnostics --convert-tile-to-gpu=target=gfx950
// RUN: not kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_100 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: unknown GPU target 'sm_100'

module attributes {tile.num_warps = 4 : i32} {
func.func @no_layout(%x: tensor<128xf32>) -> tensor<128xf32> {
  // expected-error @below {{'arith.addf' op tile without a distributed layout: 'tensor<128xf32>' (run tile-assign-layouts first)}}
  %y = arith.addf %x, %x : tensor<128xf32>
  return %y : tensor<128xf32>
}
}

// -----

// A wave32 layout on wave64 gfx950.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @wave(%x: tensor<128xf32, #l>) -> tensor<128xf32, #l> {
  // expected-error @below {{spreads over 32 lanes x 4 warps, but the target runs 64 lanes x 4 warps}}
  %y = arith.addf %x, %x : tensor<128xf32, #l>
  return %y : tensor<128xf32, #l>
}
}

// -----

// More warps than the module's num_warps.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @warps(%x: tensor<512xf32, #l>) -> tensor<512xf32, #l> {
  // expected-error @below {{spreads over 64 lanes x 8 warps, but the target runs 64 lanes x 4 warps}}
  %y = arith.addf %x, %x : tensor<512xf32, #l>
  return %y : tensor<512xf32, #l>
}
}

// -----

// expected-error @below {{tiles were laid out for a wave of 32 but gfx950 runs 64}}
module attributes {tile.num_warps = 4 : i32, tile.wave_size = 32 : i32} {
}

// -----

// A 256x256 f32 conversion needs 256 KiB of scratch; gfx950 has 160 KiB.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// expected-error @below {{kernel needs 262144 bytes of shared memory; gfx950 allows 163840}}
module attributes {tile.num_warps = 4 : i32} {
func.func @too_big(%x: tensor<256x256xf32, #a>) -> tensor<256x256xf32, #c> {
  %t = tile.convert_layout %x : tensor<256x256xf32, #a> -> tensor<256x256xf32, #c>
  return %t : tensor<256x256xf32, #c>
}
}

// -----

// gfx950 has no thread-block clusters.
module attributes {tile.num_warps = 4 : i32} {
func.func @cluster_sum_without_clusters(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @below {{'tile.cluster_sum' op needs thread-block clusters, which gfx950 does not have}}
  %s = tile.cluster_sum %x {axis = 0 : i32, size = 2 : i32} : f32
  tile.store %out, %s : !tile.ptr<f32>
  return
}
}

// -----

// A kernel runs in one cluster shape.
module attributes {tile.num_warps = 4 : i32} {
func.func @two_cluster_shapes(%x: f32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-note @below {{the other cluster sum}}
  %s = tile.cluster_sum %x {axis = 0 : i32, size = 2 : i32} : f32
  // expected-error @below {{'tile.cluster_sum' op asks for clusters of 4 programs along axis 0, another cluster sum of the kernel for 2 along axis 0: a kernel has one cluster shape}}
  %t = tile.cluster_sum %s {axis = 0 : i32, size = 4 : i32} : f32
  tile.store %out, %t : !tile.ptr<f32>
  return
}
}
