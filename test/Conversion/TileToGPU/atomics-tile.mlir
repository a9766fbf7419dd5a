// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 | FileCheck %s --check-prefixes=CHECK,AMD

// A tile: one atomic per element, by the thread that would store it. A [64]
// tile on 128 threads is held by warps 0-1 and again by warps 2-3: the owners
// (warp bit 1 clear) do the masked atomics (0 where masked off) and pass the
// old values to the copies through scratch, between barriers.
#rep = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @tile_replicated
// NV: nvvm.barrier0
// AMD: rocdl.s.barrier
// CHECK: %[[OWNER:.*]] = llvm.icmp "eq"
// CHECK: %[[GUARD:.*]] = llvm.and %[[OWNER]], %{{.*}} : i1
// CHECK: %[[OLD:.*]] = scf.if %[[GUARD]] -> (i32) {
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic
// CHECK: } else {
// CHECK: llvm.mlir.constant(0 : i32)
// CHECK: scf.if %[[OWNER]] {
// CHECK: llvm.store %[[OLD]]
// NV: nvvm.barrier0
// AMD: rocdl.s.barrier
// CHECK: llvm.load
// NV: nvvm.barrier0
// AMD: rocdl.s.barrier
// CHECK-NOT: llvm.atomicrmw
// CHECK: return
func.func @tile_replicated(%p: tensor<64x!tile.ptr<i32>, #rep>, %v: tensor<64xi32, #rep>, %m: tensor<64xi1, #rep>) -> tensor<64xi32, #rep> attributes {tile.kernel} {
  %0 = tile.atomic_rmw add %p, %v mask %m {sem = relaxed, scope = gpu} : tensor<64x!tile.ptr<i32>, #rep>
  return %0 : tensor<64xi32, #rep>
}
}

// -----

// Two elements per thread and no copies: two atomics per thread, no scratch;
// acq_rel fences around the barriers as for a scalar.
#two = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @tile_unique
// NV: llvm.fence syncscope("device") release
// AMD: llvm.fence syncscope("agent") release
// CHECK-NOT: scf.if
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("{{device|agent}}") acq_rel
// CHECK-NOT: scf.if
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("{{device|agent}}") acq_rel
// CHECK-NOT: llvm.store
// NV: nvvm.barrier0
// AMD: rocdl.s.barrier
// NV: llvm.fence syncscope("device") acquire
// AMD: llvm.fence syncscope("agent") acquire
func.func @tile_unique(%p: tensor<256x!tile.ptr<f32>, #two>, %v: tensor<256xf32, #two>) -> tensor<256xf32, #two> attributes {tile.kernel} {
  %0 = tile.atomic_rmw add %p, %v {sem = acq_rel, scope = gpu} : tensor<256x!tile.ptr<f32>, #two>
  return %0 : tensor<256xf32, #two>
}
}
