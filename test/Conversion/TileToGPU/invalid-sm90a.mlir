// RUN: kda-opt %s --split-input-file --verify-diagnostics --convert-tile-to-gpu=target=sm_90a

// A wave64 layout on sm_90a (wave32).
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @wave(%x: tensor<256xf32, #l>) -> tensor<256xf32, #l> {
  // expected-error @below {{spreads over 64 lanes x 4 warps, but the target runs 32 lanes x 4 warps}}
  %y = arith.addf %x, %x : tensor<256xf32, #l>
  return %y : tensor<256xf32, #l>
}
}

// -----

// 256x256 f32 = 256 KiB of scratch; sm_90a allows 227 KiB of (dynamic)
// shared memory.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// expected-error @below {{kernel needs 262144 bytes of shared memory; sm_90a allows 232448}}
module attributes {tile.num_warps = 4 : i32} {
func.func @too_big(%x: tensor<256x256xf32, #a>) -> tensor<256x256xf32, #c> {
  %t = tile.convert_layout %x : tensor<256x256xf32, #a> -> tensor<256x256xf32, #c>
  return %t : tensor<256x256xf32, #c>
}
}

// -----

// A trans whose relabelling would move elements between threads.
#a = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32} {
func.func @trans(%x: tensor<16x32xf32, #a>) -> tensor<32x16xf32, #a> {
  // expected-error @below {{moves elements between threads: convert its operand to a compatible layout first}}
  // expected-error @below {{failed to legalize operation 'tile.trans'}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #a> -> tensor<32x16xf32, #a>
  return %t : tensor<32x16xf32, #a>
}
}

// -----

// Shared buffers count towards the shared memory limit (227 KiB).
// expected-error @below {{kernel needs 245760 bytes of shared memory; sm_90a allows 232448 (0 for layout conversions and reductions, 245760 in shared buffers}}
module attributes {tile.num_warps = 4 : i32} {
func.func @too_much_shared() attributes {tile.kernel} {
  %a = tile.alloc_shared : !tile.smem<2x128x128xf32>
  %b = tile.alloc_shared : !tile.smem<128x128xf32>
  %c = tile.alloc_shared : !tile.smem<96x128xf32>
  return
}
}

// -----

// A matrix layout of an instruction sm_90a does not have.
#a = #tile.mma<{instr = mfma_32x32x16, operand = c, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @mfma_on_sm90a(%z: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #a> {
    // expected-error @below {{layout #tile.mma<{instr = mfma_32x32x16, operand = c, warpsPerCTA = [2, 2]}> needs mfma_32x32x16, which sm_90a does not have}}
    return %z : tensor<64x64xf32, #a>
  }
}

// -----

// A matrix layout over other warps than the launch's.
#c = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [1, 1]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func @mma_other_warps(%z: tensor<16x8xf32, #c>) -> tensor<16x8xf32, #c> {
    // expected-error @below {{layout #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [1, 1]}> spreads over 1 warps, but the target runs 4 warps}}
    return %z : tensor<16x8xf32, #c>
  }
}
