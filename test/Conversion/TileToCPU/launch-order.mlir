// RUN: kda-opt %s --convert-tile-to-cpu | FileCheck %s

// A host launch runs after the previous one has returned: the wait for the
// previous kernel and the early start of the next have nothing to do.

// CHECK-LABEL: func.func @launch_order
// CHECK-NOT: tile.wait_prior_launches
// CHECK: llvm.load
// CHECK-NOT: tile.launch_dependents
// CHECK: return
func.func @launch_order(%p: !tile.ptr<f32>) -> f32 {
  tile.wait_prior_launches
  %v = tile.load %p : !tile.ptr<f32>
  tile.launch_dependents
  return %v : f32
}
