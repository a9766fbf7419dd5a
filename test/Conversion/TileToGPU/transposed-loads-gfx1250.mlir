// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu=target=gfx1250 --canonicalize --cse | FileCheck %s

// A K x N buffer read as WMMA 16x16x32's B operand over [32, 32] on 2 x 1
// waves (consecutive K per lane) on gfx1250: one ds_load_tr16_b128 per 8
// registers instead of a 16-bit load per element, 4 loads per lane.
#b1250 = #tile.mma<{instr = wmma_16x16x32, operand = b, warpsPerCTA = [2, 1]}>
module attributes {tile.num_warps = 2 : i32, tile.wave_size = 32 : i32} {
// CHECK-LABEL: func.func @wmma_b
// CHECK-COUNT-4: rocdl.ds.load.tr16.b128 %{{.*}} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: rocdl.ds.load.tr16.b128
// CHECK-NOT: llvm.load
func.func @wmma_b() -> tensor<32x32xf16, #b1250> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x32xf16>
  %v = tile.smem_load %buf : !tile.smem<32x32xf16> -> tensor<32x32xf16, #b1250>
  return %v : tensor<32x32xf16, #b1250>
}
}

// -----

// A swizzle whose groups are narrower than a lane's elements would split
// them: plain loads.
#b1250 = #tile.mma<{instr = wmma_16x16x32, operand = b, warpsPerCTA = [2, 1]}>
module attributes {tile.num_warps = 2 : i32, tile.wave_size = 32 : i32} {
// CHECK-LABEL: func.func @narrow_swizzle
// CHECK-NOT: rocdl.ds.load.tr16.b128
// CHECK: llvm.load
func.func @narrow_swizzle() -> tensor<32x32xf16, #b1250> attributes {tile.kernel} {
  %buf = tile.alloc_shared : !tile.smem<32x32xf16, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
  %v = tile.smem_load %buf : !tile.smem<32x32xf16, #tile.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>> -> tensor<32x32xf16, #b1250>
  return %v : tensor<32x32xf16, #b1250>
}
}
