// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s

// A tile replicated over warps is loaded by several threads but each element
// is stored by one: a barrier must separate the loads from a store through the
// same kernel argument (in-place updates such as a conv cache shift), and a
// store from a later replicated load of it. Distinct arguments do not alias.

#rep = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @shift_in_place
// CHECK: llvm.load
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @shift_in_place(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32, #rep>
  %ps = tile.splat %p : tensor<32x!tile.ptr<f32>, #rep>
  %a = tile.addptr %ps, %r : tensor<32x!tile.ptr<f32>, #rep>, tensor<32xi32, #rep>
  %v = tile.load %a : tensor<32x!tile.ptr<f32>, #rep>
  tile.store %a, %v : tensor<32x!tile.ptr<f32>, #rep>
  return
}
}

// -----

#rep = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @distinct_arguments
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @distinct_arguments(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32, #rep>
  %ps = tile.splat %p : tensor<32x!tile.ptr<f32>, #rep>
  %a = tile.addptr %ps, %r : tensor<32x!tile.ptr<f32>, #rep>, tensor<32xi32, #rep>
  %qs = tile.splat %q : tensor<32x!tile.ptr<f32>, #rep>
  %b = tile.addptr %qs, %r : tensor<32x!tile.ptr<f32>, #rep>, tensor<32xi32, #rep>
  %v = tile.load %a : tensor<32x!tile.ptr<f32>, #rep>
  tile.store %b, %v : tensor<32x!tile.ptr<f32>, #rep>
  return
}
}

// -----

// A scalar is loaded by every thread and stored by thread 0.
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @store_then_load
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
func.func @store_then_load(%p: !tile.ptr<f32>, %x: f32) attributes {tile.kernel} {
  tile.store %p, %x : !tile.ptr<f32>
  %v = tile.load %p : !tile.ptr<f32>
  %c = arith.constant 1 : i32
  %q = tile.addptr %p, %c : !tile.ptr<f32>, i32
  tile.store %q, %v : !tile.ptr<f32>
  return
}
}

// -----

// A load and a store of one argument through different pointer tiles may
// hand an element to different threads (here a shift by one element), even
// without replication: a barrier in either order. Through the same pointer
// tile in a layout without copies each thread rereads its own elements: no
// barrier. Two stores are not ordered (as in Triton).
#one = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @different_pointers
// CHECK: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @different_pointers(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #one>
  %c1 = arith.constant dense<1> : tensor<128xi32, #one>
  %r1 = arith.addi %r, %c1 : tensor<128xi32, #one>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #one>
  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
  %b = tile.addptr %ps, %r1 : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
  %z = arith.constant dense<0.0> : tensor<128xf32, #one>
  tile.store %a, %z : tensor<128x!tile.ptr<f32>, #one>
  %v = tile.load %b : tensor<128x!tile.ptr<f32>, #one>
  tile.store %a, %v : tensor<128x!tile.ptr<f32>, #one>
  tile.store %b, %v : tensor<128x!tile.ptr<f32>, #one>
  return
}
}

// -----

#one = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @same_pointer_own_elements
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @same_pointer_own_elements(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #one>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #one>
  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #one>, tensor<128xi32, #one>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>, #one>
  %w = arith.addf %v, %v : tensor<128xf32, #one>
  tile.store %a, %w : tensor<128x!tile.ptr<f32>, #one>
  %u = tile.load %a : tensor<128x!tile.ptr<f32>, #one>
  tile.store %a, %u : tensor<128x!tile.ptr<f32>, #one>
  return
}
}
