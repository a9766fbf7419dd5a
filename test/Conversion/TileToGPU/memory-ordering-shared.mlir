// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s

// Barriers for shared buffers (orderGlobalMemory in TileToGPU.cpp). Each
// tile.alloc_shared is its own base: a store and a load of one buffer race
// unless every thread reads back exactly the elements it wrote (the same
// buffer value, the same layout, not replicated over lanes or warps). An
// asynchronous copy must not start writing a buffer before the earlier
// accesses of it are done; tile.async_wait (cp.async.wait.group, then a
// barrier) and tile.barrier end every hazard.

// The same layout: each thread rereads what it stored, no barrier.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_load_same_layout
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @store_load_same_layout(%t: tensor<16x32xf32, #a>) -> tensor<16x32xf32, #a> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<16x32xf32>
  tile.smem_store %buf, %t : !tile.smem<16x32xf32>, tensor<16x32xf32, #a>
  %v = tile.smem_load %buf : !tile.smem<16x32xf32> -> tensor<16x32xf32, #a>
  %w = arith.addf %v, %v : tensor<16x32xf32, #a>
  tile.smem_store %buf, %w : !tile.smem<16x32xf32>, tensor<16x32xf32, #a>
  return %v : tensor<16x32xf32, #a>
}
}

// -----

// Another layout hands elements to other threads: a barrier between the
// store and the load.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_load_other_layout
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @store_load_other_layout(%t: tensor<16x32xf32, #a>) -> tensor<16x32xf32, #b> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<16x32xf32>
  tile.smem_store %buf, %t : !tile.smem<16x32xf32>, tensor<16x32xf32, #a>
  %v = tile.smem_load %buf : !tile.smem<16x32xf32> -> tensor<16x32xf32, #b>
  return %v : tensor<16x32xf32, #b>
}
}

// -----

// A layout replicated over warps is stored by one copy but loaded by all:
// a barrier even in the same layout.
#rep = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_load_replicated
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NEXT: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
func.func @store_load_replicated(%t: tensor<8x32xf32, #rep>) -> tensor<8x32xf32, #rep> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<8x32xf32>
  tile.smem_store %buf, %t : !tile.smem<8x32xf32>, tensor<8x32xf32, #rep>
  %v = tile.smem_load %buf : !tile.smem<8x32xf32> -> tensor<8x32xf32, #rep>
  return %v : tensor<8x32xf32, #rep>
}
}

// -----

// Distinct buffers never alias: no barrier between a store into one and a
// load (in any layout) of the other.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @distinct_buffers
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @distinct_buffers(%t: tensor<16x32xf32, #a>) -> tensor<16x32xf32, #b> attributes {tile.kernel} {
  %x = tile.alloc_shared : !tile.smem<16x32xf32>
  %y = tile.alloc_shared : !tile.smem<16x32xf32>
  tile.smem_store %x, %t : !tile.smem<16x32xf32>, tensor<16x32xf32, #a>
  %v = tile.smem_load %y : !tile.smem<16x32xf32> -> tensor<16x32xf32, #b>
  return %v : tensor<16x32xf32, #b>
}
}

// -----

// A copy into a buffer that was just read (any slot of it) waits for the
// reads: a barrier before the cp.async. A copy into another buffer does not.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @load_then_copy
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @load_then_copy(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %i: i32, %j: i32) -> tensor<4x128xf32, #blk> attributes {tile.kernel} {
  %rows = tile.range 0, 4 : tensor<4xi32, #tile.slice<{dim = 1, parent = #blk}>>
  %cols = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<4xi32, #tile.slice<{dim = 1, parent = #blk}>> -> tensor<4x1xi32, #blk>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>> -> tensor<1x128xi32, #blk>
  %c128 = arith.constant dense<128> : tensor<4x1xi32, #blk>
  %rs = arith.muli %r2, %c128 : tensor<4x1xi32, #blk>
  %rb = tile.broadcast %rs : tensor<4x1xi32, #blk> -> tensor<4x128xi32, #blk>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #blk> -> tensor<4x128xi32, #blk>
  %off = arith.addi %rb, %cb : tensor<4x128xi32, #blk>
  %ps = tile.splat %base : tensor<4x128x!tile.ptr<f32>, #blk>
  %p = tile.addptr %ps, %off : tensor<4x128x!tile.ptr<f32>, #blk>, tensor<4x128xi32, #blk>
  %buf = tile.alloc_shared : !tile.smem<2x4x128xf32>
  %other = tile.alloc_shared : !tile.smem<4x128xf32>
  %si = tile.smem_index %buf[%i] : !tile.smem<2x4x128xf32> -> !tile.smem<4x128xf32>
  %sj = tile.smem_index %buf[%j] : !tile.smem<2x4x128xf32> -> !tile.smem<4x128xf32>
  %v = tile.smem_load %si : !tile.smem<4x128xf32> -> tensor<4x128xf32, #blk>
  tile.async_copy %sj, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
  tile.async_copy %other, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
  return %v : tensor<4x128xf32, #blk>
}
}

// -----

// A copy after a store into the same buffer waits for the store.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_then_copy
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global
func.func @store_then_copy(%t: tensor<4x128xf32, #blk>, %p: tensor<4x128x!tile.ptr<f32>, #blk>) attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<4x128xf32>
  tile.smem_store %buf, %t : !tile.smem<4x128xf32>, tensor<4x128xf32, #blk>
  tile.async_copy %buf, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
  return
}
}

// -----

// tile.async_wait is the thread's wait for its groups, then a barrier that
// shows every thread's copies to all: a load in another layout after it
// needs no second barrier. tile.barrier is a bare barrier.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @wait
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: return
func.func @wait(%t: tensor<4x128xf32, #blk>, %p: tensor<4x128x!tile.ptr<f32>, #blk>) -> tensor<4x128xf32, #col> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<4x128xf32>
  tile.async_copy %buf, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
  tile.async_wait {pending = 1 : i32}
  %v = tile.smem_load %buf : !tile.smem<4x128xf32> -> tensor<4x128xf32, #col>
  tile.barrier
  return %v : tensor<4x128xf32, #col>
}
}

// -----

// A double-buffered loop: the wait at the top of each iteration also ends
// the previous iteration's reads of the slot the next copy overwrites, so the
// body has that one barrier and the copy none of its own.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @double_buffer
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @double_buffer(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %rows = tile.range 0, 4 : tensor<4xi32, #tile.slice<{dim = 1, parent = #blk}>>
  %cols = tile.range 0, 128 : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<4xi32, #tile.slice<{dim = 1, parent = #blk}>> -> tensor<4x1xi32, #blk>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #blk}>> -> tensor<1x128xi32, #blk>
  %c128 = arith.constant dense<128> : tensor<4x1xi32, #blk>
  %rs = arith.muli %r2, %c128 : tensor<4x1xi32, #blk>
  %rb = tile.broadcast %rs : tensor<4x1xi32, #blk> -> tensor<4x128xi32, #blk>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #blk> -> tensor<4x128xi32, #blk>
  %off = arith.addi %rb, %cb : tensor<4x128xi32, #blk>
  %ps = tile.splat %base : tensor<4x128x!tile.ptr<f32>, #blk>
  %p = tile.addptr %ps, %off : tensor<4x128x!tile.ptr<f32>, #blk>, tensor<4x128xi32, #blk>
  %os = tile.splat %out : tensor<4x128x!tile.ptr<f32>, #blk>
  %o = tile.addptr %os, %off : tensor<4x128x!tile.ptr<f32>, #blk>, tensor<4x128xi32, #blk>
  %buf = tile.alloc_shared : !tile.smem<2x4x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %s0 = tile.smem_index %buf[%c0] : !tile.smem<2x4x128xf32> -> !tile.smem<4x128xf32>
  tile.async_copy %s0, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.async_wait {pending = 0 : i32}
    %i1 = arith.addi %i, %c1 : i32
    %next = arith.remsi %i1, %two : i32
    %snext = tile.smem_index %buf[%next] : !tile.smem<2x4x128xf32> -> !tile.smem<4x128xf32>
    tile.async_copy %snext, %p : !tile.smem<4x128xf32>, tensor<4x128x!tile.ptr<f32>, #blk>
    %cur = arith.remsi %i, %two : i32
    %scur = tile.smem_index %buf[%cur] : !tile.smem<2x4x128xf32> -> !tile.smem<4x128xf32>
    %v = tile.smem_load %scur : !tile.smem<4x128xf32> -> tensor<4x128xf32, #blk>
    tile.store %o, %v : tensor<4x128x!tile.ptr<f32>, #blk>
  }
  return
}
}
