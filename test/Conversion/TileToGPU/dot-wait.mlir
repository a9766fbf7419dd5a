// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx950 | FileCheck %s --check-prefix=AMD

// Where products complete at once (AMD's matrix instructions read
// registers), a wait for asynchronous products is its accumulator.
#blk = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
// AMD-LABEL: func.func @wait
// AMD-NOT: tile.dot_wait
// AMD-NOT: inline_asm
// AMD: return %arg0
func.func @wait(%acc: tensor<32x32xf32, #blk>) -> tensor<32x32xf32, #blk> attributes {tile.kernel} {
  %w = tile.dot_wait %acc {pending = 2 : i32} : tensor<32x32xf32, #blk>
  return %w : tensor<32x32xf32, #blk>
}
}
