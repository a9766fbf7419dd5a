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
// 2 x 2 waves, those along M holding copies. Without an instruction whose K
// divides 16, one whose K the product pads with zeros in registers: gfx1250's
// WMMA (K 16-31 in registers 8-15); not the 16x16x32 MFMA, whose lane groups
// hold K 16-31 (the FMA path).
// GFX950-LABEL: func.func @short_k
// GFX950: tile.dot {{.*}} -> tensor<16x32xf32, #tile.mma<{instr = mfma_16x16x16, operand = c, warpsPerCTA = [2, 2]}>>
// MFMA-LABEL: func.func @short_k
// MFMA: tile.dot {{.*}} -> tensor<16x32xf32, #tile.blocked
// WMMA-LABEL: func.func @short_k
// WMMA: tile.dot {{.*}} -> tensor<16x32xf32, #tile.mma<{instr = wmma_16x16x32, operand = c, warpsPerCTA = [2, 2]}>>
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

// -----

// A chain of products: the first result, carried through the loop and
// rounded, is the next product's A operand, so it keeps all four warps along
// M (a row of instruction tiles each) and its registers are that operand's;
// a result that only feeds B or a reduction splits the warps 2 x 2.
// CHECK-LABEL: func.func @chained
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>>)
// CHECK: tile.dot {{.*}} -> tensor<64x16xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>>
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [4, 1]}>>
// CHECK-LABEL: func.func @unchained
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32, #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [2, 2]}>>
func.func @chained(%x: bf16, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64x128xf32>
  %b = tile.splat %x : tensor<128x16xbf16>
  %d = tile.splat %x : tensor<16x128xbf16>
  %z16 = tile.splat %zero : tensor<64x16xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%st = %init) -> (tensor<64x128xf32>) {
    %a = arith.truncf %st : tensor<64x128xf32> to tensor<64x128xbf16>
    %delta = tile.dot %a, %b, %z16 : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
    %dt = arith.truncf %delta : tensor<64x16xf32> to tensor<64x16xbf16>
    %next = tile.dot %dt, %d, %st : tensor<64x16xbf16>, tensor<16x128xbf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %r = tile.reduce sum %s {axis = 1 : i32} : tensor<64x128xf32> -> tensor<64xf32>
  %t = tile.reduce sum %r {axis = 0 : i32} : tensor<64xf32> -> f32
  return %t : f32
}
func.func @unchained(%x: bf16) -> f32 {
  %zero = arith.constant 0.0 : f32
  %a = tile.splat %x : tensor<64x16xbf16>
  %b = tile.splat %x : tensor<16x128xbf16>
  %c = tile.splat %zero : tensor<64x128xf32>
  %d = tile.dot %a, %b, %c : tensor<64x16xbf16>, tensor<16x128xbf16> -> tensor<64x128xf32>
  %e = arith.truncf %d : tensor<64x128xf32> to tensor<64x128xbf16>
  %f = tile.splat %x : tensor<128x64xbf16>
  %c2 = tile.splat %zero : tensor<128x128xf32>
  %g = tile.dot %f, %e, %c2 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %r = tile.reduce sum %g {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %t = tile.reduce sum %r {axis = 0 : i32} : tensor<128xf32> -> f32
  return %t : f32
}

// -----

// An asynchronous copy takes the widest accesses of its own shape (16 bytes
// of bf16 per thread), not the function's default, which the fp32 tile that
// moves the most bytes sets (4 elements per thread); its pointers and mask,
// built from ranges and splats, are recomputed there. A shared tile expanded
// into a product's accumulator is loaded as a slice of the accumulator's
// layout, with no conversion.
// CHECK-LABEL: func.func @copy_and_scale
// CHECK: tile.async_copy {{.*}} : !tile.smem<128x16xbf16>, tensor<128x16x!tile.ptr<bf16>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.smem_load %{{.*}} : !tile.smem<128xf32> -> tensor<128xf32, #tile.slice<{dim = 0, parent = #tile.mma<{instr = mma_m16n8k16, operand = c, warpsPerCTA = [2, 2]}>}>>
// CHECK-NEXT: tile.expand_dims
func.func @copy_and_scale(%src: !tile.ptr<bf16>, %dst: !tile.ptr<f32>, %x: bf16, %row: i32,
                          %live: i1) {
  %buf = tile.alloc_shared : !tile.smem<128x16xbf16>
  %gbuf = tile.alloc_shared : !tile.smem<128xf32>
  %r = tile.range 0, 128 : tensor<128xi32>
  %c = tile.range 0, 16 : tensor<16xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %c16 = arith.constant dense<16> : tensor<128x1xi32>
  %rs = arith.muli %r2, %c16 : tensor<128x1xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tile.broadcast %rs : tensor<128x1xi32> -> tensor<128x16xi32>
  %cb = tile.broadcast %c2 : tensor<1x16xi32> -> tensor<128x16xi32>
  %off = arith.addi %rb, %cb : tensor<128x16xi32>
  %base = tile.splat %src : tensor<128x16x!tile.ptr<bf16>>
  %p = tile.addptr %base, %off : tensor<128x16x!tile.ptr<bf16>>, tensor<128x16xi32>
  %m = tile.splat %live : tensor<128x16xi1>
  tile.async_copy %buf, %p mask %m : !tile.smem<128x16xbf16>, tensor<128x16x!tile.ptr<bf16>>
  tile.async_wait {pending = 0 : i32}
  %b = tile.smem_load %buf : !tile.smem<128x16xbf16> -> tensor<128x16xbf16>
  %a = tile.splat %x : tensor<64x128xbf16>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : tensor<64x16xf32>
  %d = tile.dot %a, %b, %acc : tensor<64x128xbf16>, tensor<128x16xbf16> -> tensor<64x16xf32>
  %e = arith.truncf %d : tensor<64x16xf32> to tensor<64x16xbf16>
  %f = tile.splat %x : tensor<16x128xbf16>
  %s0 = tile.splat %zero : tensor<64x128xf32>
  %s = tile.dot %e, %f, %s0 : tensor<64x16xbf16>, tensor<16x128xbf16> -> tensor<64x128xf32>
  %g = tile.smem_load %gbuf : !tile.smem<128xf32> -> tensor<128xf32>
  %g2 = tile.expand_dims %g {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  %gb = tile.broadcast %g2 : tensor<1x128xf32> -> tensor<64x128xf32>
  %scaled = arith.mulf %s, %gb : tensor<64x128xf32>
  %rows = tile.range 0, 64 : tensor<64xi32>
  %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %ro = arith.muli %rows2, %c128 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
  %colb = tile.broadcast %cols : tensor<1x128xi32> -> tensor<64x128xi32>
  %o = arith.addi %rob, %colb : tensor<64x128xi32>
  %dbase = tile.splat %dst : tensor<64x128x!tile.ptr<f32>>
  %q = tile.addptr %dbase, %o : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  tile.store %q, %scaled : tensor<64x128x!tile.ptr<f32>>
  return
}

