// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a | FileCheck %s --check-prefix=RAW

// Elementwise ops, constants, splats and ranges compute per register: a tile
// of 256 elements over 128 threads is a struct of 2 registers per thread.

#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f32, f32)>, %[[Y:.*]]: !llvm.struct<(f32, f32)>) -> !llvm.struct<(f32, f32)>
// CHECK-DAG: %[[X0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[X1:.*]] = llvm.extractvalue %[[X]][1]
// CHECK-DAG: %[[Y0:.*]] = llvm.extractvalue %[[Y]][0]
// CHECK-DAG: %[[Y1:.*]] = llvm.extractvalue %[[Y]][1]
// CHECK-DAG: %[[S0:.*]] = arith.addf %[[X0]], %[[Y0]] : f32
// CHECK-DAG: %[[S1:.*]] = arith.addf %[[X1]], %[[Y1]] : f32
// CHECK-DAG: %[[P0:.*]] = arith.mulf %[[S0]], %[[X0]] : f32
// CHECK-DAG: %[[P1:.*]] = arith.mulf %[[S1]], %[[X1]] : f32
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[P0]], %{{.*}}[0]
// CHECK: %[[R1:.*]] = llvm.insertvalue %[[P1]], %[[R0]][1]
// CHECK: return %[[R1]] : !llvm.struct<(f32, f32)>
func.func @binary(%x: tensor<256xf32, #l>, %y: tensor<256xf32, #l>) -> tensor<256xf32, #l> {
  %s = arith.addf %x, %y : tensor<256xf32, #l>
  %p = arith.mulf %s, %x : tensor<256xf32, #l>
  return %p : tensor<256xf32, #l>
}
}

// -----

// A splat constant (and a splat of a scalar) puts the same value in every
// register.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @constants
// CHECK-SAME: (%[[S:.*]]: i32) -> (!llvm.struct<(i32, i32)>, !llvm.struct<(i32, i32)>)
// CHECK-DAG: %[[C:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[U:.*]] = llvm.mlir.poison : !llvm.struct<(i32, i32)>
// CHECK: %[[A0:.*]] = llvm.insertvalue %[[C]], %[[U]][0]
// CHECK: %[[A1:.*]] = llvm.insertvalue %[[C]], %[[A0]][1]
// CHECK: %[[B0:.*]] = llvm.insertvalue %[[S]], %[[U]][0]
// CHECK: %[[B1:.*]] = llvm.insertvalue %[[S]], %[[B0]][1]
// CHECK: return %[[A1]], %[[B1]]
func.func @constants(%s: i32) -> (tensor<256xi32, #l>, tensor<256xi32, #l>) {
  %c = arith.constant dense<7> : tensor<256xi32, #l>
  %b = tile.splat %s : tensor<256xi32, #l>
  return %c, %b : tensor<256xi32, #l>, tensor<256xi32, #l>
}
}

// -----

// tile.range: each register is start + its coordinate. With 2 elements per
// thread, lane bit i contributes 2 << i and warp bits contribute 64 and 128;
// register 1 is register 0's coordinate plus 1 (a bit no lane or warp sets,
// so the XOR of the coordinates is a sum).
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @range
// CHECK-SAME: -> !llvm.struct<(i32, i32)>
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : i32)
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32)
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-DAG: %[[C32:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32)
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
// CHECK-DAG: %[[C31:.*]] = llvm.mlir.constant(31 : i32)
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32)
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[LANE:.*]] = llvm.and %[[TID]], %[[C31]]
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]], %[[C5]]
// CHECK: llvm.mul %{{.*}}, %[[C2]]
// CHECK: llvm.mul %{{.*}}, %[[C4]]
// CHECK: llvm.mul %{{.*}}, %[[C8]]
// CHECK: llvm.mul %{{.*}}, %[[C16]]
// CHECK: llvm.mul %{{.*}}, %[[C32]]
// CHECK: llvm.lshr %[[WARP]]
// CHECK: llvm.mul %{{.*}}, %[[C64]]
// CHECK: %[[W1:.*]] = llvm.lshr %[[WARP]], %[[C1]]
// CHECK: %[[W1B:.*]] = llvm.and %[[W1]], %[[C1]]
// CHECK: %[[W1T:.*]] = llvm.mul %[[W1B]], %[[C128]]
// CHECK: %[[LW:.*]] = llvm.xor %{{.*}}, %[[W1T]]
// CHECK: %[[K0:.*]] = llvm.add %[[LW]], %{{.*}}
// CHECK: %[[R0:.*]] = llvm.add %[[K0]], %[[C8]]
// CHECK: %[[K1:.*]] = llvm.add %[[LW]], %[[C1]]
// CHECK: %[[R1:.*]] = llvm.add %[[K1]], %[[C8]]
// CHECK: llvm.insertvalue %[[R0]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[R1]], %{{.*}}[1]
func.func @range() -> tensor<256xi32, #l> {
  %r = tile.range 8, 264 : tensor<256xi32, #l>
  return %r : tensor<256xi32, #l>
}
}

// -----

// Without canonicalization, the packed range is a struct with one member per
// register: 512 elements, 4 per thread in a 2x repetition of the 256-element
// block.
#l = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
// RAW-LABEL: func.func @range_repeated
// RAW: nvvm.read.ptx.sreg.tid.x
// RAW: llvm.mlir.poison : !llvm.struct<(i32, i32, i32, i32)>
// RAW-COUNT-4: llvm.insertvalue
// RAW-NOT: llvm.insertvalue
// RAW: return %{{.*}} : !llvm.struct<(i32, i32, i32, i32)>
func.func @range_repeated() -> tensor<512xi32, #l> {
  %r = tile.range 0, 512 : tensor<512xi32, #l>
  return %r : tensor<512xi32, #l>
}
}
