// RUN: kda-opt %s --convert-tile-to-gpu=target=gfx1250 --canonicalize --cse -split-input-file | FileCheck %s

// On gfx1250 a 32x32x64 bf16 product on 2 x 2 waves of 16x16x32 WMMAs: each
// wave one 16x16 tile in two K steps, 16 bf16 of A and B and 8 f32 of C each.
#a = #tile.mma<{instr = wmma_16x16x32, operand = a, warpsPerCTA = [2, 2]}>
#b = #tile.mma<{instr = wmma_16x16x32, operand = b, warpsPerCTA = [2, 2]}>
#c = #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [2, 2]}>
module attributes {tile.num_warps = 4 : i32} {
// CHECK-LABEL: func.func @wmma_bf16
// CHECK: %[[D:.*]] = rocdl.wmma.f32.16x16x32.bf16 %{{.*}}, %{{.*}}, %{{.*}} : (vector<16xbf16>, vector<16xbf16>, vector<8xf32>) -> vector<8xf32>
// CHECK: rocdl.wmma.f32.16x16x32.bf16
// CHECK-NOT: rocdl.wmma
func.func @wmma_bf16(%x: tensor<32x64xbf16, #a>, %y: tensor<64x32xbf16, #b>, %z: tensor<32x32xf32, #c>) -> tensor<32x32xf32, #c> {
  %d = tile.dot %x, %y, %z : tensor<32x64xbf16, #a>, tensor<64x32xbf16, #b> -> tensor<32x32xf32, #c>
  return %d : tensor<32x32xf32, #c>
}
}

// -----

#a = #tile.mma<{instr = wmma_16x16x32, operand = a, warpsPerCTA = [1, 1]}>
#b = #tile.mma<{instr = wmma_16x16x32, operand = b, warpsPerCTA = [1, 1]}>
#c = #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [1, 1]}>
module attributes {tile.num_warps = 1 : i32} {
// CHECK-LABEL: func.func @wmma_f16
// CHECK: rocdl.wmma.f32.16x16x32.f16 %{{.*}} : (vector<16xf16>, vector<16xf16>, vector<8xf32>) -> vector<8xf32>
func.func @wmma_f16(%x: tensor<16x32xf16, #a>, %y: tensor<32x16xf16, #b>, %z: tensor<16x16xf32, #c>) -> tensor<16x16xf32, #c> {
  %d = tile.dot %x, %y, %z : tensor<16x32xf16, #a>, tensor<32x16xf16, #b> -> tensor<16x16xf32, #c>
  return %d : tensor<16x16xf32, #c>
}
}

// -----

// A product reducing over 16 on the K = 32 WMMA: the operands' layouts wrap
// along K (registers 8-15 of a lane repeat 0-7), and the lowering feeds the
// instruction zeros in their place, in A and in B.
#a = #tile.mma<{instr = wmma_16x16x32, operand = a, warpsPerCTA = [1, 1]}>
#b = #tile.mma<{instr = wmma_16x16x32, operand = b, warpsPerCTA = [1, 1]}>
#c = #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [1, 1]}>
module attributes {tile.num_warps = 1 : i32} {
// CHECK-LABEL: func.func @wmma_k16
// CHECK: %[[Z:.*]] = llvm.mlir.zero : bf16
// CHECK-COUNT-16: llvm.insertelement %[[Z]]
// CHECK: rocdl.wmma.f32.16x16x32.bf16
// CHECK-NOT: rocdl.wmma
func.func @wmma_k16(%x: tensor<16x16xbf16, #a>, %y: tensor<16x16xbf16, #b>, %z: tensor<16x16xf32, #c>) -> tensor<16x16xf32, #c> {
  %d = tile.dot %x, %y, %z : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #c>
  return %d : tensor<16x16xf32, #c>
}
}
