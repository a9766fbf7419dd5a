// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// A padded buffer: row-major index i is stored at i + (i >> log2 interval) *
// padding, and the buffer takes its padding too (32 rows of 32 + 4 f32:
// 4608 bytes). Four elements of padding keep 16-byte vectors aligned.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#pad = #tile.padded_shared<{interval = 32, padding = 4, order = [1, 0]}>
module attributes {tile.num_warps = 1 : i32} {
// CHECK: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4608 x i8>
// CHECK-LABEL: func.func @padded_load
// CHECK-DAG: %[[FIVE:.*]] = llvm.mlir.constant(5 : i32)
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32)
// CHECK: %[[ROWS:.*]] = llvm.lshr %[[IDX:.*]], %[[FIVE]] : i32
// CHECK-NEXT: %[[PAD:.*]] = llvm.mul %[[ROWS]], %[[FOUR]] : i32
// CHECK-NEXT: %[[AT:.*]] = llvm.add %[[IDX]], %[[PAD]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[AT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
func.func @padded_load() -> tensor<32x32xf32, #blk> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x32xf32, #pad>
  %v = tile.smem_load %buf : !tile.smem<32x32xf32, #pad> -> tensor<32x32xf32, #blk>
  return %v : tensor<32x32xf32, #blk>
}
}

// -----

// One element of padding splits every vector: each element is its own load.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#pad = #tile.padded_shared<{interval = 32, padding = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @padded_by_one
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT: vector<
func.func @padded_by_one() -> tensor<32x32xf32, #blk> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x32xf32, #pad>
  %v = tile.smem_load %buf : !tile.smem<32x32xf32, #pad> -> tensor<32x32xf32, #blk>
  return %v : tensor<32x32xf32, #blk>
}
}

// -----

// A slice of the leading dimension starts after its predecessors' elements
// and padding: 16 rows of 32 + 1 elements.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#pad = #tile.padded_shared<{interval = 32, padding = 1, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @padded_slice
// CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(528 : i32)
// CHECK: %[[OFF:.*]] = llvm.mul %{{.*}}, %[[STRIDE]] : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
func.func @padded_slice(%i: i32) -> tensor<16x32xf32, #blk> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<2x16x32xf32, #pad>
  %s = tile.smem_index %buf[%i] : !tile.smem<2x16x32xf32, #pad> -> !tile.smem<16x32xf32, #pad>
  %v = tile.smem_load %s : !tile.smem<16x32xf32, #pad> -> tensor<16x32xf32, #blk>
  return %v : tensor<16x32xf32, #blk>
}
}

// -----

// 8x8 matrix loads read 16 contiguous bytes per row: 8 bf16 of padding keep
// them, while 4 of padding and a swizzle of 4-element groups split them, so
// those operands are read element by element.
#a = #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>
#pad8 = #tile.padded_shared<{interval = 32, padding = 8, order = [1, 0]}>
#pad4 = #tile.padded_shared<{interval = 32, padding = 4, order = [1, 0]}>
#sw4 = #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @matrix_loads
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load
// CHECK-NOT: nvvm.ldmatrix
func.func @matrix_loads() -> (tensor<64x32xbf16, #a>, tensor<64x32xbf16, #a>, tensor<64x32xbf16, #a>) attributes {tile.kernel} {
  %b8 = tile.alloc_shared : !tile.smem<64x32xbf16, #pad8>
  %b4 = tile.alloc_shared : !tile.smem<64x32xbf16, #pad4>
  %bs = tile.alloc_shared : !tile.smem<64x32xbf16, #sw4>
  %x = tile.smem_load %b8 : !tile.smem<64x32xbf16, #pad8> -> tensor<64x32xbf16, #a>
  %y = tile.smem_load %b4 : !tile.smem<64x32xbf16, #pad4> -> tensor<64x32xbf16, #a>
  %z = tile.smem_load %bs : !tile.smem<64x32xbf16, #sw4> -> tensor<64x32xbf16, #a>
  return %x, %y, %z : tensor<64x32xbf16, #a>, tensor<64x32xbf16, #a>, tensor<64x32xbf16, #a>
}
}
