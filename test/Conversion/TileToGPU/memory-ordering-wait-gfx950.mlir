// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx950 | FileCheck %s

// On AMD a wait's barrier orders LDS only (wavefront-scope fences: the
// global accesses in flight stay in flight), so a scalar stored before it and
// loaded by every thread after it needs a barrier of its own, with
// workgroup-scope fences (orderGlobalMemory).
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_wait_load
// CHECK: llvm.store
// CHECK: llvm.fence syncscope("wavefront") release
// CHECK: rocdl.s.barrier
// CHECK: llvm.fence syncscope("workgroup") release
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("workgroup") acquire
// CHECK: llvm.load
func.func @store_wait_load(%p: !tile.ptr<f32>, %x: f32) attributes {tile.kernel} {
  tile.store %p, %x : !tile.ptr<f32>
  tile.async_wait {pending = 0 : i32}
  %v = tile.load %p : !tile.ptr<f32>
  tile.store %p, %v : !tile.ptr<f32>
  return
}
}
