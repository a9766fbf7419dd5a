// RUN: kda-opt %s -split-input-file | kda-opt -split-input-file | FileCheck %s

// Round-trip of the distributed layouts.

// CHECK-LABEL: func.func @mma_operands
// CHECK-SAME: tensor<64x16xbf16, #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>>
// CHECK-SAME: tensor<16x32xf16, #tile.mma<{instr = mfma_32x32x16, operand = b, warpsPerCTA = [1, 4]}>>
// CHECK-SAME: tensor<32x32xf32, #tile.mma<{instr = mfma_16x16x32, operand = c, warpsPerCTA = [4, 1]}>>
func.func @mma_operands(
    %a: tensor<64x16xbf16, #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>>,
    %b: tensor<16x32xf16, #tile.mma<{instr = mfma_32x32x16, operand = b, warpsPerCTA = [1, 4]}>>,
    %c: tensor<32x32xf32, #tile.mma<{instr = mfma_16x16x32, operand = c, warpsPerCTA = [4, 1]}>>) {
  return
}

// -----

// A reduction of a dot's result is a slice of its mma layout.
// CHECK-LABEL: func.func @slice_of_mma
// CHECK: #tile.slice<{dim = 1, parent = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>}>
func.func @slice_of_mma(%c: tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>}>>) {
  return
}
