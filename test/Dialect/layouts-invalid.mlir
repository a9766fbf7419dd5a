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

// -----

// expected-error @below {{wgmma_m64k16 operands a and b stay in shared memory: only its accumulator c has a layout}}
func.func @wgmma_operand(%x: tensor<64x16xbf16, #tile.mma<{instr = wgmma_m64k16, operand = a, warpsPerCTA = [4, 1]}>>) {
  return
}

// -----

// expected-error @below {{wgmma_m64k16 needs warpsPerCTA = [4 * warpgroups, 1]}}
func.func @wgmma_warps(%x: tensor<64x64xf32, #tile.mma<{instr = wgmma_m64k16, operand = c, warpsPerCTA = [2, 2]}>>) {
  return
}

// -----

// expected-error @below {{nvmma_shared swizzleBytes must be 32, 64 or 128, got 16}}
func.func @nvmma_swizzle(%x: !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 16, elementBits = 16}>>) {
  return
}

// -----

// expected-error @below {{nvmma_shared elementBits must be 8, 16 or 32, got 4}}
func.func @nvmma_bits(%x: !tile.smem<64x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 4}>>) {
  return
}
