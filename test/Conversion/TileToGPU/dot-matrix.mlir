// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=sm_90a --canonicalize --cse \
// RUN:   | FileCheck %s

// A dot in #tile.mma layouts is one matrix instruction per instruction tile
// and K step of the warp: a [16, 16] x [16, 16] product on mma.sync m16n8k16
// is two instructions (N = 16 is two 8-wide tiles), each on 4 pairs of A,
// 2 pairs of B (bf16 pairs as i32) and 4 f32 of C.

#a = #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [4, 1]}>
#b = #tile.mma<{instr = mma_m16n8k16, operand = b, warpsPerCTA = [4, 1]}>
#c = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @mma
// CHECK-COUNT-6: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: llvm.intr.fma
func.func @mma(%x: tensor<16x16xbf16, #a>, %y: tensor<16x16xbf16, #b>, %z: tensor<16x16xf32, #c>) -> tensor<16x16xf32, #c> {
  %d = tile.dot %x, %y, %z : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #c>
  return %d : tensor<16x16xf32, #c>
}
}

// -----

// tf32: fp32 operands rounded to tf32 once per register (add half of the
// dropped bits, clear them; NaNs kept), then mma.sync m16n8k8 on their bits:
// a [16, 8] x [8, 8] product is one instruction on 4 + 2 tf32 values.
#a = #tile.mma<{instr = mma_m16n8k8_tf32, operand = a, warpsPerCTA = [1, 1]}>
#b = #tile.mma<{instr = mma_m16n8k8_tf32, operand = b, warpsPerCTA = [1, 1]}>
#c = #tile.mma<{instr = mma_m16n8k8_tf32, operand = c, warpsPerCTA = [1, 1]}>
module attributes {tile.num_warps = 1 : i32} {
// CHECK-LABEL: func.func @mma_tf32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 4096 : i32
// CHECK-DAG: %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[UP:.*]] = arith.addi %[[BITS]], %[[HALF]] : i32
// CHECK: arith.andi %[[UP]], %[[MASK]] : i32
// CHECK: arith.cmpf uno
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
func.func @mma_tf32(%x: tensor<16x8xf32, #a>, %y: tensor<8x8xf32, #b>, %z: tensor<16x8xf32, #c>) -> tensor<16x8xf32, #c> {
  %d = tile.dot %x, %y, %z precision tf32 : tensor<16x8xf32, #a>, tensor<8x8xf32, #b> -> tensor<16x8xf32, #c>
  return %d : tensor<16x8xf32, #c>
}
}
