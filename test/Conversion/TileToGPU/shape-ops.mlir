// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// Broadcast, expand_dims, reshape and trans that keep every element in the
// thread holding it only permute registers: no scratch memory, no barrier.

// CHECK-NOT: kda_scratch
// CHECK-NOT: nvvm.barrier0

#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// The slice of #a along dim 1 repeats each row value in the 2 registers of
// the row; expand_dims then broadcast to 16x32 (4 registers: 2 columns x 2
// row repetitions) copies the row's register.
// CHECK-LABEL: func.func @expand_broadcast
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[V:.*]] = llvm.extractvalue %[[X]][0]
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[V]], %{{.*}}[0]
// CHECK: %[[R1:.*]] = llvm.insertvalue %[[V]], %[[R0]][1]
// CHECK: %[[R2:.*]] = llvm.insertvalue %[[V]], %[[R1]][2]
// CHECK: %[[R3:.*]] = llvm.insertvalue %[[V]], %[[R2]][3]
// CHECK: return %[[R3]]
func.func @expand_broadcast(%x: tensor<16xf32, #tile.slice<{dim = 1, parent = #a}>>) -> tensor<16x32xf32, #a> {
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xf32, #tile.slice<{dim = 1, parent = #a}>> -> tensor<16x1xf32, #a>
  %b = tile.broadcast %e : tensor<16x1xf32, #a> -> tensor<16x32xf32, #a>
  return %b : tensor<16x32xf32, #a>
}
}

// -----

// Broadcasting a row over 16 rows: the 1x32 tile already wraps over the
// lanes and warps that the 16 rows use (they hold copies), so each register
// keeps its value.
#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @broadcast_rows
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(i32, i32, i32, i32)>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.read.ptx.sreg.tid.x
// CHECK-DAG: %[[V0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[V1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK-DAG: %[[V2:.*]] = llvm.extractvalue %[[X]][2]
// CHECK-DAG: %[[V3:.*]] = llvm.extractvalue %[[X]][3]
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[V0]], %{{.*}}[0]
// CHECK: %[[R1:.*]] = llvm.insertvalue %[[V1]], %[[R0]][1]
// CHECK: %[[R2:.*]] = llvm.insertvalue %[[V2]], %[[R1]][2]
// CHECK: %[[R3:.*]] = llvm.insertvalue %[[V3]], %[[R2]][3]
// CHECK: return %[[R3]]
func.func @broadcast_rows(%x: tensor<1x32xi32, #a>) -> tensor<16x32xi32, #a> {
  %b = tile.broadcast %x : tensor<1x32xi32, #a> -> tensor<16x32xi32, #a>
  return %b : tensor<16x32xi32, #a>
}
}

// -----

// A tile small enough to live in each thread's registers (replicated over
// lanes and warps) transposes by swapping registers 1 and 2.
#s = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @trans
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f32, f32, f32, f32)>)
// CHECK-DAG: %[[V0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[V1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK-DAG: %[[V2:.*]] = llvm.extractvalue %[[X]][2]
// CHECK-DAG: %[[V3:.*]] = llvm.extractvalue %[[X]][3]
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[V0]], %{{.*}}[0]
// CHECK: %[[R1:.*]] = llvm.insertvalue %[[V2]], %[[R0]][1]
// CHECK: %[[R2:.*]] = llvm.insertvalue %[[V1]], %[[R1]][2]
// CHECK: %[[R3:.*]] = llvm.insertvalue %[[V3]], %[[R2]][3]
// CHECK: return %[[R3]]
func.func @trans(%x: tensor<2x2xf32, #s>) -> tensor<2x2xf32, #s> {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<2x2xf32, #s> -> tensor<2x2xf32, #s>
  return %t : tensor<2x2xf32, #s>
}
}

// -----

// A reshape whose row-major order matches the thread's contiguous registers
// keeps every register in place.
#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f16, f16, f16, f16)>) -> !llvm.struct<(f16, f16, f16, f16)>
// CHECK-NOT: nvvm.read.ptx.sreg.tid.x
// CHECK-DAG: %[[V0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[V1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK-DAG: %[[V2:.*]] = llvm.extractvalue %[[X]][2]
// CHECK-DAG: %[[V3:.*]] = llvm.extractvalue %[[X]][3]
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[V0]], %{{.*}}[0]
// CHECK: %[[R1:.*]] = llvm.insertvalue %[[V1]], %[[R0]][1]
// CHECK: %[[R2:.*]] = llvm.insertvalue %[[V2]], %[[R1]][2]
// CHECK: %[[R3:.*]] = llvm.insertvalue %[[V3]], %[[R2]][3]
// CHECK: return %[[R3]]
func.func @reshape(%x: tensor<512xf16, #a>) -> tensor<16x32xf16, #c> {
  %t = tile.reshape %x : tensor<512xf16, #a> -> tensor<16x32xf16, #c>
  return %t : tensor<16x32xf16, #c>
}
}
