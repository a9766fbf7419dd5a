// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx950 --canonicalize --cse | FileCheck %s

// A K x N buffer read as a matrix unit's B operand (consecutive K per lane)
// on gfx950: one ds_read_b64_tr_b16 per 4 registers instead of a 16-bit load
// per element. MFMA 32x32x16's B over [32, 64] on 2 waves: 16 registers, 4
// loads.
#b950 = #tile.mma<{instr = mfma_32x32x16, operand = b, warpsPerCTA = [1, 2]}>
module attributes {tile.num_warps = 2 : i32, tile.wave_size = 64 : i32} {
// CHECK-LABEL: func.func @mfma_b
// CHECK-COUNT-4: rocdl.ds.read.tr16.b64 %{{.*}} : <3> -> vector<4xbf16>
// CHECK-NOT: rocdl.ds.read.tr16.b64
// CHECK-NOT: llvm.load
func.func @mfma_b() -> tensor<32x64xbf16, #b950> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>>
  %v = tile.smem_load %buf : !tile.smem<32x64xbf16, #tile.nvmma_shared<{swizzleBytes = 128, elementBits = 16}>> -> tensor<32x64xbf16, #b950>
  return %v : tensor<32x64xbf16, #b950>
}
}

