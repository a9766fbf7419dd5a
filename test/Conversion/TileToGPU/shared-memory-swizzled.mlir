// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse | FileCheck %s

// A swizzled buffer: the column c of row r is XORed with
// ((r >> log2 perPhase) & (maxPhase - 1)) << log2 vec before the row-major
// index, so a 16-byte vector (one 8-element group) stays whole and 8 rows read
// at one column land on distinct banks.
#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @swizzled_load
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i32)
// CHECK: %[[OFF:.*]] = llvm.shl %[[PH:.*]], %[[THREE]] : i32
// CHECK-NEXT: %[[COL:.*]] = llvm.xor %{{.*}}, %[[OFF]] : i32
// CHECK: %[[IDX:.*]] = llvm.add %{{.*}}, %[[COL]] : i32
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[IDX]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
// CHECK-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
func.func @swizzled_load() -> tensor<32x32xbf16, #blk> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
  %v = tile.smem_load %buf : !tile.smem<32x32xbf16, #tile.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>> -> tensor<32x32xbf16, #blk>
  return %v : tensor<32x32xbf16, #blk>
}
}

// -----

// Reading mma.sync operands: A [M, K] with plain ldmatrix.x4, B [K, N] with
// the transposed form, each lane giving one row address of its 8x8 block.
#a = #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>
#b = #tile.mma<{instr = mma_m16n8k16, operand = b, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @ldmatrix_operands
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: llvm.load
func.func @ldmatrix_operands() -> (tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>) attributes {tile.kernel} {
  %abuf = tile.alloc_shared : !tile.smem<64x32xbf16>
  %bbuf = tile.alloc_shared : !tile.smem<32x64xbf16>
  %x = tile.smem_load %abuf : !tile.smem<64x32xbf16> -> tensor<64x32xbf16, #a>
  %y = tile.smem_load %bbuf : !tile.smem<32x64xbf16> -> tensor<32x64xbf16, #b>
  return %x, %y : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>
}
}
