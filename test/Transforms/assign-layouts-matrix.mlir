// RUN: kda-opt %s --split-input-file \
// RUN:   --tile-assign-layouts="num-warps=4 matrix-instrs=mma_m16n8k16,mma_m16n8k8_tf32" | FileCheck %s
// RUN: kda-opt %s --split-input-file \
// RUN:   --tile-assign-layouts="num-warps=4 wave-size=64 matrix-instrs=mfma_32x32x16,mfma_16x16x32" \
// RUN:   | FileCheck %s --check-prefix=MFMA
// RUN: kda-opt %s --split-input-file --tile-assign-layouts="num-warps=4 wave-size=64 \
// RUN:   matrix-instrs=mfma_32x32x16,mfma_16x16x32,mfma_16x16x16,mfma_16x16x4_f32" \
// RUN:   | FileCheck %s --check-prefix=GFX950
// RUN: kda-opt %s --split-input-file \
// RUN:   --tile-assign-layouts="num-warps=4 matrix-instrs=wmma_16x16x32" \
// RUN:   | FileCheck %s --check-prefix=WMMA

// A 16-bit dot that a matrix instruction tiles: the result and the accumulator
// take #tile.mma of the first instruction that fits, the operands its a and b
// layouts (converted from their loads' layouts). The warps split the
// dimension each covers more of, rows first: 2 x 2 warps of 32 x 32.

// CHECK-LABEL: func.func @dot_bf16
// CHECK: %[[A:.*]] = tile.convert_layout %{{.*}} {tile.implicit} : tensor<64x32xbf16, #{{.*}}> -> tensor<64x32xbf16, #tile.mma<{instr = mma_m16n8k16, operand = a, warpsPerCTA = [2, 2]}>>
// CHECK: %[[B:.*]] = tile.convert_layout %{{.*}} {tile.implicit} : tensor<32x64xbf16, #{{.*}}> -> tensor<32x64xbf16, #tile.mma<{instr = mma_m16n8k16, operand = b, warpsPerCTA = [2, 2]}>>
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} : {{.*}} -> tensor<64x64xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [2, 2]}>>
// The 32x32 tile fits: 2 x 2 waves.
// MFMA-LABEL: func.func @dot_bf16
// MFMA: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<{instr = mfma_32x32x16, operand = c, warpsPerCTA = [2, 2]}>>
// The 16x16 WMMA tile: 2 x 2 waves of 32 x 32.
// WMMA-LABEL: func.func @dot_bf16
// WMMA: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [2, 2]}>>
func.func @dot_bf16(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %acc: f32) -> f32 {
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<bf16>>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<bf16>>
  %x = tile.load %pa : tensor<64x32x!tile.ptr<bf16>>
  %y = tile.load %pb : tensor<32x64x!tile.ptr<bf16>>
  %c = tile.splat %acc : tensor<64x64xf32>
  %d = tile.dot %x, %y, %c : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %s = tile.reduce sum %r {axis = 0 : i32} : tensor<64xf32> -> f32
  return %s : f32
}

// -----

// An instruction tile smaller than the warps' block: the warps left over hold
// copies (all four along M of one 16x8 tile). A K of 16 is too small for the
// 16x16x32 MFMA and M = 16 for the 32x32x16 one, N = 8 for the 16x16x16 one:
// no mma layout there.
// CHECK-LABEL: func.func @one_tile
// CHECK: tile.dot {{.*}} -> tensor<16x8xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>>
// MFMA-LABEL: func.func @one_tile
// MFMA: tile.dot {{.*}} -> tensor<16x8xf32, #tile.blocked
// GFX950-LABEL: func.func @one_tile
// GFX950: tile.dot {{.*}} -> tensor<16x8xf32, #tile.blocked
func.func @one_tile(%x: bf16, %acc: f32) -> f32 {
  %a = tile.splat %x : tensor<16x16xbf16>
  %b = tile.splat %x : tensor<16x8xbf16>
  %c = tile.splat %acc : tensor<16x8xf32>
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<16x8xf32> -> tensor<16xf32>
  %s = tile.reduce sum %r {axis = 0 : i32} : tensor<16xf32> -> f32
  return %s : f32
}

// -----

// A reduction of 16 over 16 x 32: the 16x16x16 MFMA where the list has it (gfx950);
// 2 x 2 waves, those along M holding copies.
// GFX950-LABEL: func.func @short_k
// GFX950: tile.dot {{.*}} -> tensor<16x32xf32, #tile.mma<{instr = mfma_16x16x16, operand = c, warpsPerCTA = [2, 2]}>>
// MFMA-LABEL: func.func @short_k
// MFMA: tile.dot {{.*}} -> tensor<16x32xf32, #tile.blocked
func.func @short_k(%x: bf16, %acc: f32) -> f32 {
  %a = tile.splat %x : tensor<16x16xbf16>
  %b = tile.splat %x : tensor<16x32xbf16>
  %c = tile.splat %acc : tensor<16x32xf32>
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x32xbf16> -> tensor<16x32xf32>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<16x32xf32> -> tensor<16xf32>
  %s = tile.reduce sum %r {axis = 0 : i32} : tensor<16xf32> -> f32
  return %s : f32
}

// -----

// fp32 operands keep the exact FMA path: the default layout.
// CHECK-LABEL: func.func @dot_f32
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.blocked
// fp32 operands with tf32 allowed take the tf32 instruction (NVIDIA), and no
// 16-bit one; without it in the list, the FMA path.
// CHECK: tile.dot {{.*}} precision tf32 : {{.*}} -> tensor<64x64xf32, #tile.mma<{instr = mma_m16n8k8_tf32, operand = c, warpsPerCTA = [2, 2]}>>
// MFMA-LABEL: func.func @dot_f32
// MFMA: tile.dot {{.*}} -> tensor<64x64xf32, #tile.blocked
// MFMA: tile.dot {{.*}} precision tf32 : {{.*}} -> tensor<64x64xf32, #tile.blocked
// gfx950 multiplies them on its fp32 MFMA (no tf32 instruction there).
// GFX950-LABEL: func.func @dot_f32
// GFX950: tile.dot {{.*}} -> tensor<64x64xf32, #tile.blocked
// GFX950: tile.dot {{.*}} precision tf32 : {{.*}} -> tensor<64x64xf32, #tile.mma<{instr = mfma_16x16x4_f32, operand = c, warpsPerCTA = [2, 2]}>>
func.func @dot_f32(%x: f32) -> f32 {
  %a = tile.splat %x : tensor<64x32xf32>
  %b = tile.splat %x : tensor<32x64xf32>
  %c = tile.splat %x : tensor<64x64xf32>
  %d0 = tile.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %d = tile.dot %a, %b, %d0 precision tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %r = tile.reduce sum %d {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %s = tile.reduce sum %r {axis = 0 : i32} : tensor<64xf32> -> f32
  return %s : f32
}
