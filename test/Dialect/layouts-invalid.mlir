// RUN: kda-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the layout attribute verifiers (TileAttrs.cpp).

// expected-error @below {{sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same length}}
func.func @blocked_lengths(%x: tensor<8xf32, #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// expected-error @below {{slice parent must be a distributed layout}}
func.func @slice_of_shared(%x: tensor<8xf32, #tile.slice<{dim = 0, parent = #tile.padded_shared<{interval = 32, padding = 1, order = [1, 0]}>}>>) {
  return
}

// -----

// expected-error @below {{mma layout warpsPerCTA must be [along M, along N]}}
func.func @mma_warps_rank(%x: tensor<16x8xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4]}>>) {
  return
}

// -----

// expected-error @below {{warpsPerCTA}}
func.func @mma_warps_power_of_two(%x: tensor<16x8xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [3, 1]}>>) {
  return
}

// -----

// expected-error @below {{layout #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [1, 1]}> has rank 2 but the tile has rank 1}}
func.func @mma_rank(%x: tensor<16xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [1, 1]}>>) {
  return
}

// -----

// expected-error @below {{mma layout operand c holds f32 elements, not 'bf16'}}
func.func @mma_accumulator_type(%x: tensor<16x8xbf16, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [1, 1]}>>) {
  return
}

// -----

// expected-error @below {{mma layout operand a holds bf16 or f16 elements, not 'f32'}}
func.func @mma_operand_type(%x: tensor<16x16xf32, #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [1, 1]}>>) {
  return
}

// -----

// expected-error @below {{expected}}
// expected-error @below {{failed to parse Tile_MmaLayoutAttr parameter 'instr'}}
func.func @mma_unknown_instr(%x: tensor<16x8xf32, #tile.mma<{instr = wmma_16x16x16, operand = c, warpsPerCTA = [1, 1]}>>) {
  return
}

// -----

// The tf32 instruction's operands hold f32.
// expected-error @below {{mma layout operand a holds f32 elements, not 'bf16'}}
func.func @mma_tf32_bf16(%x: tensor<16x8xbf16, #tile.mma<{instr = mma_m16n8k8_tf32, operand = a, warpsPerCTA = [1, 1]}>>) {
  return
}
