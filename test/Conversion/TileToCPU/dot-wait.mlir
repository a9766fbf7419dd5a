// RUN: kda-opt %s --convert-tile-to-cpu | FileCheck %s

// The host's products complete at once: a wait for asynchronous products is
// its accumulator, and an asynchronous dot a plain one.
// CHECK-LABEL: func.func @wait
// CHECK: %[[D:.*]] = linalg.matmul
// CHECK-NOT: tile.dot_wait
// CHECK: return %[[D]]
func.func @wait(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tile.dot %a, %b, %c async : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %w = tile.dot_wait %d {pending = 0 : i32} : tensor<16x16xf32>
  return %w : tensor<16x16xf32>
}
