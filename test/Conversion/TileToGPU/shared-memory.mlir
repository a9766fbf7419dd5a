// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefixes=CHECK,NV
// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 | FileCheck %s --check-prefixes=CHECK,AMD

// A copy into one slot of a double buffer: each buffer is a shared global; a
// 16-byte group of four fp32 moves with one cp.async (.cg), reading 0 bytes
// where masked; AMD copies through registers. The wait is the target's wait
// and a barrier, and the slot is read back with 128-bit shared loads.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK: llvm.mlir.global internal @kda_smem_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32768 x i8>
// CHECK-LABEL: func.func @copy_then_load
// CHECK: %[[BUF:.*]] = llvm.mlir.addressof @kda_smem_0 : !llvm.ptr<3>
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[BUF]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// NV: %[[N:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// NV: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[N]]
// NV: nvvm.cp.async.commit.group
// NV: nvvm.cp.async.wait.group 0
// NV-NEXT: nvvm.barrier0
// AMD-NOT: cp.async
// AMD: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// AMD: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// AMD: rocdl.s.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
func.func @copy_then_load(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %i: i32) -> tensor<32x128xf32, #blk> attributes {tile.kernel} {
  %rows = tile.range 0, 32 : tensor<32xi32, #tile.slice<{dim = 1, parent = #blk}>>
  %cols = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi32, #tile.slice<{dim = 1, parent = #blk}>> -> tensor<32x1xi32, #blk>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>> -> tensor<1x128xi32, #blk>
  %c128 = arith.constant dense<128> : tensor<32x1xi32, #blk>
  %rs = arith.muli %r2, %c128 : tensor<32x1xi32, #blk>
  %rb = tile.broadcast %rs : tensor<32x1xi32, #blk> -> tensor<32x128xi32, #blk>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #blk> -> tensor<32x128xi32, #blk>
  %off = arith.addi %rb, %cb : tensor<32x128xi32, #blk>
  %ps = tile.splat %base : tensor<32x128x!tile.ptr<f32>, #blk>
  %p = tile.addptr %ps, %off : tensor<32x128x!tile.ptr<f32>, #blk>, tensor<32x128xi32, #blk>
  %nr = tile.splat %n : tensor<32x1xi32, #blk>
  %m1 = arith.cmpi slt, %r2, %nr : tensor<32x1xi32, #blk>
  %m = tile.broadcast %m1 : tensor<32x1xi1, #blk> -> tensor<32x128xi1, #blk>
  %buf = tile.alloc_shared : !tile.smem<2x32x128xf32>
  %slot = tile.smem_index %buf[%i] : !tile.smem<2x32x128xf32> -> !tile.smem<32x128xf32>
  tile.async_copy %slot, %p mask %m : !tile.smem<32x128xf32>, tensor<32x128x!tile.ptr<f32>, #blk>
  tile.async_wait {pending = 0 : i32}
  %v = tile.smem_load %slot : !tile.smem<32x128xf32> -> tensor<32x128xf32, #blk>
  return %v : tensor<32x128xf32, #blk>
}
}

// -----

// A slot chosen at run time: buffers flow through scf.if as shared pointers.
#blk = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @pick_slot
// CHECK: %[[S:.*]] = scf.if %{{.*}} -> (!llvm.ptr<3>)
// CHECK: llvm.getelementptr %[[S]]
func.func @pick_slot(%c: i1) -> tensor<128xf32, #blk> attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.alloc_shared : !tile.smem<2x128xf32>
  %s = scf.if %c -> (!tile.smem<128xf32>) {
    %a = tile.smem_index %buf[%c0] : !tile.smem<2x128xf32> -> !tile.smem<128xf32>
    scf.yield %a : !tile.smem<128xf32>
  } else {
    %b = tile.smem_index %buf[%c1] : !tile.smem<2x128xf32> -> !tile.smem<128xf32>
    scf.yield %b : !tile.smem<128xf32>
  }
  %v = tile.smem_load %s : !tile.smem<128xf32> -> tensor<128xf32, #blk>
  return %v : tensor<128xf32, #blk>
}
}
