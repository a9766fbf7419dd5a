// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD

// A scalar atomic happens once per program: thread 0 does it and the others
// read the old value from scratch. acq_rel fences every thread before the
// first barrier and after the second, at the scope's LLVM syncscope.

module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @acq_rel_add
// NV: llvm.fence syncscope("device") release
// AMD: llvm.fence syncscope("agent") release
// NV-NEXT: nvvm.barrier0
// AMD: rocdl.s.barrier
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq"
// CHECK: scf.if %[[FIRST]] {
// NV: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") acq_rel
// AMD: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("agent") acq_rel
// CHECK: llvm.store
// CHECK: }
// NV: nvvm.barrier0
// AMD: rocdl.s.barrier
// CHECK: %[[OLD:.*]] = llvm.load
// NV-NEXT: llvm.fence syncscope("device") acquire
// AMD-NEXT: llvm.fence syncscope("agent") acquire
// CHECK: return %[[OLD]]
func.func @acq_rel_add(%p: !tile.ptr<i32>, %v: i32) -> i32 attributes {tile.kernel} {
  %0 = tile.atomic_rmw add %p, %v {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
  return %0 : i32
}
}

// -----

// relaxed: no device-scope fences (AMD barriers carry workgroup ones), still
// once per program; cta and sys scopes; float add.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @relaxed_kinds
// CHECK-NOT: llvm.fence syncscope("{{device|agent}}")
// NV: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("block") monotonic
// AMD: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("workgroup") monotonic
// CHECK-NOT: llvm.fence syncscope("{{device|agent}}")
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} release
// CHECK: llvm.atomicrmw min
// CHECK: llvm.atomicrmw xchg %{{.*}}, %{{.*}} acquire
func.func @relaxed_kinds(%f: !tile.ptr<f32>, %x: f32, %i: !tile.ptr<i64>, %y: i64) attributes {tile.kernel} {
  %0 = tile.atomic_rmw add %f, %x {sem = relaxed, scope = cta} : !tile.ptr<f32>
  %1 = tile.atomic_rmw max %i, %y {sem = release, scope = sys} : !tile.ptr<i64>
  %2 = tile.atomic_rmw min %i, %y {sem = relaxed, scope = gpu} : !tile.ptr<i64>
  %3 = tile.atomic_rmw xchg %i, %y {sem = acquire, scope = gpu} : !tile.ptr<i64>
  return
}
}

