// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// Conversions that move elements between threads go through the scratch
// buffer in shared memory (addr_space 3, sized for the whole tile): a barrier,
// every thread stores its registers, a barrier, every thread loads the
// registers of the new layout. Rows of the scratch are padded so that the
// column-wise side of the conversion spreads over the banks
// (getScratchRowPadding): here by 2 words, 16 x 34 f32 = 2176 bytes, each
// row 34 elements after the previous one.

// CHECK: llvm.mlir.global internal @kda_scratch() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2176 x i8>
#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [2, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(f32, f32, f32, f32)>) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-DAG: %[[BASE:.*]] = llvm.mlir.addressof @kda_scratch : !llvm.ptr<3>
// CHECK-DAG: %[[X0:.*]] = llvm.extractvalue %[[X]][0]
// CHECK-DAG: %[[X3:.*]] = llvm.extractvalue %[[X]][3]
// CHECK-DAG: %[[ROW:.*]] = llvm.mlir.constant(34 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK: llvm.mul %{{.*}}, %[[ROW]] : i32
// CHECK: llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %[[X0]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK-COUNT-2: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %[[X3]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: return
func.func @convert(%x: tensor<16x32xf32, #a>) -> tensor<16x32xf32, #c> {
  %t = tile.convert_layout %x : tensor<16x32xf32, #a> -> tensor<16x32xf32, #c>
  return %t : tensor<16x32xf32, #c>
}
}

// -----

// A reshape whose destination spreads the row-major order over lanes
// differently from the source: 512 f16 = 1024 bytes of scratch, unpadded (the
// two sides have different rows).
// CHECK: llvm.mlir.global internal @kda_scratch() {{.*}}addr_space = 3 : i32{{.*}} : !llvm.array<1024 x i8>
#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#c = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @reshape
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}} : f16, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK: return
func.func @reshape(%x: tensor<512xf16, #a>) -> tensor<16x32xf16, #c> {
  %t = tile.reshape %x : tensor<512xf16, #a> -> tensor<16x32xf16, #c>
  return %t : tensor<16x32xf16, #c>
}
}

// -----

// i1 tiles travel through scratch as bytes: 16x32 i1, rows padded by one
// word, 16 x 36 = 576 bytes.
// CHECK: llvm.mlir.global internal @kda_scratch() {{.*}} : !llvm.array<576 x i8>
#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [2, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @mask
// CHECK: llvm.zext %{{.*}} : i1 to i8
// CHECK: llvm.store %{{.*}} : i8, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK: llvm.trunc %{{.*}} : i8 to i1
func.func @mask(%x: tensor<16x32xi1, #a>) -> tensor<16x32xi1, #c> {
  %t = tile.convert_layout %x : tensor<16x32xi1, #a> -> tensor<16x32xi1, #c>
  return %t : tensor<16x32xi1, #c>
}
}
