// RUN: kda-opt %s --convert-tile-to-cpu -split-input-file | FileCheck %s

// On the host a program is one thread: one atomicrmw at the requested
// ordering, system scope.

// CHECK-LABEL: func.func private @atomics(
// CHECK: %[[P:.*]] = llvm.inttoptr %arg0 : i64 to !llvm.ptr
// CHECK: llvm.atomicrmw add %[[P]], %arg1 acq_rel
// CHECK: llvm.atomicrmw fadd %{{.*}}, %arg3 monotonic
// CHECK: llvm.atomicrmw xchg %{{.*}}, %arg3 release
// CHECK: llvm.atomicrmw max %{{.*}}, %arg1 acquire
func.func @atomics(%p: !tile.ptr<i32>, %v: i32, %f: !tile.ptr<f32>, %x: f32) attributes {tile.kernel} {
  %0 = tile.atomic_rmw add %p, %v {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
  %1 = tile.atomic_rmw add %f, %x {sem = relaxed, scope = cta} : !tile.ptr<f32>
  %2 = tile.atomic_rmw xchg %f, %x {sem = release, scope = sys} : !tile.ptr<f32>
  %3 = tile.atomic_rmw max %p, %v {sem = acquire, scope = gpu} : !tile.ptr<i32>
  return
}

// -----

// A tile: a loop over its elements, each unmasked one an atomicrmw (masked
// ones give 0 and touch no memory).
// CHECK-LABEL: func.func @tile_atomics(
// CHECK: scf.for
// CHECK: %[[M:.*]] = tensor.extract %{{.*}} : tensor<16xi1>
// CHECK: scf.if %[[M]] -> (i32) {
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic
// CHECK: } else {
// CHECK: arith.constant 0 : i32
// CHECK: tensor.insert
func.func @tile_atomics(%p: tensor<16x!tile.ptr<i32>>, %v: tensor<16xi32>, %m: tensor<16xi1>) -> tensor<16xi32> {
  %0 = tile.atomic_rmw max %p, %v mask %m {sem = relaxed, scope = gpu} : tensor<16x!tile.ptr<i32>>
  return %0 : tensor<16xi32>
}
