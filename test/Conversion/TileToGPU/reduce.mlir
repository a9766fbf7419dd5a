// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// Reductions combine registers in the thread, then lanes with butterfly
// shuffles (offset 1 << bit for each lane bit along the axis), then warps
// through scratch memory.

// threadsPerWarp = [4, 8], order [1, 0]: lane bits 0-2 run along dim 1 and
// bits 3-4 along dim 0; the 4 warps run along dim 1.
// 4 warps x 4 result elements x 4 bytes of scratch.
// CHECK: llvm.mlir.global internal @kda_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
#b = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @sum_axis1
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f32, f32)>) -> !llvm.struct<(f32, f32)>
// CHECK-DAG: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32)
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-DAG: %[[C12:.*]] = llvm.mlir.constant(12 : i32)
// CHECK-DAG: %[[C31:.*]] = llvm.mlir.constant(31 : i32)
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @kda_scratch : !llvm.ptr<3>
// CHECK-DAG: %[[X0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[X1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK: %[[T:.*]] = arith.addf %[[X0]], %[[X1]] : f32
// CHECK: nvvm.shfl.sync bfly %[[ALL]], %{{.*}}, %[[C1]], %[[C31]] : i32 -> i32
// CHECK: arith.addf
// CHECK: nvvm.shfl.sync bfly %[[ALL]], %{{.*}}, %[[C2]], %[[C31]] : i32 -> i32
// CHECK: arith.addf
// CHECK: nvvm.shfl.sync bfly %[[ALL]], %{{.*}}, %[[C4]], %[[C31]] : i32 -> i32
// CHECK: %[[W:.*]] = arith.addf
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.store %[[W]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// Every thread combines the 4 warps' partials, 4 elements apart.
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[S4:.*]] = llvm.add %{{.*}}, %[[C4]] : i32
// CHECK: llvm.getelementptr %[[BASE]][%[[S4]]]
// CHECK: llvm.load
// CHECK: arith.addf
// CHECK: %[[S8:.*]] = llvm.add %{{.*}}, %[[C8]] : i32
// CHECK: llvm.getelementptr %[[BASE]][%[[S8]]]
// CHECK: llvm.load
// CHECK: arith.addf
// CHECK: %[[S12:.*]] = llvm.add %{{.*}}, %[[C12]] : i32
// CHECK: llvm.getelementptr %[[BASE]][%[[S12]]]
// CHECK: llvm.load
// CHECK: %[[R:.*]] = arith.addf
// The slice result repeats the value in both registers.
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[R]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[R]], %[[R0]][1]
func.func @sum_axis1(%x: tensor<4x64xf32, #b>) -> tensor<4xf32, #tile.slice<{dim = 1, parent = #b}>> {
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<4x64xf32, #b> -> tensor<4xf32, #tile.slice<{dim = 1, parent = #b}>>
  return %s : tensor<4xf32, #tile.slice<{dim = 1, parent = #b}>>
}
}

// -----

// Along dim 0 only lane bits 3 and 4 take part (offsets 8 and 16), no
// registers and no warps: no scratch, no barrier. Each thread holds two
// results, so lane bit 3 halves them (the upper lane keeps the second, sends
// the first), bit 4 is a butterfly on the one left, and bit 3 gathers the
// pair back: three shuffles instead of four.
// CHECK-NOT: kda_scratch
#b = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @max_axis0
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG: %[[X0:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-DAG: %[[X1:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: %[[UP:.*]] = llvm.icmp "ne"
// CHECK: %[[SEND:.*]] = llvm.select %[[UP]], %[[X0]], %[[X1]]
// CHECK: %[[KEEP:.*]] = llvm.select %[[UP]], %[[X1]], %[[X0]]
// CHECK: %[[B0:.*]] = llvm.bitcast %[[SEND]] : f32 to i32
// CHECK: %[[H0:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[B0]], %[[C8]], %{{.*}} : i32 -> i32
// CHECK: %[[F0:.*]] = llvm.bitcast %[[H0]] : i32 to f32
// CHECK: %[[M0:.*]] = arith.maximumf %[[KEEP]], %[[F0]]
// CHECK: %[[B1:.*]] = llvm.bitcast %[[M0]] : f32 to i32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %[[B1]], %[[C16]]
// CHECK: %[[M1:.*]] = arith.maximumf %[[M0]],
// CHECK: %[[B2:.*]] = llvm.bitcast %[[M1]] : f32 to i32
// CHECK: %[[H2:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[B2]], %[[C8]]
// CHECK: %[[T:.*]] = llvm.bitcast %[[H2]] : i32 to f32
// CHECK: %[[LO:.*]] = llvm.select %{{.*}}, %[[T]], %[[M1]]
// CHECK: %[[HI:.*]] = llvm.select %{{.*}}, %[[M1]], %[[T]]
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.insertvalue %[[LO]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[HI]], %{{.*}}[1]
// CHECK: return
func.func @max_axis0(%x: tensor<4x64xf32, #b>) -> tensor<64xf32, #tile.slice<{dim = 0, parent = #b}>> {
  %s = tile.reduce max %x {axis = 0 : i32} : tensor<4x64xf32, #b> -> tensor<64xf32, #tile.slice<{dim = 0, parent = #b}>>
  return %s : tensor<64xf32, #tile.slice<{dim = 0, parent = #b}>>
}
}

// -----

// Four results per thread over 32 lanes: halving at lane bits 0 and 1 (2 + 1
// shuffles), a butterfly on the last value at bits 2-4 (3), gathering at bits
// 1 and 0 (1 + 2): 9 shuffles instead of 20.
#r = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @rows_over_lanes
// CHECK-COUNT-9: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: return
func.func @rows_over_lanes(%x: tensor<16x32xf32, #r>) -> tensor<16xf32, #tile.slice<{dim = 1, parent = #r}>> {
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16x32xf32, #r> -> tensor<16xf32, #tile.slice<{dim = 1, parent = #r}>>
  return %s : tensor<16xf32, #tile.slice<{dim = 1, parent = #r}>>
}
}

// -----

// Booleans: max is or (min is and); the shuffle widens to i32 and back.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @any
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: llvm.zext %{{.*}} : i1 to i32
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.trunc %{{.*}} : i32 to i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK-LABEL: func.func @all
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
func.func @any(%x: tensor<256xi1, #l>) -> i1 {
  %s = tile.reduce max %x {axis = 0 : i32} : tensor<256xi1, #l> -> i1
  return %s : i1
}
func.func @all(%x: tensor<256xi1, #l>) -> i1 {
  %s = tile.reduce min %x {axis = 0 : i32} : tensor<256xi1, #l> -> i1
  return %s : i1
}
}

// -----

// Integer sums add; 64-bit values shuffle as two 32-bit halves.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @sum_i64
// CHECK: llvm.trunc %{{.*}} : i64 to i32
// CHECK: llvm.lshr
// CHECK: llvm.trunc %{{.*}} : i64 to i32
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
func.func @sum_i64(%x: tensor<128xi64, #l>) -> i64 {
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<128xi64, #l> -> i64
  return %s : i64
}
}
