// RUN: kda-opt %s --convert-tile-to-gpu=target=sm_90a --canonicalize --cse -split-input-file | FileCheck %s

// Scans walk the bits of the scanned coordinate from the lowest. Here the 8
// rows sit on lane bits 2, 3 and 4: one XOR shuffle per lane bit for each of
// the thread's 4 columns, no shared memory; the last bit's totals are dead.

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @cumsum_lanes
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[FOUR]]
// CHECK: llvm.and %{{.*}}, %[[FOUR]]
// CHECK: llvm.select
// CHECK-COUNT-4: nvvm.shfl.sync  bfly
// CHECK-COUNT-4: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @cumsum_lanes(%x: tensor<8x16xf32, #l>) -> tensor<8x16xf32, #l> {
  %0 = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8x16xf32, #l> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  return %0 : tensor<8x16xf32, #l>
}
}

// -----

// Two registers on the lowest bit share one total after it, so each lane bit
// costs one shuffle; each warp bit one store and one load between barriers.
// Reversed, the later block is the one whose bit is clear.

#r = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @cumsum_warps_reversed
// CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: arith.addf %[[R1]], %{{.*}} : f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: nvvm.barrier0
// CHECK: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load
// CHECK-NOT: llvm.load
// CHECK: return
func.func @cumsum_warps_reversed(%x: tensor<256xf32, #r>) -> tensor<256xf32, #r> {
  %0 = tile.scan %x {axis = 0 : i32, reverse = true} : tensor<256xf32, #r> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  return %0 : tensor<256xf32, #r>
}
}

// -----

// Two sources scan together (a linear recurrence h = a h + b); the combiner
// is cloned with the running pair first (lowered to LLVM later).

#r = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32} {
// CHECK-LABEL: func.func @affine_pair
// CHECK: %[[A:.*]] = nvvm.shfl.sync  bfly
// CHECK: %[[B:.*]] = nvvm.shfl.sync  bfly
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @affine_pair(%a: tensor<32xf32, #r>, %b: tensor<32xf32, #r>) -> tensor<32xf32, #r> {
  %0:2 = tile.scan %a, %b {axis = 0 : i32, reverse = false} : tensor<32xf32, #r>, tensor<32xf32, #r> {
  ^bb0(%a1: f32, %b1: f32, %a2: f32, %b2: f32):
    %p = arith.mulf %a1, %a2 : f32
    %m = arith.mulf %a2, %b1 : f32
    %s = arith.addf %m, %b2 : f32
    tile.yield %p, %s : f32, f32
  }
  return %0#1 : tensor<32xf32, #r>
}
}
