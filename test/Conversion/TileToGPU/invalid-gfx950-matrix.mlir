// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 --verify-diagnostics

// Matrix layouts are bound to their chip: WMMA (wave32) is gfx1250's, MFMA
// (wave64) gfx950's.
#c = #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @wmma_on_gfx950(%z: tensor<32x32xf32, #c>) -> tensor<32x32xf32, #c> {
    // expected-error @below {{layout #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [2, 2]}> needs wmma_16x16x32, which gfx950 does not have}}
    return %z : tensor<32x32xf32, #c>
  }
}
