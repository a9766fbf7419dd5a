// RUN: kda-opt %s --kda-gpu-lower=target=gfx950 | FileCheck %s

// gfx950 runs wave64: 4 warps are 256 threads.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-NOT: tile.num_warps
// CHECK: llvm.mlir.global internal @kda_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{.*}}: i32)
// CHECK-SAME: rocdl.flat_work_group_size = "256,256"
// CHECK-SAME: rocdl.kernel
// CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
// CHECK-NOT: tile.
// CHECK: rocdl.ds_bpermute
// CHECK: llvm.fence syncscope("workgroup") release
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("workgroup") acquire
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 1024 : tensor<1024xi32, #l>
  %ps = tile.splat %p : tensor<1024x!tile.ptr<f32>, #l>
  %pp = tile.addptr %ps, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
  %ns = tile.splat %n : tensor<1024xi32, #l>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
  %v = tile.load %pp mask %m : tensor<1024x!tile.ptr<f32>, #l>
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<1024xf32, #l> -> f32
  tile.store %p, %s : !tile.ptr<f32>
  return
}
}
