// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 --verify-diagnostics

// Matrix layouts are bound to their chip: MFMA (wave64) is gfx950's.
#c = #tile.mma<{instr = mfma_16x16x32, operand = c, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @mfma_on_gfx1250(%z: tensor<32x32xf32, #c>) -> tensor<32x32xf32, #c> {
    // expected-error @below {{layout #tile.mma<{instr = mfma_16x16x32, operand = c, warpsPerCTA = [2, 2]}> needs mfma_16x16x32, which gfx1250 does not have}}
    return %z : tensor<32x32xf32, #c>
  }
}
