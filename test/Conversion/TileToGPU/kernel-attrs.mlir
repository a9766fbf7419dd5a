// RUN: kda-opt %s --split-input-file --kda-gpu-lower=target=sm_90a | FileCheck %s --check-prefix=NV
// RUN: kda-opt %s --split-input-file --kda-gpu-lower=target=gfx1250 | FileCheck %s --check-prefix=GFX1250

// After the whole pipeline, kernels carry their target's kernel attributes
// and launch bounds (num_warps x wave size threads); divisibility hints of
// pointers become llvm.align; helpers stay plain functions.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// NV-NOT: tile.num_warps
// NV: llvm.func @k(%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{.*}}: i32)
// NV-SAME: nvvm.kernel
// NV-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// NV-NOT: tile.
// NV: llvm.func @helper(%{{.*}}: !llvm.ptr<1>) {
// GFX1250: llvm.func @k(%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{.*}}: i32)
// GFX1250-SAME: rocdl.flat_work_group_size = "128,128"
// GFX1250-SAME: rocdl.kernel
// GFX1250-SAME: rocdl.reqd_work_group_size = array<i32: 128, 1, 1>
// GFX1250: llvm.func @helper(%{{.*}}: !llvm.ptr<1>) {
func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 512 : tensor<512xi32, #l>
  %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
  %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
  %ns = tile.splat %n : tensor<512xi32, #l>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #l>
  %v = tile.load %pp mask %m : tensor<512x!tile.ptr<f32>, #l>
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<512xf32, #l> -> f32
  tile.store %p, %s : !tile.ptr<f32>
  return
}
func.func @helper(%p: !tile.ptr<f32>) {
  return
}
}
