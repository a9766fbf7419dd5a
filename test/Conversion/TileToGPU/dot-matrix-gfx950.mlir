// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx950 --canonicalize --cse | FileCheck %s


// On gfx950 a 64x64x32 bf16 product on 2 x 2 waves of 32x32x16 MFMAs: each
// wave one 32x32 tile in two K steps, 8 bf16 of A and B and 16 f32 of C each.
#a = #tile.mma<{instr = mfma_32x32x16, operand = a, warpsPerCTA = [2, 2]}>
#b = #tile.mma<{instr = mfma_32x32x16, operand = b, warpsPerCTA = [2, 2]}>
#c = #tile.mma<{instr = mfma_32x32x16, operand = c, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @mfma
// CHECK: rocdl.mfma.f32.32x32x16.bf16 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<8xbf16>, vector<8xbf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: rocdl.mfma.f32.32x32x16.bf16
// CHECK-NOT: rocdl.mfma
func.func @mfma(%x: tensor<64x32xbf16, #a>, %y: tensor<32x64xbf16, #b>, %z: tensor<64x64xf32, #c>) -> tensor<64x64xf32, #c> {
  %d = tile.dot %x, %y, %z : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #c>
  return %d : tensor<64x64xf32, #c>
}
}
