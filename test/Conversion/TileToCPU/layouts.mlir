// Layouts mean nothing on the host (a program is one thread): the CPU lowering
// drops them and folds layout conversions away.
// RUN: kda-opt %s --convert-tile-to-cpu | FileCheck %s
// RUN: kda-opt %s --kda-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @k(
// CHECK-NOT: #tile.blocked
// CHECK-NOT: tile.convert_layout
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<128xf32>
// CHECK-NOT: #tile
// LLVM: llvm.func @k__kda_cpu(
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #b>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %v = tile.load %q : tensor<128x!tile.ptr<f32>, #b>
  %one = arith.constant dense<1.0> : tensor<128xf32, #b>
  %w = arith.addf %v, %one : tensor<128xf32, #b>
  %x = tile.convert_layout %w : tensor<128xf32, #b> -> tensor<128xf32, #c>
  %qc = tile.convert_layout %q : tensor<128x!tile.ptr<f32>, #b> -> tensor<128x!tile.ptr<f32>, #c>
  tile.store %qc, %x : tensor<128x!tile.ptr<f32>, #c>
  return
}
