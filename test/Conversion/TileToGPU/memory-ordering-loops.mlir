// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s

// A loop's iteration starts after the accesses before the loop and those an
// iteration leaves unordered (orderGlobalMemory). A pointer tile the body
// computes moves with the iteration, so the same tile no longer keeps each
// element in one thread: reading at i + lane what the previous iteration
// stored at i - 1 + lane (another lane's element) needs a barrier before the
// load, though within one iteration the load and store of one tile do not.
#one = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @shift_across_iterations
// CHECK: scf.for
// CHECK: nvvm.barrier0
// CHECK: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store
func.func @shift_across_iterations(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 128 : tensor<128xi32, #one>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #one>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %is = tile.splat %i : tensor<128xi32, #one>
    %o = arith.addi %r, %is : tensor<128xi32, #one>
    %a = tile.addptr %ps, %o : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
    %v = tile.load %a : tensor<128x!tile.ptr<f32>, #one>
    %w = arith.addf %v, %v : tensor<128xf32, #one>
    tile.store %a, %w : tensor<128x!tile.ptr<f32>, #one>
  }
  return
}
}

// -----

// Loads of one argument and stores to another never conflict, in a loop as
// anywhere: no barrier.
#one = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @distinct_arguments_in_a_loop
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @distinct_arguments_in_a_loop(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 128 : tensor<128xi32, #one>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #one>
  %qs = tile.splat %q : tensor<128x!tile.ptr<f32>, #one>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %is = tile.splat %i : tensor<128xi32, #one>
    %o = arith.addi %r, %is : tensor<128xi32, #one>
    %a = tile.addptr %ps, %o : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
    %b = tile.addptr %qs, %o : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
    %v = tile.load %a : tensor<128x!tile.ptr<f32>, #one>
    tile.store %b, %v : tensor<128x!tile.ptr<f32>, #one>
  }
  return
}
}

// -----

// A wait's barrier orders global memory on sm_90a (bar.sync), so a store
// before it and another thread's load after it need nothing more (AMD:
// memory-ordering-wait-gfx950.mlir).
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_wait_load
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load
func.func @store_wait_load(%p: !tile.ptr<f32>, %x: f32) attributes {tile.kernel} {
  tile.store %p, %x : !tile.ptr<f32>
  tile.async_wait {pending = 0 : i32}
  %v = tile.load %p : !tile.ptr<f32>
  tile.store %p, %v : !tile.ptr<f32>
  return
}
}
