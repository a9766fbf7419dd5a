// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 | FileCheck %s

// gfx950 (wave64) copies into LDS without registers where consecutive lanes'
// 16-byte groups are consecutive in the buffer (lane-ordered: LDS DMA writes
// lane l's bytes at the wave's base + 16 l): global_load_lds_dwordx4 at the
// wave's base, computed from the wave index alone. Masked-off lanes copy
// nothing and store their zeros themselves. A wait is vmcnt (here for all
// copies: 3952 = vmcnt(0)) and an LDS-only barrier (lgkmcnt(0) = 49279, with
// wavefront-scope fences that wait for nothing). The copies and the other LDS
// accesses are in alias scopes that do not alias, so LLVM adds no vmcnt(0) of
// its own before the later accesses.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-DAG: #[[DMA:.*]] = #llvm.alias_scope<{{.*}}description = "lane-ordered copies">
// CHECK-DAG: #[[OTHER:.*]] = #llvm.alias_scope<{{.*}}description = "other accesses">
// CHECK: llvm.mlir.global internal @kda_smem_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8192 x i8>
// CHECK-LABEL: func.func @copy_then_load
// CHECK: rocdl.readfirstlane
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: rocdl.global.load.lds %{{.*}}, %{{.*}}, 16, 0, 0 {alias_scopes = [#[[DMA]]]}
// CHECK-NEXT: } else {
// CHECK: llvm.store %{{.*}}, %[[DST:.*]] {alias_scopes = [#[[OTHER]]], alignment = 16 : i64, noalias_scopes = [#[[DMA]]]} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: rocdl.s.waitcnt 3952
// CHECK-NEXT: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-NOT: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} {alias_scopes = [#[[OTHER]]], alignment = 16 : i64, noalias_scopes = [#[[DMA]]]} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: rocdl.s.barrier
// CHECK: return
func.func @copy_then_load(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %i: i32) -> tensor<8x128xf32, #blk> attributes {tile.kernel} {
  %rows = tile.range 0, 8 : tensor<8xi32, #tile.slice<{dim = 1, parent = #blk}>>
  %cols = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<8xi32, #tile.slice<{dim = 1, parent = #blk}>> -> tensor<8x1xi32, #blk>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>> -> tensor<1x128xi32, #blk>
  %c128 = arith.constant dense<128> : tensor<8x1xi32, #blk>
  %rs = arith.muli %r2, %c128 : tensor<8x1xi32, #blk>
  %rb = tile.broadcast %rs : tensor<8x1xi32, #blk> -> tensor<8x128xi32, #blk>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #blk> -> tensor<8x128xi32, #blk>
  %off = arith.addi %rb, %cb : tensor<8x128xi32, #blk>
  %ps = tile.splat %base : tensor<8x128x!tile.ptr<f32>, #blk>
  %p = tile.addptr %ps, %off : tensor<8x128x!tile.ptr<f32>, #blk>, tensor<8x128xi32, #blk>
  %nr = tile.splat %n : tensor<8x1xi32, #blk>
  %m1 = arith.cmpi slt, %r2, %nr : tensor<8x1xi32, #blk>
  %m = tile.broadcast %m1 : tensor<8x1xi1, #blk> -> tensor<8x128xi1, #blk>
  %buf = tile.alloc_shared : !tile.smem<2x8x128xf32>
  %slot = tile.smem_index %buf[%i] : !tile.smem<2x8x128xf32> -> !tile.smem<8x128xf32>
  tile.async_copy %slot, %p mask %m : !tile.smem<8x128xf32>, tensor<8x128x!tile.ptr<f32>, #blk>
  tile.async_wait {pending = 0 : i32}
  %v = tile.smem_load %slot : !tile.smem<8x128xf32> -> tensor<8x128xf32, #blk>
  return %v : tensor<8x128xf32, #blk>
}
}

// -----

// A copy into a buffer just read waits for the reads: the barrier comes
// before the copy's global loads. Pointers of unknown contiguity copy one
// element per access, through registers (4-byte groups of lanes 4 bytes apart
// are lane-ordered too, but here the lanes' elements are 4 apart), and the
// wait waits for no vector-memory counter. Storing and reloading in the same layout
// needs none; in another layout it does.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @hazards
// CHECK-NOT: rocdl.s.waitcnt 3952
// CHECK-NOT: rocdl.global.load.lds
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: rocdl.s.barrier
// CHECK-NOT: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.s.barrier
// CHECK-NOT: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: rocdl.s.barrier
// CHECK: return
func.func @hazards(%t: tensor<8x128xf32, #blk>, %p: tensor<8x128x!tile.ptr<f32>, #blk>) -> (tensor<8x128xf32, #blk>, tensor<8x128xf32, #col>) attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<8x128xf32>
  tile.smem_store %buf, %t : !tile.smem<8x128xf32>, tensor<8x128xf32, #blk>
  %v = tile.smem_load %buf : !tile.smem<8x128xf32> -> tensor<8x128xf32, #blk>
  tile.async_copy %buf, %p : !tile.smem<8x128xf32>, tensor<8x128x!tile.ptr<f32>, #blk>
  tile.async_wait {pending = 0 : i32}
  %w = tile.smem_load %buf : !tile.smem<8x128xf32> -> tensor<8x128xf32, #col>
  return %v, %w : tensor<8x128xf32, #blk>, tensor<8x128xf32, #col>
}
}
